# shellcheck shell=sh
# rqpath scenario: explore-corrupted-82c674fff0
# summary: found by tests/explore (guided, seed 3, trial 24 on 6.1 6ce3dd6eec), minimized: rqcheck on an ext4 file on a SATA disk, 4k writes descending at depth 32, no injection
# expect: clean; 6.1:6ce3dd6eec=corrupted|violated
# boot: shared
# timeout: 125
# qemu: ahci-disk

# shellcheck source=tests/guest/explore.sh
. /rqpath/explore.sh

scenario_run() {
	EX_SECONDS=12 ex_trial 'dev=ahci paths=1 sd_queue=192 sd_submit_queues=1 sd_busy=none sd_nth=50 sd_delay=default sd_cache=wb sd_discard=on stack=raw sched=none op=rw fs=ext4 engine=io_uring bs=4k order=desc window=0 qd=32 batch=1 cpu=any'
}

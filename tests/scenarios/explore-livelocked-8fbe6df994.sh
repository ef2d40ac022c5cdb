# shellcheck shell=sh
# rqpath scenario: explore-livelocked-8fbe6df994
# summary: found by tests/explore (seed 2, trial 1 on 6.1 ffe81d45322c), minimized: mkfs.ext4 on dm-rqpath over scsi_debug never returns
# expect: clean; ffe81d45322c=livelocked
# boot: own
# timeout: 125

# shellcheck source=tests/guest/explore.sh
. /rqpath/explore.sh

scenario_run() {
	EX_SECONDS=12 ex_trial 'dev=sdebug paths=1 sd_queue=192 sd_submit_queues=1 sd_busy=none sd_nth=50 sd_delay=default sd_cache=wb sd_discard=on stack=rqpath sched=none op=rw fs=ext4 engine=io_uring bs=4k order=asc window=0 qd=1 batch=1 cpu=any'
}

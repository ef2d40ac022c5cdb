# shellcheck shell=sh
# rqpath scenario: explore-livelocked-252e808826
# summary: found by tests/explore on stock, minimized: dm-multipath over one SATA disk stalls for good once the disk is left blocked with nothing in flight
# expect: livelocked|clean
# boot: own
# timeout: 180
# qemu: ahci-disk
#
# Not one of the 2018 bugs: a bug of Debian's 6.1 and 6.12 kernels as they
# ship, on every stage (Documentation/stock-mpath-ata-blocked.md).  A
# request-based dm-multipath map over one AHCI disk, rqcheck's reads and
# writes at depth 1 beside a loop of flushes (fsync of the map).  libata
# answers SCSI_MLQUEUE_DEVICE_BUSY for an NCQ command while a non-NCQ one
# (the flush) is active or deferred, and sets max_device_blocked to 1, so
# the disk's device_blocked becomes 1.  The refused command is a clone:
# device-mapper takes it back, and nothing is left on the disk's queue to
# dispatch.  Only a dispatch to the disk (scsi_dev_queue_ready()) counts
# device_blocked down; but multipath_busy() asks blk_lld_busy(), and
# scsi_mq_lld_busy() calls a device with device_blocked > 0 busy, so the
# map keeps every request on its own dispatch list (BLK_STS_RESOURCE,
# rerun every 3 ms) and never sends one down.  The flush and the I/O
# behind it wait for ever, the disk idle.
#
# It takes a busy answer at the right moment: the trial stalled in 15 of
# 16 boots (2026-12-07) of stock, base, 6ce3dd6eec and c616cbee97ae of
# both trees, clean once on c616cbee97ae.  So every cell is measured
# (livelocked or clean), with 30 s of workload instead of the explorer's
# 12 to make a stall likely.  On ffe81d45322c the stage's own refusal of the
# flush clone stalls it first.
#
# The verdict stands on the explorer's livelock signals; where the path is
# blocked with nothing in flight, also on one direct read of the path (a
# dispatch from outside the map) releasing the stuck flush (explore.sh's
# ex_livelock_kind).  On a stage that refuses the flush clone itself
# (ffe81d45322c) the path is not blocked: that is the 2018 livelock, judged
# by the signals alone.

# shellcheck source=tests/guest/explore.sh
. /rqpath/explore.sh

ex_on_livelock() {
	case $EX_LIVELOCK_KIND in
	blocked_path_released) rq_trigger explore released_by_one_read_of_the_path 1 1 ;;
	blocked_path_not_released) rq_trigger explore released_by_one_read_of_the_path 0 1 ;;
	esac
}

scenario_run() {
	EX_SECONDS=30 ex_trial 'dev=ahci paths=1 sd_queue=192 sd_submit_queues=1 sd_busy=none sd_nth=50 sd_delay=default sd_cache=wb sd_discard=on stack=multipath sched=none op=rw+flush fs=raw engine=io_uring bs=4k order=asc window=0 qd=1 batch=1 cpu=any'
}

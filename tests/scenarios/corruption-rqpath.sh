# shellcheck shell=sh
# rqpath scenario: corruption-rqpath
# summary: the targeted workload through dm-rqpath over the same busy scsi_debug path
# expect: clean
# boot: shared
# timeout: 180

# shellcheck source=tests/guest/corruption.sh
. /rqpath/corruption.sh

# Through request-based device-mapper the prepared request that fails is
# the clone, and blk_insert_cloned_request() hands it back to dm-rq (which
# unprepares and frees it) instead of leaving it in the path's software
# queue; the original that dm requeues was never prepared by a driver, so
# merging into it is safe: every stage stays clean and the oracle sees no
# violation.  The trigger is counted on the dm device: its originals
# requeued after a busy hand-back, bios that arrived in front of them, and
# the busy hand-backs dm-rqpath counted.
RQ_MIN_RQPATH_BUSY=100

# Linux AIO, not io_uring: a request-based dm device does not support
# REQ_NOWAIT (neither dm-rqpath nor dm-multipath is a DM_TARGET_NOWAIT
# target), so io_uring hands each of its writes to a worker of its own,
# one bio per worker, and nothing is plugged or merged on the dm device
# (6.12 stock: 0 merges in 28,851 busy hand-backs, an error by the merges
# minimum).  io_submit() plugs its batch in the submitter on every kernel
# (3,204 merges on 6.12 stock, 2026-12-07).
RQ_TARGETED_ARGS="$RQ_TARGETED_ARGS --engine aio"

scenario_run() {
	disk=$(rq_busy_disk) || { rq_result error "the busy scsi_debug disk is not usable"; return; }
	rq_modprobe dm_rqpath || { rq_result error "dm-rqpath did not load"; return; }
	sectors=$(blockdev --getsz "$disk")
	if ! echo "0 $sectors rqpath 1 $disk" | dmsetup create rqc; then
		rq_result error "dmsetup create failed"
		return
	fi
	dm=$(rq_dm_blkname rqc) || { rq_result error "no dm-N for rqc"; return; }
	rq_dm_node rqc > /dev/null || { rq_result error "no /dev/mapper/rqc"; return; }
	rq_set_scheduler "/dev/$dm" none || { rq_result error "cannot set scheduler none on $dm"; return; }
	verdict=$(rq_targeted_workload "/dev/$dm" "$RQ_MIN_RQPATH")
	rq_rqpath rqc busy mapped completed errors || rq_fail "no status of rqc"
	rq_detail_json rqpath_counts "{\"mapped\": ${RQ_MAPPED:-null}, \"busy\": ${RQ_BUSY:-null}, \"completed\": ${RQ_COMPLETED:-null}, \"errors\": ${RQ_ERRORS:-null}}"
	rq_trigger corruption rqpath_busy "${RQ_BUSY:-0}" "$RQ_MIN_RQPATH_BUSY"
	dmsetup remove rqc || rq_fail "dmsetup remove rqc failed"
	rmmod dm_rqpath || rq_fail "rmmod dm_rqpath failed"
	rmmod scsi_debug || rq_fail "rmmod scsi_debug failed"
	rq_finish "$verdict"
}

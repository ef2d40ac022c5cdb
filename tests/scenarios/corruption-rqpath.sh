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
# queue: every stage stays clean.  The busy counters show that the failures
# the targeted workload relies on did happen, on the clones; without them
# the run proves nothing and is an error.
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
	verdict=$(rq_targeted_workload /dev/mapper/rqc)
	rqpathctl status rqc --json > /tmp/rqc-status.json 2>/dev/null
	rq_detail_json rqpath_status "$(jq -c '{in_flight, totals, ops: {read: .ops.read, write: .ops.write}}' /tmp/rqc-status.json)"
	busy=$(jq '.totals.busy' /tmp/rqc-status.json)
	dmsetup remove rqc || rq_log "dmsetup remove failed"
	rmmod dm_rqpath || rq_log "rmmod dm_rqpath failed"
	rmmod scsi_debug || rq_log "rmmod scsi_debug failed"
	if [ "$verdict" = clean ] && ! [ "${busy:-0}" -gt 0 ] 2>/dev/null; then
		rq_result error "no clone was handed back busy: the run did not exercise blk_insert_cloned_request()'s BUSY path"
		return
	fi
	rq_result "$verdict"
}

# shellcheck shell=sh
# rqpath scenario: corruption-ext4
# summary: fio verify jobs (buffered + direct) and the targeted workload on a file, on ext4 over the busy scsi_debug disk, then e2fsck
# expect: clean; 6ce3dd6eec=corrupted|violated
# boot: shared
# timeout: 240

# shellcheck source=tests/guest/corruption.sh
. /rqpath/corruption.sh

# Data loss is rare here (tests/README.md says why), but the merge oracle
# sees the bio merged into a prepared request on 6ce3dd6eec every time:
# detected either way.  Any corruption or violation on another stage fails.
scenario_run() {
	disk=$(rq_busy_disk) || { rq_result error "the busy scsi_debug disk is not usable"; return; }
	verdict=$(rq_ext4_workload "$disk" "$RQ_MIN_EXT4" rqcheck)
	rmmod scsi_debug || rq_fail "rmmod scsi_debug failed"
	rq_finish "$verdict"
}

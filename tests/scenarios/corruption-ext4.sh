# shellcheck shell=sh
# rqpath scenario: corruption-ext4
# summary: fio verify jobs (buffered + direct) on ext4 over the busy scsi_debug disk, then e2fsck
# expect: clean; 6ce3dd6eec=corrupted|clean
# boot: shared
# timeout: 240

# shellcheck source=tests/guest/corruption.sh
. /rqpath/corruption.sh

# Measured, not asserted, on 6ce3dd6eec: tests/bench reports the per-boot
# rate.  Any corruption on another stage fails.
scenario_run() {
	disk=$(rq_busy_disk) || { rq_result error "the busy scsi_debug disk is not usable"; return; }
	verdict=$(rq_ext4_workload "$disk")
	rmmod scsi_debug || rq_log "rmmod scsi_debug failed"
	rq_result "$verdict"
}

# shellcheck shell=sh
# rqpath scenario: corruption-targeted
# summary: rqcheck front-merges into requests that failed direct issue on a busy scsi_debug disk
# expect: clean; 6ce3dd6eec=corrupted
# boot: shared
# timeout: 240

# shellcheck source=tests/guest/corruption.sh
. /rqpath/corruption.sh

scenario_run() {
	rq_busy_disk_load || { rq_result error "busy scsi_debug disk did not come up"; return; }
	disk=$(rq_scsi_debug_disks | head -n1)
	rq_set_scheduler "$disk" none || { rq_result error "cannot set scheduler none"; return; }
	rq_detail disk "$disk"
	verdict=$(rq_targeted_workload "$disk")
	rmmod scsi_debug || rq_log "rmmod scsi_debug failed"
	rq_result "$verdict"
}

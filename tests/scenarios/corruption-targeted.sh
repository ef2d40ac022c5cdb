# shellcheck shell=sh
# rqpath scenario: corruption-targeted
# summary: rqcheck front-merges into requests that failed direct issue on a busy scsi_debug disk
# expect: clean; 6ce3dd6eec=corrupted|violated
# boot: shared
# timeout: 240

# shellcheck source=tests/guest/corruption.sh
. /rqpath/corruption.sh

scenario_run() {
	disk=$(rq_busy_disk) || { rq_result error "the busy scsi_debug disk is not usable"; return; }
	verdict=$(rq_targeted_workload "$disk")
	rmmod scsi_debug || rq_fail "rmmod scsi_debug failed"
	rq_finish "$verdict"
}

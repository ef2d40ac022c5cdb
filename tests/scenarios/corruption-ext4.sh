# shellcheck shell=sh
# rqpath scenario: corruption-ext4
# summary: fio verify jobs (buffered + direct) and the targeted workload on a file, on ext4 over the busy scsi_debug disk, then e2fsck
# expect: clean; 6ce3dd6eec=corrupted|violated; 6.12:6ce3dd6eec=corrupted|violated|clean
# boot: shared
# timeout: 240

# shellcheck source=tests/guest/corruption.sh
. /rqpath/corruption.sh

# Data loss is rare here (tests/README.md says why), but the merge oracle
# sees the bio merged into a prepared request on 6.1's 6ce3dd6eec every
# time: detected either way.  On 6.12's it is a measurement, about one run
# in five: 6.12 issues a plug in submission order, so the request the
# driver refused is the first in its software queue and the synchronous
# queue run after the insert takes it out again before ext4's next bios
# arrive (patches/6.12/README.md); corruption-targeted and corruption-sata
# assert the bug on that stage.  Any corruption or violation on another
# stage fails.
scenario_run() {
	disk=$(rq_busy_disk) || { rq_result error "the busy scsi_debug disk is not usable"; return; }
	verdict=$(rq_ext4_workload "$disk" "$RQ_MIN_EXT4" rqcheck)
	rmmod scsi_debug || rq_fail "rmmod scsi_debug failed"
	rq_finish "$verdict"
}

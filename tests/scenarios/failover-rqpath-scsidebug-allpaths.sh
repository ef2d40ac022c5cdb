# shellcheck shell=sh
# rqpath scenario: failover-rqpath-scsidebug-allpaths
# summary: dm-rqpath over two scsi_debug hosts loses both paths under load: with queue_if_no_path I/O waits and resumes, without it fails with EIO and no acknowledged write is lost
# expect: clean
# boot: shared
# timeout: 180


# shellcheck source=tests/guest/failover.sh
. /rqpath/failover.sh

scenario_run() {
	fo_allpaths rqpath scsidebug
}

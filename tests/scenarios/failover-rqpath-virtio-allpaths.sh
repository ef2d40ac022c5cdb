# shellcheck shell=sh
# rqpath scenario: failover-rqpath-virtio-allpaths
# summary: dm-rqpath over two virtio-scsi paths loses both under load: with queue_if_no_path I/O waits and resumes, without it fails with EIO and no acknowledged write is lost
# expect: clean
# boot: shared
# timeout: 180
# qemu: virtio-paths

# shellcheck source=tests/guest/failover.sh
. /rqpath/failover.sh

scenario_run() {
	fo_allpaths rqpath virtio
}

# shellcheck shell=sh
# rqpath scenario: failover-multipath-virtio-allpaths
# summary: dm-multipath over two virtio-scsi paths loses both under load: with queueing I/O waits and resumes, without it fails with EIO and no acknowledged write is lost
# expect: clean
# boot: shared
# timeout: 180
# qemu: virtio-paths

# shellcheck source=tests/guest/failover.sh
. /rqpath/failover.sh

scenario_run() {
	fo_allpaths multipath virtio
}

# shellcheck shell=sh
# rqpath scenario: failover-multipath-virtio
# summary: 20 single-path failovers (offline, delete+rescan) under an rqcheck load on dm-multipath over two virtio-scsi paths
# expect: clean
# boot: shared
# timeout: 300
# qemu: virtio-paths

# shellcheck source=tests/guest/failover.sh
. /rqpath/failover.sh

scenario_run() {
	FO_WATCHDOG=285  # a console dump of every process, should it hang
	fo_cycles multipath virtio 20 offline delete
}

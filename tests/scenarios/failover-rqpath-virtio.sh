# shellcheck shell=sh
# rqpath scenario: failover-rqpath-virtio
# summary: 20 single-path failovers (offline+reinstate_path; delete+rescan with table reloads) under an rqcheck load on dm-rqpath over two virtio-scsi paths
# expect: clean
# boot: shared
# timeout: 300
# qemu: virtio-paths

# shellcheck source=tests/guest/failover.sh
. /rqpath/failover.sh

scenario_run() {
	FO_WATCHDOG=285  # a console dump of every process, should it hang
	fo_cycles rqpath virtio 20 offline delete
}

# shellcheck shell=sh
# rqpath scenario: failover-multipath-scsidebug
# summary: 20 single-path failovers (offline, delete+rescan, host remove+add) under an rqcheck write/verify load on dm-multipath over two scsi_debug hosts
# expect: clean
# boot: shared
# timeout: 300


# shellcheck source=tests/guest/failover.sh
. /rqpath/failover.sh

scenario_run() {
	FO_WATCHDOG=285  # a console dump of every process, should it hang
	fo_cycles multipath scsidebug 20 offline delete host
}

# shellcheck shell=sh
# rqpath scenario: failover-rqpath-scsidebug
# summary: 20 single-path failovers (offline+reinstate_path; delete+rescan and host remove+add with table reloads) under an rqcheck load on dm-rqpath over two scsi_debug hosts
# expect: clean
# boot: shared
# timeout: 300


# shellcheck source=tests/guest/failover.sh
. /rqpath/failover.sh

scenario_run() {
	FO_WATCHDOG=285  # a console dump of every process, should it hang
	fo_cycles rqpath scsidebug 20 offline delete host
}

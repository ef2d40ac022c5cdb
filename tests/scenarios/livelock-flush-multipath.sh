# shellcheck shell=sh
# rqpath scenario: livelock-flush-multipath
# summary: fsync of the block device (REQ_OP_FLUSH) through dm-multipath (multipathd map); livelocks where blk_insert_cloned_request() may only issue reads and writes
# expect: clean; ffe81d45322c=livelocked
# boot: shared
# timeout: 90

# shellcheck source=tests/guest/livelock.sh
. /rqpath/livelock.sh

scenario_run() {
	ll_scenario flush multipath
}

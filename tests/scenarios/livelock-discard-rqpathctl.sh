# shellcheck shell=sh
# rqpath scenario: livelock-discard-rqpathctl
# summary: blkdiscard through dm-rqpath made with rqpathctl create; livelocks where blk_insert_cloned_request() may only issue reads and writes
# expect: clean; ffe81d45322c=livelocked
# boot: shared
# timeout: 90

# shellcheck source=tests/guest/livelock.sh
. /rqpath/livelock.sh

scenario_run() {
	ll_scenario discard rqpathctl
}

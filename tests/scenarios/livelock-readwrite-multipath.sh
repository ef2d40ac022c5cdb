# shellcheck shell=sh
# rqpath scenario: livelock-readwrite-multipath
# summary: control: rqcheck reads and writes (data verified) through dm-multipath (multipathd map); clean on every stage
# expect: clean
# boot: shared
# timeout: 120

# shellcheck source=tests/guest/livelock.sh
. /rqpath/livelock.sh

scenario_run() {
	ll_scenario readwrite multipath
}

# shellcheck shell=sh
# rqpath scenario: watchdog-no-false-alarm
# summary: rqpathctl watch stays quiet over a read/write load through dm-rqpath whose paths hand many clones back busy
# expect: clean
# boot: shared
# timeout: 120

# shellcheck source=tests/guest/watchdog.sh
. /rqpath/watchdog.sh

scenario_run() {
	wd_scenario
}

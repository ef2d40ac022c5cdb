# shellcheck shell=sh
# The dm-multipath adapter of the failover scenarios (failover.sh names the
# interface): a map that multipathd builds and keeps, with its path checker
# and udev events doing the failing, removing, reinstating and adding.

fo_tg_create() { # [queue]: multipath.conf queues with no path (no_path_retry) either way
	rq_multipath_start || { rq_fail "multipathd did not start"; return 1; }
	FO_MAPDEV=$(rq_multipath_map "$FO_DEV1" "$FO_DEV2") || { rq_fail "no multipath map over $FO_DEV1 $FO_DEV2"; return 1; }
	FO_MAP=${FO_MAPDEV##*/}
}

fo_tg_remove() {
	rq_multipath_stop
	[ -z "${FO_MAP:-}" ] || ! dmsetup info "$FO_MAP" > /dev/null 2>&1 ||
		rq_fail "cleanup: multipath map $FO_MAP still exists"
}

# "devno state" of every path in the map: dm-multipath's status prints
# "<major:minor> <A|F> <fail_count> ..." for each.
fo_tg_paths() {
	dmsetup status "$FO_MAP" 2>/dev/null | awk '{
		for (i = 4; i < NF; i++)
			if ($i ~ /^[0-9]+:[0-9]+$/ && ($(i+1) == "A" || $(i+1) == "F"))
				print $i, $(i+1) }'
}

# The table line shows queue_if_no_path as a feature (the status line's
# first feature flag is something else).
fo_tg_queueing() {
	if dmsetup table "$FO_MAP" | grep -q -w queue_if_no_path; then echo 1; else echo 0; fi
}

fo_tg_set_queueing() { # 0|1, as an administrator would
	case $1 in
	1) multipathd restorequeueing map "$FO_MAP" ;;
	0) multipathd disablequeueing map "$FO_MAP" ;;
	esac
}

# multipathd removes a deleted path on udev's remove event and adds a
# rediscovered one on its add event.  A path that was offline and runs again
# would be reinstated by its checker within a polling interval or two; the
# scenario says so at once (multipathd's own command, the same
# reinstate_path message to the kernel).
fo_tg_path_gone() { :; }
fo_tg_path_back() { # SLOT METHOD
	[ "$2" = offline ] || return 0
	multipathd reinstate path "$(fo_slot FO_DEV "$1" | sed 's|.*/||')" > /tmp/fo-mp-reinstate.out 2>&1 ||
		rq_log "multipathd reinstate path: $(cat /tmp/fo-mp-reinstate.out) (its checker will)"
}

fo_tg_waiting() {
	multipathd show maps format "%n %Q" 2>/dev/null |
		awk -v m="$FO_MAP" '$1 == m { $1 = ""; sub("^ +", ""); printf "\"multipathd queueing: %s\"", $0 }'
}

fo_tg_no_flush_check() { :; }

fo_tg_record() {
	rq_multipath_record
	multipathd show maps format "%n %0 %1 %2 %3 %4" 2>/dev/null |
		awk -v m="$FO_MAP" '$1 == m { printf "{\"path_faults\": %d, \"switch_grp\": %d, \"map_loads\": %d, \"total_q_time\": %d, \"q_timeouts\": %d}", $2, $3, $4, $5, $6 }' \
		> /tmp/fo-mpstats.json
	[ -s /tmp/fo-mpstats.json ] || echo null > /tmp/fo-mpstats.json
	log=/tmp/multipathd.log
	rq_detail_json multipathd "$(printf '{"stats": %s, "log_mark_as_failed": %d, "log_checker_failed": %d, "log_reinstated": %d, "log_path_removed": %d, "log_path_added": %d}' \
		"$(cat /tmp/fo-mpstats.json)" "$(grep -c 'mark as failed' $log)" \
		"$(grep -c 'checker failed path' $log)" "$(grep -c ': reinstated' $log)" \
		"$(grep -c 'remove path (uevent)' $log)" "$(grep -c 'add path (uevent)' $log)")"
	rq_detail_file multipathd_log_tail /tmp/multipathd.log 15
}

# shellcheck shell=sh
# The dm-rqpath adapter of the failover scenarios (failover.sh names the
# interface): a map made with rqpathctl, paths that come back by message
# or, when they come back as a new device, by a table reload, as multipathd
# would do it.

FO_RQ=fo-rqpath

fo_tg_create() { # [queue]
	rq_modprobe dm-rqpath || { rq_fail "modprobe dm-rqpath failed"; return 1; }
	if ! rqpathctl create "$FO_RQ" "$FO_DEV1" "$FO_DEV2" ${1:+--queue-if-no-path} > /tmp/fo-create.out 2>&1; then
		rq_fail "rqpathctl create failed: $(tail -n 2 /tmp/fo-create.out | tr '\n' ' ')"
		return 1
	fi
	# shellcheck disable=SC2034 # failover.sh's
	FO_MAP=$FO_RQ FO_MAPDEV=/dev/mapper/$FO_RQ
}

fo_tg_remove() {
	dmsetup info "$FO_RQ" > /dev/null 2>&1 || return 0
	dmsetup message "$FO_RQ" 0 fail_if_no_path > /dev/null 2>&1
	dmsetup remove --retry "$FO_RQ" > /tmp/fo-rm.out 2>&1 ||
		rq_fail "cleanup: dmsetup remove $FO_RQ failed: $(tail -n 1 /tmp/fo-rm.out)"
	rq_unload dm_rqpath
}

# "devno state" of every path in the map, from the target's status.
fo_tg_paths() {
	rq_rqpath "$FO_MAP" paths 2>/dev/null || return 0
	for p in $RQ_PATHS; do echo "${p%:*} ${p##*:}"; done
}

fo_tg_queueing() {
	rq_rqpath "$FO_MAP" queue_if_no_path && echo "$RQ_QUEUE_IF_NO_PATH"
}

fo_tg_set_queueing() { # 0|1
	case $1 in
	1) rqpathctl message "$FO_MAP" queue_if_no_path ;;
	0) rqpathctl message "$FO_MAP" fail_if_no_path ;;
	esac
}

# A path device that is deleted leaves a dm-rqpath map only by a reload:
# rqpath fails a path on a path error of a clone or when its disk is gone,
# but without a clone on its way to the path nothing notices.  multipathd
# reloads its map without the path on udev's remove event; so do we.
fo_tg_path_gone() { # SLOT
	fo_rq_reload "$1"
}

# A path comes back by message; one that came back as a new device (delete
# and rescan, a scsi_debug host added again) joins the map by a reload.
fo_tg_path_back() { # SLOT METHOD
	case $2 in
	offline)
		rqpathctl reinstate-path "$FO_MAP" "$(fo_slot FO_DEVNO "$1")" > /tmp/fo-msg.out 2>&1 ||
			{ rq_fail "reinstate_path $(fo_slot FO_DEVNO "$1") failed: $(tail -n 1 /tmp/fo-msg.out)"; return 1; } ;;
	*)	fo_rq_reload ;;
	esac
}

# fo_rq_reload [DROP_SLOT]: reload the table over the slots' current
# devices, or without DROP_SLOT's (noflush suspend: I/O in flight is
# requeued into the new table, not failed).
fo_rq_reload() {
	feat="0"
	[ "$(fo_tg_queueing)" = 1 ] && feat="1 queue_if_no_path"
	case ${1:-} in
	1) paths="1 $FO_DEVNO2" ;;
	2) paths="1 $FO_DEVNO1" ;;
	*) paths="2 $FO_DEVNO1 $FO_DEVNO2" ;;
	esac
	table="0 $(dmsetup table "$FO_MAP" | awk '{ print $2 }') rqpath $paths $feat"
	if ! { dmsetup reload "$FO_MAP" --table "$table" && dmsetup suspend --noflush "$FO_MAP" &&
		dmsetup resume "$FO_MAP"; } > /tmp/fo-reload.out 2>&1; then
		rq_fail "rqpath table reload ($table) failed: $(tail -n 2 /tmp/fo-reload.out | tr '\n' ' ')"
		dmsetup resume "$FO_MAP" > /dev/null 2>&1
		return 1
	fi
}

# With every path down and queueing on, the requests wait in the target.
fo_tg_waiting() {
	rq_rqpath "$FO_MAP" in_flight no_path_requeues || return 1
	echo "{\"in_flight\": $RQ_IN_FLIGHT, \"no_path_requeues\": $RQ_NO_PATH_REQUEUES}"
	[ "$RQ_IN_FLIGHT" -gt 0 ] && [ "$RQ_NO_PATH_REQUEUES" -gt 0 ]
}

# No flush, discard or write zeroes clone was mapped: rqcheck never sends
# one, and on ffe81d45322c one would hang the load (the livelock scenarios'
# job).  The disk statistics count a flush only when it completes; the
# target counts every clone it maps.
fo_tg_no_flush_check() {
	rq_rqpath "$FO_MAP" flush_mapped discard_mapped write_zeroes_mapped flush_busy discard_busy write_zeroes_busy || return 0
	n=$((RQ_FLUSH_MAPPED + RQ_DISCARD_MAPPED + RQ_WRITE_ZEROES_MAPPED + RQ_FLUSH_BUSY + RQ_DISCARD_BUSY + RQ_WRITE_ZEROES_BUSY))
	[ "$n" = 0 ] || rq_fail "dm-rqpath mapped $n flush/discard/write_zeroes clones"
}

fo_tg_record() {
	rqpathctl status "$FO_MAP" --json > /tmp/fo-status.json 2>/dev/null &&
		rq_detail_json rqpath_status "$(jq -c '{paths: [.paths[] | {dev, state, fail_count, dispatched}],
			queue_if_no_path, in_flight, no_path_requeues, no_clone_requeues,
			ops: (.ops | with_entries(select(.value.mapped + .value.busy + .value.completed > 0)))}' /tmp/fo-status.json)"
}

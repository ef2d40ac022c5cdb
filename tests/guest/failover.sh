# shellcheck shell=sh
# Shared guest code of the failover-* scenarios: paths that fail and come
# back while I/O runs, over dm-multipath (multipath-tools) and over
# dm-rqpath, on two kinds of paths to one LUN:
#
#   scsidebug  scsi_debug with two hosts sharing one store, identical VPD
#              ids (vpd_use_hostno=0): two paths to one logical unit
#   virtio     QEMU's virtio-paths hardware: two virtio-scsi controllers,
#              one scsi-hd each on the same image, same serial and WWN
#
# Every request through either map is cloned by request-based dm and goes
# through blk_insert_cloned_request() on a path.  The load is rqcheck
# (O_DIRECT reads and writes, never a flush: see fo_tg_no_flush_check).
#
# What differs between the targets is in an adapter, failover-TARGET.sh,
# with one small interface:
#   fo_tg_create [queue]     the map over FO_DEV1 FO_DEV2; sets FO_MAP FO_MAPDEV
#   fo_tg_remove             remove it (and unload what it loaded)
#   fo_tg_paths              "devno A|F" per path in the map, from its status
#   fo_tg_queueing           1 or 0: queue_if_no_path in force
#   fo_tg_set_queueing 0|1
#   fo_tg_path_gone SLOT     the slot's device went away
#   fo_tg_path_back SLOT METHOD  the slot's device is back (maybe a new one)
#   fo_tg_waiting            JSON: how the target shows I/O waiting for a
#                            path; true if it does
#   fo_tg_no_flush_check     fail if a flush/discard reached the target
#   fo_tg_record             the target's own counters into the details
#
# Two kinds of scenario, each over both targets and both kinds of paths
# (failover-<target>-<paths>[-allpaths]):
#
#   fo_cycles TARGET PATHS CYCLES METHOD...   single-path failover, CYCLES
#       times, while a loop of rqcheck runs writes and verifies on the map.
#       Cycle i takes path 1 or 2 (alternating) away by the i-th METHOD:
#         offline  echo offline > .../device/state, later "running"
#         delete   echo 1 > .../device/delete, later a rescan of that
#                  channel/target/LUN of its host (a new sd device)
#         host     scsi_debug's add_host=-1, later add_host=1 (a new host)
#       then waits until the map stops using the path, until the load made
#       progress on the other path alone, brings the path back and waits
#       until the map uses it again.  Afterwards the last generation is read
#       back through each path alone.
#   fo_allpaths TARGET PATHS   both paths offline under load, twice:
#       with queue_if_no_path the load must stall (no completion on the
#       map for 2 s, process alive) and then finish clean after one path
#       is back; without it the load must fail with EIO within 30 s, and a
#       verify-only pass must find every acknowledged write of the failed
#       generation on disk (blocks whose write failed may hold the old or
#       the new data, nothing else).
#
# Trigger evidence (details.trigger, family "failover"), all of it seen by
# the kernel, none of it counted from the scenario's own commands:
#   failovers      cycles in which the map's status showed the path leave
#                  the active set
#   reinstatements cycles in which the map's status showed it active again
#                  and the path's own disk statistics show I/O on it after
#                  its return
#   (allpaths)     paths_lost: the paths the status showed out of the
#                  active set, both, in each phase; queue_held: no
#                  completion while they were down;
#                  eio: the load saw EIO without queueing
# A cycles run needs one failover and one reinstatement per cycle.

# shellcheck source=tests/guest/multipath.sh
. /rqpath/multipath.sh

FO_SD_PARAMS="dev_size_mb=64 add_host=2 vpd_use_hostno=0"
FO_SD_ADD_HOST=/sys/bus/pseudo/drivers/scsi_debug/add_host
# The unit serial of QEMU's virtio-paths LUN (tests/harness/guest.py).
FO_VIRTIO_SERIAL=RQPATH0001
# The load: 4 KiB O_DIRECT blocks over 8 MiB in random order, 16 in
# flight; each generation writes every block, then reads every block back
# and verifies it (rqcheck's write phase never overlaps its read phase).
FO_LOAD_ARGS="--bs 4k --size 8m --qd 16 --order random"

fo_init() { # TARGET KIND
	rm -f /tmp/fo-*
	FO_PIDS="" FO_WATCH="" FO_BAD=0 FO_APP_ERRORS=0
	FO_TARGET=$1 FO_KIND=$2
	# shellcheck source=/dev/null
	. "/rqpath/failover-$FO_TARGET.sh"
	rq_detail target "$FO_TARGET"
	rq_detail paths_kind "$FO_KIND"
	if grep -q '^dm_rqpath ' /proc/modules; then
		rq_fail "dm_rqpath was already loaded when the scenario started"
	fi
	fo_watchdog_start "${FO_WATCHDOG:-100}"
}

# fo_watchdog_start SECONDS: should the scenario still run after SECONDS
# (it is about to be called hung), show on the console what every process
# is waiting for, so that the hang can be told from the log.
fo_watchdog_start() {
	(
		sleep "$1"
		echo "[rqpath $(rq_now)] failover watchdog: $RQ_SCENARIO still runs after $1 s; processes:"
		for p in /proc/[0-9]*; do
			cmd=$(tr '\0' ' ' < "$p/cmdline" 2>/dev/null | cut -c1-100)
			[ -n "$cmd" ] || continue  # kernel threads
			read -r _ _ st _ < "$p/stat"
			echo "  ${p#/proc/} $st $(cat "$p/wchan" 2>/dev/null) $cmd"
			[ "$st" = D ] && sed 's/^/      /' "$p/stack" 2>/dev/null
		done
		dmsetup table 2>&1 | sed 's/^/  table /'
		dmsetup status 2>&1 | sed 's/^/  status /'
	) > /dev/console 2>&1 &
	FO_WD_PID=$!
}

fo_random_seed() { od -An -N4 -tu4 /dev/urandom | tr -d ' '; }

# --- paths ------------------------------------------------------------------
# Paths are tracked by slot (1 and 2) and by SCSI address (H:C:T:L), since a
# deleted and rescanned device comes back under another name, and a
# scsi_debug host that is removed and added again under another host number.

fo_hctl_of() { # DEV
	d=$(readlink -f "/sys/block/${1##*/}/device") || return 1
	echo "${d##*/}"
}

fo_dev_of_hctl() { # H:C:T:L
	for d in /sys/block/sd*; do
		[ -e "$d/device" ] || continue
		if [ "$(readlink -f "$d/device" | sed 's|.*/||')" = "$1" ]; then
			echo "/dev/${d##*/}"
			return 0
		fi
	done
	return 1
}

# The disks of the kind in use, one per line.
fo_kind_disks() {
	case $FO_KIND in
	scsidebug) rq_scsi_debug_disks ;;
	virtio) rq_disks_by_serial "$FO_VIRTIO_SERIAL" ;;
	esac
}

# Slot variables: FO_DEV1/2 (/dev/sdX), FO_HCTL1/2, FO_DEVNO1/2.
fo_slot_set() { # SLOT DEV
	eval "FO_DEV$1=\$2"
	eval "FO_HCTL$1=\$(fo_hctl_of \"\$2\")"
	eval "FO_DEVNO$1=\$(rq_devno \"\$2\")"
}

fo_slot() { eval "echo \"\$$1$2\""; } # VAR SLOT

fo_paths_setup() {
	case $FO_KIND in
	scsidebug)
		# shellcheck disable=SC2086
		rq_scsi_debug_paths $FO_SD_PARAMS || return 1
		rq_detail scsi_debug_params "$FO_SD_PARAMS" ;;
	virtio)
		fo_restore_all_paths
		# shellcheck disable=SC2046
		rq_two_paths virtio $(fo_kind_disks) || return 1 ;;
	esac
	fo_slot_set 1 "$RQ_P1"
	fo_slot_set 2 "$RQ_P2"
	for d in "$RQ_P1" "$RQ_P2"; do
		rq_set_scheduler "$d" none || rq_fail "cannot set scheduler none on $d"
	done
	rq_detail_json path_devices "$(printf '[{"dev": "%s", "hctl": "%s", "devno": "%s"}, {"dev": "%s", "hctl": "%s", "devno": "%s"}]' \
		"$FO_DEV1" "$FO_HCTL1" "$FO_DEVNO1" "$FO_DEV2" "$FO_HCTL2" "$FO_DEVNO2")"
	rq_log "paths $FO_DEV1 ($FO_HCTL1, $FO_DEVNO1) $FO_DEV2 ($FO_HCTL2, $FO_DEVNO2)"
}

# fo_path_fail SLOT METHOD: take the path away.
#   offline  the SCSI device state (I/O to it fails at once)
#   delete   the SCSI device is deleted (it comes back by a host rescan)
#   host     the scsi_debug host is removed (add_host=-1; it comes back as a
#            new host).  scsi_debug removes the host added last: the caller
#            picks that slot (fo_last_host_slot).
fo_path_fail() {
	dev=$(fo_slot FO_DEV "$1")
	case $2 in
	offline) echo offline > "/sys/block/${dev##*/}/device/state" ;;
	delete) echo 1 > "/sys/block/${dev##*/}/device/delete"
		fo_tg_path_gone "$1" ;;
	host) echo -1 > "$FO_SD_ADD_HOST"
		fo_tg_path_gone "$1" ;;
	esac
}

# fo_path_restore SLOT METHOD: bring it back; sets the slot's new device.
fo_path_restore() {
	slot=$1 method=$2
	hctl=$(fo_slot FO_HCTL "$slot")
	case $method in
	offline)
		echo running > "/sys/block/$(fo_slot FO_DEV "$slot" | sed 's|.*/||')/device/state"
		return 0 ;;
	delete)
		# Scan only this channel, target and LUN: a wildcard scan of a
		# virtio-scsi host probes 256 targets (12 s under TCG).
		echo "$hctl" | awk -F: '{ print $2, $3, $4 }' > "/sys/class/scsi_host/host${hctl%%:*}/scan"
		new=$(fo_wait_dev "the rescan of $hctl" fo_dev_of_hctl "$hctl") || return 1 ;;
	host)
		echo 1 > "$FO_SD_ADD_HOST"
		new=$(fo_wait_dev "a new scsi_debug host's disk" fo_new_sd_disk "$(fo_slot FO_DEV $((3 - slot)))") || return 1 ;;
	esac
	rq_set_scheduler "$new" none || rq_fail "cannot set scheduler none on $new"
	fo_slot_set "$slot" "$new"
}

# fo_wait_dev WHAT CMD...: print the device CMD finds, once it does.
fo_wait_dev() {
	_what=$1
	shift
	rq_wait 20 "$_what" "$@" > /dev/null || { rq_fail "$_what made no disk within 20 s"; return 1; }
	"$@"
}

# A scsi_debug disk other than DEV.
fo_new_sd_disk() {
	for d in $(rq_scsi_debug_disks); do
		[ "$d" = "$1" ] || { echo "$d"; return 0; }
	done
	return 1
}

# The slot whose scsi_debug host was added last (the one add_host=-1 removes).
fo_last_host_slot() {
	h1=$(fo_slot FO_HCTL 1) h2=$(fo_slot FO_HCTL 2)
	if [ "${h1%%:*}" -gt "${h2%%:*}" ]; then echo 1; else echo 2; fi
}

# Every device of the kind back and running (cleanup, and before a virtio
# scenario in case an earlier one left a path down).
fo_restore_all_paths() {
	for d in $(fo_kind_disks); do
		[ "$(cat "/sys/block/${d##*/}/device/state")" = running ] ||
			echo running > "/sys/block/${d##*/}/device/state"
	done
	if [ "$FO_KIND" = virtio ] && [ "$(fo_kind_disks | wc -l)" -lt 2 ]; then
		for h in /sys/class/scsi_host/host*; do
			[ "$(cat "$h/proc_name")" = virtio_scsi ] || continue
			echo '- - -' > "$h/scan"
		done
		rq_udev_settle
	fi
}

# Reads + writes the path's disk completed: the kernel's word that the map
# sends it I/O.
fo_path_ios() { # SLOT
	read -r _r _ _ _ _w _ < "/sys/block/$(fo_slot FO_DEV "$1" | sed 's|.*/||')/stat"
	echo $((_r + _w))
}

# --- the map ----------------------------------------------------------------

fo_map_create() { # [queue]
	fo_tg_create "$@" || return 1
	FO_DMN=$(rq_dm_blkname "$FO_MAP") || { rq_fail "no dm device for $FO_MAP"; return 1; }
	rq_detail map "$FO_MAP ($FO_DMN)"
	rq_detail map_table "$(dmsetup table "$FO_MAP")"
	FO_FLUSH0=$(rq_stat_field "$FO_DMN" 16) FO_DISCARD0=$(rq_stat_field "$FO_DMN" 12)
}

fo_path_state() { # DEVNO: A, F, or nothing when the path is not in the map
	fo_tg_paths | awk -v d="$1" '$1 == d { print $2 }'
}

fo_nr_active() { fo_tg_paths | awk '$2 == "A"' | wc -l; }

fo_slot_failed() { # SLOT: the path left the active set (failed or removed)
	[ "$(fo_path_state "$(fo_slot FO_DEVNO "$1")")" != A ]
}

fo_slot_active() { # SLOT
	[ "$(fo_path_state "$(fo_slot FO_DEVNO "$1")")" = A ]
}

fo_all_failed() { [ "$(fo_nr_active)" = 0 ]; }

fo_both_active() {
	fo_slot_active 1 && fo_slot_active 2 && [ "$(fo_tg_paths | wc -l)" = 2 ]
}

fo_paths_brief() { fo_tg_paths | tr '\n' ' '; }

# I/Os the map completed (successfully or not): reads + writes.  No awk:
# every process costs under TCG, and this is polled.
fo_ios() {
	read -r _r _ _ _ _w _ < "/sys/block/$FO_DMN/stat"
	echo $((_r + _w))
}

# fo_wait_progress N SECONDS: wait until the map completed N more I/Os.
fo_wait_progress() {
	target=$(($(fo_ios) + $1))
	rq_wait "$2" "I/O progress on the map" fo_ios_reached "$target"
}
# Also stops waiting when the process FO_WATCH (the load) has ended: the
# caller checks that itself.
fo_ios_reached() {
	[ "$(fo_ios)" -ge "$1" ] || { [ -n "${FO_WATCH:-}" ] && ! rq_alive "$FO_WATCH"; }
}

fo_set_queueing() { # 0|1
	fo_tg_set_queueing "$1" > /tmp/fo-q.out 2>&1
	rq_wait 5 "queue_if_no_path $1" fo_queueing_is "$1" ||
		rq_fail "queue_if_no_path did not become $1 ($(tr '\n' ' ' < /tmp/fo-q.out); status $(dmsetup status "$FO_MAP"))"
}
fo_queueing_is() { [ "$(fo_tg_queueing)" = "$1" ]; }

# No flush or discard reached the map (see fo_tg_no_flush_check).
fo_check_no_flush() {
	fl=$(($(rq_stat_field "$FO_DMN" 16) - FO_FLUSH0)) dc=$(($(rq_stat_field "$FO_DMN" 12) - FO_DISCARD0))
	rq_detail_json map_flushes_discards "{\"flush\": $fl, \"discard\": $dc}"
	[ "$fl" = 0 ] || rq_fail "$fl flush requests reached the map"
	[ "$dc" = 0 ] || rq_fail "$dc discard requests reached the map"
	fo_tg_no_flush_check
}

# Counts from the kernel log (both targets log "Failing path" and
# "Reinstating path") and the target's own.
fo_record_target_counts() {
	fo_tg_record
	rq_detail_json kernel_log_counts "{\"failing_path\": $(rq_dmesg | grep -c 'Failing path'), \"reinstating_path\": $(rq_dmesg | grep -c 'Reinstating path')}"
}

# --- the load -----------------------------------------------------------------
# A loop of rqcheck runs, each "--time 1" (generations for at least a
# second; the running generation is always finished), one seed, generation
# numbers carried on, until /tmp/fo-load.stop exists or a run fails.  A run
# ends only between generations, so every generation written is verified,
# unlike an interrupted single --time run.

# fo_track_load PID: the background load; fo_wait_progress stops waiting
# when it ends, and fo_cleanup kills it.
fo_track_load() {
	FO_WATCH=$1
	FO_PIDS="$FO_PIDS $1"
}

# fo_bg_rqcheck TAG ARGS...: one rqcheck run of the load's kind on the map
# in the background (/tmp/fo-TAG.json and .txt), tracked; its pid in FO_BG.
fo_bg_rqcheck() {
	tag=$1
	shift
	# shellcheck disable=SC2086
	rqcheck $FO_LOAD_ARGS --seed "$FO_SEED" "$@" --json "/tmp/fo-$tag.json" "$FO_MAPDEV" > "/tmp/fo-$tag.txt" 2>&1 &
	FO_BG=$!
	fo_track_load "$FO_BG"
}

# fo_paths_lost_under TAG PHASE N SECONDS ARGS...: fo_bg_rqcheck TAG ARGS,
# and both paths offline once the map completed N of its I/Os (within
# SECONDS); FO_DOWN is when the map had dropped them.  A load that already
# ended would make the phase prove nothing.
fo_paths_lost_under() {
	tag=$1 phase=$2 n=$3 secs=$4
	shift 4
	fo_bg_rqcheck "$tag" "$@"
	fo_wait_progress "$n" "$secs" || rq_fail "$phase: the load made no progress on the map within $secs s"
	rq_alive "$FO_BG" || rq_fail "$phase: the load ended before the paths failed: the test proves nothing"
	fo_path_fail 1 offline
	fo_path_fail 2 offline
	rq_wait 15 "the map to drop both paths" fo_all_failed ||
		rq_fail "$phase: the map still has an active path 15 s after both went offline: $(fo_paths_brief)"
	# The paths the map itself shows out of its active set, read from its
	# status: both, or the phase proves nothing.
	rq_trigger failover "paths_lost_$phase" "$(fo_tg_paths | awk '$2 != "A"' | wc -l)" 2
	FO_DOWN=$(rq_now)
}

fo_load_start() { # DEV
	FO_SEED=$(fo_random_seed)
	rq_detail_json load "$(printf '{"rqcheck_args": "%s", "seed": %s}' "$FO_LOAD_ARGS --time 1" "$FO_SEED")"
	rm -f /tmp/fo-load.stop /tmp/fo-load-*.json
	dev=$1
	(
		g=1 n=0
		while :; do
			n=$((n + 1))
			# shellcheck disable=SC2086
			rqcheck $FO_LOAD_ARGS --time 1 --seed "$FO_SEED" --gen "$g" \
				--json "/tmp/fo-load-$n.json" "$dev" > "/tmp/fo-load-$n.txt" 2>&1
			rc=$?
			echo "$n $rc" >> /tmp/fo-load.rcs
			[ "$rc" = 0 ] || exit "$rc"
			last=$(jq -r '.generations[-1].generation' "/tmp/fo-load-$n.json") || exit 3
			g=$((last + 1))
			[ -e /tmp/fo-load.stop ] && exit 0
		done
	) &
	FO_LOAD_PID=$!
	fo_track_load "$FO_LOAD_PID"
}

fo_load_running() { rq_alive "$FO_LOAD_PID"; }

# fo_load_stop: let the running generation finish; sum up every run.
fo_load_stop() {
	touch /tmp/fo-load.stop
	rq_wait_pid "$FO_LOAD_PID" 90
	rc=$?
	[ "$rc" = 124 ] && rq_fail "the load did not finish within 90 s of being told to stop"
	jq -s -c --argjson rc "$rc" '{exit: $rc, runs: length, generations: ([.[].generations | length] | add),
		blocks_written: ([.[].generations[].blocks_written] | add),
		blocks_verified: ([.[].totals.blocks_verified] | add),
		bad: ([.[].totals.bad] | add), read_errors: ([.[].totals.read_errors] | add),
		write_errors: ([.[].totals.write_errors] | add),
		seconds: ([.[].workload_seconds] | add | . * 100 | round / 100),
		io_errors: [.[].io_errors[]][:4], bad_blocks: [.[].bad_blocks[]][:8]
			| map(del(.found, .reread_found))}' /tmp/fo-load-*.json > /tmp/fo-loadsum.json 2>/dev/null ||
		echo "{\"exit\": $rc, \"runs\": 0}" > /tmp/fo-loadsum.json
	rq_detail_json load_result "$(cat /tmp/fo-loadsum.json)"
	FO_APP_ERRORS=$(jq '(.read_errors // 0) + (.write_errors // 0)' /tmp/fo-loadsum.json)
	FO_BAD=$((FO_BAD + $(jq '.bad // 0' /tmp/fo-loadsum.json)))
	case $rc in
	0|124) ;;
	1) rq_fail "the load found corruption" ;;
	*)	n=$(tail -n 1 /tmp/fo-load.rcs 2>/dev/null | cut -d' ' -f1)
		rq_detail_file load_output "/tmp/fo-load-$n.txt" 12
		rq_fail "the load failed (rqcheck exit $rc): $(jq -r '.error // (.io_errors[0] | "\(.op) lba \(.lba): \(.error)")' "/tmp/fo-load-$n.json" 2>/dev/null)" ;;
	esac
	[ "$FO_APP_ERRORS" = 0 ] || rq_fail "$FO_APP_ERRORS I/O errors reached the application"
}

# fo_verify_paths GEN: the last generation, read through each path on its
# own (both paths must show the same, complete data).
fo_verify_paths() {
	for s in 1 2; do
		dev=$(fo_slot FO_DEV "$s")
		# shellcheck disable=SC2086
		rqcheck $FO_LOAD_ARGS --verify-only --seed "$FO_SEED" --gen "$1" \
			--json "/tmp/fo-vp$s.json" "$dev" > "/tmp/fo-vp$s.txt" 2>&1
		rc=$?
		rq_detail_json "verify_path$s" "$(jq -c --argjson rc $rc --arg d "$dev" '{dev: $d, exit: $rc, blocks_verified: .totals.blocks_verified, bad: .totals.bad, read_errors: .totals.read_errors}' "/tmp/fo-vp$s.json" 2>/dev/null || echo "{\"exit\": $rc}")"
		[ "$rc" = 0 ] || rq_fail "verify-only of generation $1 through path $dev: rqcheck exit $rc"
		[ "$rc" = 1 ] && FO_BAD=$((FO_BAD + $(jq '.totals.bad' "/tmp/fo-vp$s.json")))
	done
}

# --- scenario bodies ------------------------------------------------------------

# fo_cycle I SLOT METHOD: one failover and return.  Appends to
# /tmp/fo-cycles.txt "I METHOD OLD NEW T0 T1 T2 T3 DOWN_SEEN IO_AFTER".
fo_cycle() {
	i=$1 slot=$2 method=$3
	t0=$(rq_now)
	old=$(fo_slot FO_DEV "$slot")
	fo_path_fail "$slot" "$method"
	if ! rq_wait 15 "the map to drop the path" fo_slot_failed "$slot"; then
		rq_fail "cycle $i ($method $old): the map still uses the path after 15 s ($(fo_paths_brief))"
		return 1
	fi
	t1=$(rq_now)
	# The load goes on over the other path alone.
	fo_wait_progress 32 15 || rq_fail "cycle $i ($method $old): no I/O progress on the remaining path for 15 s"
	[ "$(fo_nr_active)" = 1 ] || rq_fail "cycle $i ($method $old): $(fo_nr_active) active paths while one was down"
	fo_path_restore "$slot" "$method" || return 1
	t2=$(rq_now)
	fo_tg_path_back "$slot" "$method" || return 1
	if ! rq_wait 20 "the path back in the map" fo_both_active; then
		rq_fail "cycle $i ($method $old): the path did not come back into the map within 20 s ($(fo_paths_brief))"
		return 1
	fi
	t3=$(rq_now)
	# The map really uses the returned path: its disk completes I/O.
	ios=$(fo_path_ios "$slot")
	io_after=0
	rq_wait 15 "I/O on the returned path" eval "[ \$(fo_path_ios $slot) -gt $ios ] || ! fo_load_running" &&
		[ "$(fo_path_ios "$slot")" -gt "$ios" ] && io_after=1
	[ "$io_after" = 1 ] || rq_fail "cycle $i ($method): no I/O on the returned path $(fo_slot FO_DEV "$slot") within 15 s"
	echo "$i $method $old $(fo_slot FO_DEV "$slot") $t0 $t1 $t2 $t3 1 $io_after" >> /tmp/fo-cycles.txt
}

# fo_cycles TARGET KIND CYCLES METHOD...: single-path failover, CYCLES times,
# under the load.  Cycle i fails slot 1 or 2 (alternating) by the i-th
# METHOD (round robin).
fo_cycles() {
	fo_init "$1" "$2"
	cycles=$3
	shift 3
	FO_METHODS="$*"
	rq_detail_json cycles_planned "$cycles"
	rq_detail methods "$FO_METHODS"
	if ! fo_paths_setup || ! fo_map_create; then fo_finish; return; fi

	rq_phase workload
	fo_load_start "$FO_MAPDEV"
	fo_wait_progress 64 20 || rq_fail "no I/O on the map within 20 s of starting the load"
	i=0 done_cycles=0
	: > /tmp/fo-cycles.txt
	nm=$#
	while [ "$i" -lt "$cycles" ] && ! rq_failed; do
		i=$((i + 1))
		# shellcheck disable=SC2046
		method=$(echo "$FO_METHODS" | awk -v k=$(((i - 1) % nm + 1)) '{ print $k }')
		slot=$((2 - i % 2))
		[ "$method" = host ] && slot=$(fo_last_host_slot)
		if ! fo_load_running; then
			rq_fail "cycle $i: the load was no longer running"
			break
		fi
		fo_cycle "$i" "$slot" "$method" || break
		done_cycles=$i
	done
	rq_log "$done_cycles cycles done, stopping the load"
	rq_phase verify
	fo_load_stop
	fo_check_no_flush
	[ "$done_cycles" -ge "$cycles" ] || rq_fail "only $done_cycles of $cycles failover cycles completed"
	last=$(jq -s '[.[].generations[] | select(.verified) | .generation] | max // 0' /tmp/fo-load-*.json)
	[ "$last" -gt 0 ] && fo_verify_paths "$last"
	rq_phase evidence
	fo_record_target_counts
	# Seconds from the fault to the map dropping the path, and from the
	# path's return to the map using it again.
	rq_detail_json cycle_times "$(awk '{ f = $6 - $5; b = $8 - $7; n++; sf += f; sb += b
			if (f > mf) mf = f; if (b > mb) mb = b }
		END { printf "{\"n\": %d, \"fail_detect_avg\": %.2f, \"fail_detect_max\": %.2f, \"return_avg\": %.2f, \"return_max\": %.2f}",
			n, n ? sf / n : 0, mf, n ? sb / n : 0, mb }' /tmp/fo-cycles.txt)"
	rq_detail_json cycles "$(awk '{ printf "%s{\"cycle\": %d, \"method\": \"%s\", \"old\": \"%s\", \"new\": \"%s\", \"fault_s\": %s, \"dropped_s\": %s, \"restored_s\": %s, \"back_s\": %s, \"down_seen\": %d, \"io_after_return\": %d}", s, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10; s = ", " } BEGIN { printf "[" } END { printf "]" }' /tmp/fo-cycles.txt)"
	rq_trigger failover failovers "$(awk '$9 == 1' /tmp/fo-cycles.txt | wc -l)" "$cycles"
	rq_trigger failover reinstatements "$(awk '$10 == 1' /tmp/fo-cycles.txt | wc -l)" "$cycles"
	rq_detail_json counts "{\"cycles\": $done_cycles, \"app_errors\": ${FO_APP_ERRORS:-0}, \"bad_blocks\": $FO_BAD}"
	fo_finish
}

fo_rqcheck_summary() { # JSON RC
	jq -c --argjson rc "$2" '{exit: $rc, result, generations: [.generations[] | {generation, written, verified,
		blocks_written, blocks_verified, bad, read_errors, write_errors}], bad: .totals.bad,
		read_errors: .totals.read_errors, write_errors: .totals.write_errors,
		io_errors: [.io_errors[:3][] | {op, block, result, error}]}' "$1" 2>/dev/null || echo "{\"exit\": $2}"
}

# fo_allpaths TARGET KIND: every path lost under load, with queueing and
# without.
#   queue:    I/O must wait (the process runs on, not one I/O completes on
#             the map, successfully or not), and resume and verify once one
#             path is back.
#   no queue: I/O must fail with EIO, promptly, and every write acknowledged
#             before must be on disk afterwards.
fo_allpaths() {
	fo_init "$1" "$2"
	if ! fo_paths_setup || ! fo_map_create queue; then fo_finish; return; fi
	FO_SEED=$(fo_random_seed)
	rq_detail_json load "$(printf '{"rqcheck_args": "%s", "seed": %s}' "$FO_LOAD_ARGS" "$FO_SEED")"
	rq_phase workload
	fo_allpaths_queue
	fo_allpaths_noqueue
	rq_phase evidence
	fo_check_no_flush
	fo_record_target_counts
	fo_finish
}

fo_paths_back() { # PHASE: both paths running and in the map again
	fo_path_restore 1 offline
	fo_path_restore 2 offline
	fo_tg_path_back 1 offline
	fo_tg_path_back 2 offline
	rq_wait 20 "both paths back" fo_both_active || rq_fail "$1: the paths did not come back: $(fo_paths_brief)"
}

fo_allpaths_queue() {
	rq_log "queue phase"
	fo_set_queueing 1
	fo_paths_lost_under q queue 200 20 --passes 1 --gen 1
	qpid=$FO_BG t_down=$FO_DOWN
	# Requests that were on a path when it failed are requeued; after that
	# nothing may complete until a path is back: a 2 s window, measured.
	rq_sleep 0.5 "requeues settle"
	c0=$(fo_ios)
	rq_sleep 2 "no completion without a path"
	c1=$(fo_ios)
	alive=false
	rq_alive $qpid && alive=true
	waiting=$(fo_tg_waiting) || rq_fail "queue: the target does not show requests waiting for a path: ${waiting:-none}"
	rq_detail_json queue_wait "$(jq -n -c --argjson c0 "$c0" --argjson c1 "$c1" --argjson a "$alive" \
		--argjson x "${waiting:-null}" --arg q "$(fo_tg_queueing)" \
		'{completed_during_wait: ($c1 - $c0), seconds: 2, load_alive: $a, queue_if_no_path: $q, target: $x}')"
	if ! $alive; then
		wait $qpid
		qrc=$?
		rq_fail "queue: the load ended while no path was up (rqcheck exit $qrc)"
	fi
	if [ "$c1" = "$c0" ] && $alive; then
		rq_trigger failover queue_held 1 1
	else
		rq_trigger failover queue_held 0 1
		rq_fail "queue: $((c1 - c0)) I/Os completed on the map while no path was up"
	fi
	# One path back: I/O resumes.
	fo_path_restore 1 offline
	fo_tg_path_back 1 offline
	rq_wait 20 "path 1 back" fo_slot_active 1 || rq_fail "queue: path 1 did not come back within 20 s"
	t_up=$(rq_now)
	fo_wait_progress 64 20 || rq_fail "queue: I/O did not resume within 20 s of a path coming back"
	if $alive; then
		rq_wait_pid $qpid 90
		rc=$?
	else
		rc=$qrc
	fi
	rq_detail_json queue_rqcheck "$(fo_rqcheck_summary /tmp/fo-q.json "$rc")"
	rq_detail_json queue_seconds_without_path "$(rq_interval "$t_up" "$t_down")"
	[ "$rc" = 1 ] && FO_BAD=$((FO_BAD + $(jq '.totals.bad' /tmp/fo-q.json)))
	[ "$rc" = 0 ] || rq_fail "queue: the load did not come through clean (rqcheck exit $rc)"
	fo_path_restore 2 offline
	fo_tg_path_back 2 offline
	rq_wait 20 "both paths back" fo_both_active || rq_fail "queue: the paths did not both come back: $(fo_paths_brief)"
}

fo_allpaths_noqueue() {
	rq_log "no-queue phase"
	fo_set_queueing 0
	# Generation 3 over the whole region with both paths up: the reference
	# that failed writes of generation 4 leave in place.
	# shellcheck disable=SC2086
	rqcheck $FO_LOAD_ARGS --passes 1 --seed "$FO_SEED" --gen 3 --json /tmp/fo-ref.json "$FO_MAPDEV" > /tmp/fo-ref.txt 2>&1 ||
		{ rq_fail "noqueue: the reference pass failed: $(tail -n 1 /tmp/fo-ref.txt)"; return; }
	# Fail the paths in the last quarter of generation 4's write phase
	# (2048 writes): enough writes acknowledged before and failed after,
	# and not thousands of bad blocks to re-read and list (slow in TCG).
	fo_paths_lost_under nq noqueue 1536 30 --time 120 --max-report 100000 --gen 4
	npid=$FO_BG t_down=$FO_DOWN
	rq_wait_pid $npid 30
	rc=$?
	t_end=$(rq_now)
	rq_detail_json noqueue_rqcheck "$(fo_rqcheck_summary /tmp/fo-nq.json "$rc")"
	rq_detail_json noqueue_seconds_to_fail "$(rq_interval "$t_end" "$t_down")"
	case $rc in
	3) ;;
	124) rq_fail "noqueue: I/O neither failed nor completed within 30 s of losing every path" ;;
	*) rq_fail "noqueue: rqcheck exit $rc, expected 3 (I/O error)" ;;
	esac
	eio=0
	if [ "$rc" = 3 ]; then
		if jq -e '.io_errors | length > 0 and all(.[]; .result == -5)' /tmp/fo-nq.json > /dev/null; then
			eio=1
		else
			rq_fail "noqueue: the I/O errors are not all EIO: $(jq -c '[.io_errors[] | .result] | unique' /tmp/fo-nq.json)"
		fi
		jq -e '.io_errors_truncated | not' /tmp/fo-nq.json > /dev/null ||
			rq_fail "noqueue: rqcheck truncated its I/O error list"
	fi
	rq_trigger failover eio "$eio" 1
	fo_paths_back noqueue
	[ "$rc" = 3 ] || return
	fo_check_acknowledged
}

# Every write acknowledged before the paths went must be on disk: read back
# generation 4 (blocks whose write failed may hold the old or the new data,
# nothing else).
fo_check_acknowledged() {
	rq_log "no-queue phase: checking the acknowledged writes"
	last=$(jq '.generations[-1].generation' /tmp/fo-nq.json)
	complete=$(jq '.generations[-1] | .write_errors == 0' /tmp/fo-nq.json)
	# shellcheck disable=SC2086
	rqcheck $FO_LOAD_ARGS --verify-only --max-report 100000 --seed "$FO_SEED" --gen "$last" \
		--json /tmp/fo-ack.json "$FO_MAPDEV" > /tmp/fo-ack.txt 2>&1
	vrc=$?
	jq -s -c --argjson rc $vrc --argjson last "$last" --argjson complete "$complete" '
		(.[0].io_errors | map(select(.op == "write")) | map(.block)) as $failed
		| .[1] as $v
		| ($v.bad_blocks | map(.block)) as $bad
		| {exit: $rc, generation: $last, writes_complete: $complete, writes_failed: ($failed | length),
		   bad: $v.totals.bad, read_errors: $v.totals.read_errors,
		   acknowledged_lost: [$bad[] | select(. as $b | $failed | index($b) | not)] | length,
		   failed_not_old_or_new: [$v.bad_blocks[] | select(.block as $b | $failed | index($b))
			| select(any(.found[]; .content != "valid"
			or (.generation != $last and .generation != $last - 1) or (.kind != "good" and .kind != "stale")))] | length,
		   bad_truncated: $v.bad_blocks_truncated}' /tmp/fo-nq.json /tmp/fo-ack.json > /tmp/fo-ack-sum.json 2>/dev/null ||
		echo "{\"exit\": $vrc}" > /tmp/fo-ack-sum.json
	rq_detail_json noqueue_acknowledged_check "$(cat /tmp/fo-ack-sum.json)"
	case $vrc in
	0|1) ;;
	*) rq_fail "noqueue: verify-only of generation $last failed (rqcheck exit $vrc)"; return ;;
	esac
	lost=$(jq '.acknowledged_lost' /tmp/fo-ack-sum.json)
	odd=$(jq '.failed_not_old_or_new' /tmp/fo-ack-sum.json)
	if [ "$lost" != 0 ]; then
		FO_BAD=$((FO_BAD + lost))
		rq_fail "noqueue: $lost acknowledged writes of generation $last are not on disk"
	fi
	[ "$odd" = 0 ] || { FO_BAD=$((FO_BAD + odd)); rq_fail "noqueue: $odd blocks whose write failed hold neither the old nor the new data"; }
	[ "$(jq '.bad_truncated' /tmp/fo-ack-sum.json)" = false ] || rq_fail "noqueue: verify-only truncated its bad block list"
	if [ "$complete" = true ] && [ "$vrc" != 0 ]; then
		rq_fail "noqueue: generation $last was written completely but does not verify"
	fi
}

# --- verdict ------------------------------------------------------------------

fo_cleanup() {
	kill "$FO_WD_PID" 2>/dev/null
	for p in $FO_PIDS; do
		if rq_alive "$p"; then
			touch /tmp/fo-load.stop
			kill "$p" 2>/dev/null
			rq_wait_pid "$p" 10 > /dev/null || kill -9 "$p" 2>/dev/null
		fi
	done
	FO_PIDS=""
	# The loop's rqcheck outlives a killed loop; scenarios run one at a
	# time, so any rqcheck left in the guest now is this scenario's.
	for p in $(pidof rqcheck); do
		rq_fail "cleanup: rqcheck $p still ran"
		kill "$p" 2>/dev/null
	done
	fo_restore_all_paths
	fo_tg_remove
	if [ "$FO_KIND" = scsidebug ]; then
		rq_udev_settle
		rq_unload scsi_debug
	fi
}

fo_finish() {
	rq_log "cleanup"
	rq_phase cleanup
	fo_cleanup
	if [ "$FO_BAD" -gt 0 ]; then
		rq_finish corrupted "$FO_BAD bad blocks"
	else
		rq_finish clean
	fi
}

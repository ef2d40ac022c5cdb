# shellcheck shell=sh
# Shared guest code of the failover-* scenarios (issue 6): paths that fail
# and come back while I/O runs, over dm-multipath (multipath-tools) and over
# dm-rqpath, on two kinds of paths to one LUN:
#
#   scsidebug  scsi_debug with two hosts sharing one store, identical VPD
#              ids (vpd_use_hostno=0): two paths to one logical unit
#   virtio     QEMU's virtio-paths hardware: two virtio-scsi controllers,
#              one scsi-hd each on the same image, same serial and WWN
#
# Every request through either map is cloned by request-based dm and goes
# through blk_insert_cloned_request() on a path.  The load is rqcheck
# (O_DIRECT reads and writes, never a flush: see fo_check_no_flush).
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
#       until the map uses both again.  multipathd reinstates a returning
#       path (tur checker) or adds a rediscovered one (udev add event);
#       dm-rqpath gets a reinstate_path message, or, for a path that was
#       deleted, the table reloads (noflush suspend) that multipathd would
#       do: without the path when it goes, with the new device when it is
#       back.
#       Afterwards the last generation is read back through each path
#       alone.  Details: counts {cycles, failovers, reinstatements,
#       app_errors, bad_blocks, ...}, cycle_times, load_result, the
#       target's own counters (multipathd stats and log counts, or the
#       rqpath status), kernel_log_counts, multipath_ll.
#   fo_allpaths TARGET PATHS   both paths offline under load, twice:
#       with queue_if_no_path the load must stall (no completion on the
#       map for 2 s, process alive) and then finish clean after one path
#       is back; without it the load must fail with EIO within 30 s, and a
#       verify-only pass must find every acknowledged write of the failed
#       generation on disk (blocks whose write failed may hold the old or
#       the new data, nothing else).  Details: queue_wait,
#       queue_rqcheck, noqueue_rqcheck, noqueue_acknowledged_check.
#
# Failover counts: for dm-rqpath the paths' fail counts (summed over table
# reloads) plus the paths removed by a reload; for dm-multipath the kernel's "Failing path" lines plus the
# paths multipathd removed on a remove event (a deleted path may leave the
# map that way before any I/O fails on it).  Reinstatements: rqpath's
# reinstate messages and reloads; multipathd's "reinstated" and "add path"
# log lines.  Every cycle must show up in both.
#
# A scenario calls fo_cycles or fo_allpaths.  A check that does not hold calls fo_fail "what"; the scenario
# goes on where it can, and fo_finish turns recorded failures into the
# verdict `error` (first failure as `reason`, all in `failed_checks`),
# bad blocks into `corrupted`, and cleans up so that the next scenario of
# a shared boot starts fresh.

# shellcheck source=tests/guest/multipath.sh
. /rqpath/multipath.sh

FO_FAILS=/tmp/fo-fails.txt
FO_RQ=fo-rqpath                 # the dm-rqpath map's name
FO_SD_PARAMS="dev_size_mb=64 add_host=2 vpd_use_hostno=0"
FO_SD_ADD_HOST=/sys/bus/pseudo/drivers/scsi_debug/add_host
# The load: 4 KiB O_DIRECT blocks over 8 MiB in random order, 16 in
# flight; each generation writes every block, then reads every block back
# and verifies it (rqcheck's write phase never overlaps its read phase).
FO_LOAD_ARGS="--bs 4k --size 8m --qd 16 --order random"
FO_ALL_ARGS="--bs 4k --size 8m --qd 16 --order random"

fo_init() {
	rm -f /tmp/fo-*
	: > "$FO_FAILS"
	FO_PIDS="" FO_WATCH=""
	FO_TARGET=$1 FO_KIND=$2
	FO_BAD=0
	rq_detail target "$FO_TARGET"
	if [ "$FO_TARGET" = rqpath ] && [ -e /run/udev/control ]; then
		# udevd runs (an earlier multipath scenario of this boot started
		# it), but the guest image has no /sbin/dmsetup, which the
		# device-mapper udev rules run ("dmsetup udevcomplete" in
		# 95-dm-notify.rules): a cookie would never be completed and
		# rqpathctl create / dmsetup remove would wait forever.  Without
		# udev synchronisation libdevmapper makes the nodes itself.
		# (Exported in the scenario's own subshell only.)
		export DM_DISABLE_UDEV=1
		rq_detail dm_udev_sync "off: DM_DISABLE_UDEV=1 (the guest's udev rules cannot complete cookies)"
	fi
	rq_detail paths_kind "$FO_KIND"
	if grep -q '^dm_rqpath ' /proc/modules; then
		fo_fail "dm_rqpath was already loaded when the scenario started"
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

fo_fail() { # WHAT
	rq_log "CHECK FAILED: $*"
	printf '%s\n' "$*" >> "$FO_FAILS"
}

fo_failed() { [ -s "$FO_FAILS" ]; }

# fo_wait SECONDS CMD...: poll CMD every 0.1 s until it succeeds.
fo_wait() {
	n=$(echo "$1" | awk '{ printf "%d", $1 * 10 }')
	shift
	until "$@"; do
		[ "$n" -le 0 ] && return 1
		n=$((n - 1))
		sleep 0.1
	done
}

fo_alive() { kill -0 "$1" 2>/dev/null; }

# fo_wait_pid PID SECONDS: its exit status, or 124 if still running.
fo_wait_pid() {
	fo_wait "$2" eval "! fo_alive $1" || return 124
	wait "$1"
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

fo_devno() { cat "/sys/block/${1##*/}/dev"; }

# The disks of the kind in use, one per line.
fo_kind_disks() {
	case $FO_KIND in
	scsidebug) rq_scsi_debug_disks ;;
	virtio) rq_qemu_disks QEMU ;;
	esac
}

# Slot variables: FO_DEV1/2 (/dev/sdX), FO_HCTL1/2, FO_DEVNO1/2.
fo_slot_set() { # SLOT DEV
	eval "FO_DEV$1=\$2"
	eval "FO_HCTL$1=\$(fo_hctl_of \"\$2\")"
	eval "FO_DEVNO$1=\$(fo_devno \"\$2\")"
}

fo_slot() { eval "echo \"\$$1$2\""; } # VAR SLOT

fo_paths_setup() {
	case $FO_KIND in
	scsidebug)
		if grep -q '^scsi_debug ' /proc/modules; then
			fo_fail "scsi_debug was already loaded"
			return 1
		fi
		# shellcheck disable=SC2086
		rq_scsi_debug_load $FO_SD_PARAMS || { fo_fail "scsi_debug did not load ($FO_SD_PARAMS)"; return 1; }
		rq_detail scsi_debug_params "$FO_SD_PARAMS"
		;;
	virtio)
		fo_restore_all_paths
		;;
	esac
	# shellcheck disable=SC2046
	set -- $(fo_kind_disks)
	if [ $# != 2 ]; then
		fo_fail "expected 2 $FO_KIND paths, found $#: $*"
		return 1
	fi
	fo_slot_set 1 "$1"
	fo_slot_set 2 "$2"
	if [ "$(blockdev --getsz "$1")" != "$(blockdev --getsz "$2")" ]; then
		fo_fail "the two paths differ in size"
		return 1
	fi
	for d in "$1" "$2"; do
		rq_set_scheduler "$d" none || fo_fail "cannot set scheduler none on $d"
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
		fo_rq_path_removed "$1" ;;
	host) echo -1 > "$FO_SD_ADD_HOST"
		fo_rq_path_removed "$1" ;;
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
		if ! fo_wait 20 fo_dev_of_hctl "$hctl" > /dev/null; then
			fo_fail "rescan of host${hctl%%:*} did not bring $hctl back"
			return 1
		fi
		new=$(fo_dev_of_hctl "$hctl") ;;
	host)
		other=$(fo_slot FO_DEV $((3 - slot)))
		echo 1 > "$FO_SD_ADD_HOST"
		if ! fo_wait 20 fo_new_sd_disk "$other" > /dev/null; then
			fo_fail "scsi_debug add_host made no new disk"
			return 1
		fi
		new=$(fo_new_sd_disk "$other") ;;
	esac
	rq_set_scheduler "$new" none || fo_fail "cannot set scheduler none on $new"
	fo_slot_set "$slot" "$new"
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
			grep -q virtio "$h/proc_name" 2>/dev/null || [ "$(cat "$h/proc_name")" = virtio_scsi ] || continue
			echo '- - -' > "$h/scan"
		done
		udev_settle_or_wait
	fi
}

# --- maps -------------------------------------------------------------------


# fo_map_create [queue]: the map over both paths; sets FO_MAP (dm name),
# FO_MAPDEV (/dev/mapper/...), FO_DMN (dm-N).
fo_map_create() {
	case $FO_TARGET in
	multipath)
		rq_multipath_start || { fo_fail "multipathd did not start"; return 1; }
		FO_MAPDEV=$(rq_multipath_map "$FO_DEV1" "$FO_DEV2") || { fo_fail "no multipath map over $FO_DEV1 $FO_DEV2"; return 1; }
		FO_MAP=${FO_MAPDEV##*/}
		;;
	rqpath)
		rq_modprobe dm-rqpath || { fo_fail "modprobe dm-rqpath failed"; return 1; }
		if ! rqpathctl create "$FO_RQ" "$FO_DEV1" "$FO_DEV2" ${1:+--queue-if-no-path} > /tmp/fo-create.out 2>&1; then
			fo_fail "rqpathctl create failed: $(tail -n 2 /tmp/fo-create.out | tr '\n' ' ')"
			return 1
		fi
		FO_MAP=$FO_RQ FO_MAPDEV=/dev/mapper/$FO_RQ
		;;
	esac
	FO_DMN=$(rq_dm_blkname "$FO_MAP") || { fo_fail "no dm device for $FO_MAP"; return 1; }
	rq_detail map "$FO_MAP ($FO_DMN)"
	rq_detail map_table "$(dmsetup table "$FO_MAP")"
	FO_FLUSH0=$(fo_stat_field 16) FO_DISCARD0=$(fo_stat_field 12)
}

# Path states in the kernel's status line, "devno state fail_count" per
# line.  dm-multipath and dm-rqpath both print "<major:minor> <A|F>
# <fail_count>" for every path.
fo_dm_paths() {
	dmsetup status "$FO_MAP" 2>/dev/null | awk '{
		for (i = 4; i < NF; i++)
			if ($i ~ /^[0-9]+:[0-9]+$/ && ($(i+1) == "A" || $(i+1) == "F"))
				print $i, $(i+1), $(i+2) }'
}

fo_path_state() { # DEVNO: A, F, or nothing when the path is not in the map
	fo_dm_paths | awk -v d="$1" '$1 == d { print $2 }'
}

fo_nr_active() { fo_dm_paths | awk '$2 == "A"' | wc -l; }

# The queue_if_no_path state in force, 1 or 0.  dm-multipath's table line
# shows it as a feature (its status line's first feature flag is
# MPATHF_QUEUE_IO, something else); dm-rqpath's status has it after the
# paths.
fo_queueing() {
	case $FO_TARGET in
	multipath) if dmsetup table "$FO_MAP" | grep -q -w queue_if_no_path; then echo 1; else echo 0; fi ;;
	rqpath) rqpathctl status "$FO_MAP" --json | jq -r 'if .queue_if_no_path then 1 else 0 end' ;;
	esac
}

fo_slot_failed() { # SLOT: the path left the active set (failed or removed)
	[ "$(fo_path_state "$(fo_slot FO_DEVNO "$1")")" != A ]
}

fo_slot_active() { # SLOT
	[ "$(fo_path_state "$(fo_slot FO_DEVNO "$1")")" = A ]
}

fo_all_failed() { [ "$(fo_nr_active)" = 0 ]; }

fo_both_active() {
	fo_slot_active 1 && fo_slot_active 2 && [ "$(fo_dm_paths | wc -l)" = 2 ]
}

# /sys/block/dm-N/stat field N: 1 reads, 5 writes, 12 discards, 16 flushes.
fo_stat_field() { awk -v f="$1" '{ print $f }' "/sys/block/$FO_DMN/stat"; }

# I/Os the map completed (successfully or not): reads + writes.  No awk:
# every process costs under TCG, and this is polled.
fo_ios() {
	read -r _r _ _ _ _w _ < "/sys/block/$FO_DMN/stat"
	echo $((_r + _w))
}

# fo_wait_progress N SECONDS: wait until the map completed N more I/Os.
fo_wait_progress() {
	target=$(($(fo_ios) + $1))
	fo_wait "$2" fo_ios_reached "$target"
}
# Also stops waiting when the process FO_WATCH (the load) has ended: the
# caller checks that itself.
fo_ios_reached() {
	[ "$(fo_ios)" -ge "$1" ] || { [ -n "${FO_WATCH:-}" ] && ! fo_alive "$FO_WATCH"; }
}

# rqpath: a path comes back only by message; multipath: multipathd's checker
# reinstates it (polling_interval 1).  A path that came back as a new device
# (delete + rescan, scsi_debug host re-added) joins the map by a table
# reload: multipathd does that on udev's add event; for rqpath the scenario
# reloads the table, as multipathd would.
fo_reinstate() { # SLOT METHOD
	[ "$FO_TARGET" = rqpath ] || return 0
	case $2 in
	offline)
		if ! rqpathctl reinstate-path "$FO_MAP" "$(fo_slot FO_DEVNO "$1")" > /tmp/fo-msg.out 2>&1; then
			fo_fail "reinstate_path $(fo_slot FO_DEVNO "$1") failed: $(tail -n 1 /tmp/fo-msg.out)"
			return 1
		fi
		FO_REINSTATE_MSGS=$((FO_REINSTATE_MSGS + 1)) ;;
	*)	fo_rq_reload ;;
	esac
}

# fo_rq_reload [DROP_SLOT]: reload the rqpath table over the slots' current
# devices, or without DROP_SLOT's (noflush suspend: I/O in flight is
# requeued into the new table, not failed).
fo_rq_reload() {
	fo_rq_count_fails
	q=$(dmsetup table "$FO_MAP" | awk '{ print $NF }')
	feat="0"
	[ "$q" = queue_if_no_path ] && feat="1 queue_if_no_path"
	case ${1:-} in
	1) paths="1 $FO_DEVNO2" ;;
	2) paths="1 $FO_DEVNO1" ;;
	*) paths="2 $FO_DEVNO1 $FO_DEVNO2" ;;
	esac
	table="0 $(dmsetup table "$FO_MAP" | awk '{ print $2 }') rqpath $paths $feat"
	if ! { dmsetup reload "$FO_MAP" --table "$table" && dmsetup suspend --noflush "$FO_MAP" &&
		dmsetup resume "$FO_MAP"; } > /tmp/fo-reload.out 2>&1; then
		fo_fail "rqpath table reload ($table) failed: $(tail -n 2 /tmp/fo-reload.out | tr '\n' ' ')"
		dmsetup resume "$FO_MAP" > /dev/null 2>&1
		return 1
	fi
	if [ -n "${1:-}" ]; then
		FO_RQ_REMOVALS=$((FO_RQ_REMOVALS + 1))
	else
		FO_RELOADS=$((FO_RELOADS + 1))
	fi
}

# A path device that is deleted leaves a dm-rqpath map only by a reload:
# rqpath fails a path on a path error of a clone, but a request that finds
# the path's queue dying is only requeued to the next path, and the path
# stays active (dm-target/README.md).  When no clone was in flight on the
# path as it went, nothing would ever fail it.  multipathd reloads its map
# without the path on udev's remove event; the scenario does the same.
fo_rq_path_removed() { # SLOT
	[ "$FO_TARGET" = rqpath ] || return 0
	fo_rq_reload "$1"
}

# rqpath path fail counts are per table: add up the ones a reload drops.
fo_rq_count_fails() {
	n=$(fo_dm_paths | awk '{ s += $3 } END { print s + 0 }')
	FO_RQ_FAILS_BEFORE=$((FO_RQ_FAILS_BEFORE + n))
}

fo_map_remove() {
	case $FO_TARGET in
	multipath)
		rq_multipath_stop
		[ -z "${FO_MAP:-}" ] || ! dmsetup info "$FO_MAP" > /dev/null 2>&1 ||
			fo_fail "cleanup: multipath map $FO_MAP still exists"
		;;
	rqpath)
		if dmsetup info "$FO_RQ" > /dev/null 2>&1; then
			dmsetup message "$FO_RQ" 0 fail_if_no_path > /dev/null 2>&1
			dmsetup remove --retry "$FO_RQ" > /tmp/fo-rm.out 2>&1 ||
				fo_fail "cleanup: dmsetup remove $FO_RQ failed: $(tail -n 1 /tmp/fo-rm.out)"
		fi
		;;
	esac
}

# --- evidence ---------------------------------------------------------------

# No flush or discard reached the map: on ffe81d45322c
# blk_insert_cloned_request() refuses every non-read/write clone forever, so
# one flush would hang the load (and that is the livelock scenarios' job).
# rqcheck opens the map O_DIRECT and never calls fsync.
fo_check_no_flush() {
	fl=$(($(fo_stat_field 16) - FO_FLUSH0)) dc=$(($(fo_stat_field 12) - FO_DISCARD0))
	rq_detail_json map_flushes_discards "{\"flush\": $fl, \"discard\": $dc}"
	[ "$fl" = 0 ] || fo_fail "$fl flush requests reached the map"
	[ "$dc" = 0 ] || fo_fail "$dc discard requests reached the map"
	# The disk statistics count a flush when it completes; dm-rqpath
	# counts every clone it maps (in the live table).
	if [ "$FO_TARGET" = rqpath ] && rqpathctl status "$FO_MAP" --json > /tmp/fo-fl.json 2>/dev/null; then
		jq -e '[.ops.flush, .ops.discard, .ops.write_zeroes | .mapped + .busy] | add == 0' /tmp/fo-fl.json > /dev/null ||
			fo_fail "dm-rqpath mapped flush/discard/write_zeroes clones: $(jq -c '.ops | {flush, discard, write_zeroes}' /tmp/fo-fl.json)"
	fi
}

# Kernel log lines of the scenario so far.
fo_dmesg() { dmesg | tail -n +"$((RQ_DMESG_START + 1))"; }

# Counts from the kernel log (both targets log "Failing path" and
# "Reinstating path"), multipathd and the map's own status.
fo_record_target_counts() {
	fails=$(fo_dmesg | grep -c 'Failing path')
	reinst=$(fo_dmesg | grep -c 'Reinstating path')
	FO_K_FAILS=$fails FO_K_REINST=$reinst
	case $FO_TARGET in
	multipath)
		rq_multipath_record
		multipathd show maps format "%n %0 %1 %2 %3 %4" 2>/dev/null |
			awk -v m="$FO_MAP" '$1 == m { printf "{\"path_faults\": %d, \"switch_grp\": %d, \"map_loads\": %d, \"total_q_time\": %d, \"q_timeouts\": %d}", $2, $3, $4, $5, $6 }' \
			> /tmp/fo-mpstats.json
		[ -s /tmp/fo-mpstats.json ] || echo null > /tmp/fo-mpstats.json
		log=/tmp/multipathd.log
		FO_MP_REINST=$(grep -c ': reinstated' $log)
		FO_MP_REMOVED=$(grep -c 'remove path (uevent)' $log)
		FO_MP_ADDED=$(grep -c 'add path (uevent)' $log)
		rq_detail_json multipathd "$(printf '{"stats": %s, "log_mark_as_failed": %d, "log_checker_failed": %d, "log_reinstated": %d, "log_path_removed": %d, "log_path_added": %d}' \
			"$(cat /tmp/fo-mpstats.json)" "$(grep -c 'mark as failed' $log)" \
			"$(grep -c 'checker failed path' $log)" "$FO_MP_REINST" "$FO_MP_REMOVED" "$FO_MP_ADDED")"
		rq_detail_file multipathd_log_tail /tmp/multipathd.log 15
		;;
	rqpath)
		rqpathctl status "$FO_MAP" --json > /tmp/fo-status.json 2>/dev/null &&
			rq_detail_json rqpath_status "$(jq -c '{paths: [.paths[] | {dev, state, fail_count, dispatched}],
				queue_if_no_path, in_flight, no_path_requeues, no_clone_requeues,
				ops: (.ops | with_entries(select(.value.mapped + .value.busy + .value.completed > 0)))}' /tmp/fo-status.json)"
		;;
	esac
	rq_detail_json kernel_log_counts "{\"failing_path\": $fails, \"reinstating_path\": $reinst}"
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

fo_load_running() { fo_alive "$FO_LOAD_PID"; }

# fo_load_stop: let the running generation finish; sum up every run.
fo_load_stop() {
	touch /tmp/fo-load.stop
	fo_wait_pid "$FO_LOAD_PID" 90
	rc=$?
	[ "$rc" = 124 ] && fo_fail "the load did not finish within 90 s of being told to stop"
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
	0) ;;
	1) fo_fail "the load found corruption" ;;
	124) ;;
	*)	n=$(tail -n 1 /tmp/fo-load.rcs 2>/dev/null | cut -d' ' -f1)
		rq_detail_file load_output "/tmp/fo-load-$n.txt" 12
		fo_fail "the load failed (rqcheck exit $rc): $(jq -r '.error // (.io_errors[0] | "\(.op) lba \(.lba): \(.error)")' "/tmp/fo-load-$n.json" 2>/dev/null)" ;;
	esac
	[ "$FO_APP_ERRORS" = 0 ] || fo_fail "$FO_APP_ERRORS I/O errors reached the application"
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
		[ "$rc" = 0 ] || fo_fail "verify-only of generation $1 through path $dev: rqcheck exit $rc"
		[ "$rc" = 1 ] && FO_BAD=$((FO_BAD + $(jq '.totals.bad' "/tmp/fo-vp$s.json")))
	done
}

# --- scenario bodies ------------------------------------------------------------

# fo_cycles TARGET KIND CYCLES METHOD...: single-path failover, CYCLES times,
# under the load.  Cycle i fails slot 1 or 2 (alternating) by the i-th
# METHOD (round robin), waits until the map dropped the path, lets the load
# run on the other path, brings the path back, waits until the map uses
# it again.
fo_cycles() {
	fo_init "$1" "$2"
	cycles=$3
	shift 3
	FO_METHODS="$*"
	FO_REINSTATE_MSGS=0 FO_RELOADS=0 FO_RQ_REMOVALS=0 FO_RQ_FAILS_BEFORE=0
	rq_detail_json cycles_planned "$cycles"
	rq_detail methods "$FO_METHODS"
	if ! fo_paths_setup || ! fo_map_create; then fo_finish; return; fi

	fo_load_start "$FO_MAPDEV"
	fo_wait_progress 64 20 || fo_fail "no I/O on the map within 20 s of starting the load"
	i=0 done_cycles=0
	: > /tmp/fo-cycles.txt
	nm=$#
	while [ $i -lt "$cycles" ] && ! fo_failed; do
		i=$((i + 1))
		# shellcheck disable=SC2046
		method=$(echo "$FO_METHODS" | awk -v k=$(((i - 1) % nm + 1)) '{ print $k }')
		slot=$((2 - i % 2))
		[ "$method" = host ] && slot=$(fo_last_host_slot)
		if ! fo_load_running; then
			fo_fail "cycle $i: the load was no longer running"
			break
		fi
		t0=$(rq_now)
		old=$(fo_slot FO_DEV "$slot")
		fo_path_fail "$slot" "$method"
		if ! fo_wait 15 fo_slot_failed "$slot"; then
			fo_fail "cycle $i ($method $old): the map still uses the path after 15 s ($(fo_dm_paths | tr '\n' ' '))"
			break
		fi
		t1=$(rq_now)
		# The load goes on over the other path alone.
		fo_wait_progress 32 15 || fo_fail "cycle $i ($method $old): no I/O progress on the remaining path for 15 s"
		[ "$(fo_nr_active)" = 1 ] || fo_fail "cycle $i ($method $old): $(fo_nr_active) active paths while one was down"
		fo_path_restore "$slot" "$method" || break
		t2=$(rq_now)
		fo_reinstate "$slot" "$method" || break
		if ! fo_wait 20 fo_both_active; then
			fo_fail "cycle $i ($method $old): the path did not come back into the map within 20 s ($(fo_dm_paths | tr '\n' ' '))"
			break
		fi
		t3=$(rq_now)
		fo_wait_progress 16 15 || fo_fail "cycle $i: no I/O progress after the path came back"
		echo "$i $method $old $(fo_slot FO_DEV "$slot") $t0 $t1 $t2 $t3" >> /tmp/fo-cycles.txt
		done_cycles=$i
	done
	rq_log "$done_cycles cycles done, stopping the load"
	fo_load_stop
	fo_check_no_flush
	if [ "$done_cycles" -lt "$cycles" ]; then
		fo_fail "only $done_cycles of $cycles failover cycles completed"
	fi
	last=$(jq -s '[.[].generations[] | select(.verified) | .generation] | max // 0' /tmp/fo-load-*.json)
	[ "$last" -gt 0 ] && fo_verify_paths "$last"
	rq_log "load stopped, paths verified"
	fo_record_target_counts
	# Seconds from the fault to the map dropping the path, and from the
	# path's return to the map using it again.
	rq_detail_json cycle_times "$(awk '{ f = $6 - $5; b = $8 - $7; n++; sf += f; sb += b
			if (f > mf) mf = f; if (b > mb) mb = b }
		END { printf "{\"n\": %d, \"fail_detect_avg\": %.2f, \"fail_detect_max\": %.2f, \"return_avg\": %.2f, \"return_max\": %.2f}",
			n, n ? sf / n : 0, mf, n ? sb / n : 0, mb }' /tmp/fo-cycles.txt)"
	rq_detail_file cycles_log /tmp/fo-cycles.txt 6
	if [ "$FO_TARGET" = rqpath ]; then
		fo_rq_count_fails
		# Paths failed by a path error, plus paths removed by a reload.
		failovers=$((FO_RQ_FAILS_BEFORE + FO_RQ_REMOVALS))
		reinstated=$((FO_REINSTATE_MSGS + FO_RELOADS))
	else
		# A path that is deleted may leave the map by multipathd's
		# reload (on udev's remove event) before any I/O fails on it.
		failovers=$((FO_K_FAILS + FO_MP_REMOVED))
		# multipathd reinstates a path that was failed, and adds back
		# one that was removed (delete, host removal) and rediscovered.
		reinstated=$((FO_MP_REINST + FO_MP_ADDED))
	fi
	rq_detail_json counts "$(jq -n -c --argjson c "$done_cycles" --argjson f "$failovers" \
		--argjson r "$reinstated" --argjson e "${FO_APP_ERRORS:-0}" --argjson b "$FO_BAD" \
		--argjson kf "$FO_K_FAILS" --argjson kr "$FO_K_REINST" \
		--argjson rm "${FO_REINSTATE_MSGS:-0}" --argjson rl "${FO_RELOADS:-0}" \
		--argjson rf "${FO_RQ_FAILS_BEFORE:-0}" --argjson rr "${FO_RQ_REMOVALS:-0}" \
		'{cycles: $c, failovers: $f, reinstatements: $r, app_errors: $e, bad_blocks: $b,
		  kernel_failing_path: $kf, kernel_reinstating_path: $kr}
		  + if $rl + $rm + $rf + $rr > 0 then {rqpath_path_fails: $rf, rqpath_removed_by_reload: $rr,
		  rqpath_reinstate_msgs: $rm, rqpath_readded_by_reload: $rl} else {} end')"
	# Every cycle is one failover and one return: the counts must add up.
	[ "$failovers" -ge "$done_cycles" ] || fo_fail "$done_cycles cycles but the target counted only $failovers path failures or removals"
	[ "$reinstated" -ge "$done_cycles" ] || fo_fail "$done_cycles cycles but only $reinstated reinstatements"
	fo_finish
}

# fo_set_queueing 0|1: queue_if_no_path off or on, as an administrator
# would: multipathd's disablequeueing / restorequeueing, rqpath's messages.
fo_set_queueing() {
	case $FO_TARGET:$1 in
	multipath:1) multipathd restorequeueing map "$FO_MAP" ;;
	multipath:0) multipathd disablequeueing map "$FO_MAP" ;;
	rqpath:1) rqpathctl message "$FO_MAP" queue_if_no_path ;;
	rqpath:0) rqpathctl message "$FO_MAP" fail_if_no_path ;;
	esac > /tmp/fo-q.out 2>&1
	fo_wait 5 fo_queueing_is "$1" ||
		fo_fail "queue_if_no_path did not become $1 ($(tr '\n' ' ' < /tmp/fo-q.out); status $(dmsetup status "$FO_MAP"))"
}
fo_queueing_is() { [ "$(fo_queueing)" = "$1" ]; }

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
	rq_detail_json load "$(printf '{"rqcheck_args": "%s", "seed": %s}' "$FO_ALL_ARGS" "$FO_SEED")"
	fo_allpaths_queue
	fo_allpaths_noqueue
	rq_log "checks done"
	fo_check_no_flush
	fo_record_target_counts
	fo_finish
}

# fo_all_paths_offline PHASE PID: both paths offline under the running
# load PID; a load that already ended would make the phase prove nothing.
fo_all_paths_offline() {
	fo_alive "$2" || fo_fail "$1: the load ended before the paths failed: the test proves nothing"
	fo_path_fail 1 offline
	fo_path_fail 2 offline
}

fo_allpaths_queue() {
	rq_log "queue phase"
	fo_set_queueing 1
	# shellcheck disable=SC2086
	rqcheck $FO_ALL_ARGS --passes 1 --seed "$FO_SEED" --gen 1 \
		--json /tmp/fo-q.json "$FO_MAPDEV" > /tmp/fo-q.txt 2>&1 &
	qpid=$!
	fo_track_load $qpid
	fo_wait_progress 200 20 || fo_fail "queue: no I/O on the map within 20 s"
	fo_all_paths_offline queue $qpid
	fo_wait 15 fo_all_failed || fo_fail "queue: the map still has an active path 15 s after both went offline: $(fo_dm_paths | tr '\n' ' ')"
	t_down=$(rq_now)
	# Requests that were on a path when it failed are requeued; after that
	# nothing may complete until a path is back.
	sleep 0.5
	c0=$(fo_ios)
	sleep 2
	c1=$(fo_ios)
	alive=false
	fo_alive $qpid && alive=true
	queued_extra=null
	if [ "$FO_TARGET" = rqpath ]; then
		rqpathctl status "$FO_MAP" --json > /tmp/fo-qs.json 2>/dev/null
		queued_extra=$(jq -c '{in_flight, no_path_requeues}' /tmp/fo-qs.json 2>/dev/null || echo null)
		jq -e '.in_flight > 0 and .no_path_requeues > 0' /tmp/fo-qs.json > /dev/null 2>&1 ||
			fo_fail "queue: rqpath does not show requests waiting for a path: $queued_extra"
	else
		queued_extra=$(multipathd show maps format "%n %Q" 2>/dev/null | awk -v m="$FO_MAP" '$1 == m { $1 = ""; sub("^ +", ""); printf "\"multipathd queueing: %s\"", $0 }')
	fi
	rq_detail_json queue_wait "$(jq -n -c --argjson c0 "$c0" --argjson c1 "$c1" --argjson a "$alive" \
		--argjson x "${queued_extra:-null}" --arg q "$(fo_queueing)" \
		'{completed_during_wait: ($c1 - $c0), seconds: 2, load_alive: $a, queue_if_no_path: $q, target: $x}')"
	if ! $alive; then
		wait $qpid
		qrc=$?
		fo_fail "queue: the load ended while no path was up (rqcheck exit $qrc)"
	fi
	[ "$c1" = "$c0" ] || fo_fail "queue: $((c1 - c0)) I/Os completed on the map while no path was up"
	# One path back: I/O resumes.
	fo_path_restore 1 offline
	fo_reinstate 1 offline
	fo_wait 20 fo_slot_active 1 || fo_fail "queue: path 1 did not come back within 20 s"
	t_up=$(rq_now)
	fo_wait_progress 64 20 || fo_fail "queue: I/O did not resume within 20 s of a path coming back"
	if $alive; then
		fo_wait_pid $qpid 90
		rc=$?
	else
		rc=$qrc
	fi
	rq_detail_json queue_rqcheck "$(fo_rqcheck_summary /tmp/fo-q.json "$rc")"
	rq_detail_json queue_seconds_without_path "$(rq_interval "$t_up" "$t_down")"
	[ "$rc" = 1 ] && FO_BAD=$((FO_BAD + $(jq '.totals.bad' /tmp/fo-q.json)))
	[ "$rc" = 0 ] || fo_fail "queue: the load did not come through clean (rqcheck exit $rc)"
	fo_path_restore 2 offline
	fo_reinstate 2 offline
	fo_wait 20 fo_both_active || fo_fail "queue: the paths did not both come back: $(fo_dm_paths | tr '\n' ' ')"
}

fo_allpaths_noqueue() {
	rq_log "no-queue phase"
	fo_set_queueing 0
	# Generation 3 over the whole region with both paths up: the reference
	# that failed writes of generation 4 leave in place.
	# shellcheck disable=SC2086
	rqcheck $FO_ALL_ARGS --passes 1 --seed "$FO_SEED" --gen 3 --json /tmp/fo-ref.json "$FO_MAPDEV" > /tmp/fo-ref.txt 2>&1 ||
		{ fo_fail "noqueue: the reference pass failed: $(tail -n 1 /tmp/fo-ref.txt)"; return; }
	# shellcheck disable=SC2086
	rqcheck $FO_ALL_ARGS --time 120 --max-report 100000 --seed "$FO_SEED" --gen 4 \
		--json /tmp/fo-nq.json "$FO_MAPDEV" > /tmp/fo-nq.txt 2>&1 &
	npid=$!
	fo_track_load $npid
	# Fail the paths in the last quarter of generation 4's write phase
	# (2048 writes): enough writes acknowledged before and failed after,
	# and not thousands of bad blocks to re-read and list (slow in TCG).
	fo_wait_progress 1536 30 || fo_fail "noqueue: the load did not make progress within 30 s"
	fo_all_paths_offline noqueue $npid
	t_down=$(rq_now)
	fo_wait_pid $npid 30
	rc=$?
	t_end=$(rq_now)
	rq_detail_json noqueue_rqcheck "$(fo_rqcheck_summary /tmp/fo-nq.json "$rc")"
	rq_detail_json noqueue_seconds_to_fail "$(rq_interval "$t_end" "$t_down")"
	case $rc in
	3) ;;
	124) fo_fail "noqueue: I/O neither failed nor completed within 30 s of losing every path" ;;
	*) fo_fail "noqueue: rqcheck exit $rc, expected 3 (I/O error)" ;;
	esac
	if [ "$rc" = 3 ]; then
		jq -e '.io_errors | length > 0 and all(.[]; .result == -5)' /tmp/fo-nq.json > /dev/null ||
			fo_fail "noqueue: the I/O errors are not all EIO: $(jq -c '[.io_errors[] | .result] | unique' /tmp/fo-nq.json)"
		jq -e '.io_errors_truncated | not' /tmp/fo-nq.json > /dev/null ||
			fo_fail "noqueue: rqcheck truncated its I/O error list"
	fi
	fo_path_restore 1 offline
	fo_path_restore 2 offline
	fo_reinstate 1 offline
	fo_reinstate 2 offline
	fo_wait 20 fo_both_active || { fo_fail "noqueue: the paths did not come back: $(fo_dm_paths | tr '\n' ' ')"; return; }
	[ "$rc" = 3 ] || return
	rq_log "no-queue phase: checking the acknowledged writes"
	# Every acknowledged write must be there: read back the last generation.
	last=$(jq '.generations[-1].generation' /tmp/fo-nq.json)
	complete=$(jq '.generations[-1] | .write_errors == 0' /tmp/fo-nq.json)
	# shellcheck disable=SC2086
	rqcheck $FO_ALL_ARGS --verify-only --max-report 100000 --seed "$FO_SEED" --gen "$last" \
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
	*) fo_fail "noqueue: verify-only of generation $last failed (rqcheck exit $vrc)"; return ;;
	esac
	lost=$(jq '.acknowledged_lost' /tmp/fo-ack-sum.json)
	odd=$(jq '.failed_not_old_or_new' /tmp/fo-ack-sum.json)
	if [ "$lost" != 0 ]; then
		FO_BAD=$((FO_BAD + lost))
		fo_fail "noqueue: $lost acknowledged writes of generation $last are not on disk"
	fi
	[ "$odd" = 0 ] || { FO_BAD=$((FO_BAD + odd)); fo_fail "noqueue: $odd blocks whose write failed hold neither the old nor the new data"; }
	[ "$(jq '.bad_truncated' /tmp/fo-ack-sum.json)" = false ] || fo_fail "noqueue: verify-only truncated its bad block list"
	if [ "$complete" = true ] && [ "$vrc" != 0 ]; then
		fo_fail "noqueue: generation $last was written completely but does not verify"
	fi
}

# --- verdict ------------------------------------------------------------------

fo_cleanup() {
	kill "$FO_WD_PID" 2>/dev/null
	for p in $FO_PIDS; do
		if fo_alive "$p"; then
			touch /tmp/fo-load.stop
			kill "$p" 2>/dev/null
			fo_wait_pid "$p" 10 > /dev/null || kill -9 "$p" 2>/dev/null
		fi
	done
	FO_PIDS=""
	# The loop's rqcheck outlives a killed loop; scenarios run one at a
	# time, so any rqcheck left in the guest now is this scenario's.
	for p in $(pidof rqcheck); do
		fo_fail "cleanup: rqcheck $p still ran"
		kill "$p" 2>/dev/null
	done
	fo_restore_all_paths
	fo_map_remove
	if grep -q '^dm_rqpath ' /proc/modules; then
		rmmod dm_rqpath 2> /tmp/fo-rmmod.err || fo_fail "rmmod dm_rqpath failed: $(cat /tmp/fo-rmmod.err)"
	fi
	if [ "$FO_KIND" = scsidebug ] && grep -q '^scsi_debug ' /proc/modules; then
		udev_settle_or_wait
		rmmod scsi_debug 2> /tmp/fo-rmmod.err || fo_fail "rmmod scsi_debug failed: $(cat /tmp/fo-rmmod.err)"
	fi
}

fo_finish() {
	rq_log "cleanup"
	fo_cleanup
	rq_kernel_log_check
	if rq_kernel_warned; then
		fo_fail "kernel warnings during the scenario: $(head -n 1 /tmp/rq-kwarn.txt)"
	fi
	rq_detail_file failed_checks "$FO_FAILS" 100
	n=$(wc -l < "$FO_FAILS")
	if [ "$FO_BAD" -gt 0 ]; then
		rq_result corrupted "$FO_BAD bad blocks$(fo_failed && echo "; $(head -n 1 "$FO_FAILS")")"
	elif [ "$n" -gt 1 ]; then
		rq_result error "$(head -n 1 "$FO_FAILS") (and $((n - 1)) more failed checks)"
	elif [ "$n" = 1 ]; then
		rq_result error "$(head -n 1 "$FO_FAILS")"
	else
		rq_result clean
	fi
}

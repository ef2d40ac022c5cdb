# shellcheck shell=sh
# shellcheck disable=SC2016 # conditions in single quotes are eval'ed later
# Shared guest code of the rqpath-* scenarios: tests of the dm-rqpath target
# itself (dm-target/README.md is the contract), over two scsi_debug paths
# to one shared LUN.  Sourced by the scenario after tests/guest/lib.sh.
#
# A scenario calls rqp_init, then rqp_setup, runs its checks (rq_fail for
# one that does not hold), and ends with rqp_finish, which cleans up (dm
# devices, background processes, offline paths, loop devices, dm_rqpath and
# scsi_debug, so the next scenario of a shared boot starts fresh; `rmmod
# dm_rqpath` failing there, a leaked reference, is itself a failed check)
# and reports.
#
# The status is read with `rqpathctl status --fields all` (rqp_st: RQ_*
# variables, dm-target/README.md names them); rqp_status_json is the one
# independent check of rqpathctl against the raw status line.

# Two SCSI hosts, one LUN each, sharing scsi_debug's one store: two paths to
# one logical unit.  lbpu=1: UNMAP, so discard is supported (and lbprz=1, the
# default, reads unmapped blocks back as zeros).
RQP_SD_PARAMS="dev_size_mb=64 add_host=2 vpd_use_hostno=0 lbpu=1"
# Device-mapper names the scenarios use; rqp_cleanup removes these.
RQP_PREFIX=rqp-

rqp_init() {
	rm -f /tmp/rqp-*
	RQP_PIDS=""
	RQP_LOOPS=""
	# What an earlier scenario of the boot left loaded is its failure, not
	# ours: note it, and fail only if it cannot be unloaded.
	for mod in dm_rqpath scsi_debug; do
		grep -q "^$mod " /proc/modules || continue
		if rmmod "$mod" 2> /tmp/rqp-rmmod.err; then
			rq_detail "leftover_$mod" "$mod was loaded when the scenario started; unloaded"
		else
			rq_fail "$mod was loaded when the scenario started and does not unload: $(cat /tmp/rqp-rmmod.err)"
		fi
	done
}

# dmsetup for commands that make or remove device nodes.  The guest runs no
# udev, and Debian's libdevmapper still leaves /dev/mapper to udev rules
# ("Skipping NODE_ADD ... [trust_udev]") unless DM_DISABLE_UDEV is set.
rqp_dmsetup() { DM_DISABLE_UDEV=1 dmsetup "$@"; }

# rqp_run DESC CMD...: run CMD, output in /tmp/rqp-cmd.out; a non-zero exit
# is a failed check DESC (with the output's last lines).
rqp_run() {
	desc=$1
	shift
	if ! "$@" > /tmp/rqp-cmd.out 2>&1; then
		rq_fail "$desc: '$*' failed: $(tail -n 2 /tmp/rqp-cmd.out | tr '\n' ' ')"
		return 1
	fi
}

# rqp_bg PIDVAR OUTFILE CMD...: start CMD in the background with its output
# in OUTFILE, remember its pid for rqp_cleanup, and store it in PIDVAR.
rqp_bg() {
	var=$1 bgout=$2
	shift 2
	"$@" > "$bgout" 2>&1 &
	eval "$var=\$!"
	RQP_PIDS="$RQP_PIDS $!"
}

# (An empty pid must not reach kill: "kill -0 ''" is the process group.)
rqp_running() { [ -n "$1" ] && rq_alive "$1"; }

# rqp_stuck_signals NAME TAG OPGROUP PID CMD: what else says the operation
# the watch called livelocked is: its submitter waits in the kernel (D),
# the map has an active path (no queueing by its own policy), and half a
# second later (stretched by the kernel's slowdown) the op group has been
# handed back again with still no completion.  A failed check for each that does not.
rqp_stuck_signals() {
	_var=RQ_$(rq_upper "$3")
	_busy=0
	eval "_busy=\$${_var}_BUSY"
	_state=$(rq_pid_state "$4")
	[ "$_state" = D ] || rq_fail "$2: livelock, but '$5' is in state '$_state', not waiting in the kernel (D)"
	[ "$(rq_dm_active_paths "$1")" -gt 0 ] || rq_fail "$2: livelock, but no path of $1 is active: it queues by its own policy"
	sleep "$(rq_workload_seconds 0.5)"
	rqp_st "$1" || return
	rqp_st_check "$2: livelock, but the $3 group was not handed back again without a completion half a second later" \
		"[ \"\$${_var}_BUSY\" -gt $_busy ] && [ \"\$${_var}_COMPLETED\" = 0 ]"
}

# rqp_op NAME TAG OPGROUP CMD...: run CMD in the background on the
# dm-rqpath device NAME with fresh counters, and wait for it as for an
# operation that may livelock (stage ffe81d45322c).  Returns 0 when CMD
# ended, its exit status in RQP_OP_RC; 1 when it did not: a livelock
# (`rqpathctl watch` saw OPGROUP busy with no completion; RQP_OP_STUCK says
# what it saw), broken by failing both paths and reinstating them, or an
# operation neither seen to complete nor called a livelock (a failed
# check).  The EIO a broken livelock ends with is not a completion.  Every
# bound is stretched by the kernel's slowdown; the RQ_ variables hold the
# last status.
# shellcheck disable=SC2034 # RQP_OP_RC and RQP_OP_STUCK are the caller's
rqp_op() {
	name=$1 tag=$2 op=$3
	opvar=$(rq_upper "$op")
	shift 3
	RQP_OP_RC="" RQP_OP_STUCK=""
	rqp_run "reset_counters" dmsetup message "$name" 0 reset_counters
	pid=
	rqp_bg pid "/tmp/rqp-$tag.out" "$@"
	rq_wait_pid "$pid" "$(rq_workload_seconds 1.5)"
	rc=$?
	if [ $rc != 124 ]; then
		RQP_OP_RC=$rc
		return 0
	fi
	# Still running: a slow guest, a hang or a livelock?
	rqpathctl watch "$name" --interval 200 --stall 1.5 --timeout "$(rq_workload_seconds 20)" \
		--json "/tmp/rqp-watch-$tag.json" > "/tmp/rqp-watch-$tag.txt" 2>&1
	wrc=$?
	rqp_st "$name"
	case $wrc in
	0)	# Drained: nothing in flight at some sample (the first one,
		# too).  The operation must then complete; if it does not,
		# nothing says what it is stuck in.
		drain=$(rq_workload_seconds 10)
		rq_wait_pid "$pid" "$drain"
		rc=$?
		if [ $rc != 124 ]; then
			RQP_OP_RC=$rc
			return 0
		fi
		rqp_st "$name"
		rq_detail_file "watch_$tag" "/tmp/rqp-watch-$tag.txt" 8
		rq_fail "$tag: '$*' did not complete: still running ${drain}s after the watch found nothing in flight, never seen to complete (status $(rqp_st_brief))" ;;
	1)	RQP_OP_STUCK=$(jq -r '"stuck ops \(.stuck_ops | join(",")), window \(.window.duration_s)s: \(.window.total.busy) busy, \(.window.total.completed) completed"' \
			"/tmp/rqp-watch-$tag.json" 2>/dev/null)
		rq_log "$tag: livelock: $RQP_OP_STUCK"
		rq_detail "livelock_$tag" "$RQP_OP_STUCK; status $ST_line"
		rqp_st_check "$tag: livelock, but the $op group is not the one busy with no completion" \
			"[ \"\$RQ_${opvar}_BUSY\" -gt 0 ] && [ \"\$RQ_${opvar}_COMPLETED\" = 0 ]"
		rqp_stuck_signals "$name" "$tag" "$op" "$pid" "$*" ;;
	*)	rq_detail_file "watch_$tag" "/tmp/rqp-watch-$tag.txt" 8
		rq_fail "$tag: '$*' did not complete and is no livelock (watch exit $wrc; status $(rqp_st_brief))" ;;
	esac
	if rqp_running "$pid"; then
		# Failing both paths turns every further mapping into an EIO.
		dmsetup message "$name" 0 fail_path "$RQP_M1"
		dmsetup message "$name" 0 fail_path "$RQP_M2"
		rq_wait_pid "$pid" "$(rq_workload_seconds 15)"
		[ $? = 124 ] && rq_fail "$tag: '$*' still runs after both paths were failed"
		dmsetup message "$name" 0 reinstate_path "$RQP_M1"
		dmsetup message "$name" 0 reinstate_path "$RQP_M2"
		# shellcheck disable=SC2016 # evaluated by rqp_st_wait
		rqp_st_wait "$name" "$(rq_workload_seconds 5)" '[ "$RQ_IN_FLIGHT" = 0 ]' ||
			rq_fail "$tag: requests still in flight after the livelock was broken ($(rqp_st_brief))"
	fi
	return 1
}

# --- devices ----------------------------------------------------------------

# Load dm-rqpath and scsi_debug (RQP_SD_PARAMS plus the arguments); sets
# RQP_P1 RQP_P2 (/dev nodes), RQP_M1 RQP_M2 (major:minor), RQP_SECTORS.
rqp_setup() {
	# shellcheck disable=SC2086
	set -- $RQP_SD_PARAMS "$@"
	if ! rq_modprobe dm-rqpath; then
		rq_fail "modprobe dm-rqpath failed"
		return 1
	fi
	if ! dmsetup targets | grep -q '^rqpath '; then
		rq_fail "dmsetup targets does not list rqpath"
		return 1
	fi
	rq_detail rqpath_target "$(dmsetup targets | grep '^rqpath ' | tr -s ' ')"
	rq_scsi_debug_paths "$@" || return 1
	# shellcheck disable=SC2153 # set by rq_scsi_debug_paths
	RQP_P1=$RQ_P1 RQP_P2=$RQ_P2 RQP_SECTORS=$RQ_SECTORS
	rq_wait 5 "the path nodes" eval "[ -b $RQP_P1 ] && [ -b $RQP_P2 ]"
	RQP_M1=$(rq_devno "$RQP_P1") RQP_M2=$(rq_devno "$RQP_P2")
	rq_detail paths "$RQP_P1 ($RQP_M1) $RQP_P2 ($RQP_M2), $RQP_SECTORS sectors, scsi_debug $*"
	rq_log "paths $RQP_P1 ($RQP_M1) $RQP_P2 ($RQP_M2), $RQP_SECTORS sectors"
}

# --- status ---------------------------------------------------------------

# rqp_st NAME: the status as RQ_* variables (rqpathctl status --fields all)
# and the raw line as ST_line, for messages.  A status that cannot be read
# is a failed check.
rqp_st() {
	if ! ST_line=$(dmsetup status "$1" 2>&1); then
		rq_fail "dmsetup status $1 failed: $ST_line"
		return 1
	fi
	if ! rq_rqpath "$1" all; then
		rq_fail "rqpathctl status $1 --fields all failed: $(cat /tmp/rq-rqpath.err)"
		return 1
	fi
}

# rqp_st_wait NAME SECONDS CONDITION: poll the status until the shell
# CONDITION (over the RQ_ variables) holds.
rqp_st_wait() {
	rq_wait "$2" "status of $1: $3" eval "rqp_st $1 && $3"
}

# A short form of the last status, for messages.
rqp_st_brief() { echo "$ST_line"; }

# rqp_st_check DESC CONDITION: a shell condition over the RQ_ variables of
# the last rqp_st must hold.
rqp_st_check() {
	eval "$2" || rq_fail "$1 (status: $ST_line)"
}

# rqp_status_json NAME: `rqpathctl status NAME --json` must parse and say
# what the raw status line says (a check of rqpathctl's parser; call it
# with no I/O running, so that both reads see the same counters).  The JSON
# stays in /tmp/rqp-status.json.
rqp_status_json() {
	rqp_st "$1" || return 1
	rqp_run "rqpathctl status --json" rqpathctl status "$1" --json=/tmp/rqp-status.json || return 1
	# The raw line read by hand, field by field (dm-target/README.md):
	# paths, the device counters, the op groups, the trailing group.
	echo "$ST_line" | awk '{
		i = 4; np = $i; i++
		printf "rqpathctl.status/1 %s %d", n, np
		for (p = 0; p < np; p++) { printf " %s %s %s %s", $i, ($(i+1) == "A" ? "active" : "failed"), $(i+2), $(i+3); i += 4 }
		printf " %s %s %s %s %s", ($i == "1" ? "true" : "false"), $(i+1), $(i+2), $(i+3), $(i+4); i += 5
		no = $i; i++
		printf " %d", no
		for (o = 0; o < no; o++) { name[o] = $i; printf " %s %s %s %s %s", $i, $(i+1), $(i+2), $(i+3), $(i+4); m += $(i+1); b += $(i+2); c += $(i+3); e += $(i+4); i += 5 }
		if ($i != no) { print " trailing group missing"; exit }
		i++
		for (o = 0; o < no; o++) { if ($i != name[o]) { print " trailing group out of order"; exit } printf " %s %s %s", $i, $(i+1), $(i+2); r += $(i+1); i += 3 }
		printf " %d %d %d %d %d 0 true\n", m, b, c, e, r
	}' n="$1" > /tmp/rqp-status.fromraw
	if ! jq -r '[.schema, .device, .nr_paths, (.paths[] | .dev, .state, .fail_count, .dispatched),
		.queue_if_no_path, .in_flight, .busy_since_completion,
		.no_path_requeues, .no_clone_requeues, .nr_ops,
		(.ops | to_entries[] | .key, .value.mapped, .value.busy, .value.completed, .value.errors),
		(.ops | to_entries[] | .key, .value.refused, .value.busy_since_completion),
		.totals.mapped, .totals.busy, .totals.completed, .totals.errors, .totals.refused,
		.nr_extra_fields, .op_details]
		| map(tostring) | join(" ")' /tmp/rqp-status.json > /tmp/rqp-status.fromjson 2>&1; then
		rq_fail "rqpathctl status $1 --json is not the documented object: $(head -c 300 /tmp/rqp-status.json)"
		return 1
	fi
	cmp -s /tmp/rqp-status.fromraw /tmp/rqp-status.fromjson ||
		{ rq_fail "rqpathctl status --json disagrees with dmsetup status: raw '$ST_line', json '$(cat /tmp/rqp-status.fromjson)'"; return 1; }
}

# --- data -----------------------------------------------------------------

# rqp_rqcheck TAG WHAT ARGS...: run rqcheck, output in /tmp/rqp-TAG.txt and
# /tmp/rqp-TAG.json.  It must exit 0 (clean, no I/O error); its summary
# line goes into detail rqcheck_TAG.  Returns rqcheck's exit status.
rqp_rqcheck() {
	tag=$1 what=$2
	shift 2
	rqcheck "$@" --json "/tmp/rqp-$tag.json" > "/tmp/rqp-$tag.txt" 2>&1
	rqp_rqcheck_done "$tag" "$what" $?
}

# rqp_rqcheck_done TAG WHAT RC: judge a finished rqcheck run (see above).
rqp_rqcheck_done() {
	tag=$1 what=$2 rc=$3
	rq_detail "rqcheck_$tag" "exit $rc: $(grep '^total:' "/tmp/rqp-$tag.txt" | tail -n 1)"
	[ "$rc" = 0 ] && return 0
	rq_detail_file "rqcheck_${tag}_output" "/tmp/rqp-$tag.txt" 12
	case $rc in
	1) rq_fail "$what: rqcheck found corruption: $(grep '^total:' "/tmp/rqp-$tag.txt" | tail -n 1)" ;;
	3) rq_fail "$what: rqcheck I/O or setup error: $(grep -m1 -i -e error -e fail "/tmp/rqp-$tag.txt")" ;;
	*) rq_fail "$what: rqcheck exit $rc: $(tail -n 1 "/tmp/rqp-$tag.txt")" ;;
	esac
	return "$rc"
}

# Blocks verified according to the summary line of rqcheck run TAG.
rqp_rqcheck_verified() {
	sed -n 's/^total: .*, \([0-9]*\) blocks verified,.*/\1/p' "/tmp/rqp-$1.txt" | tail -n 1
}

# rqp_nonzero_bytes DEV OFFSET_MIB LEN_MIB: how many bytes of the range are
# not zero, read with O_DIRECT.
rqp_nonzero_bytes() {
	dd if="$1" bs=1M skip="$2" count="$3" iflag=direct 2>/dev/null | tr -d '\000' | wc -c | tr -d ' '
}

# --- cleanup and verdict --------------------------------------------------

# Names of the scenario's dm devices (rqp-*), one per line.
rqp_dm_devices() {
	dmsetup ls 2>/dev/null | awk -v p="$RQP_PREFIX" 'index($1, p) == 1 { print $1 }'
}

rqp_cleanup() {
	# Queued I/O must fail rather than wait for a path that never comes.
	for n in $(dmsetup ls --target rqpath 2>/dev/null | awk '$1 != "No" { print $1 }'); do
		dmsetup message "$n" 0 fail_if_no_path > /dev/null 2>&1
	done
	for d in /sys/block/sd*; do
		[ -e "$d/device/state" ] || continue
		[ "$(cat "$d/device/state")" = running ] || echo running > "$d/device/state"
	done
	for p in $RQP_PIDS; do
		if rqp_running "$p"; then
			rq_fail "background process $p ($(tr '\0' ' ' < "/proc/$p/cmdline" 2>/dev/null)) still ran at cleanup"
			kill "$p" 2>/dev/null
			rq_wait_pid "$p" 5 || kill -9 "$p" 2>/dev/null
		fi
	done
	RQP_PIDS=""
	# Stacked ones (rqp-X-lin over rqp-X) first.
	for n in $(rqp_dm_devices | sort -r); do
		if ! rqp_dmsetup remove --retry "$n" > /tmp/rqp-rm.out 2>&1; then
			rq_fail "cleanup: dmsetup remove $n failed: $(tail -n 1 /tmp/rqp-rm.out)"
		fi
	done
	left=$(rqp_dm_devices | tr '\n' ' ')
	[ -z "$left" ] || rq_fail "cleanup: dm devices left behind: $left"
	for l in $RQP_LOOPS; do
		losetup -d "$l" 2>/dev/null
	done
	RQP_LOOPS=""
	rm -f /tmp/rqp-*.img
	rq_unload dm_rqpath scsi_debug
}

# rqp_finish [VERDICT [REASON]]: clean up and report; any failed check makes
# the verdict `error`.
rqp_finish() {
	rq_phase cleanup
	rqp_cleanup
	rq_finish "${1:-clean}" "${2:-}"
}

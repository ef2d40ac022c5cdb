# shellcheck shell=sh
# Shared guest code of the livelock-* scenarios and of watchdog-no-false-alarm.
# Sourced by the scenario after tests/guest/lib.sh; sources multipath.sh.
#
# The bug (stage ffe81d45322c): blk_insert_cloned_request() always issues a
# clone directly, and that stage refuses direct issue for anything but plain
# reads and writes, so a discard, write-zeroes or flush clone comes back
# BLK_STS_RESOURCE every time.  Device-mapper core hands the clone back to
# the target, returns BLK_STS_RESOURCE for the original, blk-mq puts it back
# on the dm device's dispatch list and runs the queue again: for ever.  The
# submitter sleeps in D state, the queue spins.
#
# ll_scenario OP TARGET runs one operation through one kind of dm device
# over two scsi_debug paths to one store, in the background, and decides
# from these signals (all of them are recorded in the details):
#
#   signal                                      rqpath  rqpathctl  multipath
#   1 `rqpathctl watch` exit 1, stuck op named    yes      yes        -  (no rqpath counters)
#   1t `rqpathctl watch --via trace` exit 1, the  yes      yes        yes
#     stuck request's op named (per request,
#     from the map's tracepoints; see below)
#   2 hung-task detector names the submitter      yes      yes        yes
#   3 submitter in D state, its kernel stack      yes      yes        yes
#   4 dm-N block tracepoints: the op requeued     yes      yes        yes
#     (block_rq_requeue) again and again, never
#     completed (block_rq_complete)
#
# Trigger evidence (details.trigger, family "livelock"), on every stage: the
# operation was mapped (rqpath: its op group's <mapped>; multipath: issued
# on dm-N) and handed back busy at least once (rqpath: <busy>; multipath:
# requeued on dm-N).  The paths answer every command busy (scsi_debug's
# injection) until that happened, so on every stage the operation meets the
# hand-back that the fixed stages retry and ffe81d45322c never gets past.
#
# Signal 4 is what "the dm device kept requeueing" means for dm-multipath:
# every pass of the loop is dm_start_request() (block_rq_issue) and, on the
# BLK_STS_RESOURCE, blk_mq_handle_dev_resource() (block_rq_requeue) on dm-N.
# (A request that does complete shows two block_rq_complete events on dm-N:
# dm-rq updates the original once when the clone's bios end and once more
# in blk_mq_end_request(); the counts are events, not requests.)
#
# For the read/write controls the watchdog is recorded but it ends
# "drained" as soon as it samples in_flight 0, which can be between
# rqcheck's write and read phases: it covers part of the run only
# (watchdog-no-false-alarm runs it with --follow for the whole load).
#
# Signal 1t, the request watch (rqpathctl watch --via trace): started with
# --follow before the operation, so that it sees the operation's first
# refusal; it decides per request from a tracefs instance of its own (the
# top-level trace of signal 4 is untouched).  Its JSON's
# stuck_request.age_s is the time from the operation's first refusal to
# the verdict: the figure issue 34 wants under 1 s (LL_RWATCH_GOAL) on
# ffe81d45322c; a miss is recorded (watch_requests.meets_goal), not
# failed.  A livelock needs its verdict naming the operation, and on the
# stages that complete it must not say livelock, through the busy
# injection included (LL_RWATCH_REQUIRED; 0 would record it only).
#
# Signal 2 needs care: submit_bio_wait() reads hung_task_timeout_secs when it
# starts waiting and wakes every timeout/2 precisely so that the detector
# does not fire on long I/O.  The operation is therefore started with the
# default timeout (120 s: it sleeps in 60 s slices) and the timeout is
# lowered to LL_HUNG_TIMEOUT only once the submitter is seen in D state; the
# detector (checking every second) then reports a task that has not run
# for LL_HUNG_TIMEOUT seconds.  Operations that complete never see it.
#
# Verdicts:
#   livelocked  the operation did not complete within LL_DEADLINE seconds
#               and every applicable signal says livelock;
#   clean       the operation completed successfully, it reached the dm
#               device as that operation (rqpath: the op group's counters;
#               multipath: block_rq_complete of that op on dm-N), the
#               watchdog did not fire, and for the read/write controls
#               rqcheck verified the data;
#   error       anything else, with the reason (a signal that disagrees, an
#               operation the device does not support, a setup failure).
# A livelocked scenario reports and returns at once: the submitter cannot
# be killed, so it marks the guest unusable (the boot ends and the harness
# boots again for the next scenario), and the hung-task report about the
# submitter is the one kernel report it expects.

# shellcheck source=tests/guest/multipath.sh
. /rqpath/multipath.sh

# Two SCSI hosts, one LUN each, one shared store: two paths to one logical
# unit.  lbpu=1: UNMAP, so discard is supported.  scsi_debug supports WRITE
# SAME (write zeroes) and reports a write-back cache (WCE) by default; both
# are checked on the paths and on the dm device, not assumed.
LL_SD_PARAMS="dev_size_mb=32 add_host=2 vpd_use_hostno=0 lbpu=1 statistics=1"
LL_SD_SYSFS=/sys/bus/pseudo/drivers/scsi_debug
LL_NAME=rqll
# Seconds after the operation started by which it must have completed or
# all the livelock signals must be in.
LL_DEADLINE=15
LL_RW_DEADLINE=60
LL_HUNG_TIMEOUT=5
# rqpathctl watch: stall window, and a bound so that it never runs for ever.
LL_STALL=3
LL_WATCH_TIMEOUT=20
# rqpathctl watch's exit status for "livelock found" (its README's table).
LL_WATCH_LIVELOCK=1
# Signal 4: at least this many requeues of the op on dm-N, the last one at
# most LL_REQUEUE_RECENT seconds before the end of the observation.
LL_MIN_REQUEUES=50
LL_REQUEUE_RECENT=1
LL_TRACE_EVENTS="block_rq_issue block_rq_requeue block_rq_complete"
# Signal 1t: required for the verdict (1) or recorded only (0), and the
# latency goal in seconds from the operation's first refusal.  Required:
# it calls each of the three operations' livelock on both targets of both
# trees in 0.25-0.57 s (2026-12-07).  It was recorded only while it stayed
# quiet in every such cell: it read the paths' stat, where each clone a
# path refuses counts as a completed I/O (userspace/rqpathctl/README.md).
LL_RWATCH_REQUIRED=1
LL_RWATCH_GOAL=1

ll_log() { rq_log "livelock: $*"; }

# --- setup ------------------------------------------------------------------

# ll_paths: scsi_debug with LL_SD_PARAMS; sets LL_P1 LL_P2.
ll_paths() {
	# shellcheck disable=SC2086
	rq_scsi_debug_paths $LL_SD_PARAMS || return 1
	LL_P1=$RQ_P1 LL_P2=$RQ_P2
}

# ll_op_counts NAME OP: LL_MAPPED and LL_BUSY of OP's op group(s) (reads and
# writes for readwrite) from dm-rqpath's status.
ll_op_counts() {
	case $2 in
	readwrite) rq_rqpath "$1" read_mapped write_mapped read_busy write_busy || return 1
		LL_MAPPED=$((RQ_READ_MAPPED + RQ_WRITE_MAPPED)) LL_BUSY=$((RQ_READ_BUSY + RQ_WRITE_BUSY)) ;;
	*)	rq_rqpath "$1" "$2_mapped" "$2_busy" || return 1
		_op=$(rq_upper "$2")
		eval "LL_MAPPED=\$RQ_${_op}_MAPPED LL_BUSY=\$RQ_${_op}_BUSY" ;;
	esac
}

ll_op_mapped() { ll_op_counts "$1" "$2" && [ "$LL_MAPPED" -gt 0 ]; } # NAME OP

# The paths answer busy as the operation starts: scsi_debug's busy
# injection (opts=0x8000: queuecommand() returns SCSI_MLQUEUE_HOST_BUSY;
# every_nth=1: for every command) until the operation was handed back busy
# once, then off.  A full path queue would not do: dm-multipath's busy hook
# then holds the request back before it is cloned, and
# blk_insert_cloned_request() never sees it.
ll_inject_busy() { # 1 or 0
	if [ "$1" = 1 ]; then
		echo 1 > "$LL_SD_SYSFS/every_nth" && echo 0x8000 > "$LL_SD_SYSFS/opts"
	else
		echo 0 > "$LL_SD_SYSFS/opts" && echo 0 > "$LL_SD_SYSFS/every_nth"
	fi
}

# The operation was handed back busy: its op group's <busy> (rqpath), or a
# requeue of it on dm-N (multipath).
ll_busy_seen() { # OP
	if ll_is_rqpath; then
		ll_op_counts "$LL_DMNAME" "$1" && [ "$LL_BUSY" -gt 0 ]
	else
		grep -q -E "block_rq_requeue: $LL_DEVNO $(ll_rwbs_pattern "$1" | tr -d '^')" "$RQ_TRACE/trace"
	fi
}

# ll_target TARGET: the dm device over LL_P1 LL_P2.  Sets LL_DMNAME (the
# device-mapper name), LL_DM (dm-N), LL_DEV (a block node for it), LL_DEVNO
# (major,minor as the tracepoints print it), LL_TABLE.  Returns 1 after a
# failed check.
ll_target() {
	LL_TARGET=$1
	rq_phase setup
	case $1 in
	rqpath|rqpathctl)
		rq_modprobe dm-rqpath || { rq_fail "modprobe dm-rqpath failed"; return 1; } ;;
	esac
	ll_paths || return 1
	case $1 in
	rqpath)
		LL_DMNAME=$LL_NAME
		LL_TABLE="0 $(blockdev --getsz "$LL_P1") rqpath 2 $(cat "/sys/block/${LL_P1##*/}/dev") $(cat "/sys/block/${LL_P2##*/}/dev")"
		if ! echo "$LL_TABLE" | dmsetup create "$LL_NAME" > /tmp/ll-create.out 2>&1; then
			rq_fail "dmsetup create failed: $(tail -n 2 /tmp/ll-create.out | tr '\n' ' ')"
			return 1
		fi
		# Without udevd nobody makes /dev/mapper/NAME; devtmpfs makes
		# dm-N, set below.
		LL_DEV="" ;;
	rqpathctl)
		LL_DMNAME=$LL_NAME
		if ! rqpathctl create "$LL_NAME" "$LL_P1" "$LL_P2" > /tmp/ll-create.out 2>&1; then
			rq_fail "rqpathctl create failed: $(tail -n 3 /tmp/ll-create.out | tr '\n' ' ')"
			return 1
		fi
		LL_TABLE=$(sed -n 's/^[^ ]*: created: //p' /tmp/ll-create.out)
		LL_DEV=/dev/mapper/$LL_NAME
		[ -b "$LL_DEV" ] || { rq_fail "rqpathctl create made no $LL_DEV"; return 1; } ;;
	multipath)
		rq_multipath_start || { rq_fail "multipathd did not start"; return 1; }
		LL_DEV=$(rq_multipath_map "$LL_P1" "$LL_P2") || { rq_fail "multipath made no map over $LL_P1 $LL_P2"; return 1; }
		LL_DMNAME=${LL_DEV##*/}
		LL_TABLE=$(dmsetup table "$LL_DMNAME")
		multipath -ll > /tmp/ll-mpll.txt 2>&1 ;;
	*)	rq_fail "unknown target $1"; return 1 ;;
	esac
	LL_DM=$(rq_dm_blkname "$LL_DMNAME") || { rq_fail "no dm-N for $LL_DMNAME"; return 1; }
	[ -n "$LL_DEV" ] || LL_DEV=/dev/$LL_DM
	LL_DEVNO=$(tr ':' ',' < "/sys/block/$LL_DM/dev")
	# Request-based dm only: the bug is in blk_insert_cloned_request().
	if [ ! -d "/sys/block/$LL_DM/mq" ]; then
		rq_fail "$LL_DM is not request-based (no /sys/block/$LL_DM/mq): table $LL_TABLE"
		return 1
	fi
	ll_log "$1 device $LL_DMNAME ($LL_DM, $LL_DEV) over $LL_P1 $LL_P2: $LL_TABLE"
}

# ll_check_support OP: the paths and the dm device must support OP, or the
# test would prove nothing (BLKZEROOUT falls back to plain writes, a flush
# on a queue without a write cache completes at once).
ll_check_support() {
	rq_phase setup
	: > /tmp/ll-limits.txt
	for b in "${LL_P1##*/}" "${LL_P2##*/}" "$LL_DM"; do
		q=/sys/block/$b/queue
		echo "$b $(cat "$q/discard_max_bytes") $(cat "$q/write_zeroes_max_bytes") $(tr ' ' _ < "$q/write_cache")" >> /tmp/ll-limits.txt
	done
	case $1 in
	discard) col=2 ;;
	write_zeroes) col=3 ;;
	flush) col=4 ;;
	*) return 0 ;;
	esac
	bad=$(awk -v c=$col '($c == "0" || $c == "write_through") { printf "%s ", $1 }' /tmp/ll-limits.txt)
	if [ -n "$bad" ]; then
		rq_fail "$1 is not supported on ${bad}($(tr '\n' ';' < /tmp/ll-limits.txt)): the test would be meaningless"
		return 1
	fi
}

# --- the operation ----------------------------------------------------------

# The rqpath op groups and the tracepoint rwbs (blk_fill_rwbs()) of each
# operation.
ll_groups() {
	case $1 in
	readwrite) echo '["read", "write"]' ;;
	*) echo "[\"$1\"]" ;;
	esac
}

ll_rwbs_pattern() {
	case $1 in
	discard) echo '^D' ;;
	write_zeroes) echo '^N' ;;	# no letter of its own
	flush) echo '^FF' ;;		# REQ_PREFLUSH | REQ_OP_FLUSH (blk_kick_flush)
	readwrite) echo '^F?[RW]' ;;
	esac
}

# Start the operation in the background; LL_PID, LL_CMD, LL_OP_T0.
ll_start_op() {
	case $1 in
	# util-linux's blkdiscard, -f: no signature probe (its reads would
	# queue behind the busy paths and delay the operation past them).
	discard) set -- blkdiscard -f -o 0 -l 1048576 "$2" ;;
	write_zeroes) set -- blkdiscard -f -z -o 0 -l 1048576 "$2" ;;
	# busybox sync FILE is fsync(), for a block device blkdev_issue_flush():
	# an empty REQ_PREFLUSH bio, a REQ_OP_FLUSH request on a write-back queue.
	flush) set -- sync "$2" ;;
	readwrite) set -- rqcheck --bs 4k --size 8m --qd 16 --json /tmp/ll-rqcheck.json "$2" ;;
	esac
	LL_CMD="$*"
	LL_OP_T0=$(rq_now)
	"$@" > /tmp/ll-op.out 2>&1 &
	LL_PID=$!
	ll_log "started '$LL_CMD' as $LL_PID"
}

ll_running() { kill -0 "$LL_PID" 2>/dev/null; }

# The first hung-task report about the submitter since the scenario
# started, as "LINE:text" of /tmp/ll-dmesg.txt.  Only since then: pids
# repeat, and an earlier scenario of the boot may have left a report.
ll_hung_line() {
	rq_dmesg > /tmp/ll-dmesg.txt
	grep -n "task [^ ]*:$LL_PID blocked for more than" /tmp/ll-dmesg.txt | head -n 1
}

ll_is_rqpath() { [ "$LL_TARGET" != multipath ]; }

# ll_observe OP: start the operation and watch it until it completes or all
# the livelock signals are in, at most LL_DEADLINE (LL_RW_DEADLINE for the
# readwrite control) seconds.  Sets LL_DONE (1: it exited, status LL_RC),
# LL_WATCH_PID (rqpath targets), LL_OBSERVED.
ll_observe() {
	deadline=$LL_DEADLINE
	[ "$1" = readwrite ] && deadline=$LL_RW_DEADLINE
	# See the top of this file: submit_bio_wait() must start waiting under
	# the default timeout.  One report is enough.
	echo 120 > /proc/sys/kernel/hung_task_timeout_secs
	echo 0 > /proc/sys/kernel/hung_task_check_interval_secs
	echo 1 > /proc/sys/kernel/hung_task_warnings
	# shellcheck disable=SC2086
	rq_trace_start $LL_TRACE_EVENTS || { rq_fail "cannot enable block tracepoints"; return 1; }
	# Only dm-N (the kernel's dev_t is major << 20 | minor): a small trace.
	for e in $LL_TRACE_EVENTS; do
		echo "dev == $(echo "$LL_DEVNO" | awk -F, '{ printf "%d", $1 * 1048576 + $2 }')" > "$RQ_TRACE/events/block/$e/filter" ||
			{ rq_fail "cannot filter $e on $LL_DEVNO"; return 1; }
	done
	# Signal 1t before the operation (and the injection): it must see
	# the first refusal.  --follow: nothing in flight yet is not the end.
	rqpathctl watch "$LL_DEV" --via trace --follow --timeout "$LL_WATCH_TIMEOUT" \
		--json /tmp/ll-rwatch.json > /tmp/ll-rwatch.txt 2>&1 &
	LL_RWATCH_PID=$!
	rq_wait 5 "the request watch to start" eval "grep -q '^watching' /tmp/ll-rwatch.txt || ! rq_alive $LL_RWATCH_PID"
	grep -q 'falling back' /tmp/ll-rwatch.txt && ll_log "request watch: $(grep 'falling back' /tmp/ll-rwatch.txt)"
	ll_inject_busy 1 || { rq_fail "cannot turn on scsi_debug's busy injection"; return 1; }
	rq_phase workload
	echo ll-start > "$RQ_TRACE/trace_marker"
	ll_start_op "$1" "$LL_DEV"
	rq_wait 10 "a busy hand-back of the operation" ll_busy_seen "$1"
	ll_inject_busy 0
	LL_DONE=0 LL_RC="" LL_OP_SECONDS="" LL_WATCH_PID="" LL_WATCH_T="" LL_HUNG_SET_T="" LL_D_SEEN=""
	# Signal 1: the watchdog, once the request is in flight (it checks for
	# drained on its first sample) or the operation is over.
	if ll_is_rqpath; then
		# Wait for the operation itself: other I/O (blkid's probe reads)
		# can be in flight and gone before the operation arrives, and a
		# watch that starts in that gap samples in_flight 0 and ends.
		rq_wait 5 "the operation mapped" eval "! ll_running || ll_op_mapped $LL_DMNAME $1"
		LL_WATCH_T=$(rq_since "$LL_OP_T0")
		rqpathctl watch "$LL_DMNAME" --stall "$LL_STALL" --timeout "$LL_WATCH_TIMEOUT" \
			--json /tmp/ll-watch.json --samples /tmp/ll-samples.json > /tmp/ll-watch.txt 2>&1 &
		LL_WATCH_PID=$!
	fi
	while :; do
		if ! ll_running; then
			wait "$LL_PID"
			LL_RC=$?
			LL_DONE=1
			LL_OP_SECONDS=$(rq_since "$LL_OP_T0")
			break
		fi
		t=$(rq_since "$LL_OP_T0")
		st=$(rq_pid_state "$LL_PID")
		if [ "$st" = D ]; then
			[ -n "$LL_D_SEEN" ] || LL_D_SEEN=$t
		else
			LL_D_SEEN=""
		fi
		# Signal 2: lower the hung-task timeout once the submitter waits
		# in submit_bio_wait() (it has read the timeout then), or has
		# slept in D for a second somewhere else.
		if [ -z "$LL_HUNG_SET_T" ] && [ -n "$LL_D_SEEN" ] &&
			{ [ "$(cat "/proc/$LL_PID/wchan" 2>/dev/null)" = submit_bio_wait ] ||
			  rq_ge "$t" "$(echo "$LL_D_SEEN" | awk '{ print $1 + 1 }')"; }; then
			echo 1 > /proc/sys/kernel/hung_task_check_interval_secs
			echo "$LL_HUNG_TIMEOUT" > /proc/sys/kernel/hung_task_timeout_secs
			LL_HUNG_SET_T=$t
			ll_log "submitter $LL_PID in D since ${LL_D_SEEN}s; hung_task_timeout_secs=$LL_HUNG_TIMEOUT at ${t}s"
		fi
		if [ -n "$LL_HUNG_SET_T" ] && [ -n "$(ll_hung_line)" ] &&
			{ [ -z "$LL_WATCH_PID" ] || ! kill -0 "$LL_WATCH_PID" 2>/dev/null; }; then
			break
		fi
		rq_ge "$t" "$deadline" && break
		rq_sleep 0.2 "livelock observation"
	done
	LL_OBSERVED=$(rq_since "$LL_OP_T0")
	echo ll-end > "$RQ_TRACE/trace_marker"
	rq_trace_stop /tmp/ll-trace.txt
	for e in $LL_TRACE_EVENTS; do echo 0 > "$RQ_TRACE/events/block/$e/filter"; done
	ll_log "observed ${LL_OBSERVED}s: $([ "$LL_DONE" = 1 ] && echo "exited $LL_RC after ${LL_OP_SECONDS}s" || echo "still running")"
}

# The watchdog's exit status in LL_WATCH_RC: it drains at its next sample
# once the operation is over, or it has decided already; one still running
# is stopped (LL_WATCH_KILLED=1, it writes its report on SIGTERM).
ll_end_watch() {
	# Signal 1t: a followed watch ends on a livelock or when stopped (its
	# verdict then quiet, or queueing/slow if that was the state).
	LL_RWATCH_RC=""
	if [ -n "$LL_RWATCH_PID" ]; then
		kill -0 "$LL_RWATCH_PID" 2>/dev/null && kill "$LL_RWATCH_PID"
		wait "$LL_RWATCH_PID"
		LL_RWATCH_RC=$?
	fi
	LL_WATCH_RC="" LL_WATCH_KILLED=0
	[ -n "$LL_WATCH_PID" ] || return 0
	[ "$LL_DONE" = 1 ] && rq_wait 3 "the watch to drain" eval "! rq_alive $LL_WATCH_PID"
	if kill -0 "$LL_WATCH_PID" 2>/dev/null; then
		kill "$LL_WATCH_PID"
		LL_WATCH_KILLED=1
	fi
	wait "$LL_WATCH_PID"
	LL_WATCH_RC=$?
}

# --- evidence ---------------------------------------------------------------

# Signal 4, from the trace: how often each event showed the op on dm-N,
# first and last time relative to the marker ll-start, and other ops.
ll_trace_evidence() {
	awk -v dev="$LL_DEVNO" -v pat="$(ll_rwbs_pattern "$1")" '
		/tracing_mark_write: ll-(start|end)/ {
			for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { t = $i; sub(":", "", t) }
			mark[$NF] = t
			next
		}
		{
			for (i = 1; i <= NF; i++) if ($i ~ /^block_rq_[a-z]+:$/) break
			if (i > NF || $(i + 1) != dev) next
			ev = $i; sub(":", "", ev); sub("block_rq_", "", ev)
			t = $(i - 1); sub(":", "", t)
			if ($(i + 2) ~ pat) { n[ev]++; last[ev] = t; if (!(ev in first)) first[ev] = t }
			else other[ev]++
		}
		function rel(x) { return (x == "" || mark["ll-start"] == "") ? "null" : sprintf("%.3f", x - mark["ll-start"]) }
		END {
			printf "{\"dev\": \"%s\", \"rwbs\": \"%s\", \"observed_s\": %s", dev, pat, rel(mark["ll-end"])
			split("issue requeue complete", evs, " ")
			for (k = 1; k <= 3; k++) {
				e = evs[k]
				printf ", \"%s\": %d, \"%s_first_s\": %s, \"%s_last_s\": %s, \"other_%s\": %d",
					e, n[e], e, rel(first[e]), e, rel(last[e]), e, other[e]
			}
			printf "}\n"
		}' /tmp/ll-trace.txt > /tmp/ll-trace-ev.json
}

# The trigger: the op was mapped and handed back busy at least once.
ll_trigger() {
	if ll_is_rqpath; then
		ll_op_counts "$LL_DMNAME" "$1" || LL_MAPPED=0 LL_BUSY=0
	else
		LL_MAPPED=$(jq '.issue' /tmp/ll-trace-ev.json 2>/dev/null)
		LL_BUSY=$(jq '.requeue' /tmp/ll-trace-ev.json 2>/dev/null)
	fi
	rq_trigger livelock mapped "${LL_MAPPED:-0}" 1
	rq_trigger livelock busy "${LL_BUSY:-0}" 1
}

# Collect the evidence files the details are made of (missing ones empty).
ll_collect() {
	for f in rwatch.json rwatch.txt watch.json watch.txt status.json trace-ev.json hung.txt stack.txt rqcheck.json mpll.txt; do
		[ -e "/tmp/ll-$f" ] || : > "/tmp/ll-$f"
	done
	ll_is_rqpath && rqpathctl status "$LL_DMNAME" --json > /tmp/ll-status.json 2>&1
	ll_trace_evidence "$1"
	ll_trigger "$1"
	rq_detail_file watch_samples /tmp/ll-samples.json 200
	line=$(ll_hung_line)
	if [ -n "$line" ]; then
		tail -n +"${line%%:*}" /tmp/ll-dmesg.txt | head -n 24 > /tmp/ll-hung.txt
	fi
	if [ "$LL_DONE" = 0 ]; then
		LL_ACTIVE_PATHS=$(rq_dm_active_paths "$LL_DMNAME")
		rq_detail active_paths "$LL_ACTIVE_PATHS"
		LL_STATE=$(rq_pid_state "$LL_PID")
		LL_WCHAN=$(cat "/proc/$LL_PID/wchan" 2>/dev/null)
		LL_COMM=$(cat "/proc/$LL_PID/comm" 2>/dev/null)
		sed 's/^\[<[0-9a-f]*>\] //' "/proc/$LL_PID/stack" > /tmp/ll-stack.txt 2>/dev/null
	fi
}

# One jq for all the details (jq costs about 0.4 s under TCG).
ll_details() {
	op=$1
	rq_details_sync
	jq -c --arg op "$op" --arg sd "$LL_SD_PARAMS" --argjson deadline "$LL_DEADLINE" \
		--argjson stall "$LL_STALL" --argjson hungto "$LL_HUNG_TIMEOUT" \
		--arg target "$LL_TARGET" --arg name "$LL_DMNAME" --arg dm "$LL_DM" --arg node "$LL_DEV" \
		--arg table "$LL_TABLE" --arg p1 "$LL_P1" --arg p2 "$LL_P2" \
		--arg cmd "$LL_CMD" --arg fin "$LL_DONE" --arg rc "$LL_RC" --arg secs "$LL_OP_SECONDS" \
		--arg observed "$LL_OBSERVED" --arg t0 "$LL_OP_T0" \
		--arg rwrc "$LL_RWATCH_RC" --argjson rwgoal "$LL_RWATCH_GOAL" \
		--rawfile rwatch /tmp/ll-rwatch.json --rawfile rwatchout /tmp/ll-rwatch.txt \
		--arg wrc "$LL_WATCH_RC" --arg wkilled "$LL_WATCH_KILLED" --arg wstarted "$LL_WATCH_T" \
		--arg hungset "$LL_HUNG_SET_T" --arg dseen "$LL_D_SEEN" \
		--arg pid "$LL_PID" --arg state "${LL_STATE:-}" --arg wchan "${LL_WCHAN:-}" --arg comm "${LL_COMM:-}" \
		--rawfile limits /tmp/ll-limits.txt --rawfile watch /tmp/ll-watch.json \
		--rawfile watchout /tmp/ll-watch.txt --rawfile status /tmp/ll-status.json \
		--rawfile trace /tmp/ll-trace-ev.json --rawfile hung /tmp/ll-hung.txt \
		--rawfile stack /tmp/ll-stack.txt --rawfile rqcheck /tmp/ll-rqcheck.json \
		--rawfile mpll /tmp/ll-mpll.txt '
	def num: if . == "" then null else tonumber end;
	def json: try fromjson catch null;
	def lines: split("\n") | map(select(length > 0));
	def nonzero: with_entries(select(.value.mapped + .value.busy + .value.completed > 0));
	($watch | json) as $w | ($rwatch | json) as $rw | ($status | json) as $st | ($rqcheck | json) as $rq | ($hung | lines) as $h |
	. + {
	  config: {op: $op, scsi_debug: $sd, deadline_s: $deadline, watch_stall_s: $stall, hung_task_timeout_s: $hungto},
	  device: {target: $target, name: $name, dm: $dm, node: $node, table: $table, paths: [$p1, $p2]},
	  limits: ($limits | lines | map(split(" ") | {key: .[0], value: {discard_max_bytes: (.[1] | tonumber),
	    write_zeroes_max_bytes: (.[2] | tonumber), write_cache: (.[3] | sub("_"; " "))}}) | from_entries),
	  op: {command: $cmd, completed: ($fin == "1"), exit: ($rc | num), seconds: ($secs | num), observed_s: ($observed | num)},
	  watch: (if $target == "multipath" then "not applicable: dm-multipath has no rqpath counters"
	    elif $w == null then {exit: ($wrc | num), report: null, output: ($watchout | lines | .[-6:])}
	    else {exit: ($wrc | num), killed: ($wkilled == "1"), verdict: $w.verdict, started_at_s: ($wstarted | num),
	      detection_latency_s: $w.detection_latency_s, stall_start_s: $w.stall_start_s, decision_s: $w.decision_s,
	      verdict_after_op_start_s: (if $w.decision_s == null then null
	        else ($w.decision_s + ($wstarted | num)) * 1000 | round / 1000 end),
	      stuck_ops: $w.stuck_ops, in_flight: $w.in_flight, samples: $w.samples, elapsed_s: $w.elapsed_s, error: $w.error,
	      window: ($w.window | if . == null then null else {duration_s, total, ops: (.ops | nonzero)} end),
	      output: ($watchout | lines | map(select(test("^(LIVELOCK|DRAINED|STALL|TIMEOUT|detection|stuck|rqpathctl)")))) } end),
	  watch_requests: (if $rw == null then {exit: ($rwrc | num), report: null, output: ($rwatchout | lines | .[-6:])}
	    else {exit: ($rwrc | num), verdict: $rw.verdict, source: $rw.source, fallback_reason: $rw.fallback_reason,
	      stuck_op: $rw.stuck_request.op, stuck_rwbs: $rw.stuck_request.rwbs, evidence: $rw.stuck_request.evidence,
	      refusals: $rw.stuck_request.refusals, sector: $rw.stuck_request.sector, nr_sectors: $rw.stuck_request.nr_sectors,
	      latency_from_first_refusal_s: $rw.detection_latency_s,
	      meets_goal: (if $rw.detection_latency_s == null then null else $rw.detection_latency_s < $rwgoal end),
	      goal_s: $rwgoal, paths: $rw.paths, load: $rw.load, phase: $rw.phase, error: $rw.error} end),
	  rqpath_status: (if $target == "multipath" then null elif $st == null then ($status | .[:300])
	    else {in_flight: $st.in_flight, busy_since_completion: $st.busy_since_completion,
	      paths: [$st.paths[] | "\(.dev) \(.state) \(.dispatched)"], ops: ($st.ops | nonzero), totals: $st.totals} end),
	  trace_dm: ($trace | json),
	  hung_task: {reported: ($h | length > 0), timeout_s: $hungto, timeout_lowered_at_s: ($hungset | num),
	    reported_at_s: (if ($h | length) == 0 then null
	      else ($h[0] | capture("^\\[ *(?<t>[0-9.]+)\\]").t | tonumber) - ($t0 | tonumber) | . * 100 | round / 100 end),
	    report: $h[:16]},
	  submitter: (if $fin == "1" then "exited" else {pid: ($pid | num), comm: $comm, state: $state, wchan: $wchan,
	    d_state_since_s: ($dseen | num), stack: ($stack | lines)} end)
	}
	+ (if $rq == null then {} else {rqcheck: {exit: ($rc | num), result: $rq.result, seed: $rq.seed,
	    blocks_verified: $rq.totals.blocks_verified, bad: $rq.totals.bad, read_errors: $rq.totals.read_errors,
	    write_errors: $rq.totals.write_errors, seconds: $rq.workload_seconds}} end)
	+ (if $target == "multipath" then {multipath_ll: ($mpll | lines | .[:12])} else {} end)
	' "$RQ_DETAILS" > "$RQ_DETAILS.new" && mv "$RQ_DETAILS.new" "$RQ_DETAILS"
}

# The facts the verdict needs, as shell assignments, from the details.
ll_facts() {
	eval "$(jq -r --argjson groups "$(ll_groups "$1")" --argjson min "$LL_MIN_REQUEUES" \
		--argjson recent "$LL_REQUEUE_RECENT" '
	def b: if . then "1" else "0" end;
	def obj: if type == "object" then . else {} end;
	(.trace_dm // {}) as $t | (.watch | obj) as $w | (.rqpath_status | obj) as $s |
	{
	  F_TRACE_LIVELOCK: (($t.requeue // 0) >= $min and $t.complete == 0 and $t.requeue_last_s != null
	    and $t.observed_s != null and ($t.observed_s - $t.requeue_last_s) <= $recent | b),
	  F_TRACE_BRIEF: "\($t.requeue) requeues and \($t.complete) completions of the op on \($t.dev), last requeue at \($t.requeue_last_s)s of \($t.observed_s)s",
	  F_TRACE_COMPLETED: (($t.complete // 0) > 0 | b),
	  F_HUNG: (.hung_task.reported | b),
	  F_WATCH_VERDICT: ($w.verdict // "none"),
	  F_WATCH_STUCK: ($w.stuck_ops // [] | tostring),
	  F_WATCH_STUCK_OK: ($w.stuck_ops == $groups | b),
	  F_WATCH_LATENCY: ($w.detection_latency_s // "" | tostring),
	  F_RWATCH_VERDICT: (.watch_requests.verdict // "none"),
	  F_RWATCH_OP: (.watch_requests.stuck_op // "none"),
	  F_RWATCH_OP_OK: (.watch_requests.stuck_op as $o | $groups | index([$o]) != null | b),
	  F_RWATCH_LATENCY: (.watch_requests.latency_from_first_refusal_s // "" | tostring),
	  F_RWATCH_GOAL: (.watch_requests.meets_goal // false | b),
	  F_STATUS_OK: (if .rqpath_status == null then "1" else
	    [$groups[] as $g | $s.ops[$g] // {} | (.completed // 0) > 0 and (.errors // 0) == 0] | all | b end),
	  F_STATUS_BRIEF: ($s.ops // .rqpath_status | tostring),
	  F_STACK_TOP: ((.submitter | obj | .stack[0]) // ""),
	  F_RQCHECK_OK: ((.rqcheck.blocks_verified // 0) > 0 and .rqcheck.bad == 0 and .rqcheck.result == "clean" | b),
	  F_RQCHECK_BAD: (.rqcheck.bad // "" | tostring)
	} | to_entries[] | "\(.key)=\(.value | @sh)"' "$RQ_DETAILS")"
}

# --- verdict ----------------------------------------------------------------

# The operation did not complete: livelocked if every signal says so.
ll_judge_stuck() {
	[ "$LL_STATE" = D ] || rq_fail "submitter state is '$LL_STATE', not D"
	# A map without a usable path requeues every request by its own policy
	# (queue_if_no_path, no_path_retry) just as the bug does: no livelock.
	[ "${LL_ACTIVE_PATHS:-0}" -gt 0 ] ||
		rq_fail "no active path in the status of $LL_DMNAME: it queues by its own policy"
	[ "$F_TRACE_LIVELOCK" = 1 ] || rq_fail "$LL_DM trace: $F_TRACE_BRIEF"
	[ "$F_HUNG" = 1 ] || rq_fail "no hung-task report for $LL_PID"
	if ll_is_rqpath; then
		if [ "$LL_WATCH_RC" != "$LL_WATCH_LIVELOCK" ]; then
			rq_fail "rqpathctl watch exit $LL_WATCH_RC ($F_WATCH_VERDICT), not $LL_WATCH_LIVELOCK (livelock)"
		elif [ "$F_WATCH_STUCK_OK" != 1 ]; then
			rq_fail "rqpathctl watch names stuck ops $F_WATCH_STUCK, not $(ll_groups "$1")"
		fi
	fi
	if [ "$LL_RWATCH_REQUIRED" = 1 ]; then
		if [ "$LL_RWATCH_RC" != "$LL_WATCH_LIVELOCK" ]; then
			rq_fail "rqpathctl watch --via trace exit $LL_RWATCH_RC ($F_RWATCH_VERDICT), not $LL_WATCH_LIVELOCK (livelock)"
		elif [ "$F_RWATCH_OP_OK" != 1 ]; then
			rq_fail "rqpathctl watch --via trace names a stuck $F_RWATCH_OP, not $(ll_groups "$1")"
		fi
	fi
	# shellcheck disable=SC2153 # F_* are set by ll_facts' eval
	[ "$F_RWATCH_GOAL" = 1 ] || [ "$F_RWATCH_VERDICT" != livelock ] ||
		ll_log "request watch: ${F_RWATCH_LATENCY}s from the first refusal, over the ${LL_RWATCH_GOAL}s goal"
	if rq_failed; then
		rq_finish error "'$LL_CMD' did not complete in ${LL_OBSERVED}s but not every signal says livelock"
		return
	fi
	reason="'$LL_CMD' did not complete in ${LL_OBSERVED}s: $F_TRACE_BRIEF; submitter D in $F_STACK_TOP, hung-task report"
	ll_is_rqpath && reason="$reason; rqpathctl watch: livelock, stuck $F_WATCH_STUCK, latency ${F_WATCH_LATENCY}s"
	[ "$F_RWATCH_VERDICT" = livelock ] && reason="$reason; watch --via trace: $F_RWATCH_OP stuck, ${F_RWATCH_LATENCY}s after its first refusal"
	rq_allow_report "task [^ ]*:$LL_PID blocked for more than" "the livelocked submitter, which this scenario waits for"
	rq_unusable "the livelocked '$LL_CMD' ($LL_PID) holds the dm device and its paths"
	rq_result livelocked "$reason"
}

# The operation completed: clean if it did what it should have.
ll_judge_done() {
	if [ "$LL_RC" != 0 ]; then
		rq_detail_file op_output /tmp/ll-op.out 12
		if [ "$1" = readwrite ] && [ "$LL_RC" = 1 ]; then
			rq_result corrupted "rqcheck found $F_RQCHECK_BAD bad blocks"
		else
			rq_fail "'$LL_CMD' failed with exit $LL_RC: $(tail -n 1 /tmp/ll-op.out)"
			rq_finish error
		fi
		return
	fi
	if ll_is_rqpath; then
		[ "$F_STATUS_OK" = 1 ] || rq_fail "the rqpath counters show no error-free completion of $(ll_groups "$1"): $F_STATUS_BRIEF"
		[ "$LL_WATCH_RC" = 0 ] || rq_fail "rqpathctl watch exit $LL_WATCH_RC ($F_WATCH_VERDICT) although the operation completed"
	fi
	if [ "$LL_RWATCH_REQUIRED" = 1 ] && [ "$LL_RWATCH_RC" = "$LL_WATCH_LIVELOCK" ]; then
		rq_fail "FALSE ALARM: rqpathctl watch --via trace said livelock ($F_RWATCH_OP) although the operation completed"
	fi
	[ "$F_TRACE_COMPLETED" = 1 ] || rq_fail "$LL_DM trace has no completion of the op ($F_TRACE_BRIEF): it never reached the dm device as $1"
	[ "$F_HUNG" = 0 ] || rq_fail "a hung-task report for a submitter that completed"
	[ "$1" != readwrite ] || [ "$F_RQCHECK_OK" = 1 ] || rq_fail "rqcheck did not verify the data"
	echo 120 > /proc/sys/kernel/hung_task_timeout_secs
	rq_phase cleanup
	ll_cleanup
	ll_log "cleaned up"
	rq_finish clean "'$LL_CMD' completed in ${LL_OP_SECONDS}s"
}

# Tear the device down after a clean run (a livelocked one cannot be).
ll_cleanup() {
	case $LL_TARGET in
	rqpath) dmsetup remove --retry "$LL_NAME" > /tmp/ll-rm.out 2>&1 ;;
	rqpathctl) rqpathctl remove "$LL_NAME" > /tmp/ll-rm.out 2>&1 ;;
	multipath) rq_multipath_stop; ! dmsetup info "$LL_DMNAME" > /tmp/ll-rm.out 2>&1 ;;
	esac || { rq_fail "cleanup: removing $LL_DMNAME failed: $(tail -n 1 /tmp/ll-rm.out)"; return 1; }
	rq_unload dm_round_robin dm_multipath dm_rqpath scsi_debug
}

# ll_scenario OP TARGET: a whole livelock scenario.  OP: discard,
# write_zeroes, flush or readwrite (the control); TARGET: rqpath,
# rqpathctl or multipath.
ll_scenario() {
	op=$1
	if ! ll_target "$2" || ! ll_check_support "$op" || ! ll_observe "$op"; then
		rq_finish error
		return
	fi
	ll_end_watch
	ll_collect "$op"
	ll_details "$op" || { rq_fail "cannot build the details (jq failed)"; rq_finish error; return; }
	ll_facts "$op"
	ll_log "evidence collected"
	if [ "$LL_DONE" = 1 ]; then
		ll_judge_done "$op"
	else
		ll_judge_stuck "$op"
	fi
}

# shellcheck shell=sh
# watchdog-no-false-alarm: `rqpathctl watch --follow` must stay quiet over a
# read/write load through dm-rqpath whose paths hand many clones back busy.
# Sourced by the scenario after tests/guest/lib.sh; uses livelock.sh's
# path setup.

# shellcheck source=tests/guest/livelock.sh
. /rqpath/livelock.sh

# Read/write load through dm-rqpath whose paths hand many clones back busy:
# queue_depth 1 on each path (a clone beyond the SCSI device's budget makes
# blk_insert_cloned_request() return BLK_STS_RESOURCE, on every stage) and
# slow commands (scsi_debug ndelay), while rqcheck keeps up to 32 requests
# in flight; blk-mq retries the refused ones every 3 ms
# (BLK_MQ_RESOURCE_DELAY) and on every completion.  Two phases:
#   heavy   20 ms commands: about 100 completions a second, busy several
#           times that;
#   sparse  0.9 s commands: a completion about every half second, busy a
#           hundred times that: close to what the watchdog must still call
#           progress (one completion per stall window is enough).
# `rqpathctl watch --follow --stall 3` runs for the whole of each phase
# (idle gaps between rqcheck's write and read passes do not end it), must
# never say livelock, and ends "quiet" when the load is over.  Beside it
# the request watch (`rqpathctl watch --via trace --follow`, the decision
# per request from the map's tracepoints) watches the same phase and must
# not say livelock either; its sessions record what it saw (refused
# requests, requeues per refused request, longest refusal streak and
# longest time without a completion) in details.watch_requests.
#
# The load it must survive is asserted, as trigger evidence (family
# "watchdog"): busy hand-backs per completion over the run at least
# WD_MIN_RATIO, and a stretch of at least WD_MIN_FLAT seconds without a
# completion while requests were in flight (the watch's max_flat_s); a run
# that did not get there is an error, not a pass.  tests/README.md quotes
# these floors; README.md the measured figures (2.88-3.95 busy hand-backs
# per completion, flat stretches of 0.80-0.81 s: the sparse phase's 0.9 s
# commands seen through 200 ms samples, against at most 0.4 s in the heavy
# phase).
WD_NAME=wdll
WD_QDEPTH=1
# ndelay (ns) and rqcheck arguments of each phase.
WD_PHASES="heavy:20000000:--size=1m:--time=6 sparse:900000000:--size=16k:--time=5"
WD_RQCHECK="--bs 4k --qd 32"
WD_WAIT=60
WD_MIN_RATIO=2.5
WD_MIN_FLAT=0.5


# <busy> and <completed> summed over all op groups of an rqpath device.
wd_counts() {
	rq_rqpath "$1" busy completed && echo "$RQ_BUSY $RQ_COMPLETED"
}

# wd_phase NAME NDELAY RQCHECK_ARGS: one load phase with the watchdog
# beside it; a line in /tmp/wd-phases.txt, its sessions in
# /tmp/wd-sessions.txt.  Returns 1 after a failed check.
wd_phase() {
	phase=$1 nd=$2 args=$3
	if ! echo "$nd" > "$LL_SD_SYSFS/ndelay" 2>/tmp/wd-nd.err || [ "$(cat "$LL_SD_SYSFS/ndelay")" != "$nd" ]; then
		rq_fail "cannot set scsi_debug ndelay=$nd: $(cat /tmp/wd-nd.err)"
		return 1
	fi
	dmsetup message "$WD_NAME" 0 reset_counters || { rq_fail "reset_counters refused"; return 1; }
	: > "/tmp/wd-watch-$phase.txt"
	# shellcheck disable=SC2086
	rqcheck $WD_RQCHECK $args --json "/tmp/wd-rqcheck-$phase.json" "/dev/mapper/$WD_NAME" > "/tmp/wd-rqcheck-$phase.txt" 2>&1 &
	pid=$!
	t0=$(rq_now)
	# One followed watch for the whole phase: the idle gaps between
	# rqcheck's write and read passes do not end it, and stopping it once
	# the load is over gives "quiet" unless it saw a livelock.
	rqpathctl watch "$WD_NAME" --follow --stall "$LL_STALL" --timeout "$WD_WAIT" \
		--json "/tmp/wd-watch-$phase.json" > "/tmp/wd-watch-$phase.txt" 2>&1 &
	wpid=$!
	rqpathctl watch "$WD_NAME" --via trace --follow --timeout "$WD_WAIT" \
		--json "/tmp/wd-rwatch-$phase.json" > "/tmp/wd-rwatch-$phase.txt" 2>&1 &
	rwpid=$!
	rq_wait "$WD_WAIT" "the $phase load" eval "! rq_alive $pid"
	load_s=$(rq_since "$t0")
	if kill -0 "$pid" 2>/dev/null; then
		rq_fail "$phase: the load did not finish within ${WD_WAIT}s"
		WD_STUCK=1
		return 1
	fi
	wait "$pid"
	rqrc=$?
	kill -0 "$rwpid" 2>/dev/null && kill -TERM "$rwpid"
	wait "$rwpid"
	echo "$phase $?" >> /tmp/wd-rsessions.txt
	stopped=0
	if kill -0 "$wpid" 2>/dev/null; then
		kill -TERM "$wpid"
		stopped=1
	fi
	wait "$wpid"
	rc=$?
	echo "$phase 1 0 $(rq_since "$t0") $rc" >> /tmp/wd-sessions.txt
	n=1
	if [ "$stopped" = 0 ] && [ "$rc" != "$LL_WATCH_LIVELOCK" ]; then
		rq_fail "$phase: rqpathctl watch ended (exit $rc) before the load did, so it did not cover the whole load"
		return 1
	fi
	maxflat=$(jq -r '.max_flat_s // empty' "/tmp/wd-watch-$phase.json" 2>/dev/null)
	echo "$phase $nd $load_s $n $rqrc $(wd_counts "$WD_NAME") ${maxflat:-null}" >> /tmp/wd-phases.txt
}

# wd_setup: dm-rqpath over the two paths, WD_QDEPTH each.
wd_setup() {
	rq_modprobe dm-rqpath || { rq_fail "modprobe dm-rqpath failed"; return 1; }
	ll_paths || return 1
	for p in "$LL_P1" "$LL_P2"; do
		echo "$WD_QDEPTH" > "/sys/block/${p##*/}/device/queue_depth"
		qd=$(cat "/sys/block/${p##*/}/device/queue_depth")
		[ "$qd" = "$WD_QDEPTH" ] || { rq_fail "$p: queue_depth is $qd, wanted $WD_QDEPTH"; return 1; }
	done
	rqpathctl create "$WD_NAME" "$LL_P1" "$LL_P2" > /tmp/wd-create.out 2>&1 ||
		{ rq_fail "rqpathctl create failed: $(tail -n 2 /tmp/wd-create.out | tr '\n' ' ')"; return 1; }
}

# The request watch's sessions into details.watch_requests; a livelock
# verdict from it is a false alarm.
wd_request_watch() {
	for ph in heavy sparse; do [ -e "/tmp/wd-rwatch-$ph.json" ] || : > "/tmp/wd-rwatch-$ph.json"; done
	jq -c --argjson livelock "$LL_WATCH_LIVELOCK" --rawfile rs /tmp/wd-rsessions.txt \
		--rawfile h /tmp/wd-rwatch-heavy.json --rawfile s /tmp/wd-rwatch-sparse.json '
	def json: try fromjson catch null;
	{heavy: ($h | json), sparse: ($s | json)} as $j |
	($rs | split("\n") | map(select(length > 0) | split(" ") | {phase: .[0], exit: (.[1] | tonumber)})) as $x |
	. + {watch_requests: {sessions: ($x | map(. + ($j[.phase] // {} | {verdict, source, fallback_reason,
	    load: (.load // null | if . == null then null else {requeues, completions, refused_requests,
	      requeues_per_refused_request, max_streak, max_streak_s, max_no_completion_s} end)}))),
	  false_alarms: ($x | map(select(.exit == $livelock)) | length)}}' "$RQ_DETAILS" > "$RQ_DETAILS.new" &&
		mv "$RQ_DETAILS.new" "$RQ_DETAILS"
	WD_REQ_ALARMS=$(jq -r '.watch_requests.false_alarms // 0' "$RQ_DETAILS")
	[ "$WD_REQ_ALARMS" = 0 ] || rq_fail "FALSE ALARM: rqpathctl watch --via trace said livelock in $WD_REQ_ALARMS session(s)"
}

wd_scenario() {
	WD_STUCK=0
	if ! wd_setup; then
		rq_finish error
		return
	fi
	: > /tmp/wd-sessions.txt
	: > /tmp/wd-phases.txt
	: > /tmp/wd-rsessions.txt
	for ph in $WD_PHASES; do
		# shellcheck disable=SC2046
		set -- $(echo "$ph" | tr ':' ' ')
		name=$1 nd=$2
		shift 2
		wd_phase "$name" "$nd" "$*" || break
	done
	echo 0 > "$LL_SD_SYSFS/ndelay" 2>/dev/null
	# All figures in one jq.
	for f in /tmp/wd-rqcheck-heavy.json /tmp/wd-rqcheck-sparse.json; do [ -e "$f" ] || : > "$f"; done
	rq_details_sync
	jq -c --arg sd "$LL_SD_PARAMS" --argjson qdepth "$WD_QDEPTH" --arg load "$WD_RQCHECK" --arg phases "$WD_PHASES" \
		--argjson stall "$LL_STALL" --argjson minratio "$WD_MIN_RATIO" --argjson livelock "$LL_WATCH_LIVELOCK" \
		--rawfile sessions /tmp/wd-sessions.txt --rawfile ph /tmp/wd-phases.txt \
		--rawfile rqh /tmp/wd-rqcheck-heavy.json --rawfile rqs /tmp/wd-rqcheck-sparse.json '
	def json: try fromjson catch null;
	def rows: split("\n") | map(select(length > 0) | split(" "));
	def ratio(b; c): if c > 0 then (b / c * 1000 | round / 1000) else null end;
	{heavy: ($rqh | json), sparse: ($rqs | json)} as $rq |
	($sessions | rows | map({phase: .[0], n: (.[1] | tonumber), start_s: (.[2] | tonumber),
	  end_s: (.[3] | tonumber), exit: (.[4] | tonumber)})) as $s |
	($ph | rows | map({phase: .[0], ndelay_ns: (.[1] | tonumber), load_s: (.[2] | tonumber),
	  watch_sessions: (.[3] | tonumber), rqcheck_exit: (.[4] | tonumber), busy: (.[5] | tonumber),
	  completed: (.[6] | tonumber), max_flat_s: (.[7] | tonumber? // null)}
	  | . + {busy_per_completion: ratio(.busy; .completed),
	    completions_per_s: (if .load_s > 0 then (.completed / .load_s * 10 | round / 10) else null end),
	    rqcheck: ($rq[.phase] | if . == null then null else {result, generations: (.generations | length),
	      blocks_verified: .totals.blocks_verified, bad: .totals.bad, read_errors: .totals.read_errors,
	      write_errors: .totals.write_errors} end)})) as $p |
	. + {
	  config: {scsi_debug: $sd, path_queue_depth: $qdepth, rqcheck: $load, phases: $phases,
	    watch_stall_s: $stall, min_ratio: $minratio},
	  phases: $p,
	  watch_sessions: ($s | length),
	  watch_exits: ($s | group_by(.exit) | map({key: (.[0].exit | tostring), value: length}) | from_entries),
	  false_alarms: ($s | map(select(.exit == $livelock)) | length),
	  bad_sessions: ($s | map(select(.exit != 0))),
	  load_s: ($p | map(.load_s) | add // 0 | . * 100 | round / 100),
	  watched_s: ($s | map(.end_s - .start_s) | add // 0 | . * 100 | round / 100),
	  busy: ($p | map(.busy) | add // 0), completed: ($p | map(.completed) | add // 0),
	  busy_per_completion: ratio($p | map(.busy) | add // 0; $p | map(.completed) | add // 0),
	  min_phase_ratio: ($p | map(.busy_per_completion // 0) | min),
	  max_flat_s: ($p | map(.max_flat_s // 0) | max)
	}' "$RQ_DETAILS" > "$RQ_DETAILS.new" && mv "$RQ_DETAILS.new" "$RQ_DETAILS"
	eval "$(jq -r '{W_ALARMS: .false_alarms, W_SESSIONS: .watch_sessions, W_RATIO: (.busy_per_completion // ""),
		W_MINRATIO: (.min_phase_ratio // ""), W_NPHASES: (.phases | length), W_LOAD: .load_s, W_FLAT: .max_flat_s,
		W_BAD: (.bad_sessions | map("\(.phase) session \(.n): exit \(.exit)") | join(", ")),
		W_RQBAD: (.phases | map(select(.rqcheck_exit != 0 or (.rqcheck.blocks_verified // 0) == 0))
		  | map("\(.phase): rqcheck exit \(.rqcheck_exit), \(.rqcheck.blocks_verified // 0) blocks verified, \(.rqcheck.bad // "?") bad") | join(", ")),
		W_CORRUPT: (.phases | map(select(.rqcheck_exit == 1)) | length)}
		| to_entries[] | "\(.key)=\(.value | tostring | @sh)"' "$RQ_DETAILS")"
	wd_request_watch
	[ "$W_ALARMS" = 0 ] || rq_fail "FALSE ALARM: rqpathctl watch said livelock in $W_ALARMS of $W_SESSIONS sessions ($W_BAD)"
	[ -z "$W_BAD" ] || [ "$W_ALARMS" != 0 ] || rq_fail "watch sessions that did not end quiet: $W_BAD"
	[ -z "$W_RQBAD" ] || rq_fail "$W_RQBAD"
	# shellcheck disable=SC2153 # W_* are set by the eval above
	[ "$W_NPHASES" = 2 ] || rq_fail "only $W_NPHASES of 2 load phases ran"
	rq_trigger watchdog busy_per_completion "${W_RATIO:-0}" "$WD_MIN_RATIO"
	rq_trigger watchdog max_flat_s "${W_FLAT:-0}" "$WD_MIN_FLAT"
	if [ "$WD_STUCK" = 0 ]; then
		rqpathctl remove "$WD_NAME" > /tmp/wd-rm.out 2>&1 || rq_fail "rqpathctl remove: $(tail -n 1 /tmp/wd-rm.out)"
		rq_unload dm_rqpath scsi_debug
	fi
	if [ "$W_CORRUPT" != 0 ] && [ "$W_ALARMS" = 0 ]; then
		rq_finish corrupted "rqcheck found corruption under the busy load"
	elif rq_failed; then
		rq_finish error
	else
		# shellcheck disable=SC2153 # set by the eval above
		rq_result clean "$W_SESSIONS followed watch sessions over ${W_LOAD}s of load, all quiet, no false alarm; busy/completed $W_RATIO (lowest phase $W_MINRATIO), longest flat ${W_FLAT}s"
	fi
}

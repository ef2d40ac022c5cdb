# shellcheck shell=sh
# rqpath guest library: sourced by the guest init and by every scenario.
# Runs under dash inside the QEMU guest, never on the host.
#
# One place for what every scenario family needs, in the manner of
# blktests' common/: recording details and failed checks, the verdict and
# everything that can overrule it (kernel reports, the merge oracle, trigger
# evidence), bounded waits, timing, the kernel log, devices, tracing, and the
# boot's main loop.  A family file (corruption.sh, livelock.sh, ...) keeps
# only what its scenarios are about.
#
# The protocol with the host harness, one line each on /dev/ttyS1:
#   RQPATH-BOOTED stage=S kernel=K cpus=N t=SECONDS
#   RQPATH-START NAME t=SECONDS
#   RQPATH-RESULT {"scenario", "stage", "verdict", "seconds", "timing", "details"}
#                      the moment the verdict is known
#   RQPATH-CHECKED NAME {...}   after the scenario's cleanup: kernel reports
#                      that came after the verdict, cleanup problems, timing
#   RQPATH-STOP NAME REASON     the guest cannot run further scenarios (a
#                      livelocked process, a cleanup that failed); the
#                      harness boots again for the rest
#   RQPATH-DONE
# The same markers go into the kernel log ("rqpath: ..."), so that the
# console shows which scenario a crash belongs to.
#
# rqpath.results=console on the kernel command line moves the protocol to
# the console, each line prefixed with RQ_CONSOLE_PREFIX: a LAVA worker
# reads one serial port, and the job has no second one
# (tests/harness/lava.py writes such jobs and reads their logs back).

RQ_RESULTS=/dev/ttyS1
RQ_CONSOLE_PREFIX='@rqpath@ '
RQ_PREFIX=
RQ_SCENARIO_DIR=/rqpath/scenarios
# shellcheck disable=SC2034 # used by the scenarios
RQ_DATA=/rqpath/data

# rq_report KIND TEXT: one protocol line to the harness.  printf, not
# echo: dash's echo turns the backslashes of JSON escapes into characters.
rq_report() { printf '%sRQPATH-%s %s\n' "$RQ_PREFIX" "$1" "$2" > "$RQ_RESULTS"; }

# Where rq_report writes: the second serial port, or with
# rqpath.results=console the console, prefixed.
rq_results_setup() {
	if [ "$(rq_cmdline_arg rqpath.results)" = console ]; then
		RQ_RESULTS=/dev/console RQ_PREFIX=$RQ_CONSOLE_PREFIX
	fi
}

# To stderr: a function's stdout may be its result.
rq_log() { echo "[rqpath $(rq_now)] $*" >&2; }

# Seconds since boot, with centiseconds.
rq_now() { cut -d' ' -f1 /proc/uptime; }
rq_interval() { echo "$1 $2" | awk '{ printf "%.2f", $1 - $2 }'; } # END START: seconds
rq_since() { rq_interval "$(rq_now)" "$1"; } # START: seconds until now

# rq_upper WORD: WORD in capitals, as the RQ_<OP>_<COUNT> variables name an
# op group.
rq_upper() { echo "$1" | tr '[:lower:]' '[:upper:]'; }

# rq_ge A B: A >= B, decimals allowed.
rq_ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 >= b + 0) }'; }

# rq_workload_seconds N: the time bound of a workload whose work is checked
# against minimum counts, or of a wait for something that must happen,
# stretched by the kernel's slowdown (a debug kernel runs its scenarios
# several times slower: tests/run's DEBUG_SLOWDOWN, passed as
# rqpath.slowdown).  N may have decimals; a whole N gives a whole number.
# A limit that is itself the check (a suspend within 2 s) is not stretched.
rq_workload_seconds() {
	awk -v s="$1" -v k="${RQ_SLOWDOWN:-1}" 'BEGIN { x = s * k; if (x == int(x)) printf "%d\n", x; else printf "%.1f\n", x }'
}

rq_cmdline_arg() {
	# shellcheck disable=SC2013 # the command line is words
	for a in $(cat /proc/cmdline); do
		case $a in "$1="*) echo "${a#*=}"; return 0 ;; esac
	done
	return 1
}

# A line in the kernel log, and on the console at loglevel 4.
rq_kmsg() { echo "<4>rqpath: $*" > /dev/kmsg; }

# --- details ------------------------------------------------------------------
# Under TCG every jq start costs most of a second, so rq_detail* only write a
# file each into $RQ_DETAILS_DIR, and one jq merges them into the JSON object
# $RQ_DETAILS at rq_result.  Code that reads or rewrites $RQ_DETAILS itself
# calls rq_details_sync first.  A counter file, not a variable, numbers the
# entries, because details are recorded from inside $(...) subshells too; a
# later detail with the same key wins.

rq_detail_put() { # KIND KEY, value on stdin
	n=$(($(cat "$RQ_DETAILS_DIR/.seq") + 1))
	echo "$n" > "$RQ_DETAILS_DIR/.seq"
	cat > "$RQ_DETAILS_DIR/$(printf %05d "$n").$1.$2"
}

rq_detail() { # KEY STRING
	printf '%s' "$2" | rq_detail_put s "$1"
}

rq_detail_json() { # KEY JSON (kept as a string if it does not parse)
	printf '%s' "$2" | rq_detail_put j "$1"
}

rq_detail_file() { # KEY FILE [MAXLINES]: the file's last lines, as a JSON array
	[ -r "$2" ] || return 0
	tail -n "${3:-40}" "$2" | rq_detail_put l "$1"
}

# Merge the recorded details into $RQ_DETAILS.
rq_details_sync() {
	# shellcheck disable=SC2016 # a jq program, not shell
	prog='$d[0]'
	i=0
	set --
	for f in "$RQ_DETAILS_DIR"/[0-9]*; do
		[ -e "$f" ] || continue
		name=${f##*/}
		kind=${name#*.}
		key=${kind#*.}
		kind=${kind%%.*}
		i=$((i + 1))
		set -- "$@" --rawfile "v$i" "$f"
		case $kind in
		s) prog="$prog + {\"$key\": \$v$i}" ;;
		j) prog="$prog + {\"$key\": (try (\$v$i | fromjson) catch \$v$i)}" ;;
		l) prog="$prog + {\"$key\": (\$v$i | split(\"\\n\") | map(select(length > 0)))}" ;;
		esac
	done
	[ $i = 0 ] && return 0
	if jq -n -c --slurpfile d "$RQ_DETAILS" "$@" "$prog" > "$RQ_DETAILS.new"; then
		mv "$RQ_DETAILS.new" "$RQ_DETAILS"
		rm -f "$RQ_DETAILS_DIR"/[0-9]*
	else
		rq_log "details: could not merge $i entries"
		return 1
	fi
}

# --- failed checks --------------------------------------------------------------
# A check that does not hold calls rq_fail "what"; the scenario goes on where
# that makes sense, so that one run reports as much as it can, and rq_finish
# turns the failures into the verdict.

rq_fail() { # WHAT
	rq_log "CHECK FAILED: $*"
	printf '%s\n' "$*" >> "$RQ_FAILS"
}

rq_failed() { [ -s "$RQ_FAILS" ]; }

# rq_finish [VERDICT [REASON]]: report VERDICT (default clean) unless a check
# failed: then `error`, with the first failure as the reason and all of them
# in failed_checks.  Corruption stays `corrupted`: what the data says counts
# more than a check that could not complete.
rq_finish() {
	verdict=${1:-clean} reason=${2:-}
	if rq_failed; then
		n=$(wc -l < "$RQ_FAILS")
		first=$(head -n 1 "$RQ_FAILS")
		[ "$n" -gt 1 ] && first="$first (and $((n - 1)) more failed checks)"
		rq_detail_file failed_checks "$RQ_FAILS" 100
		[ "$verdict" = corrupted ] || verdict=error
		reason="${reason:+$reason; }$first"
	fi
	rq_result "$verdict" "$reason"
}

# --- waiting and timing ---------------------------------------------------------
# Every wait is for a condition, with a bound: rq_wait polls CMD every 0.1 s
# until it succeeds or SECONDS pass (then it returns 1 and the caller says
# what did not happen).  The time goes into the scenario's timing as
# "wait:WHAT".  rq_sleep is for the few deliberate pauses that are
# measurements (a window in which nothing may complete), not waits.
# rq_phase NAME starts a phase of the scenario (setup, workload, verify, ...);
# the time until the next phase counts toward it.

rq_time_add() { # NAME SECONDS
	echo "$2 $1" >> "$RQ_TIMING"
}

rq_phase() { # NAME
	rq_phase_end
	echo "$1 $(rq_now)" > "$RQ_TIMING.cur"
}

rq_phase_end() {
	[ -s "$RQ_TIMING.cur" ] || return 0
	read -r _name _t0 < "$RQ_TIMING.cur"
	rq_time_add "$_name" "$(rq_since "$_t0")"
	: > "$RQ_TIMING.cur"
}

# Centiseconds since boot, without a process (rq_wait polls with it).
rq_cs() {
	read -r _up _ < /proc/uptime
	echo $((${_up%.*} * 100 + 1${_up#*.} - 100))
}

rq_wait() { # SECONDS WHAT CMD...
	# The start first and the bound from that same reading: a bound taken
	# before the start (an awk apart, long on a loaded host) gave up before
	# SECONDS had passed by the clock the wait is recorded with.
	_t0=$(rq_now)
	_end=$(echo "$_t0 $1" | awk '{ printf "%d", ($1 + $2) * 100 + 0.5 }')
	_what=$2
	shift 2
	until "$@"; do
		if [ "$(rq_cs)" -ge "$_end" ]; then
			rq_time_add "wait:$_what" "$(rq_since "$_t0")"
			return 1
		fi
		sleep 0.1
	done
	rq_time_add "wait:$_what" "$(rq_since "$_t0")"
}

rq_sleep() { # SECONDS WHY
	sleep "$1"
	rq_time_add "sleep:$2" "$1"
}

# rq_pid_state PID: its scheduler state (R, S, D, ...), empty once gone.
rq_pid_state() { sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1; }

# rq_wait_pid PID SECONDS: the exit status of PID, or 124 if it still runs.
rq_alive() { kill -0 "$1" 2>/dev/null; }
rq_wait_pid() {
	rq_wait "$2" "pid $1" eval "! rq_alive $1" || return 124
	wait "$1"
}

# The timing of the scenario so far, as JSON: seconds per phase and wait.
rq_timing_json() {
	awk '{ secs = $1; $1 = ""; k = substr($0, 2); gsub(/["\\]/, "", k); t[k] += secs } END {
		printf "{"; s = ""
		for (k in t) { printf "%s\"%s\": %.2f", s, k, t[k]; s = ", " }
		printf "}" }' "$RQ_TIMING"
}

# --- the kernel log -------------------------------------------------------------
# A scenario's kernel log is everything after its start marker.  Reports are
# the lines that mean the kernel found a bug or a hang; each one fails the
# scenario (verdict `warned`) unless the scenario named it as expected with
# rq_allow_report, which says why where it is allowed.

# The harness reads this line too, for the console outside the scenarios
# (tests/harness/guest.py): one line, an ERE that Python's re reads alike.
RQ_REPORT_RE='WARNING:|BUG:|kernel BUG at|Oops|general protection fault|Kernel panic|INFO: task .* blocked for more than|rcu: INFO:|INFO: rcu_|list_(add|del) corruption|UBSAN:|refcount_t:|kmemleak: .*suspected memory leak|ODEBUG:|INFO: trying to register non-static key|hard LOCKUP'

rq_dmesg() { # the kernel log since the scenario started
	dmesg | awk -v m="rqpath: START $RQ_SCENARIO #$RQ_SEQ" 'seen { print } index($0, m) { seen = 1 }'
}

rq_allow_report() { # ERE REASON
	printf '%s\t%s\n' "$1" "$2" >> "$RQ_ALLOWED"
}

# rq_kernel_reports: the reports since the scenario started into
# $RQ_REPORTS (unexpected) and $RQ_REPORTS.allowed; true if any unexpected.
rq_kernel_reports() {
	if ! dmesg | grep -q -F "rqpath: START $RQ_SCENARIO #$RQ_SEQ"; then
		echo "the kernel log lost the scenario's start (ring buffer wrapped)" > "$RQ_REPORTS"
		return 0
	fi
	rq_dmesg | grep -E "$RQ_REPORT_RE" > "$RQ_REPORTS.all"
	cp "$RQ_REPORTS.all" "$RQ_REPORTS"
	: > "$RQ_REPORTS.allowed"
	while IFS="$(printf '\t')" read -r re why; do
		# awk, not sed: the reason is text, and may hold sed's & or |.
		grep -E "$re" "$RQ_REPORTS" | RQ_WHY=$why awk '{ print $0 " (allowed: " ENVIRON["RQ_WHY"] ")" }' >> "$RQ_REPORTS.allowed"
		grep -v -E "$re" "$RQ_REPORTS" > "$RQ_REPORTS.tmp"
		mv "$RQ_REPORTS.tmp" "$RQ_REPORTS"
	done < "$RQ_ALLOWED"
	[ -s "$RQ_REPORTS" ]
}

# The debug kernels have kmemleak: scan at the end of every scenario, so a
# leak is reported by the scenario that made it.
rq_kmemleak_scan() {
	k=/sys/kernel/debug/kmemleak
	[ -w $k ] || return 0
	echo scan > $k 2>/dev/null
	cat $k > /tmp/rq-kmemleak.txt 2>/dev/null
	grep -c '^unreferenced object' /tmp/rq-kmemleak.txt
	echo clear > $k 2>/dev/null
}

# --- the merge oracle -------------------------------------------------------------
# guest-modules/rqpath-oracle.c counts every bio merged into a request, and records
# those merged into a request its driver had prepared (RQF_DONTPREP): the
# 6ce3dd6eec invariant.  Loaded once per boot, reset at every scenario's
# start, read at its verdict: a violation turns `clean` into `violated`.
# A scenario may reset it again between runs of its own (rq_oracle_start,
# for per-run figures): what it saw before such a reset still counts at the
# verdict (RQ_ORACLE_RUNS keeps it).

RQ_ORACLE=/sys/kernel/debug/rqpath-oracle

rq_oracle_start() {
	if [ ! -d $RQ_ORACLE ] && ! modprobe rqpath-oracle 2> /tmp/rq-oracle.err; then
		rq_log "the merge oracle did not load: $(cat /tmp/rq-oracle.err)"
		return 1
	fi
	# The first reset of a scenario drops the previous scenario's counts;
	# a later one keeps this scenario's so far for its verdict.
	if [ ! -e "$RQ_ORACLE_RUNS" ]; then
		: > "$RQ_ORACLE_RUNS"
	elif [ -r $RQ_ORACLE/report ]; then
		rq_oracle_parse $RQ_ORACLE/report >> "$RQ_ORACLE_RUNS"
	else
		echo "0 0 0 the merge oracle is not loaded" >> "$RQ_ORACLE_RUNS"
	fi
	echo 1 > $RQ_ORACLE/reset
}

# rq_oracle_parse FILE: one line "PREPARED UNATTRIBUTED MISSED WHY" from
# an oracle report, WHY being why it cannot vouch for the run (empty when
# it can).  A report without one of its keys, or with one twice, is a
# report this library cannot read: never 0 violations.
RQ_ORACLE_KEYS="front_merges back_merges prepared_merges unattributed_merges missed_probes"
rq_oracle_parse() {
	awk -v keys="$RQ_ORACLE_KEYS" '
		BEGIN { n = split(keys, k); for (i = 1; i <= n; i++) want[k[i]] = 1 }
		($1 in want) && NF == 2 && $2 ~ /^[0-9]+$/ { v[$1] = $2; seen[$1]++ }
		END {
			for (i = 1; i <= n; i++) {
				if (!seen[k[i]]) { miss = miss s k[i]; s = ", " }
				else if (seen[k[i]] > 1) { miss = miss s k[i] " (more than once)"; s = ", " }
			}
			if (miss != "") why = "the merge oracle" q "s report has no " miss
			else if (v["unattributed_merges"] > 0) why = v["unattributed_merges"] " merges into requests the oracle did not see"
			else if (v["missed_probes"] > 0) why = v["missed_probes"] " missed kretprobe instances"
			printf "%d %d %d %s\n", v["prepared_merges"], v["unattributed_merges"], v["missed_probes"], why
		}' q="'" "$1"
}

# rq_oracle_read: the oracle's report in /tmp/rq-oracle.txt (lines: "key
# N", "disk NAME requeues N merge_candidates N", "violation ...") and
# /tmp/rq-oracle.json; sets RQ_VIOLATIONS, RQ_ORACLE_BLIND (why it cannot
# vouch for the run) and RQ_ORACLE_MALFORMED (the same, when the report
# lacks a key: then no verdict can stand on it).
rq_oracle_read() {
	RQ_VIOLATIONS=0 RQ_ORACLE_BLIND="the merge oracle is not loaded" RQ_ORACLE_MALFORMED=""
	echo null > /tmp/rq-oracle.json
	[ -r $RQ_ORACLE/report ] || return 0
	cat $RQ_ORACLE/report > /tmp/rq-oracle.txt
	cat $RQ_ORACLE/report.json > /tmp/rq-oracle.json
	read -r RQ_VIOLATIONS _ _ RQ_ORACLE_BLIND <<EOF
$(rq_oracle_parse /tmp/rq-oracle.txt)
EOF
	case $RQ_ORACLE_BLIND in "the merge oracle's report has no "*) RQ_ORACLE_MALFORMED=$RQ_ORACLE_BLIND ;; esac
}

# rq_oracle_read_all: rq_oracle_read over the whole scenario, the runs
# before its own resets included (the verdict's reading).
rq_oracle_read_all() {
	rq_oracle_read
	[ -s "$RQ_ORACLE_RUNS" ] || return 0
	rq_detail_file oracle_before_resets "$RQ_ORACLE_RUNS"
	RQ_VIOLATIONS=$((RQ_VIOLATIONS + $(awk '{ n += $1 } END { print n + 0 }' "$RQ_ORACLE_RUNS")))
	_why=$(awk '{ $1 = $2 = $3 = ""; sub(/^ +/, "") } length { print; exit }' "$RQ_ORACLE_RUNS")
	[ -z "$_why" ] && return 0
	[ -z "$RQ_ORACLE_BLIND" ] && RQ_ORACLE_BLIND="$_why (before the scenario reset the oracle)"
	case $_why in
	"the merge oracle's report has no "*)
		[ -z "$RQ_ORACLE_MALFORMED" ] && RQ_ORACLE_MALFORMED="$_why (before the scenario reset the oracle)" ;;
	esac
}

# --- trigger evidence -------------------------------------------------------------
# A verdict is only worth something if the scenario fired the trigger its bug
# needs.  rq_trigger records one count and its minimum; a `clean`, `violated`
# or `livelocked` verdict whose counts fall short becomes `error`.  A
# `clean`, `violated`, `corrupted` or `livelocked` verdict with no count
# recorded at all is `error` too, unless the scenario said why it has none
# with rq_no_trigger (one that checks a tool or a table, not a bug's
# preconditions): forgetting the evidence must not pass.

rq_trigger() { # FAMILY NAME COUNT MINIMUM
	echo "$1 $2 ${3:-0} $4" >> "$RQ_TRIGGER"
}

rq_no_trigger() { # WHY
	printf '%s\n' "$*" > "$RQ_NO_TRIGGER"
}

# rq_trigger_read: details.trigger as JSON in /tmp/rq-trigger.json; sets
# RQ_TRIGGER_SHORT to what fell short.  A minimum that is not a number
# (left out, empty) is never met: "NAME has no minimum" (and the count is
# missing from details.trigger.minimum).
rq_trigger_read() {
	awk -v shortfile=/tmp/rq-trigger-short.txt 'function num(x) { return x ~ /^[0-9]+([.][0-9]+)?$/ }
		{ f = $1; c = c s "\"" $2 "\": " ($3 + 0); s = ", "
		  if (num($4)) { m = m u "\"" $2 "\": " $4; u = ", " }
		  if (!num($4)) { short = short t $2 " has no minimum"; t = ", " }
		  else if ($3 + 0 < $4 + 0) { short = short t $2 " " ($3 + 0) " < " $4; t = ", " } }
		END { if (NR) printf "{\"family\": \"%s\", \"counts\": {%s}, \"minimum\": {%s}, \"met\": %s}", f, c, m, short == "" ? "true" : "false"; else printf "null"
			print short > shortfile }' "$RQ_TRIGGER" > /tmp/rq-trigger.json
	RQ_TRIGGER_SHORT=$(cat /tmp/rq-trigger-short.txt)
}

# --- the verdict ----------------------------------------------------------------

# rq_result VERDICT [REASON]: the one way a scenario reports.  What the
# scenario says is overruled, in this order, by a kernel report it did not
# expect (`warned`), by trigger evidence that is missing or fell short
# (`error`), by a merge oracle report it cannot read (`error`), and by the
# merge oracle (`clean` becomes `violated`).  The line goes to the
# harness at once, so a result survives whatever the kernel does afterwards.
# rq_overrule VERDICT WHY: rq_result's verdict and reason replaced; the
# scenario's own verdict is kept in the details and its reason after WHY.
rq_overrule() {
	rq_detail scenario_verdict "$verdict"
	reason="$2${reason:+ (scenario: $verdict, $reason)}"
	verdict=$1
}

rq_result() {
	[ "$RQ_REPORTED" = 1 ] && { rq_log "a second verdict ($1) ignored"; return 0; }
	verdict=$1 reason=${2:-}
	rq_phase_end
	rq_oracle_read_all
	rq_detail_json oracle "$(cat /tmp/rq-oracle.json)"
	rq_trigger_read
	rq_detail_json trigger "$(cat /tmp/rq-trigger.json)"
	if rq_kernel_reports; then
		rq_detail_file kernel_reports "$RQ_REPORTS" 20
		rq_overrule warned "the kernel reported: $(head -n 1 "$RQ_REPORTS")"
	fi
	[ -s "$RQ_REPORTS.allowed" ] && rq_detail_file kernel_reports_allowed "$RQ_REPORTS.allowed" 20
	[ -s "$RQ_NO_TRIGGER" ] && rq_detail no_trigger "$(cat "$RQ_NO_TRIGGER")"
	case $verdict in
	clean|violated|corrupted|livelocked)
		if [ ! -s "$RQ_TRIGGER" ] && [ ! -s "$RQ_NO_TRIGGER" ]; then
			rq_overrule error "no trigger evidence recorded (rq_trigger), and the scenario did not say why it has none (rq_no_trigger)"
		fi ;;
	esac
	case $verdict in
	clean|violated|livelocked)
		if [ -n "$RQ_TRIGGER_SHORT" ]; then
			rq_overrule error "the trigger did not fire: $RQ_TRIGGER_SHORT"
		elif [ -n "$RQ_ORACLE_MALFORMED" ]; then
			rq_overrule error "$RQ_ORACLE_MALFORMED"
		fi ;;
	esac
	if [ "$verdict" = clean ] && [ "${RQ_VIOLATIONS:-0}" -gt 0 ]; then
		verdict=violated
		reason="$RQ_VIOLATIONS bios merged into requests the driver had prepared${reason:+; $reason}"
	elif [ "$verdict" = clean ] && [ -n "$RQ_ORACLE_BLIND" ]; then
		verdict=error
		reason="the merge oracle cannot vouch for the run: $RQ_ORACLE_BLIND"
	fi
	[ -n "$reason" ] && rq_detail reason "$reason"
	rq_details_sync
	jq -c --arg s "$RQ_SCENARIO" --arg v "$verdict" --arg st "$RQ_STAGE" \
		--argjson t "$(rq_since "$RQ_T0")" --argjson timing "$(rq_timing_json)" \
		'{scenario: $s, stage: $st, verdict: $v, seconds: $t, timing: $timing, details: .}' \
		"$RQ_DETAILS" > /tmp/rq-result.json
	rq_report RESULT "$(cat /tmp/rq-result.json)"
	rq_log "result $RQ_SCENARIO: $verdict $reason"
	RQ_REPORTED=1
	echo "$verdict" > /tmp/rq-verdict
}

# rq_unusable REASON: the scenario leaves the guest unfit for another
# scenario (a process stuck in D state holds its devices): the boot ends
# after this scenario and the harness starts another for the rest.
rq_unusable() { echo "$*" > /tmp/rq-unusable; }

# rq_dm_path_states NAME: "MAJ:MIN STATE ..." of a dm-multipath or dm-rqpath
# map's paths from its status line (A active, F failed), where both put the
# state right after the path.
rq_dm_path_states() {
	dmsetup status "$1" 2>/dev/null | awk '
		{ for (i = 1; i < NF; i++) if ($i ~ /^[0-9]+:[0-9]+$/ && $(i + 1) ~ /^[AF]$/) { printf "%s%s %s", s, $i, $(i + 1); s = " " } }
		END { print "" }'
}

# rq_dm_active_paths NAME: how many of them are active.
rq_dm_active_paths() { rq_dm_path_states "$1" | tr ' ' '\n' | grep -c '^A$'; }

# --- devices --------------------------------------------------------------------

rq_modprobe() {
	if ! modprobe "$@" 2>/tmp/rq-modprobe.err; then
		rq_log "modprobe $* failed: $(cat /tmp/rq-modprobe.err)"
		return 1
	fi
}

# rq_unload MODULE...: unload each one that is loaded; one that does not
# go is a failed check (the scenario leaked a reference to it).
rq_unload() {
	for _m; do
		grep -q "^$_m " /proc/modules || continue
		rmmod "$_m" 2> /tmp/rq-rmmod.err ||
			rq_fail "rmmod $_m failed (refcount $(awk -v m="$_m" '$1 == m { print $3 }' /proc/modules)): $(cat /tmp/rq-rmmod.err)"
	done
}

# Load scsi_debug with the given parameters; wait for its disks.
rq_scsi_debug_load() {
	# A scsi_debug left loaded would keep its old parameters: refuse.
	if [ -d /sys/module/scsi_debug ]; then
		rq_log "scsi_debug is already loaded (a previous scenario left it)"
		return 1
	fi
	rq_modprobe scsi_debug "$@" || return 1
	rq_udev_settle
	rq_wait 10 "scsi_debug disks" rq_scsi_debug_disks > /dev/null ||
		{ rq_log "scsi_debug made no disk"; return 1; }
}

# rq_scsi_debug_paths PARAM...: scsi_debug's hosts on one store (PARAMs
# with add_host=2 vpd_use_hostno=0) as two paths to one LUN: RQ_P1 RQ_P2.
rq_scsi_debug_paths() {
	rq_scsi_debug_load "$@" || { rq_fail "scsi_debug did not load ($*)"; return 1; }
	# The second host's disk may be probed a little later.
	# shellcheck disable=SC2016 # evaluated by rq_wait
	rq_wait 10 "the second scsi_debug disk" eval '[ "$(rq_scsi_debug_disks | wc -l)" -ge 2 ]'
	# shellcheck disable=SC2046
	rq_two_paths scsi_debug $(rq_scsi_debug_disks)
}

# rq_two_paths KIND DEV...: DEVs must be exactly two paths of one size;
# sets RQ_P1 RQ_P2 RQ_SECTORS.
rq_two_paths() {
	kind=$1
	shift
	if [ $# != 2 ] || [ "$(blockdev --getsz "$1")" != "$(blockdev --getsz "$2")" ]; then
		rq_fail "expected 2 $kind paths of one size, found $#: $* ($(for d; do blockdev --getsz "$d"; done | tr '\n' ' ')sectors)"
		return 1
	fi
	# shellcheck disable=SC2034 # the families'
	RQ_P1=$1 RQ_P2=$2 RQ_SECTORS=$(blockdev --getsz "$1")
}

# /dev names of the disks scsi_debug made, one per line.
rq_scsi_debug_disks() {
	found=1
	for d in /sys/block/sd*; do
		[ -e "$d/device/model" ] || continue
		case $(cat "$d/device/model") in
		scsi_debug*)
			echo "/dev/${d##*/}"
			found=0 ;;
		esac
	done
	return $found
}

# /dev names of QEMU's emulated disks (ATA or virtio-scsi "QEMU HARDDISK").
rq_qemu_disks() { # [ATA|QEMU]
	found=1
	for d in /sys/block/sd*; do
		[ -e "$d/device/model" ] || continue
		case "$(cat "$d/device/vendor") $(cat "$d/device/model")" in
		*"QEMU HARDDISK"*)
			if [ -z "${1:-}" ] || [ "$(tr -d ' ' < "$d/device/vendor")" = "$1" ]; then
				echo "/dev/${d##*/}"
				found=0
			fi ;;
		esac
	done
	return $found
}

# /dev names of the SCSI disks whose unit serial number (VPD page 0x80) is
# SERIAL: the emulated disks of qemu/hardware are told apart by it.
rq_disks_by_serial() { # SERIAL
	found=1
	for d in /sys/block/sd*; do
		[ -r "$d/device/vpd_pg80" ] || continue
		if [ "$(tail -c +5 "$d/device/vpd_pg80" | tr -d '\000 ')" = "$1" ]; then
			echo "/dev/${d##*/}"
			found=0
		fi
	done
	return $found
}

rq_devno() { cat "/sys/block/${1##*/}/dev"; } # DEV: major:minor

# rq_dm_node NAME: make sure /dev/mapper/NAME exists and print it.  Without
# udevd, dmsetup leaves node creation to "dmsetup mknodes".
rq_dm_node() {
	[ -b "/dev/mapper/$1" ] || dmsetup mknodes "$1" > /dev/null 2>&1
	[ -b "/dev/mapper/$1" ] || return 1
	echo "/dev/mapper/$1"
}

# Kernel name (dm-N) of the device-mapper device NAME.
rq_dm_blkname() {
	for d in /sys/block/dm-*; do
		if [ "$(cat "$d/dm/name" 2>/dev/null)" = "$1" ]; then
			echo "${d##*/}"
			return 0
		fi
	done
	return 1
}

rq_set_scheduler() { # DEV SCHED
	echo "$2" > "/sys/block/${1##*/}/queue/scheduler" || return 1
	grep -q "\[$2\]" "/sys/block/${1##*/}/queue/scheduler"
}

# /sys/block/DEV/stat field N: 1 reads, 5 writes, 12 discards, 16 flushes
# completed.
rq_stat_field() { awk -v f="$2" '{ print $f }' "/sys/block/${1##*/}/stat"; } # DEV N

# rq_rqpath NAME FIELD...: dm-rqpath's status fields as shell variables
# RQ_<FIELD> (rqpathctl status --fields; dm-target/README.md is the
# contract).  One reader of the status line for every scenario.
rq_rqpath() {
	_name=$1
	shift
	_fields=$(echo "$*" | tr ' ' ',')
	_out=$(rqpathctl status "$_name" --fields "$_fields" 2> /tmp/rq-rqpath.err) ||
		{ rq_log "rqpathctl status $_name: $(cat /tmp/rq-rqpath.err)"; return 1; }
	eval "$_out"
}

# rq_multipath_stop: flush every map, stop multipathd (tests/guest/multipath.sh
# starts it).
rq_multipath_stop() {
	multipathd disablequeueing maps > /dev/null 2>&1
	multipath -F > /dev/null 2>&1
	multipathd shutdown > /dev/null 2>&1
	rq_wait 5 "multipathd exit" eval "! pidof multipathd > /dev/null"
}

# --- udev -------------------------------------------------------------------------

# The guest's user-space processes on one line (pid:name), for a failure
# message that must say who else was running.
rq_processes() {
	for _d in /proc/[0-9]*; do
		# A kernel thread has no executable.
		[ -e "$_d/exe" ] || continue
		read -r _c < "$_d/comm" 2>/dev/null || continue
		printf '%s:%s ' "${_d#/proc/}" "$_c"
	done
}

# Wait for udev's queue when it runs; otherwise for devtmpfs, which needs
# nothing.
rq_udev_settle() {
	[ -e /run/udev/control ] || return 0
	_t0=$(rq_now)
	udevadm settle --timeout=30
	rq_time_add "wait:udev settle" "$(rq_since "$_t0")"
}

rq_udev_start() {
	[ -e /run/udev/control ] && return 0
	unset DM_DISABLE_UDEV
	/lib/systemd/systemd-udevd --daemon --resolve-names=never 2>/tmp/udevd.err ||
		{ rq_log "udevd failed: $(cat /tmp/udevd.err)"; return 1; }
	udevadm trigger --action=add --type=subsystems
	udevadm trigger --action=add --type=devices
	rq_udev_settle
}

# udevd and its workers, which systemd 252 renames "(udev-worker)".
rq_udev_running() { pidof systemd-udevd '(udev-worker)' > /dev/null; }

# Stop udevd and wait for it and its workers to be gone: a worker left
# probing would read the next scenario's fresh devices behind its back.
# Called by rq_cleanup; what survives is a cleanup problem.
rq_udev_stop() {
	[ -e /run/udev/control ] || rq_udev_running || return 0
	udevadm settle --timeout=10 > /dev/null 2>&1
	udevadm control --exit > /dev/null 2>&1
	# The processes pidof sees are the ones we wait for: kill exactly those.
	# shellcheck disable=SC2046 # one pid per word
	kill -KILL $(pidof systemd-udevd '(udev-worker)') 2>/dev/null
	rm -rf /run/udev
	rq_wait 10 "udevd exit" eval '! rq_udev_running' && return 0
	for _p in $(pidof systemd-udevd '(udev-worker)'); do
		echo "udevd still running after its stop: pid $_p $(grep '^State' "/proc/$_p/status" 2>/dev/null) wchan $(cat "/proc/$_p/wchan" 2>/dev/null)" >> /tmp/rq-cleanup.txt
	done
}

# --- tracing ----------------------------------------------------------------------

RQ_TRACE=/sys/kernel/tracing

rq_trace_start() { # EVENT...
	echo 0 > $RQ_TRACE/tracing_on
	echo > $RQ_TRACE/trace
	echo 16384 > $RQ_TRACE/buffer_size_kb
	for e in "$@"; do
		echo 1 > "$RQ_TRACE/events/block/$e/enable" || return 1
	done
	echo 1 > $RQ_TRACE/tracing_on
}

rq_trace_stop() { # OUTFILE
	echo 0 > $RQ_TRACE/tracing_on
	cat $RQ_TRACE/trace > "$1"
	for e in "$RQ_TRACE"/events/block/*/enable; do echo 0 > "$e"; done
	for e in "$RQ_TRACE"/events/block/*/filter; do echo 0 > "$e"; done
	echo > $RQ_TRACE/trace
}

# --- one scenario -------------------------------------------------------------------

# rq_scenario_begin NAME: a fresh record (details, failed checks, timing,
# trigger counts, allowed reports) and the start markers.
rq_scenario_begin() {
	RQ_SCENARIO=$1
	RQ_SEQ=$((RQ_SEQ + 1))
	RQ_DETAILS=/tmp/rq-details.json
	RQ_DETAILS_DIR=/tmp/rq-details.d
	RQ_FAILS=/tmp/rq-fails.txt
	RQ_TIMING=/tmp/rq-timing.txt
	RQ_TRIGGER=/tmp/rq-trigger.txt
	RQ_ORACLE_RUNS=/tmp/rq-oracle-runs.txt
	RQ_NO_TRIGGER=/tmp/rq-no-trigger.txt
	RQ_ALLOWED=/tmp/rq-allowed.txt
	RQ_REPORTS=/tmp/rq-reports.txt
	echo '{}' > "$RQ_DETAILS"
	rm -rf "$RQ_DETAILS_DIR" /tmp/rq-verdict /tmp/rq-unusable "$RQ_ORACLE_RUNS"
	mkdir -p "$RQ_DETAILS_DIR"
	echo 0 > "$RQ_DETAILS_DIR/.seq"
	for f in "$RQ_FAILS" "$RQ_TIMING" "$RQ_TIMING.cur" "$RQ_TRIGGER" "$RQ_NO_TRIGGER" "$RQ_ALLOWED" "$RQ_REPORTS"; do
		: > "$f"
	done
	RQ_REPORTED=0
	RQ_T0=$(rq_now)
	export RQ_SCENARIO RQ_SEQ RQ_DETAILS RQ_DETAILS_DIR RQ_FAILS RQ_TIMING RQ_TRIGGER RQ_NO_TRIGGER RQ_ORACLE_RUNS RQ_ALLOWED RQ_REPORTS RQ_T0
	rq_kmsg "START $RQ_SCENARIO #$RQ_SEQ"
	rq_report START "$RQ_SCENARIO t=$RQ_T0"
	rq_log "=== scenario $RQ_SCENARIO on stage $RQ_STAGE"
}

rq_run_scenario() { # NAME
	rq_scenario_begin "$1"
	case $RQ_SCENARIO in
	blktests:*) script=/rqpath/blktests.sh ;;
	explore:*) script=/rqpath/explore.sh ;;
	*) script=$RQ_SCENARIO_DIR/$RQ_SCENARIO.sh ;;
	esac
	if [ ! -r "$script" ]; then
		rq_result error "no such scenario in the guest image"
	elif ! rq_oracle_start; then
		rq_result error "the merge oracle did not load: $(cat /tmp/rq-oracle.err)"
	else
		# Each scenario runs in a subshell so that its variables, traps
		# and working directory cannot leak into the next one.
		(
			rq_phase setup
			# shellcheck source=/dev/null
			. "$script"
			case $RQ_SCENARIO in
			blktests:*) bt_scenario "${RQ_SCENARIO#blktests:}" ;;
			explore:*) ex_scenario "$RQ_SCENARIO" ;;
			*) scenario_run ;;
			esac
			[ "$RQ_REPORTED" = 1 ] || rq_result error "scenario ended without a verdict"
		)
	fi
	[ -e /tmp/rq-verdict ] || rq_result error "scenario ended without a verdict"
	t_clean=$(rq_now)
	rq_cleanup
	rq_check_after "$(rq_since "$t_clean")"
}

# After the cleanup: what the kernel reported since the verdict, what the
# cleanup could not undo.  A report here fails the scenario (the harness
# turns its verdict into `warned`); a cleanup that failed ends the boot.
rq_check_after() { # CLEANUP_SECONDS
	n_at_verdict=$(wc -l < "$RQ_REPORTS")
	rq_kernel_reports
	leaks=$(rq_kmemleak_scan)
	# Reports are in log order: the ones after the verdict's come last.
	tail -n +"$((n_at_verdict + 1))" "$RQ_REPORTS" > /tmp/rq-reports-after.txt
	if [ "${leaks:-0}" -gt 0 ]; then
		echo "kmemleak: $leaks new suspected memory leaks" >> /tmp/rq-reports-after.txt
		grep -A 12 '^unreferenced object' /tmp/rq-kmemleak.txt | head -n 40 > /tmp/rq-kmemleak-head.txt
	fi
	# allowed_reports: the patterns of rq_allow_report, for the harness's
	# reading of the console after this check (the gap the scenario leaves).
	jq -n -c --rawfile r /tmp/rq-reports-after.txt --rawfile c /tmp/rq-cleanup.txt \
		--rawfile k /tmp/rq-kmemleak-head.txt --rawfile a "$RQ_ALLOWED" --argjson s "$1" \
		'def lines: split("\n") | map(select(length > 0));
		{new_reports: ($r | lines), cleanup_problems: ($c | lines), kmemleak: ($k | lines), cleanup_seconds: $s,
		 allowed_reports: ($a | lines | map(split("\t")[0]))}' \
		> /tmp/rq-checked.json 2>/dev/null || echo '{"new_reports": ["the post-cleanup check failed"]}' > /tmp/rq-checked.json
	rq_report CHECKED "$RQ_SCENARIO $(cat /tmp/rq-checked.json)"
	rq_kmsg "CHECKED $RQ_SCENARIO #$RQ_SEQ"
	if [ -e /tmp/rq-unusable ]; then
		RQ_STOP="$(cat /tmp/rq-unusable)"
	elif [ -s /tmp/rq-cleanup.txt ]; then
		RQ_STOP="cleanup after $RQ_SCENARIO: $(head -n 1 /tmp/rq-cleanup.txt)"
	fi
}

# Leave the guest as a scenario found it, whatever the scenario did: stop
# what it may have left running, remove its dm devices, unload its modules.
# What cannot be undone goes into /tmp/rq-cleanup.txt: the harness reports
# it, and the boot ends so that the next scenario starts in a fresh guest.
rq_cleanup() {
	: > /tmp/rq-cleanup.txt
	: > /tmp/rq-kmemleak-head.txt
	for p in rqcheck fio rqpathctl dd blkdiscard; do
		pkill -KILL -x "$p" 2>/dev/null
	done
	pidof multipathd > /dev/null && rq_multipath_stop
	# udevd's probes (blkid) open new devices, move their counters and
	# hold modules: the next scenario starts without it unless it starts it.
	rq_udev_stop
	grep -E ' /mnt' /proc/mounts | while read -r _ mnt _; do umount "$mnt" 2>/dev/null; done
	for d in /sys/block/dm-*/dm/name; do
		[ -e "$d" ] || continue
		dmsetup message "$(cat "$d")" 0 fail_if_no_path > /dev/null 2>&1
	done
	dmsetup remove_all > /dev/null 2>&1
	# The schedulers too, off every disk that stays: once loaded,
	# mq-deadline would be the default of every new single-queue disk
	# (qemu/rqpath.config).  Not after a scenario that left the guest
	# unusable: a switch freezes the queue, which waits for the request
	# that never completes, and the boot ends anyway.
	if [ ! -e /tmp/rq-unusable ]; then
		for q in /sys/block/*/queue/scheduler; do
			grep -q '\[none\]' "$q" 2>/dev/null || echo none > "$q" 2>/dev/null
		done
	fi
	for m in dm_rqpath dm_round_robin dm_multipath scsi_debug mq_deadline kyber_iosched bfq; do
		if [ -d "/sys/module/$m" ] && ! rmmod "$m" 2>/dev/null; then
			echo "cannot unload $m" >> /tmp/rq-cleanup.txt
		fi
	done
	dmsetup ls 2>/dev/null | grep -v '^No devices' | while read -r name _; do
		echo "device-mapper device $name left" >> /tmp/rq-cleanup.txt
	done
}

# --- the boot -------------------------------------------------------------------------

# The drivers of the guest's hardware, for a kernel that has them as modules
# (a distribution kernel; ours build them in).
RQ_BOOT_DRIVERS="virtio_pci virtio_scsi sd_mod sg ahci ext4 dm_mod loop"

rq_boot_main() {
	# Until a scenario starts udevd, libdevmapper must make the
	# /dev/mapper nodes itself.
	export DM_DISABLE_UDEV=1
	for m in $RQ_BOOT_DRIVERS; do
		[ -d "/sys/module/$m" ] || modprobe -q "$m" 2>/dev/null
	done
	RQ_STAGE=$(rq_cmdline_arg rqpath.stage || echo unknown)
	RQ_SLOWDOWN=$(rq_cmdline_arg rqpath.slowdown) || RQ_SLOWDOWN=1
	case $RQ_SLOWDOWN in ''|*[!0-9]*) RQ_SLOWDOWN=1 ;; esac
	export RQ_STAGE RQ_SLOWDOWN
	rq_results_setup
	RQ_SEQ=0 RQ_STOP=""
	rq_report BOOTED "stage=$RQ_STAGE kernel=$(uname -r) cpus=$(grep -c ^processor /proc/cpuinfo) t=$(rq_now)"
	rq_log "booted stage $RQ_STAGE, $(uname -r), $(grep -c ^processor /proc/cpuinfo) cpus, $(rq_now)s"
	for s in $(rq_cmdline_arg rqpath.scenarios | tr ',' ' '); do
		rq_run_scenario "$s"
		if [ -n "$RQ_STOP" ]; then
			rq_report STOP "$s $RQ_STOP"
			rq_log "stopping after $s: $RQ_STOP"
			break
		fi
	done
	if [ "$(rq_cmdline_arg rqpath.shell)" = 1 ]; then
		setsid cttyhack sh
	fi
	rq_report DONE ""
	rq_log "all scenarios done"
}

# shellcheck shell=sh
# The targeted reproducer of the 6ce3dd6eec corruption, shared by the
# corruption scenarios.  See tests/README.md, "How the corruption is
# targeted", for why these parameters keep a prepared request in the
# software queue long enough for a bio to be front-merged into it.

# scsi_debug, one host, one LUN, one hardware queue:
#   opts=0x8000 every_nth=50  every 50th command, queuecommand() returns
#                             SCSI_MLQUEUE_HOST_BUSY after the midlayer
#                             prepared it (RQF_DONTPREP): a failed direct
#                             issue that leaves the host blocked
#   ndelay=1000000            each command takes 1 ms, so the host stays
#                             blocked while earlier commands are in flight
#   statistics=1              every_nth counts commands only with it on
RQ_BUSY_DISK_PARAMS="dev_size_mb=64 statistics=1 opts=0x8000 every_nth=50 ndelay=1000000"

# The workload: windows of 16 blocks from the top of the region down; in
# each window the 8 even blocks are submitted in one io_uring_enter() (a
# plug), then the 8 odd ones, each of which lies right in front of an even
# block submitted just before.
RQ_TARGETED_ARGS="--bs 4k --size 8m --order interleave --stride 2 --window 16 --batch 8 --qd 32 --prefill --passes 16 --time 90 --cpu 1"

# shellcheck disable=SC2120 # extra scsi_debug parameters are optional
rq_busy_disk_load() {
	# shellcheck disable=SC2086
	rq_scsi_debug_load $RQ_BUSY_DISK_PARAMS "$@"
}

RQ_TRACE_EVENTS="block_rq_issue block_rq_requeue block_rq_insert block_rq_complete block_bio_frontmerge block_bio_backmerge"

# rq_targeted_workload DEV: run rqcheck under block tracing; record the
# figures, the bad blocks and the trace lines that explain them.  Prints
# the verdict (clean, corrupted or error) for the caller to report.
rq_targeted_workload() {
	dev=$1
	rq_detail scsi_debug_params "$RQ_BUSY_DISK_PARAMS"
	rq_detail rqcheck_args "$RQ_TARGETED_ARGS"
	# shellcheck disable=SC2086
	if ! rq_trace_start $RQ_TRACE_EVENTS; then
		rq_detail reason "cannot enable block tracepoints"
		echo error
		return
	fi
	# shellcheck disable=SC2086
	rqcheck $RQ_TARGETED_ARGS --json /tmp/rqcheck.json "$dev" > /tmp/rqcheck.txt 2>&1
	rc=$?
	rq_trace_stop /tmp/trace.txt
	rq_rqcheck_verdict "$rc" /tmp/rqcheck.json /tmp/rqcheck.txt /tmp/trace.txt
}

# rq_rqcheck_verdict EXIT JSON TEXT TRACE: details and verdict of one run.
rq_rqcheck_verdict() {
	rc=$1 json=$2 text=$3 trace=$4
	rq_detail_json rqcheck_exit "$rc"
	if [ -s "$json" ] && jq -e . "$json" > /dev/null 2>&1; then
		rq_detail_json rqcheck "$(jq -c '{result, seed, first_bad_seconds, workload_seconds,
			generations: (.generations | length), totals: .totals,
			bad_blocks: [.bad_blocks[:16][] | {lba, lba_last, class, reread_class, location}]}' "$json")"
	fi
	case $rc in
	0)	echo clean ;;
	1)	rq_trace_evidence "$json" "$trace"
		rq_detail reason "$(jq -r '"\(.totals.bad) bad blocks, first after \(.first_bad_seconds)s"' "$json")"
		echo corrupted ;;
	*)	rq_detail_file rqcheck_output "$text" 20
		rq_detail reason "rqcheck failed (exit $rc)"
		echo error ;;
	esac
}

# For the first bad blocks, the block tracepoint lines that explain them:
# the request for the block behind the lost one (sector "next") failing to
# issue and being requeued, the lost bio's front merge into it, and the
# merged request's issue and completion, which credits the front bio with
# the bytes of the original part.
rq_trace_evidence() {
	json=$1 trace=$2
	[ -s "$trace" ] || return 0
	jq -r '.bad_blocks[:4][] | "\(.lba) \(.lba_last)"' "$json" > /tmp/bad-lbas.txt
	: > /tmp/evidence.txt
	while read -r first last; do
		next=$((last + 1))
		echo "--- bad sectors $first..$last; the request it merged into started at $next" >> /tmp/evidence.txt
		# the last front merge of the lost bio, and the events around it
		awk -v first="$first" -v next_="$next" '
			/block_bio_frontmerge/ && index($0, " " first " + ") { fm = NR }
			{ line[NR] = $0 }
			END {
				if (!fm) { print "(no front merge of this sector in the trace)"; exit }
				for (i = fm - 400; i <= fm + 400; i++) {
					if (i < 1 || !(i in line)) continue
					l = line[i]
					if (index(l, " " first " + ") || index(l, " " next_ " + ")) {
						if (i < fm && l !~ /block_rq_requeue|block_rq_issue/) continue
						sub(/^ +/, "", l); print l
					}
				}
			}' "$trace" | tail -n 8 >> /tmp/evidence.txt
	done < /tmp/bad-lbas.txt
	rq_detail_file trace_evidence /tmp/evidence.txt 60
	rq_detail_json trace_counts "$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^block_/) { sub(":", "", $i); n[$i]++ } }
		END { printf "{"; s = ""; for (e in n) { printf "%s\"%s\": %d", s, e, n[e]; s = ", " } printf "}" }' "$trace")"
}

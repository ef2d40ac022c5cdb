# shellcheck shell=sh
# rqpath's blktests export (blktests/ at the top of the repository), run by
# blktests' own ./check in the guest: one scenario per test, named
# "blktests:GROUP/NAME" by the test's name in blktests/, whatever number
# blktests/rqpath-overlay gave it in the checkout (details.blktests_test;
# tests/run --blktests DIR adds the layer with the checkout and the overlay
# to the guest image).
#
#   pass     clean, when the test's evidence shows the trigger fired: the
#            counts it wrote to its .full (rqpath-run's BLKTESTS-EVIDENCE
#            line), each at least 1 (block test: requeues on the
#            scsi_debug disk and merges; dm test: each operation's requeues
#            on dm-N).  A pass without them is `error`.
#   fail     the bug's verdict only with the test's own signature of the
#            bug: the block test's corruption report (merge_into_prepared's
#            "pass N: M of K blocks bad") is `corrupted`; the dm test's
#            "did not complete ... survived SIGKILL" with dm-N still
#            requeuing (at least BT_STUCK_REQUEUES times) is `livelocked`;
#            the boot ends after it if the test says what it left behind
#            (failing both paths did not end the operation).  Any other failure (exit status,
#            timeout, output that differs otherwise) is `error`.  blktests'
#            failure output goes into the details.
#   not run  skipped, with blktests' reasons

BT_RUN=${BT_RUN:-/blktests/rqpath-run}
# A livelocked operation is retried every few ms for the test's 30 s bound
# (about 3,000 times); a fixed kernel needs 10-56 tries.
BT_STUCK_REQUEUES=100

# bt_count KEY: KEY's count in the test's evidence, empty if it has none.
bt_count() {
	echo "$bt_evidence" | tr ' ' '\n' | sed -n "s/^$1=\\([0-9][0-9]*\\)\$/\\1/p" | tail -n 1
}

# bt_keys TEST: the counts a pass of TEST must show.
bt_keys() {
	case $1 in
	block/merge-prepared) echo requeues merges ;;
	dm/mpath-busy-ops) echo discard_requeues write_zeroes_requeues flush_requeues ;;
	*) echo "$bt_evidence" | tr ' ' '\n' | sed -n 's/=.*//p' ;;
	esac
}

# bt_signature TEST: the bug's verdict if blktests' failure output
# (/tmp/bt-failure.txt) has TEST's own signature of it, else nothing.  The
# diff's added lines are what the test printed that a fixed kernel does not.
bt_signature() {
	case $1 in
	block/merge-prepared)
		grep -Eq '^\+pass [0-9]+: [0-9]+ of [0-9]+ blocks bad' /tmp/bt-failure.txt &&
			echo corrupted ;;
	dm/mpath-busy-ops)
		line=$(grep -E '^\+[a-z-]+: did not complete within [0-9]+ s \([^ ]+ requeued it [0-9]+ times\); .* survived SIGKILL$' \
			/tmp/bt-failure.txt | head -n 1)
		[ -n "$line" ] || return 0
		op=$(echo "$line" | sed 's/^+\([a-z-]*\):.*/\1/' | tr - _)
		rq_trigger blktests stuck_requeues "$(bt_count "${op}_requeues")" "$BT_STUCK_REQUEUES"
		echo livelocked ;;
	esac
}

bt_scenario() { # TEST
	test=$1
	[ -x "$BT_RUN" ] || { rq_result skipped "the guest image has no blktests (tests/run --blktests DIR)"; return; }
	rq_phase workload
	"$BT_RUN" "$test" > /tmp/bt-out.txt 2>&1
	rq_phase evidence
	number=$(sed -n "s|^BLKTESTS-TEST $test ||p" /tmp/bt-out.txt | tail -n 1)
	[ -n "$number" ] && rq_detail blktests_test "$number"
	line=$(grep "^BLKTESTS-RESULT $test " /tmp/bt-out.txt | tail -n 1)
	[ -n "$line" ] || { rq_detail_file rqpath_run /tmp/bt-out.txt 30; rq_result error "blktests reported nothing for $test"; return; }
	# shellcheck disable=SC2086 # the line is words
	set -- $line
	status=$3 secs=$4
	shift 4
	reason="$*"
	rq_detail_json blktests_seconds "$secs"
	bt_evidence=$(awk -v t="$test" '$1 == "BLKTESTS-EVIDENCE" && $2 == t { $1 = $2 = ""; e = substr($0, 3) } END { print e }' /tmp/bt-out.txt)
	rq_detail blktests_evidence "$bt_evidence"
	sed -n "/^BLKTESTS-OUTPUT-BEGIN $(echo "$test" | sed 's|/|\\/|')\$/,/^BLKTESTS-OUTPUT-END/p" /tmp/bt-out.txt > /tmp/bt-failure.txt
	[ -s /tmp/bt-failure.txt ] && rq_detail_file blktests_output /tmp/bt-failure.txt 80
	case $status in
	pass)
		keys=$(bt_keys "$test")
		[ -n "$keys" ] || { rq_result error "blktests $test passed without its evidence (no counts in BLKTESTS-EVIDENCE)"; return; }
		for key in $keys; do
			rq_trigger blktests "$key" "$(bt_count "$key")" 1
		done
		rq_result clean "blktests $test passed in ${secs}s" ;;
	not-run)
		rq_result skipped "blktests did not run $test: $reason" ;;
	fail)
		# What it saw, for the record; the verdict's own count is below.
		for key in $(echo "$bt_evidence" | tr ' ' '\n' | sed -n 's/=.*//p'); do
			rq_trigger blktests "$key" "$(bt_count "$key")" 0
		done
		case $reason in
		"output differs"*) verdict=$(bt_signature "$test") ;;
		*) verdict="" ;;
		esac
		case $test in
		dm/*)	# Whatever the verdict: a stuck operation holds its devices,
			# unless failing the paths ended it.
			if grep -q 'survived SIGKILL' /tmp/bt-failure.txt; then
				rq_allow_report "task (blkdiscard|sync):[0-9]+ blocked for more than" "the operation blktests $test reports stuck"
			fi
			if grep -q '^+left behind:' /tmp/bt-failure.txt; then
				rq_unusable "blktests $test leaves its operation stuck in D state"
			fi ;;
		esac
		case $reason in
		"./check did not finish"*) rq_unusable "blktests $test did not finish: ./check was killed" ;;
		esac
		if [ -n "$verdict" ]; then
			rq_result "$verdict" "blktests $test failed: $reason"
		else
			rq_result error "blktests $test failed without its signature of the bug: $reason"
		fi ;;
	*)	rq_detail_file rqpath_run /tmp/bt-out.txt 30
		rq_result error "blktests $test: unknown result '$status'" ;;
	esac
}

# shellcheck shell=sh
# rqpath's blktests export (blktests/ at the top of the repository), run by
# blktests' own ./check in the guest: one scenario per test, named
# "blktests:GROUP/NAME" by the test's name in blktests/, whatever number
# blktests/rqpath-overlay gave it in the checkout (details.blktests_test;
# tests/run --blktests DIR adds the layer with the checkout and the overlay
# to the guest image).
#
#   pass     clean: the tests check their own preconditions (the block test
#            reads scsi_debug's busy injection back; the dm test fails unless
#            each operation was requeued on the dm device at least once),
#            so a pass means the trigger fired
#   fail     the bug's verdict: corrupted for block/*, livelocked for dm/*
#            (the dm test's operation cannot be killed: the boot ends after it),
#            with blktests' failure output in the details
#   not run  skipped, with blktests' reasons

BT_RUN=/blktests/rqpath-run

bt_scenario() { # TEST
	test=$1
	[ -x $BT_RUN ] || { rq_result skipped "the guest image has no blktests (tests/run --blktests DIR)"; return; }
	rq_phase workload
	$BT_RUN "$test" > /tmp/bt-out.txt 2>&1
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
	sed -n "/^BLKTESTS-OUTPUT-BEGIN $(echo "$test" | sed 's|/|\\/|')\$/,/^BLKTESTS-OUTPUT-END/p" /tmp/bt-out.txt > /tmp/bt-failure.txt
	[ -s /tmp/bt-failure.txt ] && rq_detail_file blktests_output /tmp/bt-failure.txt 80
	case $status in
	pass)
		rq_trigger blktests passed_its_own_preconditions 1 1
		rq_result clean "blktests $test passed in ${secs}s" ;;
	not-run)
		rq_result skipped "blktests did not run $test: $reason" ;;
	fail)
		rq_trigger blktests ran 1 1
		case $test in
		dm/*)	rq_allow_report "task blkdiscard:[0-9]+ blocked for more than" "the operation blktests $test reports stuck"
			rq_unusable "blktests $test leaves its operation stuck in D state"
			rq_result livelocked "blktests $test failed: $reason" ;;
		*)	rq_result corrupted "blktests $test failed: $reason" ;;
		esac ;;
	*)	rq_detail_file rqpath_run /tmp/bt-out.txt 30
		rq_result error "blktests $test: unknown result '$status'" ;;
	esac
}

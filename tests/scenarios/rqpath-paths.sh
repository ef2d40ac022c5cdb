# shellcheck shell=sh
# rqpath scenario: rqpath-paths
# summary: dm-rqpath path failover: fail/reinstate under I/O, queue_if_no_path, fail_if_no_path, a path going offline
# expect: clean
# boot: shared
# timeout: 120
# shellcheck disable=SC2016 # conditions in single quotes are eval'ed later

# shellcheck source=tests/guest/rqpath.sh
. /rqpath/rqpath.sh

DEV=/dev/mapper/rqp-p

scenario_run() {
	rqp_init
	rq_no_trigger "checks the target's path failover (each step a failed check if it does not happen), the same on every stage: no bug's trigger to fire"
	if rqp_setup && rqp_run "dmsetup create" rqp_dmsetup create rqp-p \
		--table "0 $RQP_SECTORS rqpath 2 $RQP_P1 $RQP_P2"; then
		check_fail_reinstate_under_io &&
			check_queue_if_no_path &&
			check_fail_if_no_path &&
			check_offline_path
		rqp_run "dmsetup remove" rqp_dmsetup remove rqp-p
	fi
	rqp_finish clean
}

# fail_window HOW N: path N (1 or 2) is failed by HOW, I/O goes on for a
# while, then the path is reinstated the same way.  Over the window the
# failed path must get no clone and the other one must (if the I/O still
# ran at its end).
fail_window() {
	how=$1 n=$2 other=$((3 - $2))
	p='' m='' st='' d0='' d1='' o0='' o1=''
	eval "p=\$RQP_P$n m=\$RQP_M$n"
	case $how in
	rqpathctl) rqp_run "rqpathctl fail-path $p" rqpathctl fail-path rqp-p "$p" || return 1 ;;
	dmsetup) rqp_run "dmsetup message fail_path $m" dmsetup message rqp-p 0 fail_path "$m" || return 1 ;;
	esac
	rqp_st rqp-p || return 1
	eval "st=\$RQ_PATH${n}_STATE d0=\$RQ_PATH${n}_DISPATCHED o0=\$RQ_PATH${other}_DISPATCHED"
	[ "$st" = F ] || rq_fail "$how fail_path: path $n ($p) not shown failed (status: $(rqp_st_brief))"
	# The window: until the other path took 16 more clones (or the I/O ended).
	rqp_st_wait rqp-p 5 "[ \"\$RQ_PATH${other}_DISPATCHED\" -ge $((o0 + 16)) ] || ! rqp_running $io"
	running=0
	rqp_running "$io" && running=1
	rqp_st rqp-p || return 1
	eval "d1=\$RQ_PATH${n}_DISPATCHED o1=\$RQ_PATH${other}_DISPATCHED"
	[ "$d1" = "$d0" ] || rq_fail "failed path $n ($p) got $((d1 - d0)) clones while failed"
	if [ $running = 1 ] && [ "$o1" -le "$o0" ]; then
		rq_fail "path $other got no clone while path $n was failed and I/O ran (status: $(rqp_st_brief))"
	fi
	case $how in
	rqpathctl) rqp_run "rqpathctl reinstate-path $p" rqpathctl reinstate-path rqp-p "$p" || return 1 ;;
	# By name here, by number above: the target takes both.
	dmsetup) rqp_run "dmsetup message reinstate_path $p" dmsetup message rqp-p 0 reinstate_path "$p" || return 1 ;;
	esac
	rqp_st rqp-p && rqp_st_check "$how reinstate_path: path $n ($p) not active again" \
		"[ \"\$RQ_PATH${n}_STATE\" = A ]"
	windows=$((windows + 1))
}

# Paths failed and reinstated by message, alternately, while rqcheck writes
# and verifies generation after generation: no I/O error, no bad block.
# rqcheck runs for a few seconds at a time and is started again as long as
# windows remain, so the number of windows does not depend on the speed of
# the guest.
WINDOWS=6
check_fail_reinstate_under_io() {
	rqp_run "reset_counters" dmsetup message rqp-p 0 reset_counters
	io='' windows=0 fails1=0 fails2=0 runs=0
	while [ "$windows" -lt $WINDOWS ]; do
		if ! rqp_running "$io"; then
			[ -n "$io" ] && { rq_wait_pid "$io" 0; rqp_rqcheck_done "io$runs" "I/O while paths failed and came back (run $runs)" $?; }
			runs=$((runs + 1))
			rqp_st rqp-p
			m0=$RQ_MAPPED
			rqp_bg io "/tmp/rqp-io$runs.txt" rqcheck --bs 4k --size 16m --qd 16 --time 2 --seed 3003 \
				--json "/tmp/rqp-io$runs.json" $DEV
			rqp_st_wait rqp-p 10 "[ \"\$RQ_MAPPED\" -gt $m0 ]"
		fi
		if [ $((windows % 2)) = 0 ]; then
			fail_window rqpathctl 1 || break
			fails1=$((fails1 + 1))
		else
			fail_window dmsetup 2 || break
			fails2=$((fails2 + 1))
		fi
	done
	rq_wait_pid "$io" 30
	rqp_rqcheck_done "io$runs" "I/O while paths failed and came back (run $runs)" $?
	rq_detail fail_windows "$windows fail/reinstate windows under I/O (path 1: $fails1 by rqpathctl, path 2: $fails2 by dmsetup message), $runs rqcheck runs"
	[ "$windows" = $WINDOWS ] || rq_fail "only $windows of $WINDOWS fail/reinstate windows ran"
	rqp_st rqp-p || return 1
	rq_detail status_after_failovers "$ST_line"
	rqp_st_check "after the failovers: fail counts are not $fails1 and $fails2" \
		'[ "$RQ_PATH1_FAIL_COUNT" = "$fails1" ] && [ "$RQ_PATH2_FAIL_COUNT" = "$fails2" ]'
	rqp_st_check "after the failovers: paths not both active" '[ "$RQ_PATH1_STATE$RQ_PATH2_STATE" = AA ]'
	rqp_st_check "after the failovers: in flight, errors, or mapped != completed + busy" \
		'[ "$RQ_IN_FLIGHT" = 0 ] && [ "$RQ_ERRORS" = 0 ] && [ "$RQ_MAPPED" = $((RQ_COMPLETED + RQ_BUSY)) ]'
	rqp_st_check "after the failovers: dispatched does not add up to mapped" \
		'[ $((RQ_PATH1_DISPATCHED + RQ_PATH2_DISPATCHED)) = "$RQ_MAPPED" ]'
	# rqpathctl's parser on a line with fail counts.
	rqp_status_json rqp-p
}

# With queueing on and no path, a write waits (in flight, requeued for want
# of a path) and completes once a path comes back.
check_queue_if_no_path() {
	rqp_run "queue_if_no_path" dmsetup message rqp-p 0 queue_if_no_path || return 1
	rqp_run "reset_counters" dmsetup message rqp-p 0 reset_counters
	rqp_st rqp-p && rqp_st_check "queue_if_no_path message: status does not show queueing" '[ "$RQ_QUEUE_IF_NO_PATH" = 1 ]'
	rqp_run "fail path 1" rqpathctl fail-path rqp-p "$RQP_P1" || return 1
	rqp_run "fail path 2" rqpathctl fail-path rqp-p "$RQP_P2" || return 1
	q="--bs 4k --offset 20m --size 64k --qd 4 --seed 3004 --gen 1"
	w=
	# shellcheck disable=SC2086
	rqp_bg w /tmp/rqp-queued.txt rqcheck --write-only $q --json /tmp/rqp-queued.json $DEV
	rqp_st_wait rqp-p 10 '[ "$RQ_IN_FLIGHT" -ge 1 ] && [ "$RQ_NO_PATH_REQUEUES" -ge 1 ]'
	rqp_st rqp-p
	rq_detail status_queued "$ST_line"
	if ! rqp_running "$w"; then
		rq_wait_pid "$w" 0
		rq_fail "queue_if_no_path: the write finished (exit $?) with no path instead of waiting: $(tail -n 1 /tmp/rqp-queued.txt)"
	fi
	rqp_st_check "queue_if_no_path: waiting write not in flight, not requeued for want of a path" \
		'[ "$RQ_IN_FLIGHT" -ge 1 ] && [ "$RQ_NO_PATH_REQUEUES" -ge 1 ] && [ "$RQ_PATH1_STATE$RQ_PATH2_STATE" = FF ]'
	rqp_run "reinstate path 2" rqpathctl reinstate-path rqp-p "$RQP_P2"
	rq_wait_pid "$w" 15
	rc=$?
	[ $rc = 124 ] && rq_fail "queue_if_no_path: the write did not complete within 15 s of reinstating a path"
	rqp_rqcheck_done queued "queue_if_no_path: the write that waited for a path" $rc
	# shellcheck disable=SC2086
	rqp_rqcheck queued_p1 "queue_if_no_path: the write that waited, read on path $RQP_P1" --verify-only $q "$RQP_P1"
	rqp_st rqp-p && rqp_st_check "queue_if_no_path: in flight after completion, or errors" \
		'[ "$RQ_IN_FLIGHT" = 0 ] && [ "$RQ_ERRORS" = 0 ]'

	# fail_if_no_path fails what waits.
	rqp_run "fail path 2" rqpathctl fail-path rqp-p "$RQP_P2" || return 1
	w=
	rqp_st rqp-p
	r0=$RQ_NO_PATH_REQUEUES
	rqp_bg w /tmp/rqp-queued2.txt dd if=/dev/zero of=$DEV bs=4k count=1 seek=6000 oflag=direct
	rqp_st_wait rqp-p 10 "[ \"\$RQ_IN_FLIGHT\" -ge 1 ] && [ \"\$RQ_NO_PATH_REQUEUES\" -gt $r0 ]"
	rqp_running "$w" || rq_fail "queue_if_no_path: a second write did not wait for a path: $(cat /tmp/rqp-queued2.txt)"
	rqp_st rqp-p && rqp_st_check "queue_if_no_path: the second write is not in flight" '[ "$RQ_IN_FLIGHT" -ge 1 ]'
	rqp_run "fail_if_no_path" dmsetup message rqp-p 0 fail_if_no_path
	rq_wait_pid "$w" 5
	rc=$?
	rq_detail fail_if_no_path_while_queued "dd exit $rc: $(tr '\n' ' ' < /tmp/rqp-queued2.txt)"
	case $rc in
	0)	rq_fail "fail_if_no_path: the waiting write succeeded with no path" ;;
	124)	rq_fail "fail_if_no_path: the waiting write still waits 5 s after fail_if_no_path" ;;
	*)	grep -q -e 'I/O error' -e 'Input/output error' /tmp/rqp-queued2.txt ||
			rq_fail "fail_if_no_path: the waiting write failed, but not with EIO: $(cat /tmp/rqp-queued2.txt)" ;;
	esac
	rqp_st rqp-p && rqp_st_check "fail_if_no_path: still in flight, or queueing still shown" \
		'[ "$RQ_IN_FLIGHT" = 0 ] && [ "$RQ_QUEUE_IF_NO_PATH" = 0 ]'
}

# Without queueing and with no path, I/O fails at once with EIO; after a
# reinstate the device works again.
check_fail_if_no_path() {
	rqp_st rqp-p && rqp_st_check "no path: both paths should be failed" '[ "$RQ_PATH1_STATE$RQ_PATH2_STATE" = FF ]'
	for op in read write; do
		if [ $op = read ]; then
			set -- dd if=$DEV of=/dev/null bs=4k count=1 skip=6001 iflag=direct
		else
			set -- dd if=/dev/zero of=$DEV bs=4k count=1 seek=6001 oflag=direct
		fi
		d=
		rqp_bg d "/tmp/rqp-nopath-$op.txt" "$@"
		rq_wait_pid "$d" 5
		rc=$?
		rq_detail "no_path_$op" "dd exit $rc: $(tr '\n' ' ' < "/tmp/rqp-nopath-$op.txt")"
		case $rc in
		0)	rq_fail "no path, no queueing: a $op succeeded" ;;
		124)	rq_fail "no path, no queueing: a $op hangs (5 s)" ;;
		*)	grep -q -e 'I/O error' -e 'Input/output error' "/tmp/rqp-nopath-$op.txt" ||
				rq_fail "no path, no queueing: the $op failed, but not with EIO: $(cat "/tmp/rqp-nopath-$op.txt")" ;;
		esac
	done
	rqp_st rqp-p && rqp_st_check "no path: requests in flight after they failed" '[ "$RQ_IN_FLIGHT" = 0 ]'
	rqp_run "reinstate path 1" dmsetup message rqp-p 0 reinstate_path "$RQP_M1"
	rqp_run "reinstate path 2" dmsetup message rqp-p 0 reinstate_path "$RQP_M2"
	rqp_run "reset_counters" dmsetup message rqp-p 0 reset_counters
	rqp_run "a read after the reinstate" timeout 10 dd if=$DEV of=/dev/null bs=4k count=2 skip=6001 iflag=direct
	rqp_st rqp-p && rqp_st_check "after the reinstate: the read did not go through both paths" \
		'[ "$RQ_READ_COMPLETED" = 2 ] && [ "$RQ_PATH1_DISPATCHED" = 1 ] && [ "$RQ_PATH2_DISPATCHED" = 1 ] && [ "$RQ_ERRORS" = 0 ]'
}

# A path that goes offline under I/O: the target fails it by itself (a path
# error on a clone), I/O goes on over the other path without an error.
check_offline_path() {
	sdev=/sys/block/${RQP_P1##*/}/device/state
	rqp_run "reset_counters" dmsetup message rqp-p 0 reset_counters
	io=
	# At least 2 s of generations (one under TCG): the path goes offline
	# during the writes.
	rqp_bg io /tmp/rqp-off.txt rqcheck --bs 4k --size 16m --qd 16 --time 2 --seed 3005 --json /tmp/rqp-off.json $DEV
	rqp_st_wait rqp-p 10 '[ "$RQ_MAPPED" -ge 64 ]'
	rqp_running "$io" || rq_fail "offline: rqcheck ended before the path went offline: $(tail -n 1 /tmp/rqp-off.txt)"
	echo offline > "$sdev"
	if rqp_st_wait rqp-p 5 '[ "$RQ_PATH1_STATE" = F ]'; then
		rqp_st_check "offline: path 1 failed, but fail_count is not 1 or path 2 not active" \
			'[ "$RQ_PATH1_FAIL_COUNT" = 1 ] && [ "$RQ_PATH2_STATE" = A ] && [ "$RQ_PATH2_FAIL_COUNT" = 0 ]'
		rqp_st_check "offline: no clone completed with an error on the offline path" \
			'[ "$RQ_ERRORS" -ge 1 ]'
	else
		rq_fail "offline: the target did not fail the offline path $RQP_P1 within 5 s (status: $(rqp_st_brief))"
	fi
	rq_wait_pid "$io" 30
	rc=$?
	[ $rc = 124 ] && rq_fail "offline: rqcheck did not finish within 30 s"
	rqp_rqcheck_done off "I/O while path $RQP_P1 went offline" $rc
	rqp_st rqp-p && rq_detail status_after_offline "$ST_line"
	rqp_st_check "offline: path 1 not failed exactly once, or in flight" \
		'[ "$RQ_PATH1_STATE" = F ] && [ "$RQ_PATH1_FAIL_COUNT" = 1 ] && [ "$RQ_IN_FLIGHT" = 0 ]'
	echo running > "$sdev"
	rqp_run "reinstate the path that was offline" dmsetup message rqp-p 0 reinstate_path "$RQP_P1"
	# The path is used again, and the data is on it.
	rqp_run "reset_counters" dmsetup message rqp-p 0 reset_counters
	rqp_run "a read after the reinstate" timeout 10 dd if=$DEV of=/dev/null bs=4k count=2 iflag=direct
	rqp_st rqp-p && rqp_st_check "offline: the path that came back got no read" \
		'[ "$RQ_PATH1_STATE" = A ] && [ "$RQ_PATH1_DISPATCHED" = 1 ] && [ "$RQ_PATH2_DISPATCHED" = 1 ] && [ "$RQ_ERRORS" = 0 ]'
	# The last generation written, read from the path that was offline.
	gens=$(sed -n 's/^total: \([0-9]*\) generation.*/\1/p' /tmp/rqp-off.txt | tail -n 1)
	if [ -z "$gens" ]; then
		rq_fail "offline: no generation count in rqcheck's output"
		return 1
	fi
	rqp_rqcheck off_p1 "offline: the data, on the path that was offline" \
		--verify-only --bs 4k --size 16m --qd 16 --seed 3005 --gen "$gens" "$RQP_P1"
}

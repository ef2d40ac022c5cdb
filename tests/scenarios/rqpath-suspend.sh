# shellcheck shell=sh
# rqpath scenario: rqpath-suspend
# summary: suspend, resume, reload and remove under load, with requests waiting for a path, and behind a discard handed back busy for ever: no suspend stalls, no lost I/O
# expect: clean; ffe81d45322c=livelocked
# boot: shared
# timeout: 150
# shellcheck disable=SC2016 # conditions in single quotes are eval'ed later

# Three parts:
#  1. under a write/verify load: flush and noflush suspends, a table
#     reload, each suspend timed; the load verifies every generation;
#     meanwhile a loop fails and reinstates path 1 by message: a message
#     either is refused (EBUSY) or takes effect before the device counts
#     as suspended, so the path states never change while it is;
#  2. requests waiting for a path (both paths failed, queueing on): a flush
#     suspend turns queueing off and kicks them, but does not wait for
#     them (dm-target/README.md): each either failed with EIO or is still
#     queued after resume, and then completes once a path is back;
#  3. a discard submitted while no path is up, a read behind it, then one
#     path back.  Where blk_insert_cloned_request() hands the discard back
#     busy for ever (ffe81d45322c) a flush suspend must still finish at
#     once (dm-rqpath 1.0 waited 5 s for such requests); the read waits
#     behind the discard or, if the requeue put it first, completes.
#     Elsewhere both complete.
# Every suspend must take less than SUSPEND_MAX seconds, and is counted
# only once the kernel shows the device suspended.

# shellcheck source=tests/guest/rqpath.sh
. /rqpath/rqpath.sh

DEV=/dev/mapper/rqp-s
SUSPEND_MAX=2
CYCLES=6
LIVELOCK_WAIT=8

scenario_run() {
	rqp_init
	STUCK=""
	if rqp_setup && rqp_run "rqpathctl create" rqpathctl create rqp-s "$RQP_P1" "$RQP_P2" --queue-if-no-path &&
		{ SUS_DM=$(rq_dm_blkname rqp-s) || { rq_fail "no dm-N for rqp-s"; false; }; }; then
		: > /tmp/rqp-suspends.txt
		suspend_under_load &&
			suspend_with_waiters &&
			suspend_behind_busy
		rq_detail_file suspend_seconds /tmp/rqp-suspends.txt 40
		rq_trigger rqpath suspends "$(wc -l < /tmp/rqp-suspends.txt)" $((2 * CYCLES + 2))
	fi
	if [ -n "$STUCK" ] && ! rq_failed; then
		# The discard and the read cannot be killed or the device removed.
		rq_allow_report "task (blkdiscard|dd):[0-9]+ blocked for more than" "the discard handed back busy for ever, and the read behind it"
		rq_unusable "the discard through rqp-s is handed back busy for ever"
		rq_result livelocked "$STUCK"
		return
	fi
	rqp_finish clean
}

# timed_suspend WHAT [--noflush]: suspend, note the seconds, fail if slow.
# A suspend counts (the trigger's `suspends`) when the kernel shows the
# device suspended (/sys/block/dm-N/dm/suspended), not when dmsetup
# returned.
timed_suspend() {
	what=$1
	shift
	t0=$(rq_now)
	rqp_run "$what: suspend" dmsetup suspend "$@" rqp-s || return 1
	s=$(rq_since "$t0")
	state=$(cat "/sys/block/$SUS_DM/dm/suspended" 2>&1)
	if [ "$state" != 1 ]; then
		rq_fail "$what: dmsetup suspend returned, but the kernel does not show rqp-s suspended (/sys/block/$SUS_DM/dm/suspended: $state)"
		return 1
	fi
	echo "$what $* $s" >> /tmp/rqp-suspends.txt
	rq_ge "$SUSPEND_MAX" "$s" || rq_fail "$what: the suspend took ${s}s (at most ${SUSPEND_MAX}s)"
}

# message_loop: fail and reinstate path 1 by message until
# /tmp/rqp-msg.stop exists; a line per message, "OK" or the refusal.
message_loop() {
	while [ ! -e /tmp/rqp-msg.stop ]; do
		for m in fail_path reinstate_path; do
			if dmsetup message rqp-s 0 $m "$RQP_M1" 2> /tmp/rqp-msg.err; then
				echo "$m OK"
			else
				# dmsetup says why, then "Command failed."
				echo "$m $(tr '\n' ' ' < /tmp/rqp-msg.err)"
			fi
		done
	done
}

# still_while_suspended WHAT: the path states stay as they are while the
# device is suspended (two looks, apart).
still_while_suspended() {
	before=$(rq_dm_path_states rqp-s)
	sleep 0.3
	after=$(rq_dm_path_states rqp-s)
	[ "$before" = "$after" ] ||
		rq_fail "$1: the path states changed while rqp-s was suspended: $before, then $after"
}

suspend_under_load() {
	rq_phase workload
	io=
	rqp_bg io /tmp/rqp-sl.txt rqcheck --bs 4k --size 8m --qd 16 --time "$(rq_workload_seconds 20)" --seed 5005 --json /tmp/rqp-sl.json $DEV
	rm -f /tmp/rqp-msg.stop
	message_loop > /tmp/rqp-msg.txt &
	msg=$!
	i=0
	while [ $i -lt $CYCLES ] && rqp_running "$io"; do
		i=$((i + 1))
		timed_suspend "load $i" || break
		still_while_suspended "load $i"
		rqp_run "load $i: resume" dmsetup resume rqp-s || break
		timed_suspend "load $i" --noflush || break
		table=$(dmsetup table rqp-s)
		rqp_run "load $i: reload" dmsetup reload rqp-s --table "$table" || break
		rqp_run "load $i: resume into the new table" dmsetup resume rqp-s || break
	done
	[ $i = $CYCLES ] || rq_fail "only $i of $CYCLES suspend cycles ran under the load"
	touch /tmp/rqp-msg.stop
	rq_wait_pid "$msg" 10 || rq_fail "the message loop did not stop"
	rqp_run "reinstate path 1 after the messages" dmsetup message rqp-s 0 reinstate_path "$RQP_M1"
	rq_detail messages "$(sort /tmp/rqp-msg.txt | uniq -c | tr -s ' \n' '  ')"
	rq_trigger rqpath messages_taken "$(grep -c ' OK$' /tmp/rqp-msg.txt)" 2
	grep -v -e ' OK$' -e 'Device or resource busy' /tmp/rqp-msg.txt > /tmp/rqp-msg.bad
	[ -s /tmp/rqp-msg.bad ] && rq_fail "a message failed other than busy: $(head -n 1 /tmp/rqp-msg.bad)"
	rq_wait_pid "$io" "$(rq_workload_seconds 60)"
	rqp_rqcheck_done sl "the load across the suspends" $?
}

suspend_with_waiters() {
	rqp_run "fail path 1" rqpathctl fail-path rqp-s "$RQP_P1" || return 1
	rqp_run "fail path 2" rqpathctl fail-path rqp-s "$RQP_P2" || return 1
	w=
	rqp_bg w /tmp/rqp-sw.txt dd if=$DEV of=/dev/null bs=4k count=4 iflag=direct
	rqp_st_wait rqp-s 10 '[ "$RQ_NO_PATH_REQUEUES" -gt 0 ] && [ "$RQ_IN_FLIGHT" -gt 0 ]' ||
		{ rq_fail "waiters: no request waits for a path ($ST_line)"; return 1; }
	timed_suspend "waiters" || return 1
	rqp_run "waiters: resume" dmsetup resume rqp-s || return 1
	rq_wait_pid "$w" 2
	rc=$?
	rqp_run "reinstate path 1" rqpathctl reinstate-path rqp-s "$RQP_P1" &&
		rqp_run "reinstate path 2" rqpathctl reinstate-path rqp-s "$RQP_P2"
	case $rc in
	0) rq_fail "waiters: the read succeeded while no path was up" ;;
	124)	# Still queued over the suspend: a path back completes it.
		rq_wait_pid "$w" 10 || rq_fail "waiters: the read that stayed queued over the suspend did not complete once a path was back"
		rq_detail waiters "the read stayed queued over the suspend and completed after the reinstate" ;;
	*)	grep -q -e 'I/O error' -e 'Input/output error' /tmp/rqp-sw.txt ||
			rq_fail "waiters: the read failed, but not with EIO: $(cat /tmp/rqp-sw.txt)"
		rq_detail waiters "the flush suspend failed the read (EIO)" ;;
	esac
}

suspend_behind_busy() {
	rqp_run "fail path 1" rqpathctl fail-path rqp-s "$RQP_P1" || return 1
	rqp_run "fail path 2" rqpathctl fail-path rqp-s "$RQP_P2" || return 1
	d='' r=''
	# The read goes through a dm-linear device on top: blkdiscard holds
	# rqp-s's page cache lock (invalidate_lock) while its discard waits,
	# which would keep a read through rqp-s's own node from being
	# submitted at all.
	rqp_run "dm-linear over rqp-s" rqp_dmsetup create rqp-s-lin \
		--table "0 $RQP_SECTORS linear /dev/mapper/rqp-s 0" || return 1
	rqp_st rqp-s || return 1
	r0=$RQ_NO_PATH_REQUEUES
	rqp_bg d /tmp/rqp-bd.txt blkdiscard -f -o 0 -l 65536 $DEV
	rqp_st_wait rqp-s 10 "[ \$RQ_NO_PATH_REQUEUES -gt $r0 ]" ||
		{ rq_fail "behind: the discard does not wait for a path ($ST_line)"; return 1; }
	rqp_bg r /tmp/rqp-br.txt dd if=/dev/mapper/rqp-s-lin of=/dev/null bs=4k count=1 skip=100 iflag=direct
	rqp_st_wait rqp-s 10 '[ "$RQ_IN_FLIGHT" -ge 2 ]' ||
		{ rq_fail "behind: the discard and the read do not both wait for a path ($ST_line)"; return 1; }
	rqp_run "reinstate path 1" rqpathctl reinstate-path rqp-s "$RQP_P1" || return 1
	rq_wait "$LIVELOCK_WAIT" "the discard" eval "! rqp_running $d"
	rqp_st rqp-s
	rq_detail status_behind_busy "$ST_line"
	rq_trigger rqpath discard_mapped "$RQ_DISCARD_MAPPED" 1
	if ! rqp_running "$d"; then
		rq_wait_pid "$d" 1 || rq_fail "behind: the discard failed: $(tail -n 1 /tmp/rqp-bd.txt)"
		rq_wait_pid "$r" 10 || rq_fail "behind: the read behind the discard failed or hung"
		timed_suspend "behind, completed"
		rqp_run "resume" dmsetup resume rqp-s
		return 0
	fi
	# The discard never completes.  Whether the read waits behind it
	# depends on how blk_mq_requeue_work() puts the two waiters back:
	# 6.1 keeps them in the order they came, 6.12 inserts each at the
	# head of the software queue, so the read goes first.  Either is
	# correct; the point is the flush suspend below.
	if rqp_running "$r"; then
		read_fate="the read behind it waited"
	else
		rq_wait_pid "$r" 1 || rq_fail "behind: the read failed: $(tail -n 1 /tmp/rqp-br.txt)"
		read_fate="the read was dispatched ahead of it and completed"
	fi
	rq_detail read_behind_busy "$read_fate"
	rqp_st_check "behind: the discard is not handed back busy with no completion" \
		'[ "$RQ_DISCARD_BUSY" -gt 0 ] && [ "$RQ_DISCARD_COMPLETED" = 0 ]'
	rqp_stuck_signals rqp-s behind discard "$d" "blkdiscard"
	timed_suspend "behind a busy discard"
	rqp_run "resume" dmsetup resume rqp-s
	STUCK="the discard was handed back busy $RQ_DISCARD_BUSY times without a completion, $read_fate; the flush suspend took $(tail -n 1 /tmp/rqp-suspends.txt | awk '{ print $NF }')s"
}

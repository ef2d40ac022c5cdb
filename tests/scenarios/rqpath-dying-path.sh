# shellcheck shell=sh
# rqpath scenario: rqpath-dying-path
# summary: a path whose SCSI disk is deleted under I/O is failed as soon as its disk goes, not retried every 3 ms until its queue dies
# expect: clean
# boot: shared
# timeout: 120
# shellcheck disable=SC2016 # conditions in single quotes are eval'ed later

# SCSI deletes a disk in two steps: del_gendisk() (the disk is no longer
# live, its queue frozen while the commands in flight finish) and, later,
# the queue's teardown (dying).  In between no clone can be allocated on the
# path.  Slow commands (scsi_debug ndelay) keep that window open for
# seconds; dm-rqpath must fail the path when the window opens, not requeue
# the request every 3 ms (<no_clone_requeues>) until the queue dies.

# shellcheck source=tests/guest/rqpath.sh
. /rqpath/rqpath.sh

DEV=/dev/mapper/rqp-y
# (scsi_debug takes at most 999999999 ns per command)
DY_NDELAY=900000000
# Allocation failures allowed before the path is failed: the first fails
# it, others mapped at the same moment may race with it.  (dm-rqpath 1.0,
# which waited for the queue to die, counted 8 here, each retried when
# another request completed, and failed the path 1.8 s after the delete;
# 1.1 counts 1, at 0.7 s.)
DY_MAX_NO_CLONE=3

scenario_run() {
	rqp_init
	if rqp_setup ndelay=$DY_NDELAY && rqp_run "dmsetup create" rqp_dmsetup create rqp-y \
		--table "0 $RQP_SECTORS rqpath 2 $RQP_P1 $RQP_P2"; then
		check_dying_path
		rqp_run "dmsetup remove" rqp_dmsetup remove rqp-y
	fi
	rqp_finish clean
}

path2_inflight() {
	read -r r w < "/sys/block/${RQP_P2##*/}/inflight"
	[ $((r + w)) -gt 0 ]
}

check_dying_path() {
	rq_phase workload
	io=
	rqp_bg io /tmp/rqp-dy.txt rqcheck --bs 4k --size 32k --qd 8 --time 6 --seed 4004 --json /tmp/rqp-dy.json $DEV
	rq_wait 15 "I/O in flight on path 2" path2_inflight || { rq_fail "no I/O reached path 2"; return; }
	rqp_st rqp-y || return
	n0=$RQ_NO_CLONE_REQUEUES
	t0=$(rq_now)
	# The delete blocks until the commands in flight complete.
	echo 1 > "/sys/block/${RQP_P2##*/}/device/delete" &
	del=$!
	RQP_PIDS="$RQP_PIDS $del"
	rqp_st_wait rqp-y 20 '[ "$RQ_PATH2_STATE" = F ]' || rq_fail "path 2 was not failed within 20 s of its delete"
	t1=$(rq_now)
	rq_wait_pid "$del" 30 || rq_fail "the delete of path 2 did not finish"
	rqp_st rqp-y
	rq_wait_pid "$io" 60
	rqp_rqcheck_done dy "I/O while path 2 was deleted" $?
	rqp_st rqp-y || return
	n=$((RQ_NO_CLONE_REQUEUES - n0))
	rq_detail_json dying_path "{\"seconds_to_fail\": $(rq_interval "$t1" "$t0"), \"no_clone_requeues\": $n, \"fail_count\": $RQ_PATH2_FAIL_COUNT}"
	rq_trigger rqpath clones_refused_by_the_going_disk "$n" 1
	[ "$n" -le $DY_MAX_NO_CLONE ] ||
		rq_fail "$n requests found no clone on path 2 while its disk went (at most $DY_MAX_NO_CLONE): the path was retried instead of failed"
	rqp_st_check "path 1 was failed too" '[ "$RQ_PATH1_STATE" = A ]'
}

# shellcheck shell=sh
# rqpath scenario: rqpath-refused
# summary: a clone larger than the path's (shrunk) limits is refused by blk_insert_cloned_request(): counted as refused, the I/O fails, the paths stay active
# expect: clean
# boot: shared
# timeout: 90
# shellcheck disable=SC2016 # conditions in single quotes are eval'ed later

# The dm device's limits are its paths' when the table is loaded; a path's
# max_sectors_kb can shrink afterwards, and then blk_insert_cloned_request()
# refuses a clone with BLK_STS_IOERR before the driver sees it.  The path is
# fine: dm-rqpath must not fail it (the next path would refuse too, and a
# request the paths cannot take would take every path down with it).

# shellcheck source=tests/guest/rqpath.sh
. /rqpath/rqpath.sh

DEV=/dev/mapper/rqp-r
BIG_KB=512
SMALL_KB=64

scenario_run() {
	rqp_init
	if rqp_setup && rqp_run "dmsetup create" rqp_dmsetup create rqp-r \
		--table "0 $RQP_SECTORS rqpath 2 $RQP_P1 $RQP_P2"; then
		check_refused
		rqp_run "dmsetup remove" rqp_dmsetup remove rqp-r
	fi
	rqp_finish clean
}

big_write() { # TAG: one O_DIRECT write of BIG_KB, its exit status
	dd if=/dev/zero of=$DEV bs=${BIG_KB}k count=1 oflag=direct > "/tmp/rqp-$1.txt" 2>&1
}

check_refused() {
	dm=$(rq_dm_blkname rqp-r)
	[ "$(cat "/sys/block/$dm/queue/max_sectors_kb")" -ge $BIG_KB ] ||
		{ rq_fail "the dm device takes no $BIG_KB KiB request (max_sectors_kb $(cat "/sys/block/$dm/queue/max_sectors_kb"))"; return; }
	big_write before || rq_fail "a $BIG_KB KiB write before the limits shrank failed: $(tail -n 1 /tmp/rqp-before.txt)"
	rqp_run "reset_counters" dmsetup message rqp-r 0 reset_counters
	orig=$(cat "/sys/block/${RQP_P1##*/}/queue/max_sectors_kb")
	for p in $RQP_P1 $RQP_P2; do
		echo $SMALL_KB > "/sys/block/${p##*/}/queue/max_sectors_kb" ||
			{ rq_fail "cannot shrink max_sectors_kb of $p"; return; }
	done
	if big_write shrunk; then
		rq_fail "a $BIG_KB KiB write through paths of $SMALL_KB KiB succeeded: no clone was refused"
	fi
	rqp_st rqp-r || return
	rq_detail status_after_refusal "$ST_line"
	rq_trigger rqpath refused "$RQ_REFUSED" 1
	rqp_st_check "the refused clone failed a path" \
		'[ "$RQ_PATH1_STATE$RQ_PATH2_STATE" = AA ] && [ "$RQ_PATH1_FAIL_COUNT$RQ_PATH2_FAIL_COUNT" = 00 ]'
	rqp_st_check "the refusal was counted as a completion or an error, or nothing is refused" \
		'[ "$RQ_REFUSED" -ge 1 ] && [ "$RQ_WRITE_REFUSED" = "$RQ_REFUSED" ] && [ "$RQ_ERRORS" = 0 ] && [ "$RQ_IN_FLIGHT" = 0 ]'
	# The paths take what fits, and after the limits grow back, the rest.
	dd if=/dev/zero of=$DEV bs=${SMALL_KB}k count=4 oflag=direct > /tmp/rqp-small.txt 2>&1 ||
		rq_fail "$SMALL_KB KiB writes failed after a refusal: $(tail -n 1 /tmp/rqp-small.txt)"
	for p in $RQP_P1 $RQP_P2; do
		echo "$orig" > "/sys/block/${p##*/}/queue/max_sectors_kb"
	done
	big_write after || rq_fail "a $BIG_KB KiB write after the limits grew back failed: $(tail -n 1 /tmp/rqp-after.txt)"
}

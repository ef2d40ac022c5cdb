# shellcheck shell=sh
# rqpath scenario: rqpath-discard
# summary: discard, write zeroes and flush through dm-rqpath complete, reach the LUN and are counted in their op groups
# expect: clean; ffe81d45322c=livelocked
# boot: shared
# timeout: 90
# shellcheck disable=SC2016 # conditions in single quotes are eval'ed later
#
# On stage ffe81d45322c, blk_insert_cloned_request() refuses every clone
# that is not a read or a write with BLK_STS_RESOURCE, forever (see
# patches/0003: "the device-mapper livelock that c616cbee97ae fixes"), so
# discard, write zeroes and flush cannot complete through a request-based
# target there.  The scenario tells that from a hang with `rqpathctl
# watch`, ends each livelock by failing both paths (the requests are then
# failed with EIO instead of being mapped again), and reports `livelocked`.
# An operation that is neither seen to complete nor called a livelock by
# the watch (it found nothing in flight, or gave up) is an error: the EIO
# it ends with once both paths are failed is not a completion.  Every
# bound on the operation is stretched by the kernel's slowdown.

# shellcheck source=tests/guest/rqpath.sh
. /rqpath/rqpath.sh

DEV=/dev/mapper/rqp-d
# 0-4 MiB: data that must survive; 4-5 MiB: discarded; 5-6 MiB: zeroed;
# 6 MiB: the write before the flush.
KEEP="--bs 4k --size 4m --qd 16 --seed 2002 --gen 1"
FILL="--bs 4k --offset 4m --size 2m --qd 16 --seed 2003 --gen 1"

scenario_run() {
	rqp_init
	LIVELOCKS=""
	if rqp_setup && rqp_run "dmsetup create" rqp_dmsetup create rqp-d \
		--table "0 $RQP_SECTORS rqpath 2 $RQP_P1 $RQP_P2"; then
		check_ops
	fi
	if [ -n "$LIVELOCKS" ]; then
		rqp_finish livelocked "busy forever through the target:$LIVELOCKS"
	else
		rqp_finish clean
	fi
}

# run_op TAG OPGROUP CMD...: run CMD on rqp-d (rqp_op); 0 when it
# completed successfully, 1 when it failed or livelocked (both recorded),
# with the status in the RQ_ variables.
run_op() {
	tag=$1 op=$2
	OP=$(rq_upper "$op")
	shift 2
	if ! rqp_op rqp-d "$tag" "$op" "$@"; then
		if [ -n "$RQP_OP_STUCK" ]; then
			record_mapped
			LIVELOCKS="$LIVELOCKS $tag ($RQP_OP_STUCK)"
		fi
		return 1
	fi
	if [ "$RQP_OP_RC" != 0 ]; then
		rq_fail "$tag: '$*' failed (exit $RQP_OP_RC): $(tail -n 1 "/tmp/rqp-$tag.out")"
		return 1
	fi
	rqp_st rqp-d || return 1
	record_mapped
	rq_detail "status_$tag" "$ST_line"
	eval "m=\$RQ_${OP}_MAPPED b=\$RQ_${OP}_BUSY c=\$RQ_${OP}_COMPLETED e=\$RQ_${OP}_ERRORS"
	# shellcheck disable=SC2154 # set by the eval
	rqp_st_check "$tag: not counted in the $op group, or counted wrong" \
		'[ "$c" -ge 1 ] && [ "$m" = $((c + b)) ] && [ "$e" = 0 ]'
	rqp_st_check "$tag: in_flight not 0 or errors after it completed" \
		'[ "$RQ_IN_FLIGHT" = 0 ] && [ "$RQ_ERRORS" = 0 ]'
	return 0
}

# The operation reached the target: both verdicts stand on it (the
# trigger evidence of tests/README.md).
record_mapped() {
	eval "rq_trigger rqpath ${tag}_mapped \"\$RQ_${OP}_MAPPED\" 1"
}

check_ops() {
	dm=$(rq_dm_blkname rqp-d)
	rq_detail limits "discard_max_bytes $(cat "/sys/block/$dm/queue/discard_max_bytes"), write_zeroes_max_bytes $(cat "/sys/block/$dm/queue/write_zeroes_max_bytes"), write_cache $(cat "/sys/block/$dm/queue/write_cache")"
	[ "$(cat "/sys/block/$dm/queue/discard_max_bytes")" -gt 0 ] ||
		rq_fail "precondition: the target does not support discard"
	# shellcheck disable=SC2086
	rqp_rqcheck keep "write of the data to keep" --write-only $KEEP $DEV
	# shellcheck disable=SC2086
	rqp_rqcheck fill "write of the regions to discard and zero" --write-only $FILL $DEV
	for p in $RQP_P1 $RQP_P2; do
		[ "$(rqp_nonzero_bytes "$p" 4 2)" -gt 0 ] || rq_fail "precondition: 4-6 MiB is already zero on $p"
	done

	if run_op discard discard blkdiscard -o 4MiB -l 1MiB $DEV; then
		for p in $RQP_P1 $RQP_P2; do
			n=$(rqp_nonzero_bytes "$p" 4 1)
			[ "$n" = 0 ] || rq_fail "discard: 4-5 MiB on $p still has $n non-zero bytes"
		done
	fi
	# Write zeroes goes down as REQ_OP_WRITE_ZEROES when the target
	# advertises it (dm core turns it on if every path has it).
	op="write"
	[ "$(cat "/sys/block/$dm/queue/write_zeroes_max_bytes")" -gt 0 ] && op=write_zeroes
	if run_op write_zeroes $op blkdiscard -z -o 5MiB -l 1MiB $DEV; then
		for p in $RQP_P1 $RQP_P2; do
			n=$(rqp_nonzero_bytes "$p" 5 1)
			[ "$n" = 0 ] || rq_fail "write zeroes: 5-6 MiB on $p still has $n non-zero bytes"
		done
	fi
	# fsync() of the block device: the dirty page, then an empty flush.
	if [ "$(cat "/sys/block/$dm/queue/write_cache")" = "write back" ]; then
		run_op flush flush dd if=/dev/zero of=$DEV bs=4k count=1 seek=1536 conv=fsync,notrunc status=none
	else
		rq_fail "precondition: the target has no write back cache, so a flush never reaches it"
	fi

	# Nothing hit the data next to the regions.
	# shellcheck disable=SC2086
	rqp_rqcheck keep_dm "the data next to the discarded and zeroed regions, through the target" --verify-only $KEEP $DEV
	# shellcheck disable=SC2086
	rqp_rqcheck keep_p1 "the data next to the discarded and zeroed regions, on path $RQP_P1" --verify-only $KEEP "$RQP_P1"
	rqp_run "dmsetup remove" rqp_dmsetup remove rqp-d
}

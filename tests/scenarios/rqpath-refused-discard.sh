# shellcheck shell=sh
# rqpath scenario: rqpath-refused-discard
# summary: after its paths stop doing discard and write zeroes, dm-rqpath's clones of them are refused by blk_insert_cloned_request(): a discard ends at once, write zeroes falls back to writing zeroes, no path is failed
# expect: clean
# boot: shared
# timeout: 120
# shellcheck disable=SC2016 # conditions in single quotes are eval'ed later

# The dm device's discard and write-zeroes limits are its paths' when the
# table is loaded.  sd drops a path's to 0 afterwards when the target
# rejects UNMAP or WRITE SAME, or when told to (provisioning_mode
# "disabled", max_write_same_blocks 0): blk_insert_cloned_request() then
# refuses such a clone with BLK_STS_NOTSUPP before the driver sees it.  A
# discard then does nothing (and BLKDISCARD says nothing: a discard is a
# hint); BLKZEROOUT falls back to writing zero pages.  An answer that lets device-mapper retry the clone (BUSY) would
# be the 2018 livelock again: nothing gives the paths their limit back.

# shellcheck source=tests/guest/rqpath.sh
. /rqpath/rqpath.sh

NAME=rqp-n
DEV=/dev/mapper/$NAME
# 1-2 MiB: discarded; 2-3 MiB: zeroed.
FILL="--bs 4k --offset 1m --size 2m --qd 16 --seed 2011 --gen 1"

scenario_run() {
	rqp_init
	LIVELOCKS=""
	if rqp_setup && rqp_run "dmsetup create" rqp_dmsetup create $NAME \
		--table "0 $RQP_SECTORS rqpath 2 $RQP_P1 $RQP_P2"; then
		check_refused_ops
	fi
	if [ -n "$LIVELOCKS" ]; then
		rqp_finish livelocked "handed back busy for ever after the paths stopped doing it:$LIVELOCKS"
	else
		rqp_finish clean
	fi
}

# scsi_disk_attr DEV ATTR: the path of a scsi_disk attribute of DEV.
scsi_disk_attr() {
	for f in "/sys/block/${1##*/}/device/scsi_disk/"*"/$2"; do
		[ -e "$f" ] && echo "$f" && return 0
	done
	return 1
}

# drop_limit ATTR VALUE QUEUE_FILE: set the scsi_disk ATTR of both paths,
# which must leave their QUEUE_FILE limit 0.
drop_limit() {
	for p in $RQP_P1 $RQP_P2; do
		f=$(scsi_disk_attr "$p" "$1") || { rq_fail "$p has no scsi_disk $1"; return 1; }
		echo "$2" > "$f" || { rq_fail "cannot write $2 to $f"; return 1; }
		n=$(cat "/sys/block/${p##*/}/queue/$3")
		[ "$n" = 0 ] || { rq_fail "$p: $3 is $n after $1=$2"; return 1; }
	done
}

# refused_op TAG OPGROUP CMD...: CMD on the device once the paths cannot do
# OPGROUP; 0 when it ended (exit status in RQP_OP_RC) with the clone
# refused and the paths left alone.
refused_op() {
	tag=$1 op=$2
	opvar=$(rq_upper "$op")
	shift 2
	if ! rqp_op $NAME "$tag" "$op" "$@"; then
		if [ -n "$RQP_OP_STUCK" ]; then
			# The livelock's evidence: the op reached the target
			# and was handed back busy.
			eval "rq_trigger rqpath ${tag}_mapped \"\$RQ_${opvar}_MAPPED\" 1"
			eval "rq_trigger rqpath ${tag}_busy \"\$RQ_${opvar}_BUSY\" 1"
			LIVELOCKS="$LIVELOCKS $tag ($RQP_OP_STUCK)"
		fi
		return 1
	fi
	rqp_st $NAME || return 1
	rq_detail "status_$tag" "$ST_line"
	eval "refused=\$RQ_${opvar}_REFUSED"
	# shellcheck disable=SC2154 # set by the eval
	rq_trigger rqpath "${tag}_refused" "$refused" 1
	rqp_st_check "$tag: the refused clone failed a path" \
		'[ "$RQ_PATH1_STATE$RQ_PATH2_STATE" = AA ] && [ "$RQ_PATH1_FAIL_COUNT$RQ_PATH2_FAIL_COUNT" = 00 ]'
	rqp_st_check "$tag: requests in flight after it ended" '[ "$RQ_IN_FLIGHT" = 0 ]'
}

check_refused_ops() {
	dm=$(rq_dm_blkname $NAME)
	q=/sys/block/$dm/queue
	rq_detail limits "discard_max_bytes $(cat "$q/discard_max_bytes"), write_zeroes_max_bytes $(cat "$q/write_zeroes_max_bytes")"
	[ "$(cat "$q/discard_max_bytes")" -gt 0 ] || { rq_fail "precondition: the target does not do discard"; return; }
	# shellcheck disable=SC2086
	rqp_rqcheck fill "write of the regions to discard and zero" --write-only $FILL $DEV || return

	drop_limit provisioning_mode disabled discard_max_bytes || return
	# BLKDISCARD reports success for a discard the device does not do
	# (blkdev_issue_discard() drops EOPNOTSUPP: a discard is a hint), so
	# the refusal shows in the counters and in the data left in place.
	if refused_op discard discard blkdiscard -o 1MiB -l 1MiB $DEV; then
		[ "$RQP_OP_RC" = 0 ] || [ "$RQP_OP_RC" = 1 ] ||
			rq_fail "discard: blkdiscard ended with exit $RQP_OP_RC: $(tail -n 1 /tmp/rqp-discard.out)"
		for p in $RQP_P1 $RQP_P2; do
			[ "$(rqp_nonzero_bytes "$p" 1 1)" -gt 0 ] ||
				rq_fail "discard: 1-2 MiB on $p is zero: a path did the discard it no longer supports"
		done
	fi

	# Write zeroes goes down as REQ_OP_WRITE_ZEROES only where the target
	# advertised it when the table was loaded.
	if [ "$(cat "$q/write_zeroes_max_bytes")" -gt 0 ]; then
		drop_limit max_write_same_blocks 0 write_zeroes_max_bytes || return
		if refused_op write_zeroes write_zeroes blkdiscard -z -o 2MiB -l 1MiB $DEV; then
			[ "$RQP_OP_RC" = 0 ] ||
				rq_fail "write zeroes: no fallback to writing zeroes (exit $RQP_OP_RC): $(tail -n 1 /tmp/rqp-write_zeroes.out)"
			for p in $RQP_P1 $RQP_P2; do
				n=$(rqp_nonzero_bytes "$p" 2 1)
				[ "$n" = 0 ] || rq_fail "write zeroes: 2-3 MiB on $p still has $n non-zero bytes"
			done
		fi
	else
		rq_detail write_zeroes "not advertised by the target: not tried"
	fi
	# The paths still take what they can do.
	dd if=/dev/zero of=$DEV bs=64k count=4 oflag=direct > /tmp/rqp-after.txt 2>&1 ||
		rq_fail "writes failed after the refusals: $(tail -n 1 /tmp/rqp-after.txt)"
	[ -n "$LIVELOCKS" ] || rqp_run "dmsetup remove" rqp_dmsetup remove $NAME
}

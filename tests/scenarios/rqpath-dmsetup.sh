# shellcheck shell=sh
# rqpath scenario: rqpath-dmsetup
# summary: dm-rqpath by dmsetup and rqpathctl: table round-trip, data through the target verifies on each path, status counters, queue limits
# expect: clean
# boot: shared
# timeout: 90
# shellcheck disable=SC2016 # conditions in single quotes are eval'ed later

# shellcheck source=tests/guest/rqpath.sh
. /rqpath/rqpath.sh

SEED=1001
IO="--bs 4k --size 16m --qd 16 --seed $SEED --gen 1"
BLOCKS=4096
# rqcheck --verify-only first samples up to 16 block headers (the seed and
# generation it checks them against), then reads every block.
VERIFY_READS=$((BLOCKS + 16))

scenario_run() {
	rqp_init
	rq_no_trigger "checks dmsetup, rqpathctl and the target's table, counters, limits and data, the same on every stage: no bug's trigger to fire"
	if rqp_setup; then
		check_dmsetup_create
		check_rqpathctl_create
	fi
	rqp_finish clean
}

# round_trip NAME: loading the printed table gives the same table, in
# the inactive slot and, after resume, live.
round_trip() {
	t1=$(dmsetup table "$1")
	rqp_run "$1: reload of its own table" rqp_dmsetup load "$1" --table "$t1" || return 1
	ti=$(dmsetup table --inactive "$1")
	rqp_run "$1: resume after reload" rqp_dmsetup resume "$1" || return 1
	t2=$(dmsetup table "$1")
	if [ "$t1" != "$ti" ] || [ "$t1" != "$t2" ]; then
		rq_fail "$1: table does not round-trip: '$t1' loaded, inactive '$ti', live '$t2'"
		return 1
	fi
}

# Counter checks after a phase of one operation, with nothing else running:
# everything mapped was completed or handed back busy, no errors, nothing
# in flight, only OP moved, both paths active and used round-robin.
check_counters() { # NAME OP WHAT MAXCOMPLETED
	name=$1 op=$2 what=$3 max=$4
	OP=$(rq_upper "$op")
	rqp_st "$name" || return
	eval "m=\$RQ_${OP}_MAPPED b=\$RQ_${OP}_BUSY c=\$RQ_${OP}_COMPLETED"
	# shellcheck disable=SC2154 # set by the eval
	rqp_st_check "$what: in_flight is not 0 after the I/O" '[ "$RQ_IN_FLIGHT" = 0 ]'
	rqp_st_check "$what: $op mapped != completed + busy" '[ "$m" = $((c + b)) ]'
	rqp_st_check "$what: $op completed not in 1..$max" '[ "$c" -ge 1 ] && [ "$c" -le "$max" ]'
	rqp_st_check "$what: errors counted" '[ "$RQ_ERRORS" = 0 ]'
	rqp_st_check "$what: other op groups moved" '[ "$RQ_MAPPED" = "$m" ] && [ "$RQ_COMPLETED" = "$c" ]'
	rqp_st_check "$what: dispatched per path does not add up to mapped" '[ $((RQ_PATH1_DISPATCHED + RQ_PATH2_DISPATCHED)) = "$RQ_MAPPED" ]'
	rqp_st_check "$what: a path got no clone" '[ "$RQ_PATH1_DISPATCHED" -gt 0 ] && [ "$RQ_PATH2_DISPATCHED" -gt 0 ]'
	d=$((RQ_PATH1_DISPATCHED - RQ_PATH2_DISPATCHED))
	rqp_st_check "$what: not round-robin (|dispatched 1 - dispatched 2| > 1 + no_clone_requeues)" \
		'[ "${d#-}" -le $((1 + RQ_NO_CLONE_REQUEUES)) ]'
	rqp_st_check "$what: a path is not active or was failed" \
		'[ "$RQ_PATH1_STATE$RQ_PATH2_STATE" = AA ] && [ "$RQ_PATH1_FAIL_COUNT$RQ_PATH2_FAIL_COUNT" = 00 ]'
}

check_dmsetup_create() {
	dev=/dev/mapper/rqp-a
	rqp_run "dmsetup create" rqp_dmsetup create rqp-a --table "0 $RQP_SECTORS rqpath 2 $RQP_P1 $RQP_P2" || return
	[ -b $dev ] || { rq_fail "dmsetup create: $dev is not a block device"; return; }
	want="0 $RQP_SECTORS rqpath 2 $RQP_M1 $RQP_M2 0"
	got=$(dmsetup table rqp-a)
	[ "$got" = "$want" ] || rq_fail "dmsetup table: '$got', expected '$want'"
	rq_detail table_dmsetup "$got"
	[ "$(blockdev --getsz $dev)" = "$RQP_SECTORS" ] || rq_fail "$dev has $(blockdev --getsz $dev) sectors, not $RQP_SECTORS"
	round_trip rqp-a

	if rqp_st rqp-a; then
		rqp_st_check "fresh device: status not idle with 2 active paths in table order" \
			'[ "$RQ_NR_PATHS $RQ_PATH1_DEV $RQ_PATH1_STATE $RQ_PATH2_DEV $RQ_PATH2_STATE" = "2 $RQP_M1 A $RQP_M2 A" ] &&
			 [ "$RQ_QUEUE_IF_NO_PATH $RQ_IN_FLIGHT" = "0 0" ]'
		# Nobody has opened it but us: any I/O is a stranger's (once,
		# on 6.12, 9 reads like a blkid probe), and would be counted
		# as the scenario's.
		[ "$RQ_MAPPED" = 0 ] ||
			rq_fail "fresh device: I/O before the scenario did any (processes: $(rq_processes); status: $ST_line)"
		# The op groups, in order, with the 1.1 trailing group: the raw
		# line read by hand agrees with rqpathctl's JSON (rqp_status_json).
		if rqp_status_json rqp-a; then
			ops=$(jq -r '[.ops | keys_unsorted[]] + [.op_details | tostring] | join(" ")' /tmp/rqp-status.json)
			[ "$ops" = "read write flush discard write_zeroes other true" ] ||
				rq_fail "fresh device: op groups and trailing group '$ops' (status: $ST_line)"
		fi
	fi

	# Writes through the target, then straight from each path.
	rqp_run "reset_counters" dmsetup message rqp-a 0 reset_counters
	rqp_st rqp-a && rqp_st_check "reset_counters left counters" \
		'[ $((RQ_MAPPED + RQ_COMPLETED + RQ_PATH1_DISPATCHED + RQ_PATH2_DISPATCHED + RQ_NO_PATH_REQUEUES + RQ_NO_CLONE_REQUEUES)) = 0 ]'
	# shellcheck disable=SC2086
	rqp_rqcheck write "write through $dev" --write-only $IO $dev
	check_counters rqp-a write "writes" $BLOCKS
	rq_detail status_after_write "$ST_line"
	# rqpathctl's parser on a status line with counters.
	rqp_status_json rqp-a
	for p in "$RQP_P1" "$RQP_P2"; do
		# shellcheck disable=SC2086
		rqp_rqcheck "verify_${p##*/}" "data written through the target, read on path $p" \
			--verify-only $IO "$p"
		v=$(rqp_rqcheck_verified "verify_${p##*/}")
		[ "$v" = $BLOCKS ] || rq_fail "path $p: $v blocks verified, not $BLOCKS"
	done
	rqp_run "reset_counters" dmsetup message rqp-a 0 reset_counters
	# shellcheck disable=SC2086
	rqp_rqcheck verify_dm "read back through $dev" --verify-only $IO $dev
	check_counters rqp-a read "reads" $VERIFY_READS
	rq_detail status_after_read "$ST_line"

	check_queue_limits rqp-a
}

# Queue limits the target stacks from its paths (device-mapper core does it
# through iterate_devices; see dm-target/README.md).
check_queue_limits() {
	dm=$(rq_dm_blkname "$1") || { rq_fail "no /sys/block/dm-* for $1"; return; }
	q=/sys/block/$dm/queue q1=/sys/block/${RQP_P1##*/}/queue q2=/sys/block/${RQP_P2##*/}/queue
	: > /tmp/rqp-limits.txt
	for a in logical_block_size physical_block_size max_sectors_kb max_hw_sectors_kb \
		discard_granularity discard_max_bytes discard_max_hw_bytes write_zeroes_max_bytes \
		write_cache fua; do
		printf '%s\t%s\t%s\t%s\n' "$a" "$(cat "$q/$a")" "$(cat "$q1/$a")" "$(cat "$q2/$a")" >> /tmp/rqp-limits.txt
	done
	rq_detail queue_limits_dm_path1_path2 "$(awk -F'\t' '{ printf "%s%s=%s/%s/%s", (NR > 1 ? ", " : ""), $1, $2, $3, $4 }' /tmp/rqp-limits.txt)"
	lim() { awk -F'\t' -v a="$1" -v c="$2" '$1 == a { print $c }' /tmp/rqp-limits.txt; }
	min_p() { a=$(lim "$1" 3) b=$(lim "$1" 4); if [ "$a" -le "$b" ]; then echo "$a"; else echo "$b"; fi; }

	[ "$(lim logical_block_size 2)" = "$(lim logical_block_size 3)" ] ||
		rq_fail "logical_block_size: dm $(lim logical_block_size 2), path $(lim logical_block_size 3)"
	[ "$(lim max_sectors_kb 2)" -le "$(min_p max_sectors_kb)" ] ||
		rq_fail "max_sectors_kb: dm $(lim max_sectors_kb 2) larger than the paths' $(min_p max_sectors_kb)"
	# scsi_debug with lbpu=1 supports UNMAP on both paths: so must the target.
	if [ "$(min_p discard_max_bytes)" -le 0 ]; then
		rq_fail "precondition: the paths do not support discard (discard_max_bytes $(lim discard_max_bytes 3))"
	elif [ "$(lim discard_max_bytes 2)" -le 0 ]; then
		rq_fail "discard does not propagate: dm discard_max_bytes $(lim discard_max_bytes 2), paths $(lim discard_max_bytes 3) $(lim discard_max_bytes 4)"
	elif [ "$(lim discard_max_bytes 2)" -gt "$(min_p discard_max_bytes)" ]; then
		rq_fail "dm discard_max_bytes $(lim discard_max_bytes 2) larger than the paths' $(min_p discard_max_bytes)"
	fi
	[ "$(lim discard_granularity 2)" = "$(lim discard_granularity 3)" ] ||
		rq_fail "discard_granularity: dm $(lim discard_granularity 2), path $(lim discard_granularity 3)"
	# Write zeroes: on when every path has it.
	wz=$(lim write_zeroes_max_bytes 2) wzp=$(min_p write_zeroes_max_bytes)
	if [ "$wzp" -gt 0 ] && [ "$wz" -le 0 ]; then
		rq_fail "write zeroes does not propagate: dm write_zeroes_max_bytes $wz, paths $(lim write_zeroes_max_bytes 3) $(lim write_zeroes_max_bytes 4)"
	elif [ "$wz" -gt "$wzp" ]; then
		rq_fail "dm write_zeroes_max_bytes $wz larger than the paths' $wzp"
	fi
	# Write cache and FUA: on when any path has them.
	for a in "write_cache:write back:write through" "fua:1:0"; do
		name=${a%%:*} on=${a#*:} off=${on#*:} on=${on%%:*}
		if [ "$(lim "$name" 3)" = "$on" ] || [ "$(lim "$name" 4)" = "$on" ]; then
			want=$on
		else
			want=$off
		fi
		[ "$(lim "$name" 2)" = "$want" ] ||
			rq_fail "$name does not propagate: dm '$(lim "$name" 2)', paths '$(lim "$name" 3)' '$(lim "$name" 4)'"
	done
	[ "$(lim write_cache 3)" = "write back" ] ||
		rq_fail "precondition: scsi_debug path has no write back cache ($(lim write_cache 3))"
}

check_rqpathctl_create() {
	dev=/dev/mapper/rqp-b
	want="0 $RQP_SECTORS rqpath 2 $RQP_M1 $RQP_M2 1 queue_if_no_path"
	if ! rqpathctl create rqp-b "$RQP_P1" "$RQP_P2" --queue-if-no-path > /tmp/rqp-create.out 2>&1; then
		rq_fail "rqpathctl create failed: $(tail -n 3 /tmp/rqp-create.out | tr '\n' ' ')"
		return
	fi
	rq_detail rqpathctl_create "$(cat /tmp/rqp-create.out)"
	grep -qxF "rqp-b: created: $want" /tmp/rqp-create.out ||
		rq_fail "rqpathctl create printed '$(cat /tmp/rqp-create.out)', expected 'rqp-b: created: $want'"
	[ -b $dev ] || { rq_fail "rqpathctl create: $dev is not a block device"; return; }
	got=$(rqpathctl table rqp-b 2>&1)
	[ "$got" = "$want" ] || rq_fail "rqpathctl table: '$got', expected '$want'"
	got=$(dmsetup table rqp-b)
	[ "$got" = "$want" ] || rq_fail "dmsetup table of the rqpathctl device: '$got', expected '$want'"
	round_trip rqp-b
	rqp_st rqp-b && rqp_st_check "rqpathctl device: queue_if_no_path not on" '[ "$RQ_QUEUE_IF_NO_PATH" = 1 ]'
	# The data written through rqp-a reads back through rqp-b.
	# shellcheck disable=SC2086
	rqp_rqcheck verify_b "read back through the rqpathctl device $dev" --verify-only $IO $dev
	check_counters rqp-b read "reads through rqp-b" $VERIFY_READS
	# SG_IO goes through to a path (.prepare_ioctl), as with dm-multipath.
	if sg_inq $dev > /tmp/rqp-sginq.txt 2>&1; then
		grep -q 'scsi_debug' /tmp/rqp-sginq.txt ||
			rq_fail "sg_inq $dev did not reach a scsi_debug path: $(tr '\n' ' ' < /tmp/rqp-sginq.txt | cut -c1-200)"
	else
		rq_fail "sg_inq $dev failed: $(tail -n 2 /tmp/rqp-sginq.txt | tr '\n' ' ')"
	fi
	rqp_run "rqpathctl remove" rqpathctl remove rqp-b
	[ ! -e $dev ] || rq_fail "rqpathctl remove left $dev behind"
	rqp_run "dmsetup remove" rqp_dmsetup remove rqp-a
	[ ! -e /dev/mapper/rqp-a ] || rq_fail "dmsetup remove left /dev/mapper/rqp-a behind"
	left=$(dmsetup ls --target rqpath 2>&1)
	[ "$left" = "No devices found" ] || rq_fail "rqpath devices left after removal: $left"
}

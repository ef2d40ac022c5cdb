# shellcheck shell=sh
# rqpath scenario: rqpath-bad-table
# summary: dm-rqpath refuses bad tables and bad messages with the documented reasons, leaks nothing
# expect: clean
# boot: shared
# timeout: 90
# shellcheck disable=SC2016 # conditions in single quotes are eval'ed later
#
# The tables are tests/data/rqpath-bad-tables.txt, the messages
# tests/data/rqpath-bad-messages.txt (both describe their format).  Each
# bad table must make `dmsetup create` fail, leave no device behind, and
# put the expected reason in the kernel log; each bad message must fail
# with EINVAL, log the expected warning, and change nothing.  At the end no
# rqpath device is left and dm_rqpath unloads (no leaked reference).

# shellcheck source=tests/guest/rqpath.sh
. /rqpath/rqpath.sh

TABLES=$RQ_DATA/rqpath-bad-tables.txt
MESSAGES=$RQ_DATA/rqpath-bad-messages.txt
MARK=0

scenario_run() {
	rqp_init
	rq_no_trigger "checks that bad tables and messages are refused with their reasons (at least 20 and 10, each a failed check if accepted), the same on every stage: no bug's trigger to fire"
	for f in "$TABLES" "$MESSAGES"; do
		[ -r "$f" ] || rq_fail "$f is not in the guest image (build-initramfs copies tests/data to /rqpath/data)"
	done
	# num_parts=1: a partition table on the shared store, so both paths
	# have a first partition.
	if ! rq_failed && rqp_setup num_parts=1 && make_devices; then
		check_tables
		check_feature_case
		check_messages
		check_rqpathctl_refusals
	fi
	rqp_finish clean
}

# Feature names are case-insensitive (as dm-multipath's); TABLE prints them
# in the canonical case.
check_feature_case() {
	rqp_run "a feature in capitals" rqp_dmsetup create rqp-f \
		--table "0 $RQP_SECTORS rqpath 2 $RQP_P1 $RQP_P2 1 QUEUE_IF_NO_PATH" || return
	got=$(dmsetup table rqp-f)
	[ "$got" = "0 $RQP_SECTORS rqpath 2 $RQP_M1 $RQP_M2 1 queue_if_no_path" ] ||
		rq_fail "a feature in capitals: table '$got'"
	rqp_run "remove rqp-f" rqp_dmsetup remove rqp-f
}

# Other devices the bad tables need: a bio-based dm-linear device, a
# partition, a loop device with 4096-byte logical blocks.
make_devices() {
	LIN=/dev/mapper/rqp-lin LINSZ=32768
	rqp_run "dm-linear device" rqp_dmsetup create rqp-lin --table "0 $LINSZ linear $RQP_P2 0" || return 1
	[ -b $LIN ] || { rq_fail "no $LIN"; return 1; }
	PART=${RQP_P1}1
	rq_wait 5 "the partition node" test -b "$PART"
	[ -b "$PART" ] || { rq_fail "precondition: scsi_debug num_parts=1 made no partition $PART"; return 1; }
	PARTSZ=$(blockdev --getsz "$PART")
	# A partition's size need not suit the table: use whole 4k blocks.
	PARTSZ=$((PARTSZ / 8 * 8))
	dd if=/dev/zero of=/tmp/rqp-4k.img bs=1M count=4 status=none
	if ! LOOP=$(losetup -f --show --sector-size 4096 /tmp/rqp-4k.img 2>/tmp/rqp-losetup.err); then
		rq_fail "precondition: losetup --sector-size 4096 failed: $(cat /tmp/rqp-losetup.err)"
		return 1
	fi
	RQP_LOOPS="$LOOP"
	lbs=$(blockdev --getss "$LOOP")
	[ "$lbs" = 4096 ] || { rq_fail "precondition: $LOOP has logical block size $lbs, not 4096"; return 1; }
	LOOPSZ=$(blockdev --getsz "$LOOP")
	rq_detail other_devices "$LIN (dm-linear, $LINSZ sectors), $PART ($PARTSZ sectors), $LOOP (4096-byte blocks, $LOOPSZ sectors)"
}

# subst FILE: the data lines of FILE (comments and blank lines dropped)
# with the placeholders replaced.
subst() {
	paths33=""
	i=0
	while [ $i -lt 33 ]; do
		if [ $((i % 2)) = 0 ]; then paths33="$paths33 $RQP_P1"; else paths33="$paths33 $RQP_P2"; fi
		i=$((i + 1))
	done
	sed -e '/^#/d' -e '/^[[:space:]]*$/d' -e "s#@PATHS33@#${paths33# }#g" \
		-e "s#@P1@#$RQP_P1#g" -e "s#@P2@#$RQP_P2#g" -e "s#@M1@#$RQP_M1#g" -e "s#@M2@#$RQP_M2#g" \
		-e "s#@SZ@#$RQP_SECTORS#g" -e "s#@BIG@#$((RQP_SECTORS + 8))#g" \
		-e "s#@LIN@#$LIN#g" -e "s#@LINSZ@#$LINSZ#g" -e "s#@PART@#$PART#g" -e "s#@PARTSZ@#$PARTSZ#g" \
		-e "s#@LOOP@#$LOOP#g" -e "s#@LOOPSZ@#$LOOPSZ#g" -e "s#@LOOPODD@#$((LOOPSZ - 1))#g" \
		-e "s#@SELF@#${SELF:-}#g" -e "s#@DM@#${SELF:-}#g" "$1"
}

# Every case writes a numbered mark into the kernel log before it runs;
# what the kernel logged after mark N is case N's.  Forks are what costs
# under TCG, so the log is read once, after all cases of a kind.
mark() {
	MARK=$((MARK + 1))
	echo "rqpath-bad-table: mark $MARK:" > /dev/kmsg
}

# expect_logged KIND CASES: CASES has lines "mark<TAB>what<TAB>expected
# text"; each expected text must be in the kernel log after its mark.
# Prints one line per case that missed it: "what<TAB>expected<TAB>log".
expect_logged() {
	dmesg | awk -F'\t' -v cases="$2" '
		BEGIN { while ((getline l < cases) > 0) { split(l, f, "\t"); what[f[1]] = f[2]; want[f[1]] = f[3] } }
		/rqpath-bad-table: mark [0-9]+:/ { sub(/.*rqpath-bad-table: mark /, ""); sub(/:.*/, ""); cur = $0; next }
		cur in want { if (index($0, want[cur])) ok[cur] = 1; else got[cur] = got[cur] " " $0 }
		END { for (m in want) if (!ok[m]) printf "%s\t%s\t%s\n", what[m], want[m], got[m] }'
}

# Number of device-mapper devices, without a fork.
count_dm() {
	ndm=0
	for d in /sys/block/dm-*; do
		[ -e "$d" ] && ndm=$((ndm + 1))
	done
}

check_tables() {
	ntables=0
	subst "$TABLES" > /tmp/rqp-tables.txt
	: > /tmp/rqp-table-cases.txt
	: > /tmp/rqp-table-errnos.txt
	count_dm
	before=$ndm
	while IFS= read -r line; do
		what=${line%% | *} rest=${line#* | }
		expect=${rest%% | *} table=${rest#* | }
		ntables=$((ntables + 1))
		mark
		printf '%s\t%s\t%s\n' "$MARK" "$what" "$expect" >> /tmp/rqp-table-cases.txt
		# dmsetup reads a table of several lines from stdin.
		if out=$(printf '%b\n' "$table" | rqp_dmsetup create rqp-bad 2>&1); then
			rq_fail "bad table accepted ($what): $table"
			rqp_dmsetup remove rqp-bad > /dev/null 2>&1
		else
			# "... failed: Invalid argument", for the details.
			printf '%s\n' "$out" | sed -n 's/.*ioctl on .* failed: //p' >> /tmp/rqp-table-errnos.txt
		fi
		count_dm
		if [ "$ndm" != "$before" ]; then
			rq_fail "bad table ($what): a device was left behind ($ndm dm devices, $before before)"
			rqp_dmsetup remove rqp-bad > /dev/null 2>&1
			count_dm
			before=$ndm
		fi
	done < /tmp/rqp-tables.txt
	expect_logged table /tmp/rqp-table-cases.txt > /tmp/rqp-table-missed.txt
	while IFS="$(printf '\t')" read -r what expect got; do
		rq_fail "bad table ($what): no '$expect' in the kernel log, got:$got"
	done < /tmp/rqp-table-missed.txt
	nok=$((ntables - $(wc -l < /tmp/rqp-table-missed.txt)))
	rq_detail_json bad_tables "{\"checked\": $ntables, \"refused_with_the_expected_reason\": $nok, \"errors\": {$(sort /tmp/rqp-table-errnos.txt | uniq -c | awk '{ n = $1; $1 = ""; sub(/^ /, ""); printf "%s\"%s\": %d", s, $0, n; s = ", " }')}}"
	rq_log "bad tables: $nok of $ntables refused with the expected reason"
	[ "$ntables" -ge 20 ] || rq_fail "only $ntables bad tables in $TABLES (20 wanted)"
}

check_messages() {
	rqp_run "create the target for the messages" rqp_dmsetup create rqp-m \
		--table "0 $RQP_SECTORS rqpath 2 $RQP_P1 $RQP_P2" || return 1
	SELF=$(rq_devno "$(rq_dm_blkname rqp-m)")
	# Counters that are not zero, so that a reset would show.
	dd if=/dev/mapper/rqp-m of=/dev/null bs=4k count=4 iflag=direct 2>/dev/null
	rqp_st rqp-m || return 1
	before=$ST_line
	nmsgs=0
	subst "$MESSAGES" > /tmp/rqp-msgs.txt
	: > /tmp/rqp-msg-cases.txt
	while IFS= read -r line; do
		what=${line%% | *} rest=${line#* | }
		expect=${rest%% | *} msg=${rest#* | }
		nmsgs=$((nmsgs + 1))
		mark
		printf '%s\t%s\t%s\n' "$MARK" "$what" "$expect" >> /tmp/rqp-msg-cases.txt
		# shellcheck disable=SC2086 # the message is words
		if out=$(dmsetup message rqp-m 0 $msg 2>&1); then
			rq_fail "bad message accepted ($what): $msg"
		else
			case $out in
			*"Invalid argument"*) ;;
			*) rq_fail "bad message refused, but not with EINVAL ($what): $out" ;;
			esac
		fi
	done < /tmp/rqp-msgs.txt
	expect_logged message /tmp/rqp-msg-cases.txt > /tmp/rqp-msg-missed.txt
	while IFS="$(printf '\t')" read -r what expect got; do
		rq_fail "bad message ($what): no '$expect' in the kernel log, got:$got"
	done < /tmp/rqp-msg-missed.txt
	nok=$((nmsgs - $(wc -l < /tmp/rqp-msg-missed.txt)))
	rq_detail_json bad_messages "{\"checked\": $nmsgs, \"warned_with_the_expected_text\": $nok}"
	rq_log "bad messages: $nok of $nmsgs refused with the expected warning"
	[ "$nmsgs" -ge 10 ] || rq_fail "only $nmsgs bad messages in $MESSAGES (10 wanted)"
	# None of them changed anything.
	rqp_st rqp-m
	[ "$ST_line" = "$before" ] || rq_fail "bad messages changed the status: before '$before', after '$ST_line'"
	# The target still works.
	rqp_run "a read after the bad messages" timeout 10 dd if=/dev/mapper/rqp-m of=/dev/null bs=4k count=2 iflag=direct
	rqp_run "a good message after the bad ones" dmsetup message rqp-m 0 fail_path "$RQP_M1"
	rqp_st rqp-m && rqp_st_check "fail_path after the bad messages did not fail path 1" '[ "$RQ_PATH1_STATE$RQ_PATH2_STATE" = FA ]'
	# Names are case-insensitive, as dm-multipath's.
	rqp_run "a message in capitals" dmsetup message rqp-m 0 REINSTATE_PATH "$RQP_M1"
	rqp_st rqp-m && rqp_st_check "REINSTATE_PATH did not reinstate path 1" '[ "$RQ_PATH1_STATE$RQ_PATH2_STATE" = AA ]'
	# A suspended device refuses messages (EBUSY), as dm-multipath does.
	rqp_run "suspend for a message" dmsetup suspend rqp-m || return 1
	if out=$(dmsetup message rqp-m 0 fail_path "$RQP_M1" 2>&1); then
		rq_fail "a message to the suspended device was accepted"
	else
		case $out in
		*"Device or resource busy"*) ;;
		*) rq_fail "a message to the suspended device was refused, but not with EBUSY: $out" ;;
		esac
	fi
	rqp_run "resume after the message" dmsetup resume rqp-m
	rqp_st rqp-m && rqp_st_check "the refused message changed a path" '[ "$RQ_PATH1_STATE$RQ_PATH2_STATE" = AA ]'
}

# rqpathctl passes the kernel's reason on, and a refused create leaves
# nothing behind.
check_rqpathctl_refusals() {
	rqpathctl message rqp-m frobnicate > /tmp/rqp-ctl.out 2>&1
	rc=$?
	rq_detail rqpathctl_bad_message "exit $rc: $(tr '\n' '|' < /tmp/rqp-ctl.out)"
	[ $rc = 3 ] || rq_fail "rqpathctl message frobnicate: exit $rc, not 3 (a failure)"
	grep -q 'unrecognised message frobnicate' /tmp/rqp-ctl.out ||
		rq_fail "rqpathctl message frobnicate does not show the kernel's reason: $(tr '\n' ' ' < /tmp/rqp-ctl.out)"

	rqpathctl fail-path rqp-m "$LOOP" > /tmp/rqp-ctl.out 2>&1
	rc=$?
	rq_detail rqpathctl_fail_not_a_path "exit $rc: $(tr '\n' '|' < /tmp/rqp-ctl.out)"
	[ $rc = 3 ] || rq_fail "rqpathctl fail-path of a device that is not a path: exit $rc, not 3 (a failure)"

	rqpathctl create rqp-x "$RQP_P1" "$LOOP" > /tmp/rqp-ctl.out 2>&1
	rc=$?
	rq_detail rqpathctl_create_mixed_block_sizes "exit $rc: $(tr '\n' '|' < /tmp/rqp-ctl.out)"
	[ $rc = 3 ] || rq_fail "rqpathctl create over 512- and 4096-byte paths: exit $rc, not 3 (a failure)"
	grep -q 'Path devices have different logical block sizes' /tmp/rqp-ctl.out ||
		rq_fail "rqpathctl create over mixed block sizes does not show the kernel's reason: $(tr '\n' ' ' < /tmp/rqp-ctl.out)"
	if dmsetup info rqp-x > /dev/null 2>&1 || [ -e /dev/mapper/rqp-x ]; then
		rq_fail "a refused rqpathctl create left rqp-x behind"
	fi

	rqp_run "remove the message target" rqp_dmsetup remove rqp-m
	rqp_run "remove the dm-linear device" rqp_dmsetup remove rqp-lin
	left=$(dmsetup ls 2>&1)
	[ "$left" = "No devices found" ] || rq_fail "dm devices left after the bad tables: $(echo "$left" | tr '\n' ' ')"
}

# shellcheck shell=sh
# rqpath scenario: corruption-multiqueue
# summary: the targeted workload, plugged and unplugged, on multi-queue SCSI hosts (scsi_debug submit_queues=2, virtio-scsi num_queues=2): what the base stage does
# expect: clean; 6ce3dd6eec=corrupted|violated
# boot: shared
# timeout: 300
# qemu: virtio-mq-disk

# The question (tests/README.md, "Multi-queue hosts on base"): base has
# 6ce3dd6eec^'s direct issue, which went straight to the driver only for
# unplugged sync requests on devices with more than one hardware queue, and
# sent a request that failed that back to the software queue, where bios
# can merge into it.  So a multi-queue SCSI host might break the invariant
# on base too.  Four runs, each with its own oracle and trigger counts:
#   sd-plugged    scsi_debug, 2 submit queues, busy every 50th command,
#                 8 I/Os per submit (plugged: base never issues directly)
#   sd-unplugged  the same, one I/O per submit (unplugged O_DIRECT writes
#                 are sync: base issues them directly on this host)
#   vq-plugged, vq-unplugged   a virtio-scsi disk with two request queues,
#                 no injected busy: whatever the device does by itself
# The scenario's verdict comes from all four (the oracle and the bad
# blocks); the details keep each run's figures.

# shellcheck source=tests/guest/corruption.sh
. /rqpath/corruption.sh

MQ_SERIAL=RQPATHMQ01
# The targeted workload (corruption.sh) with the batch size of each run.
MQ_ARGS="--bs 4k --size 8m --order interleave-alternate --stride 2 --window 16 --qd 32 --prefill --passes 4 --time $(rq_workload_seconds 60) --cpu 1"
MQ_MIN_SD="busy_requeues=20 blocks_verified=8000"

# mq_run TAG DEV BATCH: one rqcheck run; appends "TAG verdict violations
# bad requeues candidates" to /tmp/mq-runs.txt.
mq_run() {
	tag=$1 dev=$2 batch=$3
	rq_oracle_start
	# shellcheck disable=SC2086
	rqcheck $MQ_ARGS --batch "$batch" --json "/tmp/mq-$tag.json" "$dev" > "/tmp/mq-$tag.txt" 2>&1
	rc=$?
	rq_oracle_read
	counts=$(awk -v d="${dev##*/}" '$1 == "disk" && $2 == d { print $4, $6 }' /tmp/rq-oracle.txt)
	echo "$tag $rc $RQ_VIOLATIONS $(jq '.totals.bad // 0' "/tmp/mq-$tag.json" 2>/dev/null) ${counts:-0 0} $(jq '.totals.blocks_verified // 0' "/tmp/mq-$tag.json" 2>/dev/null) $(find "/sys/block/${dev##*/}/mq" -mindepth 1 -maxdepth 1 | wc -l)" >> /tmp/mq-runs.txt
	cp /tmp/rq-oracle.json "/tmp/mq-$tag.oracle"
	case $rc in
	0|1) ;;
	*) rq_fail "$tag: rqcheck failed (exit $rc): $(tail -n 1 "/tmp/mq-$tag.txt")" ;;
	esac
}

scenario_run() {
	: > /tmp/mq-runs.txt
	rq_phase workload
	if rq_busy_disk_load submit_queues=2; then
		disk=$(rq_scsi_debug_disks | head -n1)
		rq_set_scheduler "$disk" none || rq_fail "cannot set scheduler none on $disk"
		mq_run sd-plugged "$disk" 8
		mq_run sd-unplugged "$disk" 1
		rmmod scsi_debug || rq_fail "rmmod scsi_debug failed"
	else
		rq_fail "the busy scsi_debug disk with 2 submit queues did not come up"
	fi
	if disk=$(rq_disks_by_serial $MQ_SERIAL); then
		rq_set_scheduler "$disk" none || rq_fail "cannot set scheduler none on $disk"
		mq_run vq-plugged "$disk" 8
		mq_run vq-unplugged "$disk" 1
	else
		rq_fail "no virtio-scsi disk $MQ_SERIAL"
	fi
	rq_phase evidence
	# One oracle over the whole scenario for the verdict: the sum.
	rq_detail_json runs "$(awk '{ printf "%s{\"run\": \"%s\", \"rqcheck_exit\": %d, \"violations\": %d, \"bad_blocks\": %d, \"busy_requeues\": %d, \"merge_candidates\": %d, \"blocks_verified\": %d, \"hw_queues\": %d}", s, $1, $2, $3, $4, $5, $6, $7, $8; s = ", " } BEGIN { printf "[" } END { printf "]" }' /tmp/mq-runs.txt)"
	for tag in sd-plugged sd-unplugged vq-plugged vq-unplugged; do
		[ -e "/tmp/mq-$tag.oracle" ] && rq_detail_json "oracle_$tag" "$(cat "/tmp/mq-$tag.oracle")"
	done
	for kv in $MQ_MIN_SD; do
		name=${kv%%=*}
		n=$(awk -v f="$name" '$1 ~ /^sd-/ { if (f == "busy_requeues") s += $5; else s += $7 } END { print s + 0 }' /tmp/mq-runs.txt)
		rq_trigger corruption "scsi_debug_$name" "$n" "${kv#*=}"
	done
	violations=$(awk '{ s += $3 } END { print s + 0 }' /tmp/mq-runs.txt)
	bad=$(awk '{ s += $4 } END { print s + 0 }' /tmp/mq-runs.txt)
	if [ "$bad" -gt 0 ]; then
		rq_finish corrupted "$bad bad blocks, $violations merges into prepared requests ($(awk '{ printf "%s%s: %d bad/%d violations", s, $1, $4, $3; s = ", " }' /tmp/mq-runs.txt))"
	elif [ "$violations" -gt 0 ]; then
		rq_finish violated "$violations merges into prepared requests, no bad block ($(awk '{ printf "%s%s: %d", s, $1, $3; s = ", " }' /tmp/mq-runs.txt))"
	else
		rq_finish clean
	fi
}

# shellcheck shell=sh
# The corruption scenarios (6ce3dd6eec): the targeted reproducer and the ext4
# workloads.  See tests/README.md, "How the corruption is targeted", for why
# these parameters keep a prepared request in the software queue long enough
# for a bio to be front-merged into it.
#
# Trigger evidence (details.trigger, family "corruption"), from the merge
# oracle's counts for the disk under test (it keeps them from the block
# tracepoints as they fire) and the workload's own; a clean or violated
# verdict without it is an error, on every stage:
#   busy_requeues     requests the driver handed back (block_rq_requeue)
#   merge_candidates  bios submitted right in front of (ending where it
#                     starts) a request that was handed back and had not
#                     completed yet: the chance the bug needs, whatever the
#                     stage then does with it
#   merges            front and back merges the oracle saw, at least 1: an
#                     oracle that saw no merge at all could not have seen
#                     one into a prepared request either
#   prepared_requeues, prepared_candidates
#                     the same two counts for requests handed back after
#                     the driver prepared them (RQF_DONTPREP): the only ones
#                     a merge can corrupt.  Where the disk under test is a
#                     SCSI disk that answers busy after preparing (scsi_debug
#                     opts 0x8000, libata's deferral); not through dm-rqpath
#                     (corruption-rqpath), whose dm device's requests are
#                     never prepared, by design
#   blocks_verified   blocks written and read back by the workload (by fio
#                     alone on ext4; file_blocks_verified, rqcheck's on its
#                     file there)

# scsi_debug, one host, one LUN, one hardware queue:
#   opts=0x8000 every_nth=50  every 50th command, queuecommand() returns
#                             SCSI_MLQUEUE_HOST_BUSY after the midlayer
#                             prepared it (RQF_DONTPREP): a failed direct
#                             issue that leaves the host blocked
#   ndelay=1000000            each command takes 1 ms, so the host stays
#                             blocked while earlier commands are in flight
#   statistics=1              every_nth counts commands only with it on
RQ_BUSY_DISK_PARAMS="dev_size_mb=64 statistics=1 opts=0x8000 every_nth=50 ndelay=1000000"

# The workload: windows of 16 blocks from the top of the region down; in
# each window the 8 even blocks are submitted in one io_uring_enter() (a
# plug), then the 8 odd ones, each of which lies right in front of an even
# block submitted just before.  Every second window ascends: a kernel that
# issues a plug in submission order (6.12) front-merges only there, one
# that issues it newest first (6.1) in both (tests/README.md, "The order of
# a plug decides front or back").
RQ_TARGETED_ARGS="--bs 4k --size 8m --order interleave-alternate --stride 2 --window 16 --batch 8 --qd 32 --prefill --passes 16 --time $(rq_workload_seconds 90) --cpu 1"

# Traced only to explain bad blocks (rq_trace_evidence).
RQ_TRACE_EVENTS="block_rq_issue block_rq_requeue block_rq_complete block_bio_frontmerge"

# Minimum trigger counts.  Measured on every stage (tests/bench --only
# evidence), with a wide margin: a run below them did not exercise the bug's
# preconditions, whatever its data says.
RQ_MIN_TARGETED="busy_requeues=20 merge_candidates=5 prepared_requeues=1 prepared_candidates=1 blocks_verified=30000"
# shellcheck disable=SC2034 # used by the scenarios
RQ_MIN_RQPATH="busy_requeues=20 merge_candidates=5 blocks_verified=30000"
# shellcheck disable=SC2034 # used by the scenarios
RQ_MIN_EXT4="busy_requeues=5 merge_candidates=1 prepared_requeues=1 blocks_verified=3000"
# shellcheck disable=SC2034 # used by the scenarios
RQ_MIN_SATA="busy_requeues=5 merge_candidates=1 prepared_requeues=1 blocks_verified=3000"
# One whole pass of rqcheck over its 8 MiB file on ext4.
RQ_MIN_FILE_BLOCKS=2048

# shellcheck disable=SC2120 # extra scsi_debug parameters are optional
rq_busy_disk_load() {
	# shellcheck disable=SC2086
	rq_scsi_debug_load $RQ_BUSY_DISK_PARAMS "$@"
}

# rq_busy_disk: load the busy disk, scheduler none; prints its node.
rq_busy_disk() {
	rq_busy_disk_load || { rq_log "busy scsi_debug disk did not come up"; return 1; }
	disk=$(rq_scsi_debug_disks | head -n1)
	rq_set_scheduler "$disk" none || { rq_log "cannot set scheduler none on $disk"; return 1; }
	rq_detail disk "$disk"
	rq_detail scsi_debug_params "$RQ_BUSY_DISK_PARAMS"
	echo "$disk"
}

# rq_corruption_trigger DEV BLOCKS_VERIFIED MINIMA: the trigger evidence of
# one run (see the top of this file), from the oracle's counts for DEV's
# disk, which it keeps from the block tracepoints as they fire.
rq_corruption_trigger() {
	disk=${1##*/} verified=$2 minima=$3
	rq_oracle_read
	read -r requeues candidates prepared_requeues prepared_candidates <<EOF
$(awk -v d="$disk" '$1 == "disk" && $2 == d { print $4, $6, $8, $10 }' /tmp/rq-oracle.txt)
EOF
	merges=$(awk '$1 == "front_merges" || $1 == "back_merges" { n += $2 } END { print n + 0 }' /tmp/rq-oracle.txt)
	for kv in $minima; do
		name=${kv%%=*} min=${kv#*=}
		case $name in
		busy_requeues) n=$requeues ;;
		merge_candidates) n=$candidates ;;
		prepared_requeues) n=$prepared_requeues ;;
		prepared_candidates) n=$prepared_candidates ;;
		blocks_verified) n=$verified ;;
		*) n="" ;;	# a name this family does not count: never met
		esac
		rq_trigger corruption "$name" "$n" "$min"
	done
	rq_trigger corruption merges "$merges" 1
}

# rq_targeted_workload DEV [MINIMA]: run rqcheck under block tracing; record the
# figures, the bad blocks, the trigger evidence and the trace lines that
# explain the bad blocks.  Prints the verdict (clean, corrupted or error)
# for the caller to report.
rq_targeted_workload() {
	dev=$1
	rq_detail rqcheck_args "$RQ_TARGETED_ARGS"
	# shellcheck disable=SC2086
	if ! rq_trace_start $RQ_TRACE_EVENTS; then
		rq_detail reason "cannot enable block tracepoints"
		echo error
		return
	fi
	rq_phase workload
	# shellcheck disable=SC2086
	rqcheck $RQ_TARGETED_ARGS --json /tmp/rqcheck.json "$dev" > /tmp/rqcheck.txt 2>&1
	rc=$?
	rq_phase evidence
	# The trace only explains bad blocks: read it only when there are some.
	if [ "$rc" = 1 ]; then rq_trace_stop /tmp/trace.txt; else rq_trace_stop /dev/null; fi
	verified=$(jq '.totals.blocks_verified // 0' /tmp/rqcheck.json 2>/dev/null)
	rq_corruption_trigger "$dev" "${verified:-0}" "${2:-$RQ_MIN_TARGETED}"
	rq_rqcheck_verdict "$rc" /tmp/rqcheck.json /tmp/rqcheck.txt /tmp/trace.txt
}

# rq_rqcheck_verdict EXIT JSON TEXT TRACE: details and verdict of one run.
rq_rqcheck_verdict() {
	rc=$1 json=$2 text=$3 trace=$4
	rq_detail_json rqcheck_exit "$rc"
	if [ -s "$json" ] && jq -e . "$json" > /dev/null 2>&1; then
		rq_detail_json rqcheck "$(jq -c '{result, seed, first_bad_seconds, workload_seconds,
			generations: (.generations | length), totals: .totals,
			bad_blocks: [.bad_blocks[:64][] | {lba, lba_last, class, reread_class, location, found_seconds}]}' "$json")"
	fi
	case $rc in
	0)	echo clean ;;
	1)	rq_trace_evidence "$json" "$trace"
		rq_detail reason "$(jq -r '"\(.totals.bad) bad blocks, first after \(.first_bad_seconds)s"' "$json")"
		echo corrupted ;;
	*)	rq_detail_file rqcheck_output "$text" 20
		rq_detail reason "rqcheck failed (exit $rc)"
		echo error ;;
	esac
}

# For the first bad blocks, the block tracepoint lines that explain them:
# the request for the block behind the lost one (sector "next") failing to
# issue and being requeued, the lost bio's front merge into it, and the
# merged request's issue and completion, which credits the front bio with
# the bytes of the original part.
rq_trace_evidence() {
	json=$1 trace=$2
	[ -s "$trace" ] || return 0
	jq -r '.bad_blocks[:4][] | "\(.lba) \(.lba_last)"' "$json" > /tmp/bad-lbas.txt
	: > /tmp/evidence.txt
	while read -r first last; do
		next=$((last + 1))
		echo "--- bad sectors $first..$last; the request it merged into started at $next" >> /tmp/evidence.txt
		# the last front merge of the lost bio, and the events around it
		awk -v first="$first" -v next_="$next" '
			/block_bio_frontmerge/ && index($0, " " first " + ") { fm = NR }
			{ line[NR] = $0 }
			END {
				if (!fm) { print "(no front merge of this sector in the trace)"; exit }
				for (i = fm - 400; i <= fm + 400; i++) {
					if (i < 1 || !(i in line)) continue
					l = line[i]
					if (index(l, " " first " + ") || index(l, " " next_ " + ")) {
						if (i < fm && l !~ /block_rq_requeue|block_rq_issue/) continue
						sub(/^ +/, "", l); print l
					}
				}
			}' "$trace" | tail -n 8 >> /tmp/evidence.txt
	done < /tmp/bad-lbas.txt
	rq_detail_file trace_evidence /tmp/evidence.txt 60
}

# rq_ext4_rqcheck: the targeted workload (RQ_TARGETED_ARGS) on an 8 MiB file
# of the mounted filesystem, O_DIRECT through ext4: ext4 lays the file out
# contiguously, so the interleaved order reaches the disk as it does on the
# raw device, and a bio lands right in front of a request that failed
# direct issue out of a plug.  fio's jobs, unplugged or adjacent, rarely
# build that on scsi_debug (tests/README.md says why).  Sets file_rc,
# file_bad, file_verified.
rq_ext4_rqcheck() {
	dd if=/dev/zero of=/mnt/rq/rqcheck.data bs=1M count=8 conv=fsync 2>/dev/null
	# shellcheck disable=SC2086
	rqcheck $RQ_TARGETED_ARGS --json /tmp/fio-rqcheck.json /mnt/rq/rqcheck.data > /tmp/fio-rqcheck.txt 2>&1
	file_rc=$?
	file_bad=$(jq '.totals.bad // 0' /tmp/fio-rqcheck.json 2>/dev/null)
	file_verified=$(jq '.totals.blocks_verified // 0' /tmp/fio-rqcheck.json 2>/dev/null)
	rq_detail_json file_rqcheck "$(jq -c --argjson rc "$file_rc" '{exit: $rc, result, totals,
		bad_blocks: [.bad_blocks[:16][] | {lba, class, location, found_seconds}]}' /tmp/fio-rqcheck.json 2>/dev/null || echo "{\"exit\": $file_rc}")"
	case $file_rc in 0|1) ;; *) rq_detail_file file_rqcheck_output /tmp/fio-rqcheck.txt 10 ;; esac
	file_bad=${file_bad:-0} file_verified=${file_verified:-0}
}

# The ext4 workload: two fio jobs at once on a fresh ext4, in the spirit
# of the fio verify job that found the bug upstream.
#   buffered  4 KiB random writes through the page cache, fsync every 16
#   direct    4 KiB O_DIRECT writes walking backwards through a laid-out
#             file (contiguous on disk), 16 in flight, one per io_submit()
#             so nothing is plugged: each bio lies right in front of the
#             one before it
# Both write first, then, after the page cache was dropped, read back and
# verify (crc32c).  Then e2fsck -fn on the unmounted filesystem.
RQ_EXT4_FIO="--directory=/mnt/rq --bs=4k --verify=crc32c --randrepeat=1 --verify_fatal=0 --continue_on_error=verify --group_reporting=0
 --name=buffered --size=4m --rw=randwrite --ioengine=psync --fsync=16
 --name=direct --size=8m --rw=write:-8k --direct=1 --ioengine=libaio --iodepth=16 --iodepth_batch_submit=1"

# rq_ext4_workload DEV MINIMA [rqcheck]: mkfs, the fio jobs, with "rqcheck"
# also the targeted workload on an 8 MiB file of the filesystem (see
# rq_ext4_rqcheck), e2fsck; prints the verdict.
#   corrupted  rqcheck on a file found bad blocks, or, after a fio write
#              phase that completed cleanly, fio's verify found bad blocks
#              (at offsets) or e2fsck found damage
#   error      anything that stops the workload from proving either way: a
#              failed mkfs or mount, a write phase that failed (EIO, ENOSPC,
#              fio exit 1: whatever its verify says then), a missing or
#              unreadable fio output
rq_ext4_workload() {
	dev=$1 minima=$2 with_rqcheck=${3:-}
	jobs=$RQ_EXT4_FIO
	rm -f /tmp/fio-*
	rq_detail fio_jobs "$(echo "$jobs" | tr '\n' ' ')"
	if ! mkfs.ext4 -q -F -b 4096 "$dev" > /tmp/fio-mkfs.txt 2>&1; then
		rq_detail_file mkfs_output /tmp/fio-mkfs.txt 10
		rq_detail reason "mkfs.ext4 failed"
		echo error
		return
	fi
	mkdir -p /mnt/rq
	mount -t ext4 "$dev" /mnt/rq || { rq_detail reason "mount failed"; echo error; return; }
	t0=$(rq_now)
	# shellcheck disable=SC2086
	rq_trace_start $RQ_TRACE_EVENTS || { rq_detail reason "cannot enable block tracepoints"; umount /mnt/rq; echo error; return; }
	rq_phase workload
	# shellcheck disable=SC2086
	fio $jobs --do_verify=0 --output-format=json --output=/tmp/fio-write.json > /tmp/fio-write.err 2>&1
	write_rc=$?
	sync
	echo 3 > /proc/sys/vm/drop_caches
	rq_phase verify
	# shellcheck disable=SC2086
	fio $jobs --verify_only=1 --output-format=json --output=/tmp/fio-verify.json > /tmp/fio-verify.err 2>&1
	verify_rc=$?
	rq_detail_json workload_seconds "$(rq_since "$t0")"
	file_bad=0 file_verified=0
	[ -n "$with_rqcheck" ] && rq_ext4_rqcheck
	umount /mnt/rq || rq_log "umount /mnt/rq failed"
	rq_trace_stop /dev/null
	e2fsck -fn "$dev" > /tmp/fio-e2fsck.txt 2>&1
	fsck_rc=$?
	rq_phase evidence
	rq_detail_json fio_exit "{\"write\": $write_rc, \"verify\": $verify_rc, \"e2fsck\": $fsck_rc}"
	for phase in write verify; do
		# fio may print warnings before its JSON
		sed -n '/^{/,$p' "/tmp/fio-$phase.json" > "/tmp/fio-$phase.clean" 2>/dev/null
		errs=$(jq -c '[.jobs[] | {(.jobname): .error}] | add' "/tmp/fio-$phase.clean" 2>/dev/null)
		rq_detail_json "fio_${phase}_errors" "${errs:-null}"
	done
	# With continue_on_error=verify fio goes on after a bad block and may
	# exit 0: the failures it printed, each naming an offset, are what
	# counts.
	grep -E 'verify.*(failed|bad).*offset [0-9]+' /tmp/fio-verify.err > /tmp/fio-bad.txt
	bad=$(wc -l < /tmp/fio-bad.txt)
	rq_detail_json fio_verify_failures "$bad"
	rq_detail_file fio_verify_messages /tmp/fio-bad.txt 8
	rq_dmesg | grep -E 'EXT4-fs (error|warning)|JBD2' | head -n 8 > /tmp/fio-ext4-messages.txt
	rq_detail_file ext4_messages /tmp/fio-ext4-messages.txt 8
	grep 'EXT4-fs error' /tmp/fio-ext4-messages.txt > /tmp/fio-ext4-errors.txt
	[ "$fsck_rc" = 0 ] || rq_detail_file e2fsck_output /tmp/fio-e2fsck.txt 12
	written_ok=$(jq '[.jobs[] | .error] | all(. == 0)' /tmp/fio-write.clean 2>/dev/null)
	# Blocks the verify pass read back (4 KiB each), for the trigger.
	verified=$(jq '[.jobs[].read.io_bytes] | add / 4096 | floor' /tmp/fio-verify.clean 2>/dev/null)
	rq_corruption_trigger "$dev" "${verified:-0}" "$minima"
	[ -n "$with_rqcheck" ] && rq_trigger corruption file_blocks_verified "$file_verified" "$RQ_MIN_FILE_BLOCKS"
	# fio's verify reads what its write phase wrote: after a write phase
	# that failed (EIO, ENOSPC), its bad blocks are blocks never written,
	# not corruption.  rqcheck on a file writes and verifies on its own
	# (it verifies only generations whose writes completed): its bad
	# blocks count whatever fio's write phase did.
	if [ "$file_bad" -gt 0 ]; then
		rq_detail reason "rqcheck on a file: $file_bad bad blocks; fio verify: $bad blocks bad at their offsets (write exit $write_rc); e2fsck exit $fsck_rc"
		echo corrupted
	elif [ ! -s /tmp/fio-write.clean ]; then
		rq_detail_file fio_output /tmp/fio-write.err 10
		rq_detail reason "fio's write phase wrote no JSON output (write exit $write_rc, verify exit $verify_rc)"
		echo error
	elif [ "$write_rc" != 0 ] || [ "$written_ok" != true ]; then
		rq_detail_file fio_output /tmp/fio-write.err 10
		rq_detail reason "the fio write phase failed (exit $write_rc, job errors $(jq -c '[.jobs[].error]' /tmp/fio-write.clean 2>/dev/null)): nothing to verify (fio verify then named $bad bad blocks)"
		echo error
	elif [ "$bad" -gt 0 ]; then
		# (fio's verify phase may write no JSON when it finds bad blocks:
		# the offsets it printed are the evidence.)
		rq_detail reason "fio verify: $bad blocks bad at their offsets; rqcheck on a file: $file_bad bad blocks; e2fsck exit $fsck_rc"
		echo corrupted
	elif [ ! -s /tmp/fio-verify.clean ]; then
		rq_detail_file fio_output /tmp/fio-verify.err 10
		rq_detail reason "fio's verify phase wrote no JSON output (verify exit $verify_rc)"
		echo error
	elif [ "$file_rc" != 0 ] && [ -n "$with_rqcheck" ]; then
		rq_detail reason "rqcheck on a file of the filesystem failed (exit $file_rc)"
		echo error
	elif [ "$verify_rc" != 0 ]; then
		rq_detail_file fio_output /tmp/fio-verify.err 10
		rq_detail reason "the fio verify phase failed (exit $verify_rc) without naming a bad block"
		echo error
	elif [ "$fsck_rc" -ge 8 ]; then
		rq_detail reason "e2fsck could not check the filesystem (exit $fsck_rc)"
		echo error
	elif [ "$fsck_rc" = 4 ] || [ -s /tmp/fio-ext4-errors.txt ]; then
		rq_detail reason "e2fsck found damage (exit $fsck_rc) after a clean write phase; $(wc -l < /tmp/fio-ext4-errors.txt) ext4 errors"
		echo corrupted
	else
		echo clean
	fi
}

# shellcheck shell=sh
# tests/explore's trials: one configuration drawn from tests/explore.toml,
# set up and judged by the suite's own oracles.  A trial is a line of
# NAME=VALUE words; scenario "explore:SEED:N" finds its line in
# /rqpath/explore/trials (the layer tests/explore adds to the guest image),
# and a minimized finding is a scenario file that calls ex_trial itself.
#
# The judges, the same as every other family's:
#   corrupted   rqcheck read back a block that is not what it wrote
#   violated    the merge oracle saw a bio merged into a request its driver
#               had prepared (lib.sh turns clean into violated)
#   livelocked  an operation did not complete by its deadline, its
#               submitter sleeps in D state, and the top device handed a
#               request back again and again (block_rq_requeue, from the
#               merge oracle's per-disk count) over a window in which no
#               request of the op's kind completed there
#   warned      the kernel reported something (lib.sh)
#   error       an operation that failed or hung without those signs, a
#               setup that did not come up
#   skipped     the configuration asks for what the device cannot do
#               (discard on a disk without it)
#
# Trigger evidence (details.trigger, family "explore"): the operations the
# trial completed (at least one), and, recorded as measured, the requeues
# and merge candidates the oracle counted on the disks: what the campaign
# reports as the share of trials that reached a busy path.

# shellcheck source=tests/guest/corruption.sh
. /rqpath/corruption.sh

EX_KEYS="dev paths sd_queue sd_submit_queues sd_busy sd_nth sd_delay sd_cache sd_discard stack sched op fs engine bs order window qd batch cpu"
EX_DM=rqex
EX_MNT=/mnt/explore
# rqcheck's region is EX_BLOCKS blocks of the trial's size (a generation
# of 512-byte blocks at queue depth 1 on a 1 ms device must still end well
# inside an operation's deadline); the op loop's region follows it.
EX_BLOCKS=512
EX_OP_LEN=1048576
# Seconds an operation may take, before the kernel's slowdown, and the
# window over which a stuck one must keep being handed back.
EX_OP_DEADLINE=20
EX_STUCK_WINDOW=3

ex_log() { rq_log "explore: $*"; }

# ex_parse WORDS: EX_<key> for each key=value; every key, no other.
ex_parse() {
	EX_dev="" EX_paths="" EX_sd_queue="" EX_sd_submit_queues="" EX_sd_busy=""
	EX_sd_nth="" EX_sd_delay="" EX_sd_cache="" EX_sd_discard="" EX_stack=""
	EX_sched="" EX_op="" EX_fs="" EX_engine="" EX_bs="" EX_order=""
	EX_window="" EX_qd="" EX_batch="" EX_cpu=""
	for w in $1; do
		k=${w%%=*} v=${w#*=}
		case " $EX_KEYS " in
		*" $k "*) ;;
		*) rq_fail "unknown trial key '$k' in '$1'"; return 1 ;;
		esac
		case $v in
		''|*[!A-Za-z0-9_.+-]*) rq_fail "bad value '$v' of $k"; return 1 ;;
		esac
		eval "EX_$k=\$v"
	done
	for k in $EX_KEYS; do
		eval "[ -n \"\$EX_$k\" ]" || { rq_fail "trial lacks $k: '$1'"; return 1; }
	done
}

# --- devices ----------------------------------------------------------------

ex_sdebug_params() {
	p="dev_size_mb=64 statistics=1 max_queue=$EX_sd_queue submit_queues=$EX_sd_submit_queues"
	[ "$EX_paths" = 2 ] && p="$p add_host=2 vpd_use_hostno=0"
	[ "$EX_sd_discard" = on ] && p="$p lbpu=1 lbpws=1"
	[ "$EX_sd_delay" = default ] || p="$p ndelay=$EX_sd_delay"
	echo "$p"
}

# The injection is switched on once the disks are up: a scan that meets
# busy answers can drop the disk before the trial starts.
ex_sdebug_opts() {
	o=0
	case $EX_sd_busy in
	host) o=$((o | 0x8000)) ;;
	tsf) o=$((o | 0x800)) ;;
	esac
	[ "$EX_sd_cache" = wt ] && o=$((o | 0x1000))
	echo $o
}

# The serial of the disk behind each QEMU HBA (tests/harness/guest.py).
ex_hba_serial() {
	case $1 in
	virtio) echo RQPATHVD01 ;;
	megasas) echo RQPATHMEGA1 ;;
	lsi) echo RQPATHLSI01 ;;
	mptsas) echo RQPATHMPT01 ;;
	pvscsi) echo RQPATHPVS01 ;;
	esac
}

# ex_sdebug_share_slots: scsi_debug's max_queue command slots are one pool
# for all its hosts, but each host's can_queue is max_queue, so two paths
# could send twice what it holds; a command over it is answered TASK SET
# FULL with host byte DID_ABORT, an I/O error no real target would give.
# Each path's queue depth is its share of the slots instead (one path
# keeps the depth scsi_debug gives it).
ex_sdebug_share_slots() {
	[ "$EX_paths" -gt 1 ] || return 0
	depth=$((EX_sd_queue / EX_paths))
	[ "$depth" -ge 1 ] || depth=1
	for d in $EX_DISKS; do
		echo "$depth" > "/sys/block/${d##*/}/device/queue_depth" ||
			{ rq_fail "cannot set ${d##*/}'s queue_depth to $depth"; return 1; }
	done
	rq_detail sdebug_queue_depth "$depth per path"
}

# ex_disks: EX_DISKS, the disks under the stack.
ex_disks() {
	case $EX_dev in
	sdebug)
		# shellcheck disable=SC2046
		rq_scsi_debug_load $(ex_sdebug_params) || { rq_fail "scsi_debug did not load ($(ex_sdebug_params))"; return 1; }
		# shellcheck disable=SC2016 # evaluated by rq_wait
		rq_wait 10 "scsi_debug disks" eval '[ "$(rq_scsi_debug_disks | wc -l)" -ge "$EX_paths" ]' ||
			{ rq_fail "scsi_debug made fewer than $EX_paths disks"; return 1; }
		EX_DISKS=$(rq_scsi_debug_disks | tr '\n' ' ')
		ex_sdebug_share_slots || return 1
		d=/sys/bus/pseudo/drivers/scsi_debug
		[ "$EX_sd_busy" = none ] || echo "$EX_sd_nth" > $d/every_nth || { rq_fail "cannot set every_nth"; return 1; }
		ex_sdebug_opts > $d/opts || { rq_fail "cannot set scsi_debug opts"; return 1; }
		rq_detail scsi_debug "$(ex_sdebug_params) opts=$(ex_sdebug_opts) every_nth=$(cat $d/every_nth)" ;;
	ahci)
		rq_wait 15 "the AHCI disk" rq_qemu_disks ATA > /dev/null || { rq_fail "no AHCI disk"; return 1; }
		EX_DISKS=$(rq_qemu_disks ATA) ;;
	virtio|megasas|lsi|mptsas|pvscsi)
		# An HBA's bus scan may still run when the first trial starts.
		serial=$(ex_hba_serial "$EX_dev")
		rq_wait 15 "the $EX_dev disk" rq_disks_by_serial "$serial" > /dev/null ||
			{ rq_fail "no $EX_dev disk $serial (hosts: $(cat /sys/class/scsi_host/*/proc_name 2>/dev/null | tr "\n" " "))"; return 1; }
		EX_DISKS=$(rq_disks_by_serial "$serial") ;;
	*) rq_fail "unknown dev $EX_dev"; return 1 ;;
	esac
	EX_DISKS=$(echo "$EX_DISKS" | tr ' ' '\n' | grep . | head -n "$EX_paths" | tr '\n' ' ')
}

# ex_stack: EX_TOP, the device the workload runs on, and EX_QUEUES, every
# request queue of the stack (for the scheduler).
ex_stack() {
	# shellcheck disable=SC2086 # the disks are words
	set -- $EX_DISKS
	EX_QUEUES="$*"
	sectors=$(blockdev --getsz "$1")
	case $EX_stack in
	raw) EX_TOP=$1; return 0 ;;
	linear) table="0 $sectors linear $1 0" ;;
	stripe)
		# Two halves of scsi_debug's one store, 4 KiB chunks: every plug
		# of neighbouring blocks holds requests of both queues.
		[ $# = 2 ] || { rq_fail "stripe wants two disks, not: $*"; return 1; }
		half=$((sectors / 2 / 16 * 16))
		table="0 $((2 * half)) striped 2 8 $1 0 $2 $half" ;;
	multipath)
		rq_modprobe dm-multipath || { rq_fail "modprobe dm-multipath failed"; return 1; }
		paths=""
		for p; do paths="$paths $(rq_devno "$p") 1000"; done
		table="0 $sectors multipath 0 0 1 1 round-robin 0 $# 1$paths" ;;
	rqpath)
		rq_modprobe dm-rqpath || { rq_fail "modprobe dm-rqpath failed"; return 1; }
		table="0 $sectors rqpath $# $(for p; do rq_devno "$p"; done | tr '\n' ' ')" ;;
	*) rq_fail "unknown stack $EX_stack"; return 1 ;;
	esac
	if ! echo "$table" | dmsetup create "$EX_DM" > /tmp/ex-create.out 2>&1; then
		rq_fail "dmsetup create '$table' failed: $(tail -n 2 /tmp/ex-create.out | tr '\n' ' ')"
		return 1
	fi
	rq_detail dm_table "$table"
	dm=$(rq_dm_blkname "$EX_DM") || { rq_fail "no dm-N for $EX_DM"; return 1; }
	EX_TOP=/dev/$dm
	[ -d "/sys/block/$dm/mq" ] && EX_QUEUES="$EX_QUEUES $EX_TOP"
	return 0
}

ex_schedulers() {
	for q in $EX_QUEUES; do
		rq_set_scheduler "$q" "$EX_sched" || { rq_fail "cannot set scheduler $EX_sched on $q ($(cat "/sys/block/${q##*/}/queue/scheduler"))"; return 1; }
	done
}

# ex_supported OP: the top device can do OP (a discard on a disk without
# it proves nothing, and BLKZEROOUT would fall back to writes).
ex_supported() {
	q=/sys/block/${EX_TOP##*/}/queue
	case $1 in
	discard) [ "$(cat "$q/discard_max_bytes")" != 0 ] ;;
	write_zeroes) [ "$(cat "$q/write_zeroes_max_bytes")" != 0 ] ;;
	flush) grep -q 'write back' "$q/write_cache" ;;
	*) true ;;
	esac
}

# --- operations ---------------------------------------------------------------

# ex_op_loop OP DEV OFFSET SECONDS: OP over DEV's region at OFFSET, one at a
# time, for SECONDS; each completed one appends a line to /tmp/ex-ops.
ex_op_loop() {
	end=$(($(rq_cs) + $4 * 100))
	while [ "$(rq_cs)" -lt "$end" ]; do
		case $1 in
		discard) blkdiscard -f -o "$3" -l $EX_OP_LEN "$2" ;;
		write_zeroes) blkdiscard -f -z -o "$3" -l $EX_OP_LEN "$2" ;;
		# busybox sync FILE is fsync(): a flush of a write-back queue.
		flush) sync "$2" ;;
		esac || { echo "fail $1 $?" >> /tmp/ex-ops; return 1; }
		echo "done $1" >> /tmp/ex-ops
	done
}

ex_region_bytes() {
	case $EX_bs in
	*k) echo $((${EX_bs%k} * 1024 * EX_BLOCKS)) ;;
	*) echo $((EX_bs * EX_BLOCKS)) ;;
	esac
}

ex_rqcheck_args() {
	a="--bs $EX_bs --qd $EX_qd --batch $EX_batch --engine $EX_engine --order $EX_order --prefill --passes 1000"
	case $EX_order in
	interleave*) [ "$EX_window" = 0 ] || a="$a --window $EX_window" ;;
	esac
	[ "$EX_cpu" = any ] || a="$a --cpu $EX_cpu"
	echo "$a --size $(ex_region_bytes) --time $(rq_workload_seconds "$EX_SECONDS")"
}

# ex_d_state PID: PID or one of its children sleeps in D state.
ex_d_state() {
	for st in /proc/[0-9]*/stat; do
		read -r line < "$st" 2>/dev/null || continue
		# shellcheck disable=SC2086 # the fields after "pid (comm) "
		set -- ${line##*) }
		[ "$1" = D ] || continue
		p=${st#/proc/}
		[ "${p%/stat}" = "$PID_OF_OP" ] || [ "$2" = "$PID_OF_OP" ] && return 0
	done
	return 1
}

# ex_paths_idle: nothing in flight on any disk under the stack.
ex_paths_idle() {
	for d in $EX_DISKS; do
		[ "$(awk '{ print $1 + $2 }' "/sys/block/${d##*/}/inflight")" = 0 ] || return 1
	done
}

# The requeues the merge oracle has counted on DEV (it keeps them from
# block_rq_requeue as they fire).
ex_requeues() {
	rq_oracle_read
	awk -v d="$1" '$1 == "disk" && $2 == d { print $4 + 0 }' /tmp/rq-oracle.txt
}

# ex_stuck PID DEV OP: the operation of PID is livelocked on DEV: over
# EX_STUCK_WINDOW seconds DEV handed requests back (block_rq_requeue, the
# oracle's per-disk count) again and again, none of OP's kind completed
# there (/sys/block/DEV/stat), and the disks under it had room (nothing in
# flight at either end of the window): refused, not waiting for a device.
# (DEV's own inflight does not show a request that is handed back: it is
# idle between the tries.)  Records every signal and the submitter's
# state; true only if all of them agree.
ex_stuck() {
	PID_OF_OP=$1 dev=${2##*/} fields=$(ex_stat_fields "$3")
	r0=$(ex_requeues "$dev")
	# shellcheck disable=SC2086 # the fields are words
	c0=$(ex_completions "$dev" $fields)
	idle=true
	ex_paths_idle || idle=false
	rq_sleep "$(rq_workload_seconds $EX_STUCK_WINDOW)" "stuck window"
	r1=$(ex_requeues "$dev")
	# shellcheck disable=SC2086 # the fields are words
	c1=$(ex_completions "$dev" $fields)
	ex_paths_idle || idle=false
	d_state=false
	ex_d_state && d_state=true
	requeues=$((${r1:-0} - ${r0:-0}))
	rq_detail_json stuck "{\"requeues_in_window\": $requeues, \"completed_in_window\": $((c1 - c0)), \"paths_idle\": $idle, \"submitter_in_d_state\": $d_state}"
	[ "$requeues" -ge 10 ] && [ "$c1" = "$c0" ] && [ "$idle" = true ]
}

# The /sys/block/DEV/stat fields that count an op's completions:
# discards 12, flushes 16, writes 5 (BLKZEROOUT's write zeroes too),
# reads 1 and writes 5 for rqcheck, all of them for anything else (mkfs).
ex_stat_fields() {
	case $1 in
	discard) echo 12 ;;
	flush) echo 16 ;;
	write_zeroes) echo 5 ;;
	rw) echo 1 5 ;;
	*) echo 1 5 12 16 ;;
	esac
}

ex_completions() { # DEV FIELD...
	_dev=$1
	shift
	awk -v f="$*" '{ n = split(f, fs, " "); for (i = 1; i <= n; i++) s += $fs[i]; print s + 0 }' "/sys/block/$_dev/stat"
}

# ex_wait_op PID OP DEADLINE: wait for the operation; at its deadline judge
# it.  Sets EX_OUTCOME: ok, "exit N", livelocked or hung.
ex_wait_op() {
	rq_wait_pid "$1" "$3" > /dev/null 2>&1
	rc=$?
	case $rc in
	0) EX_OUTCOME=ok ;;
	124) if ex_stuck "$1" "$EX_TOP" "$2"; then EX_OUTCOME=livelocked; else EX_OUTCOME=hung; fi ;;
	*) EX_OUTCOME="exit $rc" ;;
	esac
}

# --- the trial ----------------------------------------------------------------

# The trial's workload ran: an operation completed, or one was judged
# stuck with every signal.  The oracle's counts over every disk are
# measured (tests/explore is guided by them): requests handed back (of
# those, after a direct issue), bios right in front of one (of those, while
# it sat in a queue a bio can merge into), and each for requests the driver
# had prepared; and the requests issued directly.
ex_trigger() { # OPERATIONS_JUDGED
	rq_oracle_read
	rq_trigger explore operations_judged "$1" 1
	set -- requeues 4 merge_candidates 6 prepared_requeues 8 prepared_candidates 10 \
		queued_candidates 12 prepared_queued_candidates 14 \
		direct_issues 16 direct_requeues 18 prepared_direct_requeues 20
	while [ $# -ge 2 ]; do
		rq_trigger explore "$1" "$(awk -v f="$2" '$1 == "disk" { n += $f } END { print n + 0 }' /tmp/rq-oracle.txt)" 0
		shift 2
	done
}

# ex_livelock_kind PID: what keeps the stuck operation PID from completing,
# in EX_LIVELOCK_KIND (and details.livelock_kind), so that a campaign can
# tell a livelock already explained from a new one (explore.toml, [known]):
#   paths_take_requests        a path is not blocked, or has requests in
#                              flight: the stack itself keeps handing the
#                              operation back (the 2018 livelock's kind)
#   blocked_path_released      every path is blocked with nothing in flight,
#                              and one direct read of each (a dispatch from
#                              outside the stack) let PID finish
#                              (Documentation/stock-mpath-ata-blocked.md)
#   blocked_path_not_released  the same paths, and the reads did not
# The request watch's verdict is recorded too, taken while still stuck.
ex_livelock_kind() {
	EX_LIVELOCK_KIND=blocked_path_not_released
	for d in $EX_DISKS; do
		n=${d##*/}
		blocked=$(cat "/sys/block/$n/device/device_blocked" 2> /dev/null || echo unknown)
		busy=$(cat "/sys/block/$n/device/device_busy" 2> /dev/null || echo unknown)
		rq_detail "path_$n" "device_blocked $blocked, device_busy $busy while stuck"
		{ [ "$blocked" != 0 ] && [ "$blocked" != unknown ] && [ "$busy" = 0 ]; } || EX_LIVELOCK_KIND=paths_take_requests
	done
	rqpathctl watch "$EX_TOP" --via trace --timeout 3 --json /tmp/ex-watch.json > /tmp/ex-watch.txt 2>&1
	rq_detail watchdog "exit $?: $(jq -c '{verdict, stuck_request, error}' /tmp/ex-watch.json 2> /dev/null || tail -n 1 /tmp/ex-watch.txt)"
	if [ "$EX_LIVELOCK_KIND" = blocked_path_not_released ]; then
		for d in $EX_DISKS; do
			dd if="$d" of=/dev/null bs=4k count=1 iflag=direct 2> /dev/null || rq_fail "a direct read of ${d##*/} failed"
		done
		# PID's own end is long past: it exits once its operation is done.
		rq_wait_pid "$1" "$(rq_workload_seconds 20)" > /dev/null 2>&1 && EX_LIVELOCK_KIND=blocked_path_released
	fi
	rq_detail livelock_kind "$EX_LIVELOCK_KIND"
}

# ex_stuck_verdict WHAT PID: an operation that never completes ends the
# trial and the boot (its submitter cannot be killed).
ex_stuck_verdict() {
	ex_livelock_kind "$2"
	ex_trigger 1
	rq_allow_report "INFO: task .* blocked for more than" "the trial's operation is stuck"
	rq_unusable "a trial operation ($1) is stuck in D state"
	rq_finish livelocked "$1 did not complete: requeued on $EX_TOP with nothing of its kind completing"
}

# ex_trial WORDS: run one trial and report its verdict.
ex_trial() {
	rq_detail trial "$1"
	ex_parse "$1" || { rq_finish error; return; }
	# tests/explore's settings, or the scenario file's own.
	[ -n "${EX_SECONDS:-}" ] || EX_SECONDS=$(sed -n 's/^seconds=//p' /rqpath/explore/settings 2>/dev/null)
	[ -n "$EX_SECONDS" ] || { rq_fail "no trial seconds (EX_SECONDS or /rqpath/explore/settings)"; rq_finish error; return; }
	rq_phase setup
	if ! { ex_disks && ex_stack && ex_schedulers; }; then
		rq_finish error
		return
	fi
	rq_detail top "$EX_TOP"
	side=${EX_op#rw+}
	[ "$side" = rw ] && side=""
	if [ -n "$side" ] && ! ex_supported "$side"; then
		rq_result skipped "$EX_TOP cannot do $side ($EX_dev, sd_discard=$EX_sd_discard, sd_cache=$EX_sd_cache)"
		return
	fi
	: > /tmp/ex-ops
	target=$EX_TOP
	if [ "$EX_fs" = ext4 ]; then
		# mke2fs discards the device first: an operation like the rest.
		mkfs.ext4 -q -F "$EX_TOP" > /tmp/ex-mkfs.out 2>&1 &
		mkfs_pid=$!
		ex_wait_op "$mkfs_pid" mkfs "$(rq_workload_seconds "$EX_OP_DEADLINE")"
		case $EX_OUTCOME in
		ok) ;;
		livelocked) ex_stuck_verdict mkfs "$mkfs_pid"; return ;;
		*) rq_fail "mkfs.ext4: $EX_OUTCOME: $(tail -n 1 /tmp/ex-mkfs.out)"; rq_finish error; return ;;
		esac
		mkdir -p $EX_MNT
		mount -t ext4 "$EX_TOP" $EX_MNT || { rq_fail "mount failed"; rq_finish error; return; }
		target=$EX_MNT/rqcheck.dat
		dd if=/dev/zero of="$target" bs="$EX_bs" count=$EX_BLOCKS 2> /dev/null || { rq_fail "cannot make $target"; rq_finish error; return; }
	fi
	rq_phase workload
	deadline=$(rq_workload_seconds $((EX_SECONDS + EX_OP_DEADLINE)))
	side_pid=""
	if [ -n "$side" ]; then
		side_dev=$EX_TOP
		[ "$EX_fs" = ext4 ] && side_dev=$target
		ex_op_loop "$side" "$side_dev" "$(ex_region_bytes)" "$(rq_workload_seconds "$EX_SECONDS")" &
		side_pid=$!
	fi
	rw_pid=""
	if [ "${EX_op%%+*}" = rw ]; then
		# shellcheck disable=SC2046
		rqcheck $(ex_rqcheck_args) --json /tmp/rqcheck.json "$target" > /tmp/rqcheck.txt 2>&1 &
		rw_pid=$!
		rq_detail rqcheck_args "$(ex_rqcheck_args)"
	fi
	verdict=clean reason="" stuck_pid=""
	if [ -n "$side_pid" ]; then
		ex_wait_op "$side_pid" "$side" "$deadline"
		case $EX_OUTCOME in
		ok) ;;
		exit*) rq_fail "$side failed: $(grep -v '^done' /tmp/ex-ops | head -n 1)" ;;
		livelocked)
			verdict=livelocked reason="a $side never completed: handed back again and again on $EX_TOP, the paths idle"
			stuck_pid=$side_pid ;;
		hung) rq_fail "a $side did not complete in ${deadline}s, and not every livelock signal agrees" ;;
		esac
	fi
	if [ -n "$rw_pid" ] && [ "$verdict" != livelocked ]; then
		ex_wait_op "$rw_pid" rw "$deadline"
		case $EX_OUTCOME in
		ok) verdict=$(rq_rqcheck_verdict 0 /tmp/rqcheck.json /tmp/rqcheck.txt /dev/null) ;;
		exit*) verdict=$(rq_rqcheck_verdict "${EX_OUTCOME#exit }" /tmp/rqcheck.json /tmp/rqcheck.txt /dev/null) ;;
		livelocked)
			verdict=livelocked reason="rqcheck never completed: handed back again and again on $EX_TOP, the paths idle"
			stuck_pid=$rw_pid ;;
		hung) rq_fail "rqcheck did not complete in ${deadline}s, and not every livelock signal agrees" ;;
		esac
	fi
	if [ "$verdict" = livelocked ]; then
		ex_livelock_kind "$stuck_pid"
		# A scenario may judge the livelock's kind before the verdict.
		! command -v ex_on_livelock > /dev/null || ex_on_livelock
	fi
	rq_phase evidence
	ops=$(grep -c '^done' /tmp/ex-ops)
	[ "$verdict" = livelocked ] && ops=$((ops + 1))
	[ -n "$rw_pid" ] && jq -e '.totals.blocks_verified > 0' /tmp/rqcheck.json > /dev/null 2>&1 && ops=$((ops + 1))
	ex_trigger "$ops"
	if [ "$verdict" = livelocked ] || rq_failed; then
		rq_allow_report "INFO: task .* blocked for more than" "the trial's operation is stuck"
		rq_unusable "a trial operation is stuck in D state"
	fi
	[ "$EX_fs" = ext4 ] && [ "$verdict" != livelocked ] && ! rq_failed && umount $EX_MNT
	rq_finish "$verdict" "$reason"
}

ex_scenario() { # NAME: a tests/explore trial from the image's trial list
	line=$(grep "^$1 " /rqpath/explore/trials 2>/dev/null | head -n 1)
	[ -n "$line" ] || { rq_result error "no trial $1 in /rqpath/explore/trials"; return; }
	ex_trial "${line#* }"
}

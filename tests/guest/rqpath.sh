# shellcheck shell=sh
# shellcheck disable=SC2016 # conditions in single quotes are eval'ed later
# Shared guest code of the rqpath-* scenarios: tests of the dm-rqpath target
# itself (dm-target/README.md is the contract), over two scsi_debug paths
# to one shared LUN.  Sourced by the scenario after tests/guest/lib.sh.
#
# A scenario calls rqp_init, then rqp_setup, runs its checks, and ends with
# rqp_finish.  A check that does not hold calls rqp_fail "what failed"; the
# scenario goes on where that makes sense (so that one run reports as much
# as it can) and rqp_finish turns any recorded failure into the verdict
# `error` with the first failure as `reason` and all of them in
# `failed_checks`.  rqp_finish also cleans up: dm devices, background
# processes, offline paths, loop devices, dm_rqpath and scsi_debug, so the
# next scenario of a shared boot starts fresh.  `rmmod dm_rqpath` failing
# there (a leaked reference) is itself a failed check.
#
# Under TCG every jq start costs more than half a second, so the status is
# parsed with awk (rqp_st), details are collected in a file and merged into
# the result with one jq at the end (rqp_detail, rqp_detail_json), and
# rqpathctl's JSON is checked against the raw status line only where a
# scenario asks for it (rqp_status_json).

RQP_FAILS=/tmp/rqp-fails.txt
RQP_DET=/tmp/rqp-details.tsv
# Data files (tests/data/rqpath-*), copied into the image by build-initramfs.
# shellcheck disable=SC2034 # used by the scenarios
RQP_DATA=/rqpath/data
# Two SCSI hosts, one LUN each, sharing scsi_debug's one store: two paths to
# one logical unit.  lbpu=1: UNMAP, so discard is supported (and lbprz=1, the
# default, reads unmapped blocks back as zeros).
RQP_SD_PARAMS="dev_size_mb=64 add_host=2 vpd_use_hostno=0 lbpu=1"
# The guest's busybox prefers its own applets to programs on PATH, even
# where the image has the util-linux program: call those by full path.
# shellcheck disable=SC2034 # used by the scenarios
RQP_BLKDISCARD=/usr/sbin/blkdiscard RQP_LOSETUP=/usr/sbin/losetup
# Device-mapper names the scenarios use; rqp_cleanup removes these.
RQP_PREFIX=rqp-

rqp_init() {
	rm -f /tmp/rqp-*
	: > "$RQP_FAILS"
	: > "$RQP_DET"
	RQP_PIDS=""
	RQP_LOOPS=""
	# What an earlier scenario of the boot left loaded is its failure, not
	# ours: note it, and fail only if it cannot be unloaded.
	for mod in dm_rqpath scsi_debug; do
		grep -q "^$mod " /proc/modules || continue
		if rmmod "$mod" 2> /tmp/rqp-rmmod.err; then
			rqp_detail "leftover_$mod" "$mod was loaded when the scenario started; unloaded"
		else
			rqp_fail "$mod was loaded when the scenario started and does not unload: $(cat /tmp/rqp-rmmod.err)"
		fi
	done
}

# dmsetup for commands that make or remove device nodes.  The guest runs no
# udev, and Debian's libdevmapper still leaves /dev/mapper to udev rules
# ("Skipping NODE_ADD ... [trust_udev]") unless DM_DISABLE_UDEV is set.
rqp_dmsetup() { DM_DISABLE_UDEV=1 dmsetup "$@"; }

rqp_fail() { # WHAT
	rq_log "CHECK FAILED: $*"
	printf '%s\n' "$*" >> "$RQP_FAILS"
}

rqp_failed() { [ -s "$RQP_FAILS" ]; }

rqp_nfails() { wc -l < "$RQP_FAILS" | tr -d ' '; }

# Details, merged into the result by rqp_finish.
rqp_detail() { # KEY STRING
	printf '%s\ts\t%s\n' "$1" "$(printf '%s' "$2" | tr '\t\n' '  ')" >> "$RQP_DET"
}
rqp_detail_json() { # KEY JSON (one line; kept as a string if it does not parse)
	printf '%s\tj\t%s\n' "$1" "$(printf '%s' "$2" | tr '\t\n' '  ')" >> "$RQP_DET"
}
rqp_detail_lines() { # KEY FILE [MAXLINES]: the file's last lines, as one string
	[ -r "$2" ] && rqp_detail "$1" "$(tail -n "${3:-20}" "$2" | tr '\n' '|')"
}

# rqp_run DESC CMD...: run CMD, output in /tmp/rqp-cmd.out; a non-zero exit
# is a failed check DESC (with the output's last lines).
rqp_run() {
	desc=$1
	shift
	if ! "$@" > /tmp/rqp-cmd.out 2>&1; then
		rqp_fail "$desc: '$*' failed: $(tail -n 2 /tmp/rqp-cmd.out | tr '\n' ' ')"
		return 1
	fi
}

# rqp_bg PIDVAR OUTFILE CMD...: start CMD in the background with its output
# in OUTFILE, remember its pid for rqp_cleanup, and store it in PIDVAR.
rqp_bg() {
	var=$1 bgout=$2
	shift 2
	"$@" > "$bgout" 2>&1 &
	eval "$var=\$!"
	RQP_PIDS="$RQP_PIDS $!"
}

# rqp_wait_pid PID SECONDS: wait for a background process at most SECONDS
# (0.1 s steps); its exit status, or 124 if it still runs.
rqp_wait_pid() {
	[ -n "$1" ] || return 127
	n=$(echo "$2" | awk '{ printf "%d", $1 * 10 }')
	while kill -0 "$1" 2>/dev/null; do
		if [ "$n" -le 0 ]; then
			return 124
		fi
		n=$((n - 1))
		sleep 0.1
	done
	wait "$1"
}

# (An empty pid must not reach kill: "kill -0 ''" is the process group.)
rqp_running() { [ -n "$1" ] && kill -0 "$1" 2>/dev/null; }

# --- devices ----------------------------------------------------------------

rqp_devno() { cat "/sys/block/${1##*/}/dev"; }


# Load dm-rqpath and scsi_debug (RQP_SD_PARAMS plus the arguments); sets
# RQP_P1 RQP_P2 (/dev nodes), RQP_M1 RQP_M2 (major:minor), RQP_SECTORS.
rqp_setup() {
	sd_params="$RQP_SD_PARAMS $*"
	if ! rq_modprobe dm-rqpath; then
		rqp_fail "modprobe dm-rqpath failed"
		return 1
	fi
	if ! dmsetup targets | grep -q '^rqpath '; then
		rqp_fail "dmsetup targets does not list rqpath"
		return 1
	fi
	rqp_detail rqpath_target "$(dmsetup targets | grep '^rqpath ' | tr -s ' ')"
	# shellcheck disable=SC2086
	if ! rq_scsi_debug_load $sd_params; then
		rqp_fail "scsi_debug did not load ($sd_params)"
		return 1
	fi
	# The second host's disk may be probed a little later.
	n=100
	while [ "$(rq_scsi_debug_disks | wc -l)" -lt 2 ] && [ $n -gt 0 ]; do
		sleep 0.1
		n=$((n - 1))
	done
	# shellcheck disable=SC2046
	set -- $(rq_scsi_debug_disks)
	if [ $# != 2 ]; then
		rqp_fail "expected 2 scsi_debug paths, found $#: $*"
		return 1
	fi
	for p in "$1" "$2"; do
		n=50
		while [ ! -b "$p" ] && [ $n -gt 0 ]; do sleep 0.1; n=$((n - 1)); done
	done
	RQP_P1=$1 RQP_P2=$2
	RQP_M1=$(rqp_devno "$1") RQP_M2=$(rqp_devno "$2")
	RQP_SECTORS=$(blockdev --getsz "$1")
	if [ "$(blockdev --getsz "$2")" != "$RQP_SECTORS" ]; then
		rqp_fail "the two paths differ in size"
		return 1
	fi
	rqp_detail paths "$RQP_P1 ($RQP_M1) $RQP_P2 ($RQP_M2), $RQP_SECTORS sectors, scsi_debug $sd_params"
	rq_log "paths $RQP_P1 ($RQP_M1) $RQP_P2 ($RQP_M2), $RQP_SECTORS sectors"
}

# --- status ---------------------------------------------------------------

# rqp_st NAME: parse `dmsetup status NAME` (the layout of dm-target/README.md)
# into shell variables:
#   ST_line                  the whole line
#   ST_np                    nr_paths
#   ST_dev_I ST_state_I ST_fails_I ST_disp_I    path I = 1..nr_paths
#   ST_queue ST_in_flight ST_busy_since ST_nopath ST_noclone ST_nops
#   ST_<op>_mapped ST_<op>_busy ST_<op>_completed ST_<op>_errors
#   ST_tot_mapped ST_tot_busy ST_tot_completed ST_tot_errors
#   ST_ops                   "read write ..." in the kernel's order
# A line that does not follow the layout is a failed check.
rqp_st() {
	# No value of an earlier parse survives a failed one.
	# shellcheck disable=SC2034 # for the callers
	ST_np='' ST_queue='' ST_in_flight='' ST_busy_since='' ST_nopath='' ST_noclone='' ST_nops='' ST_ops='' \
		ST_dev_1='' ST_state_1='' ST_fails_1='' ST_disp_1='' ST_dev_2='' ST_state_2='' ST_fails_2='' ST_disp_2='' \
		ST_tot_mapped='' ST_tot_busy='' ST_tot_completed='' ST_tot_errors=''
	if ! ST_line=$(dmsetup status "$1" 2>&1); then
		rqp_fail "dmsetup status $1 failed: $ST_line"
		return 1
	fi
	if ! st=$(echo "$ST_line" | awk '
		function num(s) { if (s !~ /^[0-9]+$/) bad = 1; return s }
		{
			if ($3 != "rqpath") bad = 1
			i = 4; np = num($i); i++
			printf "ST_np=%d\n", np
			for (p = 1; p <= np; p++) {
				if ($(i+1) != "A" && $(i+1) != "F") bad = 1
				printf "ST_dev_%d=%s ST_state_%d=%s ST_fails_%d=%d ST_disp_%d=%d\n",
					p, $i, p, $(i+1), p, num($(i+2)), p, num($(i+3))
				i += 4
			}
			printf "ST_queue=%d ST_in_flight=%d ST_busy_since=%d ST_nopath=%d ST_noclone=%d ST_nops=%d\n",
				num($i), num($(i+1)), num($(i+2)), num($(i+3)), num($(i+4)), num($(i+5))
			nops = $(i+5); i += 6
			ops = ""
			for (o = 0; o < nops; o++) {
				if ($i !~ /^[a-z_]+$/) bad = 1
				printf "ST_%s_mapped=%d ST_%s_busy=%d ST_%s_completed=%d ST_%s_errors=%d\n",
					$i, num($(i+1)), $i, num($(i+2)), $i, num($(i+3)), $i, num($(i+4))
				m += $(i+1); b += $(i+2); c += $(i+3); e += $(i+4)
				ops = ops (o ? " " : "") $i
				i += 5
			}
			printf "ST_tot_mapped=%d ST_tot_busy=%d ST_tot_completed=%d ST_tot_errors=%d\n", m, b, c, e
			printf "ST_ops=\"%s\"\n", ops
			if (i != NF + 1) bad = 1
			exit bad
		}'); then
		rqp_fail "dmsetup status $1: the line does not have the documented layout: $ST_line"
		return 1
	fi
	eval "$st"
}

# rqp_st_wait NAME SECONDS CONDITION: poll the status until the shell
# CONDITION (over the ST_ variables) holds; 0.1 s steps.
rqp_st_wait() {
	n=$(echo "$2" | awk '{ printf "%d", $1 * 10 }')
	while :; do
		rqp_st "$1" && eval "$3" && return 0
		[ "$n" -le 0 ] && return 1
		n=$((n - 1))
		sleep 0.1
	done
}

# A short form of the last parsed status, for messages.
rqp_st_brief() {
	b="paths"
	i=1
	while [ $i -le "$ST_np" ]; do
		eval "b=\"\$b \$ST_dev_$i \$ST_state_$i fails=\$ST_fails_$i disp=\$ST_disp_$i\""
		i=$((i + 1))
	done
	b="$b; queue=$ST_queue in_flight=$ST_in_flight no_path_requeues=$ST_nopath no_clone_requeues=$ST_noclone;"
	for o in $ST_ops; do
		eval "m=\$ST_${o}_mapped bu=\$ST_${o}_busy c=\$ST_${o}_completed e=\$ST_${o}_errors"
		# shellcheck disable=SC2154 # set by the eval
		[ $((m + bu + c)) = 0 ] || b="$b $o m/b/c/e=$m/$bu/$c/$e"
	done
	echo "$b"
}

# rqp_st_check DESC CONDITION: a shell condition over the ST_ variables of
# the last rqp_st must hold.
rqp_st_check() {
	eval "$2" || rqp_fail "$1 (status: $(rqp_st_brief))"
}

# rqp_status_json NAME: `rqpathctl status NAME --json` must parse and say
# what the raw status line says (a check of rqpathctl's parser; call it
# with no I/O running, so that both reads see the same counters).  The JSON
# stays in /tmp/rqp-status.json.
rqp_status_json() {
	rqp_st "$1" || return 1
	if ! rqpathctl status "$1" --json > /tmp/rqp-status.json 2> /tmp/rqp-status.err; then
		rqp_fail "rqpathctl status $1 --json failed: $(tail -n 2 /tmp/rqp-status.err | tr '\n' ' ')"
		return 1
	fi
	echo "$ST_line" | awk '{
		i = 4; np = $i; i++
		printf "rqpathctl.status/1 %s %d", n, np
		for (p = 0; p < np; p++) { printf " %s %s %s %s", $i, ($(i+1) == "A" ? "active" : "failed"), $(i+2), $(i+3); i += 4 }
		printf " %s %s %s %s %s", ($i == "1" ? "true" : "false"), $(i+1), $(i+2), $(i+3), $(i+4); i += 5
		no = $i; i++
		printf " %d", no
		for (o = 0; o < no; o++) { printf " %s %s %s %s %s", $i, $(i+1), $(i+2), $(i+3), $(i+4); m += $(i+1); b += $(i+2); c += $(i+3); e += $(i+4); i += 5 }
		printf " %d %d %d %d 0\n", m, b, c, e
	}' n="$1" > /tmp/rqp-status.fromraw
	if ! jq -r '[.schema, .device, .nr_paths, (.paths[] | .dev, .state, .fail_count, .dispatched),
		.queue_if_no_path, .in_flight, .busy_since_completion,
		.no_path_requeues, .no_clone_requeues, .nr_ops,
		(.ops | to_entries[] | .key, .value.mapped, .value.busy, .value.completed, .value.errors),
		.totals.mapped, .totals.busy, .totals.completed, .totals.errors, .nr_extra_fields]
		| map(tostring) | join(" ")' /tmp/rqp-status.json > /tmp/rqp-status.fromjson 2>&1; then
		rqp_fail "rqpathctl status $1 --json is not the documented object: $(head -c 300 /tmp/rqp-status.json)"
		return 1
	fi
	if ! cmp -s /tmp/rqp-status.fromraw /tmp/rqp-status.fromjson; then
		rqp_fail "rqpathctl status --json disagrees with dmsetup status: raw '$ST_line', json '$(cat /tmp/rqp-status.fromjson)'"
		return 1
	fi
}

# --- data -----------------------------------------------------------------

# rqp_rqcheck TAG WHAT ARGS...: run rqcheck, output in /tmp/rqp-TAG.txt and
# /tmp/rqp-TAG.json.  It must exit 0 (clean, no I/O error); its summary
# line goes into detail rqcheck_TAG.  Returns rqcheck's exit status.
rqp_rqcheck() {
	tag=$1 what=$2
	shift 2
	rqcheck "$@" --json "/tmp/rqp-$tag.json" > "/tmp/rqp-$tag.txt" 2>&1
	rqp_rqcheck_done "$tag" "$what" $?
}

# rqp_rqcheck_done TAG WHAT RC: judge a finished rqcheck run (see above).
rqp_rqcheck_done() {
	tag=$1 what=$2 rc=$3
	rqp_detail "rqcheck_$tag" "exit $rc: $(grep '^total:' "/tmp/rqp-$tag.txt" | tail -n 1)"
	[ "$rc" = 0 ] && return 0
	rqp_detail_lines "rqcheck_${tag}_output" "/tmp/rqp-$tag.txt" 12
	case $rc in
	1) rqp_fail "$what: rqcheck found corruption: $(grep '^total:' "/tmp/rqp-$tag.txt" | tail -n 1)" ;;
	3) rqp_fail "$what: rqcheck I/O or setup error: $(grep -m1 -i -e error -e fail "/tmp/rqp-$tag.txt")" ;;
	*) rqp_fail "$what: rqcheck exit $rc: $(tail -n 1 "/tmp/rqp-$tag.txt")" ;;
	esac
	return "$rc"
}

# Blocks verified according to the summary line of rqcheck run TAG.
rqp_rqcheck_verified() {
	sed -n 's/^total: .*, \([0-9]*\) blocks verified,.*/\1/p' "/tmp/rqp-$1.txt" | tail -n 1
}

# rqp_nonzero_bytes DEV OFFSET_MIB LEN_MIB: how many bytes of the range are
# not zero, read with O_DIRECT.
rqp_nonzero_bytes() {
	dd if="$1" bs=1M skip="$2" count="$3" iflag=direct 2>/dev/null | tr -d '\000' | wc -c | tr -d ' '
}

# --- cleanup and verdict --------------------------------------------------

# Names of the scenario's dm devices (rqp-*), one per line.
rqp_dm_devices() {
	dmsetup ls 2>/dev/null | awk -v p="$RQP_PREFIX" 'index($1, p) == 1 { print $1 }'
}

rqp_cleanup() {
	# Queued I/O must fail rather than wait for a path that never comes.
	for n in $(dmsetup ls --target rqpath 2>/dev/null | awk '$1 != "No" { print $1 }'); do
		dmsetup message "$n" 0 fail_if_no_path > /dev/null 2>&1
	done
	for d in /sys/block/sd*; do
		[ -e "$d/device/state" ] || continue
		[ "$(cat "$d/device/state")" = running ] || echo running > "$d/device/state"
	done
	for p in $RQP_PIDS; do
		if rqp_running "$p"; then
			rqp_fail "background process $p ($(tr '\0' ' ' < "/proc/$p/cmdline" 2>/dev/null)) still ran at cleanup"
			kill "$p" 2>/dev/null
			rqp_wait_pid "$p" 5 || kill -9 "$p" 2>/dev/null
		fi
	done
	RQP_PIDS=""
	for n in $(rqp_dm_devices); do
		if ! rqp_dmsetup remove --retry "$n" > /tmp/rqp-rm.out 2>&1; then
			rqp_fail "cleanup: dmsetup remove $n failed: $(tail -n 1 /tmp/rqp-rm.out)"
		fi
	done
	left=$(rqp_dm_devices | tr '\n' ' ')
	[ -z "$left" ] || rqp_fail "cleanup: dm devices left behind: $left"
	for l in $RQP_LOOPS; do
		"$RQP_LOSETUP" -d "$l" 2>/dev/null
	done
	RQP_LOOPS=""
	rm -f /tmp/rqp-*.img
	if grep -q '^dm_rqpath ' /proc/modules; then
		refs=$(awk '$1 == "dm_rqpath" { print $3 }' /proc/modules)
		if ! rmmod dm_rqpath 2> /tmp/rqp-rmmod.err; then
			rqp_fail "rmmod dm_rqpath failed (refcount $refs): $(cat /tmp/rqp-rmmod.err)"
		fi
	fi
	if grep -q '^scsi_debug ' /proc/modules; then
		rmmod scsi_debug 2> /tmp/rqp-rmmod.err ||
			rqp_fail "rmmod scsi_debug failed: $(cat /tmp/rqp-rmmod.err)"
	fi
}

# rqp_finish [VERDICT [REASON]]: clean up and report.  Any failed check makes
# the verdict `error`; otherwise VERDICT (default clean).
rqp_finish() {
	rqp_cleanup
	rq_kernel_log_check
	if rq_kernel_warned; then
		rqp_fail "kernel warnings during the scenario: $(head -n 1 /tmp/rq-kwarn.txt)"
	fi
	rq_details_sync
	# All details and the failed checks in one jq run.
	if jq -c -R -s --slurpfile d "$RQ_DETAILS" --rawfile f "$RQP_FAILS" '
		$d[0] + (split("\n") | map(select(length > 0) | split("\t")
			| {(.[0]): (if .[1] == "s" then (.[2:] | join("\t"))
				    else (.[2:] | join("\t")) as $v | (try ($v | fromjson) catch $v) end)}) | add // {})
		+ {failed_checks: ($f | split("\n") | map(select(length > 0)))}' \
		"$RQP_DET" > "$RQ_DETAILS.new"; then
		mv "$RQ_DETAILS.new" "$RQ_DETAILS"
	else
		rqp_fail "the details did not merge into JSON"
	fi
	if rqp_failed; then
		n=$(rqp_nfails)
		if [ "$n" -gt 1 ]; then
			rq_result error "$(head -n 1 "$RQP_FAILS") (and $((n - 1)) more failed checks)"
		else
			rq_result error "$(head -n 1 "$RQP_FAILS")"
		fi
	else
		rq_result "${1:-clean}" "${2:-}"
	fi
}

# shellcheck shell=sh
# rqpath guest library: sourced by the guest init and by every scenario.
# Runs under dash inside the QEMU guest, never on the host.

RQ_RESULTS=/dev/ttyS1
RQ_SCENARIO_DIR=/rqpath/scenarios

# To stderr: a function's stdout may be its result.
rq_log() { echo "[rqpath $(rq_now)] $*" >&2; }

# Seconds since boot, with centiseconds.
rq_now() { cut -d' ' -f1 /proc/uptime; }
rq_interval() { echo "$1 $2" | awk '{ printf "%.2f", $1 - $2 }'; } # END START: seconds
rq_since() { rq_interval "$(rq_now)" "$1"; } # START: seconds until now

rq_cmdline_arg() {
	# shellcheck disable=SC2013 # the command line is words
	for a in $(cat /proc/cmdline); do
		case $a in "$1="*) echo "${a#*=}"; return 0 ;; esac
	done
	return 1
}

# --- results --------------------------------------------------------------
# A scenario records details with rq_detail / rq_detail_json and ends with
# exactly one rq_result VERDICT.  The line goes to the harness at once, so a
# result survives whatever the kernel does afterwards.

#
# Under TCG every jq start costs most of a second, so rq_detail* only
# write a file each into $RQ_DETAILS_DIR, and one jq merges them into the
# JSON object $RQ_DETAILS at rq_result.  Code that reads or rewrites
# $RQ_DETAILS itself calls rq_details_sync first.  A counter file, not a
# variable, numbers the entries, because details are recorded from inside
# $(...) subshells too; a later detail with the same key wins.

rq_detail_put() { # KIND KEY, value on stdin
	n=$(($(cat "$RQ_DETAILS_DIR/.seq") + 1))
	echo "$n" > "$RQ_DETAILS_DIR/.seq"
	cat > "$RQ_DETAILS_DIR/$(printf %05d "$n").$1.$2"
}

rq_detail() { # KEY STRING
	printf '%s' "$2" | rq_detail_put s "$1"
}

rq_detail_json() { # KEY JSON (kept as a string if it does not parse)
	printf '%s' "$2" | rq_detail_put j "$1"
}

rq_detail_file() { # KEY FILE [MAXLINES]: the file's last lines, as a JSON array
	[ -r "$2" ] || return 0
	tail -n "${3:-40}" "$2" | rq_detail_put l "$1"
}

# Merge the recorded details into $RQ_DETAILS.
rq_details_sync() {
	# shellcheck disable=SC2016 # a jq program, not shell
	prog='$d[0]'
	i=0
	set --
	for f in "$RQ_DETAILS_DIR"/[0-9]*; do
		[ -e "$f" ] || continue
		name=${f##*/}
		kind=${name#*.}
		key=${kind#*.}
		kind=${kind%%.*}
		i=$((i + 1))
		set -- "$@" --rawfile "v$i" "$f"
		case $kind in
		s) prog="$prog + {\"$key\": \$v$i}" ;;
		j) prog="$prog + {\"$key\": (try (\$v$i | fromjson) catch \$v$i)}" ;;
		l) prog="$prog + {\"$key\": (\$v$i | split(\"\\n\") | map(select(length > 0)))}" ;;
		esac
	done
	[ $i = 0 ] && return 0
	if jq -n -c --slurpfile d "$RQ_DETAILS" "$@" "$prog" > "$RQ_DETAILS.new"; then
		mv "$RQ_DETAILS.new" "$RQ_DETAILS"
		rm -f "$RQ_DETAILS_DIR"/[0-9]*
	else
		rq_log "details: could not merge $i entries"
		return 1
	fi
}

rq_result() { # VERDICT [REASON]
	[ -n "${2:-}" ] && rq_detail reason "$2"
	rq_kernel_log_check
	rq_details_sync
	jq -c --arg s "$RQ_SCENARIO" --arg v "$1" --arg st "$RQ_STAGE" \
		--argjson t "$(rq_since "$RQ_T0")" \
		'{scenario: $s, stage: $st, verdict: $v, seconds: $t, details: .}' \
		"$RQ_DETAILS" > /tmp/rq-result.json
	echo "RQPATH-RESULT $(cat /tmp/rq-result.json)" > "$RQ_RESULTS"
	rq_log "result $RQ_SCENARIO: $1 ${2:-}"
	RQ_REPORTED=1
}

# Lines the kernel logged since the scenario started that no test may cause.
rq_kernel_log_check() {
	dmesg | tail -n +"$((RQ_DMESG_START + 1))" |
		grep -E 'WARNING:|BUG:|Oops|general protection|refcount_t:|Call Trace|kernel BUG|list_(add|del) corruption|UBSAN|KASAN' \
		> /tmp/rq-kwarn.txt || true
	if [ -s /tmp/rq-kwarn.txt ]; then
		rq_detail_file kernel_warnings /tmp/rq-kwarn.txt 20
	fi
}

rq_kernel_warned() { [ -s /tmp/rq-kwarn.txt ]; }

# --- devices --------------------------------------------------------------

# Load scsi_debug with the given parameters; wait for its disks.
rq_scsi_debug_load() {
	# A scsi_debug left loaded would keep its old parameters: refuse.
	if [ -d /sys/module/scsi_debug ]; then
		rq_log "scsi_debug is already loaded (a previous scenario left it)"
		return 1
	fi
	rq_modprobe scsi_debug "$@" || return 1
	udev_settle_or_wait
	rq_scsi_debug_disks > /dev/null || { rq_log "scsi_debug made no disk"; return 1; }
}

rq_modprobe() {
	if ! modprobe "$@" 2>/tmp/rq-modprobe.err; then
		rq_log "modprobe $* failed: $(cat /tmp/rq-modprobe.err)"
		return 1
	fi
}

# /dev names of the disks scsi_debug made, one per line.
rq_scsi_debug_disks() {
	found=1
	for d in /sys/block/sd*; do
		[ -e "$d/device/model" ] || continue
		case $(cat "$d/device/model") in
		scsi_debug*)
			echo "/dev/${d##*/}"
			found=0 ;;
		esac
	done
	return $found
}

# /dev names of QEMU's emulated disks (ATA or virtio-scsi "QEMU HARDDISK").
rq_qemu_disks() { # [ATA|QEMU]
	found=1
	for d in /sys/block/sd*; do
		[ -e "$d/device/model" ] || continue
		case "$(cat "$d/device/vendor") $(cat "$d/device/model")" in
		*"QEMU HARDDISK"*)
			if [ -z "${1:-}" ] || [ "$(tr -d ' ' < "$d/device/vendor")" = "$1" ]; then
				echo "/dev/${d##*/}"
				found=0
			fi ;;
		esac
	done
	return $found
}

# rq_dm_node NAME: make sure /dev/mapper/NAME exists and print it.  Without
# udevd, dmsetup leaves node creation to "dmsetup mknodes".
rq_dm_node() {
	[ -b "/dev/mapper/$1" ] || dmsetup mknodes "$1" > /dev/null 2>&1
	[ -b "/dev/mapper/$1" ] || return 1
	echo "/dev/mapper/$1"
}

# Kernel name (dm-N) of the device-mapper device NAME.
rq_dm_blkname() {
	for d in /sys/block/dm-*; do
		if [ "$(cat "$d/dm/name" 2>/dev/null)" = "$1" ]; then
			echo "${d##*/}"
			return 0
		fi
	done
	return 1
}

rq_set_scheduler() { # DEV SCHED
	echo "$2" > "/sys/block/${1##*/}/queue/scheduler" || return 1
	grep -q "\[$2\]" "/sys/block/${1##*/}/queue/scheduler"
}

# Wait for udev to settle when it runs; otherwise give devtmpfs a moment.
udev_settle_or_wait() {
	if [ -e /run/udev/control ]; then
		udevadm settle --timeout=30
	else
		sleep 0.2
	fi
}

rq_udev_start() {
	[ -e /run/udev/control ] && return 0
	unset DM_DISABLE_UDEV
	/lib/systemd/systemd-udevd --daemon --resolve-names=never 2>/tmp/udevd.err ||
		{ rq_log "udevd failed: $(cat /tmp/udevd.err)"; return 1; }
	udevadm trigger --action=add --type=subsystems
	udevadm trigger --action=add --type=devices
	udevadm settle --timeout=30
}

# --- tracing --------------------------------------------------------------

RQ_TRACE=/sys/kernel/tracing

rq_trace_start() { # EVENT...
	echo 0 > $RQ_TRACE/tracing_on
	echo > $RQ_TRACE/trace
	echo 16384 > $RQ_TRACE/buffer_size_kb
	for e in "$@"; do
		echo 1 > "$RQ_TRACE/events/block/$e/enable" || return 1
	done
	echo 1 > $RQ_TRACE/tracing_on
}

rq_trace_stop() { # OUTFILE
	echo 0 > $RQ_TRACE/tracing_on
	cat $RQ_TRACE/trace > "$1"
	for e in "$RQ_TRACE"/events/block/*/enable; do echo 0 > "$e"; done
	echo > $RQ_TRACE/trace
}

# --- main -------------------------------------------------------------------

rq_run_scenario() { # NAME
	RQ_SCENARIO=$1
	RQ_DETAILS=/tmp/rq-details.json
	RQ_DETAILS_DIR=/tmp/rq-details.d
	echo '{}' > "$RQ_DETAILS"
	rm -rf "$RQ_DETAILS_DIR"
	mkdir -p "$RQ_DETAILS_DIR"
	echo 0 > "$RQ_DETAILS_DIR/.seq"
	RQ_REPORTED=0
	RQ_T0=$(rq_now)
	RQ_DMESG_START=$(dmesg | wc -l)
	rm -f /tmp/rq-kwarn.txt
	echo "RQPATH-START $RQ_SCENARIO" > "$RQ_RESULTS"
	rq_log "=== scenario $RQ_SCENARIO on stage $RQ_STAGE"
	if [ ! -r "$RQ_SCENARIO_DIR/$RQ_SCENARIO.sh" ]; then
		rq_result error "no such scenario in the guest image"
		return
	fi
	# Each scenario runs in a subshell so that its variables, traps and
	# working directory cannot leak into the next one.
	(
		# shellcheck source=/dev/null
		. "$RQ_SCENARIO_DIR/$RQ_SCENARIO.sh"
		scenario_run
		[ "$RQ_REPORTED" = 1 ] || rq_result error "scenario ended without a verdict"
	)
	rq_cleanup
}

# Leave the guest as a scenario found it, whatever the scenario did: stop
# what it may have left running, remove its dm devices, unload its
# modules.  What cannot be undone is logged; the next scenario's own
# checks (rq_scsi_debug_load refuses a stale scsi_debug) turn it into an
# error rather than a silently different setup.
rq_cleanup() {
	for p in rqcheck fio rqpathctl dd blkdiscard; do
		pkill -KILL -x "$p" 2>/dev/null
	done
	if pidof multipathd > /dev/null; then
		multipathd disablequeueing maps > /dev/null 2>&1
		multipath -F > /dev/null 2>&1
		multipathd shutdown > /dev/null 2>&1
		sleep 0.5
	fi
	# The next scenario starts without udev unless it starts it: udevd's
	# probes (blkid) open new devices, move their counters and hold
	# modules.
	if [ -e /run/udev/control ]; then
		udevadm settle --timeout=10 > /dev/null 2>&1
		udevadm control --exit > /dev/null 2>&1
		pkill -KILL -x systemd-udevd 2>/dev/null
		rm -rf /run/udev
	fi
	grep -E ' /mnt' /proc/mounts | while read -r _ mnt _; do umount "$mnt" 2>/dev/null; done
	for d in /sys/block/dm-*/dm/name; do
		[ -e "$d" ] || continue
		dmsetup message "$(cat "$d")" 0 fail_if_no_path > /dev/null 2>&1
	done
	dmsetup remove_all > /dev/null 2>&1
	for m in dm_rqpath dm_round_robin dm_multipath scsi_debug; do
		if [ -d "/sys/module/$m" ] && ! rmmod "$m" 2>/dev/null; then
			rq_log "cleanup: cannot unload $m after $RQ_SCENARIO"
		fi
	done
	dmsetup ls 2>/dev/null | grep -v '^No devices' | while read -r name _; do
		rq_log "cleanup: device-mapper device $name left after $RQ_SCENARIO"
	done
}

rq_boot_main() {
	# Until a scenario starts udevd, libdevmapper must make the
	# /dev/mapper nodes itself.
	export DM_DISABLE_UDEV=1
	RQ_STAGE=$(rq_cmdline_arg rqpath.stage || echo unknown)
	export RQ_STAGE
	echo "RQPATH-BOOTED stage=$RQ_STAGE kernel=$(uname -r) cpus=$(grep -c ^processor /proc/cpuinfo)" > "$RQ_RESULTS"
	rq_log "booted stage $RQ_STAGE, $(uname -r), $(grep -c ^processor /proc/cpuinfo) cpus, $(rq_now)s"
	for s in $(rq_cmdline_arg rqpath.scenarios | tr ',' ' '); do
		rq_run_scenario "$s"
	done
	if [ "$(rq_cmdline_arg rqpath.shell)" = 1 ]; then
		setsid cttyhack sh
	fi
	echo "RQPATH-DONE" > "$RQ_RESULTS"
	rq_log "all scenarios done"
}

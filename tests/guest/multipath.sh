# shellcheck shell=sh
# multipath-tools in the guest: udevd identifies the paths (scsi_id via
# 60-persistent-storage.rules), multipathd builds and watches the maps.
# Shared by the livelock and failover scenarios.

# rq_multipath_start: udevd and multipathd, running.
rq_multipath_start() {
	mkdir -p /etc/multipath
	: > /etc/multipath/wwids
	rq_modprobe dm_multipath && rq_modprobe dm_round_robin || return 1
	rq_udev_start || return 1
	if ! pidof multipathd > /dev/null; then
		multipathd -d -s -v3 > /tmp/multipathd.log 2>&1 &
		rq_wait 10 "multipathd start" rq_multipathd_ready ||
			{ rq_log "multipathd did not start: $(tail -n 5 /tmp/multipathd.log)"; return 1; }
	fi
}

rq_multipathd_ready() { multipathd show daemon 2>/dev/null | grep -q -E 'idle|running'; }

# rq_multipath_map DEV...: a map over these paths (one LUN); prints its
# /dev/mapper name.  The WWID comes from udev's ID_SERIAL, as multipath
# itself reads it.
rq_multipath_map() {
	for dev in "$@"; do
		multipath -a "$dev" > /dev/null 2>>/tmp/multipath.err || { rq_log "multipath -a $dev failed"; return 1; }
	done
	wwid=$(udevadm info --query=property --name="$1" | sed -n 's/^ID_SERIAL=//p')
	[ -n "$wwid" ] || { rq_log "udev gave $1 no ID_SERIAL"; return 1; }
	multipathd reconfigure > /dev/null 2>&1
	if ! rq_wait 30 "the multipath map" rq_multipath_map_ready "$wwid" "$#" "$1"; then
		rq_log "no multipath map $wwid with $# active paths: $(multipath -ll 2>&1 | tr '\n' ' ')"
		return 1
	fi
	echo "/dev/mapper/$wwid"
}

# rq_multipath_map_ready WWID N DEV: the map exists with N active paths;
# every few seconds ask multipath to build it, should the reconfigure have
# raced udev.
rq_multipath_map_ready() {
	[ -b "/dev/mapper/$1" ] && [ "$(rq_multipath_active_paths "$1")" = "$2" ] && return 0
	RQ_MP_POLLS=$((${RQ_MP_POLLS:-0} + 1))
	[ $((RQ_MP_POLLS % 40)) = 0 ] && multipath "$3" > /dev/null 2>&1
	return 1
}

# Active paths of a map, as multipathd sees them.
rq_multipath_active_paths() {
	multipathd show paths format "%m %t %T" 2>/dev/null |
		awk -v m="$1" '$1 == m && $2 == "active" && $3 == "ready"' | wc -l
}

# rq_multipath_record: multipath -ll into the details, for every run.
rq_multipath_record() {
	multipath -ll > /tmp/multipath-ll.txt 2>&1
	rq_detail_file multipath_ll /tmp/multipath-ll.txt 30
}

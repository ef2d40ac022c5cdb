# shellcheck shell=sh
# rqpath scenario: plug-discard-virtio
# summary: writes and a discard in one plug on a virtio-scsi disk whose queue depth is the writes': the writes complete promptly
# expect: clean
# boot: shared
# timeout: 120
# qemu: virtio-disk

# rqpath-plugmix orders the plug so that blk_mq_plug_issue_direct() issues
# the writes (bd->last false: virtio-scsi queues them without telling QEMU)
# and then meets the discard.  If it leaves without committing the writes
# (->commit_rqs(), the kick), the discard cannot get a budget slot while
# the writes hold them all, nothing ever kicks the queue, and the writes
# complete only when the SCSI timeout aborts them.  rqpath-plugmix builds
# the plug (userspace cannot: tests/README.md).  On stages that do not
# issue plugs directly the writes go through the dispatch path, which
# commits as it goes.  The block trace of each run shows which it was; a
# plug issued directly whose discard went ahead of the writes left the gate
# nothing to commit, and is an error.

PD_SERIAL=RQPATHVD01
PD_WRITES=4
# Prompt: far below the 30 s SCSI command timeout, far above a TCG guest's
# worst latency for five 4 KiB commands.
PD_MAX_MS=3000
PD_RUNS=3
PD_SCSI_TIMEOUT=10

# pd_plug_path TRACE DEV: "AHEAD DIRECT QUEUED" for one run on DEV
# (major,minor): the writes issued straight from the plug (no insert
# before their issue) ahead of the discard's first event, the requests
# issued straight from the plug, and the writes that went into a queue.
pd_plug_path() {
	awk -v dev="$2" '
		{ for (i = 1; i < NF; i++) if ($i ~ /^block_rq_(issue|insert):$/) break }
		i == NF || $(i + 1) != dev { next }
		{ rwbs = $(i + 2); sector = $(i + 5) }
		$i == "block_rq_insert:" { queued[sector] = 1; if (rwbs ~ /^W/) inserted++ }
		$i == "block_rq_issue:" && !(sector in queued) {
			direct++
			if (rwbs ~ /^W/ && !discard) ahead++
		}
		rwbs ~ /^D/ { discard = 1 }
		END { print ahead + 0, direct + 0, inserted + 0 }' "$1"
}

scenario_run() {
	disk=$(rq_disks_by_serial $PD_SERIAL) || { rq_result error "no virtio-scsi disk $PD_SERIAL"; return; }
	q=/sys/block/${disk##*/}
	rq_set_scheduler "$disk" none || { rq_result error "cannot set scheduler none on $disk"; return; }
	echo $PD_WRITES > "$q/device/queue_depth"
	# Writes left unkicked end when the SCSI timeout aborts them: soon.
	echo $PD_SCSI_TIMEOUT > "$q/device/timeout"
	[ "$(cat "$q/device/queue_depth")" = $PD_WRITES ] || { rq_result error "cannot set queue_depth $PD_WRITES on $disk"; return; }
	[ "$(cat "$q/queue/discard_max_bytes")" -gt 0 ] || { rq_result error "$disk does not support discard"; return; }
	rq_modprobe rqpath-plugmix || { rq_result error "rqpath-plugmix did not load"; return; }
	rq_detail disk "$disk (queue_depth $PD_WRITES, nr_hw_queues $(find "$q/mq" -mindepth 1 -maxdepth 1 | wc -l))"
	dev=$(tr : , < "$q/dev")
	rq_phase workload
	: > /tmp/pd-results.txt
	: > /tmp/pd-gate.txt
	ok=0
	gated=0 queued=0
	i=0
	while [ $i -lt $PD_RUNS ]; do
		i=$((i + 1))
		rq_trace_start block_rq_issue block_rq_insert || { rq_result error "cannot enable block tracepoints"; return; }
		# The module takes the disk from our file descriptor 3.
		if ! { echo "3 $PD_WRITES" > /sys/kernel/debug/rqpath-plugmix/run; } 3<> "$disk" 2> /tmp/pd-err.txt; then
			rq_fail "run $i: rqpath-plugmix failed: $(cat /tmp/pd-err.txt)"
		fi
		rq_trace_stop /tmp/pd-trace.txt
		read -r ahead direct inserted <<EOF
$(pd_plug_path /tmp/pd-trace.txt "$dev")
EOF
		echo "run $i: $direct requests issued straight from the plug, $ahead writes of them ahead of the discard; $inserted writes through a queue" >> /tmp/pd-gate.txt
		if [ "$direct" -gt 0 ] && [ "$ahead" = $PD_WRITES ]; then
			gated=$((gated + 1))
		elif [ "$direct" -gt 0 ]; then
			rq_fail "run $i: the plug was issued directly with $ahead of its $PD_WRITES writes ahead of the discard: the gate had nothing to commit"
		elif [ "$inserted" -ge $PD_WRITES ]; then
			queued=$((queued + 1))
		fi
		cat /sys/kernel/debug/rqpath-plugmix/result >> /tmp/pd-results.txt
		# writes N writes_ms W discard_ms D errors E status S
		tail -n 1 /tmp/pd-results.txt > /tmp/pd-results.txt.last
		read -r _ _ _ writes_ms _ _ _ errors _ status < /tmp/pd-results.txt.last
		if [ "$status" != "done" ] || [ "$errors" != 0 ]; then
			rq_fail "run $i: $(cat /tmp/pd-results.txt.last)"
			break
		elif [ "$writes_ms" -gt $PD_MAX_MS ]; then
			rq_fail "run $i: the writes took $writes_ms ms (at most $PD_MAX_MS): issued and never committed to the device"
			break
		fi
		ok=$((ok + 1))
	done
	rq_phase evidence
	rq_detail_file plugmix_results /tmp/pd-results.txt
	rq_detail_file plug_order /tmp/pd-gate.txt
	rmmod rqpath_plugmix || rq_fail "rmmod rqpath_plugmix failed"
	rq_trigger plug plugs_completed "$(grep -c 'status done' /tmp/pd-results.txt)" $PD_RUNS
	# Each run took one of the two paths: the writes issued from the plug
	# up to the discard (the gate's), or all of them through a queue.
	rq_trigger plug runs_writes_ahead_of_discard_or_queued "$((gated + queued))" $PD_RUNS
	rq_detail_json plug_paths "{\"writes_ahead_of_discard\": $gated, \"through_a_queue\": $queued}"
	rq_finish clean "$ok of $PD_RUNS plugs of $PD_WRITES writes and a discard completed promptly"
}

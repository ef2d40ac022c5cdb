# shellcheck shell=sh
# rqpath scenario: smoke
# summary: the kernel boots, scsi_debug makes a disk, scheduler none, fio writes and verifies 16 MiB
# expect: clean
# boot: shared
# timeout: 90

RQ_SMOKE_MODULES="scsi_debug dm_multipath dm_rqpath rqpath_oracle"

scenario_run() {
	for m in $RQ_SMOKE_MODULES; do
		modinfo "$m" > /dev/null 2>&1 || { rq_result skipped "module $m is not in the kernel's image"; return; }
	done
	rq_detail kernel "$(uname -r)"
	rq_scsi_debug_load dev_size_mb=64 || { rq_result error "scsi_debug did not load"; return; }
	disk=$(rq_scsi_debug_disks | head -n1)
	rq_detail disk "$disk"
	rq_set_scheduler "$disk" none || { rq_result error "cannot set scheduler none on $disk"; return; }
	rq_detail_json nr_hw_queues "$(find /sys/block/"${disk##*/}"/mq -mindepth 1 -maxdepth 1 | wc -l)"
	rq_phase workload
	fio --name=smoke --filename="$disk" --direct=1 --ioengine=libaio --iodepth=8 \
		--rw=randwrite --bs=4k --size=16m --verify=crc32c --verify_fatal=1 \
		--output-format=json --output=/tmp/fio.json > /tmp/fio.err 2>&1
	fio_rc=$?
	rq_phase evidence
	rq_detail_json fio_exit "$fio_rc"
	verified=$(sed -n '/^{/,$p' /tmp/fio.json | jq '.jobs[0].read.io_bytes / 4096 | floor' 2>/dev/null)
	rq_trigger smoke blocks_verified "${verified:-0}" 4096
	rmmod scsi_debug || rq_fail "rmmod scsi_debug failed"
	if [ "$fio_rc" != 0 ]; then
		rq_detail_file fio_output /tmp/fio.err 8
		if grep -q 'verify' /tmp/fio.err; then
			rq_finish corrupted "fio verify failed"
		else
			rq_finish error "fio failed (exit $fio_rc)"
		fi
		return
	fi
	rq_finish clean
}

# shellcheck shell=sh
# rqpath scenario: smoke
# summary: the stage boots, scsi_debug makes a disk, scheduler none, fio verify
# expect: clean
# boot: shared
# timeout: 90

scenario_run() {
	for m in scsi_debug dm_multipath; do
		modinfo "$m" > /dev/null 2>&1 || { rq_result error "module $m missing from the image"; return; }
	done
	rq_detail kernel "$(uname -r)"
	rq_detail_json modules_available "$(find /lib/modules/"$(uname -r)" -name '*.ko' | sed 's|.*/||' | sort | jq -R . | jq -s -c .)"

	rq_scsi_debug_load dev_size_mb=64 || { rq_result error "scsi_debug did not load"; return; }
	disk=$(rq_scsi_debug_disks | head -n1)
	rq_detail disk "$disk"
	rq_set_scheduler "$disk" none || { rq_result error "cannot set scheduler none on $disk"; return; }
	rq_detail scheduler "$(cat "/sys/block/${disk##*/}/queue/scheduler")"
	rq_detail_json nr_hw_queues "$(find /sys/block/"${disk##*/}"/mq -mindepth 1 -maxdepth 1 | wc -l)"

	fio --name=smoke --filename="$disk" --direct=1 --ioengine=libaio --iodepth=8 \
		--rw=randwrite --bs=4k --size=16m --verify=crc32c --verify_fatal=1 \
		--output=/tmp/fio.txt > /dev/null 2>&1
	fio_rc=$?
	rq_detail_json fio_exit "$fio_rc"
	rq_detail_file fio_tail /tmp/fio.txt 8
	rmmod scsi_debug || { rq_result error "rmmod scsi_debug failed"; return; }
	rq_detail_json modules_loaded "$(cut -d' ' -f1 /proc/modules | jq -R . | jq -s -c .)"

	rq_kernel_log_check
	if [ "$fio_rc" != 0 ]; then
		rq_result corrupted "fio verify failed"
	elif rq_kernel_warned; then
		rq_result error "kernel warnings during the smoke test"
	else
		rq_result clean
	fi
}

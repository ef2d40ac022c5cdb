# shellcheck shell=sh
# rqpath scenario: corruption-sata
# summary: the ext4 fio verify workload on QEMU's AHCI disk (libata, NCQ), scheduler none
# expect: clean; 6ce3dd6eec=corrupted|violated
# boot: shared
# timeout: 240
# qemu: ahci-disk

# shellcheck source=tests/guest/corruption.sh
. /rqpath/corruption.sh

# The original reporters' setup: libata cannot queue a FLUSH beside NCQ
# commands, so while ext4's fsync flushes are in flight, reads and writes
# that the SCSI midlayer has already prepared come back from
# ata_scsi_queuecmd() as SCSI_MLQUEUE_DEVICE_BUSY.  No injection here:
# the busy conditions are the device's own.
scenario_run() {
	disk=$(rq_qemu_disks ATA | head -n1)
	[ -n "$disk" ] || { rq_result error "no AHCI disk in the guest"; return; }
	rq_set_scheduler "$disk" none || { rq_result error "cannot set scheduler none on $disk"; return; }
	rq_detail disk "$disk"
	rq_detail_json ncq_depth "$(cat "/sys/block/${disk##*/}/device/queue_depth")"
	rq_detail write_cache "$(cat "/sys/block/${disk##*/}/queue/write_cache")"
	rq_finish "$(rq_ext4_workload "$disk" "$RQ_MIN_SATA")"
}

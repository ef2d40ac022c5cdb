/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Status and table lines in the format of dm-target/README.md, shared by
 * the unit tests.  The counters are kept consistent the way the target's
 * would be (sum of <dispatched> == sum of <mapped>).
 */
#ifndef RECORDED_STATUS_H
#define RECORDED_STATUS_H

/* The README's own example: two paths, 8:32 failed once, a write load. */
static const char STATUS_README_EXAMPLE[] =
	"2 8:16 A 0 1520 8:32 F 1 1498 0 3 0 0 0 6 "
	"read 12 0 12 0 write 3006 40 2966 1 flush 0 0 0 0 "
	"discard 0 0 0 0 write_zeroes 0 0 0 0 other 0 0 0 0";

/* One path, freshly created, nothing done yet. */
static const char STATUS_IDLE_ONE_PATH[] =
	"1 8:0 A 0 0 0 0 0 0 0 6 "
	"read 0 0 0 0 write 0 0 0 0 flush 0 0 0 0 "
	"discard 0 0 0 0 write_zeroes 0 0 0 0 other 0 0 0 0";

/* Both paths failed, queue_if_no_path on: 17 requests wait for a path. */
static const char STATUS_ALL_FAILED_QUEUEING[] =
	"2 8:16 F 1 2048 8:32 F 2 2011 1 17 0 5230 0 6 "
	"read 1024 0 1020 2 write 3031 0 3000 6 flush 4 0 4 0 "
	"discard 0 0 0 0 write_zeroes 0 0 0 0 other 0 0 0 0";

/* A discard handed back busy 48213 times while only 9 completed. */
static const char STATUS_DISCARD_LIVELOCK[] =
	"2 8:16 A 0 24117 8:32 A 0 24116 0 1 48213 0 12 6 "
	"read 10 0 10 0 write 0 0 0 0 flush 0 0 0 0 "
	"discard 48223 48213 9 0 write_zeroes 0 0 0 0 other 0 0 0 0";

/* A newer target: a seventh op group this version does not know. */
static const char STATUS_SEVEN_OPS[] =
	"2 8:16 A 0 1525 8:32 A 0 1503 0 2 6 0 0 7 "
	"read 12 0 12 0 write 3006 40 2966 1 flush 0 0 0 0 "
	"discard 0 0 0 0 write_zeroes 0 0 0 0 other 0 0 0 0 "
	"zone_append 10 6 3 0";

/* As "dmsetup status rq0" prints it: start, length and type first. */
static const char STATUS_DMSETUP_PREFIXED[] =
	"0 2097152 rqpath 2 8:16 A 0 1520 8:32 F 1 1498 0 3 0 0 0 6 "
	"read 12 0 12 0 write 3006 40 2966 1 flush 0 0 0 0 "
	"discard 0 0 0 0 write_zeroes 0 0 0 0 other 0 0 0 0";

/*
 * The line with the trailing (<op> <refused> <busy_since_completion>)
 * group, as the target prints it from now on.  Older targets end after
 * the first op groups: both kinds must parse.
 */

/* dm-target/README.md's example since version 1.1, verbatim. */
static const char STATUS_V2_CONTRACT_EXAMPLE[] =
	"2 8:16 A 0 1520 8:32 F 1 1498 0 3 0 0 0 6 read 12 0 12 0 write 3006 "
	"40 2966 1 flush 0 0 0 0 discard 0 0 0 0 write_zeroes 0 0 0 0 other 0 "
	"0 0 0 6 read 0 0 write 0 2 flush 0 0 discard 0 0 write_zeroes 0 0 "
	"other 0 0";

/* The README example on a newer target: one write refused with EIO. */
static const char STATUS_V2_README_EXAMPLE[] =
	"2 8:16 A 0 1521 8:32 F 1 1498 0 3 0 0 0 6 "
	"read 12 0 12 0 write 3007 40 2966 1 flush 0 0 0 0 "
	"discard 0 0 0 0 write_zeroes 0 0 0 0 other 0 0 0 0 "
	"6 read 0 0 write 1 0 flush 0 0 discard 0 0 write_zeroes 0 0 "
	"other 0 0";

/*
 * A discard livelock while reads and writes go on completing: the global
 * busy_since_completion is small (reads and writes complete), discard's
 * own is the whole spin.
 */
static const char STATUS_V2_DISCARD_SPIN_UNDER_RW[] =
	"2 8:16 A 0 31193 8:32 A 0 31192 0 9 3 0 0 6 "
	"read 8136 12 8120 0 write 7931 31 7896 0 flush 2 0 2 0 "
	"discard 46316 46315 1 0 write_zeroes 0 0 0 0 other 0 0 0 0 "
	"6 read 0 0 write 0 3 flush 0 0 discard 0 46301 write_zeroes 0 0 "
	"other 0 0";

/* A seventh op group on a newer target: in both groups. */
static const char STATUS_V2_SEVEN_OPS[] =
	"2 8:16 A 0 1525 8:32 A 0 1503 0 2 6 0 0 7 "
	"read 12 0 12 0 write 3006 40 2966 1 flush 0 0 0 0 "
	"discard 0 0 0 0 write_zeroes 0 0 0 0 other 0 0 0 0 "
	"zone_append 10 6 3 0 "
	"7 read 0 0 write 0 0 flush 0 0 discard 0 0 write_zeroes 0 0 "
	"other 0 0 zone_append 1 6";

/* A still newer target: two fields after the trailing group. */
static const char STATUS_V2_EXTRA_TRAILING[] =
	"2 8:16 A 0 1520 8:32 F 1 1498 0 3 0 0 0 6 "
	"read 12 0 12 0 write 3006 40 2966 1 flush 0 0 0 0 "
	"discard 0 0 0 0 write_zeroes 0 0 0 0 other 0 0 0 0 "
	"6 read 0 0 write 0 0 flush 0 0 discard 0 0 write_zeroes 0 0 "
	"other 0 0 7 42";

/* Both: an unknown op group and then unknown fields. */
static const char STATUS_V2_SEVEN_OPS_AND_EXTRA[] =
	"1 8:16 A 0 20 1 0 0 0 0 7 "
	"read 10 0 10 0 write 10 0 10 0 flush 0 0 0 0 "
	"discard 0 0 0 0 write_zeroes 0 0 0 0 other 0 0 0 0 "
	"zone_append 0 0 0 0 "
	"7 read 0 0 write 0 0 flush 0 0 discard 0 0 write_zeroes 0 0 "
	"other 0 0 zone_append 0 0 future_field 99";

/* Canonical table lines (STATUSTYPE_TABLE). */
static const char TABLE_TWO_PATHS[] = "2 8:16 8:32 0";
static const char TABLE_TWO_PATHS_QUEUEING[] = "2 8:16 8:32 1 queue_if_no_path";
static const char TABLE_DMSETUP_PREFIXED[] =
	"0 2097152 rqpath 2 8:16 8:32 1 queue_if_no_path";

#endif

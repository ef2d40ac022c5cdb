// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: status and table line parsing (rq_status.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "recorded_status.h"
#include "rq_status.h"

static struct rq_status st;	/* large; keep it off the cmocka stack */
static char err[RQ_ERR_LEN];

static void assert_op(const struct rq_op_counters *op, const char *name,
		      uint64_t mapped, uint64_t busy, uint64_t completed,
		      uint64_t errors)
{
	assert_string_equal(op->name, name);
	assert_int_equal(op->mapped, mapped);
	assert_int_equal(op->busy, busy);
	assert_int_equal(op->completed, completed);
	assert_int_equal(op->errors, errors);
}

static void assert_parses(const char *line)
{
	int rc = rq_status_parse(line, &st, err, sizeof(err));

	if (rc)
		fail_msg("rejected: %s\n  line: %s", err, line);
}

static void assert_rejected(const char *line, const char *why)
{
	if (!rq_status_parse(line, &st, err, sizeof(err)))
		fail_msg("accepted a malformed line: '%s'", line);
	if (!strstr(err, why))
		fail_msg("error '%s' does not mention '%s' (line '%s')", err,
			 why, line);
}

static void parses_readme_example(void **state)
{
	(void)state;
	assert_parses(STATUS_README_EXAMPLE);
	assert_int_equal(st.nr_paths, 2);
	assert_string_equal(st.paths[0].dev, "8:16");
	assert_int_equal(st.paths[0].major, 8);
	assert_int_equal(st.paths[0].minor, 16);
	assert_false(st.paths[0].failed);
	assert_int_equal(st.paths[0].fail_count, 0);
	assert_int_equal(st.paths[0].dispatched, 1520);
	assert_string_equal(st.paths[1].dev, "8:32");
	assert_true(st.paths[1].failed);
	assert_int_equal(st.paths[1].fail_count, 1);
	assert_int_equal(st.paths[1].dispatched, 1498);
	assert_false(st.queue_if_no_path);
	assert_int_equal(st.in_flight, 3);
	assert_int_equal(st.busy_since_completion, 0);
	assert_int_equal(st.no_path_requeues, 0);
	assert_int_equal(st.no_clone_requeues, 0);
	assert_int_equal(st.nr_ops, 6);
	assert_int_equal(st.nr_ops_kept, 6);
	assert_op(&st.ops[0], "read", 12, 0, 12, 0);
	assert_op(&st.ops[1], "write", 3006, 40, 2966, 1);
	assert_op(&st.ops[2], "flush", 0, 0, 0, 0);
	assert_op(&st.ops[3], "discard", 0, 0, 0, 0);
	assert_op(&st.ops[4], "write_zeroes", 0, 0, 0, 0);
	assert_op(&st.ops[5], "other", 0, 0, 0, 0);
	assert_int_equal(st.nr_extra_fields, 0);
	assert_string_equal(st.extra_fields, "");
	assert_false(st.has_op_details);
}

static void parses_idle_single_path(void **state)
{
	(void)state;
	assert_parses(STATUS_IDLE_ONE_PATH);
	assert_int_equal(st.nr_paths, 1);
	assert_string_equal(st.paths[0].dev, "8:0");
	assert_int_equal(st.in_flight, 0);
	assert_int_equal(st.nr_ops_kept, 6);
	assert_op(&st.ops[5], "other", 0, 0, 0, 0);
}

static void parses_all_paths_failed_with_queueing(void **state)
{
	(void)state;
	assert_parses(STATUS_ALL_FAILED_QUEUEING);
	assert_true(st.paths[0].failed);
	assert_true(st.paths[1].failed);
	assert_int_equal(st.paths[1].fail_count, 2);
	assert_true(st.queue_if_no_path);
	assert_int_equal(st.in_flight, 17);
	assert_int_equal(st.no_path_requeues, 5230);
	assert_op(&st.ops[1], "write", 3031, 0, 3000, 6);
}

static void parses_discard_livelock(void **state)
{
	(void)state;
	assert_parses(STATUS_DISCARD_LIVELOCK);
	assert_int_equal(st.busy_since_completion, 48213);
	assert_int_equal(st.no_clone_requeues, 12);
	assert_op(&st.ops[3], "discard", 48223, 48213, 9, 0);
}

/* What a line without the trailing group (an older target) leaves. */
static void assert_no_op_details(void)
{
	unsigned int i;

	assert_false(st.has_op_details);
	for (i = 0; i < st.nr_ops_kept; i++) {
		assert_int_equal(st.ops[i].refused, 0);
		assert_int_equal(st.ops[i].busy_since_completion, 0);
	}
}

static void old_line_has_no_op_details(void **state)
{
	(void)state;
	assert_parses(STATUS_README_EXAMPLE);
	assert_no_op_details();
	assert_parses(STATUS_DISCARD_LIVELOCK);
	assert_no_op_details();
	assert_parses(STATUS_SEVEN_OPS);
	assert_no_op_details();
}

static void parses_trailing_op_group(void **state)
{
	struct rq_op_counters total;

	(void)state;
	assert_parses(STATUS_V2_README_EXAMPLE);
	assert_true(st.has_op_details);
	assert_int_equal(st.nr_ops, 6);
	assert_op(&st.ops[1], "write", 3007, 40, 2966, 1);
	assert_int_equal(st.ops[1].refused, 1);
	assert_int_equal(st.ops[1].busy_since_completion, 0);
	assert_int_equal(st.ops[0].refused, 0);
	assert_int_equal(st.nr_extra_fields, 0);
	total = rq_status_totals(&st);
	assert_int_equal(total.refused, 1);
	assert_int_equal(total.mapped, 12 + 3007);
}

static void parses_the_contracts_example(void **state)
{
	(void)state;
	assert_parses(STATUS_V2_CONTRACT_EXAMPLE);
	assert_true(st.has_op_details);
	assert_op(&st.ops[1], "write", 3006, 40, 2966, 1);
	assert_int_equal(st.ops[1].refused, 0);
	assert_int_equal(st.ops[1].busy_since_completion, 2);
	assert_int_equal(st.ops[5].busy_since_completion, 0);
	assert_int_equal(st.nr_extra_fields, 0);
}

static void parses_discard_spin_under_reads_and_writes(void **state)
{
	(void)state;
	assert_parses(STATUS_V2_DISCARD_SPIN_UNDER_RW);
	assert_true(st.has_op_details);
	/* the global field counts since any completion ... */
	assert_int_equal(st.busy_since_completion, 3);
	/* ... the op's own since its own last completion */
	assert_op(&st.ops[3], "discard", 46316, 46315, 1, 0);
	assert_int_equal(st.ops[3].busy_since_completion, 46301);
	assert_int_equal(st.ops[1].busy_since_completion, 3);
	assert_int_equal(st.ops[0].busy_since_completion, 0);
}

static void trailing_group_with_a_seventh_op(void **state)
{
	(void)state;
	assert_parses(STATUS_V2_SEVEN_OPS);
	assert_int_equal(st.nr_ops, 7);
	assert_true(st.has_op_details);
	assert_op(&st.ops[6], "zone_append", 10, 6, 3, 0);
	assert_int_equal(st.ops[6].refused, 1);
	assert_int_equal(st.ops[6].busy_since_completion, 6);
	assert_int_equal(rq_status_totals(&st).refused, 1);
}

static void keeps_fields_after_the_trailing_group(void **state)
{
	(void)state;
	assert_parses(STATUS_V2_EXTRA_TRAILING);
	assert_true(st.has_op_details);
	assert_int_equal(st.nr_ops, 6);
	assert_op(&st.ops[5], "other", 0, 0, 0, 0);
	assert_int_equal(st.nr_extra_fields, 2);
	assert_string_equal(st.extra_fields, "7 42");
}

static void keeps_unknown_op_group(void **state)
{
	struct rq_op_counters total;

	(void)state;
	assert_parses(STATUS_SEVEN_OPS);
	assert_int_equal(st.nr_ops, 7);
	assert_int_equal(st.nr_ops_kept, 7);
	assert_op(&st.ops[6], "zone_append", 10, 6, 3, 0);
	assert_int_equal(st.nr_extra_fields, 0);
	/* The unknown op counts in the sums the watchdog uses. */
	total = rq_status_totals(&st);
	assert_string_equal(total.name, "total");
	assert_int_equal(total.mapped, 12 + 3006 + 10);
	assert_int_equal(total.busy, 40 + 6);
	assert_int_equal(total.completed, 12 + 2966 + 3);
	assert_int_equal(total.errors, 1);
}

static void keeps_unknown_op_and_trailing_fields(void **state)
{
	(void)state;
	assert_parses(STATUS_V2_SEVEN_OPS_AND_EXTRA);
	assert_int_equal(st.nr_ops, 7);
	assert_op(&st.ops[6], "zone_append", 0, 0, 0, 0);
	assert_int_equal(st.nr_extra_fields, 2);
	assert_string_equal(st.extra_fields, "future_field 99");
}

static void skips_dmsetup_prefix(void **state)
{
	(void)state;
	assert_parses(STATUS_DMSETUP_PREFIXED);
	assert_int_equal(st.nr_paths, 2);
	assert_op(&st.ops[1], "write", 3006, 40, 2966, 1);
}

static void rejects_other_target_type(void **state)
{
	(void)state;
	assert_rejected("0 2097152 linear 8:16 0", "not rqpath");
	assert_rejected("0 2097152 multipath 0 0 1 1 round-robin 0 1 1 8:16 1",
			"not rqpath");
}

static void tolerates_tabs_and_newline(void **state)
{
	(void)state;
	assert_parses("  1\t8:0 A 0 5  0 0 0 0 0 6 read 5 0 5 0 write 0 0 0 0 "
		      "flush 0 0 0 0 discard 0 0 0 0 write_zeroes 0 0 0 0 "
		      "other 0 0 0 0\n");
	assert_int_equal(st.paths[0].dispatched, 5);
	assert_int_equal(st.nr_extra_fields, 0);
}

static void append(char *buf, size_t len, const char *fmt, unsigned int a)
{
	size_t used = strlen(buf);

	snprintf(buf + used, len - used, fmt, a);
}

static void build_paths_line(char *buf, size_t len, unsigned int nr_paths)
{
	unsigned int i;

	buf[0] = '\0';
	append(buf, len, "%u", nr_paths);
	for (i = 0; i < nr_paths; i++)
		append(buf, len, " 8:%u A 0 1", i * 16);
	append(buf, len, " 0 0 0 0 0 %u", 1);
	append(buf, len, " read %u 0 0 0", nr_paths);
}

static void parses_32_paths_rejects_33(void **state)
{
	char line[4096];

	(void)state;
	build_paths_line(line, sizeof(line), 32);
	assert_parses(line);
	assert_int_equal(st.nr_paths, 32);
	assert_string_equal(st.paths[31].dev, "8:496");
	build_paths_line(line, sizeof(line), 33);
	assert_rejected(line, "nr_paths");
}

static void skips_op_groups_beyond_capacity(void **state)
{
	char line[8192] = "1 8:0 A 0 0 0 0 0 0 0 40";
	unsigned int i;

	(void)state;
	for (i = 0; i < 40; i++)
		append(line, sizeof(line), " op%u 1 1 1 0", i);
	assert_parses(line);
	assert_int_equal(st.nr_ops, 40);
	assert_int_equal(st.nr_ops_kept, RQ_MAX_OPS);
	assert_string_equal(st.ops[RQ_MAX_OPS - 1].name, "op31");
	assert_false(st.has_op_details);

	/* the trailing group names all 40, the dropped ones included */
	append(line, sizeof(line), " %u", 40);
	for (i = 0; i < 40; i++)
		append(line, sizeof(line), " op%u 0 1", i);
	append(line, sizeof(line), " %u", 77);
	assert_parses(line);
	assert_true(st.has_op_details);
	assert_int_equal(st.ops[RQ_MAX_OPS - 1].busy_since_completion, 1);
	assert_int_equal(st.nr_extra_fields, 1);
	assert_string_equal(st.extra_fields, "77");

	/* a mismatch among the dropped ones is still found */
	strcpy(strstr(line, " op39 0 1"), " op38 0 1 77");
	assert_rejected(line, "expected 'op39'");
}

static void parses_largest_counter(void **state)
{
	(void)state;
	assert_parses("1 8:0 A 18446744073709551615 0 0 0 0 0 0 1 "
		      "read 0 0 0 0");
	assert_int_equal(st.paths[0].fail_count, UINT64_MAX);
	assert_rejected("1 8:0 A 18446744073709551616 0 0 0 0 0 0 1 "
			"read 0 0 0 0", "fail_count of path 1");
}

static void finds_ops_by_name(void **state)
{
	(void)state;
	assert_parses(STATUS_README_EXAMPLE);
	assert_non_null(rq_status_find_op(&st, "write"));
	assert_int_equal(rq_status_find_op(&st, "write")->busy, 40);
	assert_null(rq_status_find_op(&st, "zone_append"));
}

struct bad_line {
	const char *line;
	const char *why;	/* must appear in the error message */
};

static const struct bad_line bad_lines[] = {
	{ "", "nr_paths missing" },
	{ "   \n", "nr_paths missing" },
	{ "x 8:16 A 0 0", "nr_paths" },
	{ "0 0 0 0 0 0 6", "out of range" },
	{ "-1 8:16 A 0 0", "nr_paths" },
	{ "1 sdb A 0 0 0 0 0 0 0 1 read 0 0 0 0", "device of path 1" },
	{ "1 8: A 0 0 0 0 0 0 0 1 read 0 0 0 0", "device of path 1" },
	{ "1 :16 A 0 0 0 0 0 0 0 1 read 0 0 0 0", "device of path 1" },
	{ "1 8:16:1 A 0 0 0 0 0 0 0 1 read 0 0 0 0", "device of path 1" },
	{ "2 8:16 A 0 1 8:32 X 0 1 0 0 0 0 0 1 read 2 0 2 0",
	  "state of path 2" },
	{ "1 8:16 a 0 0 0 0 0 0 0 1 read 0 0 0 0", "state of path 1" },
	{ "1 8:16 A -1 0 0 0 0 0 0 1 read 0 0 0 0", "fail_count of path 1" },
	{ "1 8:16 A 0 1e3 0 0 0 0 0 1 read 0 0 0 0", "dispatched of path 1" },
	{ "1 8:16 A 0 0 2 0 0 0 0 1 read 0 0 0 0", "queue_if_no_path" },
	{ "1 8:16 A 0 0 0 12abc 0 0 0 1 read 0 0 0 0", "in_flight" },
	{ "1 8:16 A 0 0 0 0 0x10 0 0 1 read 0 0 0 0",
	  "busy_since_completion" },
	{ "1 8:16 A 0 0 0 0 0 +1 0 1 read 0 0 0 0", "no_path_requeues" },
	{ "1 8:16 A 0 0 0 0 0 0 0 0", "nr_ops" },
	{ "1 8:16 A 0 0 0 0 0 0 0 1 7 0 0 0 0", "name of op group 1" },
	{ "1 8:16 A 0 0 0 0 0 0 0 1 Read 0 0 0 0", "name of op group 1" },
	{ "1 8:16 A 0 0 0 0 0 0 0 1 read 0 x 0 0", "busy of op read" },
	{ "1 8:16 A 0 0 0 0 0 0 0 2 read 0 0 0 0 read 0 0 0 0",
	  "appears twice" },
	/* two paths announced, one given: the state is read from "0" */
	{ "2 8:16 A 0 5 0 0 0 0 0 1 read 5 0 5 0", "device of path 2" },
	/* six op groups announced, five given */
	{ "1 8:16 A 0 0 0 0 0 0 0 6 read 0 0 0 0 write 0 0 0 0 "
	  "flush 0 0 0 0 discard 0 0 0 0 write_zeroes 0 0 0 0",
	  "name of op group 6 missing" },
	/* an op group cut short */
	{ "1 8:16 A 0 0 0 0 0 0 0 1 read 0 0 0", "errors of op read missing" },
	/* a count one too large makes a number land where a name belongs */
	{ "1 8:16 A 0 0 0 0 0 0 0 2 read 0 0 0 0 7 42", "name of op group 2" },

	/* the trailing (<op> <refused> <busy_since_completion>) group */
	/* its count must be <nr_ops> */
	{ "1 8:16 A 0 0 0 0 0 0 0 1 read 0 0 0 0 2 read 0 0 write 0 0",
	  "does not match <nr_ops> 1" },
	{ "1 8:16 A 0 0 0 0 0 0 0 2 read 0 0 0 0 write 0 0 0 0 1 read 0 0",
	  "does not match <nr_ops> 2" },
	/* what older parsers kept as unknown trailing fields */
	{ "1 8:16 A 0 0 0 0 0 0 0 1 read 0 0 0 0 7 42", "nr_ops of the" },
	{ "1 8:16 A 0 0 0 0 0 0 0 1 read 0 0 0 0 future_field 99",
	  "expected an unsigned number, got 'future_field'" },
	{ "1 8:16 A 0 0 0 0 0 0 0 1 read 0 0 0 0 0", "nr_ops of the" },
	{ "1 8:16 A 0 0 0 0 0 0 0 1 read 0 0 0 0 -1 read 0 0", "nr_ops of the" },
	/* the same op names in the same order */
	{ "1 8:16 A 0 0 0 0 0 0 0 2 read 0 0 0 0 write 0 0 0 0 "
	  "2 write 0 0 read 0 0", "expected 'read', got 'write'" },
	{ "1 8:16 A 0 0 0 0 0 0 0 1 read 0 0 0 0 1 Read 0 0",
	  "expected 'read', got 'Read'" },
	{ "1 8:16 A 0 0 0 0 0 0 0 1 read 0 0 0 0 1 7 0 0",
	  "expected 'read', got '7'" },
	/* its numbers */
	{ "1 8:16 A 0 0 0 0 0 0 0 1 read 0 0 0 0 1 read x 0",
	  "refused of op read" },
	{ "1 8:16 A 0 0 0 0 0 0 0 1 read 0 0 0 0 1 read 0 -3",
	  "busy_since_completion of op read" },
	{ "1 8:16 A 0 0 0 0 0 0 0 1 read 0 0 0 0 1 read 0 18446744073709551616",
	  "busy_since_completion of op read" },
	/* cut short */
	{ "1 8:16 A 0 0 0 0 0 0 0 1 read 0 0 0 0 1", "missing" },
	{ "1 8:16 A 0 0 0 0 0 0 0 1 read 0 0 0 0 1 read 0",
	  "busy_since_completion of op read missing" },
	{ "1 8:16 A 0 0 0 0 0 0 0 2 read 0 0 0 0 write 0 0 0 0 2 read 0 0",
	  "missing" },
};

static void rejects_malformed_lines(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad_lines) / sizeof(bad_lines[0]); i++)
		assert_rejected(bad_lines[i].line, bad_lines[i].why);
}

/* Every cut of the example before its last op group must be refused. */
static void rejects_every_truncation(void **state)
{
	char line[sizeof(STATUS_README_EXAMPLE)];
	size_t len;

	(void)state;
	for (len = 0; len < sizeof(STATUS_README_EXAMPLE) - 1; len++) {
		if (STATUS_README_EXAMPLE[len] != ' ')
			continue;
		memcpy(line, STATUS_README_EXAMPLE, len);
		line[len] = '\0';
		if (!rq_status_parse(line, &st, err, sizeof(err)))
			fail_msg("accepted truncated line '%s'", line);
	}
}

/*
 * A newer line cut anywhere in its trailing group is refused too; cut
 * exactly where that group starts, it is an older target's line.
 */
static void rejects_every_truncation_of_the_trailing_group(void **state)
{
	static char line[sizeof(STATUS_V2_README_EXAMPLE)];
	size_t first_end = strlen(STATUS_README_EXAMPLE);
	size_t len;

	(void)state;
	/* the first groups of both examples have the same length */
	assert_true(!strncmp(STATUS_V2_README_EXAMPLE + first_end, " 6 read",
			     7));
	for (len = first_end; len < sizeof(STATUS_V2_README_EXAMPLE) - 1;
	     len++) {
		if (STATUS_V2_README_EXAMPLE[len] != ' ')
			continue;
		memcpy(line, STATUS_V2_README_EXAMPLE, len);
		line[len] = '\0';
		if (len == first_end) {
			assert_parses(line);
			assert_false(st.has_op_details);
		} else if (!rq_status_parse(line, &st, err, sizeof(err))) {
			fail_msg("accepted truncated line '%s'", line);
		}
	}
	assert_parses(STATUS_V2_README_EXAMPLE);
}

static void parse_error_without_buffer_is_safe(void **state)
{
	(void)state;
	assert_int_equal(rq_status_parse("garbage", &st, NULL, 0), -1);
	assert_int_equal(rq_status_parse(NULL, &st, err, sizeof(err)), -1);
}

/* ---- table lines ------------------------------------------------------ */

static struct rq_table table;

static void parses_table_without_features(void **state)
{
	(void)state;
	assert_int_equal(rq_table_parse(TABLE_TWO_PATHS, &table, err,
					sizeof(err)), 0);
	assert_int_equal(table.nr_paths, 2);
	assert_string_equal(table.paths[0], "8:16");
	assert_string_equal(table.paths[1], "8:32");
	assert_int_equal(table.nr_features, 0);
	assert_false(table.queue_if_no_path);
}

static void parses_table_with_queueing(void **state)
{
	(void)state;
	assert_int_equal(rq_table_parse(TABLE_TWO_PATHS_QUEUEING, &table, err,
					sizeof(err)), 0);
	assert_int_equal(table.nr_features, 1);
	assert_true(table.queue_if_no_path);
	assert_int_equal(table.nr_unknown_features, 0);
	assert_true(rq_table_has_dev(&table, 8, 32));
	assert_false(rq_table_has_dev(&table, 8, 48));
}

static void parses_table_with_dmsetup_prefix(void **state)
{
	(void)state;
	assert_int_equal(rq_table_parse(TABLE_DMSETUP_PREFIXED, &table, err,
					sizeof(err)), 0);
	assert_int_equal(table.nr_paths, 2);
	assert_true(table.queue_if_no_path);
}

static void keeps_unknown_table_features(void **state)
{
	(void)state;
	assert_int_equal(rq_table_parse("1 8:16 2 queue_if_no_path "
					"no_partitions", &table, err,
					sizeof(err)), 0);
	assert_true(table.queue_if_no_path);
	assert_int_equal(table.nr_unknown_features, 1);
	assert_string_equal(table.unknown_features, "no_partitions");
}

static const struct bad_line bad_tables[] = {
	{ "", "nr_paths missing" },
	{ "0 0", "out of range" },
	{ "33 8:16", "out of range" },
	{ "2 8:16 0", "device of path 2" },
	{ "2 /dev/sdb /dev/sdc 0", "device of path 1" },
	{ "2 8:16 8:32", "nr_features missing" },
	{ "2 8:16 8:32 1", "feature missing" },
	{ "2 8:16 8:32 x", "nr_features" },
	{ "2 8:16 8:32 0 queue_if_no_path", "after the features" },
	{ "1 8:16 1 queue_if_no_path extra", "after the features" },
	{ "0 100 linear 8:16 0", "not rqpath" },
};

static void rejects_malformed_tables(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad_tables) / sizeof(bad_tables[0]); i++) {
		const struct bad_line *bad = &bad_tables[i];

		if (!rq_table_parse(bad->line, &table, err, sizeof(err)))
			fail_msg("accepted table '%s'", bad->line);
		if (!strstr(err, bad->why))
			fail_msg("error '%s' does not mention '%s'", err,
				 bad->why);
	}
}

static void formats_table_params(void **state)
{
	const char *const two[] = { "8:16", "/dev/sdc" };
	char buf[128];

	(void)state;
	assert_int_equal(rq_table_params_format(buf, sizeof(buf), 2, two,
						false), 0);
	assert_string_equal(buf, "2 8:16 /dev/sdc");
	assert_int_equal(rq_table_params_format(buf, sizeof(buf), 2, two,
						true), 0);
	assert_string_equal(buf, "2 8:16 /dev/sdc 1 queue_if_no_path");
	/* The kernel prints paths as major:minor, never by name. */
	assert_int_equal(rq_table_parse(buf, &table, err, sizeof(err)), -1);
}

static void table_params_round_trip(void **state)
{
	const char *const devs[] = { "8:16", "8:32", "65:0" };
	char buf[128];

	(void)state;
	assert_int_equal(rq_table_params_format(buf, sizeof(buf), 3, devs,
						true), 0);
	assert_int_equal(rq_table_parse(buf, &table, err, sizeof(err)), 0);
	assert_int_equal(table.nr_paths, 3);
	assert_string_equal(table.paths[2], "65:0");
	assert_true(table.queue_if_no_path);
}

static void refuses_bad_table_params(void **state)
{
	const char *const spaced[] = { "/dev/my disk" };
	const char *const empty[] = { "" };
	const char *const one[] = { "8:16" };
	char small[8];
	char buf[64];

	(void)state;
	assert_int_equal(rq_table_params_format(buf, sizeof(buf), 1, spaced,
						false), -1);
	assert_int_equal(rq_table_params_format(buf, sizeof(buf), 1, empty,
						false), -1);
	assert_int_equal(rq_table_params_format(buf, sizeof(buf), 0, one,
						false), -1);
	assert_int_equal(rq_table_params_format(small, sizeof(small), 1, one,
						true), -1);
}

static void parses_devices(void **state)
{
	unsigned int major, minor;

	(void)state;
	assert_int_equal(rq_parse_dev("8:16", 4, &major, &minor), 0);
	assert_int_equal(major, 8);
	assert_int_equal(minor, 16);
	assert_int_equal(rq_parse_dev("259:1048575", 11, &major, &minor), 0);
	assert_int_equal(minor, 1048575);
	assert_int_equal(rq_parse_dev("8", 1, &major, &minor), -1);
	assert_int_equal(rq_parse_dev("8:", 2, &major, &minor), -1);
	assert_int_equal(rq_parse_dev("a:1", 3, &major, &minor), -1);
	assert_int_equal(rq_parse_dev("4294967296:0", 12, &major, &minor), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parses_readme_example),
		cmocka_unit_test(parses_idle_single_path),
		cmocka_unit_test(parses_all_paths_failed_with_queueing),
		cmocka_unit_test(parses_discard_livelock),
		cmocka_unit_test(old_line_has_no_op_details),
		cmocka_unit_test(parses_trailing_op_group),
		cmocka_unit_test(parses_the_contracts_example),
		cmocka_unit_test(parses_discard_spin_under_reads_and_writes),
		cmocka_unit_test(trailing_group_with_a_seventh_op),
		cmocka_unit_test(keeps_fields_after_the_trailing_group),
		cmocka_unit_test(keeps_unknown_op_group),
		cmocka_unit_test(keeps_unknown_op_and_trailing_fields),
		cmocka_unit_test(skips_dmsetup_prefix),
		cmocka_unit_test(rejects_other_target_type),
		cmocka_unit_test(tolerates_tabs_and_newline),
		cmocka_unit_test(parses_32_paths_rejects_33),
		cmocka_unit_test(skips_op_groups_beyond_capacity),
		cmocka_unit_test(parses_largest_counter),
		cmocka_unit_test(finds_ops_by_name),
		cmocka_unit_test(rejects_malformed_lines),
		cmocka_unit_test(rejects_every_truncation),
		cmocka_unit_test(rejects_every_truncation_of_the_trailing_group),
		cmocka_unit_test(parse_error_without_buffer_is_safe),
		cmocka_unit_test(parses_table_without_features),
		cmocka_unit_test(parses_table_with_queueing),
		cmocka_unit_test(parses_table_with_dmsetup_prefix),
		cmocka_unit_test(keeps_unknown_table_features),
		cmocka_unit_test(rejects_malformed_tables),
		cmocka_unit_test(formats_table_params),
		cmocka_unit_test(table_params_round_trip),
		cmocka_unit_test(refuses_bad_table_params),
		cmocka_unit_test(parses_devices),
	};

	return cmocka_run_group_tests_name("rq_status", tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: status --fields, the field list parser and the
 * RQ_<FIELD>=<value> lines (rq_fields.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "recorded_status.h"
#include "rq_fields.h"

static struct rq_field_list list;	/* large; keep it off the stack */
static struct rq_status st;
static char err[256];
static char *text;

static void parse_status(const char *line)
{
	char why[RQ_ERR_LEN];

	if (rq_status_parse(line, &st, why, sizeof(why)))
		fail_msg("%s", why);
}

static void parse_fields(const char *fields)
{
	if (rq_fields_parse(fields, &list, err, sizeof(err)))
		fail_msg("'%s' refused: %s", fields, err);
}

/* What --fields FIELDS prints for the status line. */
static const char *print(const char *line, const char *fields)
{
	size_t len = 0;
	FILE *out;

	parse_status(line);
	parse_fields(fields);
	free(text);
	text = NULL;
	out = open_memstream(&text, &len);
	assert_non_null(out);
	rq_fields_print(out, &list, &st);
	fclose(out);
	return text;
}

static const char *quoted(const char *value)
{
	size_t len = 0;
	FILE *out;

	free(text);
	text = NULL;
	out = open_memstream(&text, &len);
	assert_non_null(out);
	rq_shell_quote(out, value);
	fclose(out);
	return text;
}

static int teardown(void **state)
{
	(void)state;
	free(text);
	text = NULL;
	return 0;
}

static void device_values_and_totals(void **state)
{
	(void)state;
	assert_string_equal(print(STATUS_README_EXAMPLE,
				  "nr_paths,nr_active,queue_if_no_path,"
				  "in_flight,busy_since_completion,"
				  "no_path_requeues,no_clone_requeues,"
				  "mapped,busy,completed,errors"),
			    "RQ_NR_PATHS=2\n"
			    "RQ_NR_ACTIVE=1\n"
			    "RQ_QUEUE_IF_NO_PATH=0\n"
			    "RQ_IN_FLIGHT=3\n"
			    "RQ_BUSY_SINCE_COMPLETION=0\n"
			    "RQ_NO_PATH_REQUEUES=0\n"
			    "RQ_NO_CLONE_REQUEUES=0\n"
			    "RQ_MAPPED=3018\n"
			    "RQ_BUSY=40\n"
			    "RQ_COMPLETED=2978\n"
			    "RQ_ERRORS=1\n");
	assert_string_equal(print(STATUS_ALL_FAILED_QUEUEING,
				  "queue_if_no_path,nr_active"),
			    "RQ_QUEUE_IF_NO_PATH=1\nRQ_NR_ACTIVE=0\n");
}

static void per_op_values(void **state)
{
	(void)state;
	assert_string_equal(print(STATUS_V2_DISCARD_SPIN_UNDER_RW,
				  "discard_mapped,discard_busy,"
				  "discard_completed,discard_errors,"
				  "discard_refused,"
				  "discard_busy_since_completion,"
				  "write_busy_since_completion,refused"),
			    "RQ_DISCARD_MAPPED=46316\n"
			    "RQ_DISCARD_BUSY=46315\n"
			    "RQ_DISCARD_COMPLETED=1\n"
			    "RQ_DISCARD_ERRORS=0\n"
			    "RQ_DISCARD_REFUSED=0\n"
			    "RQ_DISCARD_BUSY_SINCE_COMPLETION=46301\n"
			    "RQ_WRITE_BUSY_SINCE_COMPLETION=3\n"
			    "RQ_REFUSED=0\n");
	/* "write" is a prefix of "write_zeroes": both resolve */
	assert_string_equal(print(STATUS_V2_README_EXAMPLE,
				  "write_refused,write_zeroes_refused,"
				  "write_zeroes_busy,other_mapped,refused"),
			    "RQ_WRITE_REFUSED=1\n"
			    "RQ_WRITE_ZEROES_REFUSED=0\n"
			    "RQ_WRITE_ZEROES_BUSY=0\n"
			    "RQ_OTHER_MAPPED=0\n"
			    "RQ_REFUSED=1\n");
}

/* An older target: what it does not report is empty, never 0. */
static void unknown_values_are_empty(void **state)
{
	(void)state;
	assert_string_equal(print(STATUS_README_EXAMPLE,
				  "refused,write_refused,"
				  "write_busy_since_completion,write_busy"),
			    "RQ_REFUSED=''\n"
			    "RQ_WRITE_REFUSED=''\n"
			    "RQ_WRITE_BUSY_SINCE_COMPLETION=''\n"
			    "RQ_WRITE_BUSY=40\n");
	/* a path the device does not have */
	assert_string_equal(print(STATUS_README_EXAMPLE, "path3_dev,path2_dev"),
			    "RQ_PATH3_DEV=''\nRQ_PATH2_DEV=8:32\n");
}

static void paths(void **state)
{
	(void)state;
	assert_string_equal(print(STATUS_README_EXAMPLE,
				  "paths,path1_dev,path1_state,"
				  "path1_fail_count,path1_dispatched,"
				  "path2_state,path2_fail_count"),
			    "RQ_PATHS='8:16:A 8:32:F'\n"
			    "RQ_PATH1_DEV=8:16\n"
			    "RQ_PATH1_STATE=A\n"
			    "RQ_PATH1_FAIL_COUNT=0\n"
			    "RQ_PATH1_DISPATCHED=1520\n"
			    "RQ_PATH2_STATE=F\n"
			    "RQ_PATH2_FAIL_COUNT=1\n");
	assert_string_equal(print(STATUS_IDLE_ONE_PATH, "paths"),
			    "RQ_PATHS=8:0:A\n");
}

static unsigned int count_lines(const char *s)
{
	unsigned int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void all_fields(void **state)
{
	const char *out;

	(void)state;
	out = print(STATUS_V2_README_EXAMPLE, "all");
	/* 13 device values, 6 ops x 6 counters, 2 paths x 4 attributes */
	assert_int_equal(count_lines(out), 13 + 36 + 8);
	assert_true(!strncmp(out, "RQ_NR_PATHS=2\nRQ_NR_ACTIVE=1\n", 28));
	assert_non_null(strstr(out, "\nRQ_PATHS='8:16:A 8:32:F'\n"
			       "RQ_READ_MAPPED=12\n"));
	assert_non_null(strstr(out, "\nRQ_OTHER_BUSY_SINCE_COMPLETION=0\n"
			       "RQ_PATH1_DEV=8:16\n"));
	assert_non_null(strstr(out, "\nRQ_PATH2_DISPATCHED=1498\n"));
	assert_non_null(strstr(out, "\nRQ_WRITE_REFUSED=1\n"));

	/* an op the contract does not name yet comes with all */
	out = print(STATUS_V2_SEVEN_OPS, "all");
	assert_non_null(strstr(out, "\nRQ_ZONE_APPEND_REFUSED=1\n"));
	assert_non_null(strstr(out, "\nRQ_ZONE_APPEND_BUSY_SINCE_COMPLETION=6\n"));

	/* all next to other names, in the order asked */
	out = print(STATUS_IDLE_ONE_PATH, "in_flight,all,in_flight");
	assert_true(!strncmp(out, "RQ_IN_FLIGHT=0\nRQ_NR_PATHS=1\n", 29));
	assert_int_equal(count_lines(out), 1 + 13 + 36 + 4 + 1);
}

static void shell_quoting(void **state)
{
	(void)state;
	assert_string_equal(quoted("8:16"), "8:16");
	assert_string_equal(quoted("a-b_c.d:9"), "a-b_c.d:9");
	assert_string_equal(quoted(""), "''");
	assert_string_equal(quoted("8:16:A 8:32:F"), "'8:16:A 8:32:F'");
	assert_string_equal(quoted("it's"), "'it'\\''s'");
	assert_string_equal(quoted("$(rm -rf /)"), "'$(rm -rf /)'");
	assert_string_equal(quoted("a\nb"), "'a\nb'");
}

/* Round trip through a real shell: eval gives the values back. */
static void eval_round_trip(void **state)
{
	char path[] = "/tmp/rqpathctl-fields.XXXXXX";
	char cmd[512], got[256] = "";
	FILE *f, *sh;
	int fd;

	(void)state;
	print(STATUS_README_EXAMPLE, "paths,in_flight,refused,path2_state");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(text, f);
	fputs("RQ_ODD=", f);
	rq_shell_quote(f, "it's $(echo no) `echo no` \"x\"");
	fputc('\n', f);
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "sh -c 'eval \"$(cat %s)\"; printf \"%%s|%%s|%%s|%%s|%%s\" "
		 "\"$RQ_PATHS\" \"$RQ_IN_FLIGHT\" \"${RQ_REFUSED-unset}\" "
		 "\"$RQ_PATH2_STATE\" \"$RQ_ODD\"'", path);
	sh = popen(cmd, "r");
	assert_non_null(sh);
	assert_non_null(fgets(got, sizeof(got), sh));
	pclose(sh);
	unlink(path);
	assert_string_equal(got, "8:16:A 8:32:F|3||F|"
			    "it's $(echo no) `echo no` \"x\"");
}

struct bad_list {
	const char *list;
	const char *why;
};

static const struct bad_list bad_lists[] = {
	{ "", "empty field name" },
	{ ",", "empty field name" },
	{ "in_flight,", "empty field name" },
	{ "in_flight,,busy", "empty field name" },
	{ "IN_FLIGHT", "field names are lower case" },
	{ "In_flight", "lower case" },
	{ "inflight", "unknown field 'inflight'" },
	{ "in_flight,frobs", "unknown field 'frobs'" },
	{ "zone_append_busy", "unknown field" },
	{ "read", "unknown field 'read'" },
	{ "read_", "unknown field" },
	{ "read_busyx", "unknown field" },
	{ "_busy", "unknown field" },
	{ "write_zeroes", "unknown field" },
	{ "path0_dev", "unknown field" },
	{ "path33_dev", "unknown field" },
	{ "path01_dev", "unknown field" },
	{ "path1", "unknown field" },
	{ "path1_", "unknown field" },
	{ "path1_size", "unknown field" },
	{ "path99999999999999999999_dev", "unknown field" },
	{ "all,", "empty field name" },
	{ " in_flight", "unknown field" },
	{ "RQ_IN_FLIGHT", "unknown field" },
};

static void refuses_bad_lists(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad_lists) / sizeof(bad_lists[0]); i++) {
		if (!rq_fields_parse(bad_lists[i].list, &list, err,
				     sizeof(err)))
			fail_msg("'%s' accepted", bad_lists[i].list);
		if (!strstr(err, bad_lists[i].why))
			fail_msg("'%s': '%s' does not say '%s'",
				 bad_lists[i].list, err, bad_lists[i].why);
	}
}

static void accepts_every_documented_name(void **state)
{
	static const char *const ops[] = { "read", "write", "flush", "discard",
					   "write_zeroes", "other" };
	static const char *const counters[] = { "mapped", "busy", "completed",
						"errors", "refused",
						"busy_since_completion" };
	char name[96];
	size_t i, j;

	(void)state;
	parse_fields("nr_paths,nr_active,queue_if_no_path,in_flight,"
		     "busy_since_completion,no_path_requeues,"
		     "no_clone_requeues,mapped,busy,completed,errors,refused,"
		     "paths,all,path1_dev,path32_dispatched,path10_state,"
		     "path2_fail_count");
	assert_int_equal(list.nr, 18);
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		for (j = 0; j < sizeof(counters) / sizeof(counters[0]); j++) {
			snprintf(name, sizeof(name), "%s_%s", ops[i],
				 counters[j]);
			parse_fields(name);
			assert_int_equal(list.fields[0].kind, RQ_FIELD_OP);
			assert_string_equal(list.fields[0].op, ops[i]);
		}
}

static void refuses_too_many(void **state)
{
	static char many[RQ_FIELDS_MAX * 8];
	size_t used = 0;
	unsigned int i;

	(void)state;
	for (i = 0; i < RQ_FIELDS_MAX; i++)
		used += (size_t)snprintf(many + used, sizeof(many) - used,
					 "%sbusy", i ? "," : "");
	parse_fields(many);
	assert_int_equal(list.nr, RQ_FIELDS_MAX);
	snprintf(many + used, sizeof(many) - used, ",busy");
	assert_int_equal(rq_fields_parse(many, &list, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "more than 256 fields"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(device_values_and_totals, teardown),
		cmocka_unit_test_teardown(per_op_values, teardown),
		cmocka_unit_test_teardown(unknown_values_are_empty, teardown),
		cmocka_unit_test_teardown(paths, teardown),
		cmocka_unit_test_teardown(all_fields, teardown),
		cmocka_unit_test_teardown(shell_quoting, teardown),
		cmocka_unit_test_teardown(eval_round_trip, teardown),
		cmocka_unit_test(refuses_bad_lists),
		cmocka_unit_test(accepts_every_documented_name),
		cmocka_unit_test(refuses_too_many),
	};

	return cmocka_run_group_tests_name("rq_fields", tests, NULL, NULL);
}

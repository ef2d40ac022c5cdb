// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: command line parsing (rq_cli.c), every subcommand's valid
 * and invalid forms.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rq_cli.h"

#define MAX_ARGS 48

static struct rq_cli cli;	/* large; keep it off the cmocka stack */

/* Split a command line on spaces; "''" stands for an empty argument. */
static int parse_line(const char *line)
{
	static char buf[4096];
	char *argv[MAX_ARGS];
	int argc = 0;
	char *tok, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", line);
	argv[argc++] = "rqpathctl";
	for (tok = strtok_r(buf, " ", &save); tok && argc < MAX_ARGS - 1;
	     tok = strtok_r(NULL, " ", &save))
		argv[argc++] = strcmp(tok, "''") ? tok : tok + 2;
	argv[argc] = NULL;
	return rq_cli_parse(argc, argv, &cli);
}

static void assert_ok(const char *line)
{
	if (parse_line(line) != RQ_EXIT_OK)
		fail_msg("'%s' refused: %s", line, cli.error);
}

static void assert_usage_error(const char *line, const char *why)
{
	if (parse_line(line) != RQ_EXIT_USAGE)
		fail_msg("'%s' accepted", line);
	if (!strstr(cli.error, why))
		fail_msg("'%s': error '%s' does not mention '%s'", line,
			 cli.error, why);
}

/* ---- global --------------------------------------------------------- */

static void global_help_and_version(void **state)
{
	(void)state;
	assert_ok("--help");
	assert_true(cli.help);
	assert_int_equal(cli.cmd, RQ_CMD_NONE);
	assert_ok("-h");
	assert_true(cli.help);
	assert_ok("help");
	assert_true(cli.help);
	assert_int_equal(cli.cmd, RQ_CMD_NONE);
	assert_ok("help watch");
	assert_true(cli.help);
	assert_int_equal(cli.cmd, RQ_CMD_WATCH);
	assert_ok("--version");
	assert_true(cli.version);
	assert_ok("-v status rq0");
	assert_true(cli.verbose);
	assert_int_equal(cli.cmd, RQ_CMD_STATUS);
}

static void global_errors(void **state)
{
	(void)state;
	assert_usage_error("", "missing command");
	assert_usage_error("-v", "missing command");
	assert_usage_error("frob rq0", "unknown command 'frob'");
	assert_usage_error("-x status rq0", "unknown option '-x'");
	assert_usage_error("--json status rq0", "unknown option '--json'");
	assert_usage_error("help frob", "unknown command 'frob'");
	assert_usage_error("help watch status", "unexpected argument");
}

static void subcommand_help_wins(void **state)
{
	(void)state;
	assert_ok("create --help");
	assert_true(cli.help);
	assert_int_equal(cli.cmd, RQ_CMD_CREATE);
	assert_ok("watch rq0 --stall nonsense -h");
	assert_true(cli.help);
	assert_int_equal(cli.cmd, RQ_CMD_WATCH);
	/* after "--" it is an argument, not a request for help */
	assert_ok("message rq0 -- --help");
	assert_false(cli.help);
	assert_string_equal(cli.message, "--help");
}

/* ---- create ------------------------------------------------------------- */

static void create_valid(void **state)
{
	(void)state;
	assert_ok("create rq0 /dev/sdb");
	assert_int_equal(cli.cmd, RQ_CMD_CREATE);
	assert_string_equal(cli.name, "rq0");
	assert_int_equal(cli.nr_paths, 1);
	assert_string_equal(cli.paths[0], "/dev/sdb");
	assert_false(cli.queue_if_no_path);

	assert_ok("create rq0 /dev/sdb 8:32 --queue-if-no-path");
	assert_int_equal(cli.nr_paths, 2);
	assert_string_equal(cli.paths[1], "8:32");
	assert_true(cli.queue_if_no_path);

	assert_ok("create --queue-if-no-path rq0 /dev/sdb");
	assert_true(cli.queue_if_no_path);
	assert_string_equal(cli.name, "rq0");

	assert_ok("create rq0 -- /dev/sdb");
	assert_int_equal(cli.nr_paths, 1);
}

static void create_up_to_32_paths(void **state)
{
	char line[1024] = "create rq0";
	unsigned int i;

	(void)state;
	for (i = 0; i < 32; i++)
		snprintf(line + strlen(line), sizeof(line) - strlen(line),
			 " 8:%u", i * 16);
	assert_ok(line);
	assert_int_equal(cli.nr_paths, 32);
	assert_string_equal(cli.paths[31], "8:496");
	strcat(line, " 8:999");
	assert_usage_error(line, "at most 32 paths");
}

static void create_invalid(void **state)
{
	char long_name[160];

	(void)state;
	assert_usage_error("create", "missing NAME");
	assert_usage_error("create rq0", "missing PATH");
	assert_usage_error("create --queue-if-no-path rq0", "missing PATH");
	assert_usage_error("create rq0 /dev/sdb --bogus", "unknown option "
			   "'--bogus'");
	assert_usage_error("create rq0 /dev/sdb -q", "unknown option '-q'");
	assert_usage_error("create rq0 /dev/sdb --queue-if-no-path=1",
			   "takes no value");
	assert_usage_error("create rq0 /dev/sdb --json", "unknown option");
	assert_usage_error("create '' /dev/sdb", "must not be empty");
	assert_usage_error("create a/b /dev/sdb", "/dev/mapper");
	assert_usage_error("create .. /dev/sdb", "/dev/mapper");
	assert_usage_error("create rq0 ''", "PATH");

	memset(long_name, 'x', 128);
	strcpy(long_name + 128, " /dev/sdb");
	{
		char line[200];

		snprintf(line, sizeof(line), "create %s", long_name);
		assert_usage_error(line, "longer than 127");
	}
}

/* ---- remove, status, table ------------------------------------------------ */

static void remove_status_table(void **state)
{
	(void)state;
	assert_ok("remove rq0");
	assert_int_equal(cli.cmd, RQ_CMD_REMOVE);
	assert_string_equal(cli.name, "rq0");
	assert_ok("status rq0");
	assert_int_equal(cli.cmd, RQ_CMD_STATUS);
	assert_false(cli.json);
	assert_ok("status rq0 --json");
	assert_true(cli.json);
	assert_string_equal(cli.json_file, "-");
	assert_ok("status --json rq0");
	assert_true(cli.json);
	assert_string_equal(cli.name, "rq0");
	assert_string_equal(cli.json_file, "-");
	/* the same --json as everywhere: FILE, or - for stdout */
	assert_ok("status rq0 --json=/tmp/s.json");
	assert_string_equal(cli.json_file, "/tmp/s.json");
	assert_ok("status rq0 --json -");
	assert_string_equal(cli.json_file, "-");
	assert_ok("status --json - rq0");
	assert_string_equal(cli.name, "rq0");
	assert_ok("status rq0 --json=-");
	assert_string_equal(cli.json_file, "-");
	assert_ok("table rq0");
	assert_int_equal(cli.cmd, RQ_CMD_TABLE);

	assert_usage_error("remove", "missing NAME");
	assert_usage_error("remove rq0 rq1", "unexpected argument 'rq1'");
	assert_usage_error("remove rq0 --force", "unknown option");
	assert_usage_error("status", "missing NAME");
	assert_usage_error("status rq0 --json=", "needs a file name");
	assert_usage_error("status rq0 --json out.json",
			   "unexpected argument 'out.json'");
	assert_usage_error("status rq0 --stall 3", "unknown option '--stall'");
	assert_usage_error("status rq0 extra", "unexpected argument");
	assert_usage_error("table", "missing NAME");
	assert_usage_error("table rq0 rq1", "unexpected argument");
	assert_usage_error("table rq0 --json", "unknown option");
}

/* ---- fail-path, reinstate-path, message -------------------------------------- */

static void path_messages(void **state)
{
	(void)state;
	assert_ok("fail-path rq0 8:16");
	assert_int_equal(cli.cmd, RQ_CMD_FAIL_PATH);
	assert_string_equal(cli.path, "8:16");
	assert_ok("reinstate-path rq0 /dev/sdc");
	assert_int_equal(cli.cmd, RQ_CMD_REINSTATE_PATH);
	assert_string_equal(cli.path, "/dev/sdc");

	assert_usage_error("fail-path", "missing NAME");
	assert_usage_error("fail-path rq0", "missing PATH");
	assert_usage_error("fail-path rq0 8:16 8:32", "unexpected argument");
	assert_usage_error("fail-path rq0 8:16 --now", "unknown option");
	assert_usage_error("reinstate-path", "missing NAME");
	assert_usage_error("reinstate-path rq0", "missing PATH");
	assert_usage_error("reinstate-path rq0 ''", "PATH");
}

static void messages(void **state)
{
	(void)state;
	assert_ok("message rq0 reset_counters");
	assert_int_equal(cli.cmd, RQ_CMD_MESSAGE);
	assert_string_equal(cli.message, "reset_counters");
	assert_ok("message rq0 fail_path 8:16");
	assert_string_equal(cli.message, "fail_path 8:16");

	assert_usage_error("message", "missing NAME");
	assert_usage_error("message rq0", "missing TEXT");
	assert_usage_error("message rq0 fail_path ''", "empty word");
	assert_usage_error("message rq0 --bogus", "unknown option");
}

static void message_too_long(void **state)
{
	static char line[RQ_MESSAGE_MAX + 64];
	size_t used;

	(void)state;
	used = (size_t)snprintf(line, sizeof(line), "message rq0 ");
	memset(line + used, 'a', RQ_MESSAGE_MAX);
	line[used + RQ_MESSAGE_MAX] = '\0';
	assert_usage_error(line, "longer than");
}

/* ---- watch ------------------------------------------------------------------- */

static void watch_defaults(void **state)
{
	(void)state;
	assert_ok("watch rq0");
	assert_int_equal(cli.cmd, RQ_CMD_WATCH);
	assert_int_equal(cli.interval_ms, 200);
	assert_true(cli.stall_s == 3.0);
	assert_false(cli.has_timeout);
	assert_null(cli.json_file);
}

static void watch_options(void **state)
{
	(void)state;
	assert_ok("watch rq0 --interval 50 --stall 1.5 --timeout 10 "
		  "--json /tmp/w.json");
	assert_int_equal(cli.interval_ms, 50);
	assert_true(cli.stall_s == 1.5);
	assert_true(cli.has_timeout);
	assert_true(cli.timeout_s == 10.0);
	assert_string_equal(cli.json_file, "/tmp/w.json");

	assert_ok("watch --interval=100 --stall=.5 --timeout=2. rq0");
	assert_int_equal(cli.interval_ms, 100);
	assert_true(cli.stall_s == 0.5);
	assert_true(cli.timeout_s == 2.0);
	assert_string_equal(cli.name, "rq0");

	/* the last of a repeated option wins */
	assert_ok("watch rq0 --stall 2 --stall 4");
	assert_true(cli.stall_s == 4.0);
}

static void watch_via_and_block_nodes(void **state)
{
	(void)state;
	assert_ok("watch rq0");
	assert_int_equal(cli.via, RQ_VIA_AUTO);
	assert_false(cli.has_interval);
	assert_ok("watch /dev/dm-3 --via trace --interval 50ms");
	assert_string_equal(cli.name, "/dev/dm-3");
	assert_int_equal(cli.via, RQ_VIA_TRACE);
	assert_true(cli.has_interval);
	assert_int_equal(cli.interval_ms, 50);
	assert_ok("watch /dev/mapper/mpatha --via=counters");
	assert_int_equal(cli.via, RQ_VIA_COUNTERS);
	assert_ok("watch rq0 --via status");
	assert_int_equal(cli.via, RQ_VIA_STATUS);
	assert_usage_error("watch rq0 --via bogus", "--via 'bogus'");
	assert_usage_error("watch rq0 --via", "needs a value");
	/* other commands still take names only */
	assert_usage_error("status /dev/dm-3", "file name");
}

static void watch_follow(void **state)
{
	(void)state;
	/* off unless asked for */
	assert_ok("watch rq0 --timeout 5");
	assert_false(cli.follow);

	assert_ok("watch rq0 --follow");
	assert_int_equal(cli.cmd, RQ_CMD_WATCH);
	assert_true(cli.follow);
	assert_false(cli.has_timeout);
	assert_int_equal(cli.interval_ms, 200);
	assert_true(cli.stall_s == 3.0);

	assert_ok("watch --follow rq0 --timeout 600");
	assert_true(cli.follow);
	assert_string_equal(cli.name, "rq0");
	assert_true(cli.has_timeout);
	assert_true(cli.timeout_s == 600.0);

	assert_ok("watch rq0 --interval 50 --follow --stall=1.5 --json "
		  "/tmp/w.json --timeout=30");
	assert_true(cli.follow);
	assert_int_equal(cli.interval_ms, 50);
	assert_true(cli.stall_s == 1.5);
	assert_true(cli.timeout_s == 30.0);
	assert_string_equal(cli.json_file, "/tmp/w.json");

	/* a flag: repeating it is harmless */
	assert_ok("watch rq0 --follow --follow");
	assert_true(cli.follow);

	/* after "--" it is a (second) argument, not the option */
	assert_usage_error("watch rq0 -- --follow", "unexpected argument "
			   "'--follow'");
	assert_usage_error("watch --follow", "missing NAME");
	assert_usage_error("watch rq0 --follow=1", "takes no value");
	assert_usage_error("watch rq0 --follow=", "takes no value");
	assert_usage_error("watch rq0 --follow 10", "unexpected argument "
			   "'10'");
	assert_usage_error("watch rq0 -f", "unknown option '-f'");
	assert_usage_error("watch rq0 --follows", "unknown option");
	assert_usage_error("status rq0 --follow", "unknown option '--follow'");
	assert_usage_error("create rq0 /dev/sdb --follow", "unknown option");
}

static void watch_samples(void **state)
{
	(void)state;
	/* off unless asked for */
	assert_ok("watch rq0 --follow");
	assert_null(cli.samples_file);

	assert_ok("watch rq0 --samples /tmp/s.jsonl");
	assert_string_equal(cli.samples_file, "/tmp/s.jsonl");
	assert_false(cli.json);
	assert_ok("watch --samples=/tmp/s.jsonl rq0 --follow");
	assert_string_equal(cli.samples_file, "/tmp/s.jsonl");
	assert_string_equal(cli.name, "rq0");
	assert_true(cli.follow);

	/* stdout for one of the two documents, a file for the other */
	assert_ok("watch rq0 --samples - --json /tmp/w.json");
	assert_string_equal(cli.samples_file, "-");
	assert_string_equal(cli.json_file, "/tmp/w.json");
	assert_ok("watch rq0 --samples /tmp/s.jsonl --json -");
	assert_string_equal(cli.samples_file, "/tmp/s.jsonl");
	assert_string_equal(cli.json_file, "-");
	assert_usage_error("watch rq0 --samples - --json -",
			   "cannot both use stdout");
	assert_usage_error("watch rq0 --json=- --samples=-",
			   "cannot both use stdout");

	assert_usage_error("status rq0 --samples /tmp/s",
			   "unknown option '--samples'");
}

struct bad_watch {
	const char *args;
	const char *why;
};

static const struct bad_watch bad_watches[] = {
	{ "", "missing NAME" },
	{ "rq0 rq1", "unexpected argument" },
	{ "rq0 --interval", "needs a value" },
	{ "rq0 --interval 0", "--interval '0'" },
	{ "rq0 --interval -5", "--interval '-5'" },
	{ "rq0 --interval abc", "--interval 'abc'" },
	{ "rq0 --interval 1.5", "--interval '1.5'" },
	{ "rq0 --interval 200us", "--interval '200us'" },
	{ "rq0 --interval 60001", "--interval '60001'" },
	{ "rq0 --interval 99999999999999999999", "--interval" },
	{ "rq0 --interval=", "--interval ''" },
	{ "rq0 --stall", "needs a value" },
	{ "rq0 --stall 0", "--stall '0'" },
	{ "rq0 --stall -1", "--stall '-1'" },
	{ "rq0 --stall 1e3", "--stall '1e3'" },
	{ "rq0 --stall nan", "--stall 'nan'" },
	{ "rq0 --stall inf", "--stall 'inf'" },
	{ "rq0 --stall 3x", "--stall '3x'" },
	{ "rq0 --stall 0x10", "--stall '0x10'" },
	{ "rq0 --stall 1.2.3", "--stall '1.2.3'" },
	{ "rq0 --stall .", "--stall '.'" },
	{ "rq0 --stall 90000", "--stall '90000'" },
	{ "rq0 --timeout", "needs a value" },
	{ "rq0 --timeout 0", "--timeout '0'" },
	{ "rq0 --timeout abc", "--timeout 'abc'" },
	{ "rq0 --timeout -3", "--timeout '-3'" },
	{ "rq0 --json", "needs a value" },
	{ "rq0 --json ''", "needs a file name" },
	{ "rq0 --samples", "needs a value" },
	{ "rq0 --samples ''", "needs a file name" },
	{ "rq0 --samples=", "needs a file name" },
	{ "rq0 --bogus", "unknown option '--bogus'" },
	{ "rq0 --queue-if-no-path", "unknown option" },
};

static void watch_invalid(void **state)
{
	char line[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad_watches) / sizeof(bad_watches[0]); i++) {
		snprintf(line, sizeof(line), "watch %s", bad_watches[i].args);
		assert_usage_error(line, bad_watches[i].why);
	}
}

/* ---- time options -------------------------------------------------------------- */

/* TIME: seconds or a unit; --interval's bare number stays milliseconds. */
static void watch_time_units(void **state)
{
	(void)state;
	assert_ok("watch rq0 --stall 3 --timeout 20");
	assert_true(cli.stall_s == 3.0);
	assert_true(cli.timeout_s == 20.0);
	assert_ok("watch rq0 --stall 1500ms --timeout 2m");
	assert_true(cli.stall_s == 1.5);
	assert_true(cli.timeout_s == 120.0);
	assert_ok("watch rq0 --stall 1.5s --timeout 1h");
	assert_true(cli.stall_s == 1.5);
	assert_true(cli.timeout_s == 3600.0);

	/* the guest scripts' "--interval 200": 200 ms, as always */
	assert_ok("watch rq0 --interval 200");
	assert_int_equal(cli.interval_ms, 200);
	assert_ok("watch rq0 --interval 200ms");
	assert_int_equal(cli.interval_ms, 200);
	assert_ok("watch rq0 --interval 0.5s");
	assert_int_equal(cli.interval_ms, 500);
	assert_ok("watch rq0 --interval 1m");
	assert_int_equal(cli.interval_ms, 60000);
	assert_ok("watch rq0 --interval 1ms");
	assert_int_equal(cli.interval_ms, 1);

	assert_usage_error("watch rq0 --interval 1.5ms", "whole milliseconds");
	assert_usage_error("watch rq0 --interval 61s", "--interval '61s'");
	assert_usage_error("watch rq0 --interval 0.1ms", "--interval");
	assert_usage_error("watch rq0 --stall 2d", "--stall '2d'");
	assert_usage_error("watch rq0 --stall 25h", "--stall '25h'");
	assert_usage_error("watch rq0 --timeout 0ms", "--timeout '0ms'");
	assert_usage_error("watch rq0 --timeout 5 s", "unexpected argument");
}

/* ---- status --fields -------------------------------------------------------------- */

static void status_fields(void **state)
{
	(void)state;
	assert_ok("status rq0 --fields in_flight,read_busy,path1_state");
	assert_true(cli.has_fields);
	assert_int_equal(cli.fields.nr, 3);
	assert_false(cli.json);
	assert_ok("status --fields=all rq0");
	assert_int_equal(cli.fields.nr, 1);
	assert_int_equal(cli.fields.fields[0].kind, RQ_FIELD_ALL);
	assert_ok("status rq0");
	assert_false(cli.has_fields);

	assert_usage_error("status rq0 --fields", "needs a value");
	assert_usage_error("status rq0 --fields frobs",
			   "status: --fields: unknown field 'frobs'");
	assert_usage_error("status rq0 --fields IN_FLIGHT", "lower case");
	assert_usage_error("status rq0 --fields in_flight,,busy",
			   "empty field name");
	assert_usage_error("status rq0 --fields=", "empty field name");
	assert_usage_error("status rq0 --fields busy --json",
			   "--json and --fields do not go together");
	assert_usage_error("watch rq0 --fields busy", "unknown option");
}

/* The usage text of one command; the caller frees it. */
static char *usage_text(enum rq_cmd cmd)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out;

	out = open_memstream(&buf, &len);
	assert_non_null(out);
	rq_cli_usage(out, cmd);
	fclose(out);
	return buf;
}

static void usage_texts(void **state)
{
	char *global = usage_text(RQ_CMD_NONE);
	char *watch = usage_text(RQ_CMD_WATCH);
	char *create = usage_text(RQ_CMD_CREATE);
	char *status = usage_text(RQ_CMD_STATUS);

	(void)state;
	assert_non_null(strstr(global, "reinstate-path NAME PATH"));
	assert_non_null(strstr(watch, "--stall TIME"));
	assert_non_null(strstr(watch, "200ms"));
	assert_non_null(strstr(global, "1 watch:\nlivelock"));
	assert_non_null(strstr(create, "--queue-if-no-path"));
	assert_non_null(strstr(status, "--fields LIST"));
	assert_non_null(strstr(status, "busy_since_completion"));
	assert_non_null(strstr(status, "--json=FILE"));
	assert_non_null(strstr(global, "RQPATHCTL_NOUDEV"));
	free(global);
	free(watch);
	free(create);
	free(status);
	assert_string_equal(rq_cmd_name(RQ_CMD_FAIL_PATH), "fail-path");
}

static void watch_usage_documents_follow(void **state)
{
	char *buf = usage_text(RQ_CMD_WATCH);

	(void)state;
	assert_non_null(strstr(buf, "[--follow]"));
	assert_non_null(strstr(buf, "  --follow "));
	assert_non_null(strstr(buf, "quiet"));
	assert_non_null(strstr(buf, "idle"));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(global_help_and_version),
		cmocka_unit_test(global_errors),
		cmocka_unit_test(subcommand_help_wins),
		cmocka_unit_test(create_valid),
		cmocka_unit_test(create_up_to_32_paths),
		cmocka_unit_test(create_invalid),
		cmocka_unit_test(remove_status_table),
		cmocka_unit_test(path_messages),
		cmocka_unit_test(messages),
		cmocka_unit_test(message_too_long),
		cmocka_unit_test(watch_defaults),
		cmocka_unit_test(watch_options),
		cmocka_unit_test(watch_follow),
		cmocka_unit_test(watch_via_and_block_nodes),
		cmocka_unit_test(watch_samples),
		cmocka_unit_test(watch_invalid),
		cmocka_unit_test(watch_time_units),
		cmocka_unit_test(status_fields),
		cmocka_unit_test(usage_texts),
		cmocka_unit_test(watch_usage_documents_follow),
	};

	return cmocka_run_group_tests_name("rq_cli", tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: command line parsing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli.h"

#define MAX_ARGS 64
/* end of a parse() argument list: a null pointer of the right type */
#define END ((const char *)NULL)

/*
 * The strings of the last parsed command line: cfg->target and cfg->json
 * point into them, so they live until the next parse() or release().
 */
static char *pool[MAX_ARGS + 1];
static int npool;

static void release(void)
{
	while (npool)
		free(pool[--npool]);
}

/* parse a NULL-terminated list of arguments (argv[0] is added) */
static enum cli_result parse(struct rq_config *cfg, char *err, ...)
{
	char *argv[MAX_ARGS + 1];
	const char *a;
	va_list ap;
	int i;

	release();
	pool[npool++] = strdup("rqcheck");
	va_start(ap, err);
	while ((a = va_arg(ap, const char *)) && npool < MAX_ARGS)
		pool[npool++] = strdup(a);
	va_end(ap);
	for (i = 0; i < npool; i++)
		argv[i] = pool[i];
	argv[npool] = NULL;
	err[0] = '\0';
	return cli_parse(npool, argv, cfg, err, 256);
}

static int teardown(void **state)
{
	(void)state;
	release();
	return 0;
}

static void test_defaults(void **state)
{
	struct rq_config cfg;
	char err[256];

	(void)state;
	assert_int_equal(parse(&cfg, err, "/dev/sdb", END), CLI_OK);
	assert_string_equal(cfg.target, "/dev/sdb");
	assert_true(cfg.bs == 4096);
	assert_true(cfg.offset == 0);
	assert_true(cfg.size == 0);
	assert_int_equal(cfg.qd, 32);
	assert_int_equal(cfg.batch, 1);
	assert_int_equal(cfg.engine, ENGINE_IO_URING);
	assert_int_equal(cfg.order, ORDER_DESC);
	assert_int_equal(cfg.stride, 2);
	assert_false(cfg.seed_set);
	assert_int_equal(cfg.cpu, -1);
	assert_true(cfg.passes == 1);
	assert_true(cfg.time_s == 0);
	assert_false(cfg.prefill);
	assert_null(cfg.json);
	assert_int_equal(cfg.max_report, 64);
	assert_false(cfg.quiet);
	assert_true(cfg.gen == 1);
	assert_false(cfg.verify_only);
	assert_false(cfg.write_only);
	assert_false(cfg.gen_set);
	assert_false(cfg.force);
}

static void test_all_options(void **state)
{
	struct rq_config cfg;
	char err[256];

	(void)state;
	assert_int_equal(parse(&cfg, err, "--bs", "8k", "--offset", "1m",
			       "--size", "4M", "--qd", "64", "--batch", "8",
			       "--engine", "aio", "--order", "interleave",
			       "--stride", "3", "--seed", "0x10", "--cpu", "1",
			       "--passes", "3", "--time", "1.5", "--prefill",
			       "--json", "out.json", "--max-report", "5",
			       "--quiet", "--gen", "2", "/tmp/x.img", END),
			 CLI_OK);
	assert_true(cfg.bs == 8192);
	assert_true(cfg.offset == 1048576);
	assert_true(cfg.size == 4194304);
	assert_int_equal(cfg.qd, 64);
	assert_int_equal(cfg.batch, 8);
	assert_int_equal(cfg.engine, ENGINE_AIO);
	assert_int_equal(cfg.order, ORDER_INTERLEAVE);
	assert_int_equal(cfg.stride, 3);
	assert_true(cfg.seed_set);
	assert_true(cfg.seed == 16);
	assert_int_equal(cfg.cpu, 1);
	assert_true(cfg.passes == 3);
	assert_true(cfg.passes_set);
	assert_true(cfg.time_s == 1.5);
	assert_true(cfg.prefill);
	assert_string_equal(cfg.json, "out.json");
	assert_int_equal(cfg.max_report, 5);
	assert_true(cfg.quiet);
	assert_true(cfg.gen == 2);
	assert_string_equal(cfg.target, "/tmp/x.img");
}

static void test_forensic_options(void **state)
{
	struct rq_config cfg;
	char err[256];

	(void)state;
	assert_int_equal(parse(&cfg, err, "f", "--verify-only", "--seed", "7",
			       "--gen", "0", "-q", END), CLI_OK);
	assert_true(cfg.verify_only);
	assert_true(cfg.gen == 0);
	assert_true(cfg.quiet);
	assert_int_equal(parse(&cfg, err, "--write-only", "--passes", "2", "f",
			       END), CLI_OK);
	assert_true(cfg.write_only);
	/* target may come before options, and after "--" look like one */
	assert_int_equal(parse(&cfg, err, "--qd", "4", "--", "-odd-name", END),
			 CLI_OK);
	assert_string_equal(cfg.target, "-odd-name");
	assert_int_equal(parse(&cfg, err, "--engine", "io_uring", "--order",
			       "random", "--batch", "32", "--bs", "512",
			       "--size", "1536", "f", END), CLI_OK);
	assert_int_equal(cfg.batch, 32);
	assert_true(cfg.size == 1536);
}

static void test_help(void **state)
{
	struct rq_config cfg;
	char err[256];

	(void)state;
	assert_int_equal(parse(&cfg, err, "--help", END), CLI_HELP);
	assert_int_equal(parse(&cfg, err, "-h", "x", END), CLI_HELP);
	assert_int_equal(parse(&cfg, err, "x", "--bs", "4k", "--help", END),
			 CLI_HELP);
}

static void test_sizes(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(cli_parse_size("512", &v), 0);
	assert_true(v == 512);
	assert_int_equal(cli_parse_size("4k", &v), 0);
	assert_true(v == 4096);
	assert_int_equal(cli_parse_size("4K", &v), 0);
	assert_true(v == 4096);
	assert_int_equal(cli_parse_size("1m", &v), 0);
	assert_true(v == 1048576);
	assert_int_equal(cli_parse_size("2G", &v), 0);
	assert_true(v == 2ULL << 30);
	assert_int_equal(cli_parse_size("1t", &v), 0);
	assert_true(v == 1ULL << 40);
	assert_int_equal(cli_parse_size("0x200", &v), 0);
	assert_true(v == 512);
	assert_int_equal(cli_parse_size("0", &v), 0);
	assert_true(v == 0);

	assert_int_equal(cli_parse_size("", &v), -1);
	assert_int_equal(cli_parse_size("k", &v), -1);
	assert_int_equal(cli_parse_size("4kb", &v), -1);
	assert_int_equal(cli_parse_size("4x", &v), -1);
	assert_int_equal(cli_parse_size("-1", &v), -1);
	assert_int_equal(cli_parse_size("+1", &v), -1);
	assert_int_equal(cli_parse_size(" 1", &v), -1);
	assert_int_equal(cli_parse_size("1.5k", &v), -1);
	assert_int_equal(cli_parse_size("0x", &v), -1);
	assert_int_equal(cli_parse_size("99999999999999999999", &v), -1);
	assert_int_equal(cli_parse_size("16777216t", &v), -1);
}

static void test_numbers(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(cli_parse_u64("18446744073709551615", &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(cli_parse_u64("0xFFFFFFFFFFFFFFFF", &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(cli_parse_u64("18446744073709551616", &v), -1);
	assert_int_equal(cli_parse_u64("12a", &v), -1);
	assert_int_equal(cli_parse_u64("-3", &v), -1);

}

/* --time DURATION: seconds, or with a unit (the rule of every rqpath tool) */
static void test_time_units(void **state)
{
	static const struct {
		const char *arg;
		double seconds;
	} good[] = {
		{ "1", 1 }, { "90", 90 }, { "120", 120 }, { "1.5", 1.5 },
		{ "30s", 30 }, { "2m", 120 }, { "1h", 3600 }, { "500ms", 0.5 },
		{ ".25", 0.25 },
	};
	static const char *const bad[] = {
		"0", "0ms", "abc", "-1", "1x", "inf", "nan", "", "1e3", "2 m",
		"1d", "1000000001",
	};
	struct rq_config cfg;
	char err[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		assert_int_equal(parse(&cfg, err, "--time", good[i].arg, "f",
				       END), CLI_OK);
		if (cfg.time_s != good[i].seconds)
			fail_msg("--time %s: %g s", good[i].arg, cfg.time_s);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (parse(&cfg, err, "--time", bad[i], "f", END) != CLI_ERROR)
			fail_msg("--time '%s' accepted", bad[i]);
		assert_non_null(strstr(err, "--time"));
	}
}

static void test_conventions(void **state)
{
	struct rq_config cfg;
	char err[256];

	(void)state;
	assert_int_equal(parse(&cfg, err, "--version", END), CLI_VERSION);
	assert_int_equal(parse(&cfg, err, "x", "--version", END),
			 CLI_VERSION);
	assert_int_equal(parse(&cfg, err, "--force", "f", END), CLI_OK);
	assert_true(cfg.force);
	assert_int_equal(parse(&cfg, err, "f", END), CLI_OK);
	assert_false(cfg.force);
	assert_int_equal(parse(&cfg, err, "--json", "-", "f", END), CLI_OK);
	assert_string_equal(cfg.json, "-");
	assert_int_equal(parse(&cfg, err, "--force=1", "f", END), CLI_ERROR);
}

/* --verify-only without --seed or --gen: the block headers say */
static void test_verify_only_identity(void **state)
{
	struct rq_config cfg;
	char err[256];

	(void)state;
	assert_int_equal(parse(&cfg, err, "--verify-only", "f", END), CLI_OK);
	assert_false(cfg.seed_set);
	assert_false(cfg.gen_set);
	assert_int_equal(parse(&cfg, err, "--verify-only", "--gen", "3", "f",
			       END), CLI_OK);
	assert_true(cfg.gen_set);
	assert_true(cfg.gen == 3);
	assert_false(cfg.seed_set);
	assert_int_equal(parse(&cfg, err, "--verify-only", "--force", "f",
			       END), CLI_OK);
}

/* each line: a bad command line (arguments after argv[0]) */
static const char *const bad_lines[][8] = {
	{ NULL },
	{ "a", "b" },
	{ "" },
	{ "--bs", "1000", "f" },
	{ "--bs", "0", "f" },
	{ "--bs", "128m", "f" },
	{ "--bs", "4q", "f" },
	{ "--qd", "0", "f" },
	{ "--qd", "x", "f" },
	{ "--qd", "5000", "f" },
	{ "--qd", "-1", "f" },
	{ "--batch", "0", "f" },
	{ "--batch", "64", "--qd", "32", "f" },
	{ "--engine", "libfoo", "f" },
	{ "--engine", "", "f" },
	{ "--order", "sideways", "f" },
	{ "--stride", "3", "f" },
	{ "--order", "interleave", "--stride", "0", "f" },
	{ "--window", "4", "f" },
	{ "--order", "interleave", "--window", "0", "f" },
	{ "--size", "1000", "f" },
	{ "--size", "0", "f" },
	{ "--bs", "8k", "--size", "12k", "f" },
	{ "--offset", "100", "f" },
	{ "--offset", "-512", "f" },
	{ "--size", "16t", "--offset", "0xfffffffffffffe00", "f" },
	{ "--cpu", "-1", "f" },
	{ "--cpu", "99999", "f" },
	{ "--passes", "0", "f" },
	{ "--time", "0", "f" },
	{ "--time", "-5", "f" },
	{ "--time", "soon", "f" },
	{ "--seed", "banana", "f" },
	{ "--max-report", "abc", "f" },
	{ "--json", "", "f" },
	{ "--verify-only", "--seed", "1", "--prefill", "f" },
	{ "--verify-only", "--seed", "1", "--passes", "2", "f" },
	{ "--verify-only", "--seed", "1", "--time", "5", "f" },
	{ "--verify-only", "--seed", "1", "--write-only", "f" },
	{ "--prefill", "--gen", "0", "f" },
	{ "--gen", "x", "f" },
	{ "--foo", "f" },
	{ "-x", "f" },
	{ "--prefill=yes", "f" },
	{ "f", "--bs" },
	{ "f", "--json" },
};

static void test_bad_lines(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad_lines) / sizeof(bad_lines[0]); i++) {
		char *argv[10];
		struct rq_config cfg;
		char err[256] = "";
		int argc = 0, j;

		argv[argc++] = "rqcheck";
		for (j = 0; bad_lines[i][j]; j++)
			argv[argc++] = (char *)bad_lines[i][j];
		argv[argc] = NULL;
		if (cli_parse(argc, argv, &cfg, err, sizeof(err)) != CLI_ERROR)
			fail_msg("line %zu (%s ...) was accepted", i,
				 argc > 1 ? argv[1] : "");
		assert_true(strlen(err) > 0);
	}
}

static void test_error_messages(void **state)
{
	struct rq_config cfg;
	char err[256];

	(void)state;
	assert_int_equal(parse(&cfg, err, "--bs", "1000", "f", END),
			 CLI_ERROR);
	assert_non_null(strstr(err, "--bs"));
	assert_int_equal(parse(&cfg, err, "--nope", "f", END), CLI_ERROR);
	assert_non_null(strstr(err, "--nope"));
	assert_int_equal(parse(&cfg, err, "f", "--qd", END), CLI_ERROR);
	assert_non_null(strstr(err, "--qd"));
	assert_int_equal(parse(&cfg, err, END), CLI_ERROR);
	assert_non_null(strstr(err, "target"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_all_options),
		cmocka_unit_test(test_forensic_options),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_time_units),
		cmocka_unit_test(test_conventions),
		cmocka_unit_test(test_verify_only_identity),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_error_messages),
	};

	return cmocka_run_group_tests_name("cli", tests, NULL, teardown);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: the time options' parser shared by both tools.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "rq_duration.h"

static double parse_ok(const char *text, enum rq_bare_unit bare)
{
	double s = -1;

	if (rq_parse_duration(text, bare, &s))
		fail_msg("'%s' refused", text);
	return s;
}

static void units_and_bare_seconds(void **state)
{
	(void)state;
	assert_true(parse_ok("3", RQ_BARE_SECONDS) == 3.0);
	assert_true(parse_ok("1.5", RQ_BARE_SECONDS) == 1.5);
	assert_true(parse_ok(".25", RQ_BARE_SECONDS) == 0.25);
	assert_true(parse_ok("2.", RQ_BARE_SECONDS) == 2.0);
	assert_true(parse_ok("200ms", RQ_BARE_SECONDS) == 0.2);
	assert_true(parse_ok("1.5s", RQ_BARE_SECONDS) == 1.5);
	assert_true(parse_ok("2m", RQ_BARE_SECONDS) == 120.0);
	assert_true(parse_ok("0.5m", RQ_BARE_SECONDS) == 30.0);
	assert_true(parse_ok("1h", RQ_BARE_SECONDS) == 3600.0);
	assert_true(parse_ok("0", RQ_BARE_SECONDS) == 0.0);
	assert_true(parse_ok("007", RQ_BARE_SECONDS) == 7.0);
}

/* rqpathctl watch --interval 200 has always meant 200 ms. */
static void bare_milliseconds_for_old_options(void **state)
{
	(void)state;
	assert_true(parse_ok("200", RQ_BARE_MILLISECONDS) == 0.2);
	assert_true(parse_ok("50", RQ_BARE_MILLISECONDS) == 0.05);
	/* a unit always says what it says */
	assert_true(parse_ok("200ms", RQ_BARE_MILLISECONDS) == 0.2);
	assert_true(parse_ok("0.2s", RQ_BARE_MILLISECONDS) == 0.2);
	assert_true(parse_ok("1m", RQ_BARE_MILLISECONDS) == 60.0);
}

static void refuses_anything_else(void **state)
{
	static const char *const bad[] = {
		"", " 1", "1 ", "+1", "-1", "1e3", "0x10", "inf", "nan",
		"1.2.3", ".", "s", "ms", "1sec", "1 s", "1S", "1M", "1min",
		"1d", "1ss", "1msx", "1,5", "1.5.s",
		"000000000000000000000000000000001",
	};
	size_t i;
	double s = 42;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (!rq_parse_duration(bad[i], RQ_BARE_SECONDS, &s))
			fail_msg("'%s' accepted as %g s", bad[i], s);
	assert_true(s == 42);	/* untouched on failure */
	assert_int_equal(rq_parse_duration(NULL, RQ_BARE_SECONDS, &s), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(units_and_bare_seconds),
		cmocka_unit_test(bare_milliseconds_for_old_options),
		cmocka_unit_test(refuses_anything_else),
	};

	return cmocka_run_group_tests_name("rq_duration", tests, NULL, NULL);
}

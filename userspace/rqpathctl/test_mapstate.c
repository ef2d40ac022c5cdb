// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: path states from dm-multipath's and dm-rqpath's status and
 * table lines (rq_mapstate.c).  The multipath lines follow
 * multipath_status() of 6.1/6.12 with the round-robin (no per-path info)
 * and service-time (two per-path info args) selectors.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "rq_mapstate.h"
#include "recorded_status.h"

static struct rq_map_state ms;
static char err[192];

static void multipath_round_robin_both_active(void **state)
{
	(void)state;
	assert_int_equal(rq_mapstate_parse_multipath(
		"2 0 0 0 1 1 A 0 2 0 8:0 A 0 8:16 A 0 ",
		"1 queue_if_no_path 0 1 1 round-robin 0 2 1 8:0 1 8:16 1 ",
		&ms, err, sizeof(err)), 0);
	assert_string_equal(ms.target, "multipath");
	assert_int_equal(ms.nr_paths, 2);
	assert_int_equal(ms.nr_active, 2);
	assert_int_equal(ms.queue_if_no_path, 1);
	assert_int_equal(ms.queue_io, 0);
	assert_string_equal(ms.paths[1].dev, "8:16");
	assert_true(rq_mapstate_path_active(&ms, 8, 16));
	assert_false(rq_mapstate_path_active(&ms, 8, 32));
}

static void multipath_all_failed_queueing(void **state)
{
	(void)state;
	/* dmsetup's prefix, two groups, service-time info args */
	assert_int_equal(rq_mapstate_parse_multipath(
		"0 65536 multipath 2 1 0 0 2 1 E 0 1 2 8:0 F 3 0 1 E 0 1 2 8:16 F 2 0 1",
		"0 65536 multipath 3 queue_if_no_path pg_init_retries 50 0 2 1 service-time 0 1 2 8:0 1 1 service-time 0 1 2 8:16 1 1",
		&ms, err, sizeof(err)), 0);
	assert_int_equal(ms.nr_paths, 2);
	assert_int_equal(ms.nr_active, 0);
	assert_int_equal(ms.queue_io, 1);
	assert_int_equal(ms.queue_if_no_path, 1);
	assert_int_equal(ms.paths[0].fail_count, 3);
}

static void multipath_fail_if_no_path(void **state)
{
	(void)state;
	assert_int_equal(rq_mapstate_parse_multipath(
		"2 0 0 0 1 1 A 0 1 0 8:0 F 1 ", "0 0 1 1 round-robin 0 1 1 8:0 1",
		&ms, err, sizeof(err)), 0);
	assert_int_equal(ms.queue_if_no_path, 0);
	assert_int_equal(ms.nr_active, 0);
	/* no table: unknown */
	assert_int_equal(rq_mapstate_parse_multipath("2 0 0 0 1 1 A 0 1 0 8:0 F 1",
		NULL, &ms, err, sizeof(err)), 0);
	assert_int_equal(ms.queue_if_no_path, -1);
}

static void multipath_hardware_handler(void **state)
{
	(void)state;
	assert_int_equal(rq_mapstate_parse_multipath(
		"2 0 1 0 2 1 A 0 1 0 8:0 A 0 E 0 1 0 8:16 A 0",
		"1 retain_attached_hw_handler 1 alua 2 1 round-robin 0 1 1 8:0 1 round-robin 0 1 1 8:16 1",
		&ms, err, sizeof(err)), 0);
	assert_int_equal(ms.nr_paths, 2);
	assert_int_equal(ms.queue_if_no_path, 0);
}

static void multipath_malformed(void **state)
{
	(void)state;
	assert_int_equal(rq_mapstate_parse_multipath("", NULL, &ms, err, sizeof(err)), -1);
	assert_int_equal(rq_mapstate_parse_multipath("2 0 0 0 1 1 X 0 2 0", NULL, &ms, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "state"));
	assert_int_equal(rq_mapstate_parse_multipath("2 0 0 0 1 1 A 0 2 0 8:0 A 0 8:16", NULL, &ms, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "cut short"));
	assert_int_equal(rq_mapstate_parse_multipath("2 0 0 0 1 1 A 0 1 0 sda A 0", NULL, &ms, err, sizeof(err)), -1);
	assert_int_equal(rq_mapstate_parse_multipath("2 0 0 0 1 1 A 0 1 0 8:0 Q 0", NULL, &ms, err, sizeof(err)), -1);
}

static void rqpath_states(void **state)
{
	static struct rq_status st;

	(void)state;
	assert_int_equal(rq_status_parse(STATUS_ALL_FAILED_QUEUEING, &st, err, sizeof(err)), 0);
	rq_mapstate_from_rqpath(&st, &ms);
	assert_string_equal(ms.target, "rqpath");
	assert_int_equal(ms.nr_paths, 2);
	assert_int_equal(ms.nr_active, 0);
	assert_int_equal(ms.queue_if_no_path, 1);
	assert_int_equal(rq_status_parse(STATUS_README_EXAMPLE, &st, err, sizeof(err)), 0);
	rq_mapstate_from_rqpath(&st, &ms);
	assert_int_equal(ms.nr_active, 1);
	assert_true(rq_mapstate_path_active(&ms, 8, 16));
	assert_false(rq_mapstate_path_active(&ms, 8, 32));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(multipath_round_robin_both_active),
		cmocka_unit_test(multipath_all_failed_queueing),
		cmocka_unit_test(multipath_fail_if_no_path),
		cmocka_unit_test(multipath_hardware_handler),
		cmocka_unit_test(multipath_malformed),
		cmocka_unit_test(rqpath_states),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

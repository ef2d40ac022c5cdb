// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: block tracepoint lines as tracefs prints them on 6.1 and
 * 6.12 (rq_trace.c).  The lines follow TP_printk of
 * include/trace/events/block.h of each tree and the trace_pipe prefix
 * (comm-pid, [cpu], irq flags, timestamp).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "rq_trace.h"

static struct rq_trace_event ev;
static char err[192];

static enum rq_trace_parse parse(const char *line)
{
	err[0] = '\0';
	return rq_trace_parse_line(line, &ev, err, sizeof(err));
}

static void v61_requeue_discard(void **state)
{
	(void)state;
	assert_int_equal(parse("      blkdiscard-412     [001] d..1.    37.104226: block_rq_requeue: 253,0 D () 0 + 2048 [0]\n"),
			 RQ_TRACE_EVENT);
	assert_int_equal(ev.type, RQ_TEV_REQUEUE);
	assert_int_equal(ev.major, 253);
	assert_int_equal(ev.minor, 0);
	assert_string_equal(ev.rwbs, "D");
	assert_int_equal(ev.op, RQ_OPC_DISCARD);
	assert_false(ev.preflush);
	assert_int_equal(ev.sector, 0);
	assert_int_equal(ev.nr_sectors, 2048);
	assert_false(ev.has_ioprio);
	assert_true(ev.t > 37.104225 && ev.t < 37.104227);
}

static void v61_issue_with_bytes_and_comm(void **state)
{
	(void)state;
	assert_int_equal(parse("  kworker/0:1H-35      [000] .....   37.107301: block_rq_issue: 253,2 D 1048576 () 0 + 2048 [kworker/0:1H]"),
			 RQ_TRACE_EVENT);
	assert_int_equal(ev.type, RQ_TEV_ISSUE);
	assert_int_equal(ev.minor, 2);
	assert_int_equal(ev.bytes, 1048576);
	assert_int_equal(ev.nr_sectors, 2048);
}

static void v61_insert_and_complete(void **state)
{
	(void)state;
	assert_int_equal(parse("          rqcheck-530     [001] d..2.   120.000100: block_rq_insert: 253,0 WS 4096 () 8192 + 8 [rqcheck]"),
			 RQ_TRACE_EVENT);
	assert_int_equal(ev.type, RQ_TEV_INSERT);
	assert_int_equal(ev.op, RQ_OPC_WRITE);
	assert_int_equal(ev.sector, 8192);
	assert_int_equal(parse("          <idle>-0       [000] d.h1.   120.020000: block_rq_complete: 253,0 R () 16 + 8 [0]"),
			 RQ_TRACE_EVENT);
	assert_int_equal(ev.type, RQ_TEV_COMPLETE);
	assert_int_equal(ev.op, RQ_OPC_READ);
	assert_int_equal(ev.error, 0);
	assert_int_equal(parse("          <idle>-0       [000] d.h1.   120.020000: block_rq_complete: 253,0 W () 16 + 8 [-5]"),
			 RQ_TRACE_EVENT);
	assert_int_equal(ev.error, -5);
}

static void v612_ioprio_field(void **state)
{
	(void)state;
	assert_int_equal(parse("      blkdiscard-388     [000] d..1.    41.551002: block_rq_requeue: 252,0 D () 0 + 2048 none,0,0 [0]"),
			 RQ_TRACE_EVENT);
	assert_true(ev.has_ioprio);
	assert_int_equal(ev.major, 252);
	assert_int_equal(ev.nr_sectors, 2048);
	assert_int_equal(parse("      blkdiscard-388     [000] ...1.    41.551000: block_rq_issue: 252,0 D 1048576 () 0 + 2048 be,0,4 [blkdiscard]"),
			 RQ_TRACE_EVENT);
	assert_true(ev.has_ioprio);
	assert_int_equal(ev.type, RQ_TEV_ISSUE);
	assert_int_equal(parse("          <idle>-0       [001] ..s1.    41.600000: block_rq_complete: 252,0 N () 0 + 2048 none,0,0 [0]"),
			 RQ_TRACE_EVENT);
	assert_int_equal(ev.op, RQ_OPC_WRITE_ZEROES);
	assert_string_equal(ev.rwbs, "N");
}

static void rwbs_letters(void **state)
{
	enum rq_op_class op;
	bool pf;

	(void)state;
	assert_int_equal(rq_trace_parse_rwbs("D", &op, &pf), 0);
	assert_int_equal(op, RQ_OPC_DISCARD);
	assert_int_equal(rq_trace_parse_rwbs("DE", &op, &pf), 0);
	assert_int_equal(op, RQ_OPC_SECURE_ERASE);
	assert_int_equal(rq_trace_parse_rwbs("N", &op, &pf), 0);
	assert_int_equal(op, RQ_OPC_WRITE_ZEROES);
	assert_int_equal(rq_trace_parse_rwbs("WZ", &op, &pf), 0);	/* 6.19 */
	assert_int_equal(op, RQ_OPC_WRITE_ZEROES);
	assert_false(pf);
	assert_int_equal(rq_trace_parse_rwbs("FF", &op, &pf), 0);	/* blk_kick_flush */
	assert_int_equal(op, RQ_OPC_FLUSH);
	assert_true(pf);
	assert_int_equal(rq_trace_parse_rwbs("F", &op, &pf), 0);
	assert_int_equal(op, RQ_OPC_FLUSH);
	assert_false(pf);
	assert_int_equal(rq_trace_parse_rwbs("FS", &op, &pf), 0);
	assert_int_equal(op, RQ_OPC_FLUSH);
	assert_int_equal(rq_trace_parse_rwbs("FWFS", &op, &pf), 0);	/* preflush write FUA sync */
	assert_int_equal(op, RQ_OPC_WRITE);
	assert_true(pf);
	assert_int_equal(rq_trace_parse_rwbs("WFS", &op, &pf), 0);
	assert_int_equal(op, RQ_OPC_WRITE);
	assert_false(pf);
	assert_int_equal(rq_trace_parse_rwbs("RA", &op, &pf), 0);
	assert_int_equal(op, RQ_OPC_READ);
	assert_int_equal(rq_trace_parse_rwbs("RSM", &op, &pf), 0);
	assert_int_equal(rq_trace_parse_rwbs("", &op, &pf), -1);
	assert_int_equal(rq_trace_parse_rwbs("X", &op, &pf), -1);
	assert_int_equal(rq_trace_parse_rwbs("WX", &op, &pf), -1);
	assert_int_equal(rq_trace_parse_rwbs("WZZ", &op, &pf), -1);
}

static void flush_lines(void **state)
{
	(void)state;
	/* blk_kick_flush(): REQ_OP_FLUSH | REQ_PREFLUSH, no sector, no size */
	assert_int_equal(parse("            sync-601     [000] d..1.    55.000003: block_rq_requeue: 253,1 FF () 0 + 0 [0]"),
			 RQ_TRACE_EVENT);
	assert_int_equal(ev.op, RQ_OPC_FLUSH);
	assert_true(ev.preflush);
	assert_int_equal(ev.nr_sectors, 0);
	assert_int_equal(parse("            sync-601     [000] ...1.    55.000001: block_rq_issue: 253,1 FF 0 () 0 + 0 none,0,0 [sync]"),
			 RQ_TRACE_EVENT);
	assert_int_equal(ev.op, RQ_OPC_FLUSH);
	assert_int_equal(ev.bytes, 0);
}

static void comm_with_blanks_and_brackets(void **state)
{
	(void)state;
	assert_int_equal(parse(" Web Content [x]-1234  [003] d..1. 1000.000001: block_rq_issue: 253,0 R 4096 () 8 + 8 [Web Content [x]]"),
			 RQ_TRACE_EVENT);
	assert_int_equal(ev.type, RQ_TEV_ISSUE);
	assert_int_equal(ev.sector, 8);
	/* a comm that looks like a timestamp */
	assert_int_equal(parse("  42: 9-5 [000] d..1.  2.5: block_rq_requeue: 253,0 D () 0 + 8 [0]"),
			 RQ_TRACE_EVENT);
	assert_true(ev.t == 2.5);
	/* the tgid column (options/record-tgid) */
	assert_int_equal(parse("          fio-77    (     77) [000] d..1.    10.5: block_rq_requeue: 8,16 W () 64 + 8 [0]"),
			 RQ_TRACE_EVENT);
	assert_int_equal(ev.major, 8);
	assert_int_equal(ev.minor, 16);
}

static void large_sector_and_dev_numbers(void **state)
{
	(void)state;
	assert_int_equal(parse("x-1 [000] ..... 1.000000: block_rq_complete: 259,1048575 D () 18446744073709551615 + 4294967295 [0]"),
			 RQ_TRACE_EVENT);
	assert_int_equal(ev.minor, 1048575);
	assert_true(ev.sector == UINT64_MAX);
	assert_true(ev.nr_sectors == UINT32_MAX);
}

static void other_lines_are_skipped(void **state)
{
	(void)state;
	assert_int_equal(parse("# tracer: nop"), RQ_TRACE_SKIP);
	assert_int_equal(parse("#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION"), RQ_TRACE_SKIP);
	assert_int_equal(parse(""), RQ_TRACE_SKIP);
	assert_int_equal(parse("              sh-1     [000] .....    30.000000: tracing_mark_write: ll-start"), RQ_TRACE_SKIP);
	assert_int_equal(parse("              sh-1     [000] .....    30.000000: block_bio_queue: 253,0 D 0 + 2048 [sh]"), RQ_TRACE_SKIP);
	assert_int_equal(parse("CPU:1 [LOST 120 EVENTS]"), RQ_TRACE_SKIP);
}

static void malformed_block_rq_lines_are_bad(void **state)
{
	(void)state;
	assert_int_equal(parse("x-1 [000] ..... 1.0: block_rq_requeue: 253 D () 0 + 8 [0]"), RQ_TRACE_BAD);
	assert_non_null(strstr(err, "major,minor"));
	assert_int_equal(parse("x-1 [000] ..... 1.0: block_rq_requeue: 253,0 Q () 0 + 8 [0]"), RQ_TRACE_BAD);
	assert_non_null(strstr(err, "rwbs"));
	assert_int_equal(parse("x-1 [000] ..... 1.0: block_rq_issue: 253,0 D () 0 + 8 [x]"), RQ_TRACE_BAD);
	assert_int_equal(parse("x-1 [000] ..... 1.0: block_rq_requeue: 253,0 D () 0 8 [0]"), RQ_TRACE_BAD);
	assert_int_equal(parse("x-1 [000] ..... 1.0: block_rq_requeue: 253,0 D () 0 + 8"), RQ_TRACE_BAD);
	assert_int_equal(parse("x-1 [000] ..... 1.0: block_rq_complete: 253,0 D () 0 + 8 [zero]"), RQ_TRACE_BAD);
	assert_int_equal(parse("x-1 [000] ..... 1.0: block_rq_requeue: 253,0 D () 0 + 8 rt,x,0 [0]"), RQ_TRACE_BAD);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(v61_requeue_discard),
		cmocka_unit_test(v61_issue_with_bytes_and_comm),
		cmocka_unit_test(v61_insert_and_complete),
		cmocka_unit_test(v612_ioprio_field),
		cmocka_unit_test(rwbs_letters),
		cmocka_unit_test(flush_lines),
		cmocka_unit_test(comm_with_blanks_and_brackets),
		cmocka_unit_test(large_sector_and_dev_numbers),
		cmocka_unit_test(other_lines_are_skipped),
		cmocka_unit_test(malformed_block_rq_lines_are_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

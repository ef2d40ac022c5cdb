/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Parser for the block request tracepoints as tracefs prints them
 * (trace_pipe or trace, default options), for `rqpathctl watch` on any
 * request-based dm device.  Pure: one line in, one event out.
 *
 * The formats (include/trace/events/block.h):
 *
 *   6.1   block_rq_requeue/_complete/_error:
 *           "%d,%d %s (%s) %llu + %u [%d]"
 *         block_rq_insert/_issue/_merge:
 *           "%d,%d %s %u (%s) %llu + %u [%s]"
 *   6.12  the same with the I/O priority "%s,%u,%u" (class,hint,level)
 *         between the size and the bracket.
 *
 * and the prefix tracefs puts before the event name:
 *   "<comm>-<pid> [<cpu>] <irq flags> <secs>.<usecs>: <event>: <fields>"
 * where comm may contain blanks, so the parser finds the event name as
 * the token after the first "<number>:" timestamp token.
 *
 * rwbs (blk_fill_rwbs()): an optional F (REQ_PREFLUSH), then the op:
 * R read, W write, D discard, DE secure erase, F flush, N anything else
 * (write zeroes on 6.1 and 6.12), WZ write zeroes (6.19 on); then the
 * flags F (FUA), A (readahead), S (sync), M (meta).
 */
#ifndef RQ_TRACE_H
#define RQ_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum rq_trace_type {
	RQ_TEV_INSERT,
	RQ_TEV_ISSUE,
	RQ_TEV_REQUEUE,
	RQ_TEV_COMPLETE,
	RQ_TEV_ERROR,		/* block_rq_error: a failed part, 6.x */
	RQ_TEV_MERGE,
	RQ_TEV_NR,
};

/* The op class of a request: what "its op class completed" is about. */
enum rq_op_class {
	RQ_OPC_READ,
	RQ_OPC_WRITE,
	RQ_OPC_FLUSH,
	RQ_OPC_DISCARD,
	RQ_OPC_SECURE_ERASE,
	/*
	 * WZ, and N: 6.1 and 6.12 print N for every op without a letter;
	 * on a request-based dm map that is write zeroes (zone ops and
	 * driver passthrough do not reach a dm-multipath queue).
	 */
	RQ_OPC_WRITE_ZEROES,
	RQ_OPC_NR,
};

#define RQ_RWBS_LEN 9		/* the kernel's RWBS_LEN is 8 */

struct rq_trace_event {
	double t;			/* the trace clock, seconds */
	enum rq_trace_type type;
	unsigned int major, minor;
	char rwbs[RQ_RWBS_LEN];
	enum rq_op_class op;
	bool preflush;			/* leading F */
	uint64_t sector;
	unsigned int nr_sectors;
	unsigned int bytes;		/* insert/issue only, else 0 */
	int error;			/* complete/error only, else 0 */
	bool has_ioprio;		/* the 6.12 "class,hint,level" field */
};

enum rq_trace_parse {
	RQ_TRACE_EVENT,		/* *ev filled */
	RQ_TRACE_SKIP,		/* another event, a comment, a marker */
	RQ_TRACE_BAD,		/* a block_rq_ event that does not parse */
};

/*
 * Parse one line (with or without its newline).  RQ_TRACE_BAD comes with
 * a reason in err.
 */
enum rq_trace_parse rq_trace_parse_line(const char *line,
					struct rq_trace_event *ev,
					char *err, size_t errlen);

/* Parse rwbs into op class and preflush; returns 0, or -1 if unknown. */
int rq_trace_parse_rwbs(const char *rwbs, enum rq_op_class *op,
			bool *preflush);

const char *rq_op_class_name(enum rq_op_class op);
const char *rq_trace_type_name(enum rq_trace_type type);

#endif

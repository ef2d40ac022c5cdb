/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Output of the request watch (`rqpathctl watch` on the tracepoints or
 * the sysfs counters of any request-based dm map): progress lines, the
 * closing report and its JSON (schema rqpathctl.watch-requests/1, in
 * README.md).  Pure: writes to the FILE it is given.
 */
#ifndef RQ_REQFORMAT_H
#define RQ_REQFORMAT_H

#include <stdio.h>

#include "rq_mapstate.h"
#include "rq_reqwatch.h"

enum rq_rw_outcome {
	RQ_RWO_DRAINED,		/* nothing in flight (not --follow) */
	RQ_RWO_LIVELOCK,
	RQ_RWO_QUEUEING,	/* timeout/signal while queueing by policy */
	RQ_RWO_SLOW,		/* timeout/signal while slow */
	RQ_RWO_TIMEOUT,		/* timeout, nothing decided */
	RQ_RWO_QUIET,		/* --follow: timeout or signal, all well */
	RQ_RWO_ERROR,
	RQ_RWO_INTERRUPTED,	/* signal without --follow */
};

struct rq_rw_summary {
	const char *device;		/* as given */
	const char *dm_name;
	const char *kname;		/* dm-N */
	unsigned int major, minor;
	const char *target;		/* "multipath", "rqpath", ... */
	const char *source;		/* "trace" or "counters" */
	const char *fallback;		/* why not trace, or NULL */
	enum rq_rw_outcome outcome;
	const char *error;
	double t0;			/* the watch's start on the trace clock */
	double elapsed_s;
	unsigned int interval_ms;
	bool has_timeout;
	double timeout_s;
	bool follow;
	unsigned long long trace_lines, bad_lines;
	const rq_rw_t *state;
	const struct rq_map_state *paths;	/* NULL: unknown */
};

const char *rq_rw_outcome_name(enum rq_rw_outcome o);
int rq_rw_outcome_exit_code(enum rq_rw_outcome o);
/* What a timeout or a stop signal ends with, from the current verdict. */
enum rq_rw_outcome rq_rw_outcome_at_end(const rq_rw_t *w, bool follow,
					bool signal);

void rq_rw_print_progress(FILE *out, const rq_rw_t *w, double t0);
void rq_rw_print_report(FILE *out, const struct rq_rw_summary *sum);
/* 0, or -1 when the JSON could not be built or written. */
int rq_rw_print_json(FILE *out, const struct rq_rw_summary *sum);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Output of rqpathctl: the human-readable and JSON forms of a status, the
 * watch progress lines, the watch report and its JSON file.  Pure: writes
 * to the FILE it is given, so the tests can capture it in memory.
 */
#ifndef RQ_FORMAT_H
#define RQ_FORMAT_H

#include <stdio.h>

#include "rq_status.h"
#include "rq_watch.h"

/* How a watch ended; each maps to one exit code. */
enum rq_outcome {
	RQ_OUTCOME_DRAINED,
	RQ_OUTCOME_LIVELOCK,
	RQ_OUTCOME_TIMEOUT,	/* --timeout elapsed, no decision */
	RQ_OUTCOME_STALL,	/* --timeout elapsed while stalled */
	RQ_OUTCOME_ERROR,	/* device vanished, status unreadable */
	RQ_OUTCOME_INTERRUPTED,	/* SIGINT or SIGTERM, without --follow */
	RQ_OUTCOME_QUIET,	/* follow: --timeout or a signal, no livelock */
};

struct rq_watch_summary {
	const char *device;
	enum rq_outcome outcome;
	double elapsed_s;
	unsigned int interval_ms;
	bool has_timeout;
	double timeout_s;
	const char *error;			/* RQ_OUTCOME_ERROR only */
	const struct rq_watch_state *state;
};

const char *rq_outcome_name(enum rq_outcome outcome);
int rq_outcome_exit_code(enum rq_outcome outcome);
/*
 * What to call the end of a watch whose --timeout elapsed: stall if it is
 * stalled now, else timeout, or quiet in follow mode (no livelock in all
 * that time is the answer a followed workload wants).
 */
enum rq_outcome rq_outcome_on_timeout(const struct rq_watch_state *w);

void rq_status_print_human(FILE *out, const char *device,
			   const struct rq_status *st);
/* Returns 0, or -1 when the JSON could not be built or written. */
int rq_status_print_json(FILE *out, const char *device,
			 const struct rq_status *st);

/* One progress line; deltas against *last_printed when not NULL. */
void rq_watch_print_progress(FILE *out, const struct rq_watch_state *w,
			     const struct rq_sample *last_printed);

/* The closing report of a watch, for people. */
void rq_watch_print_report(FILE *out, const struct rq_watch_summary *sum);

/* The same for programs (schema in README.md); 0 or -1 as above. */
int rq_watch_print_json(FILE *out, const struct rq_watch_summary *sum);

/*
 * watch --samples: one sample as one line of JSON, t seconds after the
 * first sample: {"t": 0.200, "in_flight": 1, "ops": {"discard": [mapped,
 * busy, completed], ...}}, only the ops with a non-zero one of the three.
 * The counters as read, not deltas: a reader sees a counter reset as a
 * drop.  0 or -1 as above.
 */
int rq_watch_print_sample(FILE *out, double t, const struct rq_status *st);

#endif

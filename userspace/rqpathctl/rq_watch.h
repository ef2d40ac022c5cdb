/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The livelock watchdog's decision, as a pure function over a series of
 * status samples.  The caller owns the clock and the I/O; this code only
 * looks at counters and the times it is given, so the unit tests can feed
 * it synthetic series.
 *
 * Livelock: requests are in flight, and one op's busy hand-backs keep
 * rising while its own completions have not moved for stall_s seconds
 * (the per-op rule, from the per-op <busy_since_completion> of the
 * trailing status group).  On a status line without that group (an older
 * target) the same rule runs on the sums over all ops instead.  See
 * README.md, "watch", for the full rule.
 *
 * By default a sample with nothing in flight ends the watch (drained).  In
 * follow mode it does not: it is an idle sample that restarts the windows,
 * so one watch can cover a whole workload with idle gaps in it.
 */
#ifndef RQ_WATCH_H
#define RQ_WATCH_H

#include <stdbool.h>

#include "rq_status.h"

/* The counters of one status line at one time. */
struct rq_sample {
	double t;			/* seconds, any origin, never decreasing */
	uint64_t in_flight;
	struct rq_op_counters total;	/* sum over ops */
	unsigned int nr_ops;
	struct rq_op_counters ops[RQ_MAX_OPS];
	/* refused and per-op busy_since_completion are known: per-op rule */
	bool has_op_details;
};

struct rq_watch_config {
	double stall_s;		/* completions flat this long: livelock */
	/*
	 * Busy must "keep rising": a stretch longer than this without a new
	 * busy hand-back means the device merely stalls, and the livelock
	 * window starts again when busy moves again.
	 */
	double busy_quiet_s;
	/*
	 * in_flight == 0 is an idle gap, not the end: no DRAINED verdict,
	 * the windows restart at the idle sample instead.
	 */
	bool follow;
};

enum rq_verdict {
	RQ_VERDICT_NONE,	/* keep watching */
	RQ_VERDICT_DRAINED,	/* in_flight reached 0 */
	RQ_VERDICT_LIVELOCK,
};

/* What the last sample looked like; for progress lines and reports. */
enum rq_phase {
	RQ_PHASE_START,		/* first sample, or counters were reset */
	RQ_PHASE_PROGRESS,	/* completions moved */
	RQ_PHASE_SPINNING,	/* completions flat, busy rising */
	RQ_PHASE_STALLED,	/* completions flat, busy flat */
	RQ_PHASE_DRAINED,
	RQ_PHASE_LIVELOCK,
	RQ_PHASE_IDLE,		/* follow mode: nothing in flight */
};

/* The per-op rule's marks on one op's own counters. */
struct rq_op_watch {
	struct rq_sample spin_start;	/* where its livelock window starts */
	double last_busy_rise_t;	/* its busy_since_completion last rose */
	bool spinning;			/* at the latest sample */
};

struct rq_watch_state {
	struct rq_watch_config cfg;
	unsigned int nr_samples;
	unsigned int nr_resets;		/* counters went down: window restarted */
	unsigned int nr_idle;		/* follow: samples with in_flight 0 */
	/*
	 * The longest stretch without a completion while requests were in
	 * flight: how close a progressing device came to the stall limit.
	 */
	double max_flat_s;
	enum rq_phase phase;
	enum rq_verdict verdict;	/* sticky once not NONE */
	struct rq_sample base;		/* first sample, or first after a reset */
	struct rq_sample prev;		/* the latest sample */
	struct rq_sample progress;	/* last sample where completions moved */
	struct rq_sample spin_start;	/* start of the livelock window */
	double last_busy_rise_t;
	/* per-op rule (samples with op details); indexed like ops[] */
	struct rq_op_watch op[RQ_MAX_OPS];
	/* the longest one op spun (its window while busy kept rising) */
	double max_op_spin_s;
	int decided_op;			/* per-op livelock: whose window, or -1 */
};

/* Deltas between two samples of the same op layout. */
struct rq_window {
	double start_t;
	double end_t;
	uint64_t in_flight;		/* at the end */
	struct rq_op_counters total;
	unsigned int nr_ops;
	struct rq_op_counters ops[RQ_MAX_OPS];
	bool has_op_details;		/* refused deltas are known */
};

/*
 * Defaults for a sampling interval: busy may pause max(stall/2, 2 samples).
 * Follow mode is off; the caller turns it on.
 */
void rq_watch_config_default(struct rq_watch_config *cfg, double stall_s,
			     double interval_s);

void rq_watch_init(struct rq_watch_state *w, const struct rq_watch_config *cfg);

void rq_sample_from_status(struct rq_sample *s, const struct rq_status *st,
			   double t);

enum rq_verdict rq_watch_feed_sample(struct rq_watch_state *w,
				     const struct rq_sample *s);

/* Convenience: rq_sample_from_status() then rq_watch_feed_sample(). */
enum rq_verdict rq_watch_feed(struct rq_watch_state *w,
			      const struct rq_status *sample, double t);

/*
 * In flight, completions flat for at least stall_s, busy flat too: no
 * progress but no busy spin either.  Not a livelock; reported on timeout.
 */
bool rq_watch_is_stalled(const struct rq_watch_state *w);

/*
 * Seconds since completions last moved (or the windows restarted: a counter
 * reset, or an idle sample in follow mode).
 */
double rq_watch_flat_seconds(const struct rq_watch_state *w);

/* For a livelock: decision time minus the start of the stall window. */
double rq_watch_latency(const struct rq_watch_state *w);

/*
 * Where the livelock window starts: the deciding op's window with the
 * per-op rule, the totals' window otherwise.
 */
const struct rq_sample *rq_watch_stall_start(const struct rq_watch_state *w);

/* The latest sample used the per-op rule (its line had op details). */
bool rq_watch_per_op(const struct rq_watch_state *w);

/*
 * Per-op rule: the op that spins longest at the latest sample, and for
 * how long (its window); -1 when none spins.
 */
int rq_watch_longest_spin(const struct rq_watch_state *w, double *seconds);

/*
 * The window a report should describe: the livelock window for a livelock,
 * the no-progress window while stalled, else everything since the first
 * sample (or the last counter reset; idle samples do not cut it short).
 */
void rq_watch_report_window(const struct rq_watch_state *w,
			    struct rq_window *out);

void rq_window_between(const struct rq_sample *from,
		       const struct rq_sample *to, struct rq_window *out);

/*
 * Ops whose busy rose while their completed stayed flat over the window.
 * Fills idx[] with op indexes, returns how many (at most max).  With the
 * per-op rule the window is the deciding op's, which is among them.
 */
unsigned int rq_window_stuck_ops(const struct rq_window *win,
				 unsigned int idx[], unsigned int max);

const char *rq_phase_name(enum rq_phase phase);

#endif

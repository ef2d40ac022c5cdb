// SPDX-License-Identifier: GPL-2.0
/*
 * Livelock watchdog decision logic.  No I/O, no clock: see rq_watch.h.
 *
 * Three marks are kept on the series:
 *   progress    the last sample at which completions moved;
 *   spin_start  where the current livelock window starts: normally the
 *               same as progress, but moved forward while busy is quiet,
 *               so that a device that stalled first and started spinning
 *               later gets a full stall_s of spinning before the verdict;
 *   base        the first sample, or the first after a counter reset.
 *
 * In follow mode an idle sample (nothing in flight) moves progress and
 * spin_start to itself, but not base: the report of a followed workload
 * covers all of it, idle gaps included.
 *
 * Those marks are on the sums over all ops, and decide on a status line
 * without op details.  With them (the trailing group of the status line),
 * every op keeps a spin_start of its own, on its own completed and its
 * own busy_since_completion, and the livelock verdict is per op: a
 * discard that spins while reads and writes complete is found.  The
 * device-level marks still give the phase, the stall and max_flat_s.
 */
#include "rq_watch.h"

#include <math.h>
#include <string.h>

/*
 * Samples come from a timer; allow for the rounding of interval
 * arithmetic (0.2 * 15 is not exactly 3.0) in "has stall_s elapsed".
 */
#define RQ_TIME_SLACK 1e-6

void rq_watch_config_default(struct rq_watch_config *cfg, double stall_s,
			     double interval_s)
{
	double quiet = stall_s / 2;

	if (quiet < 2 * interval_s)
		quiet = 2 * interval_s;
	cfg->stall_s = stall_s;
	cfg->busy_quiet_s = quiet;
	cfg->follow = false;
}

void rq_watch_init(struct rq_watch_state *w, const struct rq_watch_config *cfg)
{
	memset(w, 0, sizeof(*w));
	w->cfg = *cfg;
	w->phase = RQ_PHASE_START;
	w->verdict = RQ_VERDICT_NONE;
	w->decided_op = -1;
}

void rq_sample_from_status(struct rq_sample *s, const struct rq_status *st,
			   double t)
{
	memset(s, 0, sizeof(*s));
	s->t = t;
	s->in_flight = st->in_flight;
	s->total = rq_status_totals(st);
	s->nr_ops = st->nr_ops_kept;
	memcpy(s->ops, st->ops, sizeof(s->ops[0]) * st->nr_ops_kept);
	s->has_op_details = st->has_op_details;
}

/*
 * busy_since_completion may drop, but only when the op completes: a drop
 * with completed unchanged is a reset.
 */
static bool counter_went_down(const struct rq_op_counters *before,
			      const struct rq_op_counters *after)
{
	return after->mapped < before->mapped || after->busy < before->busy ||
	       after->completed < before->completed ||
	       after->errors < before->errors ||
	       after->refused < before->refused ||
	       (after->completed == before->completed &&
		after->busy_since_completion < before->busy_since_completion);
}

static bool same_op_layout(const struct rq_sample *a, const struct rq_sample *b)
{
	unsigned int i;

	if (a->nr_ops != b->nr_ops || a->has_op_details != b->has_op_details)
		return false;
	for (i = 0; i < a->nr_ops; i++)
		if (strcmp(a->ops[i].name, b->ops[i].name))
			return false;
	return true;
}

/*
 * Counters only grow, except after "reset_counters" (or a reloaded module
 * with another op layout).  Deltas across such a point are meaningless, so
 * the caller restarts every window instead of reading them.
 */
static bool counters_restarted(const struct rq_sample *prev,
			       const struct rq_sample *s)
{
	unsigned int i;

	if (s->t < prev->t || !same_op_layout(prev, s))
		return true;
	if (counter_went_down(&prev->total, &s->total))
		return true;
	for (i = 0; i < s->nr_ops; i++)
		if (counter_went_down(&prev->ops[i], &s->ops[i]))
			return true;
	return false;
}

/*
 * An op's window starts afresh at s.  Whether its busy "rose" just before
 * is unknown; its busy_since_completion says whether it has busy
 * hand-backs outstanding: if so it may be mid-spin (benefit of the doubt,
 * as for the totals), if not it is quiet and its window follows the
 * samples until its busy starts rising.
 */
static void restart_op(struct rq_op_watch *ow, unsigned int i,
		       const struct rq_sample *s)
{
	ow->spin_start = *s;
	ow->last_busy_rise_t = s->ops[i].busy_since_completion ? s->t :
								  -INFINITY;
	ow->spinning = false;
}

/* The stall and livelock windows start afresh at s. */
static void restart_stall_windows(struct rq_watch_state *w,
				  const struct rq_sample *s)
{
	unsigned int i;

	w->progress = *s;
	w->spin_start = *s;
	w->last_busy_rise_t = s->t;
	if (!s->has_op_details)
		return;
	for (i = 0; i < s->nr_ops; i++)
		restart_op(&w->op[i], i, s);
}

static void restart_windows(struct rq_watch_state *w,
			    const struct rq_sample *s)
{
	w->base = *s;
	restart_stall_windows(w, s);
	w->phase = RQ_PHASE_START;
}

/*
 * Follow mode, nothing in flight: an idle device is neither stalled nor
 * spinning, so whatever comes next is judged from here and not from the
 * last completion before the gap (which could be minutes old).  Every idle
 * sample moves the mark, so the window starts at the last one.
 */
static void go_idle(struct rq_watch_state *w, const struct rq_sample *s)
{
	restart_stall_windows(w, s);
	w->phase = RQ_PHASE_IDLE;
	w->nr_idle++;
}

/*
 * The rule on the sums over all ops: the device-level marks and phase.
 * Returns true when they make a livelock (the verdict for a line without
 * op details).
 */
static bool totals_update(struct rq_watch_state *w, const struct rq_sample *s)
{
	bool stall_elapsed, busy_rose_in_window;

	if (s->total.busy > w->prev.total.busy)
		w->last_busy_rise_t = s->t;

	if (s->total.completed != w->progress.total.completed) {
		w->progress = *s;
		w->spin_start = *s;
		w->phase = RQ_PHASE_PROGRESS;
		return false;
	}

	if (s->t - w->last_busy_rise_t > w->cfg.busy_quiet_s) {
		/* No progress, but no spin either: a stall, not a livelock. */
		w->spin_start = *s;
		w->phase = RQ_PHASE_STALLED;
		return false;
	}

	busy_rose_in_window = s->total.busy > w->spin_start.total.busy;
	w->phase = busy_rose_in_window ? RQ_PHASE_SPINNING : RQ_PHASE_STALLED;
	stall_elapsed = s->t - w->spin_start.t + RQ_TIME_SLACK >= w->cfg.stall_s;
	return busy_rose_in_window && stall_elapsed;
}

/*
 * The same rule on one op's own counters: its completed, and its
 * busy_since_completion for "busy keeps rising".  Returns true when the
 * op is livelocked at s.
 */
static bool op_update(struct rq_watch_state *w, unsigned int i,
		      const struct rq_sample *s)
{
	struct rq_op_watch *ow = &w->op[i];
	const struct rq_op_counters *now = &s->ops[i];
	double window;

	if (now->completed != ow->spin_start.ops[i].completed) {
		restart_op(ow, i, s);
		return false;
	}
	if (now->busy_since_completion >
	    w->prev.ops[i].busy_since_completion)
		ow->last_busy_rise_t = s->t;
	if (s->t - ow->last_busy_rise_t > w->cfg.busy_quiet_s) {
		ow->spin_start = *s;	/* quiet: the window follows */
		ow->spinning = false;
		return false;
	}
	ow->spinning = now->busy_since_completion >
		       ow->spin_start.ops[i].busy_since_completion;
	if (!ow->spinning)
		return false;
	window = s->t - ow->spin_start.t;
	if (window > w->max_op_spin_s)
		w->max_op_spin_s = window;
	return window + RQ_TIME_SLACK >= w->cfg.stall_s;
}

/*
 * Every op's marks.  Returns the livelocked op whose window is longest
 * (the earliest start), or -1; *spinning tells whether any op spins.
 */
static int ops_update(struct rq_watch_state *w, const struct rq_sample *s,
		      bool *spinning)
{
	int decided = -1;
	unsigned int i;

	*spinning = false;
	for (i = 0; i < s->nr_ops; i++) {
		bool stuck = op_update(w, i, s);

		*spinning |= w->op[i].spinning;
		if (stuck && (decided < 0 || w->op[i].spin_start.t <
					     w->op[decided].spin_start.t))
			decided = (int)i;
	}
	return decided;
}

static enum rq_verdict decide(struct rq_watch_state *w,
			      const struct rq_sample *s)
{
	bool totals_livelock = totals_update(w, s);
	bool spinning;

	if (s->has_op_details) {
		w->decided_op = ops_update(w, s, &spinning);
		if (spinning)
			w->phase = RQ_PHASE_SPINNING;
		if (w->decided_op < 0)
			return RQ_VERDICT_NONE;
	} else if (!totals_livelock) {
		return RQ_VERDICT_NONE;
	}
	w->phase = RQ_PHASE_LIVELOCK;
	return RQ_VERDICT_LIVELOCK;
}

enum rq_verdict rq_watch_feed_sample(struct rq_watch_state *w,
				     const struct rq_sample *s)
{
	bool restarted;

	if (w->verdict != RQ_VERDICT_NONE)
		return w->verdict;

	restarted = !w->nr_samples || counters_restarted(&w->prev, s);
	if (restarted && w->nr_samples)
		w->nr_resets++;
	w->nr_samples++;
	if (restarted)
		restart_windows(w, s);

	/*
	 * A drained device is done whatever its counters did; in follow mode
	 * it is idle, and the watch goes on.
	 */
	if (!s->in_flight && w->cfg.follow) {
		go_idle(w, s);
	} else if (!s->in_flight) {
		w->phase = RQ_PHASE_DRAINED;
		w->verdict = RQ_VERDICT_DRAINED;
	} else if (!restarted) {
		w->verdict = decide(w, s);
	}
	if (s->in_flight && s->t - w->progress.t > w->max_flat_s)
		w->max_flat_s = s->t - w->progress.t;
	w->prev = *s;
	return w->verdict;
}

enum rq_verdict rq_watch_feed(struct rq_watch_state *w,
			      const struct rq_status *sample, double t)
{
	struct rq_sample s;

	rq_sample_from_status(&s, sample, t);
	return rq_watch_feed_sample(w, &s);
}

double rq_watch_flat_seconds(const struct rq_watch_state *w)
{
	return w->nr_samples ? w->prev.t - w->progress.t : 0;
}

bool rq_watch_is_stalled(const struct rq_watch_state *w)
{
	return w->verdict == RQ_VERDICT_NONE && w->nr_samples &&
	       w->prev.in_flight && w->phase == RQ_PHASE_STALLED &&
	       rq_watch_flat_seconds(w) + RQ_TIME_SLACK >= w->cfg.stall_s;
}

const struct rq_sample *rq_watch_stall_start(const struct rq_watch_state *w)
{
	if (w->decided_op >= 0)
		return &w->op[w->decided_op].spin_start;
	return &w->spin_start;
}

double rq_watch_latency(const struct rq_watch_state *w)
{
	return w->prev.t - rq_watch_stall_start(w)->t;
}

bool rq_watch_per_op(const struct rq_watch_state *w)
{
	return w->nr_samples && w->prev.has_op_details;
}

int rq_watch_longest_spin(const struct rq_watch_state *w, double *seconds)
{
	int longest = -1;
	unsigned int i;

	*seconds = 0;
	if (!rq_watch_per_op(w))
		return -1;
	for (i = 0; i < w->prev.nr_ops; i++) {
		double spun = w->prev.t - w->op[i].spin_start.t;

		if (w->op[i].spinning && (longest < 0 || spun > *seconds)) {
			longest = (int)i;
			*seconds = spun;
		}
	}
	return longest;
}

static uint64_t delta(uint64_t from, uint64_t to)
{
	return to >= from ? to - from : 0;
}

static void counters_delta(const struct rq_op_counters *from,
			   const struct rq_op_counters *to,
			   struct rq_op_counters *out)
{
	memcpy(out->name, to->name, sizeof(out->name));
	out->mapped = delta(from->mapped, to->mapped);
	out->busy = delta(from->busy, to->busy);
	out->completed = delta(from->completed, to->completed);
	out->errors = delta(from->errors, to->errors);
	out->refused = delta(from->refused, to->refused);
	/* a gauge: what it was at the end */
	out->busy_since_completion = to->busy_since_completion;
}

void rq_window_between(const struct rq_sample *from,
		       const struct rq_sample *to, struct rq_window *out)
{
	unsigned int i;

	memset(out, 0, sizeof(*out));
	out->start_t = from->t;
	out->end_t = to->t;
	out->in_flight = to->in_flight;
	out->has_op_details = to->has_op_details && from->has_op_details;
	counters_delta(&from->total, &to->total, &out->total);
	out->nr_ops = to->nr_ops;
	for (i = 0; i < to->nr_ops; i++) {
		/* Same layout is guaranteed inside a window; be safe anyway. */
		if (i < from->nr_ops &&
		    !strcmp(from->ops[i].name, to->ops[i].name))
			counters_delta(&from->ops[i], &to->ops[i], &out->ops[i]);
		else
			out->ops[i] = to->ops[i];
	}
}

void rq_watch_report_window(const struct rq_watch_state *w,
			    struct rq_window *out)
{
	const struct rq_sample *from = &w->base;

	if (w->verdict == RQ_VERDICT_LIVELOCK)
		from = rq_watch_stall_start(w);
	else if (rq_watch_is_stalled(w))
		from = &w->progress;
	rq_window_between(from, &w->prev, out);
}

unsigned int rq_window_stuck_ops(const struct rq_window *win,
				 unsigned int idx[], unsigned int max)
{
	unsigned int i, n = 0;

	for (i = 0; i < win->nr_ops && n < max; i++)
		if (win->ops[i].busy && !win->ops[i].completed)
			idx[n++] = i;
	return n;
}

const char *rq_phase_name(enum rq_phase phase)
{
	switch (phase) {
	case RQ_PHASE_START:
		return "start";
	case RQ_PHASE_PROGRESS:
		return "progress";
	case RQ_PHASE_SPINNING:
		return "spinning";
	case RQ_PHASE_STALLED:
		return "stalled";
	case RQ_PHASE_DRAINED:
		return "drained";
	case RQ_PHASE_LIVELOCK:
		return "livelock";
	case RQ_PHASE_IDLE:
		return "idle";
	}
	return "?";
}

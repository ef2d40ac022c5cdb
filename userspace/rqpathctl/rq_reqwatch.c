// SPDX-License-Identifier: GPL-2.0
/*
 * The per-request livelock decision.  No I/O, no clock: see rq_reqwatch.h.
 */
#include "rq_reqwatch.h"

#include <math.h>
#include <string.h>

#define SLACK 1e-9

void rq_rw_config_default(struct rq_rw_config *cfg, double stall_s)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->min_refusals = 16;
	cfg->floor_s = 0.25;
	cfg->delayed_gap_s = 0.04;
	cfg->min_overtakes = 8;
	cfg->paths_idle_s = 0.1;
	cfg->alone_s = stall_s;
	cfg->slow_s = 1.0;
}

void rq_rw_sample_init(struct rq_rw_sample *s, double t)
{
	s->t = t;
	s->in_flight = -1;
	s->map_ios = -1;
	s->nr_paths = -1;
	s->nr_usable = -1;
	s->queueing = -1;
	s->paths_inflight = -1;
	s->paths_ios = -1;
}

void rq_rw_init(rq_rw_t *w, const struct rq_rw_config *cfg)
{
	unsigned int i;

	memset(w, 0, sizeof(*w));
	w->cfg = *cfg;
	w->verdict = RQ_RW_QUIET;
	for (i = 0; i < RQ_OPC_NR; i++)
		w->class_done_t[i] = -INFINITY;
	w->last_completion_t = -INFINITY;
	w->last_path_event_t = -INFINITY;
	w->map_ios_change_t = -INFINITY;
	w->map_ios_base_t = -INFINITY;
}

static void advance(rq_rw_t *w, double t)
{
	if (!w->started) {
		w->started = true;
		w->first_t = t;
		w->now = t;
	}
	if (t > w->now)
		w->now = t;
}

static bool is_map(const rq_rw_t *w, const struct rq_trace_event *ev)
{
	return ev->major == w->cfg.map_major && ev->minor == w->cfg.map_minor;
}

static bool is_path(const rq_rw_t *w, const struct rq_trace_event *ev)
{
	unsigned int i;

	for (i = 0; i < w->cfg.nr_path_devs; i++)
		if (ev->major == w->cfg.path_major[i] &&
		    ev->minor == w->cfg.path_minor[i])
			return true;
	return false;
}

/*
 * A request is known by op, sector and size.  A completion may carry a
 * partial size (and dm-rq reports the original twice: the clone's bytes,
 * then "+ 0" past its end), so it matches on op and sector alone.
 */
static struct rq_rw_req *find(rq_rw_t *w, const struct rq_trace_event *ev,
			      bool match_size)
{
	unsigned int i;

	for (i = 0; i < w->nr_req; i++) {
		struct rq_rw_req *r = &w->req[i];

		if (r->used && r->op == ev->op && r->sector == ev->sector &&
		    (!match_size || r->nr_sectors == ev->nr_sectors))
			return r;
	}
	return NULL;
}

static void forget(rq_rw_t *w, struct rq_rw_req *r)
{
	r->used = false;
	while (w->nr_req && !w->req[w->nr_req - 1].used)
		w->nr_req--;
}

/*
 * A new entry; with the table full, the oldest entry that is not refused
 * (an accepted request whose completion we missed) makes room.
 */
static struct rq_rw_req *track(rq_rw_t *w, const struct rq_trace_event *ev)
{
	struct rq_rw_req *r = NULL;
	unsigned int i;

	for (i = 0; i < RQ_RW_MAX_REQS; i++)
		if (!w->req[i].used) {
			r = &w->req[i];
			break;
		}
	if (!r) {
		for (i = 0; i < RQ_RW_MAX_REQS; i++) {
			struct rq_rw_req *c = &w->req[i];

			if (c->state != RQ_RW_REFUSED &&
			    (!r || c->first_seen_t < r->first_seen_t))
				r = c;
		}
		if (!r)
			return NULL;
	}
	memset(r, 0, sizeof(*r));
	r->used = true;
	r->op = ev->op;
	memcpy(r->rwbs, ev->rwbs, sizeof(r->rwbs));
	r->sector = ev->sector;
	r->nr_sectors = ev->nr_sectors;
	r->state = RQ_RW_SEEN;
	r->first_seen_t = ev->t;
	if ((unsigned int)(r - w->req) + 1 > w->nr_req)
		w->nr_req = (unsigned int)(r - w->req) + 1;
	return r;
}

static void restart_streak(struct rq_rw_req *r)
{
	r->refusals = 0;
	r->overtakes = 0;
	r->path_progress = false;
	r->idle_mark = false;
	r->idle_proof = false;
}

static double streak_s(const rq_rw_t *w, const struct rq_rw_req *r)
{
	return r->refusals ? w->now - r->first_refusal_t : 0;
}

static double mean_gap(const struct rq_rw_req *r)
{
	if (r->refusals < 2)
		return 0;
	return (r->last_refusal_t - r->first_refusal_t) / (r->refusals - 1);
}

static void on_requeue(rq_rw_t *w, const struct rq_trace_event *ev)
{
	struct rq_rw_req *r = find(w, ev, true);

	w->requeues++;
	w->class_requeues[ev->op]++;
	if (!r)
		r = track(w, ev);
	if (!r) {
		w->dropped++;
		return;
	}
	if (!r->total_refusals)
		w->refused_requests++;
	r->total_refusals++;
	if (!r->refusals)
		r->first_refusal_t = ev->t;
	r->refusals++;
	r->last_refusal_t = ev->t;
	r->state = RQ_RW_REFUSED;
	if (r->refusals > w->max_streak)
		w->max_streak = r->refusals;
}

static void on_complete(rq_rw_t *w, const struct rq_trace_event *ev)
{
	struct rq_rw_req *r = find(w, ev, false);
	unsigned int i;

	w->completions++;
	w->class_completions[ev->op]++;
	w->class_done_t[ev->op] = ev->t;
	w->last_completion_t = ev->t;
	/*
	 * Its class moved: no request of that class is refused "with no
	 * completion of its op class" any more; their streaks start anew.
	 * Any other refused request that was there before this one arrived
	 * was overtaken.
	 */
	for (i = 0; i < w->nr_req; i++) {
		struct rq_rw_req *o = &w->req[i];

		if (!o->used || o == r || !o->refusals)
			continue;
		if (o->op == ev->op)
			restart_streak(o);
		else if (r && r->first_seen_t > o->first_refusal_t)
			o->overtakes++;
	}
	if (r)
		forget(w, r);
}

static void on_map_event(rq_rw_t *w, const struct rq_trace_event *ev)
{
	struct rq_rw_req *r;

	switch (ev->type) {
	case RQ_TEV_INSERT:
		if (!find(w, ev, true) && !track(w, ev))
			w->dropped++;
		break;
	case RQ_TEV_ISSUE:
		r = find(w, ev, true);
		if (!r)
			r = track(w, ev);
		if (!r) {
			w->dropped++;
			break;
		}
		r->state = RQ_RW_ISSUED;
		r->issued_t = ev->t;
		break;
	case RQ_TEV_REQUEUE:
		on_requeue(w, ev);
		break;
	case RQ_TEV_COMPLETE:
		on_complete(w, ev);
		break;
	case RQ_TEV_ERROR:
	case RQ_TEV_MERGE:
	case RQ_TEV_NR:
		break;
	}
}

static bool policy_queueing(const rq_rw_t *w)
{
	return w->has_sample && w->last.nr_usable == 0 && w->last.queueing != 0;
}

static enum rq_rw_evidence evidence(const rq_rw_t *w,
				    const struct rq_rw_req *r)
{
	if (r->overtakes >= w->cfg.min_overtakes)
		return RQ_RW_EV_OVERTAKEN;
	if (r->idle_proof)
		return RQ_RW_EV_PATHS_IDLE;
	if (!r->path_progress &&
	    streak_s(w, r) + SLACK >= w->cfg.alone_s)
		return RQ_RW_EV_ALONE;
	return RQ_RW_EV_NONE;
}

static bool delayed(const rq_rw_t *w, const struct rq_rw_req *r)
{
	return r->refusals >= 3 && mean_gap(r) >= w->cfg.delayed_gap_s;
}

static bool candidate(const rq_rw_t *w, const struct rq_rw_req *r)
{
	return r->used && r->state == RQ_RW_REFUSED &&
	       r->refusals >= w->cfg.min_refusals &&
	       streak_s(w, r) + SLACK >= w->cfg.floor_s && !delayed(w, r) &&
	       w->class_done_t[r->op] < r->first_refusal_t;
}

static void decide_livelock(rq_rw_t *w, const struct rq_rw_req *r,
			    enum rq_rw_evidence e)
{
	struct rq_rw_stuck *s = &w->stuck;

	w->verdict = RQ_RW_LIVELOCK;
	s->op = r->op;
	memcpy(s->rwbs, r->rwbs, sizeof(s->rwbs));
	s->sector = r->sector;
	s->nr_sectors = r->nr_sectors;
	s->refusals = r->refusals;
	s->first_refusal_t = r->first_refusal_t;
	s->last_refusal_t = r->last_refusal_t;
	s->decision_t = w->now;
	s->evidence = e;
	s->overtakes = r->overtakes;
	s->mean_gap_s = mean_gap(r);
}

static bool anything_tracked(const rq_rw_t *w)
{
	unsigned int i;

	for (i = 0; i < w->nr_req; i++)
		if (w->req[i].used && w->req[i].state != RQ_RW_SEEN)
			return true;
	return false;
}

static void update_stats(rq_rw_t *w)
{
	bool busy = anything_tracked(w) ||
		    (w->has_sample && w->last.in_flight > 0);
	unsigned int i;

	for (i = 0; i < w->nr_req; i++) {
		double s = streak_s(w, &w->req[i]);

		if (w->req[i].used && s > w->max_streak_s)
			w->max_streak_s = s;
	}
	if (busy && !w->busy)
		w->busy_since_t = w->now;
	w->busy = busy;
	if (busy) {
		double since = w->last_completion_t > w->busy_since_t ?
			       w->last_completion_t : w->busy_since_t;

		if (w->map_ios_change_t > since)
			since = w->map_ios_change_t;
		if (w->now - since > w->max_no_completion_s)
			w->max_no_completion_s = w->now - since;
	}
}

/* Accepted requests (issued, not refused) waiting with nothing completing. */
static bool slow(const rq_rw_t *w)
{
	double last = w->last_completion_t > w->map_ios_change_t ?
		      w->last_completion_t : w->map_ios_change_t;
	unsigned int i;

	for (i = 0; i < w->nr_req; i++) {
		const struct rq_rw_req *r = &w->req[i];

		if (r->used && r->state == RQ_RW_ISSUED &&
		    w->now - r->issued_t + SLACK >= w->cfg.slow_s &&
		    last < r->issued_t)
			return true;
	}
	/* Counters only: in flight, completions flat since slow_s. */
	if (w->map_ios_base_t > last)
		last = w->map_ios_base_t;
	return w->has_sample && w->last.in_flight > 0 &&
	       w->last.map_ios >= 0 && w->now - last + SLACK >= w->cfg.slow_s;
}

static enum rq_rw_verdict evaluate(rq_rw_t *w)
{
	bool by_cadence = false;
	unsigned int i;

	update_stats(w);
	if (w->verdict == RQ_RW_LIVELOCK)
		return w->verdict;
	for (i = 0; i < w->nr_req; i++) {
		const struct rq_rw_req *r = &w->req[i];
		enum rq_rw_evidence e;

		if (!r->used || r->state != RQ_RW_REFUSED)
			continue;
		if (delayed(w, r) && w->now - r->last_refusal_t <
				     4 * mean_gap(r) + w->cfg.delayed_gap_s)
			by_cadence = true;
		if (policy_queueing(w) || !candidate(w, r))
			continue;
		e = evidence(w, r);
		if (e != RQ_RW_EV_NONE) {
			decide_livelock(w, r, e);
			return w->verdict;
		}
	}
	w->queueing_by_cadence = by_cadence && !policy_queueing(w);
	if ((policy_queueing(w) && w->busy) || by_cadence)
		w->verdict = RQ_RW_QUEUEING;
	else if (slow(w))
		w->verdict = RQ_RW_SLOW;
	else
		w->verdict = RQ_RW_QUIET;
	return w->verdict;
}

/*
 * The paths completed a request at T: progress for every request refused
 * since before it.  Seen on the paths' own tracepoints, not in their stat:
 * blk_insert_cloned_request() accounts a refused clone as a completed I/O
 * of the path (blk_account_io_done() after a failed direct issue), so the
 * stat rises with every refusal of the livelock itself.
 */
static void path_completed(rq_rw_t *w, double t)
{
	unsigned int i;

	for (i = 0; i < w->nr_req; i++)
		if (w->req[i].used && w->req[i].refusals &&
		    w->req[i].first_refusal_t <= t)
			w->req[i].path_progress = true;
}

/* Whether the paths' tracepoints are watched: then they, not the stat, say
 * what the paths did (path_completed()). */
static bool paths_traced(const rq_rw_t *w)
{
	return w->cfg.nr_path_devs > 0;
}

enum rq_rw_verdict rq_rw_feed_event(rq_rw_t *w, const struct rq_trace_event *ev)
{
	if (w->verdict == RQ_RW_LIVELOCK)
		return w->verdict;
	advance(w, ev->t);
	w->events++;
	if (is_map(w, ev)) {
		on_map_event(w, ev);
	} else if (is_path(w, ev)) {
		w->path_events++;
		w->last_path_event_t = ev->t;
		if (ev->type == RQ_TEV_COMPLETE)
			path_completed(w, ev->t);
	}
	return evaluate(w);
}

/*
 * The paths-idle proof for each refused request: an idle sample marks the
 * start; a later idle sample at least paths_idle_s on, with no path
 * tracepoint since the mark (where the paths are not traced: the same path
 * completions in their stat) and a refusal of the request since the mark,
 * proves that the paths had room the whole time and the request was
 * refused anyway.  A busy sample clears the mark.
 */
static void idle_proofs(rq_rw_t *w, const struct rq_rw_sample *s)
{
	bool idle = s->paths_inflight == 0 && s->nr_usable != 0;
	unsigned int i;

	for (i = 0; i < w->nr_req; i++) {
		struct rq_rw_req *r = &w->req[i];

		if (!r->used || !r->refusals)
			continue;
		if (!paths_traced(w) && w->has_sample && s->paths_ios >= 0 &&
		    w->last.paths_ios >= 0 && s->paths_ios > w->last.paths_ios &&
		    w->last.t >= r->first_refusal_t)
			r->path_progress = true;
		if (!idle || s->paths_ios < 0) {
			r->idle_mark = false;
			continue;
		}
		if (r->idle_mark && ((!paths_traced(w) &&
				      r->idle_paths_ios != s->paths_ios) ||
				     w->last_path_event_t >= r->idle_t)) {
			r->idle_mark = false;	/* the paths did something */
		}
		if (!r->idle_mark) {
			if (s->t >= r->first_refusal_t) {
				r->idle_mark = true;
				r->idle_t = s->t;
				r->idle_paths_ios = s->paths_ios;
				r->idle_refusals = r->refusals;
			}
			continue;
		}
		if (s->t - r->idle_t + SLACK >= w->cfg.paths_idle_s &&
		    r->refusals > r->idle_refusals)
			r->idle_proof = true;
	}
}

enum rq_rw_verdict rq_rw_feed_sample(rq_rw_t *w, const struct rq_rw_sample *s)
{
	if (w->verdict == RQ_RW_LIVELOCK)
		return w->verdict;
	advance(w, s->t);
	idle_proofs(w, s);
	/* the first reading is a baseline, a later change a completion */
	if (s->map_ios >= 0 && (!w->has_sample || w->last.map_ios < 0))
		w->map_ios_base_t = s->t;
	else if (s->map_ios >= 0 && w->last.map_ios != s->map_ios)
		w->map_ios_change_t = s->t;
	/*
	 * A started request counts in sysfs inflight, a refused one (back to
	 * MQ_RQ_IDLE) does not.  So with nothing in flight, an accepted
	 * request issued before the previous sample is gone: its completion
	 * was missed (or came before the watch).
	 */
	if (s->in_flight == 0 && w->has_sample) {
		unsigned int i;

		for (i = 0; i < w->nr_req; i++)
			if (w->req[i].used && w->req[i].state == RQ_RW_ISSUED &&
			    w->req[i].issued_t < w->last.t)
				forget(w, &w->req[i]);
	}
	w->prev_in_flight = w->has_sample ? w->last.in_flight : -1;
	w->prev_sample_t = w->has_sample ? w->last.t : -INFINITY;
	w->last = *s;
	w->has_sample = true;
	w->nr_samples++;
	return evaluate(w);
}

bool rq_rw_drained(const rq_rw_t *w)
{
	unsigned int i;

	if (!w->has_sample || w->last.in_flight != 0 || w->prev_in_flight != 0)
		return false;
	/* a refused request is not in sysfs inflight: the trace decides */
	for (i = 0; i < w->nr_req; i++) {
		const struct rq_rw_req *r = &w->req[i];

		if (!r->used)
			continue;
		if (r->state == RQ_RW_REFUSED &&
		    r->last_refusal_t >= w->prev_sample_t)
			return false;
		if (r->state == RQ_RW_ISSUED && r->issued_t >= w->prev_sample_t)
			return false;
	}
	return true;
}

const struct rq_rw_req *rq_rw_longest_streak(const rq_rw_t *w)
{
	const struct rq_rw_req *best = NULL;
	unsigned int i;

	for (i = 0; i < w->nr_req; i++) {
		const struct rq_rw_req *r = &w->req[i];

		if (r->used && r->refusals &&
		    (!best || r->first_refusal_t < best->first_refusal_t))
			best = r;
	}
	return best;
}

const char *rq_rw_verdict_name(enum rq_rw_verdict v)
{
	switch (v) {
	case RQ_RW_QUIET:
		return "quiet";
	case RQ_RW_LIVELOCK:
		return "livelock";
	case RQ_RW_QUEUEING:
		return "queueing";
	case RQ_RW_SLOW:
		return "slow";
	}
	return "?";
}

const char *rq_rw_evidence_name(enum rq_rw_evidence e)
{
	switch (e) {
	case RQ_RW_EV_NONE:
		return "none";
	case RQ_RW_EV_OVERTAKEN:
		return "overtaken";
	case RQ_RW_EV_PATHS_IDLE:
		return "paths_idle";
	case RQ_RW_EV_ALONE:
		return "alone";
	}
	return "?";
}

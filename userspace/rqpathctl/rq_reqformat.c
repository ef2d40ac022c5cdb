// SPDX-License-Identifier: GPL-2.0
/*
 * Request watch output; see rq_reqformat.h.
 */
#include "rq_reqformat.h"

#include <inttypes.h>
#include <math.h>

#include "rq_exit.h"
#include "rq_json.h"

const char *rq_rw_outcome_name(enum rq_rw_outcome o)
{
	switch (o) {
	case RQ_RWO_DRAINED:
		return "drained";
	case RQ_RWO_LIVELOCK:
		return "livelock";
	case RQ_RWO_QUEUEING:
		return "queueing";
	case RQ_RWO_SLOW:
		return "slow";
	case RQ_RWO_TIMEOUT:
		return "timeout";
	case RQ_RWO_QUIET:
		return "quiet";
	case RQ_RWO_ERROR:
		return "error";
	case RQ_RWO_INTERRUPTED:
		return "interrupted";
	}
	return "?";
}

int rq_rw_outcome_exit_code(enum rq_rw_outcome o)
{
	switch (o) {
	case RQ_RWO_DRAINED:
	case RQ_RWO_QUIET:
		return RQ_EXIT_OK;
	case RQ_RWO_LIVELOCK:
		return RQ_EXIT_FINDING;
	case RQ_RWO_ERROR:
		return RQ_EXIT_FAILURE;
	case RQ_RWO_QUEUEING:
	case RQ_RWO_SLOW:
	case RQ_RWO_TIMEOUT:
	case RQ_RWO_INTERRUPTED:
		break;
	}
	return RQ_EXIT_INCOMPLETE;
}

enum rq_rw_outcome rq_rw_outcome_at_end(const rq_rw_t *w, bool follow,
					bool signal)
{
	if (w->verdict == RQ_RW_LIVELOCK)
		return RQ_RWO_LIVELOCK;
	if (w->verdict == RQ_RW_QUEUEING)
		return RQ_RWO_QUEUEING;
	if (w->verdict == RQ_RW_SLOW)
		return RQ_RWO_SLOW;
	if (follow)
		return RQ_RWO_QUIET;
	return signal ? RQ_RWO_INTERRUPTED : RQ_RWO_TIMEOUT;
}

static double rel(const rq_rw_t *w, double t0, double t)
{
	(void)w;
	return t - t0;
}

void rq_rw_print_progress(FILE *out, const rq_rw_t *w, double t0)
{
	const struct rq_rw_req *r = rq_rw_longest_streak(w);

	fprintf(out, "[%9.2fs] %s requeues=%" PRIu64 " completions=%" PRIu64,
		rel(w, t0, w->now), rq_rw_verdict_name(w->verdict),
		w->requeues, w->completions);
	if (w->has_sample && w->last.in_flight >= 0)
		fprintf(out, " in_flight=%" PRId64, w->last.in_flight);
	if (w->has_sample && w->last.nr_usable >= 0)
		fprintf(out, " paths=%d/%d", w->last.nr_usable, w->last.nr_paths);
	if (r)
		fprintf(out, " streak=%s@%" PRIu64 "+%u:%u/%.2fs",
			rq_op_class_name(r->op), r->sector, r->nr_sectors,
			r->refusals, w->now - r->first_refusal_t);
	fputc('\n', out);
}

void rq_rw_print_report(FILE *out, const struct rq_rw_summary *sum)
{
	const rq_rw_t *w = sum->state;
	const struct rq_rw_stuck *s = &w->stuck;

	fprintf(out, "%s: %s (%s, %s via %s)\n", sum->device,
		rq_rw_outcome_name(sum->outcome), sum->kname,
		sum->target ? sum->target : "?", sum->source);
	if (sum->outcome == RQ_RWO_LIVELOCK)
		fprintf(out, "  stuck request: %s (%s) sector %" PRIu64 " + %u, "
			"refused %u times in %.3fs (every %.1f ms), nothing of "
			"its op class completed; evidence: %s\n",
			rq_op_class_name(s->op), s->rwbs, s->sector,
			s->nr_sectors, s->refusals,
			s->decision_t - s->first_refusal_t, s->mean_gap_s * 1000,
			rq_rw_evidence_name(s->evidence));
	if (sum->outcome == RQ_RWO_QUEUEING)
		fprintf(out, "  %s: the map queues by its own policy, not a "
			"livelock\n", w->queueing_by_cadence ?
			"requests come back at a target's delayed-requeue pace" :
			"no usable path and queue_if_no_path");
	if (sum->paths)
		fprintf(out, "  paths: %u of %u active, queue_if_no_path %s\n",
			sum->paths->nr_active, sum->paths->nr_paths,
			sum->paths->queue_if_no_path < 0 ? "unknown" :
			sum->paths->queue_if_no_path ? "on" : "off");
	fprintf(out, "  load: %" PRIu64 " requeues, %" PRIu64 " completions, "
		"%" PRIu64 " requests refused at least once, longest streak %u "
		"refusals / %.3fs, longest without a completion %.3fs\n",
		w->requeues, w->completions, w->refused_requests, w->max_streak,
		w->max_streak_s, w->max_no_completion_s);
}

static void fixed(struct rq_json *d, json_object *o, const char *k, double v)
{
	rq_json_fixed(d, o, k, v, 3);
}

static void json_paths(struct rq_json *d, const struct rq_map_state *ms)
{
	json_object *p, *list;
	unsigned int i;

	if (!ms) {
		rq_json_null(d, d->root, "paths");
		return;
	}
	p = rq_json_object(d, d->root, "paths");
	rq_json_u64(d, p, "nr_paths", ms->nr_paths);
	rq_json_u64(d, p, "nr_active", ms->nr_active);
	if (ms->queue_if_no_path < 0)
		rq_json_null(d, p, "queue_if_no_path");
	else
		rq_json_bool(d, p, "queue_if_no_path", ms->queue_if_no_path);
	list = rq_json_array(d, p, "list");
	for (i = 0; i < ms->nr_paths; i++) {
		json_object *e = rq_json_object(d, list, NULL);

		rq_json_str(d, e, "dev", ms->paths[i].dev);
		rq_json_str(d, e, "state", ms->paths[i].active ? "active" : "failed");
		rq_json_u64(d, e, "fail_count", ms->paths[i].fail_count);
	}
}

static void json_stuck(struct rq_json *d, const struct rq_rw_summary *sum)
{
	const rq_rw_t *w = sum->state;
	const struct rq_rw_stuck *s = &w->stuck;
	json_object *o;

	if (w->verdict != RQ_RW_LIVELOCK) {
		rq_json_null(d, d->root, "stuck_request");
		rq_json_null(d, d->root, "detection_latency_s");
		return;
	}
	o = rq_json_object(d, d->root, "stuck_request");
	rq_json_str(d, o, "op", rq_op_class_name(s->op));
	rq_json_str(d, o, "rwbs", s->rwbs);
	rq_json_u64(d, o, "sector", s->sector);
	rq_json_u64(d, o, "nr_sectors", s->nr_sectors);
	rq_json_u64(d, o, "refusals", s->refusals);
	fixed(d, o, "first_refusal_s", s->first_refusal_t - sum->t0);
	fixed(d, o, "decision_s", s->decision_t - sum->t0);
	fixed(d, o, "age_s", s->decision_t - s->first_refusal_t);
	rq_json_fixed(d, o, "mean_gap_ms", s->mean_gap_s * 1000, 2);
	rq_json_str(d, o, "evidence", rq_rw_evidence_name(s->evidence));
	rq_json_u64(d, o, "overtakes", s->overtakes);
	fixed(d, d->root, "detection_latency_s", s->decision_t - s->first_refusal_t);
}

static void json_load(struct rq_json *d, const rq_rw_t *w)
{
	json_object *o = rq_json_object(d, d->root, "load");
	json_object *ops = NULL;
	unsigned int i;

	rq_json_u64(d, o, "requeues", w->requeues);
	rq_json_u64(d, o, "completions", w->completions);
	rq_json_u64(d, o, "refused_requests", w->refused_requests);
	if (w->refused_requests)
		rq_json_fixed(d, o, "requeues_per_refused_request",
			      (double)w->requeues / (double)w->refused_requests, 2);
	else
		rq_json_null(d, o, "requeues_per_refused_request");
	rq_json_u64(d, o, "max_streak", w->max_streak);
	fixed(d, o, "max_streak_s", w->max_streak_s);
	fixed(d, o, "max_no_completion_s", w->max_no_completion_s);
	rq_json_u64(d, o, "path_events", w->path_events);
	rq_json_u64(d, o, "dropped_events", w->dropped);
	ops = rq_json_object(d, o, "ops");
	for (i = 0; i < RQ_OPC_NR; i++) {
		json_object *e;

		if (!w->class_requeues[i] && !w->class_completions[i])
			continue;
		e = rq_json_object(d, ops, rq_op_class_name((enum rq_op_class)i));
		rq_json_u64(d, e, "requeues", w->class_requeues[i]);
		rq_json_u64(d, e, "completions", w->class_completions[i]);
	}
}

int rq_rw_print_json(FILE *out, const struct rq_rw_summary *sum)
{
	const rq_rw_t *w = sum->state;
	struct rq_json doc, *d = &doc;
	json_object *cfg, *q;
	char devno[32];
	int ret;

	rq_json_init(d);
	rq_json_str(d, d->root, "schema", "rqpathctl.watch-requests/1");
	rq_json_str(d, d->root, "device", sum->device);
	rq_json_str(d, d->root, "dm_name", sum->dm_name);
	rq_json_str(d, d->root, "dm", sum->kname);
	snprintf(devno, sizeof(devno), "%u,%u", sum->major, sum->minor);
	rq_json_str(d, d->root, "devno", devno);
	rq_json_str(d, d->root, "target", sum->target);
	rq_json_str(d, d->root, "source", sum->source);
	rq_json_str(d, d->root, "fallback_reason", sum->fallback);
	rq_json_str(d, d->root, "verdict", rq_rw_outcome_name(sum->outcome));
	rq_json_i64(d, d->root, "exit_code", rq_rw_outcome_exit_code(sum->outcome));
	rq_json_str(d, d->root, "error", sum->error);
	fixed(d, d->root, "elapsed_s", sum->elapsed_s);
	cfg = rq_json_object(d, d->root, "config");
	rq_json_u64(d, cfg, "interval_ms", sum->interval_ms);
	rq_json_u64(d, cfg, "min_refusals", w->cfg.min_refusals);
	fixed(d, cfg, "floor_s", w->cfg.floor_s);
	fixed(d, cfg, "delayed_gap_s", w->cfg.delayed_gap_s);
	rq_json_u64(d, cfg, "min_overtakes", w->cfg.min_overtakes);
	fixed(d, cfg, "paths_idle_s", w->cfg.paths_idle_s);
	fixed(d, cfg, "alone_s", w->cfg.alone_s);
	fixed(d, cfg, "slow_s", w->cfg.slow_s);
	if (sum->has_timeout)
		fixed(d, cfg, "timeout_s", sum->timeout_s);
	else
		rq_json_null(d, cfg, "timeout_s");
	rq_json_bool(d, d->root, "follow", sum->follow);
	rq_json_u64(d, d->root, "events", w->events);
	rq_json_u64(d, d->root, "trace_lines", sum->trace_lines);
	rq_json_u64(d, d->root, "bad_lines", sum->bad_lines);
	rq_json_u64(d, d->root, "samples", w->nr_samples);
	if (w->has_sample && w->last.in_flight >= 0)
		rq_json_i64(d, d->root, "in_flight", w->last.in_flight);
	else
		rq_json_null(d, d->root, "in_flight");
	rq_json_str(d, d->root, "phase", rq_rw_verdict_name(w->verdict));
	json_stuck(d, sum);
	if (w->verdict == RQ_RW_QUEUEING) {
		q = rq_json_object(d, d->root, "queueing");
		rq_json_str(d, q, "reason", w->queueing_by_cadence ?
			    "delayed_requeue" : "no_usable_path");
	} else {
		rq_json_null(d, d->root, "queueing");
	}
	json_paths(d, sum->paths);
	json_load(d, w);
	ret = rq_json_write(out, d);
	rq_json_free(d);
	return ret;
}

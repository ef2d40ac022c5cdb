// SPDX-License-Identifier: GPL-2.0
/*
 * rqpathctl output.  The JSON written here is a stable interface for test
 * scripts (README.md documents it): keys are only ever added, never
 * renamed, and every key is always present (null when it does not apply,
 * or when the target does not report it).  It is built with json-c
 * (common/rq_json.c); the layout of the text is not part of the
 * interface, the keys and values are.
 */
#include "rq_format.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "rq_exit.h"
#include "rq_json.h"

#define STATUS_SCHEMA "rqpathctl.status/1"
#define WATCH_SCHEMA "rqpathctl.watch/1"
/* Times in the JSON: seconds with millisecond resolution. */
#define JSON_SECONDS_DECIMALS 3

const char *rq_outcome_name(enum rq_outcome outcome)
{
	switch (outcome) {
	case RQ_OUTCOME_DRAINED:
		return "drained";
	case RQ_OUTCOME_LIVELOCK:
		return "livelock";
	case RQ_OUTCOME_TIMEOUT:
		return "timeout";
	case RQ_OUTCOME_STALL:
		return "stall";
	case RQ_OUTCOME_ERROR:
		return "error";
	case RQ_OUTCOME_INTERRUPTED:
		return "interrupted";
	case RQ_OUTCOME_QUIET:
		return "quiet";
	}
	return "error";
}

int rq_outcome_exit_code(enum rq_outcome outcome)
{
	switch (outcome) {
	case RQ_OUTCOME_DRAINED:
	case RQ_OUTCOME_QUIET:
		return RQ_EXIT_OK;
	case RQ_OUTCOME_LIVELOCK:
		return RQ_EXIT_FINDING;
	case RQ_OUTCOME_TIMEOUT:
	case RQ_OUTCOME_STALL:
	case RQ_OUTCOME_INTERRUPTED:
		return RQ_EXIT_INCOMPLETE;
	case RQ_OUTCOME_ERROR:
		break;
	}
	return RQ_EXIT_FAILURE;
}

enum rq_outcome rq_outcome_on_timeout(const struct rq_watch_state *w)
{
	if (rq_watch_is_stalled(w))
		return RQ_OUTCOME_STALL;
	return w->cfg.follow ? RQ_OUTCOME_QUIET : RQ_OUTCOME_TIMEOUT;
}

/* ---- status --json ---------------------------------------------------- */

static void json_seconds(struct rq_json *d, json_object *o, const char *key,
			 double s)
{
	rq_json_fixed(d, o, key, s, JSON_SECONDS_DECIMALS);
}

/* A value the target may not report (an older line): null then. */
static void json_known_u64(struct rq_json *d, json_object *o,
			   const char *key, uint64_t v, bool known)
{
	if (known)
		rq_json_u64(d, o, key, v);
	else
		rq_json_null(d, o, key);
}

/*
 * {"mapped", "busy", "completed", "errors"} as always, then "refused";
 * with_gauge adds the op's busy_since_completion (status, not deltas).
 */
static void json_counters(struct rq_json *d, json_object *parent,
			  const char *key, const struct rq_op_counters *c,
			  bool details, bool with_gauge)
{
	json_object *o = rq_json_object(d, parent, key);

	rq_json_u64(d, o, "mapped", c->mapped);
	rq_json_u64(d, o, "busy", c->busy);
	rq_json_u64(d, o, "completed", c->completed);
	rq_json_u64(d, o, "errors", c->errors);
	json_known_u64(d, o, "refused", c->refused, details);
	if (with_gauge)
		json_known_u64(d, o, "busy_since_completion",
			       c->busy_since_completion, details);
}

/* {"read": {...}, "write": {...}, ...} in the kernel's order. */
static void json_ops(struct rq_json *d, json_object *parent,
		     const struct rq_op_counters *ops, unsigned int nr_ops,
		     bool details, bool with_gauge)
{
	json_object *o = rq_json_object(d, parent, "ops");
	unsigned int i;

	for (i = 0; i < nr_ops; i++)
		json_counters(d, o, ops[i].name, &ops[i], details, with_gauge);
}

static void json_paths(struct rq_json *d, const struct rq_status *st)
{
	json_object *arr = rq_json_array(d, d->root, "paths");
	unsigned int i;

	for (i = 0; i < st->nr_paths; i++) {
		const struct rq_path_status *p = &st->paths[i];
		json_object *o = rq_json_object(d, arr, NULL);

		rq_json_str(d, o, "dev", p->dev);
		rq_json_u64(d, o, "major", p->major);
		rq_json_u64(d, o, "minor", p->minor);
		rq_json_str(d, o, "state", p->failed ? "failed" : "active");
		rq_json_u64(d, o, "fail_count", p->fail_count);
		rq_json_u64(d, o, "dispatched", p->dispatched);
	}
}

/* The stored extra fields are blank separated; emit them as strings. */
static void json_extra_fields(struct rq_json *d, const char *text)
{
	json_object *arr = rq_json_array(d, d->root, "extra_fields");
	const char *p = text + strspn(text, " ");

	while (*p) {
		size_t len = strcspn(p, " ");
		char word[RQ_EXTRA_LEN];

		snprintf(word, sizeof(word), "%.*s", (int)len, p);
		rq_json_str(d, arr, NULL, word);
		p += len;
		p += strspn(p, " ");
	}
}

static void json_status(struct rq_json *d, const char *device,
			const struct rq_status *st)
{
	struct rq_op_counters total = rq_status_totals(st);

	rq_json_str(d, d->root, "schema", STATUS_SCHEMA);
	rq_json_str(d, d->root, "device", device);
	rq_json_u64(d, d->root, "nr_paths", st->nr_paths);
	json_paths(d, st);
	rq_json_bool(d, d->root, "queue_if_no_path", st->queue_if_no_path);
	rq_json_u64(d, d->root, "in_flight", st->in_flight);
	rq_json_u64(d, d->root, "busy_since_completion",
		    st->busy_since_completion);
	rq_json_u64(d, d->root, "no_path_requeues", st->no_path_requeues);
	rq_json_u64(d, d->root, "no_clone_requeues", st->no_clone_requeues);
	rq_json_u64(d, d->root, "nr_ops", st->nr_ops);
	json_ops(d, d->root, st->ops, st->nr_ops_kept, st->has_op_details,
		 true);
	json_counters(d, d->root, "totals", &total, st->has_op_details, false);
	rq_json_u64(d, d->root, "nr_extra_fields", st->nr_extra_fields);
	json_extra_fields(d, st->extra_fields);
	rq_json_bool(d, d->root, "op_details", st->has_op_details);
}

int rq_status_print_json(FILE *out, const char *device,
			 const struct rq_status *st)
{
	struct rq_json doc;
	int ret;

	rq_json_init(&doc);
	json_status(&doc, device, st);
	ret = rq_json_write(out, &doc);
	rq_json_free(&doc);
	return ret;
}

/* ---- status, for people ------------------------------------------------ */

static void print_ops_header(FILE *out, const char *title, bool gauge)
{
	fprintf(out, "  %-14s %12s %12s %12s %12s %12s", title, "MAPPED",
		"BUSY", "COMPLETED", "ERRORS", "REFUSED");
	if (gauge)
		fprintf(out, " %16s", "BUSY_SINCE_COMPL");
	fputc('\n', out);
}

/* A cell: the number, with "+" for deltas, or "-" when not reported. */
static void print_cell(FILE *out, int width, const char *sign, uint64_t v,
		       bool known)
{
	char cell[24];

	if (known)
		snprintf(cell, sizeof(cell), "%s%" PRIu64, sign, v);
	else
		snprintf(cell, sizeof(cell), "-");
	fprintf(out, " %*s", width, cell);
}

struct ops_table {
	const char *title;
	const struct rq_op_counters *ops;
	unsigned int nr_ops;
	const struct rq_op_counters *total;
	bool deltas;		/* "+" signs, no gauge column */
	bool details;		/* refused and the gauge are known */
};

static void print_ops_row(FILE *out, const struct ops_table *t,
			  const struct rq_op_counters *c, bool is_total)
{
	const char *sign = t->deltas ? "+" : "";
	const uint64_t values[] = { c->mapped, c->busy, c->completed,
				    c->errors };
	size_t i;

	fprintf(out, "  %-14s", c->name);
	for (i = 0; i < sizeof(values) / sizeof(values[0]); i++)
		print_cell(out, 12, sign, values[i], true);
	print_cell(out, 12, sign, c->refused, t->details);
	/* a gauge per op has no sum: the device's own is in the summary */
	if (!t->deltas)
		print_cell(out, 16, "", c->busy_since_completion,
			   t->details && !is_total);
	fputc('\n', out);
}

static void print_ops_table(FILE *out, const struct ops_table *t)
{
	unsigned int i;

	print_ops_header(out, t->title, !t->deltas);
	for (i = 0; i < t->nr_ops; i++)
		print_ops_row(out, t, &t->ops[i], false);
	print_ops_row(out, t, t->total, true);
}

static void print_status_notes(FILE *out, const struct rq_status *st)
{
	if (!st->has_op_details)
		fprintf(out, "note: the target reports no per-op refused and "
			"busy_since_completion (an older rqpath): shown as "
			"-\n");
	if (st->nr_ops > st->nr_ops_kept)
		fprintf(out, "note: %u op groups reported, only the first %u "
			"are shown and summed\n", st->nr_ops, st->nr_ops_kept);
	if (st->nr_extra_fields)
		fprintf(out, "note: %u trailing field%s this version does not "
			"know: %s\n", st->nr_extra_fields,
			st->nr_extra_fields == 1 ? "" : "s", st->extra_fields);
}

void rq_status_print_human(FILE *out, const char *device,
			   const struct rq_status *st)
{
	struct rq_op_counters total = rq_status_totals(st);
	struct ops_table table = {
		.title = "OP", .ops = st->ops, .nr_ops = st->nr_ops_kept,
		.total = &total, .details = st->has_op_details,
	};
	unsigned int i;

	fprintf(out, "%s: %u path%s, queue_if_no_path %s, in_flight %" PRIu64
		", busy_since_completion %" PRIu64 "\n",
		device, st->nr_paths, st->nr_paths == 1 ? "" : "s",
		st->queue_if_no_path ? "on" : "off", st->in_flight,
		st->busy_since_completion);
	fprintf(out, "requeues: no_path %" PRIu64 ", no_clone %" PRIu64 "\n\n",
		st->no_path_requeues, st->no_clone_requeues);

	fprintf(out, "  %-14s %-7s %12s %12s\n", "PATH", "STATE", "FAIL_COUNT",
		"DISPATCHED");
	for (i = 0; i < st->nr_paths; i++) {
		const struct rq_path_status *p = &st->paths[i];

		fprintf(out, "  %-14s %-7s %12" PRIu64 " %12" PRIu64 "\n",
			p->dev, p->failed ? "FAILED" : "active", p->fail_count,
			p->dispatched);
	}
	fputs("\n", out);
	print_ops_table(out, &table);
	print_status_notes(out, st);
}

/* ---- watch, for people ------------------------------------------------- */

static int64_t signed_delta(uint64_t from, uint64_t to)
{
	return to >= from ? (int64_t)(to - from) : -(int64_t)(from - to);
}

void rq_watch_print_progress(FILE *out, const struct rq_watch_state *w,
			     const struct rq_sample *last_printed)
{
	const struct rq_sample *s = &w->prev;
	const struct rq_sample *ref = last_printed ? last_printed : s;
	double spun;
	int op;

	fprintf(out,
		"[%8.2fs] in_flight=%" PRIu64 " busy=%" PRIu64 " (%+" PRId64
		") completed=%" PRIu64 " (%+" PRId64 ") flat=%.1fs phase=%s",
		s->t, s->in_flight, s->total.busy,
		signed_delta(ref->total.busy, s->total.busy),
		s->total.completed,
		signed_delta(ref->total.completed, s->total.completed),
		rq_watch_flat_seconds(w), rq_phase_name(w->phase));
	/* per-op rule: the op closest to a verdict, if one spins */
	op = rq_watch_longest_spin(w, &spun);
	if (op >= 0)
		fprintf(out, " spin=%s:%.1fs", s->ops[op].name, spun);
	fputc('\n', out);
}

static void print_stuck_ops(FILE *out, const struct rq_window *win)
{
	unsigned int idx[RQ_MAX_OPS];
	unsigned int i, n = rq_window_stuck_ops(win, idx, RQ_MAX_OPS);

	fputs("stuck op(s):", out);
	for (i = 0; i < n; i++)
		fprintf(out, " %s (busy +%" PRIu64 ")", win->ops[idx[i]].name,
			win->ops[idx[i]].busy);
	fputs(n ? "\n" : " none\n", out);
}

static void print_livelock(FILE *out, const struct rq_watch_summary *sum,
			   const struct rq_window *win)
{
	const struct rq_watch_state *w = sum->state;

	fprintf(out, "LIVELOCK on %s: %" PRIu64 " request(s) in flight, "
		"busy +%" PRIu64 " while completed +%" PRIu64
		" over %.2f s (%.2f s .. %.2f s)\n",
		sum->device, win->in_flight, win->total.busy,
		win->total.completed, win->end_t - win->start_t,
		win->start_t, win->end_t);
	if (w->decided_op >= 0)
		fprintf(out, "per-op rule: %s handed back busy +%" PRIu64
			" with no completion of its own\n",
			win->ops[w->decided_op].name,
			win->ops[w->decided_op].busy);
	fprintf(out, "detection latency: %.2f s (stall limit %.2f s)\n",
		rq_watch_latency(w), w->cfg.stall_s);
	print_stuck_ops(out, win);
}

static void print_verdict(FILE *out, const struct rq_watch_summary *sum,
			  const struct rq_window *win)
{
	const struct rq_watch_state *w = sum->state;

	switch (sum->outcome) {
	case RQ_OUTCOME_LIVELOCK:
		print_livelock(out, sum, win);
		break;
	case RQ_OUTCOME_DRAINED:
		fprintf(out, "DRAINED %s: in_flight reached 0 at %.2f s\n",
			sum->device, w->prev.t);
		break;
	case RQ_OUTCOME_STALL:
		fprintf(out, "STALL on %s: %" PRIu64 " request(s) in flight, no "
			"completion for %.2f s and busy flat: no progress, but "
			"not a busy livelock\n", sum->device, win->in_flight,
			rq_watch_flat_seconds(w));
		break;
	case RQ_OUTCOME_TIMEOUT:
		fprintf(out, "TIMEOUT on %s: no decision after %.2f s "
			"(in_flight %" PRIu64 ", phase %s)\n", sum->device,
			sum->elapsed_s, w->prev.in_flight,
			rq_phase_name(w->phase));
		break;
	case RQ_OUTCOME_ERROR:
		fprintf(out, "ERROR on %s after %.2f s: %s\n", sum->device,
			sum->elapsed_s, sum->error ? sum->error : "unknown");
		break;
	case RQ_OUTCOME_INTERRUPTED:
		fprintf(out, "INTERRUPTED watching %s after %.2f s\n",
			sum->device, sum->elapsed_s);
		break;
	case RQ_OUTCOME_QUIET:
		fprintf(out, "QUIET on %s: no livelock in %.2f s "
			"(in_flight %" PRIu64 ", phase %s)\n", sum->device,
			sum->elapsed_s, w->prev.in_flight,
			rq_phase_name(w->phase));
		break;
	}
}

void rq_watch_print_report(FILE *out, const struct rq_watch_summary *sum)
{
	const struct rq_watch_state *w = sum->state;
	struct ops_table table = { .title = "OP", .deltas = true };
	struct rq_window win;

	if (!w || !w->nr_samples) {
		fprintf(out, "%s %s: no status sample was taken%s%s\n",
			rq_outcome_name(sum->outcome), sum->device,
			sum->error ? ": " : "", sum->error ? sum->error : "");
		return;
	}
	rq_watch_report_window(w, &win);
	print_verdict(out, sum, &win);
	/* Only in follow mode: without it the report stays as it was. */
	if (w->cfg.follow)
		fprintf(out, "follow mode: %u idle sample(s) (in_flight 0), "
			"idle did not end the watch\n", w->nr_idle);
	if (w->nr_resets)
		fprintf(out, "counters were reset %u time(s); windows restarted\n",
			w->nr_resets);
	if (!rq_watch_per_op(w))
		fprintf(out, "rule: on the sums over all ops (the target "
			"reports no per-op busy_since_completion)\n");
	fprintf(out, "counter deltas %.2f s .. %.2f s:\n", win.start_t,
		win.end_t);
	table.ops = win.ops;
	table.nr_ops = win.nr_ops;
	table.total = &win.total;
	table.details = win.has_op_details;
	print_ops_table(out, &table);
}

/* ---- watch --json ------------------------------------------------------ */

static void json_window(struct rq_json *d, const struct rq_window *win)
{
	json_object *o = rq_json_object(d, d->root, "window");

	json_seconds(d, o, "start_s", win->start_t);
	json_seconds(d, o, "end_s", win->end_t);
	json_seconds(d, o, "duration_s", win->end_t - win->start_t);
	json_counters(d, o, "total", &win->total, win->has_op_details, false);
	json_ops(d, o, win->ops, win->nr_ops, win->has_op_details, false);
}

static void json_stuck_ops(struct rq_json *d, const struct rq_window *win,
			   bool livelock)
{
	json_object *arr = rq_json_array(d, d->root, "stuck_ops");
	unsigned int idx[RQ_MAX_OPS];
	unsigned int i, n;

	if (!livelock)
		return;
	n = rq_window_stuck_ops(win, idx, RQ_MAX_OPS);
	for (i = 0; i < n; i++)
		rq_json_str(d, arr, NULL, win->ops[idx[i]].name);
}

static void json_config(struct rq_json *d, const struct rq_watch_summary *sum)
{
	const struct rq_watch_state *w = sum->state;
	json_object *o = rq_json_object(d, d->root, "config");

	rq_json_u64(d, o, "interval_ms", sum->interval_ms);
	json_seconds(d, o, "stall_s", w ? w->cfg.stall_s : NAN);
	json_seconds(d, o, "busy_quiet_s", w ? w->cfg.busy_quiet_s : NAN);
	json_seconds(d, o, "timeout_s",
		     sum->has_timeout ? sum->timeout_s : NAN);
}

/* The per-op gauges of the last sample: what each op spins on now. */
static void json_op_gauges(struct rq_json *d, const struct rq_watch_state *w,
			   bool per_op)
{
	json_object *o;
	unsigned int i;

	if (!per_op) {
		rq_json_null(d, d->root, "op_busy_since_completion");
		return;
	}
	o = rq_json_object(d, d->root, "op_busy_since_completion");
	for (i = 0; i < w->prev.nr_ops; i++)
		rq_json_u64(d, o, w->prev.ops[i].name,
			    w->prev.ops[i].busy_since_completion);
}

/* Which rule decided, and what only the per-op rule knows. */
static void json_rule(struct rq_json *d, const struct rq_watch_state *w,
		      bool sampled, bool livelock)
{
	bool per_op = sampled && rq_watch_per_op(w);

	if (sampled)
		rq_json_str(d, d->root, "rule", per_op ? "per_op" : "totals");
	else
		rq_json_null(d, d->root, "rule");
	if (per_op)
		json_seconds(d, d->root, "max_op_spin_s", w->max_op_spin_s);
	else
		rq_json_null(d, d->root, "max_op_spin_s");
	rq_json_str(d, d->root, "decided_op", livelock && w->decided_op >= 0 ?
		    w->prev.ops[w->decided_op].name : NULL);
	json_op_gauges(d, w, per_op);
}

static void json_watch(struct rq_json *d, const struct rq_watch_summary *sum)
{
	const struct rq_watch_state *w = sum->state;
	bool sampled = w && w->nr_samples;
	bool livelock = sum->outcome == RQ_OUTCOME_LIVELOCK && sampled;
	struct rq_window win;

	if (sampled)
		rq_watch_report_window(w, &win);
	rq_json_str(d, d->root, "schema", WATCH_SCHEMA);
	rq_json_str(d, d->root, "device", sum->device);
	rq_json_str(d, d->root, "verdict", rq_outcome_name(sum->outcome));
	rq_json_i64(d, d->root, "exit_code",
		    rq_outcome_exit_code(sum->outcome));
	rq_json_str(d, d->root, "error", sum->error);
	json_seconds(d, d->root, "elapsed_s", sum->elapsed_s);
	rq_json_u64(d, d->root, "samples", sampled ? w->nr_samples : 0);
	rq_json_u64(d, d->root, "counter_resets", sampled ? w->nr_resets : 0);
	rq_json_u64(d, d->root, "idle_samples", sampled ? w->nr_idle : 0);
	json_seconds(d, d->root, "max_flat_s", sampled ? w->max_flat_s : 0);
	json_config(d, sum);
	/*
	 * A setting, but outside "config": that object's keys predate
	 * follow mode and readers may match it as a whole.
	 */
	rq_json_bool(d, d->root, "follow", w && w->cfg.follow);
	if (sampled)
		rq_json_u64(d, d->root, "in_flight", w->prev.in_flight);
	else
		rq_json_null(d, d->root, "in_flight");
	rq_json_str(d, d->root, "phase",
		    sampled ? rq_phase_name(w->phase) : "start");
	json_seconds(d, d->root, "stall_start_s",
		     livelock ? rq_watch_stall_start(w)->t : NAN);
	json_seconds(d, d->root, "decision_s", livelock ? w->prev.t : NAN);
	json_seconds(d, d->root, "detection_latency_s",
		     livelock ? rq_watch_latency(w) : NAN);
	json_stuck_ops(d, &win, livelock);
	if (sampled)
		json_window(d, &win);
	else
		rq_json_null(d, d->root, "window");
	json_rule(d, w, sampled, livelock);
}

int rq_watch_print_json(FILE *out, const struct rq_watch_summary *sum)
{
	struct rq_json doc;
	int ret;

	rq_json_init(&doc);
	json_watch(&doc, sum);
	ret = rq_json_write(out, &doc);
	rq_json_free(&doc);
	return ret;
}

/* ---- watch --samples ------------------------------------------------------ */

/* An op nobody used says nothing on a plot; leaving it out keeps lines short. */
static bool op_in_use(const struct rq_op_counters *c)
{
	return c->mapped || c->busy || c->completed;
}

static void json_sample(struct rq_json *d, double t, const struct rq_status *st)
{
	json_object *ops;
	unsigned int i;

	json_seconds(d, d->root, "t", t);
	rq_json_u64(d, d->root, "in_flight", st->in_flight);
	ops = rq_json_object(d, d->root, "ops");
	for (i = 0; i < st->nr_ops_kept; i++) {
		const struct rq_op_counters *c = &st->ops[i];
		json_object *counts;

		if (!op_in_use(c))
			continue;
		counts = rq_json_array(d, ops, c->name);
		rq_json_u64(d, counts, NULL, c->mapped);
		rq_json_u64(d, counts, NULL, c->busy);
		rq_json_u64(d, counts, NULL, c->completed);
	}
}

/*
 * One line per document, whatever it holds: readers split the file on
 * newlines (json-c escapes any newline inside a string), so rq_json_write's
 * pretty form would not do.
 */
static int write_json_line(FILE *out, const struct rq_json *doc)
{
	const char *text;

	if (doc->failed || !doc->root)
		return -1;
	text = json_object_to_json_string_ext(doc->root,
					      JSON_C_TO_STRING_SPACED |
					      JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!text || fputs(text, out) == EOF || fputc('\n', out) == EOF)
		return -1;
	return 0;
}

int rq_watch_print_sample(FILE *out, double t, const struct rq_status *st)
{
	struct rq_json doc;
	int ret;

	rq_json_init(&doc);
	json_sample(&doc, t, st);
	ret = write_json_line(out, &doc);
	rq_json_free(&doc);
	return ret;
}

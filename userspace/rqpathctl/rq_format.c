// SPDX-License-Identifier: GPL-2.0
/*
 * rqpathctl output.  The JSON written here is a stable interface for test
 * scripts (README.md documents it): keys are only ever added, never
 * renamed, and every key is always present (null when it does not apply).
 */
#include "rq_format.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#define STATUS_SCHEMA "rqpathctl.status/1"
#define WATCH_SCHEMA "rqpathctl.watch/1"

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
		return 0;
	case RQ_OUTCOME_LIVELOCK:
		return 3;
	case RQ_OUTCOME_TIMEOUT:
	case RQ_OUTCOME_STALL:
		return 4;
	case RQ_OUTCOME_ERROR:
	case RQ_OUTCOME_INTERRUPTED:
		return 1;
	}
	return 1;
}

enum rq_outcome rq_outcome_on_timeout(const struct rq_watch_state *w)
{
	if (rq_watch_is_stalled(w))
		return RQ_OUTCOME_STALL;
	return w->cfg.follow ? RQ_OUTCOME_QUIET : RQ_OUTCOME_TIMEOUT;
}

void rq_json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(out, "\\%c", ch);
		else if (ch == '\n')
			fputs("\\n", out);
		else if (ch == '\t')
			fputs("\\t", out);
		else if (ch < 0x20 || ch == 0x7f)
			fprintf(out, "\\u%04x", ch);
		else
			fputc(ch, out);
	}
	fputc('"', out);
}

/* Seconds with millisecond resolution; JSON has no NaN or infinity. */
static void json_seconds(FILE *out, double s)
{
	if (isfinite(s))
		fprintf(out, "%.3f", s);
	else
		fputs("null", out);
}

static void json_counters(FILE *out, const struct rq_op_counters *c)
{
	fprintf(out,
		"{\"mapped\": %" PRIu64 ", \"busy\": %" PRIu64
		", \"completed\": %" PRIu64 ", \"errors\": %" PRIu64 "}",
		c->mapped, c->busy, c->completed, c->errors);
}

/* {"read": {...}, "write": {...}, ...} in the kernel's order. */
static void json_ops_object(FILE *out, const struct rq_op_counters *ops,
			    unsigned int nr_ops, const char *indent)
{
	unsigned int i;

	fputs("{", out);
	for (i = 0; i < nr_ops; i++) {
		fprintf(out, "%s\n%s  ", i ? "," : "", indent);
		rq_json_string(out, ops[i].name);
		fputs(": ", out);
		json_counters(out, &ops[i]);
	}
	if (nr_ops)
		fprintf(out, "\n%s", indent);
	fputs("}", out);
}

/* The stored extra fields are blank separated; emit them as strings. */
static void json_extra_fields(FILE *out, const char *text)
{
	const char *p = text;
	bool first = true;

	fputs("[", out);
	while (*p) {
		size_t len = strcspn(p, " ");
		char word[RQ_EXTRA_LEN];

		memcpy(word, p, len);
		word[len] = '\0';
		fputs(first ? "" : ", ", out);
		rq_json_string(out, word);
		first = false;
		p += len;
		p += strspn(p, " ");
	}
	fputs("]", out);
}

void rq_status_print_json(FILE *out, const char *device,
			  const struct rq_status *st)
{
	struct rq_op_counters total = rq_status_totals(st);
	unsigned int i;

	fprintf(out, "{\n  \"schema\": \"%s\",\n  \"device\": ", STATUS_SCHEMA);
	rq_json_string(out, device);
	fprintf(out, ",\n  \"nr_paths\": %u,\n  \"paths\": [", st->nr_paths);
	for (i = 0; i < st->nr_paths; i++) {
		const struct rq_path_status *p = &st->paths[i];

		fprintf(out, "%s\n    {\"dev\": ", i ? "," : "");
		rq_json_string(out, p->dev);
		fprintf(out,
			", \"major\": %u, \"minor\": %u, \"state\": \"%s\", "
			"\"fail_count\": %" PRIu64 ", \"dispatched\": %" PRIu64
			"}",
			p->major, p->minor, p->failed ? "failed" : "active",
			p->fail_count, p->dispatched);
	}
	fprintf(out,
		"\n  ],\n  \"queue_if_no_path\": %s,\n"
		"  \"in_flight\": %" PRIu64 ",\n"
		"  \"busy_since_completion\": %" PRIu64 ",\n"
		"  \"no_path_requeues\": %" PRIu64 ",\n"
		"  \"no_clone_requeues\": %" PRIu64 ",\n"
		"  \"nr_ops\": %u,\n  \"ops\": ",
		st->queue_if_no_path ? "true" : "false", st->in_flight,
		st->busy_since_completion, st->no_path_requeues,
		st->no_clone_requeues, st->nr_ops);
	json_ops_object(out, st->ops, st->nr_ops_kept, "  ");
	fputs(",\n  \"totals\": ", out);
	json_counters(out, &total);
	fprintf(out, ",\n  \"nr_extra_fields\": %u,\n  \"extra_fields\": ",
		st->nr_extra_fields);
	json_extra_fields(out, st->extra_fields);
	fputs("\n}\n", out);
}

static void print_ops_header(FILE *out, const char *title)
{
	fprintf(out, "  %-14s %12s %12s %12s %12s\n", title, "MAPPED", "BUSY",
		"COMPLETED", "ERRORS");
}

static void print_ops_row(FILE *out, const struct rq_op_counters *c,
			  const char *sign)
{
	const uint64_t values[] = { c->mapped, c->busy, c->completed,
				    c->errors };
	size_t i;

	fprintf(out, "  %-14s", c->name);
	for (i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		char cell[24];

		snprintf(cell, sizeof(cell), "%s%" PRIu64, sign, values[i]);
		fprintf(out, " %12s", cell);
	}
	fputc('\n', out);
}

static void print_ops_table(FILE *out, const char *title,
			    const struct rq_op_counters *ops,
			    unsigned int nr_ops,
			    const struct rq_op_counters *total, bool deltas)
{
	const char *sign = deltas ? "+" : "";
	unsigned int i;

	print_ops_header(out, title);
	for (i = 0; i < nr_ops; i++)
		print_ops_row(out, &ops[i], sign);
	print_ops_row(out, total, sign);
}

void rq_status_print_human(FILE *out, const char *device,
			   const struct rq_status *st)
{
	struct rq_op_counters total = rq_status_totals(st);
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
	print_ops_table(out, "OP", st->ops, st->nr_ops_kept, &total, false);

	if (st->nr_ops > st->nr_ops_kept)
		fprintf(out, "note: %u op groups reported, only the first %u "
			"are shown and summed\n", st->nr_ops, st->nr_ops_kept);
	if (st->nr_extra_fields)
		fprintf(out, "note: %u trailing field%s this version does not "
			"know: %s\n", st->nr_extra_fields,
			st->nr_extra_fields == 1 ? "" : "s", st->extra_fields);
}

static int64_t signed_delta(uint64_t from, uint64_t to)
{
	return to >= from ? (int64_t)(to - from) : -(int64_t)(from - to);
}

void rq_watch_print_progress(FILE *out, const struct rq_watch_state *w,
			     const struct rq_sample *last_printed)
{
	const struct rq_sample *s = &w->prev;
	const struct rq_sample *ref = last_printed ? last_printed : s;

	fprintf(out,
		"[%8.2fs] in_flight=%" PRIu64 " busy=%" PRIu64 " (%+" PRId64
		") completed=%" PRIu64 " (%+" PRId64 ") flat=%.1fs phase=%s\n",
		s->t, s->in_flight, s->total.busy,
		signed_delta(ref->total.busy, s->total.busy),
		s->total.completed,
		signed_delta(ref->total.completed, s->total.completed),
		rq_watch_flat_seconds(w), rq_phase_name(w->phase));
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

void rq_watch_print_report(FILE *out, const struct rq_watch_summary *sum)
{
	const struct rq_watch_state *w = sum->state;
	struct rq_window win;

	if (!w || !w->nr_samples) {
		fprintf(out, "%s %s: no status sample was taken%s%s\n",
			rq_outcome_name(sum->outcome), sum->device,
			sum->error ? ": " : "", sum->error ? sum->error : "");
		return;
	}
	rq_watch_report_window(w, &win);

	switch (sum->outcome) {
	case RQ_OUTCOME_LIVELOCK:
		fprintf(out, "LIVELOCK on %s: %" PRIu64 " request(s) in flight, "
			"busy +%" PRIu64 " while completed +%" PRIu64
			" over %.2f s (%.2f s .. %.2f s)\n",
			sum->device, win.in_flight, win.total.busy,
			win.total.completed, win.end_t - win.start_t,
			win.start_t, win.end_t);
		fprintf(out, "detection latency: %.2f s (stall limit %.2f s)\n",
			rq_watch_latency(w), w->cfg.stall_s);
		print_stuck_ops(out, &win);
		break;
	case RQ_OUTCOME_DRAINED:
		fprintf(out, "DRAINED %s: in_flight reached 0 at %.2f s\n",
			sum->device, w->prev.t);
		break;
	case RQ_OUTCOME_STALL:
		fprintf(out, "STALL on %s: %" PRIu64 " request(s) in flight, no "
			"completion for %.2f s and busy flat: no progress, but "
			"not a busy livelock\n", sum->device, win.in_flight,
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
	/* Only in follow mode: without it the report stays as it was. */
	if (w->cfg.follow)
		fprintf(out, "follow mode: %u idle sample(s) (in_flight 0), "
			"idle did not end the watch\n", w->nr_idle);
	if (w->nr_resets)
		fprintf(out, "counters were reset %u time(s); windows restarted\n",
			w->nr_resets);
	fprintf(out, "counter deltas %.2f s .. %.2f s:\n", win.start_t,
		win.end_t);
	print_ops_table(out, "OP", win.ops, win.nr_ops, &win.total, true);
}

static void json_window(FILE *out, const struct rq_window *win)
{
	fputs("{\"start_s\": ", out);
	json_seconds(out, win->start_t);
	fputs(", \"end_s\": ", out);
	json_seconds(out, win->end_t);
	fputs(", \"duration_s\": ", out);
	json_seconds(out, win->end_t - win->start_t);
	fputs(",\n    \"total\": ", out);
	json_counters(out, &win->total);
	fputs(",\n    \"ops\": ", out);
	json_ops_object(out, win->ops, win->nr_ops, "    ");
	fputs("}", out);
}

static void json_stuck_ops(FILE *out, const struct rq_window *win)
{
	unsigned int idx[RQ_MAX_OPS];
	unsigned int i, n = rq_window_stuck_ops(win, idx, RQ_MAX_OPS);

	fputs("[", out);
	for (i = 0; i < n; i++) {
		fputs(i ? ", " : "", out);
		rq_json_string(out, win->ops[idx[i]].name);
	}
	fputs("]", out);
}

static void json_config(FILE *out, const struct rq_watch_summary *sum)
{
	const struct rq_watch_state *w = sum->state;

	fprintf(out, "{\"interval_ms\": %u, \"stall_s\": ", sum->interval_ms);
	json_seconds(out, w ? w->cfg.stall_s : NAN);
	fputs(", \"busy_quiet_s\": ", out);
	json_seconds(out, w ? w->cfg.busy_quiet_s : NAN);
	fputs(", \"timeout_s\": ", out);
	json_seconds(out, sum->has_timeout ? sum->timeout_s : NAN);
	fputs("}", out);
}

void rq_watch_print_json(FILE *out, const struct rq_watch_summary *sum)
{
	const struct rq_watch_state *w = sum->state;
	bool sampled = w && w->nr_samples;
	bool livelock = sum->outcome == RQ_OUTCOME_LIVELOCK && sampled;
	struct rq_window win;

	if (sampled)
		rq_watch_report_window(w, &win);

	fprintf(out, "{\n  \"schema\": \"%s\",\n  \"device\": ", WATCH_SCHEMA);
	rq_json_string(out, sum->device);
	fprintf(out, ",\n  \"verdict\": \"%s\",\n  \"exit_code\": %d,\n"
		"  \"error\": ", rq_outcome_name(sum->outcome),
		rq_outcome_exit_code(sum->outcome));
	if (sum->error)
		rq_json_string(out, sum->error);
	else
		fputs("null", out);
	fputs(",\n  \"elapsed_s\": ", out);
	json_seconds(out, sum->elapsed_s);
	fprintf(out, ",\n  \"samples\": %u,\n  \"counter_resets\": %u,\n"
		"  \"idle_samples\": %u,\n  \"max_flat_s\": ",
		sampled ? w->nr_samples : 0, sampled ? w->nr_resets : 0,
		sampled ? w->nr_idle : 0);
	json_seconds(out, sampled ? w->max_flat_s : 0);
	fputs(",\n  \"config\": ", out);
	json_config(out, sum);
	/*
	 * A setting, but outside "config": that object's text predates
	 * follow mode and readers may match it as a whole.
	 */
	fprintf(out, ",\n  \"follow\": %s",
		w && w->cfg.follow ? "true" : "false");
	fputs(",\n  \"in_flight\": ", out);
	if (sampled)
		fprintf(out, "%" PRIu64, w->prev.in_flight);
	else
		fputs("null", out);
	fprintf(out, ",\n  \"phase\": \"%s\"",
		sampled ? rq_phase_name(w->phase) : "start");
	fputs(",\n  \"stall_start_s\": ", out);
	json_seconds(out, livelock ? w->spin_start.t : NAN);
	fputs(",\n  \"decision_s\": ", out);
	json_seconds(out, livelock ? w->prev.t : NAN);
	fputs(",\n  \"detection_latency_s\": ", out);
	json_seconds(out, livelock ? rq_watch_latency(w) : NAN);
	fputs(",\n  \"stuck_ops\": ", out);
	if (livelock)
		json_stuck_ops(out, &win);
	else
		fputs("[]", out);
	fputs(",\n  \"window\": ", out);
	if (sampled)
		json_window(out, &win);
	else
		fputs("null", out);
	fputs("\n}\n", out);
}

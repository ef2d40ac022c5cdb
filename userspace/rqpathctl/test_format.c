// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: human and JSON output (rq_format.c).  Every JSON document is
 * run through a small strict validator, then checked for its keys.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "recorded_status.h"
#include "rq_format.h"

/* ---- a strict JSON validator (RFC 8259 grammar, no semantics) --------- */

static const char *json_ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

static const char *json_value(const char *p, int depth);

static const char *json_string_end(const char *p)
{
	if (*p++ != '"')
		return NULL;
	while (*p != '"') {
		if ((unsigned char)*p < 0x20)
			return NULL;
		if (*p == '\\') {
			p++;
			if (*p == 'u') {
				int i;

				for (i = 1; i <= 4; i++)
					if (!strchr("0123456789abcdefABCDEF",
						    p[i]) || !p[i])
						return NULL;
				p += 4;
			} else if (!*p || !strchr("\"\\/bfnrt", *p)) {
				return NULL;
			}
		}
		p++;
	}
	return p + 1;
}

static const char *json_number_end(const char *p)
{
	const char *start;

	if (*p == '-')
		p++;
	start = p;
	while (*p >= '0' && *p <= '9')
		p++;
	if (p == start || (*start == '0' && p - start > 1))
		return NULL;
	if (*p == '.') {
		start = ++p;
		while (*p >= '0' && *p <= '9')
			p++;
		if (p == start)
			return NULL;
	}
	return p;
}

static const char *json_container(const char *p, int depth, char close)
{
	p = json_ws(p + 1);
	if (*p == close)
		return p + 1;
	for (;;) {
		if (close == '}') {
			p = json_string_end(json_ws(p));
			if (!p)
				return NULL;
			p = json_ws(p);
			if (*p++ != ':')
				return NULL;
		}
		p = json_value(p, depth + 1);
		if (!p)
			return NULL;
		p = json_ws(p);
		if (*p == close)
			return p + 1;
		if (*p++ != ',')
			return NULL;
	}
}

static const char *json_value(const char *p, int depth)
{
	if (depth > 32)
		return NULL;
	p = json_ws(p);
	switch (*p) {
	case '{':
		return json_container(p, depth, '}');
	case '[':
		return json_container(p, depth, ']');
	case '"':
		return json_string_end(p);
	case 't':
		return strncmp(p, "true", 4) ? NULL : p + 4;
	case 'f':
		return strncmp(p, "false", 5) ? NULL : p + 5;
	case 'n':
		return strncmp(p, "null", 4) ? NULL : p + 4;
	default:
		return json_number_end(p);
	}
}

static void assert_valid_json(const char *text)
{
	const char *end = json_value(text, 0);

	if (!end || *json_ws(end))
		fail_msg("invalid JSON:\n%s", text);
}

static void assert_contains(const char *text, const char *needle)
{
	if (!strstr(text, needle))
		fail_msg("'%s' not found in:\n%s", needle, text);
}

/* ---- capturing output ---------------------------------------------------- */

static char *captured;
static size_t captured_len;

static FILE *capture(void)
{
	FILE *out;

	free(captured);
	captured = NULL;
	out = open_memstream(&captured, &captured_len);
	assert_non_null(out);
	return out;
}

static const char *done(FILE *out)
{
	fclose(out);
	return captured;
}

static int teardown(void **state)
{
	(void)state;
	free(captured);
	captured = NULL;
	return 0;
}

static struct rq_status st;

static void parse(const char *line)
{
	char err[RQ_ERR_LEN];

	if (rq_status_parse(line, &st, err, sizeof(err)))
		fail_msg("%s", err);
}

/* ---- status ------------------------------------------------------------------- */

static void status_json_is_complete(void **state)
{
	FILE *out = capture();
	const char *json;

	(void)state;
	parse(STATUS_README_EXAMPLE);
	rq_status_print_json(out, "rq0", &st);
	json = done(out);
	assert_valid_json(json);
	assert_contains(json, "\"schema\": \"rqpathctl.status/1\"");
	assert_contains(json, "\"device\": \"rq0\"");
	assert_contains(json, "\"nr_paths\": 2");
	assert_contains(json, "{\"dev\": \"8:16\", \"major\": 8, \"minor\": 16, "
			"\"state\": \"active\", \"fail_count\": 0, "
			"\"dispatched\": 1520}");
	assert_contains(json, "{\"dev\": \"8:32\", \"major\": 8, \"minor\": 32, "
			"\"state\": \"failed\", \"fail_count\": 1, "
			"\"dispatched\": 1498}");
	assert_contains(json, "\"queue_if_no_path\": false");
	assert_contains(json, "\"in_flight\": 3");
	assert_contains(json, "\"busy_since_completion\": 0");
	assert_contains(json, "\"no_path_requeues\": 0");
	assert_contains(json, "\"no_clone_requeues\": 0");
	assert_contains(json, "\"nr_ops\": 6");
	assert_contains(json, "\"write\": {\"mapped\": 3006, \"busy\": 40, "
			"\"completed\": 2966, \"errors\": 1}");
	assert_contains(json, "\"other\": {\"mapped\": 0");
	assert_contains(json, "\"totals\": {\"mapped\": 3018, \"busy\": 40, "
			"\"completed\": 2978, \"errors\": 1}");
	assert_contains(json, "\"nr_extra_fields\": 0");
	assert_contains(json, "\"extra_fields\": []");
}

static void status_json_keeps_unknowns(void **state)
{
	FILE *out = capture();
	const char *json;

	(void)state;
	parse(STATUS_SEVEN_OPS_AND_EXTRA);
	rq_status_print_json(out, "rq0", &st);
	json = done(out);
	assert_valid_json(json);
	assert_contains(json, "\"nr_ops\": 7");
	assert_contains(json, "\"zone_append\": {\"mapped\": 0");
	assert_contains(json, "\"nr_extra_fields\": 2");
	assert_contains(json, "\"extra_fields\": [\"future_field\", \"99\"]");
}

static void status_json_with_queueing(void **state)
{
	FILE *out = capture();
	const char *json;

	(void)state;
	parse(STATUS_ALL_FAILED_QUEUEING);
	rq_status_print_json(out, "rq0", &st);
	json = done(out);
	assert_valid_json(json);
	assert_contains(json, "\"queue_if_no_path\": true");
	assert_contains(json, "\"no_path_requeues\": 5230");
}

static void json_strings_are_escaped(void **state)
{
	FILE *out = capture();
	const char *json;

	(void)state;
	rq_json_string(out, "a\"b\\c\nd\te\x01" "f");
	json = done(out);
	assert_string_equal(json, "\"a\\\"b\\\\c\\nd\\te\\u0001f\"");
	assert_valid_json(json);

	out = capture();
	parse(STATUS_IDLE_ONE_PATH);
	rq_status_print_json(out, "odd\"name", &st);
	json = done(out);
	assert_valid_json(json);
	assert_contains(json, "\"device\": \"odd\\\"name\"");
}

static void status_human_readable(void **state)
{
	FILE *out = capture();
	const char *text;

	(void)state;
	parse(STATUS_README_EXAMPLE);
	rq_status_print_human(out, "rq0", &st);
	text = done(out);
	assert_contains(text, "rq0: 2 paths, queue_if_no_path off, in_flight 3");
	assert_contains(text, "requeues: no_path 0, no_clone 0");
	assert_contains(text, "8:16           active");
	assert_contains(text, "8:32           FAILED             1         1498");
	assert_contains(text, "write                  3006           40         "
			"2966            1");
	assert_contains(text, "total                  3018");
	assert_null(strstr(text, "note:"));
}

static void status_human_notes_unknowns(void **state)
{
	FILE *out = capture();
	const char *text;

	(void)state;
	parse(STATUS_SEVEN_OPS_AND_EXTRA);
	rq_status_print_human(out, "rq0", &st);
	text = done(out);
	assert_contains(text, "zone_append");
	assert_contains(text, "2 trailing fields this version does not know: "
			"future_field 99");
}

/* ---- watch ----------------------------------------------------------------------- */

static struct rq_watch_state w;

static void feed_simple(double t, uint64_t in_flight, uint64_t read_done,
			uint64_t discard_busy)
{
	memset(&st, 0, sizeof(st));
	parse(STATUS_IDLE_ONE_PATH);
	st.in_flight = in_flight;
	st.ops[0].completed = read_done;
	st.ops[0].mapped = read_done;
	st.ops[3].busy = discard_busy;
	st.ops[3].mapped = discard_busy;
	rq_watch_feed(&w, &st, t);
}

/* Reads complete until 1.0 s, then discard spins: livelock at 4.0 s. */
static void make_livelock(void)
{
	struct rq_watch_config cfg;
	int i;

	rq_watch_config_default(&cfg, 3, 0.2);
	rq_watch_init(&w, &cfg);
	for (i = 0; i <= 20; i++)
		feed_simple(i * 0.2, 1, i <= 5 ? (uint64_t)i : 5,
			    i > 5 ? (uint64_t)(i - 5) * 50 : 0);
	assert_int_equal(w.verdict, RQ_VERDICT_LIVELOCK);
}

static void make_drained(void)
{
	struct rq_watch_config cfg;
	int i;

	rq_watch_config_default(&cfg, 3, 0.2);
	rq_watch_init(&w, &cfg);
	for (i = 0; i <= 10; i++)
		feed_simple(i * 0.2, i == 10 ? 0 : 2, (uint64_t)i * 3, 0);
	assert_int_equal(w.verdict, RQ_VERDICT_DRAINED);
}

static void make_stall(void)
{
	struct rq_watch_config cfg;
	int i;

	rq_watch_config_default(&cfg, 3, 0.2);
	rq_watch_init(&w, &cfg);
	for (i = 0; i <= 25; i++)
		feed_simple(i * 0.2, 4, 100, 7);
	assert_true(rq_watch_is_stalled(&w));
}

static struct rq_watch_summary summary(enum rq_outcome outcome)
{
	struct rq_watch_summary sum;

	memset(&sum, 0, sizeof(sum));
	sum.device = "rq0";
	sum.outcome = outcome;
	sum.elapsed_s = w.prev.t + 0.01;
	sum.interval_ms = 200;
	sum.state = &w;
	return sum;
}

/* A watch summary's JSON, checked to be well-formed before any match. */
static const char *watch_json(const struct rq_watch_summary *sum)
{
	FILE *out = capture();
	const char *json;

	rq_watch_print_json(out, sum);
	json = done(out);
	assert_valid_json(json);
	return json;
}

static const char *watch_report(const struct rq_watch_summary *sum)
{
	FILE *out = capture();

	rq_watch_print_report(out, sum);
	return done(out);
}

static void watch_json_livelock(void **state)
{
	struct rq_watch_summary sum;
	const char *json;

	(void)state;
	make_livelock();
	sum = summary(RQ_OUTCOME_LIVELOCK);
	json = watch_json(&sum);
	assert_contains(json, "\"schema\": \"rqpathctl.watch/1\"");
	assert_contains(json, "\"device\": \"rq0\"");
	assert_contains(json, "\"verdict\": \"livelock\"");
	assert_contains(json, "\"exit_code\": 3");
	assert_contains(json, "\"error\": null");
	assert_contains(json, "\"elapsed_s\": 4.010");
	assert_contains(json, "\"samples\": 21");
	assert_contains(json, "\"counter_resets\": 0");
	assert_contains(json, "\"config\": {\"interval_ms\": 200, "
			"\"stall_s\": 3.000, \"busy_quiet_s\": 1.500, "
			"\"timeout_s\": null}");
	assert_contains(json, "\"in_flight\": 1");
	assert_contains(json, "\"phase\": \"livelock\"");
	assert_contains(json, "\"stall_start_s\": 1.000");
	assert_contains(json, "\"decision_s\": 4.000");
	assert_contains(json, "\"detection_latency_s\": 3.000");
	assert_contains(json, "\"stuck_ops\": [\"discard\"]");
	assert_contains(json, "\"window\": {\"start_s\": 1.000, "
			"\"end_s\": 4.000, \"duration_s\": 3.000");
	assert_contains(json, "\"total\": {\"mapped\": 750, \"busy\": 750, "
			"\"completed\": 0, \"errors\": 0}");
	assert_contains(json, "\"discard\": {\"mapped\": 750, \"busy\": 750, "
			"\"completed\": 0, \"errors\": 0}");
	assert_contains(json, "\"read\": {\"mapped\": 0, \"busy\": 0, "
			"\"completed\": 0, \"errors\": 0}");
}

static void watch_json_drained(void **state)
{
	struct rq_watch_summary sum;
	const char *json;

	(void)state;
	make_drained();
	sum = summary(RQ_OUTCOME_DRAINED);
	sum.has_timeout = true;
	sum.timeout_s = 10;
	json = watch_json(&sum);
	assert_contains(json, "\"verdict\": \"drained\"");
	assert_contains(json, "\"exit_code\": 0");
	assert_contains(json, "\"timeout_s\": 10.000");
	assert_contains(json, "\"in_flight\": 0");
	assert_contains(json, "\"detection_latency_s\": null");
	assert_contains(json, "\"stall_start_s\": null");
	assert_contains(json, "\"stuck_ops\": []");
	assert_contains(json, "\"window\": {\"start_s\": 0.000, "
			"\"end_s\": 2.000");
	assert_contains(json, "\"total\": {\"mapped\": 30, \"busy\": 0, "
			"\"completed\": 30, \"errors\": 0}");
}

static void watch_json_stall(void **state)
{
	struct rq_watch_summary sum;
	const char *json;

	(void)state;
	make_stall();
	sum = summary(rq_outcome_on_timeout(&w));
	json = watch_json(&sum);
	assert_contains(json, "\"verdict\": \"stall\"");
	assert_contains(json, "\"exit_code\": 4");
	assert_contains(json, "\"phase\": \"stalled\"");
	assert_contains(json, "\"stuck_ops\": []");
}

static void watch_json_error_before_any_sample(void **state)
{
	struct rq_watch_config cfg;
	struct rq_watch_summary sum;
	const char *json;

	(void)state;
	rq_watch_config_default(&cfg, 3, 0.2);
	rq_watch_init(&w, &cfg);
	sum = summary(RQ_OUTCOME_ERROR);
	sum.error = "device vanished";
	json = watch_json(&sum);
	assert_contains(json, "\"verdict\": \"error\"");
	assert_contains(json, "\"exit_code\": 1");
	assert_contains(json, "\"error\": \"device vanished\"");
	assert_contains(json, "\"samples\": 0");
	assert_contains(json, "\"in_flight\": null");
	assert_contains(json, "\"window\": null");

	assert_contains(watch_report(&sum), "error rq0: no status sample was taken: "
			"device vanished");
}

static void watch_report_livelock(void **state)
{
	struct rq_watch_summary sum;
	const char *text;

	(void)state;
	make_livelock();
	sum = summary(RQ_OUTCOME_LIVELOCK);
	text = watch_report(&sum);
	assert_contains(text, "LIVELOCK on rq0: 1 request(s) in flight, "
			"busy +750 while completed +0 over 3.00 s "
			"(1.00 s .. 4.00 s)");
	assert_contains(text, "detection latency: 3.00 s");
	assert_contains(text, "stuck op(s): discard (busy +750)");
	assert_contains(text, "counter deltas 1.00 s .. 4.00 s:");
	assert_contains(text, "discard                +750         +750"
			"           +0           +0");
}

static void watch_report_other_outcomes(void **state)
{
	struct rq_watch_summary sum;

	(void)state;
	make_stall();
	sum = summary(RQ_OUTCOME_STALL);
	assert_contains(watch_report(&sum), "STALL on rq0: 4 request(s) in flight, no "
			"completion for 5.00 s and busy flat");

	sum = summary(RQ_OUTCOME_TIMEOUT);
	assert_contains(watch_report(&sum), "TIMEOUT on rq0: no decision after 5.01 s "
			"(in_flight 4, phase stalled)");

	make_drained();
	sum = summary(RQ_OUTCOME_DRAINED);
	assert_contains(watch_report(&sum), "DRAINED rq0: in_flight reached 0 at 2.00 s");
}

static void progress_line(void **state)
{
	struct rq_sample before;
	FILE *out;

	(void)state;
	make_livelock();
	out = capture();
	rq_watch_print_progress(out, &w, NULL);
	assert_string_equal(done(out), "[    4.00s] in_flight=1 busy=750 (+0) "
			    "completed=5 (+0) flat=3.0s phase=livelock\n");

	before = w.spin_start;
	out = capture();
	rq_watch_print_progress(out, &w, &before);
	assert_contains(done(out), "busy=750 (+750) completed=5 (+0)");
}

/* ---- watch --follow -------------------------------------------------- */

static void start_follow(void)
{
	struct rq_watch_config cfg;

	rq_watch_config_default(&cfg, 3, 0.2);
	cfg.follow = true;
	rq_watch_init(&w, &cfg);
}

/*
 * Reads progress to 1.0 s, idle 1.2 .. 2.0 s (5 samples), reads again to
 * 3.0 s, idle to 4.0 s (5 samples): no verdict, idle at the end.
 */
static void make_follow_quiet(void)
{
	uint64_t done_reads = 0;
	int i;

	start_follow();
	for (i = 0; i <= 20; i++) {
		bool busy = i <= 5 || (i >= 11 && i <= 15);

		if (busy)
			done_reads += 4;
		feed_simple(i * 0.2, busy ? 3 : 0, done_reads, 0);
	}
	assert_int_equal(w.verdict, RQ_VERDICT_NONE);
	assert_int_equal(w.phase, RQ_PHASE_IDLE);
	assert_int_equal(w.nr_idle, 10);
}

/* Idle at first, then in flight with nothing moving for 5 s: a stall. */
static void make_follow_stall(void)
{
	int i;

	start_follow();
	for (i = 0; i <= 5; i++)
		feed_simple(i * 0.2, 0, 100, 7);
	for (; i <= 30; i++)
		feed_simple(i * 0.2, 4, 100, 7);
	assert_int_equal(w.verdict, RQ_VERDICT_NONE);
	assert_true(rq_watch_is_stalled(&w));
}

/* Idle until 1.0 s, then discard spins: livelock 3 s after the idle. */
static void make_follow_livelock(void)
{
	int i;

	start_follow();
	for (i = 0; i <= 20; i++)
		feed_simple(i * 0.2, i <= 5 ? 0 : 1, 5,
			    i > 5 ? (uint64_t)(i - 5) * 50 : 0);
	assert_int_equal(w.verdict, RQ_VERDICT_LIVELOCK);
}

static void follow_outcome_on_timeout(void **state)
{
	int i;

	(void)state;
	assert_string_equal(rq_outcome_name(RQ_OUTCOME_QUIET), "quiet");
	assert_int_equal(rq_outcome_exit_code(RQ_OUTCOME_QUIET), 0);

	make_follow_quiet();
	assert_int_equal(rq_outcome_on_timeout(&w), RQ_OUTCOME_QUIET);
	make_follow_stall();
	assert_int_equal(rq_outcome_on_timeout(&w), RQ_OUTCOME_STALL);

	/* spinning, but not for --stall yet: no livelock in the watch */
	start_follow();
	for (i = 0; i <= 10; i++)
		feed_simple(i * 0.2, 1, 5, (uint64_t)i * 50);
	assert_int_equal(w.phase, RQ_PHASE_SPINNING);
	assert_int_equal(rq_outcome_on_timeout(&w), RQ_OUTCOME_QUIET);

	/* in flight, flat for less than --stall: not a stall yet */
	start_follow();
	for (i = 0; i <= 10; i++)
		feed_simple(i * 0.2, 4, 100, 7);
	assert_int_equal(rq_outcome_on_timeout(&w), RQ_OUTCOME_QUIET);
}

static void watch_json_follow_quiet(void **state)
{
	struct rq_watch_summary sum;
	const char *json;

	(void)state;
	make_follow_quiet();
	sum = summary(rq_outcome_on_timeout(&w));
	sum.has_timeout = true;
	sum.timeout_s = 4;
	json = watch_json(&sum);
	assert_contains(json, "\"verdict\": \"quiet\"");
	assert_contains(json, "\"exit_code\": 0");
	assert_contains(json, "\"error\": null");
	assert_contains(json, "\"samples\": 21");
	assert_contains(json, "\"counter_resets\": 0,\n"
			"  \"idle_samples\": 10,");
	/* config's text is as it was before follow mode */
	assert_contains(json, "\"config\": {\"interval_ms\": 200, "
			"\"stall_s\": 3.000, \"busy_quiet_s\": 1.500, "
			"\"timeout_s\": 4.000},\n  \"follow\": true,");
	assert_contains(json, "\"in_flight\": 0");
	assert_contains(json, "\"phase\": \"idle\"");
	assert_contains(json, "\"stall_start_s\": null");
	assert_contains(json, "\"detection_latency_s\": null");
	assert_contains(json, "\"stuck_ops\": []");
	/* the whole watch, idle gaps included */
	assert_contains(json, "\"window\": {\"start_s\": 0.000, "
			"\"end_s\": 4.000, \"duration_s\": 4.000");
	assert_contains(json, "\"total\": {\"mapped\": 40, \"busy\": 0, "
			"\"completed\": 40, \"errors\": 0}");
}

static void watch_json_follow_stall_and_livelock(void **state)
{
	struct rq_watch_summary sum;
	const char *json;

	(void)state;
	make_follow_stall();
	sum = summary(rq_outcome_on_timeout(&w));
	json = watch_json(&sum);
	assert_contains(json, "\"verdict\": \"stall\"");
	assert_contains(json, "\"exit_code\": 4");
	assert_contains(json, "\"idle_samples\": 6");
	assert_contains(json, "\"follow\": true");
	assert_contains(json, "\"phase\": \"stalled\"");
	/* no progress since the last idle sample */
	assert_contains(json, "\"window\": {\"start_s\": 1.000, "
			"\"end_s\": 6.000");

	make_follow_livelock();
	sum = summary(RQ_OUTCOME_LIVELOCK);
	json = watch_json(&sum);
	assert_contains(json, "\"verdict\": \"livelock\"");
	assert_contains(json, "\"exit_code\": 3");
	assert_contains(json, "\"idle_samples\": 6");
	assert_contains(json, "\"follow\": true");
	assert_contains(json, "\"stall_start_s\": 1.000");
	assert_contains(json, "\"decision_s\": 4.000");
	assert_contains(json, "\"detection_latency_s\": 3.000");
	assert_contains(json, "\"stuck_ops\": [\"discard\"]");
}

/* Without --follow the two new keys are there, with neutral values. */
static void watch_json_without_follow(void **state)
{
	struct rq_watch_summary sum;
	const char *json;

	(void)state;
	make_drained();
	sum = summary(RQ_OUTCOME_DRAINED);
	json = watch_json(&sum);
	assert_contains(json, "\"idle_samples\": 0");
	assert_contains(json, "\"follow\": false");
	assert_contains(json, "\"phase\": \"drained\"");

	/* and before any sample */
	rq_watch_init(&w, &w.cfg);
	sum = summary(RQ_OUTCOME_ERROR);
	sum.error = "device vanished";
	json = watch_json(&sum);
	assert_contains(json, "\"idle_samples\": 0");
	assert_contains(json, "\"follow\": false");
}

static void watch_report_follow(void **state)
{
	struct rq_watch_summary sum;
	const char *text;

	(void)state;
	make_follow_quiet();
	sum = summary(RQ_OUTCOME_QUIET);
	text = watch_report(&sum);
	assert_contains(text, "QUIET on rq0: no livelock in 4.01 s "
			"(in_flight 0, phase idle)\n");
	assert_contains(text, "follow mode: 10 idle sample(s) (in_flight 0), "
			"idle did not end the watch\n");
	assert_contains(text, "counter deltas 0.00 s .. 4.00 s:");

	make_follow_stall();
	sum = summary(RQ_OUTCOME_STALL);
	text = watch_report(&sum);
	assert_contains(text, "STALL on rq0: 4 request(s) in flight, no "
			"completion for 5.00 s and busy flat");
	assert_contains(text, "follow mode: 6 idle sample(s)");

	/* without --follow the report has no such line */
	make_livelock();
	sum = summary(RQ_OUTCOME_LIVELOCK);
	assert_null(strstr(watch_report(&sum), "follow"));
}

static void progress_line_idle(void **state)
{
	FILE *out;

	(void)state;
	make_follow_quiet();
	out = capture();
	rq_watch_print_progress(out, &w, NULL);
	assert_string_equal(done(out), "[    4.00s] in_flight=0 busy=0 (+0) "
			    "completed=44 (+0) flat=0.0s phase=idle\n");
}

static void outcomes_map_to_exit_codes(void **state)
{
	(void)state;
	assert_int_equal(rq_outcome_exit_code(RQ_OUTCOME_DRAINED), 0);
	assert_int_equal(rq_outcome_exit_code(RQ_OUTCOME_LIVELOCK), 3);
	assert_int_equal(rq_outcome_exit_code(RQ_OUTCOME_TIMEOUT), 4);
	assert_int_equal(rq_outcome_exit_code(RQ_OUTCOME_STALL), 4);
	assert_int_equal(rq_outcome_exit_code(RQ_OUTCOME_ERROR), 1);
	assert_int_equal(rq_outcome_exit_code(RQ_OUTCOME_INTERRUPTED), 1);
	assert_string_equal(rq_outcome_name(RQ_OUTCOME_INTERRUPTED),
			    "interrupted");
	make_drained();
	assert_int_equal(rq_outcome_on_timeout(&w), RQ_OUTCOME_TIMEOUT);
	make_stall();
	assert_int_equal(rq_outcome_on_timeout(&w), RQ_OUTCOME_STALL);
}

static void validator_rejects_bad_json(void **state)
{
	(void)state;
	assert_null(json_value("{\"a\": 1,}", 0));
	assert_null(json_value("{\"a\" 1}", 0));
	assert_null(json_value("[1 2]", 0));
	assert_null(json_value("\"a\x01\"", 0));
	assert_null(json_value("01", 0));
	assert_null(json_value("nan", 0));
	assert_non_null(json_value("{\"a\": [1, -2.5, true, null, \"\\u00e9\"]}",
				   0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(status_json_is_complete, teardown),
		cmocka_unit_test_teardown(status_json_keeps_unknowns, teardown),
		cmocka_unit_test_teardown(status_json_with_queueing, teardown),
		cmocka_unit_test_teardown(json_strings_are_escaped, teardown),
		cmocka_unit_test_teardown(status_human_readable, teardown),
		cmocka_unit_test_teardown(status_human_notes_unknowns, teardown),
		cmocka_unit_test_teardown(watch_json_livelock, teardown),
		cmocka_unit_test_teardown(watch_json_drained, teardown),
		cmocka_unit_test_teardown(watch_json_stall, teardown),
		cmocka_unit_test_teardown(watch_json_error_before_any_sample,
					  teardown),
		cmocka_unit_test_teardown(watch_report_livelock, teardown),
		cmocka_unit_test_teardown(watch_report_other_outcomes, teardown),
		cmocka_unit_test_teardown(progress_line, teardown),
		cmocka_unit_test(follow_outcome_on_timeout),
		cmocka_unit_test_teardown(watch_json_follow_quiet, teardown),
		cmocka_unit_test_teardown(watch_json_follow_stall_and_livelock,
					  teardown),
		cmocka_unit_test_teardown(watch_json_without_follow, teardown),
		cmocka_unit_test_teardown(watch_report_follow, teardown),
		cmocka_unit_test_teardown(progress_line_idle, teardown),
		cmocka_unit_test(outcomes_map_to_exit_codes),
		cmocka_unit_test(validator_rejects_bad_json),
	};

	return cmocka_run_group_tests_name("rq_format", tests, NULL, NULL);
}

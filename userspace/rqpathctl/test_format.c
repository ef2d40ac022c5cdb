// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: human and JSON output (rq_format.c).  Every JSON document is
 * parsed back with json-c's strict tokener (common/rq_json_check.h), then
 * checked key by key.
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
#include "rq_json_check.h"

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

static json_object *status_json(const char *line, const char *device)
{
	FILE *out = capture();

	parse(line);
	assert_int_equal(rq_status_print_json(out, device, &st), 0);
	return json_parse_strict(done(out));
}

static void assert_counters(json_object *j, const char *path, uint64_t mapped,
			    uint64_t busy, uint64_t completed, uint64_t errors)
{
	char key[128];

	snprintf(key, sizeof(key), "%s.mapped", path);
	assert_json_u64(j, key, mapped);
	snprintf(key, sizeof(key), "%s.busy", path);
	assert_json_u64(j, key, busy);
	snprintf(key, sizeof(key), "%s.completed", path);
	assert_json_u64(j, key, completed);
	snprintf(key, sizeof(key), "%s.errors", path);
	assert_json_u64(j, key, errors);
}

static void status_json_is_complete(void **state)
{
	json_object *j;
	char keys[512];

	(void)state;
	j = status_json(STATUS_README_EXAMPLE, "rq0");
	/* the keys scripts read, in the order they always came */
	json_keys(j, "", keys, sizeof(keys));
	assert_string_equal(keys, "schema device nr_paths paths "
			    "queue_if_no_path in_flight busy_since_completion "
			    "no_path_requeues no_clone_requeues nr_ops ops "
			    "totals nr_extra_fields extra_fields op_details");
	assert_json_str(j, "schema", "rqpathctl.status/1");
	assert_json_str(j, "device", "rq0");
	assert_json_u64(j, "nr_paths", 2);
	assert_int_equal(json_len(j, "paths"), 2);
	json_keys(j, "paths.0", keys, sizeof(keys));
	assert_string_equal(keys, "dev major minor state fail_count "
			    "dispatched");
	assert_json_str(j, "paths.0.dev", "8:16");
	assert_json_u64(j, "paths.0.major", 8);
	assert_json_u64(j, "paths.0.minor", 16);
	assert_json_str(j, "paths.0.state", "active");
	assert_json_u64(j, "paths.0.fail_count", 0);
	assert_json_u64(j, "paths.0.dispatched", 1520);
	assert_json_str(j, "paths.1.state", "failed");
	assert_json_u64(j, "paths.1.fail_count", 1);
	assert_json_bool(j, "queue_if_no_path", false);
	assert_json_u64(j, "in_flight", 3);
	assert_json_u64(j, "busy_since_completion", 0);
	assert_json_u64(j, "no_path_requeues", 0);
	assert_json_u64(j, "no_clone_requeues", 0);
	assert_json_u64(j, "nr_ops", 6);
	json_keys(j, "ops", keys, sizeof(keys));
	assert_string_equal(keys, "read write flush discard write_zeroes "
			    "other");
	assert_counters(j, "ops.write", 3006, 40, 2966, 1);
	assert_counters(j, "ops.other", 0, 0, 0, 0);
	assert_counters(j, "totals", 3018, 40, 2978, 1);
	assert_json_u64(j, "nr_extra_fields", 0);
	assert_int_equal(json_len(j, "extra_fields"), 0);
	/* an older target: what it does not report is null, not 0 */
	assert_json_bool(j, "op_details", false);
	assert_json_null(j, "ops.write.refused");
	assert_json_null(j, "ops.write.busy_since_completion");
	assert_json_null(j, "totals.refused");
	json_object_put(j);
}

static void status_json_op_details(void **state)
{
	json_object *j;
	char keys[256];

	(void)state;
	j = status_json(STATUS_V2_DISCARD_SPIN_UNDER_RW, "rq0");
	assert_json_bool(j, "op_details", true);
	json_keys(j, "ops.discard", keys, sizeof(keys));
	assert_string_equal(keys, "mapped busy completed errors refused "
			    "busy_since_completion");
	assert_counters(j, "ops.discard", 46316, 46315, 1, 0);
	assert_json_u64(j, "ops.discard.refused", 0);
	assert_json_u64(j, "ops.discard.busy_since_completion", 46301);
	assert_json_u64(j, "ops.write.busy_since_completion", 3);
	assert_json_u64(j, "busy_since_completion", 3);
	json_keys(j, "totals", keys, sizeof(keys));
	assert_string_equal(keys, "mapped busy completed errors refused");
	assert_json_u64(j, "totals.refused", 0);
	json_object_put(j);

	j = status_json(STATUS_V2_README_EXAMPLE, "rq0");
	assert_json_u64(j, "ops.write.refused", 1);
	assert_json_u64(j, "totals.refused", 1);
	assert_json_u64(j, "totals.mapped", 3019);
	json_object_put(j);
}

static void status_json_keeps_unknowns(void **state)
{
	json_object *j;

	(void)state;
	j = status_json(STATUS_V2_SEVEN_OPS_AND_EXTRA, "rq0");
	assert_json_u64(j, "nr_ops", 7);
	assert_counters(j, "ops.zone_append", 0, 0, 0, 0);
	assert_json_u64(j, "ops.zone_append.refused", 0);
	assert_json_u64(j, "nr_extra_fields", 2);
	assert_int_equal(json_len(j, "extra_fields"), 2);
	assert_json_str(j, "extra_fields.0", "future_field");
	assert_json_str(j, "extra_fields.1", "99");
	json_object_put(j);
}

static void status_json_with_queueing(void **state)
{
	json_object *j;

	(void)state;
	j = status_json(STATUS_ALL_FAILED_QUEUEING, "rq0");
	assert_json_bool(j, "queue_if_no_path", true);
	assert_json_u64(j, "no_path_requeues", 5230);
	assert_json_u64(j, "in_flight", 17);
	json_object_put(j);
}

static void json_strings_are_escaped(void **state)
{
	json_object *j;

	(void)state;
	j = status_json(STATUS_IDLE_ONE_PATH, "odd\"name\\/\n\t\x01" "f");
	assert_json_str(j, "device", "odd\"name\\/\n\t\x01" "f");
	json_object_put(j);
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
	/* an older target: the columns it cannot fill say so */
	assert_contains(text, "REFUSED BUSY_SINCE_COMPL\n");
	assert_contains(text, "2966            1            -                -\n");
	assert_contains(text, "note: the target reports no per-op refused");

	out = capture();
	parse(STATUS_V2_DISCARD_SPIN_UNDER_RW);
	rq_status_print_human(out, "rq0", &st);
	text = done(out);
	assert_contains(text, "discard               46316        46315"
			"            1            0            0            "
			"46301\n");
	/* no sum of a gauge: the device's own is in the first line */
	assert_contains(text, "total                 62385        46358"
			"        16019            0            0"
			"                -\n");
	assert_contains(text, "busy_since_completion 3\n");
	assert_null(strstr(text, "note:"));
}

static void status_human_notes_unknowns(void **state)
{
	FILE *out = capture();
	const char *text;

	(void)state;
	parse(STATUS_V2_SEVEN_OPS_AND_EXTRA);
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

/* A watch summary's JSON, parsed strictly; the caller puts it. */
static json_object *watch_json(const struct rq_watch_summary *sum)
{
	FILE *out = capture();

	assert_int_equal(rq_watch_print_json(out, sum), 0);
	return json_parse_strict(done(out));
}

static const char *watch_report(const struct rq_watch_summary *sum)
{
	FILE *out = capture();

	rq_watch_print_report(out, sum);
	return done(out);
}

static void assert_window_counters(json_object *j, const char *path,
				   uint64_t mapped, uint64_t busy,
				   uint64_t completed)
{
	char key[128];

	snprintf(key, sizeof(key), "window.%s.mapped", path);
	assert_json_u64(j, key, mapped);
	snprintf(key, sizeof(key), "window.%s.busy", path);
	assert_json_u64(j, key, busy);
	snprintf(key, sizeof(key), "window.%s.completed", path);
	assert_json_u64(j, key, completed);
	snprintf(key, sizeof(key), "window.%s.errors", path);
	assert_json_u64(j, key, 0);
}

static void watch_json_livelock(void **state)
{
	struct rq_watch_summary sum;
	json_object *j;
	char keys[640];

	(void)state;
	make_livelock();
	sum = summary(RQ_OUTCOME_LIVELOCK);
	j = watch_json(&sum);
	/* the keys scripts read, in the order they always came, then new */
	json_keys(j, "", keys, sizeof(keys));
	assert_string_equal(keys, "schema device verdict exit_code error "
			    "elapsed_s samples counter_resets idle_samples "
			    "max_flat_s config follow in_flight phase "
			    "stall_start_s decision_s detection_latency_s "
			    "stuck_ops window rule max_op_spin_s decided_op "
			    "op_busy_since_completion");
	json_keys(j, "config", keys, sizeof(keys));
	assert_string_equal(keys, "interval_ms stall_s busy_quiet_s timeout_s");
	assert_json_str(j, "schema", "rqpathctl.watch/1");
	assert_json_str(j, "device", "rq0");
	assert_json_str(j, "verdict", "livelock");
	assert_json_i64(j, "exit_code", 1);
	assert_json_null(j, "error");
	assert_json_double(j, "elapsed_s", 4.01);
	assert_json_u64(j, "samples", 21);
	assert_json_u64(j, "counter_resets", 0);
	assert_json_u64(j, "config.interval_ms", 200);
	assert_json_double(j, "config.stall_s", 3.0);
	assert_json_double(j, "config.busy_quiet_s", 1.5);
	assert_json_null(j, "config.timeout_s");
	assert_json_u64(j, "in_flight", 1);
	assert_json_str(j, "phase", "livelock");
	assert_json_double(j, "stall_start_s", 1.0);
	assert_json_double(j, "decision_s", 4.0);
	assert_json_double(j, "detection_latency_s", 3.0);
	assert_int_equal(json_len(j, "stuck_ops"), 1);
	assert_json_str(j, "stuck_ops.0", "discard");
	assert_json_double(j, "window.start_s", 1.0);
	assert_json_double(j, "window.end_s", 4.0);
	assert_json_double(j, "window.duration_s", 3.0);
	assert_window_counters(j, "total", 750, 750, 0);
	assert_window_counters(j, "ops.discard", 750, 750, 0);
	assert_window_counters(j, "ops.read", 0, 0, 0);
	/* an older target's lines: the rule on the sums, no per-op data */
	assert_json_str(j, "rule", "totals");
	assert_json_null(j, "max_op_spin_s");
	assert_json_null(j, "decided_op");
	assert_json_null(j, "op_busy_since_completion");
	assert_json_null(j, "window.ops.discard.refused");
	assert_json_null(j, "window.total.refused");
	/* times keep their millisecond text */
	assert_contains(captured, "\"stall_s\": 3.000");
	json_object_put(j);
}

static void watch_json_drained(void **state)
{
	struct rq_watch_summary sum;
	json_object *j;

	(void)state;
	make_drained();
	sum = summary(RQ_OUTCOME_DRAINED);
	sum.has_timeout = true;
	sum.timeout_s = 10;
	j = watch_json(&sum);
	assert_json_str(j, "verdict", "drained");
	assert_json_i64(j, "exit_code", 0);
	assert_json_double(j, "config.timeout_s", 10.0);
	assert_json_u64(j, "in_flight", 0);
	assert_json_null(j, "detection_latency_s");
	assert_json_null(j, "stall_start_s");
	assert_json_null(j, "decision_s");
	assert_int_equal(json_len(j, "stuck_ops"), 0);
	assert_json_double(j, "window.start_s", 0.0);
	assert_json_double(j, "window.end_s", 2.0);
	assert_window_counters(j, "total", 30, 0, 30);
	json_object_put(j);
}

static void watch_json_stall(void **state)
{
	struct rq_watch_summary sum;
	json_object *j;

	(void)state;
	make_stall();
	sum = summary(rq_outcome_on_timeout(&w));
	j = watch_json(&sum);
	assert_json_str(j, "verdict", "stall");
	assert_json_i64(j, "exit_code", 4);
	assert_json_str(j, "phase", "stalled");
	assert_int_equal(json_len(j, "stuck_ops"), 0);
	json_object_put(j);
}

static void watch_json_error_before_any_sample(void **state)
{
	struct rq_watch_config cfg;
	struct rq_watch_summary sum;
	json_object *j;

	(void)state;
	rq_watch_config_default(&cfg, 3, 0.2);
	rq_watch_init(&w, &cfg);
	sum = summary(RQ_OUTCOME_ERROR);
	sum.error = "device vanished";
	j = watch_json(&sum);
	assert_json_str(j, "verdict", "error");
	assert_json_i64(j, "exit_code", 3);
	assert_json_str(j, "error", "device vanished");
	assert_json_u64(j, "samples", 0);
	assert_json_null(j, "in_flight");
	assert_json_null(j, "window");
	assert_json_null(j, "rule");
	assert_json_null(j, "op_busy_since_completion");
	json_object_put(j);

	assert_contains(watch_report(&sum), "error rq0: no status sample was taken: "
			"device vanished");
}

/*
 * The per-op rule in the report: a discard livelock while reads and
 * writes complete, on a target with the trailing group.
 */
static void make_per_op_livelock(void)
{
	struct rq_watch_config cfg;
	int i;

	rq_watch_config_default(&cfg, 3, 0.2);
	rq_watch_init(&w, &cfg);
	for (i = 0; i <= 20; i++) {
		parse(STATUS_V2_README_EXAMPLE);
		st.in_flight = 5;
		st.ops[0].completed = st.ops[0].mapped = (uint64_t)i * 10;
		st.ops[1].completed = (uint64_t)i * 8;
		st.ops[1].mapped = st.ops[1].completed + 1;
		st.ops[3].completed = st.ops[3].mapped = 2;
		st.ops[3].busy = i > 5 ? (uint64_t)(i - 5) * 40 : 0;
		st.ops[3].busy_since_completion = st.ops[3].busy;
		st.ops[3].mapped += st.ops[3].busy;
		rq_watch_feed(&w, &st, i * 0.2);
	}
	assert_int_equal(w.verdict, RQ_VERDICT_LIVELOCK);
}

static void watch_json_per_op_livelock(void **state)
{
	struct rq_watch_summary sum;
	json_object *j;

	(void)state;
	make_per_op_livelock();
	sum = summary(RQ_OUTCOME_LIVELOCK);
	j = watch_json(&sum);
	assert_json_str(j, "verdict", "livelock");
	assert_json_str(j, "rule", "per_op");
	assert_json_str(j, "decided_op", "discard");
	assert_json_double(j, "stall_start_s", 1.0);
	assert_json_double(j, "detection_latency_s", 3.0);
	assert_json_double(j, "max_op_spin_s", 3.0);
	/* the sums moved all along: no flat stretch at device level */
	assert_json_double(j, "max_flat_s", 0.0);
	assert_int_equal(json_len(j, "stuck_ops"), 1);
	assert_json_str(j, "stuck_ops.0", "discard");
	assert_json_u64(j, "op_busy_since_completion.discard", 600);
	assert_json_u64(j, "op_busy_since_completion.read", 0);
	assert_window_counters(j, "ops.discard", 600, 600, 0);
	assert_window_counters(j, "ops.read", 150, 0, 150);
	assert_json_u64(j, "window.ops.write.refused", 0);
	assert_json_u64(j, "window.total.refused", 0);
	json_object_put(j);
}

static void watch_report_per_op_livelock(void **state)
{
	struct rq_watch_summary sum;
	const char *text;

	(void)state;
	make_per_op_livelock();
	sum = summary(RQ_OUTCOME_LIVELOCK);
	text = watch_report(&sum);
	assert_contains(text, "LIVELOCK on rq0: 5 request(s) in flight, "
			"busy +600 while completed +270 over 3.00 s");
	assert_contains(text, "per-op rule: discard handed back busy +600 "
			"with no completion of its own\n");
	assert_contains(text, "stuck op(s): discard (busy +600)\n");
	assert_null(strstr(text, "rule: on the sums"));
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
			"           +0           +0            -\n");
	assert_contains(text, "rule: on the sums over all ops");
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

	/* per-op rule: the op that spins, and for how long */
	make_per_op_livelock();
	out = capture();
	rq_watch_print_progress(out, &w, NULL);
	assert_contains(done(out), " flat=0.0s phase=livelock "
			"spin=discard:3.0s\n");
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
	json_object *j;

	(void)state;
	make_follow_quiet();
	sum = summary(rq_outcome_on_timeout(&w));
	sum.has_timeout = true;
	sum.timeout_s = 4;
	j = watch_json(&sum);
	assert_json_str(j, "verdict", "quiet");
	assert_json_i64(j, "exit_code", 0);
	assert_json_null(j, "error");
	assert_json_u64(j, "samples", 21);
	assert_json_u64(j, "counter_resets", 0);
	assert_json_u64(j, "idle_samples", 10);
	assert_json_double(j, "config.timeout_s", 4.0);
	assert_json_bool(j, "follow", true);
	assert_json_u64(j, "in_flight", 0);
	assert_json_str(j, "phase", "idle");
	assert_json_null(j, "stall_start_s");
	assert_json_null(j, "detection_latency_s");
	assert_int_equal(json_len(j, "stuck_ops"), 0);
	/* the whole watch, idle gaps included */
	assert_json_double(j, "window.start_s", 0.0);
	assert_json_double(j, "window.end_s", 4.0);
	assert_json_double(j, "window.duration_s", 4.0);
	assert_window_counters(j, "total", 40, 0, 40);
	json_object_put(j);
}

static void watch_json_follow_stall_and_livelock(void **state)
{
	struct rq_watch_summary sum;
	json_object *j;

	(void)state;
	make_follow_stall();
	sum = summary(rq_outcome_on_timeout(&w));
	j = watch_json(&sum);
	assert_json_str(j, "verdict", "stall");
	assert_json_i64(j, "exit_code", 4);
	assert_json_u64(j, "idle_samples", 6);
	assert_json_bool(j, "follow", true);
	assert_json_str(j, "phase", "stalled");
	/* no progress since the last idle sample */
	assert_json_double(j, "window.start_s", 1.0);
	assert_json_double(j, "window.end_s", 6.0);
	json_object_put(j);

	make_follow_livelock();
	sum = summary(RQ_OUTCOME_LIVELOCK);
	j = watch_json(&sum);
	assert_json_str(j, "verdict", "livelock");
	assert_json_i64(j, "exit_code", 1);
	assert_json_u64(j, "idle_samples", 6);
	assert_json_bool(j, "follow", true);
	assert_json_double(j, "stall_start_s", 1.0);
	assert_json_double(j, "decision_s", 4.0);
	assert_json_double(j, "detection_latency_s", 3.0);
	assert_json_str(j, "stuck_ops.0", "discard");
	json_object_put(j);
}

/* Without --follow the keys are there, with neutral values. */
static void watch_json_without_follow(void **state)
{
	struct rq_watch_summary sum;
	json_object *j;

	(void)state;
	make_drained();
	sum = summary(RQ_OUTCOME_DRAINED);
	j = watch_json(&sum);
	assert_json_u64(j, "idle_samples", 0);
	assert_json_bool(j, "follow", false);
	assert_json_str(j, "phase", "drained");
	json_object_put(j);

	/* and before any sample */
	rq_watch_init(&w, &w.cfg);
	sum = summary(RQ_OUTCOME_ERROR);
	sum.error = "device vanished";
	j = watch_json(&sum);
	assert_json_u64(j, "idle_samples", 0);
	assert_json_bool(j, "follow", false);
	json_object_put(j);
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

/* ---- watch --samples ------------------------------------------------------ */

static const char *sample_line(const char *line, double t)
{
	FILE *out = capture();

	parse(line);
	assert_int_equal(rq_watch_print_sample(out, t, &st), 0);
	return done(out);
}

/* Exactly one line: readers split the file on newlines. */
static json_object *one_line(const char *text)
{
	const char *nl = strchr(text, '\n');

	assert_non_null(nl);
	assert_string_equal(nl + 1, "");
	return json_parse_strict(text);
}

/* The counters as read, ops with all three zero left out, kernel order. */
static void sample_keeps_ops_in_use(void **state)
{
	const char *text;
	json_object *j;
	char keys[256];

	(void)state;
	text = sample_line(STATUS_V2_DISCARD_SPIN_UNDER_RW, 0.2);
	j = one_line(text);
	json_keys(j, "", keys, sizeof(keys));
	assert_string_equal(keys, "t in_flight ops");
	assert_json_double(j, "t", 0.2);
	/* the time with millisecond resolution, as in the watch's JSON */
	assert_non_null(strstr(text, "0.200"));
	assert_json_u64(j, "in_flight", 9);
	json_keys(j, "ops", keys, sizeof(keys));
	assert_string_equal(keys, "read write flush discard");
	assert_int_equal(json_len(j, "ops.discard"), 3);
	assert_json_u64(j, "ops.discard.0", 46316);
	assert_json_u64(j, "ops.discard.1", 46315);
	assert_json_u64(j, "ops.discard.2", 1);
	assert_json_u64(j, "ops.read.0", 8136);
	assert_json_u64(j, "ops.read.1", 12);
	assert_json_u64(j, "ops.read.2", 8120);
	assert_json_u64(j, "ops.flush.2", 2);
	json_object_put(j);
}

/* An idle device: no op in use gives an empty ops object, not a missing key. */
static void sample_of_idle_device(void **state)
{
	json_object *j;
	char keys[256];

	(void)state;
	j = one_line(sample_line(STATUS_IDLE_ONE_PATH, 12.3456));
	assert_json_u64(j, "in_flight", 0);
	json_keys(j, "ops", keys, sizeof(keys));
	assert_string_equal(keys, "");
	assert_json_double(j, "t", 12.346);
	json_object_put(j);
}

/* An op this version does not know is sampled like the others. */
static void sample_of_unknown_op(void **state)
{
	json_object *j;
	char keys[256];

	(void)state;
	j = one_line(sample_line(STATUS_SEVEN_OPS, 1.0));
	json_keys(j, "ops", keys, sizeof(keys));
	assert_string_equal(keys, "read write zone_append");
	assert_json_u64(j, "ops.zone_append.0", 10);
	assert_json_u64(j, "ops.zone_append.1", 6);
	assert_json_u64(j, "ops.zone_append.2", 3);
	json_object_put(j);
}

/* Samples appended one after another make a file of JSON lines. */
static void samples_are_json_lines(void **state)
{
	FILE *out = capture();
	char *copy, *line, *save = NULL;
	int n = 0;

	(void)state;
	parse(STATUS_DISCARD_LIVELOCK);
	assert_int_equal(rq_watch_print_sample(out, 0.0, &st), 0);
	assert_int_equal(rq_watch_print_sample(out, 0.2, &st), 0);
	parse(STATUS_README_EXAMPLE);
	assert_int_equal(rq_watch_print_sample(out, 0.4, &st), 0);
	copy = strdup(done(out));
	assert_non_null(copy);
	for (line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		json_object *j = json_parse_strict(line);

		assert_json_double(j, "t", 0.2 * n);
		json_object_put(j);
		n++;
	}
	free(copy);
	assert_int_equal(n, 3);
}

/* The exit status of every outcome, as the README's table has it. */
static void outcomes_map_to_exit_codes(void **state)
{
	(void)state;
	assert_int_equal(rq_outcome_exit_code(RQ_OUTCOME_DRAINED), 0);
	assert_int_equal(rq_outcome_exit_code(RQ_OUTCOME_QUIET), 0);
	assert_int_equal(rq_outcome_exit_code(RQ_OUTCOME_LIVELOCK), 1);
	assert_int_equal(rq_outcome_exit_code(RQ_OUTCOME_ERROR), 3);
	assert_int_equal(rq_outcome_exit_code(RQ_OUTCOME_TIMEOUT), 4);
	assert_int_equal(rq_outcome_exit_code(RQ_OUTCOME_STALL), 4);
	assert_int_equal(rq_outcome_exit_code(RQ_OUTCOME_INTERRUPTED), 4);
	assert_string_equal(rq_outcome_name(RQ_OUTCOME_INTERRUPTED),
			    "interrupted");
	make_drained();
	assert_int_equal(rq_outcome_on_timeout(&w), RQ_OUTCOME_TIMEOUT);
	make_stall();
	assert_int_equal(rq_outcome_on_timeout(&w), RQ_OUTCOME_STALL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(status_json_is_complete, teardown),
		cmocka_unit_test_teardown(status_json_op_details, teardown),
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
		cmocka_unit_test_teardown(watch_json_per_op_livelock, teardown),
		cmocka_unit_test_teardown(watch_report_per_op_livelock, teardown),
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
		cmocka_unit_test_teardown(sample_keeps_ops_in_use, teardown),
		cmocka_unit_test_teardown(sample_of_idle_device, teardown),
		cmocka_unit_test_teardown(sample_of_unknown_op, teardown),
		cmocka_unit_test_teardown(samples_are_json_lines, teardown),
	};

	return cmocka_run_group_tests_name("rq_format", tests, NULL, NULL);
}

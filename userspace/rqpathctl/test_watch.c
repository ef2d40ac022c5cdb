// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: the watchdog's decision on synthetic counter series
 * (rq_watch.c).  Times are computed as index * step, never accumulated,
 * so the expected decision sample is exact.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "rq_watch.h"

enum { READ, WRITE, FLUSH, DISCARD, WRITE_ZEROES, OTHER, ZONE_APPEND };

static const char *const op_names[] = {
	"read", "write", "flush", "discard", "write_zeroes", "other",
	"zone_append",
};

/* What the target would report at one moment. */
struct counters {
	unsigned int nr_ops;		/* 0 means the usual 6 */
	uint64_t in_flight;
	uint64_t busy[7];
	uint64_t done[7];
};

static struct rq_watch_state w;	/* large; keep it off the cmocka stack */
static struct rq_status status;

/*
 * Feed lines with the trailing (<op> <refused> <busy_since_completion>)
 * group, as a newer target prints them: the per-op rule decides.  Off, the
 * lines are an older target's and the rule runs on the sums.
 */
static bool details;
/* What the target's per-op busy_since_completion would be: a model. */
static uint64_t busy_at_completion[7], last_done[7], last_busy[7];

static int with_op_details(void **state)
{
	(void)state;
	details = true;
	return 0;
}

static int without_op_details(void **state)
{
	(void)state;
	details = false;
	return 0;
}

static void start(double stall_s, double interval_s)
{
	struct rq_watch_config cfg;

	rq_watch_config_default(&cfg, stall_s, interval_s);
	rq_watch_init(&w, &cfg);
	memset(busy_at_completion, 0, sizeof(busy_at_completion));
	memset(last_done, 0, sizeof(last_done));
	memset(last_busy, 0, sizeof(last_busy));
}

/*
 * Busy hand-backs since the op's last completion: a completion between
 * two samples is taken to come after that interval's busy hand-backs.
 * A counter going down is a reset_counters: everything starts at 0.
 */
static uint64_t model_busy_since_completion(unsigned int i, uint64_t busy,
					    uint64_t done)
{
	if (busy < last_busy[i] || done < last_done[i])
		busy_at_completion[i] = 0;
	else if (done != last_done[i])
		busy_at_completion[i] = busy;
	last_busy[i] = busy;
	last_done[i] = done;
	return busy - busy_at_completion[i];
}

/* As start(), in follow mode: in_flight 0 is an idle gap, not the end. */
static void start_follow(double stall_s, double interval_s)
{
	start(stall_s, interval_s);
	w.cfg.follow = true;
}

static enum rq_verdict feed(const struct counters *c, double t)
{
	unsigned int i, nr_ops = c->nr_ops ? c->nr_ops : 6;

	memset(&status, 0, sizeof(status));
	status.nr_paths = 1;
	strcpy(status.paths[0].dev, "8:16");
	status.in_flight = c->in_flight;
	status.nr_ops = nr_ops;
	status.nr_ops_kept = nr_ops;
	status.has_op_details = details;
	for (i = 0; i < nr_ops; i++) {
		strcpy(status.ops[i].name, op_names[i]);
		status.ops[i].busy = c->busy[i];
		status.ops[i].completed = c->done[i];
		/* every clone mapped came back busy or completed */
		status.ops[i].mapped = c->busy[i] + c->done[i];
		status.ops[i].busy_since_completion =
			model_busy_since_completion(i, c->busy[i], c->done[i]);
		if (!details)
			status.ops[i].busy_since_completion = 0;
	}
	return rq_watch_feed(&w, &status, t);
}

static void assert_near(double actual, double expected)
{
	if (actual < expected - 1e-9 || actual > expected + 1e-9)
		fail_msg("expected %.9f, got %.9f", expected, actual);
}

/* ---- drained ---------------------------------------------------------- */

static void drains_when_in_flight_reaches_zero(void **state)
{
	struct counters c = { .in_flight = 5 };
	int i;

	(void)state;
	start(3, 0.2);
	for (i = 0; i < 10; i++) {
		c.done[WRITE] = (uint64_t)i;
		c.busy[WRITE] = (uint64_t)i * 3;
		assert_int_equal(feed(&c, i * 0.2), RQ_VERDICT_NONE);
	}
	c.in_flight = 0;
	assert_int_equal(feed(&c, 10 * 0.2), RQ_VERDICT_DRAINED);
	assert_int_equal(w.phase, RQ_PHASE_DRAINED);
}

static void drained_from_the_first_sample(void **state)
{
	struct counters c = { .in_flight = 0 };

	(void)state;
	start(3, 0.2);
	assert_int_equal(feed(&c, 0), RQ_VERDICT_DRAINED);
}

static void drained_wins_over_rising_busy(void **state)
{
	struct counters c = { .in_flight = 2 };
	int i;

	(void)state;
	start(3, 0.2);
	for (i = 0; i < 15; i++) {
		c.busy[DISCARD] = (uint64_t)i * 100;
		assert_int_equal(feed(&c, i * 0.2), RQ_VERDICT_NONE);
	}
	/* This sample would complete a livelock window, but nothing waits. */
	c.in_flight = 0;
	c.busy[DISCARD] += 100;
	assert_int_equal(feed(&c, 15 * 0.2), RQ_VERDICT_DRAINED);
}

/* ---- livelock ----------------------------------------------------------- */

/*
 * Reads complete until t = 1.0 s, then a discard is handed back busy 50
 * times per sample and nothing completes: the verdict comes at exactly
 * t = 1.0 + stall = 4.0 s and names discard alone.
 */
static void detects_discard_livelock_after_stall(void **state)
{
	struct counters c = { .in_flight = 1 };
	struct rq_window win;
	unsigned int stuck[RQ_MAX_OPS];
	enum rq_verdict v = RQ_VERDICT_NONE;
	int i;

	(void)state;
	start(3, 0.2);
	for (i = 0; i <= 100; i++) {
		c.done[READ] = i <= 5 ? (uint64_t)i : 5;
		c.busy[DISCARD] = i > 5 ? (uint64_t)(i - 5) * 50 : 0;
		v = feed(&c, i * 0.2);
		if (v != RQ_VERDICT_NONE)
			break;
	}
	assert_int_equal(v, RQ_VERDICT_LIVELOCK);
	assert_int_equal(i, 20);
	assert_near(rq_watch_latency(&w), 3.0);
	assert_near(w.spin_start.t, 1.0);

	rq_watch_report_window(&w, &win);
	assert_near(win.start_t, 1.0);
	assert_near(win.end_t, 4.0);
	assert_int_equal(win.in_flight, 1);
	assert_int_equal(win.total.busy, 15 * 50);
	assert_int_equal(win.total.completed, 0);
	assert_int_equal(win.ops[DISCARD].busy, 15 * 50);
	assert_int_equal(rq_window_stuck_ops(&win, stuck, RQ_MAX_OPS), 1);
	assert_string_equal(win.ops[stuck[0]].name, "discard");
}

static void livelock_from_the_first_sample(void **state)
{
	struct counters c = { .in_flight = 3, .done = { 7 } };
	int i;

	(void)state;
	start(3, 0.2);
	for (i = 0; i < 15; i++) {
		c.busy[WRITE] = (uint64_t)i * 10;
		assert_int_equal(feed(&c, i * 0.2), RQ_VERDICT_NONE);
	}
	c.busy[WRITE] = 150;
	assert_int_equal(feed(&c, 15 * 0.2), RQ_VERDICT_LIVELOCK);
	assert_near(rq_watch_latency(&w), 3.0);
}

static void names_every_stuck_op_in_kernel_order(void **state)
{
	struct counters c = { .in_flight = 2 };
	struct rq_window win;
	unsigned int stuck[RQ_MAX_OPS];
	enum rq_verdict v = RQ_VERDICT_NONE;
	int i;

	(void)state;
	start(2, 0.5);
	/* write bounced while it still made progress: not stuck */
	for (i = 0; i <= 4; i++) {
		c.busy[WRITE] = (uint64_t)i;
		c.done[WRITE] = (uint64_t)i * 10;
		feed(&c, i * 0.5);
	}
	for (; i < 40 && v == RQ_VERDICT_NONE; i++) {
		c.busy[WRITE_ZEROES] += 3;
		c.busy[DISCARD] += 7;
		v = feed(&c, i * 0.5);
	}
	assert_int_equal(v, RQ_VERDICT_LIVELOCK);
	rq_watch_report_window(&w, &win);
	assert_int_equal(rq_window_stuck_ops(&win, stuck, RQ_MAX_OPS), 2);
	assert_string_equal(win.ops[stuck[0]].name, "discard");
	assert_string_equal(win.ops[stuck[1]].name, "write_zeroes");
	assert_int_equal(win.ops[WRITE].busy, 0);
}

static void names_an_unknown_op(void **state)
{
	struct counters c = { .nr_ops = 7, .in_flight = 1 };
	struct rq_window win;
	unsigned int stuck[RQ_MAX_OPS];
	enum rq_verdict v = RQ_VERDICT_NONE;
	int i;

	(void)state;
	start(3, 0.2);
	for (i = 0; i <= 100 && v == RQ_VERDICT_NONE; i++) {
		c.busy[ZONE_APPEND] = (uint64_t)i * 2;
		v = feed(&c, i * 0.2);
	}
	assert_int_equal(v, RQ_VERDICT_LIVELOCK);
	rq_watch_report_window(&w, &win);
	assert_int_equal(rq_window_stuck_ops(&win, stuck, RQ_MAX_OPS), 1);
	assert_string_equal(win.ops[stuck[0]].name, "zone_append");
}

static void verdict_is_sticky(void **state)
{
	struct counters c = { .in_flight = 1 };
	int i;

	(void)state;
	start(1, 0.2);
	for (i = 0; i <= 5; i++) {
		c.busy[FLUSH] = (uint64_t)i;
		feed(&c, i * 0.2);
	}
	assert_int_equal(w.verdict, RQ_VERDICT_LIVELOCK);
	c.done[FLUSH] = 100;
	c.in_flight = 0;
	assert_int_equal(feed(&c, 9.0), RQ_VERDICT_LIVELOCK);
	assert_near(w.prev.t, 1.0);
	assert_int_equal(w.nr_samples, 6);
}

/*
 * Irregular sampling: the verdict comes at the first sample at or after
 * the stall, and the latency is measured from the last completion change.
 */
static void latency_runs_from_the_last_completion(void **state)
{
	struct counters c = { .in_flight = 4 };
	enum rq_verdict v = RQ_VERDICT_NONE;
	int i;

	(void)state;
	start(3, 0.7);
	for (i = 0; i <= 30 && v == RQ_VERDICT_NONE; i++) {
		c.done[WRITE] = i <= 3 ? (uint64_t)i * 4 : 12;
		c.busy[WRITE] = (uint64_t)i * 9;
		v = feed(&c, i * 0.7);
	}
	assert_int_equal(v, RQ_VERDICT_LIVELOCK);
	/* completions last moved at 2.1 s; first sample >= 5.1 s is 5.6 s */
	assert_near(w.prev.t, 8 * 0.7);
	assert_near(w.spin_start.t, 3 * 0.7);
	assert_near(rq_watch_latency(&w), 5 * 0.7);
}

/* ---- no false alarms ------------------------------------------------------ */

/* Busy rising fast, one completion every 2 s, stall 3 s: never fires. */
static void slow_progress_never_fires(void **state)
{
	struct counters c = { .in_flight = 8 };
	int i;

	(void)state;
	start(3, 0.2);
	for (i = 0; i <= 300; i++) {
		c.busy[WRITE] = (uint64_t)i * 100;
		c.done[WRITE] = (uint64_t)(i / 10);
		assert_int_equal(feed(&c, i * 0.2), RQ_VERDICT_NONE);
	}
	assert_int_equal(w.nr_resets, 0);
}

/* Just inside and just outside the stall: the limit is where it says. */
static void completion_gap_around_stall_limit(void **state)
{
	struct counters c = { .in_flight = 8 };
	enum rq_verdict v = RQ_VERDICT_NONE;
	int i;

	(void)state;
	start(3, 0.2);
	for (i = 0; i <= 300; i++) {
		c.busy[WRITE] = (uint64_t)i * 100;
		c.done[WRITE] = (uint64_t)(i / 14);	/* every 2.8 s */
		assert_int_equal(feed(&c, i * 0.2), RQ_VERDICT_NONE);
	}

	start(3, 0.2);
	memset(&c, 0, sizeof(c));
	c.in_flight = 8;
	for (i = 0; i <= 300 && v == RQ_VERDICT_NONE; i++) {
		c.busy[WRITE] = (uint64_t)i * 100;
		c.done[WRITE] = (uint64_t)(i / 16);	/* every 3.2 s */
		v = feed(&c, i * 0.2);
	}
	assert_int_equal(v, RQ_VERDICT_LIVELOCK);
	assert_int_equal(i - 1, 15);	/* 3.0 s into the first gap */
}

/*
 * reset_counters on a device that makes progress: for a long while after
 * the reset, completed stays below its old value.  That must read as a
 * restart, not as "completions flat" (nor as progress backwards).
 */
static void counter_reset_on_busy_device_is_no_alarm(void **state)
{
	struct counters c = { .in_flight = 6 };
	int i;

	(void)state;
	start(3, 0.2);
	for (i = 0; i <= 150; i++) {
		int since = i < 25 ? i : i - 25;

		c.busy[WRITE] = (uint64_t)since * 10;
		c.done[WRITE] = (uint64_t)since / 4;
		assert_int_equal(feed(&c, i * 0.2), RQ_VERDICT_NONE);
	}
	assert_int_equal(w.nr_resets, 1);
	assert_near(w.base.t, 25 * 0.2);
}

/* A reset while a livelock builds restarts its window. */
static void counter_reset_restarts_the_window(void **state)
{
	struct counters c = { .in_flight = 1 };
	enum rq_verdict v = RQ_VERDICT_NONE;
	int i;

	(void)state;
	start(3, 0.2);
	for (i = 0; i <= 100 && v == RQ_VERDICT_NONE; i++) {
		c.busy[DISCARD] = i < 13 ? (uint64_t)i * 50 :
					   (uint64_t)(i - 13) * 50;
		v = feed(&c, i * 0.2);
		if (v != RQ_VERDICT_NONE)
			break;
	}
	assert_int_equal(v, RQ_VERDICT_LIVELOCK);
	assert_int_equal(w.nr_resets, 1);
	assert_int_equal(i, 13 + 15);	/* 3 s after the reset at 2.6 s */
	assert_near(rq_watch_latency(&w), 3.0);
}

static void op_layout_change_is_a_reset(void **state)
{
	struct counters c = { .in_flight = 1 };
	int i;

	(void)state;
	start(3, 0.2);
	for (i = 0; i < 10; i++) {
		c.busy[READ] = (uint64_t)i;
		feed(&c, i * 0.2);
	}
	c.nr_ops = 7;	/* module reloaded with a seventh op group */
	c.busy[READ]++;
	assert_int_equal(feed(&c, 10 * 0.2), RQ_VERDICT_NONE);
	assert_int_equal(w.nr_resets, 1);
	assert_int_equal(w.phase, RQ_PHASE_START);
}

static void time_going_back_is_a_reset(void **state)
{
	struct counters c = { .in_flight = 1 };

	(void)state;
	start(3, 0.2);
	feed(&c, 5.0);
	c.busy[READ] = 1;
	feed(&c, 4.0);
	assert_int_equal(w.nr_resets, 1);
}

/* All paths failed with queueing: no progress, but busy flat. */
static void flat_busy_is_a_stall_not_a_livelock(void **state)
{
	struct counters c = { .in_flight = 4 };
	int i;

	(void)state;
	c.busy[WRITE] = 500;
	c.done[WRITE] = 100;
	start(3, 0.2);
	for (i = 0; i <= 150; i++) {
		assert_int_equal(feed(&c, i * 0.2), RQ_VERDICT_NONE);
		if (i == 14)
			assert_false(rq_watch_is_stalled(&w));
	}
	assert_int_equal(w.phase, RQ_PHASE_STALLED);
	assert_true(rq_watch_is_stalled(&w));
	assert_near(rq_watch_flat_seconds(&w), 30.0);
}

/* A burst of busy at the start of the window, then quiet: a stall. */
static void busy_burst_then_quiet_is_no_livelock(void **state)
{
	struct counters c = { .in_flight = 2 };
	int i;

	(void)state;
	start(3, 0.2);
	for (i = 0; i <= 150; i++) {
		c.busy[WRITE] = i <= 3 ? (uint64_t)i * 20 : 60;
		assert_int_equal(feed(&c, i * 0.2), RQ_VERDICT_NONE);
	}
	assert_true(rq_watch_is_stalled(&w));
}

/*
 * Stalled for 10 s, then busy starts rising: the livelock window starts
 * when the spin does, so the verdict takes a full stall, not 0 s.
 */
static void spin_after_stall_gets_a_full_window(void **state)
{
	struct counters c = { .in_flight = 2 };
	enum rq_verdict v = RQ_VERDICT_NONE;
	int i;

	(void)state;
	c.busy[WRITE] = 500;
	c.done[WRITE] = 100;
	start(3, 0.2);
	for (i = 0; i <= 150; i++) {
		if (i >= 50)
			c.busy[WRITE] += 40;
		v = feed(&c, i * 0.2);
		if (v != RQ_VERDICT_NONE)
			break;
	}
	assert_int_equal(v, RQ_VERDICT_LIVELOCK);
	assert_int_equal(i, 49 + 15);
	assert_near(rq_watch_latency(&w), 3.0);
	assert_near(rq_watch_flat_seconds(&w), 64 * 0.2);
}

/*
 * max_flat_s: the longest no-completion stretch with requests in flight,
 * over the whole watch; idle stretches do not count.
 */
static void max_flat_tracks_the_longest_stretch(void **state)
{
	struct counters c = { .in_flight = 2 };
	int i;

	(void)state;
	start_follow(3, 0.2);
	/* completions every 1.0 s for 5 s */
	for (i = 0; i <= 25; i++) {
		if (i % 5 == 0)
			c.done[WRITE]++;
		c.busy[WRITE] += 10;
		assert_int_equal(feed(&c, i * 0.2), RQ_VERDICT_NONE);
	}
	assert_near(w.max_flat_s, 0.8);
	/* 10 s idle: not flat */
	c.in_flight = 0;
	for (i = 26; i <= 75; i++)
		assert_int_equal(feed(&c, i * 0.2), RQ_VERDICT_NONE);
	assert_near(w.max_flat_s, 0.8);
	/* in flight again from the last idle sample (15.0 s): flat until 17.4 s */
	c.in_flight = 1;
	for (i = 76; i <= 88; i++) {
		if (i == 88)
			c.done[WRITE]++;
		c.busy[WRITE] += 10;
		assert_int_equal(feed(&c, i * 0.2), RQ_VERDICT_NONE);
	}
	assert_near(w.max_flat_s, 2.4);
}

/* ---- follow mode -------------------------------------------------------- */

/* Off by default: the first idle sample still ends the watch. */
static void follow_off_first_idle_is_drained(void **state)
{
	struct counters c = { .in_flight = 0 };
	struct rq_watch_config cfg;

	(void)state;
	rq_watch_config_default(&cfg, 3, 0.2);
	assert_false(cfg.follow);
	start(3, 0.2);
	assert_int_equal(feed(&c, 0), RQ_VERDICT_DRAINED);
	assert_int_equal(w.phase, RQ_PHASE_DRAINED);
	assert_int_equal(w.nr_idle, 0);
}

/* Started before the workload: idle, not drained, and not stalled. */
static void follow_idle_first_sample_does_not_end(void **state)
{
	struct counters c = { .in_flight = 0 };
	int i;

	(void)state;
	start_follow(3, 0.2);
	for (i = 0; i <= 50; i++) {
		assert_int_equal(feed(&c, i * 0.2), RQ_VERDICT_NONE);
		assert_int_equal(w.phase, RQ_PHASE_IDLE);
		assert_false(rq_watch_is_stalled(&w));
	}
	assert_int_equal(w.nr_idle, 51);
	assert_int_equal(w.nr_resets, 0);
	assert_near(rq_watch_flat_seconds(&w), 0);

	/* the workload starts: judged normally */
	c.in_flight = 2;
	c.done[WRITE] = 3;
	assert_int_equal(feed(&c, 51 * 0.2), RQ_VERDICT_NONE);
	assert_int_equal(w.phase, RQ_PHASE_PROGRESS);
}

/*
 * A verify job: 2 s of writes, 2 s idle, 2 s of reads, 2 s idle, over and
 * over, busy rising all the time it is in flight.  No verdict ever, and
 * the report still covers the whole watch.
 */
static void follow_progress_and_idle_gaps_never_decide(void **state)
{
	struct counters c = { 0 };
	struct rq_window win;
	int i;

	(void)state;
	start_follow(3, 0.2);
	for (i = 0; i <= 400; i++) {
		bool busy_phase = (i / 10) % 2 == 0;
		int op = (i / 20) % 2 ? READ : WRITE;

		c.in_flight = busy_phase ? 4 : 0;
		if (busy_phase) {
			c.busy[op] += 25;
			c.done[op] += 2;
		}
		assert_int_equal(feed(&c, i * 0.2), RQ_VERDICT_NONE);
		if (i)
			assert_int_equal(w.phase, busy_phase ?
					 RQ_PHASE_PROGRESS : RQ_PHASE_IDLE);
	}
	assert_int_equal(w.nr_idle, 200);
	assert_int_equal(w.nr_resets, 0);
	assert_false(rq_watch_is_stalled(&w));
	rq_watch_report_window(&w, &win);
	assert_near(win.start_t, 0);
	assert_near(win.end_t, 80.0);
	/* deltas from the first sample, which had its 2 writes already */
	assert_int_equal(win.total.completed,
			 c.done[READ] + c.done[WRITE] - 2);
}

/*
 * Writes complete until 1.0 s, idle 1.2 .. 2.0 s, then a discard spins.
 * The window starts at the last idle sample (2.0 s), not at the last
 * completion (1.2 s) nor at the first idle sample: verdict at 5.0 s.
 */
static void follow_livelock_after_idle_gap(void **state)
{
	struct counters c = { 0 };
	struct rq_window win;
	unsigned int stuck[RQ_MAX_OPS];
	enum rq_verdict v = RQ_VERDICT_NONE;
	int i;

	(void)state;
	start_follow(3, 0.2);
	for (i = 0; i <= 100; i++) {
		if (i <= 5) {
			c.in_flight = 2;
			c.done[WRITE] = (uint64_t)i;
		} else if (i <= 10) {
			c.in_flight = 0;
			c.done[WRITE] = 7;
		} else {
			c.in_flight = 1;
			c.busy[DISCARD] += 50;
		}
		v = feed(&c, i * 0.2);
		if (v != RQ_VERDICT_NONE)
			break;
	}
	assert_int_equal(v, RQ_VERDICT_LIVELOCK);
	assert_int_equal(i, 25);
	assert_int_equal(w.phase, RQ_PHASE_LIVELOCK);
	assert_int_equal(w.nr_idle, 5);
	assert_near(w.spin_start.t, 2.0);
	assert_near(rq_watch_latency(&w), 3.0);

	rq_watch_report_window(&w, &win);
	assert_near(win.start_t, 2.0);
	assert_near(win.end_t, 5.0);
	assert_int_equal(win.total.busy, 15 * 50);
	assert_int_equal(win.total.completed, 0);
	assert_int_equal(rq_window_stuck_ops(&win, stuck, RQ_MAX_OPS), 1);
	assert_string_equal(win.ops[stuck[0]].name, "discard");
}

/*
 * Spinning from the first sample; one idle sample at 2.0 s, one short of
 * the livelock at 3.0 s.  The window restarts there: nothing at 3.0 s,
 * the verdict a full stall after the idle sample.
 */
static void follow_idle_restarts_the_livelock_window(void **state)
{
	struct counters c = { .done = { 7 } };
	enum rq_verdict v = RQ_VERDICT_NONE;
	int i;

	(void)state;
	start_follow(3, 0.2);
	for (i = 0; i <= 100; i++) {
		c.in_flight = i == 10 ? 0 : 1;
		c.busy[WRITE] += 10;
		v = feed(&c, i * 0.2);
		if (v != RQ_VERDICT_NONE)
			break;
	}
	assert_int_equal(v, RQ_VERDICT_LIVELOCK);
	assert_int_equal(i, 10 + 15);
	assert_near(w.spin_start.t, 2.0);
	assert_near(rq_watch_latency(&w), 3.0);
}

/* Idle every 2.8 s between spins: each window is cut short, never fires. */
static void follow_idle_gaps_inside_spins_never_fire(void **state)
{
	struct counters c = { .done = { 7 } };
	int i;

	(void)state;
	start_follow(3, 0.2);
	for (i = 0; i <= 300; i++) {
		c.in_flight = i % 14 == 13 ? 0 : 1;
		c.busy[DISCARD] += 50;
		assert_int_equal(feed(&c, i * 0.2), RQ_VERDICT_NONE);
	}
	assert_int_equal(w.nr_idle, 300 / 14);
}

/*
 * Stalled (busy flat) for 2.8 s, idle, stalled again: the idle sample
 * restarts the no-progress window, so it is not a stall until a full
 * stall_s after it.
 */
static void follow_idle_restarts_the_stall_window(void **state)
{
	struct counters c = { .busy = { 0, 500 }, .done = { 0, 100 } };
	int i;

	(void)state;
	start_follow(3, 0.2);
	for (i = 0; i <= 14; i++) {
		c.in_flight = 4;
		assert_int_equal(feed(&c, i * 0.2), RQ_VERDICT_NONE);
	}
	assert_int_equal(w.phase, RQ_PHASE_STALLED);
	assert_false(rq_watch_is_stalled(&w));	/* 2.8 s */
	c.in_flight = 0;
	assert_int_equal(feed(&c, 15 * 0.2), RQ_VERDICT_NONE);
	assert_false(rq_watch_is_stalled(&w));
	c.in_flight = 4;
	for (i = 16; i <= 29; i++) {
		assert_int_equal(feed(&c, i * 0.2), RQ_VERDICT_NONE);
		assert_false(rq_watch_is_stalled(&w));
	}
	assert_int_equal(feed(&c, 30 * 0.2), RQ_VERDICT_NONE);
	assert_true(rq_watch_is_stalled(&w));	/* 3.0 s after 3.0 s */
	assert_near(rq_watch_flat_seconds(&w), 3.0);
}

/* reset_counters during an idle gap: both counted, still idle. */
static void follow_counter_reset_while_idle(void **state)
{
	struct counters c = { .in_flight = 2 };
	int i;

	(void)state;
	start_follow(3, 0.2);
	for (i = 0; i < 5; i++) {
		c.done[READ] = (uint64_t)i * 10;
		feed(&c, i * 0.2);
	}
	c.in_flight = 0;
	c.done[READ] = 0;
	assert_int_equal(feed(&c, 5 * 0.2), RQ_VERDICT_NONE);
	assert_int_equal(w.phase, RQ_PHASE_IDLE);
	assert_int_equal(w.nr_resets, 1);
	assert_int_equal(w.nr_idle, 1);
	assert_near(w.base.t, 1.0);
}

/* ---- helpers ---------------------------------------------------------------- */

/* ---- the per-op rule ------------------------------------------------------ */

/*
 * Task: a discard livelock while reads and writes go on completing.  The
 * sums never stand still, so only a per-op rule can see it: discard's
 * busy hand-backs rise (+40 a sample) and its completions stay flat from
 * t = 1.0 s, while reads and writes complete every sample (and are
 * handed back busy now and then).  With op details the verdict comes at
 * exactly 1.0 + stall = 4.0 s and names discard alone.
 */
static enum rq_verdict discard_spin_under_reads_and_writes(int *at)
{
	struct counters c = { .in_flight = 9 };
	enum rq_verdict v = RQ_VERDICT_NONE;
	int i;

	start(3, 0.2);
	for (i = 0; i <= 100 && v == RQ_VERDICT_NONE; i++) {
		c.done[READ] = (uint64_t)i * 30;
		c.done[WRITE] = (uint64_t)i * 25;
		c.busy[READ] = (uint64_t)i / 3;
		c.busy[WRITE] = (uint64_t)i / 2;
		c.done[DISCARD] = i <= 5 ? (uint64_t)i : 5;
		c.busy[DISCARD] = i > 5 ? (uint64_t)(i - 5) * 40 : 0;
		v = feed(&c, i * 0.2);
	}
	*at = i - 1;
	return v;
}

static void per_op_finds_a_discard_livelock_under_reads_and_writes(void **state)
{
	struct rq_window win;
	unsigned int stuck[RQ_MAX_OPS];
	double spun;
	int at;

	(void)state;
	assert_int_equal(discard_spin_under_reads_and_writes(&at),
			 RQ_VERDICT_LIVELOCK);
	assert_int_equal(at, 20);
	assert_int_equal(w.phase, RQ_PHASE_LIVELOCK);
	assert_true(rq_watch_per_op(&w));
	assert_string_equal(w.prev.ops[w.decided_op].name, "discard");
	assert_near(rq_watch_stall_start(&w)->t, 1.0);
	assert_near(rq_watch_latency(&w), 3.0);
	assert_near(w.max_op_spin_s, 3.0);
	assert_int_equal(rq_watch_longest_spin(&w, &spun), DISCARD);
	assert_near(spun, 3.0);

	rq_watch_report_window(&w, &win);
	assert_near(win.start_t, 1.0);
	assert_near(win.end_t, 4.0);
	assert_true(win.has_op_details);
	assert_int_equal(win.ops[DISCARD].busy, 15 * 40);
	assert_int_equal(win.ops[DISCARD].completed, 0);
	assert_int_equal(win.ops[DISCARD].busy_since_completion, 15 * 40);
	/* the sums moved all along: reads and writes completed */
	assert_int_equal(win.ops[READ].completed, 15 * 30);
	assert_int_equal(win.ops[WRITE].completed, 15 * 25);
	assert_int_equal(rq_window_stuck_ops(&win, stuck, RQ_MAX_OPS), 1);
	assert_string_equal(win.ops[stuck[0]].name, "discard");
	/* never stalled: completions moved on every sample */
	assert_near(w.max_flat_s, 0);
}

/* The same series from an older target: today's rule on the sums. */
static void totals_rule_cannot_see_it_on_an_old_line(void **state)
{
	double spun;
	int at;

	(void)state;
	assert_int_equal(discard_spin_under_reads_and_writes(&at),
			 RQ_VERDICT_NONE);
	assert_int_equal(at, 100);
	assert_false(rq_watch_per_op(&w));
	assert_int_equal(w.phase, RQ_PHASE_PROGRESS);
	assert_int_equal(rq_watch_longest_spin(&w, &spun), -1);
	assert_int_equal(w.decided_op, -1);
}

/*
 * Per op, an op that progresses slowly is as safe as the device that
 * does: writes handed back busy all the time but completing every 2 s,
 * next to reads that complete steadily, never fire.
 */
static void per_op_slow_progress_never_fires(void **state)
{
	struct counters c = { .in_flight = 8 };
	double spun;
	int i;

	(void)state;
	start(3, 0.2);
	for (i = 0; i <= 300; i++) {
		c.busy[WRITE] = (uint64_t)i * 100;
		c.done[WRITE] = (uint64_t)(i / 10);
		c.done[READ] = (uint64_t)i * 7;
		assert_int_equal(feed(&c, i * 0.2), RQ_VERDICT_NONE);
	}
	/* the closest it came: 1.8 s of spinning between two completions */
	assert_near(w.max_op_spin_s, 1.8);
	/* the last sample has a write completion: nothing spins */
	assert_int_equal(rq_watch_longest_spin(&w, &spun), -1);
}

/*
 * An op that has nothing outstanding is quiet, whatever its counters: its
 * window only starts with its first busy hand-back, so a discard that
 * starts spinning 2 s into the watch gets a full --stall of its own.
 */
static void per_op_window_starts_when_the_op_starts_spinning(void **state)
{
	struct counters c = { .in_flight = 2 };
	enum rq_verdict v = RQ_VERDICT_NONE;
	int i;

	(void)state;
	start(3, 0.2);
	for (i = 0; i <= 100 && v == RQ_VERDICT_NONE; i++) {
		c.done[WRITE] = (uint64_t)i;
		c.busy[DISCARD] = i > 10 ? (uint64_t)(i - 10) * 5 : 0;
		v = feed(&c, i * 0.2);
	}
	assert_int_equal(v, RQ_VERDICT_LIVELOCK);
	assert_int_equal(i - 1, 25);		/* 2.0 s + 3.0 s */
	assert_near(rq_watch_latency(&w), 3.0);
}

/* Two ops spinning: the one spinning longer decides; both are named. */
static void per_op_names_every_spinning_op(void **state)
{
	struct counters c = { .in_flight = 3 };
	struct rq_window win;
	unsigned int stuck[RQ_MAX_OPS];
	enum rq_verdict v = RQ_VERDICT_NONE;
	int i;

	(void)state;
	start(3, 0.2);
	for (i = 0; i <= 100 && v == RQ_VERDICT_NONE; i++) {
		c.done[READ] = (uint64_t)i * 4;
		c.busy[FLUSH] = (uint64_t)i * 3;
		c.busy[WRITE_ZEROES] = i > 5 ? (uint64_t)(i - 5) * 2 : 0;
		v = feed(&c, i * 0.2);
	}
	assert_int_equal(v, RQ_VERDICT_LIVELOCK);
	assert_int_equal(i - 1, 15);
	assert_string_equal(w.prev.ops[w.decided_op].name, "flush");
	rq_watch_report_window(&w, &win);
	assert_near(win.start_t, 0);
	assert_int_equal(rq_window_stuck_ops(&win, stuck, RQ_MAX_OPS), 2);
	assert_string_equal(win.ops[stuck[0]].name, "flush");
	assert_string_equal(win.ops[stuck[1]].name, "write_zeroes");
}

/* An op's busy pause longer than the busy pause restarts its window. */
static void per_op_busy_pause_restarts_its_window(void **state)
{
	struct counters c = { .in_flight = 1 };
	enum rq_verdict v = RQ_VERDICT_NONE;
	int i;

	(void)state;
	start(3, 0.2);
	for (i = 0; i <= 100 && v == RQ_VERDICT_NONE; i++) {
		c.done[READ] = (uint64_t)i;
		/* discard spins 0..1 s, pauses 1.0..3.0 s, spins again */
		if (i <= 5 || i > 15)
			c.busy[DISCARD] += 10;
		v = feed(&c, i * 0.2);
	}
	assert_int_equal(v, RQ_VERDICT_LIVELOCK);
	/* the window restarts at the last quiet sample, 3.0 s */
	assert_near(rq_watch_stall_start(&w)->t, 3.0);
	assert_int_equal(i - 1, 30);
}

/*
 * busy_since_completion dropping while the op's completions stand still
 * is a reset_counters: a restart, not a spin that ended.
 */
static void per_op_busy_since_completion_drop_is_a_reset(void **state)
{
	(void)state;
	start(3, 0.2);
	memset(&status, 0, sizeof(status));
	status.nr_paths = 1;
	status.in_flight = 1;
	status.nr_ops = status.nr_ops_kept = 1;
	status.has_op_details = true;
	strcpy(status.ops[0].name, "discard");
	status.ops[0].busy = status.ops[0].busy_since_completion = 500;
	rq_watch_feed(&w, &status, 0);
	status.ops[0].busy = 510;
	status.ops[0].busy_since_completion = 10;
	rq_watch_feed(&w, &status, 0.2);
	assert_int_equal(w.nr_resets, 1);

	/* a line losing its op details (another target) restarts too */
	status.has_op_details = false;
	status.ops[0].busy = 520;
	rq_watch_feed(&w, &status, 0.4);
	assert_int_equal(w.nr_resets, 2);
	assert_false(rq_watch_per_op(&w));
}

static void default_config(void **state)
{
	struct rq_watch_config cfg;

	(void)state;
	rq_watch_config_default(&cfg, 3, 0.2);
	assert_near(cfg.stall_s, 3);
	assert_near(cfg.busy_quiet_s, 1.5);
	rq_watch_config_default(&cfg, 0.5, 0.2);
	assert_near(cfg.busy_quiet_s, 0.4);
	rq_watch_config_default(&cfg, 3, 2);
	assert_near(cfg.busy_quiet_s, 4);
}

static void drained_report_covers_the_whole_watch(void **state)
{
	struct counters c = { .in_flight = 3 };
	struct rq_window win;
	unsigned int stuck[RQ_MAX_OPS];
	int i;

	(void)state;
	start(3, 0.2);
	for (i = 0; i <= 10; i++) {
		c.done[READ] = (uint64_t)i * 2;
		c.busy[READ] = (uint64_t)i;
		c.in_flight = i == 10 ? 0 : 3;
		feed(&c, i * 0.2);
	}
	assert_int_equal(w.verdict, RQ_VERDICT_DRAINED);
	rq_watch_report_window(&w, &win);
	assert_near(win.start_t, 0);
	assert_near(win.end_t, 2.0);
	assert_int_equal(win.total.completed, 20);
	assert_int_equal(win.total.busy, 10);
	assert_int_equal(rq_window_stuck_ops(&win, stuck, RQ_MAX_OPS), 0);
}

static void phase_names(void **state)
{
	(void)state;
	assert_string_equal(rq_phase_name(RQ_PHASE_SPINNING), "spinning");
	assert_string_equal(rq_phase_name(RQ_PHASE_STALLED), "stalled");
	assert_string_equal(rq_phase_name(RQ_PHASE_LIVELOCK), "livelock");
}

static void idle_phase_name(void **state)
{
	(void)state;
	assert_string_equal(rq_phase_name(RQ_PHASE_IDLE), "idle");
}

int main(void)
{
	/*
	 * Every series but the per-op ones runs twice: on an older target's
	 * lines (the rule on the sums) and with op details (the per-op
	 * rule), which must agree wherever one op does all the spinning.
	 */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(drains_when_in_flight_reaches_zero, without_op_details),
		cmocka_unit_test_setup(drained_from_the_first_sample, without_op_details),
		cmocka_unit_test_setup(drained_wins_over_rising_busy, without_op_details),
		cmocka_unit_test_setup(detects_discard_livelock_after_stall, without_op_details),
		cmocka_unit_test_setup(livelock_from_the_first_sample, without_op_details),
		cmocka_unit_test_setup(names_every_stuck_op_in_kernel_order, without_op_details),
		cmocka_unit_test_setup(names_an_unknown_op, without_op_details),
		cmocka_unit_test_setup(verdict_is_sticky, without_op_details),
		cmocka_unit_test_setup(latency_runs_from_the_last_completion, without_op_details),
		cmocka_unit_test_setup(slow_progress_never_fires, without_op_details),
		cmocka_unit_test_setup(completion_gap_around_stall_limit, without_op_details),
		cmocka_unit_test_setup(counter_reset_on_busy_device_is_no_alarm, without_op_details),
		cmocka_unit_test_setup(counter_reset_restarts_the_window, without_op_details),
		cmocka_unit_test_setup(op_layout_change_is_a_reset, without_op_details),
		cmocka_unit_test_setup(time_going_back_is_a_reset, without_op_details),
		cmocka_unit_test_setup(flat_busy_is_a_stall_not_a_livelock, without_op_details),
		cmocka_unit_test_setup(busy_burst_then_quiet_is_no_livelock, without_op_details),
		cmocka_unit_test_setup(spin_after_stall_gets_a_full_window, without_op_details),
		cmocka_unit_test_setup(max_flat_tracks_the_longest_stretch, without_op_details),
		cmocka_unit_test_setup(follow_off_first_idle_is_drained, without_op_details),
		cmocka_unit_test_setup(follow_idle_first_sample_does_not_end, without_op_details),
		cmocka_unit_test_setup(follow_progress_and_idle_gaps_never_decide, without_op_details),
		cmocka_unit_test_setup(follow_livelock_after_idle_gap, without_op_details),
		cmocka_unit_test_setup(follow_idle_restarts_the_livelock_window, without_op_details),
		cmocka_unit_test_setup(follow_idle_gaps_inside_spins_never_fire, without_op_details),
		cmocka_unit_test_setup(follow_idle_restarts_the_stall_window, without_op_details),
		cmocka_unit_test_setup(follow_counter_reset_while_idle, without_op_details),
		cmocka_unit_test_setup(default_config, without_op_details),
		cmocka_unit_test_setup(drained_report_covers_the_whole_watch, without_op_details),
		cmocka_unit_test_setup(phase_names, without_op_details),
		cmocka_unit_test_setup(idle_phase_name, without_op_details),
		cmocka_unit_test_setup(drains_when_in_flight_reaches_zero, with_op_details),
		cmocka_unit_test_setup(drained_from_the_first_sample, with_op_details),
		cmocka_unit_test_setup(drained_wins_over_rising_busy, with_op_details),
		cmocka_unit_test_setup(detects_discard_livelock_after_stall, with_op_details),
		cmocka_unit_test_setup(livelock_from_the_first_sample, with_op_details),
		cmocka_unit_test_setup(names_every_stuck_op_in_kernel_order, with_op_details),
		cmocka_unit_test_setup(names_an_unknown_op, with_op_details),
		cmocka_unit_test_setup(verdict_is_sticky, with_op_details),
		cmocka_unit_test_setup(latency_runs_from_the_last_completion, with_op_details),
		cmocka_unit_test_setup(slow_progress_never_fires, with_op_details),
		cmocka_unit_test_setup(completion_gap_around_stall_limit, with_op_details),
		cmocka_unit_test_setup(counter_reset_on_busy_device_is_no_alarm, with_op_details),
		cmocka_unit_test_setup(counter_reset_restarts_the_window, with_op_details),
		cmocka_unit_test_setup(op_layout_change_is_a_reset, with_op_details),
		cmocka_unit_test_setup(time_going_back_is_a_reset, with_op_details),
		cmocka_unit_test_setup(flat_busy_is_a_stall_not_a_livelock, with_op_details),
		cmocka_unit_test_setup(busy_burst_then_quiet_is_no_livelock, with_op_details),
		cmocka_unit_test_setup(spin_after_stall_gets_a_full_window, with_op_details),
		cmocka_unit_test_setup(max_flat_tracks_the_longest_stretch, with_op_details),
		cmocka_unit_test_setup(follow_off_first_idle_is_drained, with_op_details),
		cmocka_unit_test_setup(follow_idle_first_sample_does_not_end, with_op_details),
		cmocka_unit_test_setup(follow_progress_and_idle_gaps_never_decide, with_op_details),
		cmocka_unit_test_setup(follow_livelock_after_idle_gap, with_op_details),
		cmocka_unit_test_setup(follow_idle_restarts_the_livelock_window, with_op_details),
		cmocka_unit_test_setup(follow_idle_gaps_inside_spins_never_fire, with_op_details),
		cmocka_unit_test_setup(follow_idle_restarts_the_stall_window, with_op_details),
		cmocka_unit_test_setup(follow_counter_reset_while_idle, with_op_details),
		cmocka_unit_test_setup(drained_report_covers_the_whole_watch, with_op_details),
		cmocka_unit_test_setup(per_op_finds_a_discard_livelock_under_reads_and_writes, with_op_details),
		cmocka_unit_test_setup(per_op_slow_progress_never_fires, with_op_details),
		cmocka_unit_test_setup(per_op_window_starts_when_the_op_starts_spinning, with_op_details),
		cmocka_unit_test_setup(per_op_names_every_spinning_op, with_op_details),
		cmocka_unit_test_setup(per_op_busy_pause_restarts_its_window, with_op_details),
		cmocka_unit_test_setup(per_op_busy_since_completion_drop_is_a_reset, with_op_details),
		cmocka_unit_test_setup(totals_rule_cannot_see_it_on_an_old_line, without_op_details),
	};

	return cmocka_run_group_tests_name("rq_watch", tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: the per-request livelock decision (rq_reqwatch.c) on
 * recorded tracepoint streams.  No kernel ran them: they are built, line
 * by line, in the exact text tracefs prints for 6.1 and 6.12
 * (include/trace/events/block.h of each tree, blk_fill_rwbs()), with the
 * event sequences the kernel produces:
 *
 *   a refusal (BLK_STS_RESOURCE from blk_insert_cloned_request, dm-rq's
 *   DM_MAPIO_REQUEUE or DELAY_REQUEUE) is block_rq_issue on the map
 *   (dm_start_request) then block_rq_requeue (__blk_mq_requeue_request);
 *   blk-mq retries after BLK_MQ_RESOURCE_DELAY (3 ms) or on a completion;
 *   dm-multipath's DM_MAPIO_DELAY_REQUEUE (no path, queue_if_no_path)
 *   retries after 100 ms; a completion is block_rq_complete, twice on a
 *   dm map (the clone's bytes, then "+ 0" in blk_mq_end_request).
 *
 * Every line goes through rq_trace_parse_line(), so the streams test the
 * parser on both formats too.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "rq_reqformat.h"
#include "rq_reqwatch.h"
#include "rq_json_check.h"
#include "recorded_trace.h"

static rq_rw_t w;		/* large: off the cmocka stack */
static int fmt612;		/* 6.12 lines (ioprio field) or 6.1 */
static unsigned int map_minor = 0;

#define MAP_MAJOR 253
#define P1 "8,0"
#define P2 "8,16"

static int v61(void **state) { (void)state; fmt612 = 0; return 0; }
static int v612(void **state) { (void)state; fmt612 = 1; return 0; }

static void start(double stall_s)
{
	struct rq_rw_config cfg;

	rq_rw_config_default(&cfg, stall_s);
	cfg.map_major = MAP_MAJOR;
	cfg.map_minor = map_minor;
	cfg.nr_path_devs = 2;
	cfg.path_major[0] = 8;
	cfg.path_minor[0] = 0;
	cfg.path_major[1] = 8;
	cfg.path_minor[1] = 16;
	rq_rw_init(&w, &cfg);
}

/* One tracepoint line as tracefs prints it, fed through the parser. */
static enum rq_rw_verdict ev_on(const char *dev, const char *type, double t,
				const char *rwbs, uint64_t sector,
				unsigned int nr)
{
	char line[320], devbuf[24];
	const char *prio = fmt612 ? " none,0,0" : "";
	struct rq_trace_event ev;
	char err[128];

	if (!dev) {
		snprintf(devbuf, sizeof(devbuf), "%d,%u", MAP_MAJOR, map_minor);
		dev = devbuf;
	}
	if (!strcmp(type, "insert") || !strcmp(type, "issue"))
		snprintf(line, sizeof(line),
			 "      kworker/0:1H-35      [000] d..1. %12.6f: block_rq_%s: %s %s %u () %llu + %u%s [kworker/0:1H]\n",
			 t, type, dev, rwbs, nr * 512, (unsigned long long)sector, nr,
			 fmt612 ? " be,0,4" : "");
	else
		snprintf(line, sizeof(line),
			 "          <idle>-0       [001] d.h1. %12.6f: block_rq_%s: %s %s () %llu + %u%s [0]\n",
			 t, type, dev, rwbs, (unsigned long long)sector, nr, prio);
	assert_int_equal(rq_trace_parse_line(line, &ev, err, sizeof(err)),
			 RQ_TRACE_EVENT);
	return rq_rw_feed_event(&w, &ev);
}

static enum rq_rw_verdict ev(const char *type, double t, const char *rwbs,
			     uint64_t sector, unsigned int nr)
{
	return ev_on(NULL, type, t, rwbs, sector, nr);
}

/* One refusal: issue, then requeue, on the map. */
static enum rq_rw_verdict refuse(double t, const char *rwbs, uint64_t sector,
				 unsigned int nr)
{
	ev("issue", t, rwbs, sector, nr);
	return ev("requeue", t + 0.000004, rwbs, sector, nr);
}

/* A completion as dm-rq reports it: the bytes, then "+ 0" past the end. */
static enum rq_rw_verdict complete(double t, const char *rwbs,
				   uint64_t sector, unsigned int nr)
{
	ev("complete", t, rwbs, sector, nr);
	return ev("complete", t + 0.000002, rwbs, sector + nr, 0);
}

static enum rq_rw_verdict sample(double t, int64_t in_flight, int usable,
				 int queueing, int64_t pinflight,
				 int64_t pios)
{
	struct rq_rw_sample s;

	rq_rw_sample_init(&s, t);
	s.in_flight = in_flight;
	s.nr_paths = 2;
	s.nr_usable = usable;
	s.queueing = queueing;
	s.paths_inflight = pinflight;
	s.paths_ios = pios;
	return rq_rw_feed_sample(&w, &s);
}

/*
 * The livelock on ffe81d45322c over dm-multipath: blkdiscard's one
 * request refused every 3 ms for ever, the paths idle (the devices see
 * nothing: blk_insert_cloned_request refuses the clone).  The watch
 * samples paths every 100 ms.
 */
/*
 * Feed that livelock from t = 10 s until the watch decides (at most 2000
 * refusals): the discard at sector 0 refused every 3 ms, a sample of the
 * paths every 100 ms with IN_FLIGHT on the map and nothing on the paths,
 * whose stat shows 5000 completed I/Os, plus one per refusal so far when
 * STAT_COUNTS_REFUSALS; with CHECKER, one TUR through path 1 early on.
 */
static enum rq_rw_verdict discard_refused_every_3ms(int64_t in_flight,
						    bool stat_counts_refusals,
						    bool checker)
{
	double t0 = 10.0, t;
	int i, next_sample = 0;
	enum rq_rw_verdict v = RQ_RW_QUIET;

	start(3.0);
	ev("insert", t0, "D", 0, 2048);
	for (i = 0; v != RQ_RW_LIVELOCK && i < 2000; i++) {
		t = t0 + 0.001 + i * 0.003;
		if (t >= t0 + next_sample * 0.1) {
			v = sample(t0 + next_sample * 0.1, in_flight, 2, 1, 0,
				   5000 + (stat_counts_refusals ? i : 0));
			next_sample++;
			if (v == RQ_RW_LIVELOCK)
				break;
		}
		if (checker && i == 20) {
			ev_on(P1, "issue", t - 0.0005, "N", 0, 0);
			ev_on(P1, "complete", t - 0.0002, "N", 0, 0);
		}
		v = refuse(t, "D", 0, 2048);
	}
	return v;
}

static void discard_livelock_paths_idle(void **state)
{
	double t0 = 10.0;
	enum rq_rw_verdict v;

	(void)state;
	v = discard_refused_every_3ms(1, false, false);
	assert_int_equal(v, RQ_RW_LIVELOCK);
	assert_int_equal(w.stuck.op, RQ_OPC_DISCARD);
	assert_string_equal(w.stuck.rwbs, "D");
	assert_int_equal(w.stuck.sector, 0);
	assert_int_equal(w.stuck.nr_sectors, 2048);
	assert_int_equal(w.stuck.evidence, RQ_RW_EV_PATHS_IDLE);
	/* well under the 1 s goal, and not before the floor */
	assert_true(w.stuck.decision_t - w.stuck.first_refusal_t >= 0.25);
	assert_true(w.stuck.decision_t - w.stuck.first_refusal_t < 0.5);
	assert_true(w.stuck.refusals >= 16);
	assert_true(w.stuck.mean_gap_s > 0.0029 && w.stuck.mean_gap_s < 0.0031);
	/* sticky */
	assert_int_equal(complete(t0 + 20, "D", 0, 2048), RQ_RW_LIVELOCK);
}

/*
 * The same livelock as the kernel accounts it: blk_insert_cloned_request()
 * starts the clone's accounting and, when the path refuses it, ends it
 * (blk_account_io_done()), so every refusal that reached the path counts
 * as a completed I/O in the path's stat, though the device never saw it.
 * multipathd's TUR checker passes through the paths now and then.  The
 * stat's rise is no progress of the paths: still paths idle, under 1 s.
 */
static void discard_livelock_refusals_counted_on_the_path(void **state)
{
	enum rq_rw_verdict v;

	(void)state;
	v = discard_refused_every_3ms(0, true, true);
	assert_int_equal(v, RQ_RW_LIVELOCK);
	assert_int_equal(w.stuck.op, RQ_OPC_DISCARD);
	assert_int_equal(w.stuck.evidence, RQ_RW_EV_PATHS_IDLE);
	assert_true(w.stuck.decision_t - w.stuck.first_refusal_t < 1.0);
}

/*
 * A recorded stream (recorded_trace.h), fed as tracefs printed it, with
 * the samples the watch would have taken every 100 ms: nothing in flight
 * on the map or the paths, both paths active, and the paths' completed
 * I/Os rising by one for every refusal of the map's request
 * (blk_account_io_done() of the refused clone, above).
 */
static void recorded_livelock(const char *const *lines, enum rq_op_class op)
{
	struct rq_rw_config cfg;
	enum rq_rw_verdict v = RQ_RW_QUIET;
	double next_sample = -1;
	int64_t refusals = 0;
	char err[128];

	rq_rw_config_default(&cfg, 3.0);
	cfg.map_major = 254;
	cfg.map_minor = 0;
	cfg.nr_path_devs = 2;
	cfg.path_major[0] = 8;
	cfg.path_minor[0] = 0;
	cfg.path_major[1] = 8;
	cfg.path_minor[1] = 16;
	cfg.follow = true;
	rq_rw_init(&w, &cfg);
	for (; *lines && v != RQ_RW_LIVELOCK; lines++) {
		struct rq_trace_event e;

		assert_int_equal(rq_trace_parse_line(*lines, &e, err, sizeof(err)),
				 RQ_TRACE_EVENT);
		if (next_sample < 0)
			next_sample = e.t;
		while (v != RQ_RW_LIVELOCK && e.t >= next_sample) {
			struct rq_rw_sample s;

			rq_rw_sample_init(&s, next_sample);
			s.in_flight = 0;
			s.nr_paths = 2;
			s.nr_usable = 2;
			s.queueing = 1;
			s.paths_inflight = 0;
			s.paths_ios = 100 + refusals;
			v = rq_rw_feed_sample(&w, &s);
			next_sample += 0.1;
		}
		if (v == RQ_RW_LIVELOCK)
			break;
		if (e.major == 254 && e.type == RQ_TEV_REQUEUE)
			refusals++;
		v = rq_rw_feed_event(&w, &e);
	}
	assert_int_equal(v, RQ_RW_LIVELOCK);
	assert_int_equal(w.stuck.op, op);
	assert_int_equal(w.stuck.evidence, RQ_RW_EV_PATHS_IDLE);
	assert_true(w.stuck.decision_t - w.stuck.first_refusal_t >= 0.25);
	assert_true(w.stuck.decision_t - w.stuck.first_refusal_t < 1.0);
}

static void recorded_61_ffe_multipath_discard(void **state)
{
	(void)state;
	recorded_livelock(rec_61_ffe_mpath_discard, RQ_OPC_DISCARD);
}

static void recorded_61_ffe_multipath_flush(void **state)
{
	(void)state;
	recorded_livelock(rec_61_ffe_mpath_flush, RQ_OPC_FLUSH);
}

/* The same stream with no samples at all: only the alone rule, at 3 s. */
static void discard_livelock_trace_only(void **state)
{
	double t0 = 5.0;
	int i;
	enum rq_rw_verdict v = RQ_RW_QUIET;

	(void)state;
	start(3.0);
	for (i = 0; v != RQ_RW_LIVELOCK && i < 5000; i++)
		v = refuse(t0 + i * 0.003, "D", 4096, 2048);
	assert_int_equal(v, RQ_RW_LIVELOCK);
	assert_int_equal(w.stuck.evidence, RQ_RW_EV_ALONE);
	assert_true(w.stuck.decision_t - w.stuck.first_refusal_t >= 3.0 - 1e-6);
	assert_true(w.stuck.decision_t - w.stuck.first_refusal_t < 3.01);
}

/*
 * A flush livelocked on dm-rqpath while a read/write load goes on beside
 * it (direct issue lets them pass): FF refused every 3 ms, reads and
 * writes that arrived after it complete.  Overtaken: well under 1 s.
 */
static void flush_livelock_overtaken(void **state)
{
	double t0 = 100.0, t;
	int i;
	enum rq_rw_verdict v = RQ_RW_QUIET;

	(void)state;
	start(3.0);
	ev("insert", t0, "FF", 0, 0);
	for (i = 0; v != RQ_RW_LIVELOCK && i < 1000; i++) {
		t = t0 + 0.001 + i * 0.003;
		v = refuse(t, "FF", 0, 0);
		if (v == RQ_RW_LIVELOCK)
			break;
		if (i % 5 == 1) {	/* a write arrives, is issued, completes */
			ev("insert", t + 0.0005, "WS", 8 * (uint64_t)i, 8);
			ev("issue", t + 0.0006, "WS", 8 * (uint64_t)i, 8);
			v = complete(t + 0.0025, "WS", 8 * (uint64_t)i, 8);
		}
	}
	assert_int_equal(v, RQ_RW_LIVELOCK);
	assert_int_equal(w.stuck.op, RQ_OPC_FLUSH);
	assert_string_equal(w.stuck.rwbs, "FF");
	assert_int_equal(w.stuck.evidence, RQ_RW_EV_OVERTAKEN);
	assert_true(w.stuck.overtakes >= 8);
	assert_true(w.stuck.decision_t - w.stuck.first_refusal_t < 1.0);
}

/* Write zeroes: N on 6.1 and 6.12, WZ on 6.19. */
static void write_zeroes_livelock(void **state)
{
	const char *rwbs[] = { "N", "WZ" };
	unsigned int k;

	(void)state;
	for (k = 0; k < 2; k++) {
		enum rq_rw_verdict v = RQ_RW_QUIET;
		int i;

		start(3.0);
		for (i = 0; v != RQ_RW_LIVELOCK && i < 400; i++) {
			if (i % 33 == 0)
				v = sample(1.0 + i * 0.003, 1, 2, 0, 0, 77);
			if (v != RQ_RW_LIVELOCK)
				v = refuse(1.0 + i * 0.003 + 0.0001, rwbs[k], 0, 2048);
		}
		assert_int_equal(v, RQ_RW_LIVELOCK);
		assert_int_equal(w.stuck.op, RQ_OPC_WRITE_ZEROES);
		assert_string_equal(w.stuck.rwbs, rwbs[k]);
		assert_true(w.stuck.decision_t - w.stuck.first_refusal_t < 1.0);
	}
}

/*
 * Busy but progressing (watchdog-no-false-alarm, dm-rqpath, paths of
 * queue_depth 1): 32 requests, two path slots, each command 20 ms (heavy)
 * or 450 ms apart (sparse).  Every waiting request is refused every 3 ms
 * and on every completion; the head of the dispatch list gets the slot a
 * completion frees (FIFO), so each request is refused many times, then
 * goes through.  A discard and a flush sit in the queue like the others.
 * Never a livelock; the load is shown in the statistics.
 */
static void busy_progressing(double cmd_s, double run_s)
{
	enum { NREQ = 32 };
	const char *rwbs[NREQ];
	int queue[NREQ * 64], head = 0, tail = 0, inflight[2] = { -1, -1 };
	double busy_until[2] = { 0, 0 }, t, next_retry, next_sample;
	int64_t pios = 1000;
	int i, n = 0, done = 0;

	start(3.0);
	for (i = 0; i < NREQ; i++) {
		rwbs[i] = i == 7 ? "D" : i == 19 ? "FF" : i % 2 ? "W" : "R";
		queue[tail++] = i;
		ev("insert", 1.0, rwbs[i], i == 19 ? 0 : 8 * (uint64_t)i, i == 19 ? 0 : 8);
	}
	t = 1.0;
	next_retry = t;
	next_sample = t;
	while (t < 1.0 + run_s) {
		int p;

		/* completions free a slot; the request comes back later */
		for (p = 0; p < 2; p++) {
			if (inflight[p] >= 0 && busy_until[p] <= t) {
				int r = inflight[p];

				assert_int_not_equal(complete(busy_until[p], rwbs[r],
					r == 19 ? 0 : 8 * (uint64_t)r, r == 19 ? 0 : 8),
					RQ_RW_LIVELOCK);
				pios++;
				done++;
				inflight[p] = -1;
				queue[tail++] = r;	/* resubmitted */
				ev("insert", busy_until[p] + 0.0001, rwbs[r],
				   r == 19 ? 0 : 8 * (uint64_t)r, r == 19 ? 0 : 8);
				next_retry = busy_until[p] + 0.0002;
			}
		}
		if (t >= next_sample) {
			assert_int_not_equal(sample(t, NREQ, 2, 0,
					(inflight[0] >= 0) + (inflight[1] >= 0), pios),
					RQ_RW_LIVELOCK);
			next_sample += 0.1;
		}
		if (t >= next_retry && head < tail) {
			/* dispatch in order until a refusal */
			while (head < tail) {
				int r = queue[head];
				uint64_t sec = r == 19 ? 0 : 8 * (uint64_t)r;
				unsigned int nr = r == 19 ? 0 : 8;

				p = inflight[0] < 0 ? 0 : inflight[1] < 0 ? 1 : -1;
				if (p < 0) {
					assert_int_not_equal(refuse(t, rwbs[r], sec, nr),
							     RQ_RW_LIVELOCK);
					n++;
					break;
				}
				ev("issue", t, rwbs[r], sec, nr);
				inflight[p] = r;
				busy_until[p] = t + cmd_s;
				head++;
			}
			next_retry = t + 0.003;
		}
		t += 0.0005;
		if (tail >= NREQ * 64 - 4)
			break;
	}
	assert_int_not_equal(w.verdict, RQ_RW_LIVELOCK);
	assert_true(done > 0);
	assert_true(n > 100);
	/* the load was real: long streaks, many refusals per request */
	assert_true(w.max_streak >= 5);
	assert_true(w.requeues > w.completions);
}

static void busy_progressing_heavy(void **state)
{
	(void)state;
	busy_progressing(0.020, 6.0);
	assert_true(w.max_streak_s < 0.1);
}

static void busy_progressing_sparse(void **state)
{
	(void)state;
	busy_progressing(0.900, 10.0);
	/* a request waited most of a command time: refused ~150 times */
	assert_true(w.max_streak >= 100);
	assert_true(w.max_streak_s >= 0.4);
}

/*
 * All paths down, queue_if_no_path: dm-multipath returns
 * DM_MAPIO_DELAY_REQUEUE, the request comes back every 100 ms, for ever.
 * With the map's path states: queueing by policy.  Without them: the
 * cadence alone says queueing (a target's delayed requeue), not livelock.
 */
static void all_paths_down_queueing(void **state)
{
	int i;
	enum rq_rw_verdict v = RQ_RW_QUIET;

	(void)state;
	start(3.0);
	for (i = 0; i < 150; i++) {
		v = sample(2.0 + i * 0.1, 1, 0, 1, 0, 300);
		assert_int_not_equal(v, RQ_RW_LIVELOCK);
		v = refuse(2.0 + i * 0.1 + 0.001, "D", 0, 2048);
		assert_int_not_equal(v, RQ_RW_LIVELOCK);
	}
	assert_int_equal(v, RQ_RW_QUEUEING);
	assert_false(w.queueing_by_cadence);
	assert_true(w.max_streak >= 150);

	start(3.0);
	for (i = 0; i < 150; i++)
		v = refuse(2.0 + i * 0.1, "R", 64, 8);
	assert_int_equal(v, RQ_RW_QUEUEING);
	assert_true(w.queueing_by_cadence);

	/* a path comes back: the request goes through, quiet again */
	ev("issue", 17.5, "R", 64, 8);
	assert_int_equal(complete(17.51, "R", 64, 8), RQ_RW_QUIET);
}

/*
 * Even with a usable path, requests at 100 ms steps are the target's own
 * delayed requeue (pg_init in progress): queueing, never livelock.
 */
static void delayed_requeue_with_paths(void **state)
{
	int i;
	enum rq_rw_verdict v = RQ_RW_QUIET;

	(void)state;
	start(3.0);
	for (i = 0; i < 80; i++) {
		sample(3.0 + i * 0.1, 1, 2, 1, 0, 10);
		v = refuse(3.0 + i * 0.1 + 0.01, "D", 0, 2048);
		assert_int_not_equal(v, RQ_RW_LIVELOCK);
	}
	assert_int_equal(v, RQ_RW_QUEUEING);
}

/* A slow device: accepted, in flight, nothing completes for 2 s. */
static void slow_device(void **state)
{
	int i;
	enum rq_rw_verdict v;

	(void)state;
	start(3.0);
	for (i = 0; i < 4; i++) {
		ev("insert", 1.0, "W", 8 * (uint64_t)i, 8);
		ev("issue", 1.0001, "W", 8 * (uint64_t)i, 8);
	}
	v = sample(1.5, 4, 2, 0, 4, 10);
	assert_int_equal(v, RQ_RW_QUIET);
	v = sample(2.1, 4, 2, 0, 4, 10);
	assert_int_equal(v, RQ_RW_SLOW);
	v = sample(3.0, 4, 2, 0, 4, 10);
	assert_int_equal(v, RQ_RW_SLOW);
	for (i = 0; i < 4; i++)
		v = complete(3.1, "W", 8 * (uint64_t)i, 8);
	assert_int_equal(v, RQ_RW_QUIET);
	assert_true(w.max_no_completion_s >= 1.99);
}

/* Counters only (no tracefs): in flight, completions flat: slow. */
static void counters_only_slow(void **state)
{
	struct rq_rw_sample s;
	int i;

	(void)state;
	start(3.0);
	for (i = 0; i < 20; i++) {
		rq_rw_sample_init(&s, i * 0.1);
		s.in_flight = 1;
		s.map_ios = i < 5 ? 100 + i : 105;
		rq_rw_feed_sample(&w, &s);
	}
	assert_int_equal(w.verdict, RQ_RW_SLOW);
	rq_rw_sample_init(&s, 2.0);
	s.in_flight = 0;
	s.map_ios = 106;
	assert_int_equal(rq_rw_feed_sample(&w, &s), RQ_RW_QUIET);
	assert_false(rq_rw_drained(&w));	/* one sample is not enough */
	rq_rw_sample_init(&s, 2.1);
	s.in_flight = 0;
	s.map_ios = 106;
	rq_rw_feed_sample(&w, &s);
	assert_true(rq_rw_drained(&w));
}

/* The livelocked request is not in sysfs inflight: never drained. */
static void refused_request_is_not_drained(void **state)
{
	int i;

	(void)state;
	start(3.0);
	for (i = 0; i < 100; i++) {
		refuse(1.0 + i * 0.003, "D", 0, 2048);
		if (i % 33 == 0)
			sample(1.0 + i * 0.003 + 0.001, 0, 2, 1, 0, 9);
		assert_false(rq_rw_drained(&w));
	}
}

/*
 * The fixed stages in the livelock scenario: scsi_debug answers every
 * command host-busy for a while, so the discard is refused every 3 ms,
 * but each try reaches a path (issue and requeue on sdX), the paths show
 * nothing in flight.  Not idle paths, not overtaken: no verdict; then it
 * completes.
 */
static void transient_path_busy_is_not_livelock(void **state)
{
	int i;
	enum rq_rw_verdict v;

	(void)state;
	start(3.0);
	for (i = 0; i < 300; i++) {
		double t = 4.0 + i * 0.003;

		if (i % 33 == 0)
			assert_int_not_equal(sample(t, 1, 2, 1, 0, 50), RQ_RW_LIVELOCK);
		ev("issue", t + 0.0001, "D", 0, 2048);
		ev_on(i % 2 ? P1 : P2, "issue", t + 0.0002, "D", 0, 2048);
		ev_on(i % 2 ? P1 : P2, "requeue", t + 0.0003, "D", 0, 2048);
		v = ev("requeue", t + 0.0004, "D", 0, 2048);
		assert_int_not_equal(v, RQ_RW_LIVELOCK);
	}
	ev("issue", 5.0, "D", 0, 2048);
	ev_on(P1, "issue", 5.0001, "D", 0, 2048);
	ev_on(P1, "complete", 5.01, "D", 0, 2048);
	v = complete(5.011, "D", 0, 2048);
	assert_int_equal(v, RQ_RW_QUIET);
	assert_int_equal(w.max_streak, 300);
	assert_true(w.path_events > 0);
}

/* Another discard completing restarts the streak of a refused one. */
static void class_completion_restarts_the_streak(void **state)
{
	int i;
	enum rq_rw_verdict v = RQ_RW_QUIET;

	(void)state;
	start(3.0);
	for (i = 0; i < 2000; i++) {
		double t = 1.0 + i * 0.003;

		v = refuse(t, "D", 0, 2048);
		assert_int_not_equal(v, RQ_RW_LIVELOCK);
		if (i % 50 == 49) {
			/* a discard elsewhere gets through */
			ev("insert", t + 0.001, "D", 100000 + (uint64_t)i, 8);
			ev("issue", t + 0.001, "D", 100000 + (uint64_t)i, 8);
			complete(t + 0.002, "D", 100000 + (uint64_t)i, 8);
		}
	}
	assert_true(w.max_streak <= 50);
}

/* --json: the stuck request, its age, the path states. */
static void json_report_of_a_livelock(void **state)
{
	static struct rq_map_state ms;
	struct rq_rw_summary sum;
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	json_object *o;
	char err[64];

	discard_livelock_paths_idle(state);
	assert_int_equal(rq_mapstate_parse_multipath("2 0 0 0 1 1 A 0 2 0 8:0 A 0 8:16 A 0",
		"1 queue_if_no_path 0 1 1 round-robin 0 2 1 8:0 1 8:16 1", &ms, err, sizeof(err)), 0);
	memset(&sum, 0, sizeof(sum));
	sum.device = "/dev/dm-0";
	sum.dm_name = "mpatha";
	sum.kname = "dm-0";
	sum.major = 253;
	sum.target = "multipath";
	sum.source = "trace";
	sum.outcome = RQ_RWO_LIVELOCK;
	sum.t0 = 10.0;
	sum.interval_ms = 100;
	sum.state = &w;
	sum.paths = &ms;
	f = open_memstream(&text, &len);
	assert_int_equal(rq_rw_print_json(f, &sum), 0);
	fclose(f);
	o = json_parse_strict(text);
	assert_json_str(o, "schema", "rqpathctl.watch-requests/1");
	assert_json_str(o, "verdict", "livelock");
	assert_json_i64(o, "exit_code", 1);
	assert_json_str(o, "stuck_request.op", "discard");
	assert_json_u64(o, "stuck_request.nr_sectors", 2048);
	assert_json_str(o, "stuck_request.evidence", "paths_idle");
	assert_true(json_object_get_int(json_at(o, "stuck_request.refusals")) >= 16);
	assert_true(json_object_get_double(json_at(o, "detection_latency_s")) < 1.0);
	assert_json_str(o, "paths.list.1.state", "active");
	assert_json_bool(o, "paths.queue_if_no_path", 1);
	assert_true(json_object_get_int(json_at(o, "load.ops.discard.requeues")) >= 16);
	assert_json_null(o, "queueing");
	json_object_put(o);
	free(text);
}

static void names(void **state)
{
	(void)state;
	assert_string_equal(rq_rw_verdict_name(RQ_RW_QUEUEING), "queueing");
	assert_string_equal(rq_rw_verdict_name(RQ_RW_LIVELOCK), "livelock");
	assert_string_equal(rq_rw_evidence_name(RQ_RW_EV_PATHS_IDLE), "paths_idle");
	assert_string_equal(rq_op_class_name(RQ_OPC_WRITE_ZEROES), "write_zeroes");
}

#define BOTH(f) cmocka_unit_test_setup(f, v61), cmocka_unit_test_setup(f, v612)

int main(void)
{
	const struct CMUnitTest tests[] = {
		BOTH(discard_livelock_paths_idle),
		BOTH(discard_livelock_refusals_counted_on_the_path),
		cmocka_unit_test(recorded_61_ffe_multipath_discard),
		cmocka_unit_test(recorded_61_ffe_multipath_flush),
		BOTH(discard_livelock_trace_only),
		BOTH(flush_livelock_overtaken),
		BOTH(write_zeroes_livelock),
		BOTH(busy_progressing_heavy),
		BOTH(busy_progressing_sparse),
		BOTH(all_paths_down_queueing),
		BOTH(delayed_requeue_with_paths),
		BOTH(slow_device),
		cmocka_unit_test(counters_only_slow),
		BOTH(refused_request_is_not_drained),
		BOTH(transient_path_busy_is_not_livelock),
		BOTH(class_completion_restarts_the_streak),
		cmocka_unit_test_setup(json_report_of_a_livelock, v612),
		cmocka_unit_test(names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The livelock watchdog for any request-based dm map, per request: pure
 * (no I/O, no clock), fed with the block request tracepoints of the map's
 * queue (rq_trace.h) and, optionally, samples of the map's and its paths'
 * counters and path states.  The caller owns the clock and the I/O; every
 * time here is one the caller gave.
 *
 * The signature of the ffe81d45322c livelock is one request refused over
 * and over (block_rq_issue then block_rq_requeue on the map, every ~3 ms:
 * BLK_MQ_RESOURCE_DELAY) while nothing of its op class completes.  A map
 * whose paths are merely full shows the same events for a while, so a
 * streak alone is not enough; the verdict needs, besides the streak
 * (README.md, "watch: per request", has the full rule):
 *
 *   - at least min_refusals consecutive refusals, over at least floor_s,
 *     with no completion of the request's op class since the first;
 *   - refusals at the cadence of a resource retry, not of a target's own
 *     delayed requeue (dm-multipath's DM_MAPIO_DELAY_REQUEUE: 100 ms);
 *   - a map with a usable path (no path and queueing is the map's
 *     policy: verdict queueing, not livelock);
 *   - proof that room was there and the request still did not get it:
 *       overtaken   min_overtakes requests that arrived after its first
 *                   refusal completed meanwhile, or
 *       paths idle  two path samples paths_idle_s apart, inside the
 *                   streak, with nothing in flight on any usable path,
 *                   no path tracepoint between them, and a refusal of
 *                   the request between them, or
 *       alone       neither could be seen, nor any path completion, and
 *                   the streak is alone_s old (the old 3 s rule's
 *                   patience).
 *   What the paths did comes from their tracepoints; their stat
 *   (paths_ios) only where they are not traced, because a refused clone
 *   counts as a completed I/O there (rq_reqwatch.c, path_completed()).
 */
#ifndef RQ_REQWATCH_H
#define RQ_REQWATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "rq_trace.h"

#define RQ_RW_MAX_REQS	512	/* requests tracked at once */
#define RQ_RW_MAX_PATHS	32

struct rq_rw_config {
	unsigned int map_major, map_minor;
	unsigned int nr_path_devs;	/* path devices whose events count */
	unsigned int path_major[RQ_RW_MAX_PATHS];
	unsigned int path_minor[RQ_RW_MAX_PATHS];
	unsigned int min_refusals;	/* default 16 */
	double floor_s;			/* default 0.25 */
	double delayed_gap_s;		/* mean gap at or above: delayed requeue; 0.04 */
	unsigned int min_overtakes;	/* default 8 */
	double paths_idle_s;		/* default 0.1 */
	double alone_s;			/* default 3 (--stall) */
	double slow_s;			/* default 1 */
	/* follow: nothing in flight is idle, not the end (as rq_watch) */
	bool follow;
};

/*
 * One sample of the counters, all optional: -1 where not read.  Times on
 * the trace clock (the caller sets tracefs' clock to mono and samples
 * CLOCK_MONOTONIC).
 */
struct rq_rw_sample {
	double t;
	int64_t in_flight;	/* /sys/block/dm-N/inflight, both columns */
	int64_t map_ios;	/* dm-N stat: completed I/Os, all ops */
	int nr_paths;		/* from the map's status */
	int nr_usable;		/* paths in state A */
	int queueing;		/* queue_if_no_path in force: 1, 0, -1 */
	int64_t paths_inflight;	/* usable paths' inflight, summed */
	int64_t paths_ios;	/* usable paths' completed I/Os, summed */
};

void rq_rw_sample_init(struct rq_rw_sample *s, double t);

enum rq_rw_verdict {
	RQ_RW_QUIET,		/* nothing wrong (yet) */
	RQ_RW_LIVELOCK,		/* sticky */
	RQ_RW_QUEUEING,		/* no usable path, queueing by policy */
	RQ_RW_SLOW,		/* in flight, accepted, nothing completes */
};

enum rq_rw_evidence {
	RQ_RW_EV_NONE,
	RQ_RW_EV_OVERTAKEN,
	RQ_RW_EV_PATHS_IDLE,
	RQ_RW_EV_ALONE,
};

enum rq_rw_state {
	RQ_RW_SEEN,		/* inserted, not issued */
	RQ_RW_ISSUED,
	RQ_RW_REFUSED,		/* requeued after its last issue */
};

struct rq_rw_req {
	bool used;
	enum rq_op_class op;
	char rwbs[RQ_RWBS_LEN];
	uint64_t sector;
	unsigned int nr_sectors;
	enum rq_rw_state state;
	double first_seen_t;
	double issued_t;		/* last issue */
	/* the current streak: requeues with no completion of its class */
	unsigned int refusals;
	unsigned int total_refusals;	/* over its life */
	double first_refusal_t;
	double last_refusal_t;
	unsigned int overtakes;
	bool path_progress;		/* paths completed I/O in the streak */
	/* paths-idle proof: the idle sample it starts at */
	bool idle_mark;
	double idle_t;
	int64_t idle_paths_ios;
	unsigned int idle_refusals;
	bool idle_proof;
};

/* The request a livelock verdict is about, copied at the decision. */
struct rq_rw_stuck {
	enum rq_op_class op;
	char rwbs[RQ_RWBS_LEN];
	uint64_t sector;
	unsigned int nr_sectors;
	unsigned int refusals;
	double first_refusal_t;
	double last_refusal_t;
	double decision_t;
	enum rq_rw_evidence evidence;
	unsigned int overtakes;
	double mean_gap_s;
};

struct rq_rw_state_s {
	struct rq_rw_config cfg;
	double now;
	bool started;
	double first_t;
	enum rq_rw_verdict verdict;
	struct rq_rw_stuck stuck;
	struct rq_rw_req req[RQ_RW_MAX_REQS];
	unsigned int nr_req;		/* used entries (a high-water mark) */
	/* per op class */
	double class_done_t[RQ_OPC_NR];
	uint64_t class_completions[RQ_OPC_NR];
	uint64_t class_requeues[RQ_OPC_NR];
	/* the map */
	uint64_t events;
	uint64_t requeues;
	uint64_t completions;
	uint64_t refused_requests;	/* distinct requests refused >= once */
	uint64_t dropped;		/* events for a full table */
	double last_completion_t;
	double last_path_event_t;
	uint64_t path_events;
	/* samples */
	unsigned int nr_samples;
	bool has_sample;
	struct rq_rw_sample last;
	int64_t prev_in_flight;		/* the sample before last, -1 */
	double prev_sample_t;
	double map_ios_base_t;		/* first sample with map_ios */
	double map_ios_change_t;	/* map_ios last moved */
	/* what the load looked like (for a quiet verdict) */
	unsigned int max_streak;	/* refusals */
	double max_streak_s;
	double max_no_completion_s;
	double busy_since_t;		/* something tracked or in flight */
	bool busy;
	/* why the current phase is queueing or slow, for the report */
	bool queueing_by_cadence;
};

typedef struct rq_rw_state_s rq_rw_t;

void rq_rw_config_default(struct rq_rw_config *cfg, double stall_s);
void rq_rw_init(rq_rw_t *w, const struct rq_rw_config *cfg);

/* Feed one event or one sample, in time order; returns the verdict. */
enum rq_rw_verdict rq_rw_feed_event(rq_rw_t *w, const struct rq_trace_event *ev);
enum rq_rw_verdict rq_rw_feed_sample(rq_rw_t *w, const struct rq_rw_sample *s);

/*
 * Nothing in flight at the last two samples, and no refusal or issue on
 * the map since the one before last (a refused request is not counted
 * in sysfs inflight: its requeues are what shows it).
 */
bool rq_rw_drained(const rq_rw_t *w);

/* The request with the longest current refusal streak, or NULL. */
const struct rq_rw_req *rq_rw_longest_streak(const rq_rw_t *w);

const char *rq_rw_verdict_name(enum rq_rw_verdict v);
const char *rq_rw_evidence_name(enum rq_rw_evidence e);

#endif

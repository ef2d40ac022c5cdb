/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What `rqpathctl watch` reads for any request-based dm map besides the
 * DM ioctls: which dm-N a name or node is and what its paths are (sysfs),
 * the map's and its paths' inflight and stat counters, and the block
 * request tracepoints of the map and its paths through a tracefs instance
 * of its own (so that it neither disturbs nor is disturbed by anyone
 * using the top-level trace buffer).  All the I/O of the request watch;
 * the decision is rq_reqwatch's.
 */
#ifndef RQ_MAPIO_H
#define RQ_MAPIO_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "rq_mapstate.h"
#include "rq_reqwatch.h"

struct rq_map_id {
	char name[128];			/* device-mapper name */
	char kname[32];			/* dm-N */
	unsigned int major, minor;
	bool request_based;		/* /sys/block/dm-N/mq exists */
	unsigned int nr_slaves;
	char slave_kname[RQ_RW_MAX_PATHS][32];
	unsigned int slave_major[RQ_RW_MAX_PATHS];
	unsigned int slave_minor[RQ_RW_MAX_PATHS];
};

/*
 * ARG: /dev/dm-N, /dev/mapper/NAME (any block node of a dm device) or a
 * device-mapper name.  Returns 0, or -1 with a reason.
 */
int rq_map_resolve(const char *arg, struct rq_map_id *id, char *err,
		   size_t errlen);

/*
 * Fill in_flight, map_ios and the paths' sums of s (the rest is left as
 * it is); ms, if not NULL, says which paths are usable (all otherwise).
 */
void rq_map_sample_sysfs(const struct rq_map_id *id,
			 const struct rq_map_state *ms,
			 struct rq_rw_sample *s);

struct rq_tracefs {
	char root[64];			/* /sys/kernel/tracing or debugfs */
	char inst[PATH_MAX];		/* our instance */
	int pipe_fd;
	bool mono;			/* trace_clock set to mono */
	char buf[65536];
	size_t len;
	unsigned long long lines, bad_lines;
};

/*
 * Make an instance, filter block_rq_{insert,issue,requeue,complete} on
 * the map and its slaves, set its clock to mono, open its trace_pipe.
 * Returns 0, or -1 with why (not mounted, not permitted...) and nothing
 * left behind.
 */
int rq_tracefs_open(struct rq_tracefs *tf, const struct rq_map_id *id,
		    char *why, size_t whylen);

/*
 * Wait up to timeout_ms for trace data, then hand every whole line read
 * to cb, without blocking again.  Returns 0, or -1 on a read error.
 */
int rq_tracefs_pump(struct rq_tracefs *tf, int timeout_ms,
		    void (*cb)(const char *line, void *arg), void *arg);

/* Disable, close, remove the instance. */
void rq_tracefs_close(struct rq_tracefs *tf);

#endif

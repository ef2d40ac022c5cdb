/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The path states of a request-based dm map, from its status and table
 * lines as the kernel prints them (what `dmsetup status` and `dmsetup
 * table` show after "<start> <length> <type>").  Pure: no I/O.
 *
 * multipath (drivers/md/dm-mpath.c, multipath_status()):
 *   status: 2 <queue_io> <pg_init_count> <nr_hwh_args> <hwh args>
 *           <nr_pgs> <next_pg> then per group: <A|E|D>
 *           <nr_ps_status_args> <ps args> <nr_paths> <nr_path_info_args>
 *           then per path: <major:minor> <A|F> <fail_count> <info args>
 *   table:  <nr_features> <features> ...: queue_if_no_path is among the
 *           features while it is in force (multipathd's no_path_retry
 *           switches it off with "fail_if_no_path" when it runs out).
 * rqpath: rq_status_parse() (dm-target/README.md).
 */
#ifndef RQ_MAPSTATE_H
#define RQ_MAPSTATE_H

#include <stdbool.h>
#include <stddef.h>

#include "rq_status.h"

#define RQ_MAP_MAX_PATHS 64

struct rq_map_path {
	char dev[RQ_DEV_LEN];
	unsigned int major, minor;
	bool active;
	unsigned int fail_count;
};

struct rq_map_state {
	char target[32];		/* "multipath", "rqpath" */
	unsigned int nr_paths;
	unsigned int nr_active;
	struct rq_map_path paths[RQ_MAP_MAX_PATHS];
	int queue_if_no_path;		/* 1, 0, or -1 unknown */
	int queue_io;			/* multipath: queueing right now; -1 */
};

/*
 * Parse a multipath status line, and its table line when not NULL (for
 * queue_if_no_path).  Returns 0, or -1 with a reason in err.
 */
int rq_mapstate_parse_multipath(const char *status, const char *table,
				struct rq_map_state *ms, char *err,
				size_t errlen);

/* The same facts from an rqpath status. */
void rq_mapstate_from_rqpath(const struct rq_status *st,
			     struct rq_map_state *ms);

/* Whether dev major:minor is an active path of the map. */
bool rq_mapstate_path_active(const struct rq_map_state *ms,
			     unsigned int major, unsigned int minor);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Parsers for the two lines the rqpath target prints (dm-target/README.md):
 * the STATUSTYPE_INFO status line and the STATUSTYPE_TABLE table line.
 *
 * Pure code: no I/O, no libdevmapper, so the unit tests can feed it
 * recorded lines.
 */
#ifndef RQ_STATUS_H
#define RQ_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RQ_MAX_PATHS	32	/* the target's own limit: 1 to 32 paths */
#define RQ_MAX_OPS	32	/* op groups kept; further groups are skipped */
#define RQ_MAX_NR_OPS	4096	/* sanity bound on <nr_ops> */
#define RQ_MAX_FEATURES	64	/* sanity bound on <nr_features> */
#define RQ_DEV_LEN	24	/* "4294967295:4294967295" + NUL */
#define RQ_OP_NAME_LEN	32
#define RQ_EXTRA_LEN	256
#define RQ_ERR_LEN	192

struct rq_path_status {
	char dev[RQ_DEV_LEN];		/* "major:minor" as printed */
	unsigned int major;
	unsigned int minor;
	bool failed;			/* state F; state A is active */
	uint64_t fail_count;
	uint64_t dispatched;
};

/* One <op> group; also used for sums and deltas over several groups. */
struct rq_op_counters {
	char name[RQ_OP_NAME_LEN];
	uint64_t mapped;
	uint64_t busy;
	uint64_t completed;
	uint64_t errors;
	/*
	 * From the trailing (<op> <refused> <busy_since_completion>) group;
	 * 0 when the line has none (rq_status.has_op_details tells).
	 * refused is a counter like the four above.  busy_since_completion
	 * is a gauge (it drops to 0 when the op completes): sums leave it
	 * 0 and deltas carry the later value.
	 */
	uint64_t refused;
	uint64_t busy_since_completion;
};

struct rq_status {
	unsigned int nr_paths;
	struct rq_path_status paths[RQ_MAX_PATHS];
	bool queue_if_no_path;
	uint64_t in_flight;
	uint64_t busy_since_completion;
	uint64_t no_path_requeues;
	uint64_t no_clone_requeues;
	unsigned int nr_ops;		/* <nr_ops> as the kernel printed it */
	unsigned int nr_ops_kept;	/* filled entries of ops[] */
	struct rq_op_counters ops[RQ_MAX_OPS];
	/*
	 * The line carried the trailing (<op> <refused>
	 * <busy_since_completion>){nr_ops} group.  Older targets end after
	 * the first op groups: then refused and the per-op
	 * busy_since_completion are unknown, not 0.
	 */
	bool has_op_details;
	/* fields after the trailing group that this version does not know */
	unsigned int nr_extra_fields;
	char extra_fields[RQ_EXTRA_LEN];	/* their text, maybe truncated */
};

struct rq_table {
	unsigned int nr_paths;
	char paths[RQ_MAX_PATHS][RQ_DEV_LEN];	/* "major:minor" as printed */
	unsigned int nr_features;
	bool queue_if_no_path;
	unsigned int nr_unknown_features;
	char unknown_features[RQ_EXTRA_LEN];	/* space separated, maybe truncated */
};

/*
 * Parse a status line (the target's parameters; a leading
 * "<start> <length> rqpath" as dmsetup prints it is skipped).  Returns 0,
 * or -1 with a message naming the bad field in err.
 */
int rq_status_parse(const char *line, struct rq_status *st,
		    char *err, size_t errlen);

/* Parse a table line in canonical form; same conventions. */
int rq_table_parse(const char *line, struct rq_table *table,
		   char *err, size_t errlen);

/*
 * Build the target parameters for a new table:
 * "<n> <path>... [1 queue_if_no_path]".  Returns 0, or -1 when buf is too
 * small or a path is empty or contains white space.
 */
int rq_table_params_format(char *buf, size_t len, unsigned int nr_paths,
			   const char *const paths[], bool queue_if_no_path);

/* Sum of all kept op groups; the result is named "total". */
struct rq_op_counters rq_status_totals(const struct rq_status *st);

const struct rq_op_counters *rq_status_find_op(const struct rq_status *st,
					       const char *name);

bool rq_table_has_dev(const struct rq_table *table, unsigned int major,
		      unsigned int minor);

/* "major:minor" with decimal numbers, nothing else.  Returns 0 or -1. */
int rq_parse_dev(const char *text, size_t len, unsigned int *major,
		 unsigned int *minor);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Command line parsing for rqpathctl.  Pure: it fills a struct rq_cli from
 * argv and never prints, so the unit tests can check every form.
 */
#ifndef RQ_CLI_H
#define RQ_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "rq_exit.h"
#include "rq_fields.h"
#include "rq_status.h"

/*
 * The exit status (rq_exit.h, shared with rqcheck): 0 success, or watch
 * drained/quiet; 1 watch: livelock; 2 usage; 3 failure (device missing or
 * vanished, ioctl refused, status unparsable, file not writable); 4 watch:
 * no decision (timeout, stall, interrupted).
 */

enum rq_cmd {
	RQ_CMD_NONE,		/* no subcommand: global --help/--version */
	RQ_CMD_CREATE,
	RQ_CMD_REMOVE,
	RQ_CMD_STATUS,
	RQ_CMD_TABLE,
	RQ_CMD_FAIL_PATH,
	RQ_CMD_REINSTATE_PATH,
	RQ_CMD_MESSAGE,
	RQ_CMD_WATCH,
};

#define RQ_NAME_MAX		127	/* DM_NAME_LEN - 1 */
#define RQ_MESSAGE_MAX		1024
#define RQ_WATCH_INTERVAL_MS	200
#define RQ_WATCH_INTERVAL_MAX_MS 60000
#define RQ_WATCH_STALL_S	3.0

/* watch --via: what the watch reads and which decision it runs */
enum rq_via {
	RQ_VIA_AUTO,		/* rqpath: status; else trace, or counters */
	RQ_VIA_STATUS,		/* dm-rqpath's status counters (rq_watch) */
	RQ_VIA_TRACE,		/* tracepoints per request (rq_reqwatch) */
	RQ_VIA_COUNTERS,	/* sysfs inflight/stat only (rq_reqwatch) */
};

struct rq_cli {
	enum rq_cmd cmd;
	bool help;		/* --help: print the usage of cmd and exit 0 */
	bool version;
	bool verbose;		/* -v before the subcommand: libdm debug log */
	const char *name;
	/* create */
	unsigned int nr_paths;
	const char *paths[RQ_MAX_PATHS];
	bool queue_if_no_path;
	/* fail-path, reinstate-path */
	const char *path;
	/* message: the words joined by single spaces */
	char message[RQ_MESSAGE_MAX];
	/* status, watch: JSON to json_file ("-" = stdout) */
	bool json;
	const char *json_file;
	/* status --fields */
	bool has_fields;
	struct rq_field_list fields;
	/* watch */
	unsigned int interval_ms;
	bool has_interval;	/* --interval given (trace mode: 100 ms else) */
	enum rq_via via;
	double stall_s;
	bool has_timeout;
	double timeout_s;
	bool follow;		/* in_flight 0 is idle, not the end */
	const char *samples_file;	/* every sample, one JSON line ("-" = stdout) */
	/* set when parsing fails */
	char error[256];
};

/*
 * Parse argv (argv[0] is the program).  Returns RQ_EXIT_OK, or
 * RQ_EXIT_USAGE with cli->error set.
 */
int rq_cli_parse(int argc, char *const argv[], struct rq_cli *cli);

const char *rq_cmd_name(enum rq_cmd cmd);

/* Usage of one subcommand, or the overview for RQ_CMD_NONE. */
void rq_cli_usage(FILE *out, enum rq_cmd cmd);

#endif

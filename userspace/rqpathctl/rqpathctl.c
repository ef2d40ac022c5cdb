// SPDX-License-Identifier: GPL-2.0
/*
 * rqpathctl: control tool for the rqpath device-mapper target.
 *
 * This file wires the pieces together: rq_cli parses the command line,
 * rq_dm talks to device-mapper, rq_status parses what the target prints,
 * rq_watch decides about livelocks and rq_format prints.  Only rq_dm (and
 * rq_sys for block devices and the kernel log) touch the system.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rq_cli.h"
#include "rq_dm.h"
#include "rq_fields.h"
#include "rq_format.h"
#include "rq_mapio.h"
#include "rq_mapstate.h"
#include "rq_reqformat.h"
#include "rq_reqwatch.h"
#include "rq_trace.h"
#include "rq_status.h"
#include "rq_sys.h"
#include "rq_watch.h"

#define RQPATHCTL_VERSION "0.2"
#define SECTOR_SHIFT 9
/* Room for an error message that quotes a whole status line. */
#define MSG_LEN 4096

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int fail(const char *fmt, ...)
{
	va_list ap;

	fputs("rqpathctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return RQ_EXIT_FAILURE;
}

/* Read and parse NAME's status; prints nothing, explains in err. */
static enum rq_dm_result fetch_status(const char *name, struct rq_status *st,
				      char *err, size_t errlen)
{
	struct rq_dm_target target;
	enum rq_dm_result res;
	char why[RQ_ERR_LEN];

	res = rq_dm_read_target(name, false, &target, err, errlen);
	if (res != RQ_DM_OK)
		return res;
	if (rq_status_parse(target.params, st, why, sizeof(why))) {
		snprintf(err, errlen, "unparsable status line: %s; line: '%s'",
			 why, target.params);
		res = RQ_DM_FAILED;
	}
	rq_dm_target_free(&target);
	return res;
}

static enum rq_dm_result fetch_table(const char *name, struct rq_table *table,
				     char *err, size_t errlen)
{
	struct rq_dm_target target;
	enum rq_dm_result res;
	char why[RQ_ERR_LEN];

	res = rq_dm_read_target(name, true, &target, err, errlen);
	if (res != RQ_DM_OK)
		return res;
	if (rq_table_parse(target.params, table, why, sizeof(why))) {
		snprintf(err, errlen, "unparsable table line: %s; line: '%s'",
			 why, target.params);
		res = RQ_DM_FAILED;
	}
	rq_dm_target_free(&target);
	return res;
}

static int report_read_failure(const char *cmd, const char *name,
			       enum rq_dm_result res, const char *err)
{
	if (res == RQ_DM_NOT_FOUND)
		return fail("%s: no device named '%s'", cmd, name);
	return fail("%s: %s: %s", cmd, name, err);
}

/* The table uses major:minor: no second lookup of the names by the kernel. */
static int probe_paths(const struct rq_cli *cli,
		       char devs[][RQ_DEV_LEN], uint64_t *sectors)
{
	char err[MSG_LEN];
	unsigned int i;

	*sectors = UINT64_MAX;
	for (i = 0; i < cli->nr_paths; i++) {
		struct rq_blockdev bdev;
		uint64_t size;

		if (rq_blockdev_probe(cli->paths[i], &bdev, err, sizeof(err)))
			return fail("create: %s", err);
		size = bdev.size_bytes >> SECTOR_SHIFT;
		if (!size)
			return fail("create: %s is empty", cli->paths[i]);
		if (size < *sectors)
			*sectors = size;
		snprintf(devs[i], RQ_DEV_LEN, "%u:%u", bdev.major, bdev.minor);
	}
	return RQ_EXIT_OK;
}

/* The contract says the canonical table reads back as what was loaded. */
static void check_table_readback(const char *name, const struct rq_cli *cli)
{
	struct rq_table table;
	char err[MSG_LEN];

	if (fetch_table(name, &table, err, sizeof(err)) != RQ_DM_OK) {
		fprintf(stderr, "rqpathctl: create: warning: cannot read back "
			"the table: %s\n", err);
		return;
	}
	if (table.nr_paths != cli->nr_paths ||
	    table.queue_if_no_path != cli->queue_if_no_path)
		fprintf(stderr, "rqpathctl: create: warning: the table reads "
			"back with %u paths, queue_if_no_path %d\n",
			table.nr_paths, table.queue_if_no_path);
}

static int cmd_create(const struct rq_cli *cli)
{
	char devs[RQ_MAX_PATHS][RQ_DEV_LEN];
	const char *dev_ptrs[RQ_MAX_PATHS];
	char params[RQ_MAX_PATHS * (RQ_DEV_LEN + 1) + 64];
	uint64_t sectors;
	unsigned int i;

	if (probe_paths(cli, devs, &sectors))
		return RQ_EXIT_FAILURE;
	for (i = 0; i < cli->nr_paths; i++)
		dev_ptrs[i] = devs[i];
	if (rq_table_params_format(params, sizeof(params), cli->nr_paths,
				   dev_ptrs, cli->queue_if_no_path))
		return fail("create: cannot build the table");
	if (rq_dm_create(cli->name, sectors, params))
		return RQ_EXIT_FAILURE;
	check_table_readback(cli->name, cli);
	printf("%s: created: 0 %" PRIu64 " rqpath %s\n", cli->name, sectors,
	       params);
	return RQ_EXIT_OK;
}

static int cmd_remove(const struct rq_cli *cli)
{
	if (rq_dm_remove(cli->name))
		return RQ_EXIT_FAILURE;
	printf("%s: removed\n", cli->name);
	return RQ_EXIT_OK;
}

/*
 * An output file of --json: "-" is stdout.  Opened (created, truncated)
 * before any work, so that a bad path fails at once.
 */
static FILE *open_output(const char *cmd, const char *file)
{
	FILE *f;

	if (!strcmp(file, "-"))
		return stdout;
	f = fopen(file, "w");
	if (!f)
		fail("%s: cannot open %s: %s", cmd, file, strerror(errno));
	return f;
}

/* Flush and close; a full disk shows here.  Returns 0 or an exit code. */
static int close_output(const char *cmd, const char *file, FILE *f)
{
	int bad = ferror(f) | fflush(f);

	if (f != stdout)
		bad |= fclose(f);
	if (bad)
		return fail("%s: cannot write %s: %s", cmd,
			    strcmp(file, "-") ? file : "stdout",
			    strerror(errno));
	return RQ_EXIT_OK;
}

static int print_status_json(const struct rq_cli *cli,
			     const struct rq_status *st, FILE *out)
{
	if (rq_status_print_json(out, cli->name, st)) {
		if (out != stdout)
			fclose(out);
		return fail("status: cannot write the JSON to %s",
			    strcmp(cli->json_file, "-") ? cli->json_file :
							  "stdout");
	}
	return close_output("status", cli->json_file, out);
}

static int cmd_status(const struct rq_cli *cli)
{
	static struct rq_status st;	/* large: keep it off the stack */
	char err[MSG_LEN];
	enum rq_dm_result res;
	FILE *out = NULL;

	if (cli->json) {
		out = open_output("status", cli->json_file);
		if (!out)
			return RQ_EXIT_FAILURE;
	}
	res = fetch_status(cli->name, &st, err, sizeof(err));
	if (res != RQ_DM_OK) {
		if (out && out != stdout)
			fclose(out);
		return report_read_failure("status", cli->name, res, err);
	}
	if (out)
		return print_status_json(cli, &st, out);
	if (cli->has_fields)
		rq_fields_print(stdout, &cli->fields, &st);
	else
		rq_status_print_human(stdout, cli->name, &st);
	return RQ_EXIT_OK;
}

static int cmd_table(const struct rq_cli *cli)
{
	struct rq_dm_target target;
	char err[MSG_LEN];
	enum rq_dm_result res;

	res = rq_dm_read_target(cli->name, true, &target, err, sizeof(err));
	if (res != RQ_DM_OK)
		return report_read_failure("table", cli->name, res, err);
	printf("%" PRIu64 " %" PRIu64 " rqpath %s\n", target.start,
	       target.length, target.params);
	rq_dm_target_free(&target);
	return RQ_EXIT_OK;
}

/* rq_dm_message() explains its own failures. */
static int send_message(const char *name, const char *text)
{
	return rq_dm_message(name, text) == RQ_DM_OK ? RQ_EXIT_OK :
						       RQ_EXIT_FAILURE;
}

/*
 * fail_path/reinstate_path: check PATH against the live table first, so a
 * typo gets a precise message instead of the kernel's bare EINVAL.
 */
static int cmd_path_message(const struct rq_cli *cli, const char *verb)
{
	const char *cmd = rq_cmd_name(cli->cmd);
	unsigned int major, minor;
	struct rq_table table;
	char err[MSG_LEN];
	char text[RQ_MESSAGE_MAX];
	enum rq_dm_result res;

	if (rq_resolve_dev(cli->path, &major, &minor)) {
		/* Let the kernel judge what we cannot resolve here. */
		snprintf(text, sizeof(text), "%s %s", verb, cli->path);
	} else {
		res = fetch_table(cli->name, &table, err, sizeof(err));
		if (res != RQ_DM_OK)
			return report_read_failure(cmd, cli->name, res, err);
		if (!rq_table_has_dev(&table, major, minor))
			return fail("%s: %s (%u:%u) is not a path of '%s'", cmd,
				    cli->path, major, minor, cli->name);
		snprintf(text, sizeof(text), "%s %u:%u", verb, major, minor);
	}
	if (send_message(cli->name, text))
		return RQ_EXIT_FAILURE;
	printf("%s: %s\n", cli->name, text);
	return RQ_EXIT_OK;
}

static int cmd_message(const struct rq_cli *cli)
{
	return send_message(cli->name, cli->message);
}

/* ---- watch -------------------------------------------------------------- */

static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
	stop_signal = sig;
}

static void catch_stop_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: the sleep must end early to write the report. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_until(double when)
{
	struct timespec ts;

	ts.tv_sec = (time_t)when;
	ts.tv_nsec = (long)((when - (double)ts.tv_sec) * 1e9);
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	/* EINTR ends the sleep; the caller looks at stop_signal. */
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

struct watch_run {
	const struct rq_cli *cli;
	FILE *text;		/* progress, report: stderr when stdout is JSON */
	FILE *samples;		/* --samples, or NULL */
	bool samples_failed;	/* a sample could not be written */
	struct rq_watch_state state;
	struct rq_sample last_printed;
	enum rq_phase last_printed_phase;
	bool printed_any;
	char error[MSG_LEN];
};

/* One line per second, and at once when the phase changes. */
static void maybe_print_progress(struct watch_run *run, bool force)
{
	const struct rq_watch_state *w = &run->state;
	bool due = !run->printed_any || force ||
		   w->phase != run->last_printed_phase ||
		   w->prev.t - run->last_printed.t >= 1.0;

	if (!due)
		return;
	rq_watch_print_progress(run->text, w,
				run->printed_any ? &run->last_printed : NULL);
	fflush(run->text);
	run->last_printed = w->prev;
	run->last_printed_phase = w->phase;
	run->printed_any = true;
}

/*
 * --samples: flushed at once, so that a reader sees the series while the
 * watch runs and a watch killed with SIGKILL (a caller that gave up on a
 * livelock) still leaves every sample it took.  A write error does not end
 * the watch: the verdict matters more; the exit status reports it.
 */
static void record_sample(struct watch_run *run, double t,
			  const struct rq_status *st)
{
	if (!run->samples || run->samples_failed)
		return;
	if (rq_watch_print_sample(run->samples, t, st) ||
	    fflush(run->samples))
		run->samples_failed = true;
}

/* Take one sample; returns false with run->error set on failure. */
static bool watch_sample(struct watch_run *run, double t,
			 enum rq_verdict *verdict)
{
	struct rq_status st;
	enum rq_dm_result res;

	res = fetch_status(run->cli->name, &st, run->error,
			   sizeof(run->error));
	if (res == RQ_DM_NOT_FOUND)
		snprintf(run->error, sizeof(run->error), "device vanished");
	if (res != RQ_DM_OK)
		return false;
	record_sample(run, t, &st);
	*verdict = rq_watch_feed(&run->state, &st, t);
	return true;
}

/*
 * A followed watch has no end of its own but a livelock or --timeout:
 * stopping it is how its caller says the workload is over, so a signal
 * ends it like the timeout does.  Without --follow it interrupts.
 */
static enum rq_outcome outcome_on_stop_signal(const struct watch_run *run)
{
	if (run->state.cfg.follow)
		return rq_outcome_on_timeout(&run->state);
	return RQ_OUTCOME_INTERRUPTED;
}

static enum rq_outcome watch_loop(struct watch_run *run, double t0)
{
	const struct rq_cli *cli = run->cli;
	double interval = cli->interval_ms / 1000.0;
	double next = t0;

	for (;;) {
		enum rq_verdict verdict = RQ_VERDICT_NONE;
		double t = now_seconds() - t0;

		if (!watch_sample(run, t, &verdict))
			return RQ_OUTCOME_ERROR;
		maybe_print_progress(run, verdict != RQ_VERDICT_NONE);
		if (verdict == RQ_VERDICT_DRAINED)
			return RQ_OUTCOME_DRAINED;
		if (verdict == RQ_VERDICT_LIVELOCK)
			return RQ_OUTCOME_LIVELOCK;
		if (cli->has_timeout && t >= cli->timeout_s)
			return rq_outcome_on_timeout(&run->state);
		if (stop_signal)
			return outcome_on_stop_signal(run);

		/* Fixed ticks; after a slow ioctl, start again from now. */
		next += interval;
		if (next < now_seconds())
			next = now_seconds();
		if (cli->has_timeout && next > t0 + cli->timeout_s)
			next = t0 + cli->timeout_s;
		sleep_until(next);
		if (stop_signal)
			return outcome_on_stop_signal(run);
	}
}

static int write_watch_json(const char *file, FILE *out,
			    const struct rq_watch_summary *sum)
{
	if (rq_watch_print_json(out, sum)) {
		if (out != stdout)
			fclose(out);
		return fail("watch: cannot write the JSON to %s",
			    strcmp(file, "-") ? file : "stdout");
	}
	return close_output("watch", file, out);
}

static void explain_outcome(const struct rq_watch_summary *sum)
{
	switch (sum->outcome) {
	case RQ_OUTCOME_DRAINED:
	case RQ_OUTCOME_QUIET:
		break;
	case RQ_OUTCOME_LIVELOCK:
		fprintf(stderr, "rqpathctl: watch: livelock detected on '%s'\n",
			sum->device);
		break;
	case RQ_OUTCOME_TIMEOUT:
	case RQ_OUTCOME_STALL:
		fprintf(stderr, "rqpathctl: watch: no decision on '%s' within "
			"%.3g s (%s)\n", sum->device, sum->timeout_s,
			rq_outcome_name(sum->outcome));
		break;
	case RQ_OUTCOME_ERROR:
		fprintf(stderr, "rqpathctl: watch: '%s': %s\n", sum->device,
			sum->error);
		break;
	case RQ_OUTCOME_INTERRUPTED:
		fprintf(stderr, "rqpathctl: watch: interrupted\n");
		break;
	}
}

static void print_watch_header(FILE *out, const struct rq_cli *cli,
			       const struct rq_watch_config *cfg)
{
	fprintf(out, "watching %s: interval %u ms, stall %.3g s, busy may "
		"pause %.3g s", cli->name, cli->interval_ms, cfg->stall_s,
		cfg->busy_quiet_s);
	if (cli->has_timeout)
		fprintf(out, ", timeout %.3g s", cli->timeout_s);
	if (cli->follow)
		fprintf(out, ", follow (in_flight 0 does not end the watch)");
	fprintf(out, "\n");
}

static void close_quietly(FILE *f)
{
	if (f && f != stdout)
		fclose(f);
}

/* Returns 0 or an exit code; the file is closed either way. */
static int close_samples(const struct rq_cli *cli, const struct watch_run *run)
{
	if (run->samples_failed) {
		close_quietly(run->samples);
		return fail("watch: cannot write the samples to %s",
			    strcmp(cli->samples_file, "-") ? cli->samples_file :
							     "stdout");
	}
	return close_output("watch", cli->samples_file, run->samples);
}

/* ---- watch per request (any request-based map) -------------------------- */

struct rw_run {
	const struct rq_cli *cli;
	FILE *text;
	rq_rw_t state;
	struct rq_map_id id;
	struct rq_map_state paths;
	bool has_paths;
	char target[32];
	struct rq_tracefs tf;
	bool tracing;
	unsigned long long bad_lines;
	char fallback[MSG_LEN];
	char error[MSG_LEN];
};

static void on_trace_line(const char *line, void *arg)
{
	struct rw_run *run = arg;
	struct rq_trace_event ev;
	char why[192];

	switch (rq_trace_parse_line(line, &ev, why, sizeof(why))) {
	case RQ_TRACE_EVENT:
		rq_rw_feed_event(&run->state, &ev);
		break;
	case RQ_TRACE_BAD:
		if (!run->bad_lines++)
			fprintf(stderr, "rqpathctl: watch: unparsable trace "
				"line (%s): %s\n", why, line);
		break;
	case RQ_TRACE_SKIP:
		break;
	}
}

/* The map's path states, from its status (and table for multipath). */
static void read_paths(struct rw_run *run)
{
	struct rq_dm_target st, tb;
	static struct rq_status rs;
	char err[MSG_LEN];

	run->has_paths = false;
	if (rq_dm_read_any_target(run->id.name, false, &st, err, sizeof(err)))
		return;
	snprintf(run->target, sizeof(run->target), "%s", st.type);
	if (!strcmp(st.type, "multipath")) {
		const char *table = NULL;

		if (!rq_dm_read_any_target(run->id.name, true, &tb, err,
					   sizeof(err)))
			table = tb.params;
		run->has_paths = !rq_mapstate_parse_multipath(st.params, table,
							       &run->paths, err,
							       sizeof(err));
		if (table)
			rq_dm_target_free(&tb);
	} else if (!strcmp(st.type, "rqpath")) {
		if (!rq_status_parse(st.params, &rs, err, sizeof(err))) {
			rq_mapstate_from_rqpath(&rs, &run->paths);
			run->has_paths = true;
		}
	}
	rq_dm_target_free(&st);
}

static void rw_sample(struct rw_run *run, double t)
{
	struct rq_rw_sample s;

	rq_rw_sample_init(&s, t);
	read_paths(run);
	if (run->has_paths) {
		s.nr_paths = (int)run->paths.nr_paths;
		s.nr_usable = (int)run->paths.nr_active;
		s.queueing = run->paths.queue_if_no_path;
	}
	rq_map_sample_sysfs(&run->id, run->has_paths ? &run->paths : NULL, &s);
	rq_rw_feed_sample(&run->state, &s);
}

static enum rq_rw_outcome rw_loop(struct rw_run *run, double t0)
{
	const struct rq_cli *cli = run->cli;
	double interval = (cli->has_interval ? cli->interval_ms : 100) / 1000.0;
	double next = t0, last_print = -1;

	for (;;) {
		double now = now_seconds();
		int wait_ms = (int)((next - now) * 1000);

		if (wait_ms < 0)
			wait_ms = 0;
		if (run->tracing) {
			if (rq_tracefs_pump(&run->tf, wait_ms, on_trace_line, run)) {
				snprintf(run->error, sizeof(run->error),
					 "reading trace_pipe: %s", strerror(errno));
				return RQ_RWO_ERROR;
			}
		} else {
			sleep_until(next);
		}
		if (run->state.verdict == RQ_RW_LIVELOCK)
			return RQ_RWO_LIVELOCK;
		now = now_seconds();
		if (now >= next) {
			/* every event before the sample's time is in */
			if (run->tracing)
				rq_tracefs_pump(&run->tf, 0, on_trace_line, run);
			rw_sample(run, now);
			if (last_print < 0 || now - last_print >= 1.0 ||
			    run->state.verdict == RQ_RW_LIVELOCK) {
				rq_rw_print_progress(run->text, &run->state, t0);
				fflush(run->text);
				last_print = now;
			}
			if (run->state.verdict == RQ_RW_LIVELOCK)
				return RQ_RWO_LIVELOCK;
			if (!cli->follow && rq_rw_drained(&run->state))
				return RQ_RWO_DRAINED;
			next += interval;
			if (next < now)
				next = now;
		}
		if (cli->has_timeout && now - t0 >= cli->timeout_s)
			return rq_rw_outcome_at_end(&run->state, cli->follow,
						    false);
		if (stop_signal)
			return rq_rw_outcome_at_end(&run->state, cli->follow,
						    true);
		if (cli->has_timeout && next > t0 + cli->timeout_s)
			next = t0 + cli->timeout_s;
	}
}

static void rw_config(const struct rw_run *run, struct rq_rw_config *cfg)
{
	unsigned int i;

	rq_rw_config_default(cfg, run->cli->stall_s);
	cfg->map_major = run->id.major;
	cfg->map_minor = run->id.minor;
	for (i = 0; i < run->id.nr_slaves && i < RQ_RW_MAX_PATHS; i++) {
		cfg->path_major[i] = run->id.slave_major[i];
		cfg->path_minor[i] = run->id.slave_minor[i];
	}
	cfg->nr_path_devs = i;
	cfg->follow = run->cli->follow;
}

static int cmd_watch_requests(const struct rq_cli *cli,
			      const struct rq_map_id *id, const char *target)
{
	static struct rw_run run;	/* the request table: keep off stack */
	struct rq_rw_config cfg;
	struct rq_rw_summary sum;
	FILE *json = NULL;
	double t0;
	int rc;

	memset(&run, 0, sizeof(run));
	run.cli = cli;
	run.id = *id;
	snprintf(run.target, sizeof(run.target), "%s", target);
	if (cli->samples_file)
		return fail("watch: --samples needs --via status (the rqpath "
			    "counters)");
	if (cli->json_file) {
		json = open_output("watch", cli->json_file);
		if (!json)
			return RQ_EXIT_FAILURE;
	}
	run.text = json == stdout ? stderr : stdout;
	if (!id->request_based)
		fprintf(stderr, "rqpathctl: watch: warning: %s (%s) is not "
			"request-based (no /sys/block/%s/mq): its requests are "
			"not the bug's\n", id->name, id->kname, id->kname);
	if (cli->via != RQ_VIA_COUNTERS) {
		char why[MSG_LEN];

		run.tracing = !rq_tracefs_open(&run.tf, id, why, sizeof(why));
		if (!run.tracing) {
			snprintf(run.fallback, sizeof(run.fallback), "%s", why);
			fprintf(stderr, "rqpathctl: watch: no tracepoints (%s); "
				"falling back to /sys/block/%s/inflight and "
				"stat: slow or not, no livelock verdict\n", why,
				id->kname);
		} else if (!run.tf.mono) {
			fprintf(stderr, "rqpathctl: watch: warning: cannot set "
				"the trace clock to mono; sample times may be "
				"off\n");
		}
	}
	rw_config(&run, &cfg);
	rq_rw_init(&run.state, &cfg);
	catch_stop_signals();
	setvbuf(stdout, NULL, _IOLBF, 0);
	fprintf(run.text, "watching %s (%s, %u:%u, %s, %u path device%s) via "
		"%s: min %u refusals over %.3g s, proof of room, alone %.3g s\n",
		id->name, id->kname, id->major, id->minor, run.target,
		id->nr_slaves, id->nr_slaves == 1 ? "" : "s",
		run.tracing ? "trace" : "counters", cfg.min_refusals,
		cfg.floor_s, cfg.alone_s);

	t0 = now_seconds();
	memset(&sum, 0, sizeof(sum));
	sum.outcome = rw_loop(&run, t0);
	if (run.tracing) {
		sum.trace_lines = run.tf.lines;
		rq_tracefs_close(&run.tf);
	}
	sum.device = cli->name;
	sum.dm_name = id->name;
	sum.kname = id->kname;
	sum.major = id->major;
	sum.minor = id->minor;
	sum.target = run.target;
	sum.source = run.tracing ? "trace" : "counters";
	sum.fallback = run.fallback[0] ? run.fallback : NULL;
	sum.error = sum.outcome == RQ_RWO_ERROR ? run.error : NULL;
	sum.t0 = t0;
	sum.elapsed_s = now_seconds() - t0;
	sum.interval_ms = cli->has_interval ? cli->interval_ms : 100;
	sum.has_timeout = cli->has_timeout;
	sum.timeout_s = cli->timeout_s;
	sum.follow = cli->follow;
	sum.bad_lines = run.bad_lines;
	sum.state = &run.state;
	sum.paths = run.has_paths ? &run.paths : NULL;
	rq_rw_print_report(run.text, &sum);
	fflush(run.text);
	if (sum.outcome == RQ_RWO_LIVELOCK)
		fprintf(stderr, "rqpathctl: watch: livelock detected on '%s'\n",
			id->name);
	else if (sum.outcome == RQ_RWO_ERROR)
		fprintf(stderr, "rqpathctl: watch: '%s': %s\n", id->name,
			run.error);
	rc = rq_rw_outcome_exit_code(sum.outcome);
	if (json) {
		if (rq_rw_print_json(json, &sum)) {
			close_quietly(json);
			return fail("watch: cannot write the JSON to %s",
				    strcmp(cli->json_file, "-") ?
				    cli->json_file : "stdout");
		}
		if (close_output("watch", cli->json_file, json))
			rc = RQ_EXIT_FAILURE;
	}
	return rc;
}

static int cmd_watch_status(const struct rq_cli *cli);

/*
 * Which watch: --via status (or auto on an rqpath device) is the counter
 * watch of dm-rqpath; anything else watches the map's requests.
 */
static int cmd_watch(const struct rq_cli *cli)
{
	static struct rq_cli named;
	struct rq_dm_target target;
	struct rq_map_id id;
	char err[MSG_LEN];
	const char *type = "?";
	bool have_type = false;

	if (rq_map_resolve(cli->name, &id, err, sizeof(err))) {
		/* the counter watch has its own messages for a bad NAME */
		if (cli->via == RQ_VIA_STATUS || cli->via == RQ_VIA_AUTO)
			return cmd_watch_status(cli);
		return fail("watch: %s", err);
	}
	if (!rq_dm_read_any_target(id.name, false, &target, err, sizeof(err))) {
		have_type = true;
		type = strdupa(target.type);
		rq_dm_target_free(&target);
	}
	if (cli->via == RQ_VIA_STATUS ||
	    (cli->via == RQ_VIA_AUTO && have_type && !strcmp(type, "rqpath"))) {
		named = *cli;
		named.name = id.name;
		return cmd_watch_status(&named);
	}
	return cmd_watch_requests(cli, &id, type);
}

static int cmd_watch_status(const struct rq_cli *cli)
{
	static struct watch_run run;	/* samples per op: keep off stack */
	struct rq_watch_config cfg;
	struct rq_watch_summary sum;
	FILE *json = NULL;
	double t0;
	int rc;

	memset(&run, 0, sizeof(run));
	/* Open the output files first: a typo should not cost a whole run. */
	if (cli->json_file) {
		json = open_output("watch", cli->json_file);
		if (!json)
			return RQ_EXIT_FAILURE;
	}
	if (cli->samples_file) {
		run.samples = open_output("watch", cli->samples_file);
		if (!run.samples) {
			close_quietly(json);
			return RQ_EXIT_FAILURE;
		}
	}

	run.cli = cli;
	/* Whatever goes to stdout as JSON, the words go to stderr. */
	run.text = json == stdout || run.samples == stdout ? stderr : stdout;
	rq_watch_config_default(&cfg, cli->stall_s, cli->interval_ms / 1000.0);
	cfg.follow = cli->follow;
	rq_watch_init(&run.state, &cfg);
	catch_stop_signals();
	setvbuf(stdout, NULL, _IOLBF, 0);
	print_watch_header(run.text, cli, &cfg);

	t0 = now_seconds();
	memset(&sum, 0, sizeof(sum));
	sum.outcome = watch_loop(&run, t0);
	sum.device = cli->name;
	sum.elapsed_s = now_seconds() - t0;
	sum.interval_ms = cli->interval_ms;
	sum.has_timeout = cli->has_timeout;
	sum.timeout_s = cli->timeout_s;
	sum.error = sum.outcome == RQ_OUTCOME_ERROR ? run.error : NULL;
	sum.state = &run.state;

	if (run.state.nr_samples)
		maybe_print_progress(&run, false);
	rq_watch_print_report(run.text, &sum);
	fflush(run.text);
	explain_outcome(&sum);
	rc = rq_outcome_exit_code(sum.outcome);
	/* As in rqcheck: not writing the report is a failure, whatever else. */
	if (json && write_watch_json(cli->json_file, json, &sum))
		rc = RQ_EXIT_FAILURE;
	if (run.samples && close_samples(cli, &run))
		rc = RQ_EXIT_FAILURE;
	return rc;
}

/* ---- main ---------------------------------------------------------------- */

static int run_command(const struct rq_cli *cli)
{
	switch (cli->cmd) {
	case RQ_CMD_CREATE:
		return cmd_create(cli);
	case RQ_CMD_REMOVE:
		return cmd_remove(cli);
	case RQ_CMD_STATUS:
		return cmd_status(cli);
	case RQ_CMD_TABLE:
		return cmd_table(cli);
	case RQ_CMD_FAIL_PATH:
		return cmd_path_message(cli, "fail_path");
	case RQ_CMD_REINSTATE_PATH:
		return cmd_path_message(cli, "reinstate_path");
	case RQ_CMD_MESSAGE:
		return cmd_message(cli);
	case RQ_CMD_WATCH:
		return cmd_watch(cli);
	case RQ_CMD_NONE:
		break;
	}
	rq_cli_usage(stderr, RQ_CMD_NONE);
	return RQ_EXIT_USAGE;
}

int main(int argc, char **argv)
{
	static struct rq_cli cli;

	if (rq_cli_parse(argc, argv, &cli)) {
		/* One line and a pointer to --help, as every rqpath tool. */
		fprintf(stderr, "rqpathctl: %s\n", cli.error);
		if (cli.cmd == RQ_CMD_NONE)
			fprintf(stderr, "Try 'rqpathctl --help'.\n");
		else
			fprintf(stderr, "Try 'rqpathctl %s --help'.\n",
				rq_cmd_name(cli.cmd));
		return RQ_EXIT_USAGE;
	}
	if (cli.help) {
		rq_cli_usage(stdout, cli.cmd);
		return RQ_EXIT_OK;
	}
	if (cli.version) {
		printf("rqpathctl %s\n", RQPATHCTL_VERSION);
		return RQ_EXIT_OK;
	}
	rq_dm_init(cli.verbose);
	return run_command(&cli);
}

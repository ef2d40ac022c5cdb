// SPDX-License-Identifier: GPL-2.0
/*
 * rqcheck: data-integrity checker for the rqpath blk-mq reproducer.
 */
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "format.h"
#include "report.h"
#include "rq_exit.h"
#include "run.h"

#define RQCHECK_VERSION "0.2"

static void on_signal(int sig)
{
	(void)sig;
	run_stop = 1;
}

static void catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static uint64_t clock_seed(void)
{
	struct timespec ts;
	uint64_t st;

	clock_gettime(CLOCK_REALTIME, &ts);
	st = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	st ^= (uint64_t)getpid() << 32;
	/* keep it short enough to type back in */
	return fmt_mix64(&st) & 0xffffffffffffULL;
}

static int pin_cpu(int cpu, struct report *rep)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		report_set_error(rep, RES_SETUP_ERROR,
				 "cannot pin to CPU %d: %s", cpu,
				 strerror(errno));
		return -1;
	}
	return 0;
}

/* One line and a pointer to --help, as every rqpath tool does. */
static int usage_error(const char *err)
{
	fprintf(stderr, "rqcheck: %s\nTry 'rqcheck --help'.\n", err);
	return RQ_EXIT_USAGE;
}

/*
 * The report file is created before anything else happens, so a path
 * that cannot be written costs no workload (and writes nothing to the
 * target).  NULL with a message on stderr when it cannot be opened.
 */
static FILE *open_json_output(const char *path)
{
	FILE *f;

	if (!strcmp(path, "-"))
		return stdout;
	f = fopen(path, "w");
	if (!f)
		fprintf(stderr, "rqcheck: cannot create the --json file %s: %s\n",
			path, strerror(errno));
	return f;
}

static int finish_json(FILE *f, const char *path, const struct report *rep)
{
	int ret = report_write_json(f, rep);

	if (f != stdout && fclose(f))
		ret = -1;
	if (ret)
		fprintf(stderr, "rqcheck: cannot write the --json file %s\n",
			!strcmp(path, "-") ? "(stdout)" : path);
	return ret;
}

/* --verify-only: the seed and generation the options left open. */
static int learn_identity(struct rq_config *cfg,
			  const struct target_info *tgt, int fd,
			  struct report *rep, FILE *out)
{
	struct identity_tally tally;
	char err[256];

	if (run_read_identity(cfg, tgt, fd, &tally, err, sizeof(err))) {
		/* Both given: the verify itself will meet the bad block. */
		if (cfg->seed_set && cfg->gen_set)
			return 0;
		report_set_error(rep, RES_SETUP_ERROR, "%s", err);
		return -1;
	}
	return run_resolve_identity(cfg, &tally, rep, stderr,
				    cfg->quiet ? NULL : out);
}

/*
 * Open, learn what to check, run; everything found goes into rep.
 * Returns false when the setup failed before the workload started.
 */
static bool run(struct rq_config *cfg, struct target_info *tgt,
		struct report *rep, FILE *out)
{
	int fd = -1;

	if (cfg->cpu >= 0 && pin_cpu(cfg->cpu, rep))
		return false;
	if (run_open_target(cfg, tgt, &fd, rep))
		return false;
	if (cfg->verify_only && learn_identity(cfg, tgt, fd, rep, out)) {
		close(fd);
		return false;
	}
	if (!cfg->quiet)
		report_print_header(out, rep);
	run_workload(cfg, tgt, fd, rep, cfg->quiet ? NULL : out);
	close(fd);
	if (!cfg->quiet)
		report_print_summary(out, rep);
	return true;
}

int main(int argc, char **argv)
{
	const char *prog = argc > 0 && argv[0] ? argv[0] : "rqcheck";
	struct target_info tgt;
	struct rq_config cfg;
	struct report rep;
	FILE *json = NULL, *out;
	char err[256];
	int code;

	switch (cli_parse(argc, argv, &cfg, err, sizeof(err))) {
	case CLI_HELP:
		cli_usage(stdout, prog);
		return RQ_EXIT_OK;
	case CLI_VERSION:
		printf("rqcheck %s (block format %u)\n", RQCHECK_VERSION,
		       FMT_VERSION);
		return RQ_EXIT_OK;
	case CLI_ERROR:
		return usage_error(err);
	case CLI_OK:
		break;
	}
	if (cfg.json) {
		json = open_json_output(cfg.json);
		if (!json)
			return RQ_EXIT_FAILURE;
	}
	if (!cfg.seed_set)
		cfg.seed = clock_seed();

	/* with the JSON report on stdout, the text goes to stderr */
	out = json == stdout ? stderr : stdout;
	setvbuf(stdout, NULL, _IOLBF, 0);

	memset(&tgt, 0, sizeof(tgt));
	tgt.path = cfg.target;
	report_init(&rep, &cfg, &tgt, cfg.seed);
	/* --verify-only without --seed: the headers will say */
	if (cfg.verify_only && !cfg.seed_set)
		rep.seed_known = false;
	catch_signals();

	/* The header names the seed; a run that never got there does too. */
	if (!run(&cfg, &tgt, &rep, out) && !cfg.quiet && rep.seed_known)
		fprintf(out, "rqcheck: seed %llu (0x%llx)\n",
			(unsigned long long)cfg.seed,
			(unsigned long long)cfg.seed);
	if (rep.error[0])
		fprintf(stderr, "rqcheck: error: %s\n", rep.error);
	report_print_result(out, &rep);

	code = report_exit_code(report_result(&rep));
	if (json && finish_json(json, cfg.json, &rep))
		code = RQ_EXIT_FAILURE;
	report_free(&rep);
	return code;
}

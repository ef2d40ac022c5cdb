// SPDX-License-Identifier: GPL-2.0
/*
 * rqcheck: data-integrity checker for the rqpath blk-mq reproducer.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "format.h"
#include "report.h"
#include "run.h"

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

static int write_json(const char *path, const struct report *rep)
{
	FILE *f;
	int ret;

	if (!strcmp(path, "-"))
		return report_write_json(stdout, rep) || fflush(stdout) ? -1 : 0;
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "rqcheck: cannot write %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	ret = report_write_json(f, rep);
	if (fclose(f) || ret) {
		fprintf(stderr, "rqcheck: cannot write %s\n", path);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *prog = argc > 0 && argv[0] ? argv[0] : "rqcheck";
	struct target_info tgt;
	struct rq_config cfg;
	struct report rep;
	char err[256];
	int fd = -1, code;
	FILE *out;

	switch (cli_parse(argc, argv, &cfg, err, sizeof(err))) {
	case CLI_HELP:
		cli_usage(stdout, prog);
		return 0;
	case CLI_ERROR:
		fprintf(stderr, "rqcheck: %s\n\n", err);
		cli_usage(stderr, prog);
		return 2;
	case CLI_OK:
		break;
	}
	if (!cfg.seed_set)
		cfg.seed = clock_seed();

	/* with the JSON report on stdout, the text goes to stderr */
	out = cfg.json && !strcmp(cfg.json, "-") ? stderr : stdout;
	setvbuf(stdout, NULL, _IOLBF, 0);

	memset(&tgt, 0, sizeof(tgt));
	tgt.path = cfg.target;
	report_init(&rep, &cfg, &tgt, cfg.seed);
	catch_signals();

	if ((cfg.cpu < 0 || !pin_cpu(cfg.cpu, &rep)) &&
	    !run_open_target(&cfg, &tgt, &fd, &rep)) {
		if (!cfg.quiet)
			report_print_header(out, &rep);
		run_workload(&cfg, &tgt, fd, &rep, cfg.quiet ? NULL : out);
		close(fd);
		if (!cfg.quiet)
			report_print_summary(out, &rep);
	} else if (!cfg.quiet) {
		fprintf(out, "rqcheck: seed %llu (0x%llx)\n",
			(unsigned long long)cfg.seed,
			(unsigned long long)cfg.seed);
	}
	if (rep.error[0])
		fprintf(stderr, "rqcheck: error: %s\n", rep.error);
	report_print_result(out, &rep);

	code = report_exit_code(report_result(&rep));
	if (cfg.json && write_json(cfg.json, &rep))
		code = 3;
	report_free(&rep);
	return code;
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Command line of rqcheck.
 */
#ifndef RQCHECK_CLI_H
#define RQCHECK_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "engine.h"
#include "order.h"

#define CLI_MAX_BS		(64ULL << 20)
#define CLI_MAX_QD		4096u
#define CLI_MAX_STRIDE		65536u

struct rq_config {
	const char *target;
	uint64_t bs;
	uint64_t offset;
	uint64_t size;			/* 0 = to the end of the target */
	unsigned int qd;
	unsigned int batch;
	enum engine_kind engine;
	enum order_kind order;
	unsigned int stride;
	uint64_t window;
	uint64_t seed;
	bool seed_set;
	int cpu;			/* -1 = not pinned */
	uint64_t passes;
	bool passes_set;
	double time_s;			/* 0 = not time bound */
	bool prefill;
	const char *json;		/* NULL = none, "-" = stdout */
	unsigned int max_report;
	bool quiet;
	uint64_t gen;			/* first generation written/checked */
	bool gen_set;
	bool verify_only;
	bool write_only;
	bool force;			/* write even to a device in use */
};

enum cli_result {
	CLI_OK,
	CLI_HELP,
	CLI_VERSION,
	CLI_ERROR,
};

void cli_defaults(struct rq_config *cfg);

/*
 * Parse argv into @cfg (which cli_parse() first resets to defaults).
 * On CLI_ERROR a one-line reason is left in @err.
 */
enum cli_result cli_parse(int argc, char **argv, struct rq_config *cfg,
			  char *err, size_t errlen);

/* strict number parsers, exposed for the tests: 0 or -1 */
int cli_parse_size(const char *s, uint64_t *out);	/* k/m/g/t suffix */
int cli_parse_u64(const char *s, uint64_t *out);	/* dec or 0x hex */

void cli_usage(FILE *f, const char *prog);

#endif

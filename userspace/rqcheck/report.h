/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Results of a run: per-generation counts, bad blocks, I/O errors, and
 * their text and JSON renderings.
 */
#ifndef RQCHECK_REPORT_H
#define RQCHECK_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cli.h"
#include "engine.h"
#include "verify.h"

struct target_info {
	const char *path;
	const char *type;		/* "block" or "file" */
	uint64_t bytes;			/* size of the whole target */
	uint32_t lbs;			/* logical block size */
	uint64_t offset;		/* region */
	uint64_t size;
	uint64_t nblocks;
};

struct gen_stats {
	uint64_t gen;
	bool written;			/* write phase ran to completion */
	bool verified;			/* read phase ran to completion */
	bool interrupted;
	uint64_t blocks_written;
	uint64_t blocks_verified;
	uint64_t bad;
	uint64_t cls[CLS__COUNT];	/* first-read class of bad blocks */
	uint64_t on_disk;		/* re-read bad too */
	uint64_t read_path;		/* re-read good */
	uint64_t read_errors;
	uint64_t write_errors;
	uint64_t eagain_resubmits;	/* I/Os submitted again after -EAGAIN */
	uint64_t write_submits;		/* submit syscalls */
	uint64_t read_submits;
	double write_s;
	double verify_s;
};

struct bad_block {
	uint64_t gen;			/* expected generation */
	uint64_t block;
	uint64_t lba;
	uint32_t nsect;
	double found_s;			/* seconds into the workload */
	enum blk_class cls;		/* first read */
	enum blk_class reread;		/* CLS_GOOD: read-path problem */
	int reread_errno;		/* if reread == CLS_IO_ERROR */
	struct sec_run *runs;
	uint32_t nruns;
	struct sec_run *rruns;		/* re-read findings, if bad */
	uint32_t nrruns;
};

struct io_error {
	uint64_t gen;
	uint64_t block;
	uint64_t lba;
	enum io_op op;
	int64_t res;			/* -errno, or the short byte count */
	uint64_t len;
};

/* What a run found; report_result() picks the one that decides the exit. */
enum run_result {
	RES_CLEAN,		/* 0: everything written was verified good */
	RES_CORRUPTION,		/* 1: bad blocks */
	RES_IO_ERROR,		/* 3: a read or write failed, or the engine */
	RES_SETUP_ERROR,	/* 3: could not start (open, size, memory...) */
	RES_INTERRUPTED,	/* 4: a signal stopped it before the end */
};

/* Where the run's seed and first generation came from. */
struct identity_info {
	const char *seed_from;		/* "option", "clock" or "headers" */
	const char *gen_from;		/* "option", "default" or "headers" */
	bool header_found;		/* --verify-only read a block header */
	uint64_t header_seed;		/* what most sampled blocks carry */
	uint64_t header_gen;
	unsigned int sampled;		/* blocks read to find them */
	unsigned int agreeing;		/* of those, carrying header_seed/gen */
};

struct report {
	const struct rq_config *cfg;
	const struct target_info *tgt;
	uint64_t seed;
	/* false until --verify-only found the seed in the block headers */
	bool seed_known;
	struct identity_info identity;

	struct gen_stats *gens;
	size_t ngens;
	size_t gens_cap;

	struct bad_block *bad;		/* the first cfg->max_report */
	size_t nbad;
	struct io_error *ioerr;		/* the first cfg->max_report */
	size_t nioerr;

	uint64_t total_bad;
	uint64_t cls[CLS__COUNT];
	uint64_t reread_cls[CLS__COUNT];
	uint64_t on_disk;
	uint64_t read_path;
	uint64_t read_errors;
	uint64_t write_errors;
	uint64_t eagain_resubmits;	/* the prefill's included */
	uint64_t blocks_verified;

	bool prefilled;
	double prefill_s;
	bool have_first_bad;
	double first_bad_s;
	double workload_s;
	bool interrupted;
	enum run_result error_kind;	/* RES_CLEAN: no error below */
	char error[256];		/* setup or engine failure */
};

/* The seed is known (command line or clock) and identity says so. */
void report_init(struct report *r, const struct rq_config *cfg,
		 const struct target_info *tgt, uint64_t seed);
void report_free(struct report *r);

/* start the stats of a new generation; NULL if out of memory */
struct gen_stats *report_gen_begin(struct report *r, uint64_t gen);

/*
 * Count one bad block in @gs and in the totals; the block and its runs
 * are copied while fewer than --max-report are stored.  0 or -ENOMEM.
 */
int report_add_bad(struct report *r, struct gen_stats *gs,
		   const struct bad_block *b);
/* count one failed (or short) read or write, store the first ones */
void report_add_io_error(struct report *r, struct gen_stats *gs,
			 const struct io_error *e);
/* count one I/O submitted again after it completed with -EAGAIN */
void report_add_eagain_resubmit(struct report *r, struct gen_stats *gs);

/* record a setup failure (RES_SETUP_ERROR) or engine failure (RES_IO_ERROR) */
void report_set_error(struct report *r, enum run_result kind,
		      const char *fmt, ...) __attribute__((format(printf, 3, 4)));

enum run_result report_result(const struct report *r);
int report_exit_code(enum run_result res);
const char *report_result_name(enum run_result res);

/* "sectors 0-7: stale: generation 1" without the leading "sectors ...: " */
void report_describe_run(char *buf, size_t len, const struct sec_run *run,
			 uint64_t expect_seed);

void report_print_header(FILE *f, const struct report *r);
void report_print_gen(FILE *f, const struct report *r,
		      const struct gen_stats *gs);
void report_print_prefill(FILE *f, const struct report *r);
void report_print_summary(FILE *f, const struct report *r);
void report_print_result(FILE *f, const struct report *r);
int report_write_json(FILE *f, const struct report *r);

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: how the target is opened, where --verify-only takes its
 * seed and generation from (run.c, verify.c), and how the workload deals
 * with I/Os that complete with -EAGAIN (run.c, through a fake engine).
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "format.h"
#include "run.h"

#define NSECT	8
#define BS	(NSECT * FMT_SECTOR)

static struct rq_config cfg;
static struct target_info tgt = { .path = "t", .type = "block" };
static struct report rep;
static struct identity_tally tally;
static uint8_t block[BS];
static char *warned, *said;
static size_t warned_len, said_len;

static int setup(void **state)
{
	(void)state;
	cli_defaults(&cfg);
	cfg.target = "t";
	cfg.verify_only = true;
	memset(&tally, 0, sizeof(tally));
	report_init(&rep, &cfg, &tgt, 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	report_free(&rep);
	free(warned);
	free(said);
	warned = said = NULL;
	return 0;
}

/* ---- open flags ---------------------------------------------------------- */

static void write_modes_claim_a_block_device(void **state)
{
	int flags;

	(void)state;
	cfg.verify_only = false;
	flags = run_open_flags(&cfg, true);
	assert_int_equal(flags & O_ACCMODE, O_RDWR);
	assert_true(flags & O_EXCL);
	assert_true(flags & O_DIRECT);

	cfg.write_only = true;
	assert_true(run_open_flags(&cfg, true) & O_EXCL);
}

static void force_and_files_skip_o_excl(void **state)
{
	(void)state;
	cfg.verify_only = false;
	/* O_EXCL without O_CREAT means nothing on a regular file */
	assert_false(run_open_flags(&cfg, false) & O_EXCL);
	cfg.force = true;
	assert_false(run_open_flags(&cfg, true) & O_EXCL);
	assert_int_equal(run_open_flags(&cfg, true) & O_ACCMODE, O_RDWR);
}

static void verify_only_reads_without_claiming(void **state)
{
	int flags;

	(void)state;
	flags = run_open_flags(&cfg, true);
	assert_int_equal(flags & O_ACCMODE, O_RDONLY);
	assert_false(flags & O_EXCL);
	assert_true(flags & O_DIRECT);
}

/* ---- the identity vote ------------------------------------------------------ */

static void vote(uint64_t seed, uint64_t gen, uint64_t blk, unsigned int n)
{
	unsigned int i;

	fmt_encode_block(block, BS, seed, gen, blk, blk * NSECT);
	for (i = 0; i < n; i++)
		identity_tally_block(&tally, block, NSECT);
}

static void vote_unwritten(unsigned int n)
{
	unsigned int i;

	memset(block, 0, sizeof(block));
	for (i = 0; i < n; i++)
		identity_tally_block(&tally, block, NSECT);
}

static void majority_wins_and_ties_go_to_the_newest(void **state)
{
	uint64_t seed, gen;
	unsigned int votes;

	(void)state;
	assert_int_equal(identity_pick(&tally, &seed, &gen, &votes), -1);
	vote_unwritten(3);
	assert_int_equal(identity_pick(&tally, &seed, &gen, &votes), -1);

	vote(7, 2, 1, 5);
	vote(7, 1, 2, 2);	/* lost writes: the older generation */
	vote(8, 9, 3, 1);	/* another run's block */
	assert_int_equal(identity_pick(&tally, &seed, &gen, &votes), 0);
	assert_true(seed == 7 && gen == 2 && votes == 5);
	assert_int_equal(tally.sampled, 11);

	/* a tie: the newer generation */
	memset(&tally, 0, sizeof(tally));
	vote(7, 1, 1, 2);
	vote(7, 3, 1, 2);
	assert_int_equal(identity_pick(&tally, &seed, &gen, &votes), 0);
	assert_true(gen == 3 && votes == 2);
}

static void a_torn_block_votes_with_its_first_valid_sector(void **state)
{
	uint64_t seed, gen;
	unsigned int votes;

	(void)state;
	fmt_encode_block(block, BS, 7, 4, 0, 0);
	memset(block, 0, 3 * FMT_SECTOR);	/* sectors 0-2 zeroed */
	identity_tally_block(&tally, block, NSECT);
	assert_int_equal(identity_pick(&tally, &seed, &gen, &votes), 0);
	assert_true(seed == 7 && gen == 4 && votes == 1);
}

/* ---- options against headers ------------------------------------------------- */

static int resolve(void)
{
	FILE *warn = open_memstream(&warned, &warned_len);
	FILE *info = open_memstream(&said, &said_len);
	int ret;

	assert_non_null(warn);
	assert_non_null(info);
	ret = run_resolve_identity(&cfg, &tally, &rep, warn, info);
	fclose(warn);
	fclose(info);
	return ret;
}

static void headers_fill_in_what_the_options_left_open(void **state)
{
	(void)state;
	rep.seed_known = false;
	vote(4242, 2, 0, 16);
	assert_int_equal(resolve(), 0);
	assert_true(cfg.seed == 4242 && cfg.gen == 2);
	assert_true(rep.seed == 4242 && rep.seed_known);
	assert_string_equal(rep.identity.seed_from, "headers");
	assert_string_equal(rep.identity.gen_from, "headers");
	assert_true(rep.identity.header_found);
	assert_int_equal(rep.identity.agreeing, 16);
	assert_string_equal(warned, "");
	assert_string_equal(said, "rqcheck: seed 4242 and generation 2 from "
			    "the block headers (16 of 16 blocks sampled)\n");
}

static void given_options_win_with_a_warning(void **state)
{
	(void)state;
	cfg.seed = 4243;
	cfg.seed_set = true;
	cfg.gen = 1;
	cfg.gen_set = true;
	report_init(&rep, &cfg, &tgt, cfg.seed);
	vote(4242, 2, 0, 15);
	vote_unwritten(1);
	assert_int_equal(resolve(), 0);
	assert_true(cfg.seed == 4243 && cfg.gen == 1);
	assert_string_equal(rep.identity.seed_from, "option");
	assert_string_equal(rep.identity.gen_from, "option");
	assert_true(rep.identity.header_seed == 4242);
	assert_non_null(strstr(warned, "rqcheck: warning: the block headers "
			       "say seed 4242 (15 of 16 blocks sampled), "
			       "--seed says 4243; using --seed 4243\n"));
	assert_non_null(strstr(warned, "generation 2 (15 of 16 blocks "
			       "sampled), --gen says 1; using --gen 1\n"));
	assert_string_equal(said, "");
}

static void only_the_missing_one_comes_from_the_headers(void **state)
{
	(void)state;
	cfg.seed = 4242;
	cfg.seed_set = true;
	report_init(&rep, &cfg, &tgt, cfg.seed);
	vote(4242, 5, 0, 4);
	assert_int_equal(resolve(), 0);
	assert_true(cfg.gen == 5);
	assert_string_equal(rep.identity.seed_from, "option");
	assert_string_equal(rep.identity.gen_from, "headers");
	assert_string_equal(warned, "");
	assert_string_equal(said, "rqcheck: generation 5 from the block "
			    "headers (4 of 4 blocks sampled)\n");
}

static void no_header_is_a_setup_error_without_seed(void **state)
{
	(void)state;
	vote_unwritten(16);
	assert_int_equal(resolve(), -1);
	assert_int_equal(report_result(&rep), RES_SETUP_ERROR);
	assert_non_null(strstr(rep.error, "no rqcheck block header in the 16 "
			       "block(s) sampled"));
}

/*
 * With --seed the verify can go on: the generation has its default, and
 * a region never written is then found "unwritten", as it always was.
 */
static void no_header_with_seed_checks_the_default_generation(void **state)
{
	(void)state;
	cfg.seed = 1;
	cfg.seed_set = true;
	report_init(&rep, &cfg, &tgt, cfg.seed);
	vote_unwritten(16);
	assert_int_equal(resolve(), 0);
	assert_int_equal(report_result(&rep), RES_CLEAN);
	assert_false(rep.identity.header_found);
	assert_true(cfg.gen == 1);
	assert_string_equal(rep.identity.gen_from, "default");
	assert_string_equal(warned, "");
}

/* ---- the workload on a fake engine: I/Os answered -EAGAIN --------------- */

#define DISK_BLOCKS	16
#define FAKE_QD_MAX	16
#define FAKE_SUBMITS	64
#define SEED		77

struct fake_io {
	unsigned int slot;
	enum io_op op;
	uint8_t *buf;
	size_t len;
	uint64_t off;
};

/*
 * An in-memory disk behind the engine interface.  One I/O, the "planned"
 * one (@op on @block), completes with @answer (-EAGAIN, or a short count)
 * its first @bad_times submits, and the fake records how it was
 * submitted each time.
 */
static struct fake {
	uint8_t disk[DISK_BLOCKS * BS];
	struct fake_io prepped[FAKE_QD_MAX];
	struct fake_io inflight[FAKE_QD_MAX];
	unsigned int nprepped, ninflight;

	enum io_op op;
	uint64_t block;
	int64_t answer;
	unsigned int bad_times;
	unsigned int attempts;		/* submits of the planned I/O */
	unsigned int slot;		/* its slot and buffer, first submit */
	uint8_t *buf;
	bool moved;			/* resubmitted from another slot */
	bool written;			/* its write got through */
	uint8_t carried[BS];		/* what that write carried */
	bool dirty_read;		/* a read into a dirty buffer */
	bool awaited;			/* answered, not yet queued again */
	bool overtaken;			/* a new block went before it */
	unsigned int sizes[FAKE_SUBMITS];	/* I/Os per submit call */
	unsigned int nsubmits;
} fake;

static bool poisoned(const uint8_t *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i += FMT_SECTOR)
		if (!fmt_is_poison(buf + i))
			return false;
	return true;
}

static bool is_planned(const struct fake_io *io)
{
	return io->op == fake.op && io->off == fake.block * BS;
}

static int fake_init(struct engine *e, int fd, unsigned int qd)
{
	(void)e;
	(void)fd;
	assert_true(qd <= FAKE_QD_MAX);
	return 0;
}

static int fake_prep(struct engine *e, unsigned int slot, enum io_op op,
		     void *buf, size_t len, uint64_t off)
{
	struct fake_io *io = &fake.prepped[fake.nprepped];

	(void)e;
	assert_true(fake.nprepped < FAKE_QD_MAX);
	assert_true(len == BS && off + len <= sizeof(fake.disk));
	*io = (struct fake_io){ slot, op, buf, len, off };
	if (op == IO_READ && !poisoned(buf, len))
		fake.dirty_read = true;
	if (fake.awaited && !is_planned(io))
		fake.overtaken = true;
	if (is_planned(io)) {
		fake.awaited = false;
		if (!fake.attempts) {
			fake.slot = slot;
			fake.buf = buf;
		} else if (slot != fake.slot || buf != fake.buf) {
			fake.moved = true;
		}
		fake.attempts++;
	}
	fake.nprepped++;
	return 0;
}

static int fake_submit(struct engine *e, unsigned int *syscalls)
{
	unsigned int n = fake.nprepped;

	(void)e;
	assert_true(fake.ninflight + n <= FAKE_QD_MAX);
	memcpy(&fake.inflight[fake.ninflight], fake.prepped,
	       n * sizeof(*fake.prepped));
	fake.ninflight += n;
	fake.nprepped = 0;
	if (fake.nsubmits < FAKE_SUBMITS)
		fake.sizes[fake.nsubmits] = n;
	fake.nsubmits++;
	(*syscalls)++;
	return (int)n;
}

/*
 * A bad answer the way a split bio gets it: the first sector went through
 * (written to the disk, or read into the buffer), the rest did not.
 */
static int64_t fake_do_io(const struct fake_io *io)
{
	uint8_t *at = fake.disk + io->off;
	bool bad = is_planned(io) && fake.attempts <= fake.bad_times;
	size_t len = bad ? FMT_SECTOR : io->len;

	if (io->op == IO_WRITE)
		memcpy(at, io->buf, len);
	else
		memcpy(io->buf, at, len);
	if (bad) {
		fake.awaited = true;
		return fake.answer;
	}
	if (is_planned(io) && io->op == IO_WRITE) {
		memcpy(fake.carried, io->buf, BS);
		fake.written = true;
	}
	return (int64_t)io->len;
}

static int fake_reap(struct engine *e, unsigned int min, struct io_done *done,
		     unsigned int max)
{
	unsigned int i, n = fake.ninflight < max ? fake.ninflight : max;

	(void)e;
	if (n < min)
		return -EDEADLK;	/* would wait for ever */
	for (i = 0; i < n; i++) {
		done[i].slot = fake.inflight[i].slot;
		done[i].res = fake_do_io(&fake.inflight[i]);
	}
	memmove(fake.inflight, &fake.inflight[n],
		(fake.ninflight - n) * sizeof(*fake.inflight));
	fake.ninflight -= n;
	return (int)n;
}

static void fake_exit(struct engine *e)
{
	(void)e;
}

static const struct engine_ops fake_ops = {
	.name	= "fake",
	.init	= fake_init,
	.prep	= fake_prep,
	.submit	= fake_submit,
	.reap	= fake_reap,
	.exit	= fake_exit,
};

static struct target_info disk_tgt = {
	.path = "fake", .type = "file", .bytes = DISK_BLOCKS * BS,
	.lbs = FMT_SECTOR, .size = DISK_BLOCKS * BS, .nblocks = DISK_BLOCKS,
};

static void plan(enum io_op op, uint64_t block, int64_t answer,
		 unsigned int times)
{
	memset(&fake, 0, sizeof(fake));
	fake.op = op;
	fake.block = block;
	fake.answer = answer;
	fake.bad_times = times;
}

static void run_fake(unsigned int qd, unsigned int batch)
{
	cfg.verify_only = false;
	cfg.seed = SEED;
	cfg.seed_set = true;
	cfg.bs = BS;
	cfg.qd = qd;
	cfg.batch = batch;
	cfg.target = disk_tgt.path;
	report_init(&rep, &cfg, &disk_tgt, SEED);
	run_workload_on(&fake_ops, &cfg, &disk_tgt, -1, &rep, NULL);
}

/* What generation @gen of block @block holds, checked as a read would. */
static enum blk_class block_class(const uint8_t *buf, uint64_t gen,
				  uint64_t block)
{
	struct verify_expect x = {
		.seed = SEED, .gen = gen, .block = block,
		.lba = block * NSECT, .nsect = NSECT,
	};

	return verify_block(buf, &x, NULL, NULL);
}

static void assert_clean_generation(const struct gen_stats *gs)
{
	assert_true(gs->written && gs->verified);
	assert_int_equal(gs->blocks_written, DISK_BLOCKS);
	assert_int_equal(gs->blocks_verified, DISK_BLOCKS);
	assert_int_equal(gs->bad, 0);
	assert_int_equal(gs->write_errors + gs->read_errors, 0);
}

static void write_resubmitted_after_eagain(uint64_t block, unsigned int qd,
					   unsigned int batch)
{
	uint64_t b;

	plan(IO_WRITE, block, -EAGAIN, 2);
	run_fake(qd, batch);
	assert_int_equal(report_result(&rep), RES_CLEAN);
	assert_int_equal(rep.ngens, 1);
	assert_clean_generation(&rep.gens[0]);
	assert_int_equal(rep.blocks_verified, DISK_BLOCKS);
	assert_int_equal(rep.gens[0].eagain_resubmits, 2);
	assert_int_equal(rep.eagain_resubmits, 2);
	/*
	 * The same I/O again, before any new block: same slot, same buffer,
	 * and what it carried the third time is still the right block.
	 */
	assert_int_equal(fake.attempts, 3);
	assert_false(fake.moved);
	assert_false(fake.overtaken);
	assert_true(fake.written);
	assert_int_equal(block_class(fake.carried, 1, block), CLS_GOOD);
	for (b = 0; b < DISK_BLOCKS; b++)
		assert_int_equal(block_class(fake.disk + b * BS, 1, b),
				 CLS_GOOD);
}

static void a_write_answered_eagain_is_submitted_again(void **state)
{
	(void)state;
	write_resubmitted_after_eagain(5, 4, 1);
	/* 16 writes, 2 resubmits, 16 reads: one I/O per submit call */
	assert_int_equal(fake.nsubmits, 34);
	assert_int_equal(rep.gens[0].write_submits, 18);
}

/*
 * Block 13 is in the first batch of the descending order: its resubmits
 * fill the batches with new blocks, and only the last submit of each
 * phase is short.
 */
static void a_resubmit_keeps_to_the_batches(void **state)
{
	static const unsigned int sizes[] = { 4, 4, 4, 4, 2, 4, 4, 4, 4 };
	unsigned int i;

	(void)state;
	write_resubmitted_after_eagain(13, 8, 4);
	assert_int_equal(fake.nsubmits, sizeof(sizes) / sizeof(sizes[0]));
	for (i = 0; i < fake.nsubmits; i++)
		assert_int_equal(fake.sizes[i], sizes[i]);
}

static void eagain_for_ever_is_an_io_error_after_the_bound(void **state)
{
	(void)state;
	plan(IO_WRITE, 5, -EAGAIN, UINT32_MAX);
	cfg.passes = 3;
	run_fake(4, 2);
	assert_int_equal(fake.attempts, 1 + RUN_EAGAIN_RETRIES);
	assert_int_equal(rep.eagain_resubmits, RUN_EAGAIN_RETRIES);
	assert_int_equal(rep.write_errors, 1);
	assert_int_equal(rep.nioerr, 1);
	assert_int_equal(rep.ioerr[0].block, 5);
	assert_true(rep.ioerr[0].op == IO_WRITE);
	assert_int_equal(rep.ioerr[0].res, -EAGAIN);
	assert_int_equal(report_result(&rep), RES_IO_ERROR);
	assert_int_equal(report_exit_code(report_result(&rep)), 3);
	/* the run ends after the write phase, as after any write error */
	assert_int_equal(rep.ngens, 1);
	assert_false(rep.gens[0].verified);
	assert_int_equal(rep.gens[0].blocks_written, DISK_BLOCKS - 1);
	assert_int_equal(rep.blocks_verified, 0);
}

static void a_read_answered_eagain_is_read_again_into_poison(void **state)
{
	(void)state;
	plan(IO_READ, 3, -EAGAIN, 1);
	run_fake(4, 1);
	assert_int_equal(report_result(&rep), RES_CLEAN);
	assert_clean_generation(&rep.gens[0]);
	assert_int_equal(rep.blocks_verified, DISK_BLOCKS);
	assert_int_equal(rep.total_bad, 0);
	assert_int_equal(rep.gens[0].eagain_resubmits, 1);
	assert_int_equal(rep.eagain_resubmits, 1);
	assert_int_equal(fake.attempts, 2);
	assert_false(fake.moved);
	/* the first attempt filled a sector: poisoned again before the next */
	assert_false(fake.dirty_read);
}

/* The prefill's resubmits count in the totals, in no generation. */
static void the_prefill_resubmits_count_in_the_totals(void **state)
{
	(void)state;
	plan(IO_WRITE, 5, -EAGAIN, 2);
	cfg.prefill = true;
	run_fake(4, 1);
	assert_true(rep.prefilled);
	assert_int_equal(report_result(&rep), RES_CLEAN);
	assert_clean_generation(&rep.gens[0]);
	assert_int_equal(rep.eagain_resubmits, 2);
	assert_int_equal(rep.gens[0].eagain_resubmits, 0);
	/* two -EAGAIN in the prefill, then generation 1 went at once */
	assert_int_equal(fake.attempts, 4);
}

/* A short transfer is no -EAGAIN: still an I/O error, never retried. */
static void a_short_write_stays_an_io_error(void **state)
{
	(void)state;
	plan(IO_WRITE, 5, FMT_SECTOR, 1);
	run_fake(4, 1);
	assert_int_equal(fake.attempts, 1);
	assert_int_equal(rep.eagain_resubmits, 0);
	assert_int_equal(rep.write_errors, 1);
	assert_int_equal(rep.ioerr[0].res, FMT_SECTOR);
	assert_int_equal(report_result(&rep), RES_IO_ERROR);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(write_modes_claim_a_block_device,
						setup, teardown),
		cmocka_unit_test_setup_teardown(force_and_files_skip_o_excl,
						setup, teardown),
		cmocka_unit_test_setup_teardown(verify_only_reads_without_claiming,
						setup, teardown),
		cmocka_unit_test_setup_teardown(majority_wins_and_ties_go_to_the_newest,
						setup, teardown),
		cmocka_unit_test_setup_teardown(a_torn_block_votes_with_its_first_valid_sector,
						setup, teardown),
		cmocka_unit_test_setup_teardown(headers_fill_in_what_the_options_left_open,
						setup, teardown),
		cmocka_unit_test_setup_teardown(given_options_win_with_a_warning,
						setup, teardown),
		cmocka_unit_test_setup_teardown(only_the_missing_one_comes_from_the_headers,
						setup, teardown),
		cmocka_unit_test_setup_teardown(no_header_is_a_setup_error_without_seed,
						setup, teardown),
		cmocka_unit_test_setup_teardown(no_header_with_seed_checks_the_default_generation,
						setup, teardown),
		cmocka_unit_test_setup_teardown(a_write_answered_eagain_is_submitted_again,
						setup, teardown),
		cmocka_unit_test_setup_teardown(a_resubmit_keeps_to_the_batches,
						setup, teardown),
		cmocka_unit_test_setup_teardown(eagain_for_ever_is_an_io_error_after_the_bound,
						setup, teardown),
		cmocka_unit_test_setup_teardown(a_read_answered_eagain_is_read_again_into_poison,
						setup, teardown),
		cmocka_unit_test_setup_teardown(the_prefill_resubmits_count_in_the_totals,
						setup, teardown),
		cmocka_unit_test_setup_teardown(a_short_write_stays_an_io_error,
						setup, teardown),
	};

	return cmocka_run_group_tests_name("run", tests, NULL, NULL);
}

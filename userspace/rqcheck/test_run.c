// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: how the target is opened, and where --verify-only takes its
 * seed and generation from (run.c, verify.c).
 */
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
	};

	return cmocka_run_group_tests_name("run", tests, NULL, NULL);
}

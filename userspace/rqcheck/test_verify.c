// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: the classifier, on hand-made blocks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "format.h"
#include "verify.h"

#define SEED	0x1234abcdULL
#define GEN	7
#define NSECT	8
#define BS	(NSECT * FMT_SECTOR)
#define BLOCK	10
#define LBA	(2048 + BLOCK * NSECT)	/* region starts at 1 MiB */

static uint8_t buf[BS];
static uint8_t other[BS];
static struct sec_run runs[NSECT];
static uint32_t nruns;

static const struct verify_expect expect = {
	.seed = SEED,
	.gen = GEN,
	.block = BLOCK,
	.lba = LBA,
	.nsect = NSECT,
};

static uint8_t *sector(uint8_t *b, unsigned int i)
{
	return b + i * FMT_SECTOR;
}

/* the block as it should be */
static void good_block(uint8_t *b)
{
	fmt_encode_block(b, BS, SEED, GEN, BLOCK, LBA);
}

static enum blk_class classify(void)
{
	memset(runs, 0xa5, sizeof(runs));
	nruns = 0;
	return verify_block(buf, &expect, runs, &nruns);
}

static void test_good(void **state)
{
	(void)state;
	good_block(buf);
	assert_int_equal(classify(), CLS_GOOD);
	assert_int_equal(nruns, 1);
	assert_int_equal(runs[0].kind, SK_GOOD);
	assert_int_equal(runs[0].first, 0);
	assert_int_equal(runs[0].count, NSECT);
	/* without run storage */
	assert_int_equal(verify_block(buf, &expect, NULL, NULL), CLS_GOOD);
}

static void test_stale_older_generation(void **state)
{
	(void)state;
	fmt_encode_block(buf, BS, SEED, GEN - 1, BLOCK, LBA);
	assert_int_equal(classify(), CLS_STALE);
	assert_int_equal(nruns, 1);
	assert_int_equal(runs[0].kind, SK_STALE);
	assert_int_equal(runs[0].content, FMT_VALID);
	assert_true(runs[0].hdr.gen == GEN - 1);
	assert_true(runs[0].hdr.lba == LBA);
	assert_int_equal(runs[0].count, NSECT);
}

static void test_stale_prefill_and_other_seed(void **state)
{
	(void)state;
	fmt_encode_block(buf, BS, SEED, 0, BLOCK, LBA);
	assert_int_equal(classify(), CLS_STALE);
	/* same generation number, but left by another run */
	fmt_encode_block(buf, BS, SEED + 1, GEN, BLOCK, LBA);
	assert_int_equal(classify(), CLS_STALE);
	assert_true(runs[0].hdr.seed == SEED + 1);
}

static void test_stale_mixed_generations_is_torn(void **state)
{
	(void)state;
	fmt_encode_block(buf, BS, SEED, GEN - 1, BLOCK, LBA);
	fmt_encode_block(other, BS, SEED, GEN - 2, BLOCK, LBA);
	memcpy(sector(buf, 4), sector(other, 4), 4 * FMT_SECTOR);
	assert_int_equal(classify(), CLS_TORN);
	assert_int_equal(nruns, 2);
	assert_int_equal(runs[0].kind, SK_STALE);
	assert_int_equal(runs[1].kind, SK_STALE);
	assert_int_equal(runs[1].first, 4);
	assert_true(runs[1].hdr.gen == GEN - 2);
}

static void test_unwritten(void **state)
{
	unsigned int i;

	(void)state;
	memset(buf, 0, BS);
	assert_int_equal(classify(), CLS_UNWRITTEN);
	assert_int_equal(nruns, 1);
	assert_int_equal(runs[0].kind, SK_UNWRITTEN);
	assert_int_equal(runs[0].content, FMT_ZERO);

	for (i = 0; i < BS; i++)
		buf[i] = (uint8_t)(i * 31 + 7);
	assert_int_equal(classify(), CLS_UNWRITTEN);
	assert_int_equal(runs[0].content, FMT_GARBAGE);

	/* our headers, every sector damaged: still no valid header */
	good_block(buf);
	for (i = 0; i < NSECT; i++)
		sector(buf, i)[100] ^= 0xff;
	assert_int_equal(classify(), CLS_UNWRITTEN);
	assert_int_equal(runs[0].content, FMT_BADCRC);

	/* zeros then garbage: both without header, one class, two runs */
	memset(buf, 0, BS);
	memset(sector(buf, 5), 0x17, 3 * FMT_SECTOR);
	assert_int_equal(classify(), CLS_UNWRITTEN);
	assert_int_equal(nruns, 2);
}

static void test_misplaced(void **state)
{
	(void)state;
	/* block 3's content where block 10 should be */
	fmt_encode_block(buf, BS, SEED, GEN, 3, 2048 + 3 * NSECT);
	assert_int_equal(classify(), CLS_MISPLACED);
	assert_int_equal(nruns, 1);
	assert_int_equal(runs[0].kind, SK_MISPLACED);
	assert_true(runs[0].hdr.lba == 2048 + 3 * NSECT);
	assert_true(runs[0].hdr.block == 3);

	/* an older generation of another block is misplaced too */
	fmt_encode_block(buf, BS, SEED, GEN - 3, 30, 2048 + 30 * NSECT);
	assert_int_equal(classify(), CLS_MISPLACED);

	/* right LBA and generation, written as another block index */
	fmt_encode_block(buf, BS, SEED, GEN, BLOCK + 1, LBA);
	assert_int_equal(classify(), CLS_MISPLACED);
}

static void test_misplaced_incoherent_is_torn(void **state)
{
	(void)state;
	fmt_encode_block(buf, BS, SEED, GEN, 3, 2048 + 3 * NSECT);
	fmt_encode_block(other, BS, SEED, GEN, 4, 2048 + 4 * NSECT);
	memcpy(sector(buf, 6), sector(other, 6), 2 * FMT_SECTOR);
	assert_int_equal(classify(), CLS_TORN);

	/* sectors of the right other block, in the wrong order */
	fmt_encode_block(buf, BS, SEED, GEN, 3, 2048 + 3 * NSECT);
	memcpy(other, sector(buf, 0), FMT_SECTOR);
	memcpy(sector(buf, 0), sector(buf, 1), FMT_SECTOR);
	memcpy(sector(buf, 1), other, FMT_SECTOR);
	assert_int_equal(classify(), CLS_TORN);
}

static void test_torn_one_sector(void **state)
{
	(void)state;
	/* one sector of the previous generation */
	good_block(buf);
	fmt_encode_block(other, BS, SEED, GEN - 1, BLOCK, LBA);
	memcpy(sector(buf, 2), sector(other, 2), FMT_SECTOR);
	assert_int_equal(classify(), CLS_TORN);
	assert_int_equal(nruns, 3);
	assert_int_equal(runs[0].kind, SK_GOOD);
	assert_int_equal(runs[0].count, 2);
	assert_int_equal(runs[1].kind, SK_STALE);
	assert_int_equal(runs[1].first, 2);
	assert_int_equal(runs[1].count, 1);
	assert_int_equal(runs[2].kind, SK_GOOD);
	assert_int_equal(runs[2].first, 3);
	assert_int_equal(runs[2].count, 5);

	/* one zeroed sector */
	good_block(buf);
	memset(sector(buf, 7), 0, FMT_SECTOR);
	assert_int_equal(classify(), CLS_TORN);
	assert_int_equal(runs[nruns - 1].kind, SK_UNWRITTEN);

	/* one flipped bit */
	good_block(buf);
	sector(buf, 0)[511] ^= 1;
	assert_int_equal(classify(), CLS_TORN);
	assert_int_equal(runs[0].content, FMT_BADCRC);

	/* half the block from another LBA */
	good_block(buf);
	fmt_encode_block(other, BS, SEED, GEN, 99, 9999);
	memcpy(buf, other, BS / 2);
	assert_int_equal(classify(), CLS_TORN);
	assert_int_equal(runs[0].kind, SK_MISPLACED);
}

static void test_unfilled(void **state)
{
	(void)state;
	fmt_poison(buf, BS);
	assert_int_equal(classify(), CLS_UNFILLED);
	assert_int_equal(nruns, 1);
	assert_int_equal(runs[0].kind, SK_POISON);
	assert_int_equal(runs[0].content, FMT_POISON);

	/* the tail of the buffer never filled, the head good */
	good_block(buf);
	fmt_poison(sector(buf, 4), 4 * FMT_SECTOR);
	assert_int_equal(classify(), CLS_UNFILLED);
	assert_int_equal(nruns, 2);

	/* poison next to something else than good data: torn */
	fmt_poison(buf, BS);
	memset(buf, 0, FMT_SECTOR);
	assert_int_equal(classify(), CLS_TORN);
}

static void test_single_sector_blocks(void **state)
{
	struct verify_expect x = expect;

	(void)state;
	x.nsect = 1;
	fmt_encode_block(buf, FMT_SECTOR, SEED, GEN, BLOCK, LBA);
	assert_int_equal(verify_block(buf, &x, runs, &nruns), CLS_GOOD);
	fmt_encode_block(buf, FMT_SECTOR, SEED, GEN - 1, BLOCK, LBA);
	assert_int_equal(verify_block(buf, &x, runs, &nruns), CLS_STALE);
	fmt_encode_block(buf, FMT_SECTOR, SEED, GEN, BLOCK + 1, LBA + 1);
	assert_int_equal(verify_block(buf, &x, runs, &nruns), CLS_MISPLACED);
	memset(buf, 0, FMT_SECTOR);
	assert_int_equal(verify_block(buf, &x, runs, &nruns), CLS_UNWRITTEN);
	fmt_poison(buf, FMT_SECTOR);
	assert_int_equal(verify_block(buf, &x, runs, &nruns), CLS_UNFILLED);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(blk_class_name(CLS_GOOD), "good");
	assert_string_equal(blk_class_name(CLS_STALE), "stale");
	assert_string_equal(blk_class_name(CLS_UNWRITTEN), "unwritten");
	assert_string_equal(blk_class_name(CLS_MISPLACED), "misplaced");
	assert_string_equal(blk_class_name(CLS_TORN), "torn");
	assert_string_equal(blk_class_name(CLS_UNFILLED), "unfilled");
	assert_string_equal(blk_class_name(CLS_IO_ERROR), "io_error");
	assert_string_equal(blk_class_name(CLS__COUNT), "?");
	assert_string_equal(sec_kind_name(SK_POISON), "unfilled");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_stale_older_generation),
		cmocka_unit_test(test_stale_prefill_and_other_seed),
		cmocka_unit_test(test_stale_mixed_generations_is_torn),
		cmocka_unit_test(test_unwritten),
		cmocka_unit_test(test_misplaced),
		cmocka_unit_test(test_misplaced_incoherent_is_torn),
		cmocka_unit_test(test_torn_one_sector),
		cmocka_unit_test(test_unfilled),
		cmocka_unit_test(test_single_sector_blocks),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests_name("verify", tests, NULL, NULL);
}

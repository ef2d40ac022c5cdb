// SPDX-License-Identifier: GPL-3.0+
/*
 * Unit test of blktests/src/merge_into_prepared.c's failure report (its
 * describe_block()), on the host: tests/host/run blktests-helper builds it
 * with -fsanitize=address,undefined, so a report that writes past its
 * buffer fails.  The helper's main() is renamed away and never runs.
 */
#define main merge_into_prepared_main
#include "../../blktests/src/merge_into_prepared.c"
#undef main

static int failures;

#define CHECK(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "FAIL %s:%d: ", __func__, __LINE__); \
			fprintf(stderr, __VA_ARGS__);			\
			fputc('\n', stderr);				\
			failures++;					\
		}							\
	} while (0)

/* Sector S of BUF holds the data of sector LBA written by PASS in RUN. */
static void put_sector(unsigned char *buf, unsigned int s, uint64_t lba,
		       uint64_t pass, uint64_t run)
{
	struct sector_header h = {
		.magic = SECTOR_MAGIC, .lba = lba, .pass = pass, .run = run,
	};

	memcpy(buf + s * SECTOR_SIZE, &h, sizeof(h));
	fill_pattern(buf + s * SECTOR_SIZE, &h);
}

/* Describe BUF (block BLOCK, pass PASS) into a heap buffer of exactly LEN. */
static char *describe(const unsigned char *buf, uint64_t block,
		      uint64_t pass, size_t len, bool *good)
{
	char *out = malloc(len);

	if (!out)
		abort();
	*good = describe_block(buf, block, pass, out, len);
	CHECK(memchr(out, '\0', len) != NULL, "not terminated (len %zu)", len);
	return out;
}

static void test_good_and_uniform(void)
{
	static unsigned char buf[BLOCK_BYTES];
	unsigned int s;
	bool good;
	char *out;

	fill_block(buf, 5, 3);
	out = describe(buf, 5, 3, 256, &good);
	CHECK(good && !strcmp(out, "good"), "got '%s'", out);
	free(out);

	out = describe(buf, 5, 4, 256, &good);
	CHECK(!good && !strcmp(out, "stale (pass 3)"), "got '%s'", out);
	free(out);

	/* Contiguous data of another place: one run. */
	for (s = 0; s < SECTORS; s++)
		put_sector(buf, s, 800 + s, 4, run_id);
	out = describe(buf, 5, 4, 256, &good);
	CHECK(!good && !strcmp(out, "misplaced (holds sectors 800-807)"),
	      "got '%s'", out);
	free(out);
}

/* Every sector misplaced, but not contiguously: not one uniform block. */
static void test_scattered_misplaced(void)
{
	static const uint64_t held[SECTORS] = {
		100, 205, 7, 8, 9, 64, 1000, 3,
	};
	static unsigned char buf[BLOCK_BYTES];
	unsigned int s;
	bool good;
	char *out;

	for (s = 0; s < SECTORS; s++)
		put_sector(buf, s, held[s], 2, run_id);
	out = describe(buf, 5, 2, 512, &good);
	CHECK(!good && !strcmp(out,
		"sector 0 misplaced (holds sector 100), "
		"sector 1 misplaced (holds sector 205), "
		"sectors 2-4 misplaced (holds sectors 7-9), "
		"sector 5 misplaced (holds sector 64), "
		"sector 6 misplaced (holds sector 1000), "
		"sector 7 misplaced (holds sector 3)"), "got '%s'", out);
	free(out);
}

/* The report of the fuzz run that overflowed: long runs, small buffer. */
static void test_long_report_is_cut(void)
{
	static unsigned char buf[BLOCK_BYTES];
	unsigned int s;
	bool good;
	char *out;

	for (s = 0; s < SECTORS; s++)
		put_sector(buf, s, UINT64_MAX - 1000 * s, 2, run_id);
	out = describe(buf, 5, 2, 256, &good);
	CHECK(!good && strlen(out) == 255, "length %zu: '%s'", strlen(out),
	      out);
	CHECK(!strcmp(out + 252, "..."), "not marked as cut: '%s'", out);
	free(out);

	for (s = 0; s < SECTORS; s++)
		put_sector(buf, s, 5 * SECTORS + s, UINT64_MAX - s, run_id);
	out = describe(buf, 5, 2, 64, &good);
	CHECK(!good && strlen(out) == 63, "length %zu: '%s'", strlen(out),
	      out);
	free(out);
}

/* Random sectors of every kind, random buffer sizes. */
static void test_fuzz(void)
{
	static unsigned char buf[BLOCK_BYTES];
	uint64_t state = 42;
	unsigned int i, s;
	int before = failures;
	bool good;
	char *out;

	for (i = 0; i < 200000; i++) {
		uint64_t r = splitmix64(&state);
		size_t len = 1 + r % 400;

		for (s = 0; s < SECTORS; s++) {
			uint64_t v = splitmix64(&state);
			uint64_t big = v >> 3;

			switch (v % 7) {
			case 0:
				put_sector(buf, s, 5 * SECTORS + s, 2, run_id);
				break;
			case 1:
				put_sector(buf, s, 5 * SECTORS + s, big % 3 ?
					   big : 1, run_id);
				break;
			case 2:
				put_sector(buf, s, big, 2, run_id);
				break;
			case 3:
				put_sector(buf, s, 5 * SECTORS + s, 2, big);
				break;
			case 4:
				poison_block(buf);
				break;
			case 5:
				memset(buf + s * SECTOR_SIZE, 0, SECTOR_SIZE);
				break;
			default:
				memset(buf + s * SECTOR_SIZE, (int)v,
				       SECTOR_SIZE);
			}
		}
		out = describe(buf, 5, 2, len, &good);
		CHECK(strlen(out) < len, "length %zu of %zu", strlen(out),
		      len);
		free(out);
		if (failures > before)
			return;
	}
}

int main(void)
{
	progname = "merge_into_prepared_test";
	run_id = 0x1234567;
	test_good_and_uniform();
	test_scattered_misplaced();
	test_long_report_is_cut();
	test_fuzz();
	if (failures) {
		fprintf(stderr, "%d checks failed\n", failures);
		return 1;
	}
	printf("describe_block: all checks passed\n");
	return 0;
}

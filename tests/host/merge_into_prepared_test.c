// SPDX-License-Identifier: GPL-3.0+
/*
 * Unit test of blktests/src/merge_into_prepared.c's failure report (its
 * describe_block()) and of its engines, on the host: tests/host/run
 * blktests-helper builds it with -fsanitize=address,undefined, so a report
 * that writes past its buffer fails.  The helper's main() is renamed away
 * and never runs.
 *
 * The engines run on a scratch file in $TMPDIR (default /tmp) with
 * O_DIRECT: a round trip, an I/O answered -EAGAIN and a wait that times
 * out, for io_uring and AIO; and the fallback to AIO, with io_uring_setup()
 * made to fail.  A file system without O_DIRECT, or a host without io_uring,
 * skips what it cannot run, and says so.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64

#include <errno.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* When not 0, io_uring_setup() fails with this errno. */
static int fake_uring_errno;

static bool fake_uring_failure(long nr)
{
	if (nr != SYS_io_uring_setup || !fake_uring_errno)
		return false;
	errno = fake_uring_errno;
	return true;
}

/* Defined after <unistd.h> declared syscall(), which the macro calls. */
#define syscall(nr, ...) \
	(fake_uring_failure(nr) ? -1 : syscall(nr, __VA_ARGS__))

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

#define SCRATCH_BLOCKS	256	/* 16 windows */

/*
 * Make @e the engine, as main() does; false if io_uring fell back.  An AIO
 * context of an earlier call goes: io_setup() wants a zeroed one.
 */
static bool use_engine(enum engine e, bool chosen)
{
	if (ctx && syscall(SYS_io_destroy, ctx))
		abort();
	ctx = 0;
	engine = e;
	engine_note[0] = '\0';
	setup_engine(chosen);
	return engine == e;
}

/* The exit status of @fn, run in a child with its stderr silenced. */
static int exit_status_of(void (*fn)(void))
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		abort();
	if (!pid) {
		if (!freopen("/dev/null", "w", stderr))
			_exit(99);
		ctx = 0;	/* a child inherits no AIO context */
		fn();
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static void fall_back(void)
{
	use_engine(ENGINE_IO_URING, false);
}

static void insist_on_io_uring(void)
{
	use_engine(ENGINE_IO_URING, true);
}

/* No io_uring, or a forbidden one: AIO, and why; anything else: exit 3. */
static void test_fallback(void)
{
	static const int reasons[] = { ENOSYS, EPERM };
	char expect[sizeof(engine_note)];
	unsigned int i;

	for (i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++) {
		fake_uring_errno = reasons[i];
		CHECK(!use_engine(ENGINE_IO_URING, false) &&
		      engine == ENGINE_AIO, "errno %d: engine %s", reasons[i],
		      engine_name[engine]);
		snprintf(expect, sizeof(expect), " (io_uring: %s)",
			 strerror(reasons[i]));
		CHECK(!strcmp(engine_note, expect), "note '%s'", engine_note);
	}
	fake_uring_errno = ENOSYS;
	CHECK(exit_status_of(insist_on_io_uring) == 3,
	      "-e io_uring without io_uring did not exit 3");
	fake_uring_errno = EINVAL;
	CHECK(exit_status_of(fall_back) == 3,
	      "io_uring_setup's EINVAL was not an error");
	fake_uring_errno = 0;
}

/* A scratch file of SCRATCH_BLOCKS in $TMPDIR, with O_DIRECT; or -1. */
static int open_scratch(void)
{
	const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char path[4096];
	int f;

	snprintf(path, sizeof(path), "%s/merge_into_prepared_test.XXXXXX",
		 dir);
	f = mkstemp(path);
	if (f < 0)
		return -1;
	unlink(path);
	if (ftruncate(f, SCRATCH_BLOCKS * BLOCK_BYTES) ||
	    fcntl(f, F_SETFL, O_DIRECT)) {
		printf("engines: not tried, no O_DIRECT file in %s: %s\n",
		       dir, strerror(errno));
		close(f);
		return -1;
	}
	return f;
}

/* Slot 0's I/O of @block, as if in flight; and its completion, with @res. */
static struct completion in_flight_slot(uint64_t block, long long res)
{
	struct slot *slot = &slots[0];

	slot->block = block;
	slot->busy = true;
	slot->eagain = 0;
	in_flight = 1;
	return (struct completion){ slot, res };
}

/* -EAGAIN: the same I/O goes again, and completes for real. */
static void test_eagain_resubmits(void)
{
	unsigned long resubmits = eagain_resubmits, bad = bad_blocks;
	static unsigned char again[BLOCK_BYTES]
		__attribute__((aligned(BLOCK_BYTES)));
	struct completion c;

	c = in_flight_slot(5, -EAGAIN);
	fill_block(c.slot->buf, 5, 7);
	finish_io(&c, false, 7);
	CHECK(eagain_resubmits == resubmits + 1 && c.slot->eagain == 1 &&
	      c.slot->busy && in_flight == 1, "%s: write not submitted again",
	      engine_name[engine]);
	reap(QUEUE_DEPTH, false, 7);
	CHECK(!in_flight && !c.slot->busy, "%s: write not reaped",
	      engine_name[engine]);
	CHECK(pread(fd, again, BLOCK_BYTES, 5 * BLOCK_BYTES) == BLOCK_BYTES &&
	      block_is_good(again, 5, 7), "%s: write not done",
	      engine_name[engine]);

	/* A read goes again into a buffer that is checked again. */
	c = in_flight_slot(5, -EAGAIN);
	memset(c.slot->buf, 0xa5, BLOCK_BYTES);
	finish_io(&c, true, 7);
	reap(QUEUE_DEPTH, true, 7);
	CHECK(eagain_resubmits == resubmits + 2 && !in_flight &&
	      bad_blocks == bad, "%s: read not submitted again",
	      engine_name[engine]);
}

static void eagain_for_ever(void)
{
	struct completion c = in_flight_slot(5, -EAGAIN);

	c.slot->eagain = MAX_EAGAIN;
	finish_io(&c, false, 7);
}

/* A wait with nothing in flight ends after its timeout, with nothing. */
static void test_wait_times_out(void)
{
	struct completion done[QUEUE_DEPTH];
	struct timespec t0, t1;
	double waited;
	int n;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	n = wait_completions(done, 1);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	waited = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	CHECK(n == 0 && waited > 0.9 && waited < 10,
	      "%s: wait returned %d after %.2f s", engine_name[engine], n,
	      waited);
}

/* Each engine: a pass written and verified, -EAGAIN, a timeout. */
static void test_engines(void)
{
	enum engine e;
	unsigned int s;

	fd = open_scratch();
	if (fd < 0)
		return;
	for (s = 0; s < QUEUE_DEPTH; s++) {
		if (posix_memalign((void **)&slots[s].buf, BLOCK_BYTES,
				   BLOCK_BYTES))
			abort();
	}
	for (e = ENGINE_IO_URING; e <= ENGINE_AIO; e++) {
		unsigned long bad = bad_blocks;

		if (!use_engine(e, false)) {
			printf("%s: not tried, the host's will not do%s\n",
			       engine_name[e], engine_note);
			continue;
		}
		one_pass(SCRATCH_BLOCKS, 0, false);
		one_pass(SCRATCH_BLOCKS, 1, false);
		one_pass(SCRATCH_BLOCKS, 1, true);
		CHECK(bad_blocks == bad && !in_flight,
		      "%s: %lu bad blocks, %u in flight", engine_name[e],
		      bad_blocks - bad, in_flight);
		test_eagain_resubmits();
		CHECK(exit_status_of(eagain_for_ever) == 3,
		      "%s: -EAGAIN past MAX_EAGAIN did not exit 3",
		      engine_name[e]);
		test_wait_times_out();
		printf("%s: round trip, -EAGAIN and timeout checked\n",
		       engine_name[e]);
	}
	for (s = 0; s < QUEUE_DEPTH; s++)
		free(slots[s].buf);
	close(fd);
}

int main(void)
{
	progname = "merge_into_prepared_test";
	run_id = 0x1234567;
	test_good_and_uniform();
	test_scattered_misplaced();
	test_long_report_is_cut();
	test_fuzz();
	test_fallback();
	test_engines();
	if (failures) {
		fprintf(stderr, "%d checks failed\n", failures);
		return 1;
	}
	printf("describe_block and the engines: all checks passed\n");
	return 0;
}

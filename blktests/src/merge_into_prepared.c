// SPDX-License-Identifier: GPL-3.0+

/*
 * Write and verify a block device in an order that makes bios front-merge
 * into plugged requests, some of which fail direct issue after the driver
 * prepared them (the v4.19 corruption of 6ce3dd6eec11).  In windows of 16
 * blocks from the top down: the 8 even blocks in one io_submit() (a plug),
 * then the 8 odd ones, each ending where an even block starts; every second
 * window ascends (see nth_block()).  Pinned to one CPU, queue depth 32.
 *
 * Every sector carries its number, the pass and a run id, so a bad block is
 * described ("stale": a lost write, "unfilled": a read without data,
 * "misplaced", "zeroes", "garbage") and read again to tell the read path
 * from the disk.  Prints nothing if all is well, else the first MAX_REPORT
 * bad blocks and a summary.  Exit: 0 clean, 1 bad blocks, 2 usage, 3 error.
 */

#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/aio_abi.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#define BLOCK_BYTES	4096
#define SECTOR_SIZE	512
#define SECTORS		(BLOCK_BYTES / SECTOR_SIZE)
#define WINDOW		16	/* blocks; 8 even + 8 odd */
#define BATCH		8	/* iocbs per io_submit(): plugged */
#define QUEUE_DEPTH	32
#define MAX_REPORT	32	/* bad blocks described in detail */
#define IO_TIMEOUT	60	/* seconds without a completion: an error */

#define SECTOR_MAGIC	0x31504d49544b4c42ULL	/* "BLKTIMP1" */
#define POISON		0x4e4f53494f50544bULL	/* "KTPOISON" */

struct sector_header {
	uint64_t magic;
	uint64_t lba;		/* 512-byte sector number on the device */
	uint64_t pass;		/* 0: the prefill */
	uint64_t run;
};

enum kind { GOOD, STALE, OTHER_RUN, MISPLACED, UNFILLED, ZEROES, GARBAGE };

static const char * const kind_name[] = {
	[GOOD] = "good",
	[STALE] = "stale",
	[OTHER_RUN] = "from another run",
	[MISPLACED] = "misplaced",
	[UNFILLED] = "unfilled",
	[ZEROES] = "zeroes",
	[GARBAGE] = "garbage",
};

struct judgement {
	enum kind kind;
	uint64_t value;		/* STALE: pass found; MISPLACED: lba found */
};

struct slot {
	struct iocb iocb;
	unsigned char *buf;
	uint64_t block;
	bool busy;
};

static const char *progname;
static int fd;
static uint64_t run_id;
static aio_context_t ctx;
static struct slot slots[QUEUE_DEPTH];
static unsigned int in_flight;
static unsigned long bad_blocks, reported;

static void usage(void)
{
	fprintf(stderr,
		"usage: %s [-c CPU] [-p PASSES] [-s MIB] DEVICE\n"
		"  write and verify the first MIB (default 8) MiB of DEVICE\n"
		"  PASSES times (default 16) in an order that front-merges\n"
		"  bios into plugged requests, pinned to CPU (default: the\n"
		"  current one); DEVICE is overwritten\n", progname);
	exit(2);
}

static void fatal(const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", progname, what, strerror(errno));
	exit(3);
}

static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The words after the header of a sector, from the header's own fields. */
static void fill_pattern(unsigned char *sector, const struct sector_header *h)
{
	uint64_t state = h->run ^ (h->lba * 0x100000001b3ULL) ^ (h->pass << 48);
	size_t i;

	for (i = sizeof(*h); i < SECTOR_SIZE; i += sizeof(uint64_t)) {
		uint64_t w = splitmix64(&state);

		memcpy(sector + i, &w, sizeof(w));
	}
}

static void fill_block(unsigned char *buf, uint64_t block, uint64_t pass)
{
	unsigned int s;

	for (s = 0; s < SECTORS; s++) {
		struct sector_header h = {
			.magic = SECTOR_MAGIC,
			.lba = block * SECTORS + s,
			.pass = pass,
			.run = run_id,
		};

		memcpy(buf + s * SECTOR_SIZE, &h, sizeof(h));
		fill_pattern(buf + s * SECTOR_SIZE, &h);
	}
}

static bool block_is_good(const unsigned char *buf, uint64_t block,
			  uint64_t pass)
{
	static unsigned char expect[BLOCK_BYTES];

	fill_block(expect, block, pass);
	return memcmp(buf, expect, BLOCK_BYTES) == 0;
}

/* A read buffer starts out poisoned, so a read that is never filled shows. */
static void poison_block(unsigned char *buf)
{
	size_t i;

	for (i = 0; i < BLOCK_BYTES; i += sizeof(uint64_t)) {
		uint64_t w = POISON ^ i;

		memcpy(buf + i, &w, sizeof(w));
	}
}

static bool all_poison(const unsigned char *sector, size_t offset)
{
	size_t i;

	for (i = 0; i < SECTOR_SIZE; i += sizeof(uint64_t)) {
		uint64_t w;

		memcpy(&w, sector + i, sizeof(w));
		if (w != (POISON ^ (offset + i)))
			return false;
	}
	return true;
}

static bool all_zero(const unsigned char *sector)
{
	size_t i;

	for (i = 0; i < SECTOR_SIZE; i++) {
		if (sector[i])
			return false;
	}
	return true;
}

static struct judgement judge_sector(const unsigned char *sector,
				     size_t offset, uint64_t lba,
				     uint64_t pass)
{
	unsigned char expect[SECTOR_SIZE];
	struct sector_header h;
	struct judgement j = { GARBAGE, 0 };

	memcpy(&h, sector, sizeof(h));
	if (h.magic == SECTOR_MAGIC) {
		/* Valid only if the pattern matches the header it follows. */
		memcpy(expect, &h, sizeof(h));
		fill_pattern(expect, &h);
		if (memcmp(expect, sector, SECTOR_SIZE) != 0)
			return j;
		if (h.run != run_id)
			j.kind = OTHER_RUN;
		else if (h.lba != lba)
			j = (struct judgement){ MISPLACED, h.lba };
		else if (h.pass != pass)
			j = (struct judgement){ STALE, h.pass };
		else
			j.kind = GOOD;
	} else if (all_poison(sector, offset)) {
		j.kind = UNFILLED;
	} else if (all_zero(sector)) {
		j.kind = ZEROES;
	}
	return j;
}

/* Append to OUT (LEN bytes, N used); a text that does not fit ends in "...". */
__attribute__((format(printf, 4, 5)))
static void append(char *out, size_t len, size_t *n, const char *fmt, ...)
{
	va_list ap;
	int ret;

	if (*n + 1 >= len)
		return;
	va_start(ap, fmt);
	ret = vsnprintf(out + *n, len - *n, fmt, ap);
	va_end(ap);
	if (ret < 0)
		return;
	if ((size_t)ret >= len - *n) {
		*n = len - 1;
		if (len >= 4)
			memcpy(out + len - 4, "...", 3);
		return;
	}
	*n += ret;
}

/* Whether sector S continues the run of sectors that starts at FIRST. */
static bool same_run(const struct judgement *j, unsigned int first,
		     unsigned int s)
{
	if (j[s].kind != j[first].kind)
		return false;
	if (j[s].kind == STALE)
		return j[s].value == j[first].value;
	if (j[s].kind == MISPLACED)
		return j[s].value == j[first].value + (s - first);
	return true;
}

/*
 * Describe a block as "good", as one kind when all its sectors are one run
 * (the same kind; misplaced: contiguous data), or as runs of sectors.
 * Returns true if the block is good.
 */
static bool describe_block(const unsigned char *buf, uint64_t block,
			   uint64_t pass, char *out, size_t len)
{
	struct judgement j[SECTORS];
	unsigned int s, first;
	size_t n = 0;
	bool same = true;

	if (len)
		out[0] = '\0';
	for (s = 0; s < SECTORS; s++) {
		j[s] = judge_sector(buf + s * SECTOR_SIZE, s * SECTOR_SIZE,
				    block * SECTORS + s, pass);
		if (s && !same_run(j, 0, s))
			same = false;
	}
	if (same && j[0].kind == GOOD) {
		append(out, len, &n, "good");
		return true;
	}
	for (first = 0, s = 1; s <= SECTORS; s++) {
		if (s < SECTORS && same_run(j, first, s))
			continue;
		if (!same && s - 1 == first)
			append(out, len, &n, "%ssector %u ",
			       first ? ", " : "", first);
		else if (!same)
			append(out, len, &n, "%ssectors %u-%u ",
			       first ? ", " : "", first, s - 1);
		append(out, len, &n, "%s", kind_name[j[first].kind]);
		if (j[first].kind == STALE)
			append(out, len, &n, " (pass %" PRIu64 ")",
			       j[first].value);
		else if (j[first].kind == MISPLACED && s - 1 == first)
			append(out, len, &n, " (holds sector %" PRIu64 ")",
			       j[first].value);
		else if (j[first].kind == MISPLACED)
			append(out, len, &n,
			       " (holds sectors %" PRIu64 "-%" PRIu64 ")",
			       j[first].value,
			       j[first].value + (s - 1 - first));
		first = s;
	}
	return false;
}

/* A bad block: read it again and report both reads. */
static void bad_block(const unsigned char *buf, uint64_t block, uint64_t pass)
{
	static unsigned char *again;
	char first[256], second[256];
	const char *where;
	ssize_t ret;

	bad_blocks++;
	if (reported >= MAX_REPORT)
		return;
	reported++;

	describe_block(buf, block, pass, first, sizeof(first));
	if (!again && posix_memalign((void **)&again, BLOCK_BYTES, BLOCK_BYTES))
		fatal("posix_memalign");
	poison_block(again);
	ret = pread(fd, again, BLOCK_BYTES, (off_t)block * BLOCK_BYTES);
	if (ret != BLOCK_BYTES) {
		snprintf(second, sizeof(second), "failed (%zd)", ret);
		where = "unknown";
	} else if (describe_block(again, block, pass, second, sizeof(second))) {
		where = "in the read path";
	} else {
		where = "on disk";
	}
	printf("pass %" PRIu64 ": block %" PRIu64 " (sector %" PRIu64
	       ", byte %" PRIu64 "): %s; re-read: %s: %s\n",
	       pass, block, block * SECTORS,
	       block * BLOCK_BYTES, first, second, where);
}

static int io_setup(unsigned int nr, aio_context_t *c)
{
	return syscall(SYS_io_setup, nr, c);
}

static int io_submit(aio_context_t c, long nr, struct iocb **iocbs)
{
	return syscall(SYS_io_submit, c, nr, iocbs);
}

static int io_getevents(aio_context_t c, long min_nr, long nr,
			struct io_event *events, struct timespec *timeout)
{
	return syscall(SYS_io_getevents, c, min_nr, nr, events, timeout);
}

/*
 * Reap completions until at least @want slots are free; verify reads of
 * @pass.  A failed or short I/O is an error, not corruption.
 */
static void reap(unsigned int want, bool reading, uint64_t pass)
{
	struct io_event events[QUEUE_DEPTH];
	int i, n;

	while (QUEUE_DEPTH - in_flight < want) {
		struct timespec timeout = { .tv_sec = IO_TIMEOUT };

		n = io_getevents(ctx, 1, QUEUE_DEPTH, events, &timeout);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			fatal("io_getevents");
		}
		if (n == 0) {
			fprintf(stderr, "%s: pass %" PRIu64
				": none of %u %s completed within %d s\n",
				progname, pass, in_flight,
				reading ? "reads" : "writes", IO_TIMEOUT);
			exit(3);
		}
		for (i = 0; i < n; i++) {
			struct slot *slot;

			slot = (struct slot *)(uintptr_t)events[i].data;
			if (events[i].res != BLOCK_BYTES) {
				fprintf(stderr, "%s: pass %" PRIu64
					": %s of block %" PRIu64
					" returned %lld\n", progname,
					pass, reading ? "read" : "write",
					slot->block, (long long)events[i].res);
				exit(3);
			}
			if (reading && !block_is_good(slot->buf, slot->block,
						      pass))
				bad_block(slot->buf, slot->block, pass);
			slot->busy = false;
			in_flight--;
		}
	}
}

/*
 * The order of one pass: windows of WINDOW blocks from the top down; in
 * each, the even blocks, then the odd ones, from the highest down in the
 * top window and every second one below it, from the lowest up in the
 * others.  Which direction front-merges depends on the order the kernel
 * issues a plug in: newest first (before e70c301faece, "block: don't
 * reorder requests in blk_add_rq_to_plug") both do; in submission order,
 * a descending window makes the odd bio back-merge into the even request
 * below it, which waits in the software queue too, and only an ascending
 * one front-merges.
 */
static uint64_t nth_block(uint64_t nr_blocks, uint64_t i)
{
	uint64_t window = nr_blocks / WINDOW - 1 - i / WINDOW;
	uint64_t k = i % WINDOW;
	uint64_t half = WINDOW / 2;
	uint64_t step = k < half ? k : k - half;
	uint64_t odd = k >= half;

	if ((i / WINDOW) % 2 == 0)
		step = half - 1 - step;
	return window * WINDOW + step * 2 + odd;
}

/* Write (or read back and verify) every block once, BATCH per syscall. */
static void one_pass(uint64_t nr_blocks, uint64_t pass, bool reading)
{
	struct iocb *batch[BATCH];
	uint64_t i = 0;

	while (i < nr_blocks) {
		unsigned int n = 0, s;
		int done, ret;

		reap(BATCH, reading, pass);
		for (s = 0; s < QUEUE_DEPTH && n < BATCH; s++) {
			struct slot *slot = &slots[s];

			if (i == nr_blocks)
				break;
			if (slot->busy)
				continue;
			slot->block = nth_block(nr_blocks, i++);
			slot->busy = true;
			if (reading)
				poison_block(slot->buf);
			else
				fill_block(slot->buf, slot->block, pass);
			memset(&slot->iocb, 0, sizeof(slot->iocb));
			slot->iocb.aio_data = (uintptr_t)slot;
			slot->iocb.aio_lio_opcode = reading ? IOCB_CMD_PREAD :
							      IOCB_CMD_PWRITE;
			slot->iocb.aio_fildes = fd;
			slot->iocb.aio_buf = (uintptr_t)slot->buf;
			slot->iocb.aio_nbytes = BLOCK_BYTES;
			slot->iocb.aio_offset =
				(int64_t)(slot->block * BLOCK_BYTES);
			batch[n++] = &slot->iocb;
		}
		/* All of a batch in one call: that is what plugs them. */
		for (done = 0; done < (int)n; done += ret) {
			ret = io_submit(ctx, n - done, batch + done);
			if (ret < 0 && errno == EINTR)
				ret = 0;
			else if (ret <= 0)
				fatal("io_submit");
		}
		in_flight += n;
	}
	reap(QUEUE_DEPTH, reading, pass);
}

static unsigned long parse(const char *s, unsigned long max)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v > max || s[0] == '-')
		usage();
	return v;
}

int main(int argc, char **argv)
{
	unsigned long passes = 16, mib = 8, pass;
	long cpu = -1;
	uint64_t bytes, nr_blocks;
	struct stat st;
	unsigned int s;
	int opt;

	progname = argv[0];
	while ((opt = getopt(argc, argv, "c:p:s:")) != -1) {
		switch (opt) {
		case 'c':
			cpu = parse(optarg, CPU_SETSIZE - 1);
			break;
		case 'p':
			passes = parse(optarg, 1000000);
			break;
		case 's':
			mib = parse(optarg, 1UL << 20);
			break;
		default:
			usage();
		}
	}
	if (optind != argc - 1 || passes < 1 || mib < 1)
		usage();

	fd = open(argv[optind], O_RDWR | O_DIRECT);
	if (fd < 0)
		fatal(argv[optind]);
	if (fstat(fd, &st))
		fatal("fstat");
	if (S_ISBLK(st.st_mode)) {
		if (ioctl(fd, BLKGETSIZE64, &bytes))
			fatal("BLKGETSIZE64");
	} else {
		bytes = st.st_size;
	}
	nr_blocks = (uint64_t)mib * 1024 * 1024 / BLOCK_BYTES;
	if (nr_blocks * BLOCK_BYTES > bytes) {
		fprintf(stderr, "%s: %s has %" PRIu64
			" bytes, %lu MiB needed\n",
			progname, argv[optind], bytes, mib);
		return 3;
	}

	/* One software queue for every bio. */
	if (cpu < 0)
		cpu = sched_getcpu();
	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			fatal("sched_setaffinity");
	} else {
		fatal("sched_getcpu");
	}

	run_id = ((uint64_t)time(NULL) << 20) ^ (uint64_t)getpid();
	for (s = 0; s < QUEUE_DEPTH; s++) {
		if (posix_memalign((void **)&slots[s].buf, BLOCK_BYTES,
				   BLOCK_BYTES))
			fatal("posix_memalign");
	}
	if (io_setup(QUEUE_DEPTH, &ctx))
		fatal("io_setup");

	/*
	 * Pass 0 fills the region, so that a write lost later leaves the
	 * previous pass behind: "stale", not "zeroes".
	 */
	one_pass(nr_blocks, 0, false);
	for (pass = 1; pass <= passes; pass++) {
		unsigned long before = bad_blocks;

		one_pass(nr_blocks, pass, false);
		one_pass(nr_blocks, pass, true);
		if (bad_blocks > before) {
			printf("pass %lu: %lu of %" PRIu64 " blocks bad%s\n",
			       pass, bad_blocks - before, nr_blocks,
			       bad_blocks > reported ?
			       " (not all listed)" : "");
			break;
		}
	}
	return bad_blocks ? 1 : 0;
}

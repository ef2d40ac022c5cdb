// SPDX-License-Identifier: GPL-3.0+

/*
 * Write and verify a block device in an order that makes bios front-merge
 * into plugged requests, some of which fail direct issue after the driver
 * prepared them (the v4.19 corruption of 6ce3dd6eec11).  In windows of 16
 * blocks from the top down: the 8 even blocks in one submission (a plug),
 * then the 8 odd ones, each ending where an even block starts; every second
 * window ascends (see nth_block()).  Pinned to one CPU, queue depth 32.
 *
 * Submits through io_uring (raw system calls), else Linux AIO: see
 * setup_engine() for why io_uring comes first.
 *
 * Every sector carries its number, the pass and a run id, so a bad block is
 * described ("stale": a lost write, "unfilled": a read without data,
 * "misplaced", "zeroes", "garbage") and read again to tell the read path
 * from the disk.  Prints the first MAX_REPORT bad blocks and a summary if
 * any, and last a line that names the engine ("engine: io_uring, ...").
 * Exit: 0 clean, 1 bad blocks, 2 usage, 3 error.
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
#include <linux/io_uring.h>
#include <linux/time_types.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#define BLOCK_BYTES	4096
#define SECTOR_SIZE	512
#define SECTORS		(BLOCK_BYTES / SECTOR_SIZE)
#define WINDOW		16	/* blocks; 8 even + 8 odd */
#define BATCH		8	/* I/Os per submission: plugged */
#define QUEUE_DEPTH	32
#define MAX_REPORT	32	/* bad blocks described in detail */
#define IO_TIMEOUT	60	/* seconds without a completion: an error */
#define MAX_EAGAIN	1000	/* -EAGAIN answers to one I/O: then an error */

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

enum engine { ENGINE_IO_URING, ENGINE_AIO };

static const char * const engine_name[] = {
	[ENGINE_IO_URING] = "io_uring",
	[ENGINE_AIO] = "aio",
};

struct slot {
	struct iocb iocb;	/* AIO only */
	unsigned char *buf;
	uint64_t block;
	unsigned int eagain;	/* times this I/O was answered -EAGAIN */
	bool busy;
};

struct completion {
	struct slot *slot;
	long long res;
};

/* The parts of io_uring's rings the helper uses, mapped from the kernel. */
struct ring {
	int fd;
	unsigned int *sq_tail, *sq_mask, *sq_array;
	struct io_uring_sqe *sqes;
	unsigned int *cq_head, *cq_tail, *cq_mask;
	struct io_uring_cqe *cqes;
};

static const char *progname;
static int fd;
static uint64_t run_id;
static enum engine engine = ENGINE_IO_URING;
static char engine_note[80];	/* why AIO, when io_uring was the default */
static struct ring ring;
static aio_context_t ctx;
static struct iocb *aio_batch[BATCH];
static unsigned int nr_queued;		/* I/Os queued, not yet submitted */
static struct slot slots[QUEUE_DEPTH];
static unsigned int in_flight;
static unsigned long bad_blocks, reported, eagain_resubmits;

__attribute__((noreturn))
static void usage(void)
{
	fprintf(stderr,
		"usage: %s [-c CPU] [-e ENGINE] [-p PASSES] [-s MIB] DEVICE\n"
		"  write and verify the first MIB (default 8) MiB of DEVICE\n"
		"  PASSES times (default 16) in an order that front-merges\n"
		"  bios into plugged requests, pinned to CPU (default: the\n"
		"  current one), through ENGINE: io_uring (the default; aio\n"
		"  if the kernel's io_uring will not do) or aio; DEVICE is\n"
		"  overwritten\n", progname);
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

static int io_uring_setup(unsigned int entries, struct io_uring_params *p)
{
	return syscall(SYS_io_uring_setup, entries, p);
}

static int io_uring_enter(int ring_fd, unsigned int to_submit,
			  unsigned int min_complete, unsigned int flags,
			  void *arg, size_t argsz)
{
	return syscall(SYS_io_uring_enter, ring_fd, to_submit, min_complete,
		       flags, arg, argsz);
}

/*
 * Set up io_uring and map its rings.  NULL, or why the kernel's io_uring
 * will not do: there is none (ENOSYS), it is forbidden (EPERM: sysctl
 * kernel.io_uring_disabled), or it cannot bound a wait for completions
 * (IORING_FEAT_EXT_ARG, 5.11).  Any other failure is fatal.
 */
static const char *setup_io_uring(void)
{
	const unsigned int needed = IORING_FEAT_SINGLE_MMAP |
				    IORING_FEAT_EXT_ARG;
	struct io_uring_params p;
	unsigned char *rings;
	size_t sq_len, cq_len;

	memset(&p, 0, sizeof(p));
	ring.fd = io_uring_setup(QUEUE_DEPTH, &p);
	if (ring.fd < 0 && (errno == ENOSYS || errno == EPERM))
		return strerror(errno);
	if (ring.fd < 0)
		fatal("io_uring_setup");
	if ((p.features & needed) != needed) {
		close(ring.fd);
		return "no IORING_FEAT_EXT_ARG";
	}

	/* One mapping holds both rings (IORING_FEAT_SINGLE_MMAP). */
	sq_len = p.sq_off.array + p.sq_entries * sizeof(__u32);
	cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	rings = mmap(NULL, sq_len > cq_len ? sq_len : cq_len,
		     PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		     ring.fd, IORING_OFF_SQ_RING);
	if (rings == MAP_FAILED)
		fatal("mmap io_uring rings");
	ring.sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe),
			 PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
			 ring.fd, IORING_OFF_SQES);
	if (ring.sqes == MAP_FAILED)
		fatal("mmap io_uring SQEs");
	ring.sq_tail = (unsigned int *)(rings + p.sq_off.tail);
	ring.sq_mask = (unsigned int *)(rings + p.sq_off.ring_mask);
	ring.sq_array = (unsigned int *)(rings + p.sq_off.array);
	ring.cq_head = (unsigned int *)(rings + p.cq_off.head);
	ring.cq_tail = (unsigned int *)(rings + p.cq_off.tail);
	ring.cq_mask = (unsigned int *)(rings + p.cq_off.ring_mask);
	ring.cqes = (struct io_uring_cqe *)(rings + p.cq_off.cqes);
	return NULL;
}

/*
 * io_uring first, unless AIO was chosen: its first attempt at an O_DIRECT
 * I/O does not block, so the bios carry REQ_NOWAIT, and since v6.6 blk-mq
 * runs the hardware queue asynchronously when it puts such a plug back
 * into the software queue, which leaves a refused, prepared request there
 * for the next bios to merge into.  Linux AIO submits blocking, and the
 * synchronous run takes that request out first: on those kernels only
 * io_uring shows the bug, before v6.6 both do.  So AIO when chosen (-e
 * aio) or when io_uring will not do; with -e io_uring, that is an error.
 */
static void setup_engine(bool chosen)
{
	const char *why;

	if (engine == ENGINE_IO_URING) {
		why = setup_io_uring();
		if (!why)
			return;
		if (chosen) {
			fprintf(stderr, "%s: io_uring: %s\n", progname, why);
			exit(3);
		}
		snprintf(engine_note, sizeof(engine_note), " (io_uring: %s)",
			 why);
		engine = ENGINE_AIO;
	}
	if (io_setup(QUEUE_DEPTH, &ctx))
		fatal("io_setup");
}

/* Put @slot's I/O into the submission ring, for io_uring_enter(). */
static void uring_queue(struct slot *slot, bool reading)
{
	unsigned int tail = *ring.sq_tail;
	unsigned int index = tail & *ring.sq_mask;
	struct io_uring_sqe *sqe = &ring.sqes[index];

	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = reading ? IORING_OP_READ : IORING_OP_WRITE;
	sqe->fd = fd;
	sqe->addr = (uintptr_t)slot->buf;
	sqe->len = BLOCK_BYTES;
	sqe->off = slot->block * BLOCK_BYTES;
	sqe->user_data = (uintptr_t)slot;
	ring.sq_array[index] = index;
	/* The entry must be written before the kernel can see the tail. */
	__atomic_store_n(ring.sq_tail, tail + 1, __ATOMIC_RELEASE);
}

static void aio_queue(struct slot *slot, bool reading)
{
	memset(&slot->iocb, 0, sizeof(slot->iocb));
	slot->iocb.aio_data = (uintptr_t)slot;
	slot->iocb.aio_lio_opcode = reading ? IOCB_CMD_PREAD : IOCB_CMD_PWRITE;
	slot->iocb.aio_fildes = fd;
	slot->iocb.aio_buf = (uintptr_t)slot->buf;
	slot->iocb.aio_nbytes = BLOCK_BYTES;
	slot->iocb.aio_offset = (int64_t)(slot->block * BLOCK_BYTES);
	aio_batch[nr_queued] = &slot->iocb;
}

/* Queue a read or write of @slot's block, to go with submit_queued(). */
static void queue_io(struct slot *slot, bool reading)
{
	if (engine == ENGINE_IO_URING)
		uring_queue(slot, reading);
	else
		aio_queue(slot, reading);
	nr_queued++;
}

/*
 * Submit the queued I/Os in one call: that is what plugs them (io_uring
 * and io_submit() both plug more than two I/Os submitted at once).  A
 * call that took only some is repeated for the rest.
 */
static void submit_queued(void)
{
	unsigned int done;
	int ret;

	for (done = 0; done < nr_queued; done += ret) {
		if (engine == ENGINE_IO_URING)
			ret = io_uring_enter(ring.fd, nr_queued - done, 0, 0,
					     NULL, 0);
		else
			ret = io_submit(ctx, nr_queued - done,
					aio_batch + done);
		if (ret < 0 && errno == EINTR)
			ret = 0;
		else if (ret <= 0)
			fatal(engine == ENGINE_IO_URING ? "io_uring_enter" :
							  "io_submit");
	}
	nr_queued = 0;
}

/*
 * Wait for a completion: with IORING_ENTER_EXT_ARG io_uring_enter() takes
 * a timeout, as io_getevents() does, and no timeout request has to be
 * queued and cancelled.
 */
static int uring_wait(struct completion *done, time_t seconds)
{
	struct __kernel_timespec ts = { .tv_sec = seconds };
	struct io_uring_getevents_arg arg = { .ts = (uintptr_t)&ts };
	unsigned int head = *ring.cq_head, n = 0;

	if (io_uring_enter(ring.fd, 0, 1,
			   IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG,
			   &arg, sizeof(arg)) < 0 && errno != ETIME)
		return -1;
	while (n < QUEUE_DEPTH &&
	       head != __atomic_load_n(ring.cq_tail, __ATOMIC_ACQUIRE)) {
		const struct io_uring_cqe *cqe;

		cqe = &ring.cqes[head++ & *ring.cq_mask];
		done[n].slot = (struct slot *)(uintptr_t)cqe->user_data;
		done[n++].res = cqe->res;
	}
	/* The entries must be read before the kernel may reuse them. */
	__atomic_store_n(ring.cq_head, head, __ATOMIC_RELEASE);
	return n;
}

static int aio_wait(struct completion *done, time_t seconds)
{
	struct io_event events[QUEUE_DEPTH];
	struct timespec timeout = { .tv_sec = seconds };
	int i, n;

	n = io_getevents(ctx, 1, QUEUE_DEPTH, events, &timeout);
	for (i = 0; i < n; i++) {
		done[i].slot = (struct slot *)(uintptr_t)events[i].data;
		done[i].res = events[i].res;
	}
	return n;
}

/*
 * Wait up to @seconds for completions and collect them (QUEUE_DEPTH at
 * most): how many, 0 if none came in time, -1 (errno set) on an error.
 */
static int wait_completions(struct completion *done, time_t seconds)
{
	if (engine == ENGINE_IO_URING)
		return uring_wait(done, seconds);
	return aio_wait(done, seconds);
}

/*
 * An I/O answered -EAGAIN was not done: io_uring's first attempt is
 * non-blocking (REQ_NOWAIT), a queue had no free tag, and io_uring does
 * not reissue the I/O when that is noticed in another context.  The
 * helper never asked for non-blocking I/O, so the I/O goes again, same
 * block, same buffer (a read's poisoned again), up to MAX_EAGAIN times;
 * after that it is an error like any other.  True if it went again.
 */
static bool submit_again_on_eagain(struct slot *slot, long long res,
				   bool reading)
{
	if (res != -EAGAIN || slot->eagain >= MAX_EAGAIN)
		return false;
	slot->eagain++;
	eagain_resubmits++;
	if (reading)
		poison_block(slot->buf);
	queue_io(slot, reading);
	submit_queued();
	return true;
}

/*
 * One completion of @pass: verify a read.  A failed or short I/O is an
 * error, not corruption.
 */
static void finish_io(const struct completion *c, bool reading,
		      uint64_t pass)
{
	struct slot *slot = c->slot;

	if (submit_again_on_eagain(slot, c->res, reading))
		return;
	if (c->res != BLOCK_BYTES) {
		fprintf(stderr, "%s: pass %" PRIu64 ": %s of block %" PRIu64
			" returned %lld\n", progname, pass,
			reading ? "read" : "write", slot->block, c->res);
		exit(3);
	}
	if (reading && !block_is_good(slot->buf, slot->block, pass))
		bad_block(slot->buf, slot->block, pass);
	slot->busy = false;
	in_flight--;
}

/* Reap completions until at least @want slots are free. */
static void reap(unsigned int want, bool reading, uint64_t pass)
{
	struct completion done[QUEUE_DEPTH];
	int i, n;

	while (QUEUE_DEPTH - in_flight < want) {
		n = wait_completions(done, IO_TIMEOUT);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			fatal(engine == ENGINE_IO_URING ? "io_uring_enter" :
							  "io_getevents");
		}
		if (n == 0) {
			fprintf(stderr, "%s: pass %" PRIu64
				": none of %u %s completed within %d s\n",
				progname, pass, in_flight,
				reading ? "reads" : "writes", IO_TIMEOUT);
			exit(3);
		}
		for (i = 0; i < n; i++)
			finish_io(&done[i], reading, pass);
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

/* Write (or read back and verify) every block once, BATCH per submission. */
static void one_pass(uint64_t nr_blocks, uint64_t pass, bool reading)
{
	uint64_t i = 0;

	while (i < nr_blocks) {
		unsigned int n = 0, s;

		reap(BATCH, reading, pass);
		for (s = 0; s < QUEUE_DEPTH && n < BATCH; s++) {
			struct slot *slot = &slots[s];

			if (i == nr_blocks)
				break;
			if (slot->busy)
				continue;
			slot->block = nth_block(nr_blocks, i++);
			slot->busy = true;
			slot->eagain = 0;
			if (reading)
				poison_block(slot->buf);
			else
				fill_block(slot->buf, slot->block, pass);
			queue_io(slot, reading);
			n++;
		}
		submit_queued();
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

static enum engine parse_engine(const char *s)
{
	enum engine e;

	for (e = ENGINE_IO_URING; e <= ENGINE_AIO; e++) {
		if (!strcmp(s, engine_name[e]))
			return e;
	}
	usage();
}

int main(int argc, char **argv)
{
	unsigned long passes = 16, mib = 8, pass;
	long cpu = -1;
	uint64_t bytes, nr_blocks;
	struct stat st;
	unsigned int s;
	bool chosen = false;
	int opt;

	progname = argv[0];
	while ((opt = getopt(argc, argv, "c:e:p:s:")) != -1) {
		switch (opt) {
		case 'c':
			cpu = parse(optarg, CPU_SETSIZE - 1);
			break;
		case 'e':
			engine = parse_engine(optarg);
			chosen = true;
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
	setup_engine(chosen);

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
	/* For the record ($FULL): the engine decides what the run can show. */
	printf("engine: %s%s, %lu I/Os submitted again after EAGAIN\n",
	       engine_name[engine], engine_note, eagain_resubmits);
	return bad_blocks ? 1 : 0;
}

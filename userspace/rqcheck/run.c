// SPDX-License-Identifier: GPL-2.0
/*
 * The rqcheck workload: write every block of the region for each
 * generation, then read every block back into a poisoned buffer and
 * classify what came back.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "format.h"
#include "order.h"
#include "run.h"
#include "verify.h"

volatile sig_atomic_t run_stop;

#define BUF_ALIGN 4096

struct run {
	const struct rq_config *cfg;
	const struct target_info *tgt;
	struct report *rep;
	int fd;
	struct engine eng;
	unsigned int qd;
	unsigned int batch;
	uint32_t bs;
	uint32_t nsect;
	uint8_t *bufs;			/* qd buffers of bs bytes */
	uint64_t *slot_block;		/* block in flight in each slot */
	unsigned int *slot_eagain;	/* -EAGAIN answers to each slot's I/O */
	unsigned int *free_slots;
	unsigned int *resubmit;		/* slots to submit again, a FIFO */
	unsigned int resubmit_head;
	unsigned int nresubmit;
	struct io_done *done;
	uint64_t *order;
	uint8_t *rbuf;			/* re-read buffer */
	struct sec_run *runs;		/* scratch, nsect each */
	struct sec_run *rruns;
	double t0;			/* workload start */
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* O_DIRECT offset alignment of a regular file: statx() knows (Linux 6.1+) */
static uint32_t file_dio_align(int fd)
{
#ifdef STATX_DIOALIGN
	struct statx stx;

	if (!statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) &&
	    (stx.stx_mask & STATX_DIOALIGN) && stx.stx_dio_offset_align &&
	    !(stx.stx_dio_offset_align % FMT_SECTOR))
		return stx.stx_dio_offset_align;
#else
	(void)fd;
#endif
	return FMT_SECTOR;
}

int run_open_flags(const struct rq_config *cfg, bool block_device)
{
	int flags = O_DIRECT | O_CLOEXEC;

	if (cfg->verify_only)
		return flags | O_RDONLY;
	flags |= O_RDWR;
	/*
	 * A block device opened O_EXCL fails with EBUSY while it is mounted
	 * or held by device-mapper or md: writing there would destroy a
	 * filesystem, or a path under a live table.  On anything else
	 * O_EXCL without O_CREAT means nothing, so it is only asked here.
	 */
	if (block_device && !cfg->force)
		flags |= O_EXCL;
	return flags;
}

static void explain_open_failure(const struct rq_config *cfg, int err,
				 int flags, struct report *rep)
{
	if (err == EBUSY && (flags & O_EXCL)) {
		report_set_error(rep, RES_SETUP_ERROR,
				 "%s is in use (mounted, or held by device-mapper, md or another exclusive opener); --force writes to it anyway",
				 cfg->target);
		return;
	}
	report_set_error(rep, RES_SETUP_ERROR, "cannot open %s: %s%s",
			 cfg->target, strerror(err),
			 err == EINVAL ?
			 " (does the filesystem support O_DIRECT?)" : "");
}

int run_open_target(const struct rq_config *cfg, struct target_info *tgt,
		    int *fd_out, struct report *rep)
{
	struct stat st;
	bool block_device = !stat(cfg->target, &st) && S_ISBLK(st.st_mode);
	int flags = run_open_flags(cfg, block_device);
	int fd, lbs;

	tgt->path = cfg->target;
	fd = open(cfg->target, flags);
	if (fd < 0) {
		explain_open_failure(cfg, errno, flags, rep);
		return -1;
	}
	if (fstat(fd, &st)) {
		report_set_error(rep, RES_SETUP_ERROR, "cannot stat %s: %s",
				 cfg->target, strerror(errno));
		goto fail;
	}
	if (S_ISBLK(st.st_mode) && !block_device &&
	    run_open_flags(cfg, true) != flags) {
		/*
		 * It became a block device between stat() and open(), and
		 * was opened without the O_EXCL it needed.
		 */
		report_set_error(rep, RES_SETUP_ERROR,
				 "%s changed while it was opened", cfg->target);
		goto fail;
	}
	if (S_ISBLK(st.st_mode)) {
		uint64_t bytes;

		if (ioctl(fd, BLKGETSIZE64, &bytes) ||
		    ioctl(fd, BLKSSZGET, &lbs)) {
			report_set_error(rep, RES_SETUP_ERROR,
					 "cannot get the size of %s: %s",
					 cfg->target, strerror(errno));
			goto fail;
		}
		tgt->type = "block";
		tgt->bytes = bytes;
		tgt->lbs = lbs > 0 ? (uint32_t)lbs : 512;
	} else if (S_ISREG(st.st_mode)) {
		tgt->type = "file";
		tgt->bytes = (uint64_t)st.st_size;
		tgt->lbs = file_dio_align(fd);
	} else {
		report_set_error(rep, RES_SETUP_ERROR,
				 "%s is neither a block device nor a regular file",
				 cfg->target);
		goto fail;
	}
	if (cfg->offset % tgt->lbs || cfg->bs % tgt->lbs) {
		report_set_error(rep, RES_SETUP_ERROR,
				 "--offset and --bs must be multiples of the logical block size %u of %s",
				 tgt->lbs, cfg->target);
		goto fail;
	}
	if (cfg->offset >= tgt->bytes) {
		report_set_error(rep, RES_SETUP_ERROR,
				 "--offset %llu is not inside %s (%llu bytes)",
				 (unsigned long long)cfg->offset, cfg->target,
				 (unsigned long long)tgt->bytes);
		goto fail;
	}
	tgt->offset = cfg->offset;
	tgt->size = cfg->size ? cfg->size :
		    (tgt->bytes - cfg->offset) / cfg->bs * cfg->bs;
	if (!tgt->size) {
		report_set_error(rep, RES_SETUP_ERROR,
				 "%s has less than one block (%llu bytes) after --offset %llu",
				 cfg->target, (unsigned long long)cfg->bs,
				 (unsigned long long)cfg->offset);
		goto fail;
	}
	if (tgt->size > tgt->bytes - cfg->offset) {
		report_set_error(rep, RES_SETUP_ERROR,
				 "region %llu+%llu ends beyond the end of %s (%llu bytes)",
				 (unsigned long long)cfg->offset,
				 (unsigned long long)tgt->size, cfg->target,
				 (unsigned long long)tgt->bytes);
		goto fail;
	}
	tgt->nblocks = tgt->size / cfg->bs;
	*fd_out = fd;
	return 0;
fail:
	close(fd);
	return -1;
}

/* ---- --verify-only: seed and generation from the block headers ---------- */

/* Sample i of n, spread over the region with the first and last block. */
static uint64_t sample_block(uint64_t nblocks, unsigned int i, unsigned int n)
{
	uint64_t span = nblocks - 1;

	if (n < 2)
		return 0;
	return span / (n - 1) * i + span % (n - 1) * i / (n - 1);
}

int run_read_identity(const struct rq_config *cfg,
		      const struct target_info *tgt, int fd,
		      struct identity_tally *t, char *err, size_t errlen)
{
	unsigned int i, n = tgt->nblocks < RUN_IDENTITY_SAMPLES ?
			    (unsigned int)tgt->nblocks : RUN_IDENTITY_SAMPLES;
	uint8_t *buf;
	int ret = 0;

	memset(t, 0, sizeof(*t));
	if (posix_memalign((void **)&buf, BUF_ALIGN, cfg->bs)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (i = 0; i < n; i++) {
		uint64_t block = sample_block(tgt->nblocks, i, n);
		off_t off = (off_t)(tgt->offset + block * cfg->bs);
		ssize_t got;

		do {
			got = pread(fd, buf, cfg->bs, off);
		} while (got < 0 && errno == EINTR);
		if (got != (ssize_t)cfg->bs) {
			snprintf(err, errlen,
				 "cannot read block %llu to find its header: %s",
				 (unsigned long long)block,
				 got < 0 ? strerror(errno) : "short read");
			ret = -1;
			break;
		}
		identity_tally_block(t, buf, (uint32_t)(cfg->bs / FMT_SECTOR));
	}
	free(buf);
	return ret;
}

static void warn_disagreement(FILE *warn, const char *what, uint64_t header,
			      const char *option, uint64_t given,
			      const struct identity_info *id)
{
	fprintf(warn,
		"rqcheck: warning: the block headers say %s %llu (%u of %u blocks sampled), %s says %llu; using %s %llu\n",
		what, (unsigned long long)header, id->agreeing, id->sampled,
		option, (unsigned long long)given, option,
		(unsigned long long)given);
}

/* "seed 7 and generation 2", "generation 2": what came from the headers. */
static void say_taken(FILE *info, const struct rq_config *cfg,
		      const struct identity_info *id)
{
	if (!info || (cfg->seed_set && cfg->gen_set))
		return;
	fputs("rqcheck: ", info);
	if (!cfg->seed_set)
		fprintf(info, "seed %llu%s", (unsigned long long)cfg->seed,
			cfg->gen_set ? "" : " and ");
	if (!cfg->gen_set)
		fprintf(info, "generation %llu", (unsigned long long)cfg->gen);
	fprintf(info, " from the block headers (%u of %u blocks sampled)\n",
		id->agreeing, id->sampled);
}

int run_resolve_identity(struct rq_config *cfg, const struct identity_tally *t,
			 struct report *rep, FILE *warn, FILE *info)
{
	struct identity_info *id = &rep->identity;

	id->sampled = t->sampled;
	if (identity_pick(t, &id->header_seed, &id->header_gen,
			  &id->agreeing)) {
		/*
		 * Nothing to learn from.  A seed has no default, but the
		 * generation has (1), and checking it keeps the finding of
		 * a region that was never written: every block unwritten.
		 */
		if (cfg->seed_set)
			return 0;
		report_set_error(rep, RES_SETUP_ERROR,
				 "no rqcheck block header in the %u block(s) sampled from the region: give --seed (and --gen)",
				 t->sampled);
		return -1;
	}
	id->header_found = true;
	if (!cfg->seed_set) {
		cfg->seed = id->header_seed;
		id->seed_from = "headers";
	} else if (cfg->seed != id->header_seed) {
		warn_disagreement(warn, "seed", id->header_seed, "--seed",
				  cfg->seed, id);
	}
	if (!cfg->gen_set) {
		cfg->gen = id->header_gen;
		id->gen_from = "headers";
	} else if (cfg->gen != id->header_gen) {
		warn_disagreement(warn, "generation", id->header_gen, "--gen",
				  cfg->gen, id);
	}
	rep->seed = cfg->seed;
	rep->seed_known = true;
	say_taken(info, cfg, id);
	return 0;
}

static uint8_t *slot_buf(struct run *r, unsigned int slot)
{
	return r->bufs + (size_t)slot * r->bs;
}

static uint64_t block_lba(const struct run *r, uint64_t block)
{
	return (r->tgt->offset + block * r->bs) / FMT_SECTOR;
}

/* synchronous re-read of a bad block into a fresh poisoned buffer */
static enum blk_class reread_block(struct run *r,
				   const struct verify_expect *x,
				   struct bad_block *b)
{
	off_t off = (off_t)(x->lba * FMT_SECTOR);
	ssize_t got;

	fmt_poison(r->rbuf, r->bs);
	do {
		got = pread(r->fd, r->rbuf, r->bs, off);
	} while (got < 0 && errno == EINTR);
	if (got != (ssize_t)r->bs) {
		b->reread_errno = got < 0 ? errno : EIO;
		return CLS_IO_ERROR;
	}
	return verify_block(r->rbuf, x, r->rruns, &b->nrruns);
}

static void complete_one(struct run *r, enum io_op op, uint64_t gen,
			 struct gen_stats *gs, const struct io_done *d)
{
	uint64_t block = r->slot_block[d->slot];
	struct verify_expect x = {
		.seed = r->rep->seed,
		.gen = gen,
		.block = block,
		.lba = block_lba(r, block),
		.nsect = r->nsect,
	};
	struct bad_block b;
	enum blk_class cls;
	uint32_t nruns;

	if (d->res != (int64_t)r->bs) {
		struct io_error e = {
			.gen = gen,
			.block = block,
			.lba = x.lba,
			.op = op,
			.res = d->res,
			.len = r->bs,
		};

		report_add_io_error(r->rep, gs, &e);
		return;
	}
	if (op == IO_WRITE) {
		gs->blocks_written++;
		return;
	}
	gs->blocks_verified++;
	r->rep->blocks_verified++;
	cls = verify_block(slot_buf(r, d->slot), &x, r->runs, &nruns);
	if (cls == CLS_GOOD)
		return;

	memset(&b, 0, sizeof(b));
	b.found_s = now() - r->t0;
	b.gen = gen;
	b.block = block;
	b.lba = x.lba;
	b.nsect = r->nsect;
	b.cls = cls;
	b.runs = r->runs;
	b.nruns = nruns;
	b.reread = reread_block(r, &x, &b);
	if (b.reread != CLS_GOOD && b.reread != CLS_IO_ERROR)
		b.rruns = r->rruns;
	else
		b.nrruns = 0;
	if (report_add_bad(r->rep, gs, &b))
		fprintf(stderr, "rqcheck: out of memory recording a bad block\n");
}

static void resubmit_push(struct run *r, unsigned int slot)
{
	r->resubmit[(r->resubmit_head + r->nresubmit++) % r->qd] = slot;
}

static unsigned int resubmit_pop(struct run *r)
{
	unsigned int slot = r->resubmit[r->resubmit_head];

	r->resubmit_head = (r->resubmit_head + 1) % r->qd;
	r->nresubmit--;
	return slot;
}

/*
 * An I/O that completed with -EAGAIN was not done, or done in part (one
 * piece of a split bio): the kernel tried it without waiting (io_uring's
 * first attempt is non-blocking, REQ_NOWAIT), a queue below had no free
 * tag, and io_uring does not reissue it when the failure is noticed in
 * another context.  rqcheck never asked for non-blocking I/O, so the I/O
 * is simply submitted again, up to RUN_EAGAIN_RETRIES times; true when
 * @d was queued for that.  Past the bound it is an I/O error like any
 * other failed completion.
 */
static bool queue_resubmit_on_eagain(struct run *r, const struct io_done *d)
{
	if (d->res != -EAGAIN ||
	    r->slot_eagain[d->slot] >= RUN_EAGAIN_RETRIES)
		return false;
	r->slot_eagain[d->slot]++;
	resubmit_push(r, d->slot);
	return true;
}

/*
 * Queue the I/Os waiting to be submitted again, while the batch has room:
 * same slot, block and op.  A write goes with the buffer it went with the
 * first time: the slot was never freed, so nothing here refilled it, and
 * the kernel only reads from a write's buffer.  A read may have been
 * filled in part, so its buffer is poisoned again, as before its first
 * submit.  0, or -errno when the engine refused one (in the report).
 */
static int queue_resubmits(struct run *r, enum io_op op, struct gen_stats *gs,
			   unsigned int *pending)
{
	while (r->nresubmit && *pending < r->batch) {
		unsigned int slot = resubmit_pop(r);
		uint64_t lba = block_lba(r, r->slot_block[slot]);
		uint8_t *buf = slot_buf(r, slot);
		int ret;

		if (op == IO_READ)
			fmt_poison(buf, r->bs);
		ret = r->eng.ops->prep(&r->eng, slot, op, buf, r->bs,
				       lba * FMT_SECTOR);
		if (ret < 0) {
			report_set_error(r->rep, RES_IO_ERROR,
					 "%s: cannot queue an I/O again: %s",
					 r->eng.ops->name, strerror(-ret));
			return ret;
		}
		report_add_eagain_resubmit(r->rep, gs);
		(*pending)++;
	}
	return 0;
}

/*
 * One phase: every block of the region once, in r->order.  Returns 0 when
 * all I/Os completed (successfully or not: see the error counts), 1 when
 * interrupted, -errno when the engine failed (recorded in the report).
 *
 * I/Os answered -EAGAIN go again before any new block is taken, in the
 * same batches.  They are still in flight as far as the run is concerned,
 * so a signal does not drop them; an engine failure does (the phase has
 * failed anyway).
 */
static int run_phase(struct run *r, enum io_op op, uint64_t gen,
		     struct gen_stats *gs, uint64_t *submits)
{
	const uint64_t n = r->tgt->nblocks;
	unsigned int inflight = 0, pending = 0, nfree = r->qd, i;
	unsigned int syscalls = 0;
	uint64_t next = 0;
	int err = 0, ret;

	for (i = 0; i < r->qd; i++)
		r->free_slots[i] = r->qd - 1 - i;
	r->resubmit_head = 0;
	r->nresubmit = 0;

	for (;;) {
		bool stop;

		if (!err)
			err = queue_resubmits(r, op, gs, &pending);
		stop = err || run_stop;
		while (!stop && next < n && pending < r->batch && nfree) {
			unsigned int slot = r->free_slots[--nfree];
			uint64_t block = r->order[next];
			uint64_t lba = block_lba(r, block);
			uint8_t *buf = slot_buf(r, slot);

			if (op == IO_WRITE)
				fmt_encode_block(buf, r->bs, r->rep->seed, gen,
						 block, lba);
			else
				fmt_poison(buf, r->bs);
			ret = r->eng.ops->prep(&r->eng, slot, op, buf, r->bs,
					       lba * FMT_SECTOR);
			if (ret < 0) {
				r->free_slots[nfree++] = slot;
				report_set_error(r->rep, RES_IO_ERROR,
						 "%s: cannot queue an I/O: %s",
						 r->eng.ops->name,
						 strerror(-ret));
				err = ret;
				break;
			}
			r->slot_block[slot] = block;
			r->slot_eagain[slot] = 0;
			next++;
			pending++;
		}
		stop = err || run_stop;
		if (pending && (pending == r->batch || next == n || stop)) {
			ret = r->eng.ops->submit(&r->eng, &syscalls);
			if (ret < 0) {
				report_set_error(r->rep, RES_IO_ERROR,
						 "%s: submit failed: %s",
						 r->eng.ops->name,
						 strerror(-ret));
				err = ret;
				ret = 0;
			} else if ((unsigned int)ret < pending) {
				report_set_error(r->rep, RES_IO_ERROR,
						 "%s: submit took %d of %u I/Os",
						 r->eng.ops->name, ret,
						 pending);
				err = -EAGAIN;
			}
			inflight += (unsigned int)ret;
			pending = 0;
			continue;
		}
		if (!inflight)
			break;
		ret = r->eng.ops->reap(&r->eng, 1, r->done, inflight);
		if (ret < 0) {
			report_set_error(r->rep, RES_IO_ERROR,
					 "%s: waiting for completions failed: %s",
					 r->eng.ops->name, strerror(-ret));
			*submits += syscalls;
			return ret;
		}
		for (i = 0; i < (unsigned int)ret; i++) {
			const struct io_done *d = &r->done[i];

			inflight--;
			if (queue_resubmit_on_eagain(r, d))
				continue;
			complete_one(r, op, gen, gs, d);
			r->free_slots[nfree++] = d->slot;
		}
	}
	*submits += syscalls;
	if (err)
		return err;
	return next < n ? 1 : 0;
}

static int run_alloc(struct run *r)
{
	size_t bytes = (size_t)r->qd * r->bs;

	if (posix_memalign((void **)&r->bufs, BUF_ALIGN, bytes)) {
		r->bufs = NULL;
		return -1;
	}
	if (posix_memalign((void **)&r->rbuf, BUF_ALIGN, r->bs)) {
		r->rbuf = NULL;
		return -1;
	}
	r->slot_block = calloc(r->qd, sizeof(*r->slot_block));
	r->slot_eagain = calloc(r->qd, sizeof(*r->slot_eagain));
	r->free_slots = calloc(r->qd, sizeof(*r->free_slots));
	r->resubmit = calloc(r->qd, sizeof(*r->resubmit));
	r->done = calloc(r->qd, sizeof(*r->done));
	r->runs = calloc(r->nsect, sizeof(*r->runs));
	r->rruns = calloc(r->nsect, sizeof(*r->rruns));
	if (r->tgt->nblocks > SIZE_MAX / sizeof(*r->order))
		return -1;
	r->order = malloc(r->tgt->nblocks * sizeof(*r->order));
	if (!r->slot_block || !r->slot_eagain || !r->free_slots ||
	    !r->resubmit || !r->done || !r->runs || !r->rruns || !r->order)
		return -1;
	return 0;
}

static void run_release(struct run *r)
{
	free(r->bufs);
	free(r->rbuf);
	free(r->slot_block);
	free(r->slot_eagain);
	free(r->free_slots);
	free(r->resubmit);
	free(r->done);
	free(r->runs);
	free(r->rruns);
	free(r->order);
}

static uint64_t order_seed(uint64_t seed, uint64_t gen)
{
	uint64_t st = seed ^ (gen * 0x9e3779b97f4a7c15ULL);

	return fmt_mix64(&st);
}

static bool more_generations(const struct rq_config *cfg,
			     const struct report *rep, uint64_t done)
{
	if (cfg->time_s > 0) {
		if (cfg->passes_set && done >= cfg->passes)
			return false;
		if (done && rep->workload_s >= cfg->time_s)
			return false;
		return true;
	}
	return done < cfg->passes;
}

static void prefill(struct run *r, FILE *out)
{
	struct gen_stats pre;
	uint64_t submits = 0;
	double t = now();
	int ret;

	memset(&pre, 0, sizeof(pre));
	order_fill(r->cfg->order, r->tgt->nblocks, r->cfg->stride,
		   r->cfg->window, order_seed(r->rep->seed, 0), r->order);
	ret = run_phase(r, IO_WRITE, 0, &pre, &submits);
	r->rep->prefilled = ret == 0;
	r->rep->prefill_s = now() - t;
	if (ret > 0)
		r->rep->interrupted = true;
	if (out)
		report_print_prefill(out, r->rep);
}

void run_workload(const struct rq_config *cfg, const struct target_info *tgt,
		  int fd, struct report *rep, FILE *out)
{
	run_workload_on(engine_ops_of(cfg->engine), cfg, tgt, fd, rep, out);
}

void run_workload_on(const struct engine_ops *ops,
		     const struct rq_config *cfg,
		     const struct target_info *tgt, int fd,
		     struct report *rep, FILE *out)
{
	struct run r;
	uint64_t i;
	int ret;

	memset(&r, 0, sizeof(r));
	r.cfg = cfg;
	r.tgt = tgt;
	r.rep = rep;
	r.fd = fd;
	r.qd = cfg->qd;
	r.batch = cfg->batch;
	r.bs = (uint32_t)cfg->bs;
	r.nsect = r.bs / FMT_SECTOR;

	if (run_alloc(&r)) {
		report_set_error(rep, RES_SETUP_ERROR,
				 "cannot allocate buffers (%u x %u bytes, %llu blocks)",
				 r.qd, r.bs, (unsigned long long)tgt->nblocks);
		run_release(&r);
		return;
	}
	ret = engine_open(&r.eng, ops, fd, r.qd);
	if (ret < 0) {
		report_set_error(rep, RES_SETUP_ERROR, "%s setup failed: %s%s",
				 ops->name, strerror(-ret),
				 ops == &engine_io_uring_ops &&
				 (ret == -ENOSYS || ret == -EPERM) ?
				 " (kernel without io_uring, or io_uring disabled: try --engine aio)" :
				 "");
		run_release(&r);
		return;
	}

	if (cfg->prefill) {
		prefill(&r, out);
		if (rep->write_errors || rep->error_kind != RES_CLEAN ||
		    rep->interrupted)
			goto out;
	}

	r.t0 = now();
	for (i = 0; more_generations(cfg, rep, i); i++) {
		uint64_t gen = cfg->gen + i;
		struct gen_stats *gs;
		double t;

		if (run_stop) {
			rep->interrupted = true;
			break;
		}
		gs = report_gen_begin(rep, gen);
		if (!gs) {
			report_set_error(rep, RES_SETUP_ERROR, "out of memory");
			break;
		}
		order_fill(cfg->order, tgt->nblocks, cfg->stride,
			   cfg->window, order_seed(rep->seed, gen), r.order);

		ret = 0;
		if (!cfg->verify_only) {
			t = now();
			ret = run_phase(&r, IO_WRITE, gen, gs,
					&gs->write_submits);
			gs->write_s = now() - t;
			gs->written = ret == 0 && !gs->write_errors;
		}
		if (!ret && !gs->write_errors && !cfg->write_only) {
			t = now();
			ret = run_phase(&r, IO_READ, gen, gs,
					&gs->read_submits);
			gs->verify_s = now() - t;
			gs->verified = ret == 0;
		}
		if (ret > 0) {
			gs->interrupted = true;
			rep->interrupted = true;
		}
		rep->workload_s = now() - r.t0;
		if (out)
			report_print_gen(out, rep, gs);
		if (ret || gs->write_errors)
			break;
		if (cfg->time_s > 0 && (gs->bad || gs->read_errors))
			break;
	}
	rep->workload_s = now() - r.t0;
out:
	engine_close(&r.eng);
	run_release(&r);
}

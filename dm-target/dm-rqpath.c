// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-rqpath: a request-based test target that spreads requests round-robin
 * over several paths to one logical unit and counts what
 * blk_insert_cloned_request() does with every clone.
 *
 * The interface (table, messages, status) is described in README.md next to
 * this file; the status line is parsed by tools, so keep it stable.
 */

#include <linux/atomic.h>
#include <linux/blk-integrity.h>
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/device-mapper.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#define DM_MSG_PREFIX "rqpath"

#define RQPATH_MAX_PATHS 32

enum rqpath_op {
	RQPATH_OP_READ,
	RQPATH_OP_WRITE,
	RQPATH_OP_FLUSH,
	RQPATH_OP_DISCARD,
	RQPATH_OP_WRITE_ZEROES,
	RQPATH_OP_OTHER,
	RQPATH_NR_OPS
};

/* Status order is part of the interface: new groups go at the end only. */
static const char * const rqpath_op_names[RQPATH_NR_OPS] = {
	[RQPATH_OP_READ]	 = "read",
	[RQPATH_OP_WRITE]	 = "write",
	[RQPATH_OP_FLUSH]	 = "flush",
	[RQPATH_OP_DISCARD]	 = "discard",
	[RQPATH_OP_WRITE_ZEROES] = "write_zeroes",
	[RQPATH_OP_OTHER]	 = "other",
};

struct rqpath_op_stats {
	atomic64_t mapped;
	atomic64_t busy;
	atomic64_t completed;
	atomic64_t errors;
	/* blk_insert_cloned_request() said no for good, the clone never started */
	atomic64_t refused;
	/* busy hand-backs since this op's last completion: a stuck op shows */
	atomic64_t busy_since_completion;
};

struct rqpath;

struct rqpath_path {
	struct rqpath *rp;		/* release_clone_rq gets no target */
	struct dm_dev *dev;
	bool active;			/* protected by rp->lock */
	atomic64_t fail_count;
	atomic64_t dispatched;
};

struct rqpath {
	struct dm_target *ti;

	/*
	 * Never reused, unlike the pointer to this structure: per-io data
	 * outlives a table and is recycled with its request, so only an id
	 * tells whether this instance already counted a request in in_flight.
	 */
	u64 id;

	spinlock_t lock;		/* path states, cursor and the flags */
	unsigned int nr_active;
	unsigned int next_path;
	bool queue_if_no_path;		/* as configured, shown by TABLE */
	bool queueing_paused;		/* flush suspend in progress */

	atomic64_t in_flight;
	atomic64_t busy_since_completion;
	atomic64_t no_path_requeues;
	atomic64_t no_clone_requeues;
	struct rqpath_op_stats ops[RQPATH_NR_OPS];

	struct work_struct trigger_event;
	/*
	 * Held by .message and by .postsuspend: a message that passed its
	 * suspended check finishes (and its event work is flushed) before the
	 * device counts as suspended, as in dm-mpath.
	 */
	struct mutex message_lock;

	unsigned int nr_paths;
	struct rqpath_path paths[];
};

/*
 * Per-io data, right after dm core's tio in every request of the mapped
 * device.  dm core does not clear it between uses, and it survives a requeue,
 * which is what lets in_flight count a request once however often it is
 * mapped.
 */
struct rqpath_io {
	u64 owner;			/* id of the instance that counted it */
	struct rqpath_path *path;	/* path of the current clone, if any */
	enum rqpath_op op;
	unsigned int bytes;		/* of the original, when it was mapped */
};

static atomic64_t rqpath_instance_seq = ATOMIC64_INIT(0);

static enum rqpath_op rqpath_op_of(struct request *rq)
{
	switch (req_op(rq)) {
	case REQ_OP_READ:
		return RQPATH_OP_READ;
	case REQ_OP_WRITE:
		return RQPATH_OP_WRITE;
	case REQ_OP_FLUSH:
		return RQPATH_OP_FLUSH;
	case REQ_OP_DISCARD:
		return RQPATH_OP_DISCARD;
	case REQ_OP_WRITE_ZEROES:
		return RQPATH_OP_WRITE_ZEROES;
	default:
		return RQPATH_OP_OTHER;
	}
}

static void rqpath_trigger_event(struct work_struct *work)
{
	struct rqpath *rp = container_of(work, struct rqpath, trigger_event);

	dm_table_event(rp->ti->table);
}

/*
 * Requests waiting for a path sit either on the requeue list (delayed
 * requeue, 100ms) or on a hardware queue's dispatch list (busy hand-back);
 * both have to be run now for a path or queueing change to take effect at
 * once.  dm-mpath kicks the list with dm_mq_kick_requeue_list(), declared
 * in drivers/md/dm-rq.h, which a target built outside drivers/md cannot
 * include; it kicks the same queue, the mapped device's.
 */
static void rqpath_kick_queue(struct rqpath *rp)
{
	struct mapped_device *md = dm_table_get_md(rp->ti->table);

	dm_table_run_md_queue_async(rp->ti->table);
	blk_mq_kick_requeue_list(dm_disk(md)->queue);
}

/* Called with rp->lock held. */
static bool rqpath_queueing(struct rqpath *rp)
{
	/*
	 * A noflush suspend must not fail I/O: dm core keeps what we requeue
	 * and maps it again after resume, possibly into a new table.
	 */
	return (rp->queue_if_no_path && !rp->queueing_paused) ||
		dm_noflush_suspending(rp->ti);
}

/* Whether a request that found no usable path has to fail rather than wait. */
static bool rqpath_must_fail_io(struct rqpath *rp)
{
	unsigned long flags;
	bool fail;

	spin_lock_irqsave(&rp->lock, flags);
	fail = !rp->nr_active && !rqpath_queueing(rp);
	spin_unlock_irqrestore(&rp->lock, flags);

	return fail;
}

/*
 * Round-robin in table order over the active paths.  Without one, *must_fail
 * says whether the request fails or waits, decided under the same lock so
 * that a concurrent reinstate or message cannot fall in between.
 */
static struct rqpath_path *rqpath_choose_path(struct rqpath *rp,
					      bool *must_fail)
{
	struct rqpath_path *path = NULL;
	unsigned long flags;
	unsigned int i, idx;

	spin_lock_irqsave(&rp->lock, flags);
	for (i = 0; rp->nr_active && i < rp->nr_paths; i++) {
		idx = (rp->next_path + i) % rp->nr_paths;
		if (rp->paths[idx].active) {
			path = &rp->paths[idx];
			rp->next_path = (idx + 1) % rp->nr_paths;
			break;
		}
	}
	*must_fail = !path && !rqpath_queueing(rp);
	spin_unlock_irqrestore(&rp->lock, flags);

	return path;
}

/* May be called from completion context, hard or soft interrupt. */
static void rqpath_fail_path(struct rqpath *rp, struct rqpath_path *path)
{
	unsigned long flags;
	bool changed = false;

	spin_lock_irqsave(&rp->lock, flags);
	if (path->active) {
		path->active = false;
		rp->nr_active--;
		atomic64_inc(&path->fail_count);
		changed = true;
	}
	spin_unlock_irqrestore(&rp->lock, flags);

	if (!changed)
		return;

	DMWARN("%s: Failing path %s.",
	       dm_table_device_name(rp->ti->table), path->dev->name);
	/* dm_table_event() sleeps; this may be interrupt context. */
	schedule_work(&rp->trigger_event);
}

static void rqpath_reinstate_path(struct rqpath *rp, struct rqpath_path *path)
{
	unsigned long flags;
	bool changed = false;

	spin_lock_irqsave(&rp->lock, flags);
	if (!path->active) {
		path->active = true;
		rp->nr_active++;
		changed = true;
	}
	spin_unlock_irqrestore(&rp->lock, flags);

	if (!changed)
		return;

	DMINFO("%s: Reinstating path %s.",
	       dm_table_device_name(rp->ti->table), path->dev->name);
	schedule_work(&rp->trigger_event);
	rqpath_kick_queue(rp);
}

/* The request leaves in_flight: it is about to be completed for good. */
static void rqpath_io_finished(struct rqpath *rp, struct rqpath_io *io)
{
	if (io->owner != rp->id)
		return;

	io->owner = 0;
	atomic64_dec(&rp->in_flight);
}

static void rqpath_free(struct rqpath *rp)
{
	unsigned int i;

	for (i = 0; i < rp->nr_paths; i++)
		dm_put_device(rp->ti, rp->paths[i].dev);
	kfree(rp);
}

static int rqpath_parse_path(struct dm_target *ti, struct rqpath *rp,
			     struct dm_arg_set *as)
{
	struct rqpath_path *path = &rp->paths[rp->nr_paths];
	const char *name = dm_shift_arg(as);
	struct block_device *bdev;
	struct dm_dev *dev;
	unsigned int i;
	int r;

	if (!name) {
		ti->error = "Fewer path devices than <nr_paths>";
		return -EINVAL;
	}

	r = dm_get_device(ti, name, dm_table_get_mode(ti->table), &dev);
	if (r) {
		ti->error = "Path device lookup failed";
		return r;
	}
	bdev = dev->bdev;

	for (i = 0; i < rp->nr_paths; i++) {
		if (rp->paths[i].dev->bdev == bdev) {
			ti->error = "Same path device given twice";
			r = -EINVAL;
			goto bad;
		}
	}

	/*
	 * Clones are allocated on the path's own blk-mq queue; dm core would
	 * refuse these tables later too, but without telling dmsetup why.
	 */
	if (!queue_is_mq(bdev_get_queue(bdev))) {
		ti->error = "Path device is not request-based (blk-mq)";
		r = -EINVAL;
		goto bad;
	}
	if (bdev_is_partition(bdev)) {
		ti->error = "Path device is a partition, request-based targets need a whole device";
		r = -EINVAL;
		goto bad;
	}

	if (rp->nr_paths &&
	    bdev_logical_block_size(bdev) !=
	    bdev_logical_block_size(rp->paths[0].dev->bdev)) {
		ti->error = "Path devices have different logical block sizes";
		r = -EINVAL;
		goto bad;
	}

	/* dm core only checks this at resume, after dmsetup load succeeded. */
	if (ti->len > bdev_nr_sectors(bdev)) {
		ti->error = "Path device is smaller than the target";
		r = -EINVAL;
		goto bad;
	}
	if (ti->len & ((bdev_logical_block_size(bdev) >> SECTOR_SHIFT) - 1)) {
		ti->error = "Target length is not a multiple of the logical block size";
		r = -EINVAL;
		goto bad;
	}

	path->rp = rp;
	path->dev = dev;
	path->active = true;
	rp->nr_paths++;

	return 0;

bad:
	dm_put_device(ti, dev);
	return r;
}

static int rqpath_parse_features(struct dm_target *ti, struct rqpath *rp,
				 struct dm_arg_set *as)
{
	static const struct dm_arg _args[] = {
		{0, 1, "Invalid feature count or fewer features than the count"},
	};
	unsigned int argc;
	const char *feature;
	int r;

	/* The feature count is optional. */
	if (!as->argc)
		return 0;

	r = dm_read_arg_group(_args, as, &argc, &ti->error);
	if (r)
		return r;

	while (argc--) {
		feature = dm_shift_arg(as);
		if (!strcasecmp(feature, "queue_if_no_path")) {
			rp->queue_if_no_path = true;
			continue;
		}

		ti->error = "Unrecognised rqpath feature";
		return -EINVAL;
	}

	return 0;
}

/*
 * Construct a round-robin request-based path target:
 *   <nr_paths> <path>+ [<nr_features> <feature>*]
 */
static int rqpath_ctr(struct dm_target *ti, unsigned int argc, char **argv)
{
	static const struct dm_arg _args[] = {
		{1, RQPATH_MAX_PATHS, "Invalid number of paths (must be 1 to 32)"},
	};
	struct dm_arg_set as = { .argc = argc, .argv = argv };
	unsigned int nr_paths, i;
	struct rqpath *rp;
	int r;

	r = dm_read_arg(_args, &as, &nr_paths, &ti->error);
	if (r)
		return r;

	rp = kzalloc(struct_size(rp, paths, nr_paths), GFP_KERNEL);
	if (!rp) {
		ti->error = "Cannot allocate rqpath context";
		return -ENOMEM;
	}
	rp->ti = ti;
	rp->id = atomic64_inc_return(&rqpath_instance_seq);
	spin_lock_init(&rp->lock);
	INIT_WORK(&rp->trigger_event, rqpath_trigger_event);
	mutex_init(&rp->message_lock);

	for (i = 0; i < nr_paths; i++) {
		r = rqpath_parse_path(ti, rp, &as);
		if (r)
			goto bad;
	}
	rp->nr_active = rp->nr_paths;

	r = rqpath_parse_features(ti, rp, &as);
	if (r)
		goto bad;

	if (as.argc) {
		ti->error = "Unexpected arguments after the feature list";
		r = -EINVAL;
		goto bad;
	}

	/*
	 * Request-based dm has no bios to split, but dm-table still gates
	 * flush (any path with a write cache), discard and write zeroes (all
	 * paths capable) on these counts and on .iterate_devices.
	 */
	ti->num_flush_bios = 1;
	ti->num_discard_bios = 1;
	ti->num_write_zeroes_bios = 1;
	ti->per_io_data_size = sizeof(struct rqpath_io);
	ti->private = rp;

	return 0;

bad:
	rqpath_free(rp);
	return r;
}

static void rqpath_dtr(struct dm_target *ti)
{
	struct rqpath *rp = ti->private;

	flush_work(&rp->trigger_event);
	rqpath_free(rp);
}

static int rqpath_clone_and_map(struct dm_target *ti, struct request *rq,
				union map_info *map_context,
				struct request **clone_out)
{
	struct rqpath *rp = ti->private;
	struct rqpath_io *io = map_context->ptr;
	struct rqpath_path *path;
	struct request_queue *q;
	struct request *clone;
	bool must_fail;

	if (io->owner != rp->id) {
		io->owner = rp->id;
		atomic64_inc(&rp->in_flight);
	}
	io->path = NULL;
	io->op = rqpath_op_of(rq);
	io->bytes = blk_rq_bytes(rq);

	path = rqpath_choose_path(rp, &must_fail);
	if (!path) {
		if (must_fail) {
			rqpath_io_finished(rp, io);
			return DM_MAPIO_KILL;
		}
		/* Retry slowly instead of spinning; a reinstate kicks us. */
		atomic64_inc(&rp->no_path_requeues);
		return DM_MAPIO_DELAY_REQUEUE;
	}

	q = bdev_get_queue(path->dev->bdev);
	clone = blk_mq_alloc_request(q, rq->cmd_flags | REQ_NOMERGE,
				     BLK_MQ_REQ_NOWAIT);
	if (IS_ERR(clone)) {
		atomic64_inc(&rp->no_clone_requeues);
		/*
		 * A path whose disk is going away: fail it, as a path error
		 * would, and retry on the slow timer, which round-robin sends
		 * to another path.  del_gendisk() marks the disk dead and
		 * freezes its queue while it drains, which is when a NOWAIT
		 * allocation fails; a queue the disk does not own (SCSI's) is
		 * unfrozen again afterwards, and clones allocated then fail in
		 * the driver, a path error.  The queue is dying only when
		 * SCSI tears it down, well after.
		 */
		if (blk_queue_dying(q) || !disk_live(path->dev->bdev->bd_disk)) {
			rqpath_fail_path(rp, path);
			return DM_MAPIO_DELAY_REQUEUE;
		}
		/*
		 * Out of tags: a plain requeue reaches blk-mq as
		 * BLK_STS_RESOURCE, which reruns the queue once requests
		 * complete and keeps merging while the path is saturated.
		 */
		return DM_MAPIO_REQUEUE;
	}
	/* dm core attaches clones of the original's bios itself. */
	clone->bio = NULL;
	clone->biotail = NULL;
	/* Let the path fail fast; another path may do better. */
	clone->cmd_flags |= REQ_FAILFAST_TRANSPORT;

	io->path = path;
	atomic64_inc(&path->dispatched);
	atomic64_inc(&rp->ops[io->op].mapped);
	*clone_out = clone;

	return DM_MAPIO_REMAPPED;
}

static void rqpath_release_clone(struct request *clone,
				 union map_info *map_context)
{
	/*
	 * A map context means dm core is still in the map path and hands the
	 * clone back unsent, and the original is requeued and mapped again:
	 * either blk_insert_cloned_request() answered busy, or dm core could
	 * not attach the original's bios to the clone (-ENOMEM).  Only a
	 * prepared clone carries the original's length, so that tells them
	 * apart (a flush has no length, and no bios to fail on).
	 */
	if (map_context) {
		struct rqpath_io *io = map_context->ptr;
		struct rqpath *rp = io->path->rp;

		if (blk_rq_bytes(clone) == io->bytes) {
			atomic64_inc(&rp->ops[io->op].busy);
			atomic64_inc(&rp->ops[io->op].busy_since_completion);
			atomic64_inc(&rp->busy_since_completion);
		} else {
			atomic64_inc(&rp->no_clone_requeues);
		}
	}

	blk_mq_free_request(clone);
}

/*
 * The limits blk_insert_cloned_request() checks, as the kernel this is
 * built for checks them (Kbuild reads that tree; 6.1 has none of the
 * later rules, 6.12 all of them): a discard's sectors (a secure erase's
 * own since their limits split, the discard's before), write zeroes' and
 * atomic writes' own, and max_segments for every op, or a discard's own
 * segment limit where blk_rq_get_max_segments() is used; the integrity
 * segments recounted against the path where that is done.
 */
static bool rqpath_clone_over_limits(struct request *clone)
{
	const struct queue_limits *lim = &clone->q->limits;
	unsigned int max_sectors = lim->max_sectors;
	unsigned int max_segments = lim->max_segments;

	switch (req_op(clone)) {
	case REQ_OP_DISCARD:
		max_sectors = lim->max_discard_sectors;
#ifdef RQPATH_CLONE_DISCARD_SEGMENTS
		max_segments = lim->max_discard_segments;
#endif
		break;
	case REQ_OP_SECURE_ERASE:
#ifdef RQPATH_CLONE_SECURE_ERASE_SECTORS
		max_sectors = lim->max_secure_erase_sectors;
#else
		max_sectors = lim->max_discard_sectors;
#endif
		break;
	case REQ_OP_WRITE_ZEROES:
		max_sectors = lim->max_write_zeroes_sectors;
		break;
	default:
#ifdef REQ_ATOMIC
		if (clone->cmd_flags & REQ_ATOMIC)
			max_sectors = lim->atomic_write_max_sectors;
#endif
		break;
	}
#ifdef RQPATH_CLONE_INTEGRITY_SEGMENTS
	if (blk_integrity_rq(clone) &&
	    clone->nr_integrity_segments > lim->max_integrity_segments)
		return true;
#endif
	return blk_rq_sectors(clone) > max_sectors ||
	       clone->nr_phys_segments > max_segments;
}

/*
 * Whether blk_insert_cloned_request() refused the clone before handing it
 * to the path's driver: it exceeds the path's limits (which may have shrunk
 * since the table was loaded), or the path no longer does the operation.
 * The path is fine; only this request cannot go there.  An unstarted clone
 * that failed for another reason (an offline SCSI device fails it in
 * ->queue_rq() before starting it) is a path error as usual.
 */
static bool rqpath_clone_refused(struct request *clone, blk_status_t error)
{
	if (blk_mq_request_started(clone))
		return false;
	if (error == BLK_STS_NOTSUPP)
		return true;
	/* The limits blk_insert_cloned_request() checks, as of its tree. */
	return rqpath_clone_over_limits(clone);
}

static int rqpath_end_io(struct dm_target *ti, struct request *clone,
			 blk_status_t error, union map_info *map_context)
{
	struct rqpath *rp = ti->private;
	struct rqpath_io *io = map_context->ptr;
	struct rqpath_op_stats *stats = &rp->ops[io->op];
	int r = DM_ENDIO_DONE;

	if (error && rqpath_clone_refused(clone, error)) {
		atomic64_inc(&stats->refused);
		rqpath_io_finished(rp, io);
		return DM_ENDIO_DONE;
	}

	/* Read first: most completions follow no refusal at all. */
	if (atomic64_read(&rp->busy_since_completion))
		atomic64_set(&rp->busy_since_completion, 0);
	if (atomic64_read(&stats->busy_since_completion))
		atomic64_set(&stats->busy_since_completion, 0);
	atomic64_inc(&stats->completed);
	if (error)
		atomic64_inc(&stats->errors);

	/*
	 * The clone has no bios left to resubmit (see dm-rq.c end_clone_bio),
	 * so a retry on another path is a requeue of the original, which dm
	 * core clones afresh.
	 */
	if (error && blk_path_error(error)) {
		if (error == BLK_STS_RESOURCE)
			r = DM_ENDIO_DELAY_REQUEUE;
		else
			r = DM_ENDIO_REQUEUE;

		if (io->path)
			rqpath_fail_path(rp, io->path);

		if (rqpath_must_fail_io(rp))
			r = DM_ENDIO_DONE;
	}

	if (r == DM_ENDIO_DONE)
		rqpath_io_finished(rp, io);

	return r;
}

/*
 * A suspend with flush must not leave I/O waiting for a path, so queueing
 * is off until resume; a noflush suspend keeps queueing (see
 * rqpath_queueing()).  Requests already waiting for a path sit on the
 * requeue list, where dm core's suspend does not count them: kick them, so
 * that they are mapped again now and fail.  As in dm-mpath, nothing waits
 * for that here: a request that dm core's suspend stops before it is mapped
 * again stays queued over the suspend and is mapped after resume (and waits
 * again if queueing is still on then).  Waiting here would sleep under the
 * suspend lock, and a request at the head of the queue that is handed back
 * busy for ever (ffe81d45322c) would hold the waiters off anyway.
 */
static void rqpath_presuspend(struct dm_target *ti)
{
	struct rqpath *rp = ti->private;
	unsigned long flags;

	if (dm_noflush_suspending(ti))
		return;

	spin_lock_irqsave(&rp->lock, flags);
	rp->queueing_paused = true;
	spin_unlock_irqrestore(&rp->lock, flags);

	rqpath_kick_queue(rp);
}

/*
 * The device is suspended when this returns: wait for a message that got
 * past its check (rqpath_message()) and for the events it raised.
 */
static void rqpath_postsuspend(struct dm_target *ti)
{
	struct rqpath *rp = ti->private;

	mutex_lock(&rp->message_lock);
	flush_work(&rp->trigger_event);
	mutex_unlock(&rp->message_lock);
}

static void rqpath_resume_queueing(struct dm_target *ti)
{
	struct rqpath *rp = ti->private;
	unsigned long flags;

	spin_lock_irqsave(&rp->lock, flags);
	rp->queueing_paused = false;
	spin_unlock_irqrestore(&rp->lock, flags);
}

static void rqpath_set_queue_if_no_path(struct rqpath *rp, bool queue)
{
	unsigned long flags;

	spin_lock_irqsave(&rp->lock, flags);
	rp->queue_if_no_path = queue;
	spin_unlock_irqrestore(&rp->lock, flags);

	/* Waiting requests only notice when they are mapped again. */
	if (!queue)
		rqpath_kick_queue(rp);
}

static void rqpath_reset_counters(struct rqpath *rp)
{
	unsigned int i;

	/* in_flight is a gauge, not a counter: zeroing it would corrupt it. */
	atomic64_set(&rp->busy_since_completion, 0);
	atomic64_set(&rp->no_path_requeues, 0);
	atomic64_set(&rp->no_clone_requeues, 0);
	for (i = 0; i < RQPATH_NR_OPS; i++) {
		atomic64_set(&rp->ops[i].mapped, 0);
		atomic64_set(&rp->ops[i].busy, 0);
		atomic64_set(&rp->ops[i].completed, 0);
		atomic64_set(&rp->ops[i].errors, 0);
		atomic64_set(&rp->ops[i].refused, 0);
		atomic64_set(&rp->ops[i].busy_since_completion, 0);
	}
	for (i = 0; i < rp->nr_paths; i++) {
		atomic64_set(&rp->paths[i].fail_count, 0);
		atomic64_set(&rp->paths[i].dispatched, 0);
	}
}

/*
 * The device a message names, as "major:minor" or a block device node.
 * Resolved to a dev_t without opening it: dm_get_device() would try an
 * exclusive open, which fails for a partition of a path and then reports
 * the wrong problem.
 */
static int rqpath_parse_dev(const char *name, dev_t *devt)
{
	unsigned int major, minor;
	char dummy;

	if (sscanf(name, "%u:%u%c", &major, &minor, &dummy) == 2) {
		*devt = MKDEV(major, minor);
		if (MAJOR(*devt) != major || MINOR(*devt) != minor)
			return -EOVERFLOW;
		return 0;
	}

	return lookup_bdev(name, devt);
}

/* A path named in a message, by major:minor or node; NULL if it is none. */
static struct rqpath_path *rqpath_message_path(struct dm_target *ti,
					       struct rqpath *rp,
					       const char *cmd,
					       const char *name)
{
	unsigned int i;
	dev_t devt;

	if (rqpath_parse_dev(name, &devt)) {
		DMWARN("%s: %s: cannot get device %s",
		       dm_table_device_name(ti->table), cmd, name);
		return NULL;
	}
	for (i = 0; i < rp->nr_paths; i++)
		if (rp->paths[i].dev->bdev->bd_dev == devt)
			return &rp->paths[i];

	DMWARN("%s: %s: %s is not a path of this target",
	       dm_table_device_name(ti->table), cmd, name);
	return NULL;
}

enum rqpath_msg {
	RQPATH_MSG_FAIL_PATH,
	RQPATH_MSG_REINSTATE_PATH,
	RQPATH_MSG_QUEUE_IF_NO_PATH,
	RQPATH_MSG_FAIL_IF_NO_PATH,
	RQPATH_MSG_RESET_COUNTERS,
};

static const struct {
	const char *name;
	unsigned int nr_args;		/* after the name: a path, or none */
} rqpath_msgs[] = {
	[RQPATH_MSG_FAIL_PATH]		= { "fail_path", 1 },
	[RQPATH_MSG_REINSTATE_PATH]	= { "reinstate_path", 1 },
	[RQPATH_MSG_QUEUE_IF_NO_PATH]	= { "queue_if_no_path", 0 },
	[RQPATH_MSG_FAIL_IF_NO_PATH]	= { "fail_if_no_path", 0 },
	[RQPATH_MSG_RESET_COUNTERS]	= { "reset_counters", 0 },
};

/* Called with rp->message_lock held. */
static int rqpath_do_message(struct dm_target *ti, struct rqpath *rp,
			     unsigned int argc, char **argv)
{
	struct rqpath_path *path = NULL;
	unsigned int msg;

	for (msg = 0; msg < ARRAY_SIZE(rqpath_msgs); msg++)
		if (!strcasecmp(argv[0], rqpath_msgs[msg].name))
			break;
	if (msg == ARRAY_SIZE(rqpath_msgs)) {
		DMWARN("%s: unrecognised message %s",
		       dm_table_device_name(ti->table), argv[0]);
		return -EINVAL;
	}
	if (argc - 1 != rqpath_msgs[msg].nr_args) {
		DMWARN("%s: %s takes %u argument(s), got %u",
		       dm_table_device_name(ti->table), argv[0],
		       rqpath_msgs[msg].nr_args, argc - 1);
		return -EINVAL;
	}
	if (rqpath_msgs[msg].nr_args) {
		path = rqpath_message_path(ti, rp, argv[0], argv[1]);
		if (!path)
			return -EINVAL;
	}

	switch (msg) {
	case RQPATH_MSG_FAIL_PATH:
		rqpath_fail_path(rp, path);
		break;
	case RQPATH_MSG_REINSTATE_PATH:
		rqpath_reinstate_path(rp, path);
		break;
	case RQPATH_MSG_QUEUE_IF_NO_PATH:
		rqpath_set_queue_if_no_path(rp, true);
		break;
	case RQPATH_MSG_FAIL_IF_NO_PATH:
		rqpath_set_queue_if_no_path(rp, false);
		break;
	case RQPATH_MSG_RESET_COUNTERS:
		rqpath_reset_counters(rp);
		break;
	}

	return 0;
}

static int rqpath_message(struct dm_target *ti, unsigned int argc, char **argv,
			  char *result, unsigned int maxlen)
{
	struct rqpath *rp = ti->private;
	int r;

	mutex_lock(&rp->message_lock);
	/* As dm-mpath: a suspended device's paths and queueing stay put. */
	if (dm_suspended(ti))
		r = -EBUSY;
	else
		r = rqpath_do_message(ti, rp, argc, argv);
	mutex_unlock(&rp->message_lock);

	return r;
}

static void rqpath_status(struct dm_target *ti, status_type_t type,
			  unsigned int status_flags, char *result,
			  unsigned int maxlen)
{
	struct rqpath *rp = ti->private;
	bool active[RQPATH_MAX_PATHS];
	bool configured, queueing;
	unsigned long flags;
	unsigned int sz = 0;
	unsigned int i;

	/* One consistent snapshot of the states, not one per path. */
	spin_lock_irqsave(&rp->lock, flags);
	for (i = 0; i < rp->nr_paths; i++)
		active[i] = rp->paths[i].active;
	configured = rp->queue_if_no_path;
	queueing = rp->queue_if_no_path && !rp->queueing_paused;
	spin_unlock_irqrestore(&rp->lock, flags);

	switch (type) {
	case STATUSTYPE_INFO:
		DMEMIT("%u", rp->nr_paths);
		for (i = 0; i < rp->nr_paths; i++)
			DMEMIT(" %s %c %lld %lld", rp->paths[i].dev->name,
			       active[i] ? 'A' : 'F',
			       atomic64_read(&rp->paths[i].fail_count),
			       atomic64_read(&rp->paths[i].dispatched));
		DMEMIT(" %u %lld %lld %lld %lld %u", queueing ? 1 : 0,
		       atomic64_read(&rp->in_flight),
		       atomic64_read(&rp->busy_since_completion),
		       atomic64_read(&rp->no_path_requeues),
		       atomic64_read(&rp->no_clone_requeues),
		       RQPATH_NR_OPS);
		for (i = 0; i < RQPATH_NR_OPS; i++)
			DMEMIT(" %s %lld %lld %lld %lld", rqpath_op_names[i],
			       atomic64_read(&rp->ops[i].mapped),
			       atomic64_read(&rp->ops[i].busy),
			       atomic64_read(&rp->ops[i].completed),
			       atomic64_read(&rp->ops[i].errors));
		/* Added in 1.1: a trailing group, so that old parsers still work. */
		DMEMIT(" %u", RQPATH_NR_OPS);
		for (i = 0; i < RQPATH_NR_OPS; i++)
			DMEMIT(" %s %lld %lld", rqpath_op_names[i],
			       atomic64_read(&rp->ops[i].refused),
			       atomic64_read(&rp->ops[i].busy_since_completion));
		break;

	case STATUSTYPE_TABLE:
		DMEMIT("%u", rp->nr_paths);
		for (i = 0; i < rp->nr_paths; i++)
			DMEMIT(" %s", rp->paths[i].dev->name);
		/* The setting in force after resume, so a reload keeps it. */
		if (configured)
			DMEMIT(" 1 queue_if_no_path");
		else
			DMEMIT(" 0");
		break;

	case STATUSTYPE_IMA:
		DMEMIT_TARGET_NAME_VERSION(ti->type);
		DMEMIT(",queue_if_no_path=%c,nr_paths=%u",
		       configured ? 'y' : 'n', rp->nr_paths);
		for (i = 0; i < rp->nr_paths; i++)
			DMEMIT(",path_name_%u=%s,path_state_%u=%c",
			       i, rp->paths[i].dev->name,
			       i, active[i] ? 'A' : 'F');
		DMEMIT(";");
		break;
	}
}

static int rqpath_iterate_devices(struct dm_target *ti,
				  iterate_devices_callout_fn fn, void *data)
{
	struct rqpath *rp = ti->private;
	unsigned int i;
	int r = 0;

	/* Every request may go to any path: each one must take all of it. */
	for (i = 0; i < rp->nr_paths && !r; i++)
		r = fn(ti, rp->paths[i].dev, 0, ti->len, data);

	return r;
}

/*
 * ioctls (SG_IO, persistent reservations, ...) go to one active path, the
 * first in table order, as dm-mpath sends them to its current path.  With
 * no active path they fail, or, while queueing, dm core retries them.  A
 * target shorter than its path returns 1: dm core then passes the ioctl
 * only for a caller with CAP_SYS_RAWIO, as for a partial dm-linear.
 */
static int rqpath_prepare_ioctl(struct dm_target *ti,
				struct block_device **bdev)
{
	struct rqpath *rp = ti->private;
	unsigned long flags;
	unsigned int i;
	int r = -EIO;

	spin_lock_irqsave(&rp->lock, flags);
	for (i = 0; i < rp->nr_paths; i++) {
		if (rp->paths[i].active) {
			*bdev = rp->paths[i].dev->bdev;
			r = 0;
			break;
		}
	}
	if (r && rqpath_queueing(rp))
		r = -ENOTCONN;
	spin_unlock_irqrestore(&rp->lock, flags);

	/* A device that is only part of the path: privileged callers only. */
	if (!r && ti->len != bdev_nr_sectors(*bdev))
		return 1;
	return r;
}

/*
 * No .busy hook on purpose: dm core must hand every request to us so that
 * each clone goes through blk_insert_cloned_request().
 */
static struct target_type rqpath_target = {
	.name = "rqpath",
	.version = {1, 1, 0},
	.features = DM_TARGET_SINGLETON | DM_TARGET_IMMUTABLE,
	.module = THIS_MODULE,
	.ctr = rqpath_ctr,
	.dtr = rqpath_dtr,
	.clone_and_map_rq = rqpath_clone_and_map,
	.release_clone_rq = rqpath_release_clone,
	.rq_end_io = rqpath_end_io,
	.presuspend = rqpath_presuspend,
	.presuspend_undo = rqpath_resume_queueing,
	.postsuspend = rqpath_postsuspend,
	.resume = rqpath_resume_queueing,
	.status = rqpath_status,
	.message = rqpath_message,
	.prepare_ioctl = rqpath_prepare_ioctl,
	.iterate_devices = rqpath_iterate_devices,
};

static int __init dm_rqpath_init(void)
{
	int r;

	r = dm_register_target(&rqpath_target);
	if (r < 0)
		DMERR("register failed %d", r);

	return r;
}

static void __exit dm_rqpath_exit(void)
{
	dm_unregister_target(&rqpath_target);
}

module_init(dm_rqpath_init);
module_exit(dm_rqpath_exit);

MODULE_DESCRIPTION(DM_NAME " request-based round-robin path test target");
MODULE_AUTHOR("rqpath developers");
MODULE_LICENSE("GPL");

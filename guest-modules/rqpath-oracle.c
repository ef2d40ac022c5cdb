// SPDX-License-Identifier: GPL-2.0-only
/*
 * rqpath-oracle: watch every bio merge into a request and record the ones
 * that break the invariant behind the 6ce3dd6eec corruption: a bio must
 * never be merged into a request that its driver has already prepared
 * (RQF_DONTPREP).  SCSI builds the CDB and the SG table of a request in
 * ->queue_rq() and keeps them when the LLD answers busy; a bio merged in
 * afterwards is not part of the command, so the retry transfers only the
 * original part and credits it to the merged request's front.
 *
 * Nothing in the block layer is changed: two kretprobes sit on the exported
 * functions that merge a bio into an existing request without an I/O
 * scheduler, and they see the request before and after the merge.
 *
 *   blk_bio_list_merge()	a software queue (ctx->rq_lists), called
 *				with ctx->lock held; looks at the last 8
 *				requests of the list
 *   blk_attempt_plug_merge()	the submitting task's plug list
 *
 * bio_attempt_front_merge() and bio_attempt_back_merge() would say the same
 * more directly, but they are static and inlined into their callers.  The
 * elevator's merge (blk_mq_sched_try_merge()) is not watched: a request an
 * I/O scheduler holds has not been dispatched, and the rqpath scenarios run
 * without a scheduler.
 *
 * The entry handler copies position, size and flags of every request the
 * function may merge into; the return handler, when the function reports a
 * merge, finds the request whose position or size changed.  Both run with
 * the list stable: under ctx->lock, or on the current task's own plug.
 *
 * It also counts, per disk, the chances the bug needs, whatever a stage then
 * does with them, from the block tracepoints (found by name: they are not
 * exported): requests handed back by their driver (block_rq_requeue), and
 * bios submitted that end exactly where such a request starts while it has
 * not completed yet (block_bio_queue against block_rq_complete): the bios a
 * kernel with 6ce3dd6eec's bug could front-merge into it.  Both are counted
 * again for the requests handed back with RQF_DONTPREP set: only those can
 * lose data, and a driver that refuses a request before preparing it (SCSI
 * does, for a blocked host or target) gives chances that are harmless.
 * Both are also counted for the bios that found the request in a queue a
 * bio can merge into: put back into a software or scheduler queue
 * (block_rq_insert) after it was handed back, and not issued since
 * (block_rq_issue).  A request waiting on the dispatch list, or with its
 * driver again, is no chance at all; tests/explore is guided by the
 * difference.  (A dispatch that moves a queued request on to the dispatch
 * list without issuing it, for want of a budget or a tag, is not seen: the
 * count is a guide, never a verdict.)
 *
 * Last, it tells which requests reached their driver without going through
 * a queue first: issued (block_rq_issue) with no block_rq_insert since
 * their last issue and not handed back before, which is a direct issue
 * (blk_mq_try_issue_directly(), a plug list issued directly, a clone
 * through blk_insert_cloned_request()).  Those handed back are counted
 * per disk (direct_requeues, prepared_direct_requeues): the refusals on
 * the path both 2018 bugs went through.  A request that reaches the
 * dispatch list without an insert event (a flush, a request the dispatch
 * moved there) counts as direct; again a guide, never a verdict.
 *
 * A request is forgotten when it completes, or when it is freed without
 * completing (a kprobe on blk_mq_free_request(): device-mapper frees the
 * clones their paths refused); "waiting" in the report is what is left.
 *
 * The report is in debugfs, rqpath-oracle/report (and report.json, the same
 * as one JSON object); writing anything to
 * rqpath-oracle/reset zeroes it.  A missed probe instance means a merge
 * may have gone unseen; the report says so and the tests treat it as an
 * oracle that cannot vouch for the run.
 */

#include <linux/atomic.h>
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/debugfs.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

/* blk_bio_list_merge() looks at 8 requests; a plug list is bounded too. */
#define ORACLE_MAX_CANDIDATES	16
#define ORACLE_MAX_RECORDS	16

struct oracle_candidate {
	struct request *rq;
	sector_t sector;
	unsigned int bytes;
	bool prepared;
};

/* Per kretprobe instance: the state of the candidates at entry. */
struct oracle_snapshot {
	sector_t bio_sector;
	unsigned int bio_bytes;
	unsigned int nr;
	struct oracle_candidate c[ORACLE_MAX_CANDIDATES];
};

struct oracle_record {
	char disk[DISK_NAME_LEN];
	const char *where;
	bool front;
	sector_t bio_sector;
	unsigned int bio_bytes;
	sector_t rq_sector;
	unsigned int rq_bytes;
	unsigned int op;
	bool prepared;
	u64 time_ns;
};

static atomic64_t oracle_front_merges;
static atomic64_t oracle_back_merges;
static atomic64_t oracle_prepared_merges;
static atomic64_t oracle_unattributed;

static DEFINE_SPINLOCK(oracle_lock);
static unsigned int oracle_nr_records;		/* protected by oracle_lock */
static struct oracle_record oracle_records[ORACLE_MAX_RECORDS];

/* Requests handed back and not completed since: where a bio could merge. */
#define ORACLE_MAX_WAITING	64
#define ORACLE_MAX_DISKS	8
/* Requests in a queue, or with their driver after a direct issue. */
#define ORACLE_SET_SIZE		512

struct oracle_waiting {
	struct request *rq;
	struct gendisk *disk;
	sector_t sector;
	bool prepared;
	bool queued;
};

struct oracle_disk {
	char name[DISK_NAME_LEN];
	struct gendisk *disk;
	u64 requeues;
	u64 merge_candidates;
	u64 prepared_requeues;
	u64 prepared_candidates;
	u64 queued_candidates;
	u64 prepared_queued_candidates;
	u64 direct_issues;
	u64 direct_requeues;
	u64 prepared_direct_requeues;
};

/* An unordered set of requests; a full set drops what it cannot hold. */
struct oracle_set {
	unsigned int nr;
	struct request *rq[ORACLE_SET_SIZE];
};

/* Protected by oracle_lock, like the records. */
static struct oracle_waiting oracle_waiting[ORACLE_MAX_WAITING];
static unsigned int oracle_next_waiting;
static struct oracle_disk oracle_disks[ORACLE_MAX_DISKS];
static struct oracle_set oracle_in_queue;
static struct oracle_set oracle_issued_directly;
static u64 oracle_set_overflows;
/* Requests still waiting when a newer one took their slot. */
static u64 oracle_waiting_evicted;

static bool oracle_set_del(struct oracle_set *set, struct request *rq)
{
	unsigned int i;

	for (i = 0; i < set->nr; i++) {
		if (set->rq[i] == rq) {
			set->rq[i] = set->rq[--set->nr];
			return true;
		}
	}
	return false;
}

static void oracle_set_add(struct oracle_set *set, struct request *rq)
{
	oracle_set_del(set, rq);
	if (set->nr < ORACLE_SET_SIZE)
		set->rq[set->nr++] = rq;
	else
		oracle_set_overflows++;
}

static void oracle_take(struct oracle_snapshot *snap, struct request *rq)
{
	struct oracle_candidate *c = &snap->c[snap->nr++];

	c->rq = rq;
	c->sector = blk_rq_pos(rq);
	c->bytes = blk_rq_bytes(rq);
	c->prepared = rq->rq_flags & RQF_DONTPREP;
}

static void oracle_take_bio(struct oracle_snapshot *snap, struct bio *bio)
{
	snap->nr = 0;
	snap->bio_sector = bio->bi_iter.bi_sector;
	snap->bio_bytes = bio->bi_iter.bi_size;
}

static void oracle_record(const char *where, struct oracle_snapshot *snap,
			  struct oracle_candidate *c, bool front)
{
	struct request *rq = c->rq;
	struct oracle_record *r;
	unsigned long flags;

	if (front)
		atomic64_inc(&oracle_front_merges);
	else
		atomic64_inc(&oracle_back_merges);
	if (!c->prepared)
		return;

	atomic64_inc(&oracle_prepared_merges);
	spin_lock_irqsave(&oracle_lock, flags);
	if (oracle_nr_records < ORACLE_MAX_RECORDS) {
		r = &oracle_records[oracle_nr_records++];
		strscpy(r->disk, rq->q->disk ? rq->q->disk->disk_name : "?",
			sizeof(r->disk));
		r->where = where;
		r->front = front;
		r->bio_sector = snap->bio_sector;
		r->bio_bytes = snap->bio_bytes;
		r->rq_sector = c->sector;
		r->rq_bytes = c->bytes;
		r->op = req_op(rq);
		r->prepared = c->prepared;
		r->time_ns = ktime_get_ns();
	}
	spin_unlock_irqrestore(&oracle_lock, flags);
}

/* The function said it merged: find into which request, and how. */
static void oracle_merged(const char *where, struct oracle_snapshot *snap)
{
	unsigned int i;

	for (i = 0; i < snap->nr; i++) {
		struct oracle_candidate *c = &snap->c[i];
		struct request *rq = c->rq;

		if (blk_rq_bytes(rq) == c->bytes)
			continue;
		oracle_record(where, snap, c, blk_rq_pos(rq) != c->sector);
		return;
	}
	/* A merge into a request we did not look at: the oracle is blind. */
	atomic64_inc(&oracle_unattributed);
}

/* bool blk_bio_list_merge(q, list, bio, nr_segs) */
static int oracle_list_entry(struct kretprobe_instance *ri,
			     struct pt_regs *regs)
{
	struct oracle_snapshot *snap = (struct oracle_snapshot *)ri->data;
	struct list_head *list = (void *)regs_get_kernel_argument(regs, 1);
	struct bio *bio = (void *)regs_get_kernel_argument(regs, 2);
	struct request *rq;

	oracle_take_bio(snap, bio);
	list_for_each_entry_reverse(rq, list, queuelist) {
		if (snap->nr == ORACLE_MAX_CANDIDATES)
			break;
		oracle_take(snap, rq);
	}
	return 0;
}

/* bool blk_attempt_plug_merge(q, bio, nr_segs) */
static int oracle_plug_entry(struct kretprobe_instance *ri,
			     struct pt_regs *regs)
{
	struct oracle_snapshot *snap = (struct oracle_snapshot *)ri->data;
	struct bio *bio = (void *)regs_get_kernel_argument(regs, 1);
	struct blk_plug *plug = current->plug;
	struct request *rq;

	oracle_take_bio(snap, bio);
	if (!plug)
		return 0;
	/*
	 * A plug holds up to BLK_MAX_REQUEST_COUNT requests, twice that over
	 * several queues.  6.1 tries the head of its newest-first list; 6.12's
	 * list is oldest first and it tries the tail, and over several queues
	 * the first request of the bio's queue: keep the first ones and the
	 * tail.
	 */
	rq_list_for_each(&plug->mq_list, rq) {
		if (snap->nr == ORACLE_MAX_CANDIDATES)
			snap->nr--;
		oracle_take(snap, rq);
	}
	return 0;
}

static int oracle_list_return(struct kretprobe_instance *ri,
			      struct pt_regs *regs)
{
	if (regs_return_value(regs) & 0xff)
		oracle_merged("sw_queue", (struct oracle_snapshot *)ri->data);
	return 0;
}

static int oracle_plug_return(struct kretprobe_instance *ri,
			      struct pt_regs *regs)
{
	if (regs_return_value(regs) & 0xff)
		oracle_merged("plug", (struct oracle_snapshot *)ri->data);
	return 0;
}

/* Called with oracle_lock held. */
static struct oracle_disk *oracle_disk_of(struct gendisk *disk)
{
	unsigned int i;

	for (i = 0; i < ORACLE_MAX_DISKS; i++) {
		struct oracle_disk *d = &oracle_disks[i];

		if (d->disk == disk)
			return d;
		if (!d->disk) {
			d->disk = disk;
			strscpy(d->name, disk->disk_name, sizeof(d->name));
			return d;
		}
	}
	return NULL;
}

static void oracle_requeue(void *unused, struct request *rq)
{
	struct gendisk *disk = rq->q->disk;
	bool prepared = rq->rq_flags & RQF_DONTPREP;
	struct oracle_disk *d;
	unsigned long flags;
	unsigned int i, slot;
	bool direct;

	if (!disk)
		return;
	spin_lock_irqsave(&oracle_lock, flags);
	direct = oracle_set_del(&oracle_issued_directly, rq);
	d = oracle_disk_of(disk);
	if (d) {
		d->requeues++;
		d->prepared_requeues += prepared;
		d->direct_requeues += direct;
		d->prepared_direct_requeues += direct && prepared;
	}
	slot = oracle_next_waiting;
	for (i = 0; i < ORACLE_MAX_WAITING; i++) {
		if (oracle_waiting[i].rq == rq) {
			slot = i;
			break;
		}
	}
	if (slot == oracle_next_waiting) {
		oracle_next_waiting = (oracle_next_waiting + 1) % ORACLE_MAX_WAITING;
		oracle_waiting_evicted += !!oracle_waiting[slot].rq;
	}
	oracle_waiting[slot].rq = rq;
	oracle_waiting[slot].disk = disk;
	oracle_waiting[slot].sector = blk_rq_pos(rq);
	oracle_waiting[slot].prepared = prepared;
	oracle_waiting[slot].queued = false;
	spin_unlock_irqrestore(&oracle_lock, flags);
}

/*
 * A waiting request went into (or left) a queue a bio can merge into;
 * whether it was waiting.  Called with oracle_lock held.
 */
static bool oracle_set_queued(struct request *rq, bool queued)
{
	bool waiting = false;
	unsigned int i;

	for (i = 0; i < ORACLE_MAX_WAITING; i++) {
		if (oracle_waiting[i].rq == rq) {
			oracle_waiting[i].queued = queued;
			waiting = true;
		}
	}
	return waiting;
}

static void oracle_insert(void *unused, struct request *rq)
{
	unsigned long flags;

	spin_lock_irqsave(&oracle_lock, flags);
	oracle_set_queued(rq, true);
	oracle_set_add(&oracle_in_queue, rq);
	spin_unlock_irqrestore(&oracle_lock, flags);
}

static void oracle_issue(void *unused, struct request *rq)
{
	struct gendisk *disk = rq->q->disk;
	struct oracle_disk *d;
	unsigned long flags;
	bool waiting;

	spin_lock_irqsave(&oracle_lock, flags);
	waiting = oracle_set_queued(rq, false);
	if (!oracle_set_del(&oracle_in_queue, rq) && !waiting && disk) {
		d = oracle_disk_of(disk);
		if (d)
			d->direct_issues++;
		oracle_set_add(&oracle_issued_directly, rq);
	}
	spin_unlock_irqrestore(&oracle_lock, flags);
}

/* A request merged into another is freed without an issue. */
static void oracle_rq_merge(void *unused, struct request *rq)
{
	unsigned long flags;

	spin_lock_irqsave(&oracle_lock, flags);
	oracle_set_del(&oracle_in_queue, rq);
	spin_unlock_irqrestore(&oracle_lock, flags);
}

/* The request is done with: no bio can merge into it any more. */
static void oracle_forget(struct request *rq)
{
	unsigned long flags;
	unsigned int i;

	spin_lock_irqsave(&oracle_lock, flags);
	for (i = 0; i < ORACLE_MAX_WAITING; i++)
		if (oracle_waiting[i].rq == rq)
			oracle_waiting[i].rq = NULL;
	oracle_set_del(&oracle_issued_directly, rq);
	oracle_set_del(&oracle_in_queue, rq);
	spin_unlock_irqrestore(&oracle_lock, flags);
}

static void oracle_complete(void *unused, struct request *rq,
			    blk_status_t error, unsigned int nr_bytes)
{
	oracle_forget(rq);
}

/*
 * void blk_mq_free_request(rq): a clone that device-mapper frees after its
 * path answered busy never completes, and its tag (and address) comes back
 * for another request; without this its slot would wait forever and count
 * chances for a request that no longer exists.
 */
static int oracle_free_entry(struct kprobe *p, struct pt_regs *regs)
{
	oracle_forget((struct request *)regs_get_kernel_argument(regs, 0));
	return 0;
}

static struct kprobe oracle_free_probe = {
	.symbol_name = "blk_mq_free_request",
	.pre_handler = oracle_free_entry,
};

static void oracle_bio_queue(void *unused, struct bio *bio)
{
	struct gendisk *disk = bio->bi_bdev->bd_disk;
	sector_t end = bio_end_sector(bio);
	struct oracle_disk *d;
	unsigned long flags;
	unsigned int i;

	spin_lock_irqsave(&oracle_lock, flags);
	for (i = 0; i < ORACLE_MAX_WAITING; i++) {
		struct oracle_waiting *w = &oracle_waiting[i];

		if (w->rq && w->disk == disk && w->sector == end) {
			d = oracle_disk_of(disk);
			if (d) {
				d->merge_candidates++;
				d->prepared_candidates += w->prepared;
				d->queued_candidates += w->queued;
				d->prepared_queued_candidates +=
					w->prepared && w->queued;
			}
			break;
		}
	}
	spin_unlock_irqrestore(&oracle_lock, flags);
}

static struct {
	const char *name;
	void *probe;
	struct tracepoint *tp;
} oracle_tracepoints[] = {
	{ "block_rq_requeue", oracle_requeue },
	{ "block_rq_insert", oracle_insert },
	{ "block_rq_issue", oracle_issue },
	{ "block_rq_merge", oracle_rq_merge },
	{ "block_rq_complete", oracle_complete },
	{ "block_bio_queue", oracle_bio_queue },
};

static void oracle_find_tracepoint(struct tracepoint *tp, void *unused)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(oracle_tracepoints); i++)
		if (!strcmp(tp->name, oracle_tracepoints[i].name))
			oracle_tracepoints[i].tp = tp;
}

static struct kretprobe oracle_probes[] = {
	{
		.kp.symbol_name = "blk_bio_list_merge",
		.entry_handler = oracle_list_entry,
		.handler = oracle_list_return,
		.data_size = sizeof(struct oracle_snapshot),
		.maxactive = 64,
	},
	{
		.kp.symbol_name = "blk_attempt_plug_merge",
		.entry_handler = oracle_plug_entry,
		.handler = oracle_plug_return,
		.data_size = sizeof(struct oracle_snapshot),
		.maxactive = 64,
	},
};

/*
 * A kretprobe misses an instance when all maxactive are taken (nmissed),
 * its kprobe when it fires inside another probe's handler (kp.nmissed):
 * either way a merge went unseen.  A missed free (a completion in an
 * interrupt that arrived while a handler ran) only leaves a slot waiting:
 * counted apart.
 */
static unsigned long oracle_missed(void)
{
	unsigned long missed = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(oracle_probes); i++)
		missed += oracle_probes[i].nmissed + oracle_probes[i].kp.nmissed;
	return missed;
}

/* Handed-back requests neither completed nor freed yet. */
static unsigned int oracle_nr_waiting(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < ORACLE_MAX_WAITING; i++)
		n += !!oracle_waiting[i].rq;
	return n;
}

static int oracle_report_show(struct seq_file *m, void *unused)
{
	unsigned long flags;
	unsigned int i, n;

	seq_printf(m, "front_merges %lld\n",
		   atomic64_read(&oracle_front_merges));
	seq_printf(m, "back_merges %lld\n",
		   atomic64_read(&oracle_back_merges));
	seq_printf(m, "prepared_merges %lld\n",
		   atomic64_read(&oracle_prepared_merges));
	seq_printf(m, "unattributed_merges %lld\n",
		   atomic64_read(&oracle_unattributed));
	seq_printf(m, "missed_probes %lu\n", oracle_missed());

	spin_lock_irqsave(&oracle_lock, flags);
	for (i = 0; i < ORACLE_MAX_DISKS && oracle_disks[i].disk; i++)
		seq_printf(m, "disk %s requeues %llu merge_candidates %llu prepared_requeues %llu prepared_candidates %llu queued_candidates %llu prepared_queued_candidates %llu direct_issues %llu direct_requeues %llu prepared_direct_requeues %llu\n",
			   oracle_disks[i].name, oracle_disks[i].requeues,
			   oracle_disks[i].merge_candidates,
			   oracle_disks[i].prepared_requeues,
			   oracle_disks[i].prepared_candidates,
			   oracle_disks[i].queued_candidates,
			   oracle_disks[i].prepared_queued_candidates,
			   oracle_disks[i].direct_issues,
			   oracle_disks[i].direct_requeues,
			   oracle_disks[i].prepared_direct_requeues);
	seq_printf(m, "set_overflows %llu\n", oracle_set_overflows);
	seq_printf(m, "waiting %u\n", oracle_nr_waiting());
	seq_printf(m, "missed_frees %lu\n", oracle_free_probe.nmissed);
	seq_printf(m, "waiting_evicted %llu\n", oracle_waiting_evicted);
	n = oracle_nr_records;
	for (i = 0; i < n; i++) {
		struct oracle_record *r = &oracle_records[i];

		seq_printf(m, "violation %s %s %s %llu %u %llu %u %u %d %llu\n",
			   r->disk, r->where, r->front ? "front" : "back",
			   (unsigned long long)r->bio_sector, r->bio_bytes,
			   (unsigned long long)r->rq_sector, r->rq_bytes,
			   r->op, r->prepared, r->time_ns);
	}
	spin_unlock_irqrestore(&oracle_lock, flags);

	return 0;
}
DEFINE_SHOW_ATTRIBUTE(oracle_report);

/* The same as one JSON object, for the test results as they are. */
static int oracle_json_show(struct seq_file *m, void *unused)
{
	unsigned long flags;
	unsigned int i;

	seq_printf(m, "{\"count\": %lld, \"front_merges\": %lld, \"back_merges\": %lld, ",
		   atomic64_read(&oracle_prepared_merges),
		   atomic64_read(&oracle_front_merges),
		   atomic64_read(&oracle_back_merges));
	seq_printf(m, "\"unattributed_merges\": %lld, \"missed_probes\": %lu, \"missed_frees\": %lu, ",
		   atomic64_read(&oracle_unattributed), oracle_missed(),
		   oracle_free_probe.nmissed);
	spin_lock_irqsave(&oracle_lock, flags);
	seq_printf(m, "\"waiting\": %u, \"waiting_evicted\": %llu, \"disks\": [",
		   oracle_nr_waiting(), oracle_waiting_evicted);
	for (i = 0; i < ORACLE_MAX_DISKS && oracle_disks[i].disk; i++)
		seq_printf(m, "%s{\"disk\": \"%s\", \"requeues\": %llu, \"merge_candidates\": %llu, \"prepared_requeues\": %llu, \"prepared_candidates\": %llu, \"queued_candidates\": %llu, \"prepared_queued_candidates\": %llu}",
			   i ? ", " : "", oracle_disks[i].name,
			   oracle_disks[i].requeues,
			   oracle_disks[i].merge_candidates,
			   oracle_disks[i].prepared_requeues,
			   oracle_disks[i].prepared_candidates,
			   oracle_disks[i].queued_candidates,
			   oracle_disks[i].prepared_queued_candidates);
	seq_puts(m, "], \"first\": [");
	for (i = 0; i < oracle_nr_records; i++) {
		struct oracle_record *r = &oracle_records[i];

		seq_printf(m, "%s{\"disk\": \"%s\", \"where\": \"%s\", \"merge\": \"%s\", ",
			   i ? ", " : "", r->disk, r->where,
			   r->front ? "front" : "back");
		seq_printf(m, "\"bio_sector\": %llu, \"bio_bytes\": %u, \"rq_sector\": %llu, \"rq_bytes\": %u, \"op\": %u, \"prepared\": %s}",
			   (unsigned long long)r->bio_sector, r->bio_bytes,
			   (unsigned long long)r->rq_sector, r->rq_bytes,
			   r->op, r->prepared ? "true" : "false");
	}
	spin_unlock_irqrestore(&oracle_lock, flags);
	seq_puts(m, "]}\n");

	return 0;
}
DEFINE_SHOW_ATTRIBUTE(oracle_json);

static ssize_t oracle_reset_write(struct file *file, const char __user *buf,
				  size_t count, loff_t *ppos)
{
	unsigned long flags;
	unsigned int i;

	atomic64_set(&oracle_front_merges, 0);
	atomic64_set(&oracle_back_merges, 0);
	atomic64_set(&oracle_prepared_merges, 0);
	atomic64_set(&oracle_unattributed, 0);
	for (i = 0; i < ARRAY_SIZE(oracle_probes); i++) {
		oracle_probes[i].nmissed = 0;
		oracle_probes[i].kp.nmissed = 0;
	}
	oracle_free_probe.nmissed = 0;

	spin_lock_irqsave(&oracle_lock, flags);
	oracle_nr_records = 0;
	memset(oracle_waiting, 0, sizeof(oracle_waiting));
	memset(oracle_disks, 0, sizeof(oracle_disks));
	oracle_in_queue.nr = 0;
	oracle_issued_directly.nr = 0;
	oracle_set_overflows = 0;
	oracle_waiting_evicted = 0;
	spin_unlock_irqrestore(&oracle_lock, flags);

	return count;
}

static const struct file_operations oracle_reset_fops = {
	.owner = THIS_MODULE,
	.write = oracle_reset_write,
	.llseek = noop_llseek,
};

static struct dentry *oracle_dir;

static void oracle_unregister_tracepoints(unsigned int n)
{
	while (n--)
		tracepoint_probe_unregister(oracle_tracepoints[n].tp,
					    oracle_tracepoints[n].probe, NULL);
	tracepoint_synchronize_unregister();
}

static int oracle_register_tracepoints(void)
{
	unsigned int i;
	int r;

	for_each_kernel_tracepoint(oracle_find_tracepoint, NULL);
	for (i = 0; i < ARRAY_SIZE(oracle_tracepoints); i++) {
		r = -ENOENT;
		if (oracle_tracepoints[i].tp)
			r = tracepoint_probe_register(oracle_tracepoints[i].tp,
						      oracle_tracepoints[i].probe,
						      NULL);
		if (r) {
			pr_err("rqpath-oracle: cannot probe tracepoint %s: %d\n",
			       oracle_tracepoints[i].name, r);
			oracle_unregister_tracepoints(i);
			return r;
		}
	}
	return 0;
}

static int __init rqpath_oracle_init(void)
{
	unsigned int i;
	int r;

	r = oracle_register_tracepoints();
	if (r)
		return r;

	for (i = 0; i < ARRAY_SIZE(oracle_probes); i++) {
		r = register_kretprobe(&oracle_probes[i]);
		if (r) {
			pr_err("rqpath-oracle: cannot probe %s: %d\n",
			       oracle_probes[i].kp.symbol_name, r);
			goto bad;
		}
	}

	r = register_kprobe(&oracle_free_probe);
	if (r) {
		pr_err("rqpath-oracle: cannot probe %s: %d\n",
		       oracle_free_probe.symbol_name, r);
		i = ARRAY_SIZE(oracle_probes);
		goto bad;
	}

	oracle_dir = debugfs_create_dir("rqpath-oracle", NULL);
	debugfs_create_file("report", 0444, oracle_dir, NULL,
			    &oracle_report_fops);
	debugfs_create_file("report.json", 0444, oracle_dir, NULL,
			    &oracle_json_fops);
	debugfs_create_file("reset", 0200, oracle_dir, NULL,
			    &oracle_reset_fops);
	return 0;

bad:
	while (i--)
		unregister_kretprobe(&oracle_probes[i]);
	oracle_unregister_tracepoints(ARRAY_SIZE(oracle_tracepoints));
	return r;
}

static void __exit rqpath_oracle_exit(void)
{
	unsigned int i;

	debugfs_remove_recursive(oracle_dir);
	unregister_kprobe(&oracle_free_probe);
	for (i = 0; i < ARRAY_SIZE(oracle_probes); i++)
		unregister_kretprobe(&oracle_probes[i]);
	oracle_unregister_tracepoints(ARRAY_SIZE(oracle_tracepoints));
}

module_init(rqpath_oracle_init);
module_exit(rqpath_oracle_exit);

MODULE_DESCRIPTION("rqpath: report bios merged into requests a driver prepared");
MODULE_AUTHOR("rqpath developers");
MODULE_LICENSE("GPL");

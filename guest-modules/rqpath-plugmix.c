// SPDX-License-Identifier: GPL-2.0-only
/*
 * rqpath-plugmix: submit reads or writes and a discard in one plug, the way
 * a filesystem or a stacking driver does from its own context, and time
 * them.  Userspace cannot build such a plug itself: a discard from
 * userspace is submitted and waited for on its own, and the wait flushes the
 * plug from the scheduler (no direct issue).
 *
 * The writes go into the plug so that blk_mq_plug_issue_direct() issues
 * them first, each with bd->last == false, and then meets the discard:
 * 6.1's plug is a LIFO list, so the discard is submitted first there; since
 * e70c301faece ("block: don't reorder requests in blk_add_rq_to_plug") the
 * plug is issued oldest first, so the discard goes last (Kbuild tells
 * which from the tree).  Whatever it does with the discard, it must commit
 * the writes it issued (->commit_rqs()) before it leaves them: a driver
 * like virtio-scsi tells its device about queued commands only then.
 *
 * Usage, from a shell that holds the disk open on file descriptor FD:
 *
 *   echo "FD NR_WRITES" > /sys/kernel/debug/rqpath-plugmix/run
 *   cat /sys/kernel/debug/rqpath-plugmix/result
 *
 * The writes are 4 KiB each, at every other 4 KiB block from the start of
 * the disk (nothing merges); the discard covers the 4 KiB block after the
 * last of them.  The write returns once every bio completed, or after
 * RQPATH_PLUGMIX_TIMEOUT with -ETIMEDOUT (the bios' memory is freed by the
 * last completion).  The result line says how long the writes and the
 * discard took.
 */

#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/completion.h>
#include <linux/debugfs.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#define RQPATH_PLUGMIX_MAX_WRITES	16
#define RQPATH_PLUGMIX_TIMEOUT		(60 * HZ)
#define RQPATH_PLUGMIX_BLOCK		4096

/* Whether the tree issues a plug oldest first (see the top). */
#ifdef RQPATH_PLUG_FIFO
static const bool plugmix_plug_fifo = true;
#else
static const bool plugmix_plug_fifo;
#endif

struct plugmix_run {
	refcount_t ref;
	struct completion done;
	atomic_t pending;
	atomic_t errors;
	ktime_t start;
	/* Nanoseconds from the start: the last write, and the discard. */
	atomic64_t writes_ns;
	atomic64_t discard_ns;
	unsigned int nr_pages;
	struct page *pages[RQPATH_PLUGMIX_MAX_WRITES];
};

static DEFINE_MUTEX(plugmix_mutex);	/* one run at a time; the result */
static char plugmix_result[160];

static void plugmix_put(struct plugmix_run *run)
{
	unsigned int i;

	if (!refcount_dec_and_test(&run->ref))
		return;
	for (i = 0; i < run->nr_pages; i++)
		__free_page(run->pages[i]);
	kfree(run);
	/* The completions that outlived a timed-out run ran our code. */
	module_put(THIS_MODULE);
}

static void plugmix_end_io(struct bio *bio)
{
	struct plugmix_run *run = bio->bi_private;
	s64 ns = ktime_to_ns(ktime_sub(ktime_get(), run->start));

	if (bio->bi_status)
		atomic_inc(&run->errors);
	if (bio_op(bio) == REQ_OP_DISCARD)
		atomic64_set(&run->discard_ns, ns);
	else if (ns > atomic64_read(&run->writes_ns))
		atomic64_set(&run->writes_ns, ns);
	bio_put(bio);

	if (atomic_dec_and_test(&run->pending))
		complete(&run->done);
	plugmix_put(run);
}

static struct bio *plugmix_bio(struct plugmix_run *run,
			       struct block_device *bdev, blk_opf_t opf,
			       unsigned short nr_vecs, sector_t sector)
{
	struct bio *bio = bio_alloc(bdev, nr_vecs, opf, GFP_KERNEL);

	bio->bi_iter.bi_sector = sector;
	bio->bi_private = run;
	bio->bi_end_io = plugmix_end_io;
	refcount_inc(&run->ref);
	atomic_inc(&run->pending);
	return bio;
}

static void plugmix_discard(struct plugmix_run *run, struct block_device *bdev,
			    sector_t sector)
{
	struct bio *bio = plugmix_bio(run, bdev, REQ_OP_DISCARD, 0, sector);

	bio->bi_iter.bi_size = RQPATH_PLUGMIX_BLOCK;
	submit_bio(bio);
}

static int plugmix_submit(struct block_device *bdev, unsigned int nr_writes)
{
	const sector_t block = RQPATH_PLUGMIX_BLOCK >> SECTOR_SHIFT;
	struct plugmix_run *run;
	struct blk_plug plug;
	struct bio *bio;
	unsigned int i;
	long left;
	int r = 0;

	if (!bdev_max_discard_sectors(bdev))
		return -EOPNOTSUPP;
	if (bdev_nr_sectors(bdev) < 2 * (nr_writes + 1) * block)
		return -ENOSPC;

	run = kzalloc(sizeof(*run), GFP_KERNEL);
	if (!run)
		return -ENOMEM;
	__module_get(THIS_MODULE);
	refcount_set(&run->ref, 1);
	init_completion(&run->done);
	for (i = 0; i < nr_writes; i++) {
		run->pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!run->pages[i]) {
			plugmix_put(run);
			return -ENOMEM;
		}
		run->nr_pages++;
	}
	/* Until the last submission, so that "done" cannot fire early. */
	atomic_set(&run->pending, 1);
	run->start = ktime_get();

	blk_start_plug(&plug);
	if (!plugmix_plug_fifo)
		plugmix_discard(run, bdev, 2 * nr_writes * block);
	for (i = 0; i < nr_writes; i++) {
		bio = plugmix_bio(run, bdev, REQ_OP_WRITE, 1, 2 * i * block);
		__bio_add_page(bio, run->pages[i], RQPATH_PLUGMIX_BLOCK, 0);
		submit_bio(bio);
	}
	if (plugmix_plug_fifo)
		plugmix_discard(run, bdev, 2 * nr_writes * block);
	blk_finish_plug(&plug);

	if (atomic_dec_and_test(&run->pending))
		complete(&run->done);
	left = wait_for_completion_killable_timeout(&run->done,
						    RQPATH_PLUGMIX_TIMEOUT);
	if (left <= 0)
		r = left ? left : -ETIMEDOUT;

	snprintf(plugmix_result, sizeof(plugmix_result),
		 "writes %u writes_ms %lld discard_ms %lld errors %d status %s\n",
		 nr_writes, atomic64_read(&run->writes_ns) / NSEC_PER_MSEC,
		 atomic64_read(&run->discard_ns) / NSEC_PER_MSEC,
		 atomic_read(&run->errors), r ? "timeout" : "done");
	plugmix_put(run);
	return r;
}

static ssize_t plugmix_run_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	unsigned int fd, nr_writes;
	struct file *disk;
	char buf[32];
	int r;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (sscanf(buf, "%u %u", &fd, &nr_writes) != 2 ||
	    !nr_writes || nr_writes > RQPATH_PLUGMIX_MAX_WRITES)
		return -EINVAL;

	disk = fget(fd);
	if (!disk)
		return -EBADF;
	if (!S_ISBLK(file_inode(disk)->i_mode) || !(disk->f_mode & FMODE_WRITE)) {
		fput(disk);
		return -EINVAL;
	}

	mutex_lock(&plugmix_mutex);
	r = plugmix_submit(I_BDEV(disk->f_mapping->host), nr_writes);
	mutex_unlock(&plugmix_mutex);
	fput(disk);

	return r ? r : count;
}

static const struct file_operations plugmix_run_fops = {
	.owner = THIS_MODULE,
	.write = plugmix_run_write,
	.llseek = noop_llseek,
};

static int plugmix_result_show(struct seq_file *m, void *unused)
{
	mutex_lock(&plugmix_mutex);
	seq_puts(m, plugmix_result);
	mutex_unlock(&plugmix_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(plugmix_result);

static struct dentry *plugmix_dir;

static int __init rqpath_plugmix_init(void)
{
	plugmix_dir = debugfs_create_dir("rqpath-plugmix", NULL);
	debugfs_create_file("run", 0200, plugmix_dir, NULL, &plugmix_run_fops);
	debugfs_create_file("result", 0444, plugmix_dir, NULL,
			    &plugmix_result_fops);
	return 0;
}

static void __exit rqpath_plugmix_exit(void)
{
	debugfs_remove_recursive(plugmix_dir);
}

module_init(rqpath_plugmix_init);
module_exit(rqpath_plugmix_exit);

MODULE_DESCRIPTION("rqpath: writes and a discard in one plug, timed");
MODULE_AUTHOR("rqpath developers");
MODULE_LICENSE("GPL");

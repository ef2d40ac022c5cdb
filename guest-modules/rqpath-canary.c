// SPDX-License-Identifier: GPL-2.0-only
/*
 * rqpath-canary: on demand, one report of each kind the debug kernels'
 * detectors must catch, so that a debug run's "no report" is known to
 * come from a kernel whose lockdep, kmemleak and KASAN were watching and
 * from a suite that reads what they print.
 *
 *   echo lockdep > /sys/kernel/debug/rqpath-canary/fire   AB-BA lock order
 *   echo leak > /sys/kernel/debug/rqpath-canary/fire      an object nothing
 *                                                         points to
 *   echo kasan > /sys/kernel/debug/rqpath-canary/fire     a slab
 *                                                         out-of-bounds read
 *
 * Fire them in that order, in a boot of their own: lockdep turns itself off
 * after its first report, and so does a KASAN report (it taints the kernel
 * with LOCKDEP_NOW_UNRELIABLE) which, without kasan_multi_shot, is also
 * KASAN's last.  Nothing here deadlocks or corrupts: the two lock orders
 * are taken one after the other, and the read is one byte of the object's
 * redzone.
 */

#include <linux/compiler.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#define CANARY_OBJECT_SIZE	16

static struct dentry *canary_dir;
static DEFINE_MUTEX(canary_a);
static DEFINE_MUTEX(canary_b);

static noinline void canary_lockdep(void)
{
	mutex_lock(&canary_a);
	mutex_lock(&canary_b);
	mutex_unlock(&canary_b);
	mutex_unlock(&canary_a);

	mutex_lock(&canary_b);
	mutex_lock(&canary_a);
	mutex_unlock(&canary_a);
	mutex_unlock(&canary_b);
}

/* noinline: kmemleak's backtrace of the object names this function. */
static noinline int canary_leak(void)
{
	void *obj = kmalloc(CANARY_OBJECT_SIZE, GFP_KERNEL);

	if (!obj)
		return -ENOMEM;
	memset(obj, 0x5a, CANARY_OBJECT_SIZE);
	return 0;
}

static noinline int canary_kasan(void)
{
	char *obj = kmalloc(CANARY_OBJECT_SIZE, GFP_KERNEL);
	size_t past_end = CANARY_OBJECT_SIZE;

	if (!obj)
		return -ENOMEM;
	/* A constant index would be refused at compile time. */
	OPTIMIZER_HIDE_VAR(past_end);
	(void)READ_ONCE(obj[past_end]);
	kfree(obj);
	return 0;
}

static ssize_t canary_fire(struct file *file, const char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	char cmd[16];
	int ret = 0;

	if (count >= sizeof(cmd))
		return -EINVAL;
	if (copy_from_user(cmd, ubuf, count))
		return -EFAULT;
	cmd[count] = '\0';

	if (sysfs_streq(cmd, "lockdep"))
		canary_lockdep();
	else if (sysfs_streq(cmd, "leak"))
		ret = canary_leak();
	else if (sysfs_streq(cmd, "kasan"))
		ret = canary_kasan();
	else
		return -EINVAL;
	return ret ? ret : count;
}

static const struct file_operations canary_fops = {
	.owner = THIS_MODULE,
	.write = canary_fire,
	.llseek = noop_llseek,
};

static int __init canary_init(void)
{
	canary_dir = debugfs_create_dir("rqpath-canary", NULL);
	debugfs_create_file("fire", 0200, canary_dir, NULL, &canary_fops);
	return 0;
}

static void __exit canary_exit(void)
{
	debugfs_remove_recursive(canary_dir);
}

module_init(canary_init);
module_exit(canary_exit);
MODULE_DESCRIPTION("rqpath: one report for each debug-kernel detector, on demand");
MODULE_AUTHOR("rqpath developers");
MODULE_LICENSE("GPL");

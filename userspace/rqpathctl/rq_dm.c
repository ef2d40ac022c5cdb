// SPDX-License-Identifier: GPL-2.0
/*
 * libdevmapper I/O for rqpathctl.
 *
 * Device nodes.  With udev synchronisation, udev's device-mapper rules
 * create and remove /dev/mapper/NAME and we wait on a cookie for them;
 * libdevmapper's fallback stays enabled and udev checking on, so that a
 * node udev failed to make is still made (what lvm.conf calls
 * verify_udev_operations).  Without udev (a bare initramfs), nobody else
 * makes nodes: the cookie then carries no semaphore, only flags, and
 * DM_UDEV_DISABLE_LIBRARY_FALLBACK must stay clear so that libdevmapper
 * creates the node itself when dm_udev_wait() runs its stacked node
 * operations.  rq_dm_create() checks the node either way.
 *
 * Creation is three explicit tasks (create, load, resume) rather than one
 * DM_DEVICE_CREATE with a table, which libdevmapper would split the same
 * way internally: separate steps let us say which step failed and show
 * the kernel's reason for a refused table.
 */
#include "rq_dm.h"

#include <errno.h>
#include <libdevmapper.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "rq_sys.h"

/*
 * libdevmapper's log levels are not in its public header: 2 fatal, 3 error,
 * 4 warning, 5..7 notice, info, debug; bits above carry flags.
 */
#define LIBDM_LOG_LEVEL_MASK	0x0f
#define LIBDM_LOG_WARN		4

#define TARGET_TYPE "rqpath"

static bool verbose_log;

/*
 * libdevmapper's default logger prints warnings and debug output on stdout,
 * which would corrupt "status --json"; keep all of it on stderr.
 */
__attribute__((format(printf, 5, 6)))
static void log_to_stderr(int level, const char *file, int line,
			  int dm_errno_or_class, const char *fmt, ...)
{
	va_list ap;

	(void)file;
	(void)line;
	(void)dm_errno_or_class;
	if ((level & LIBDM_LOG_LEVEL_MASK) > LIBDM_LOG_WARN && !verbose_log)
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void rq_dm_init(bool verbose)
{
	struct rq_udev_facts facts;
	const char *reason;
	bool want_sync;

	verbose_log = verbose;
	dm_log_with_errno_init(log_to_stderr);

	rq_udev_probe(&facts);
	want_sync = rq_udev_decide(&facts, &reason);
	dm_udev_set_sync_support(want_sync);
	dm_udev_set_checking(1);
	if (verbose)
		fprintf(stderr, "rqpathctl: udev synchronisation %s: %s\n",
			rq_dm_udev_sync() ? "on" : "off", reason);
}

bool rq_dm_udev_sync(void)
{
	/* libdevmapper has the last word (semaphores, its own udev check). */
	return dm_udev_get_sync_support();
}

static uint16_t cookie_flags(void)
{
	if (rq_dm_udev_sync())
		return 0;
	/*
	 * libdevmapper makes the nodes; should a udevd appear later and
	 * replay the event, its dm rules must leave /dev/mapper alone.
	 * This is what libdevmapper does itself under DM_DISABLE_UDEV.
	 */
	return DM_UDEV_DISABLE_DM_RULES_FLAG |
	       DM_UDEV_DISABLE_SUBSYSTEM_RULES_FLAG;
}

static struct dm_task *task_for(int type, const char *name)
{
	struct dm_task *dmt = dm_task_create(type);

	if (!dmt) {
		fprintf(stderr, "rqpathctl: cannot create a device-mapper "
			"task (out of memory?)\n");
		return NULL;
	}
	if (!dm_task_set_name(dmt, name)) {
		fprintf(stderr, "rqpathctl: device name '%s' refused by "
			"libdevmapper\n", name);
		dm_task_destroy(dmt);
		return NULL;
	}
	return dmt;
}

/*
 * Run a task whose ioctl sends a uevent (resume, remove).  Returns whether
 * the ioctl succeeded; the task keeps the errno.
 */
static bool run_with_cookie(struct dm_task *dmt)
{
	uint32_t cookie = 0;
	bool ok;

	if (!dm_task_set_cookie(dmt, &cookie, cookie_flags()))
		return false;
	ok = dm_task_run(dmt);
	/*
	 * Wait even after a failure: libdevmapper then completed the cookie
	 * itself and the wait frees the semaphore.  Without udev the cookie
	 * is 0 and the wait just runs the stacked node operations.
	 */
	if (!dm_udev_wait(cookie))
		fprintf(stderr, "rqpathctl: waiting for udev failed; "
			"/dev/mapper may lag behind\n");
	return ok;
}

static int remove_device(const char *name)
{
	struct dm_task *dmt = task_for(DM_DEVICE_REMOVE, name);
	int err = 0;

	if (!dmt)
		return -ENOMEM;
	/* udev's blkid may hold the device open for a moment: retry EBUSY. */
	dm_task_retry_remove(dmt);
	if (!run_with_cookie(dmt))
		err = dm_task_get_errno(dmt) ?: EIO;
	dm_task_destroy(dmt);
	return -err;
}

int rq_dm_remove(const char *name)
{
	int rc = remove_device(name);

	if (!rc)
		return 0;
	if (rc == -ENXIO || rc == -ENODEV)
		fprintf(stderr, "rqpathctl: remove: no device named '%s'\n",
			name);
	else if (rc == -EBUSY)
		fprintf(stderr, "rqpathctl: remove: '%s' is in use (open, "
			"mounted or held by another device)\n", name);
	else
		fprintf(stderr, "rqpathctl: remove: cannot remove '%s': %s\n",
			name, strerror(-rc));
	return -1;
}

static void undo_create(const char *name)
{
	if (!remove_device(name))
		fprintf(stderr, "rqpathctl: create: removed the half-made "
			"device '%s'\n", name);
	else
		fprintf(stderr, "rqpathctl: create: could not remove the "
			"half-made device '%s'; try 'rqpathctl remove %s'\n",
			name, name);
}

static void explain_refusal(const char *step, const char *name, int err,
			    uint64_t sectors, const char *params,
			    struct rq_kmsg *kmsg)
{
	fprintf(stderr, "rqpathctl: create: the kernel refused to %s '%s': "
		"%s\n", step, name, strerror(err));
	fprintf(stderr, "rqpathctl:   table: 0 %llu %s %s\n",
		(unsigned long long)sectors, TARGET_TYPE, params);
	if (rq_kmsg_print_since(kmsg, stderr, "rqpathctl:   kernel: "))
		return;
	fprintf(stderr, "rqpathctl:   hint: the reason is in the kernel log "
		"('dmesg | tail'); is the rqpath target loaded "
		"('dmsetup targets')?\n");
}

static bool node_matches(const char *path, unsigned int major,
			 unsigned int minor)
{
	struct stat st;

	/* stat() follows udev's symlink to ../dm-N as well. */
	return !stat(path, &st) && S_ISBLK(st.st_mode) &&
	       st.st_rdev == makedev(major, minor);
}

/* /dev/mapper/NAME must exist after create, with or without udev. */
static int ensure_node(const char *name, unsigned int major,
		       unsigned int minor)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dm_dir(), name);
	if (node_matches(path, major, minor))
		return 0;
	/* Ask libdevmapper once more, without udev in the loop. */
	dm_mknodes(name);
	dm_task_update_nodes();
	if (node_matches(path, major, minor)) {
		fprintf(stderr, "rqpathctl: create: %s was missing; created "
			"it\n", path);
		return 0;
	}
	fprintf(stderr, "rqpathctl: create: %s does not exist or is not "
		"block device %u:%u\n", path, major, minor);
	return -1;
}

static int create_empty(const char *name)
{
	struct dm_task *dmt = task_for(DM_DEVICE_CREATE, name);
	int err;

	if (!dmt)
		return -1;
	dm_task_set_add_node(dmt, DM_ADD_NODE_ON_RESUME);
	if (dm_task_run(dmt)) {
		dm_task_destroy(dmt);
		return 0;
	}
	err = dm_task_get_errno(dmt);
	dm_task_destroy(dmt);
	if (err == EBUSY || err == EEXIST)
		fprintf(stderr, "rqpathctl: create: a device named '%s' "
			"already exists\n", name);
	else
		fprintf(stderr, "rqpathctl: create: cannot create '%s': %s\n",
			name, strerror(err ?: EIO));
	return -1;
}

static int load_table(const char *name, uint64_t sectors, const char *params)
{
	struct dm_task *dmt = task_for(DM_DEVICE_RELOAD, name);
	struct rq_kmsg kmsg;
	int err = 0;

	if (!dmt)
		return -1;
	if (!dm_task_add_target(dmt, 0, sectors, TARGET_TYPE, params)) {
		fprintf(stderr, "rqpathctl: create: libdevmapper refused the "
			"table\n");
		dm_task_destroy(dmt);
		return -1;
	}
	rq_kmsg_mark(&kmsg);
	if (!dm_task_run(dmt))
		err = dm_task_get_errno(dmt) ?: EIO;
	dm_task_destroy(dmt);
	if (err)
		explain_refusal("load the table of", name, err, sectors,
				params, &kmsg);
	rq_kmsg_close(&kmsg);
	return err ? -1 : 0;
}

static int resume_new(const char *name, unsigned int *major,
		      unsigned int *minor)
{
	struct dm_task *dmt = task_for(DM_DEVICE_RESUME, name);
	struct dm_info info;
	int err = 0;

	if (!dmt)
		return -1;
	dm_task_set_add_node(dmt, DM_ADD_NODE_ON_RESUME);
	if (!run_with_cookie(dmt))
		err = dm_task_get_errno(dmt) ?: EIO;
	else if (!dm_task_get_info(dmt, &info) || !info.exists)
		err = ENXIO;
	else {
		*major = info.major;
		*minor = info.minor;
	}
	dm_task_destroy(dmt);
	if (err)
		fprintf(stderr, "rqpathctl: create: cannot resume '%s': %s\n",
			name, strerror(err));
	return err ? -1 : 0;
}

int rq_dm_create(const char *name, uint64_t sectors, const char *params)
{
	unsigned int major = 0, minor = 0;

	if (create_empty(name))
		return -1;
	if (load_table(name, sectors, params) ||
	    resume_new(name, &major, &minor) ||
	    ensure_node(name, major, minor)) {
		undo_create(name);
		return -1;
	}
	return 0;
}

static enum rq_dm_result read_failed(char *err, size_t errlen,
				     const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static enum rq_dm_result read_failed(char *err, size_t errlen,
				     const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return RQ_DM_FAILED;
}

/* want NULL: any single target, its type in out->type. */
static enum rq_dm_result read_target(const char *name, bool table,
				     const char *want,
				     struct rq_dm_target *out, char *err,
				     size_t errlen)
{
	struct dm_task *dmt;
	struct dm_info info;
	char *type = NULL, *params = NULL;
	void *next;
	enum rq_dm_result rc = RQ_DM_OK;

	memset(out, 0, sizeof(*out));
	dmt = task_for(table ? DM_DEVICE_TABLE : DM_DEVICE_STATUS, name);
	if (!dmt)
		return read_failed(err, errlen, "cannot set up the task");
	/* The open count needs a bdget in the kernel; we do not use it. */
	dm_task_no_open_count(dmt);
	if (!dm_task_run(dmt)) {
		int e = dm_task_get_errno(dmt);

		if (e == ENXIO || e == ENODEV)
			rc = RQ_DM_NOT_FOUND;
		else
			rc = read_failed(err, errlen, "%s ioctl failed: %s",
					 table ? "table" : "status",
					 strerror(e ?: EIO));
		goto out;
	}
	/* libdevmapper reports a missing device as success with !exists. */
	if (!dm_task_get_info(dmt, &info) || !info.exists) {
		rc = RQ_DM_NOT_FOUND;
		goto out;
	}
	if (!info.live_table) {
		rc = read_failed(err, errlen, "'%s' has no live table", name);
		goto out;
	}
	next = dm_get_next_target(dmt, NULL, &out->start, &out->length, &type,
				  &params);
	if (!type || !params) {
		rc = read_failed(err, errlen, "'%s' has no target", name);
	} else if (next) {
		rc = read_failed(err, errlen, "'%s' has more than one target; "
				 "rqpathctl handles a single %s target",
				 name, want ? want : "request-based");
	} else if (want && strcmp(type, want)) {
		rc = read_failed(err, errlen, "'%s' is a %s device, not %s",
				 name, type, want);
	} else {
		snprintf(out->type, sizeof(out->type), "%s", type);
		out->params = strdup(params);
		if (!out->params)
			rc = read_failed(err, errlen, "out of memory");
	}
out:
	dm_task_destroy(dmt);
	return rc;
}

enum rq_dm_result rq_dm_read_target(const char *name, bool table,
				    struct rq_dm_target *out, char *err,
				    size_t errlen)
{
	return read_target(name, table, TARGET_TYPE, out, err, errlen);
}

enum rq_dm_result rq_dm_read_any_target(const char *name, bool table,
					struct rq_dm_target *out, char *err,
					size_t errlen)
{
	return read_target(name, table, NULL, out, err, errlen);
}

void rq_dm_target_free(struct rq_dm_target *target)
{
	free(target->params);
	target->params = NULL;
}

enum rq_dm_result rq_dm_message(const char *name, const char *text)
{
	struct dm_task *dmt = task_for(DM_DEVICE_TARGET_MSG, name);
	struct rq_kmsg kmsg;
	const char *reply;
	int err = 0;

	if (!dmt)
		return RQ_DM_FAILED;
	if (!dm_task_set_sector(dmt, 0) || !dm_task_set_message(dmt, text)) {
		fprintf(stderr, "rqpathctl: message: cannot set up the "
			"message\n");
		dm_task_destroy(dmt);
		return RQ_DM_FAILED;
	}
	rq_kmsg_mark(&kmsg);
	if (!dm_task_run(dmt)) {
		err = dm_task_get_errno(dmt) ?: EIO;
	} else {
		reply = dm_task_get_message_response(dmt);
		if (reply && *reply)
			printf("%s\n", reply);
	}
	dm_task_destroy(dmt);

	if (err == ENXIO || err == ENODEV) {
		fprintf(stderr, "rqpathctl: message: no device named '%s'\n",
			name);
	} else if (err) {
		fprintf(stderr, "rqpathctl: message: '%s' refused '%s': %s\n",
			name, text, strerror(err));
		if (!rq_kmsg_print_since(&kmsg, stderr, "rqpathctl:   kernel: "))
			fprintf(stderr, "rqpathctl:   hint: the target logs "
				"the reason; see 'dmesg | tail'\n");
	}
	rq_kmsg_close(&kmsg);
	if (!err)
		return RQ_DM_OK;
	return err == ENXIO || err == ENODEV ? RQ_DM_NOT_FOUND : RQ_DM_FAILED;
}

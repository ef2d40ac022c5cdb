// SPDX-License-Identifier: GPL-2.0
/*
 * Host helpers for rqpathctl; see rq_sys.h.
 */
#include "rq_sys.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "rq_status.h"

int rq_blockdev_probe(const char *path, struct rq_blockdev *out, char *err,
		      size_t errlen)
{
	struct stat st;
	uint64_t bytes;
	int fd;

	/* Read-only and without O_EXCL: the target will open it itself. */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open %s: %s", path,
			 strerror(errno));
		return -1;
	}
	if (fstat(fd, &st)) {
		snprintf(err, errlen, "cannot stat %s: %s", path,
			 strerror(errno));
		goto fail;
	}
	if (!S_ISBLK(st.st_mode)) {
		snprintf(err, errlen, "%s is not a block device", path);
		goto fail;
	}
	if (ioctl(fd, BLKGETSIZE64, &bytes)) {
		snprintf(err, errlen, "BLKGETSIZE64 on %s failed: %s", path,
			 strerror(errno));
		goto fail;
	}
	close(fd);
	out->major = major(st.st_rdev);
	out->minor = minor(st.st_rdev);
	out->size_bytes = bytes;
	return 0;
fail:
	close(fd);
	return -1;
}

int rq_resolve_dev(const char *arg, unsigned int *major_out,
		   unsigned int *minor_out)
{
	struct stat st;

	if (!rq_parse_dev(arg, strlen(arg), major_out, minor_out))
		return 0;
	if (stat(arg, &st) || !S_ISBLK(st.st_mode))
		return -1;
	*major_out = major(st.st_rdev);
	*minor_out = minor(st.st_rdev);
	return 0;
}

static bool env_flag(const char *name)
{
	const char *v = getenv(name);

	return v && *v && strcmp(v, "0");
}

static bool any_exists(const char *const paths[])
{
	for (; *paths; paths++)
		if (!access(*paths, F_OK))
			return true;
	return false;
}

void rq_udev_probe(struct rq_udev_facts *facts)
{
	static const char *const notify_rules[] = {
		"/etc/udev/rules.d/95-dm-notify.rules",
		"/run/udev/rules.d/95-dm-notify.rules",
		"/lib/udev/rules.d/95-dm-notify.rules",
		"/usr/lib/udev/rules.d/95-dm-notify.rules",
		"/usr/local/lib/udev/rules.d/95-dm-notify.rules",
		NULL,
	};
	static const char *const control[] = { "/run/udev/control", NULL };

	facts->env_noudev = env_flag("RQPATHCTL_NOUDEV");
	facts->env_dm_disable_udev = env_flag("DM_DISABLE_UDEV");
	facts->udevd_running = any_exists(control);
	facts->notify_rules = any_exists(notify_rules);
}

bool rq_udev_decide(const struct rq_udev_facts *facts, const char **reason)
{
	const char *why;
	bool sync = false;

	if (facts->env_noudev)
		why = "RQPATHCTL_NOUDEV is set";
	else if (facts->env_dm_disable_udev)
		why = "DM_DISABLE_UDEV is set";
	else if (!facts->udevd_running)
		why = "udevd is not running (no /run/udev/control)";
	else if (!facts->notify_rules)
		why = "udevd runs without 95-dm-notify.rules, which would "
		      "never complete the cookie";
	else {
		why = "udevd is running with the device-mapper rules";
		sync = true;
	}
	if (reason)
		*reason = why;
	return sync;
}

void rq_kmsg_mark(struct rq_kmsg *k)
{
	/* Optional: without /dev/kmsg (no root, dmesg_restrict) we only hint. */
	k->fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (k->fd >= 0 && lseek(k->fd, 0, SEEK_END) < 0) {
		close(k->fd);
		k->fd = -1;
	}
}

int rq_kmsg_record_text(const char *record, size_t len, char *out,
			size_t outlen)
{
	const char *semi = memchr(record, ';', len);
	const char *end;
	size_t text_len;

	if (!semi || !outlen)
		return -1;
	semi++;
	end = memchr(semi, '\n', len - (size_t)(semi - record));
	text_len = end ? (size_t)(end - semi) : len - (size_t)(semi - record);
	if (text_len >= outlen)
		text_len = outlen - 1;
	memcpy(out, semi, text_len);
	out[text_len] = '\0';
	return 0;
}

bool rq_kmsg_is_relevant(const char *text)
{
	return strstr(text, "device-mapper") || strstr(text, "rqpath");
}

unsigned int rq_kmsg_print_since(struct rq_kmsg *k, FILE *out,
				 const char *prefix)
{
	char record[8192], text[1024];
	unsigned int printed = 0;

	if (k->fd < 0)
		return 0;
	for (;;) {
		ssize_t n = read(k->fd, record, sizeof(record) - 1);

		if (n < 0 && errno == EPIPE)
			continue;	/* records overwritten; go on */
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;		/* EAGAIN: nothing newer */
		if (rq_kmsg_record_text(record, (size_t)n, text, sizeof(text)))
			continue;
		if (!rq_kmsg_is_relevant(text))
			continue;
		fprintf(out, "%s%s\n", prefix, text);
		printed++;
	}
	return printed;
}

void rq_kmsg_close(struct rq_kmsg *k)
{
	if (k->fd >= 0)
		close(k->fd);
	k->fd = -1;
}

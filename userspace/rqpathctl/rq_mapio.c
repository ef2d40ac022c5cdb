// SPDX-License-Identifier: GPL-2.0
/*
 * sysfs and tracefs for the request watch; see rq_mapio.h.
 */
#include "rq_mapio.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static const char *const events[] = {
	"block_rq_insert", "block_rq_issue", "block_rq_requeue",
	"block_rq_complete",
};
#define NR_EVENTS (sizeof(events) / sizeof(events[0]))

/* The first line of a file, without its newline; 0 or -1. */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	bool ok;

	if (!f)
		return -1;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	ssize_t n;
	int e;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	e = errno;
	close(fd);
	errno = e;
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

static int parse_majmin(const char *text, unsigned int *ma, unsigned int *mi)
{
	return sscanf(text, "%u:%u", ma, mi) == 2 ? 0 : -1;
}

static void read_slaves(struct rq_map_id *id)
{
	char path[PATH_MAX], buf[64];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/sys/block/%s/slaves", id->kname);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d)) && id->nr_slaves < RQ_RW_MAX_PATHS) {
		unsigned int i = id->nr_slaves;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/slaves/%s/dev",
			 id->kname, de->d_name);
		if (read_line(path, buf, sizeof(buf)) ||
		    parse_majmin(buf, &id->slave_major[i], &id->slave_minor[i]))
			continue;
		snprintf(id->slave_kname[i], sizeof(id->slave_kname[i]), "%.31s",
			 de->d_name);
		id->nr_slaves++;
	}
	closedir(d);
}

static int fill_from_kname(struct rq_map_id *id, char *err, size_t errlen)
{
	char path[PATH_MAX], buf[64];
	struct stat st;

	snprintf(path, sizeof(path), "/sys/block/%s/dev", id->kname);
	if (read_line(path, buf, sizeof(buf)) ||
	    parse_majmin(buf, &id->major, &id->minor)) {
		snprintf(err, errlen, "cannot read %s", path);
		return -1;
	}
	snprintf(path, sizeof(path), "/sys/block/%s/dm/name", id->kname);
	if (read_line(path, id->name, sizeof(id->name))) {
		snprintf(err, errlen, "%s is not a device-mapper device (no %s)",
			 id->kname, path);
		return -1;
	}
	snprintf(path, sizeof(path), "/sys/block/%s/mq", id->kname);
	id->request_based = !stat(path, &st);
	read_slaves(id);
	return 0;
}

int rq_map_resolve(const char *arg, struct rq_map_id *id, char *err,
		   size_t errlen)
{
	char path[PATH_MAX], buf[256];
	struct dirent *de;
	struct stat st;
	DIR *d;

	memset(id, 0, sizeof(*id));
	if (arg[0] == '/') {
		char *base;

		if (stat(arg, &st) || !S_ISBLK(st.st_mode)) {
			snprintf(err, errlen, "%s is not a block device", arg);
			return -1;
		}
		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", major(st.st_rdev),
			 minor(st.st_rdev));
		if (!realpath(path, buf)) {
			snprintf(err, errlen, "no %s for %s", path, arg);
			return -1;
		}
		base = strrchr(buf, '/');
		snprintf(id->kname, sizeof(id->kname), "%.31s", base ? base + 1 : buf);
		return fill_from_kname(id, err, errlen);
	}
	d = opendir("/sys/block");
	if (!d) {
		snprintf(err, errlen, "cannot read /sys/block: %s", strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "dm-", 3))
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/dm/name", de->d_name);
		if (read_line(path, buf, sizeof(buf)) || strcmp(buf, arg))
			continue;
		snprintf(id->kname, sizeof(id->kname), "%.31s", de->d_name);
		closedir(d);
		return fill_from_kname(id, err, errlen);
	}
	closedir(d);
	snprintf(err, errlen, "no device-mapper device named '%s'", arg);
	return -1;
}

/* inflight: "reads writes"; stat: completed I/Os of every op summed. */
static int read_counters(const char *kname, int64_t *inflight, int64_t *ios)
{
	char path[PATH_MAX], buf[512];
	unsigned long long f[17] = { 0 };
	unsigned long long r, w;
	int n;

	snprintf(path, sizeof(path), "/sys/block/%s/inflight", kname);
	if (read_line(path, buf, sizeof(buf)) || sscanf(buf, "%llu %llu", &r, &w) != 2)
		return -1;
	*inflight = (int64_t)(r + w);
	snprintf(path, sizeof(path), "/sys/block/%s/stat", kname);
	if (read_line(path, buf, sizeof(buf)))
		return -1;
	n = sscanf(buf, "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu "
		   "%llu %llu %llu %llu %llu %llu", &f[0], &f[1], &f[2], &f[3],
		   &f[4], &f[5], &f[6], &f[7], &f[8], &f[9], &f[10], &f[11],
		   &f[12], &f[13], &f[14], &f[15], &f[16]);
	if (n < 11)
		return -1;
	/* reads, writes, discards (4.18+), flushes (5.5+) completed */
	*ios = (int64_t)(f[0] + f[4] + f[11] + f[15]);
	return 0;
}

void rq_map_sample_sysfs(const struct rq_map_id *id,
			 const struct rq_map_state *ms,
			 struct rq_rw_sample *s)
{
	int64_t inflight, ios, pin = 0, pios = 0;
	unsigned int i;
	bool ok = true;

	if (!read_counters(id->kname, &inflight, &ios)) {
		s->in_flight = inflight;
		s->map_ios = ios;
	}
	for (i = 0; i < id->nr_slaves; i++) {
		if (ms && ms->nr_paths &&
		    !rq_mapstate_path_active(ms, id->slave_major[i],
					     id->slave_minor[i]))
			continue;
		if (read_counters(id->slave_kname[i], &inflight, &ios)) {
			ok = false;
			break;
		}
		pin += inflight;
		pios += ios;
	}
	if (ok && id->nr_slaves) {
		s->paths_inflight = pin;
		s->paths_ios = pios;
	}
}

static int find_root(struct rq_tracefs *tf, char *why, size_t whylen)
{
	static const char *const roots[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};
	char path[PATH_MAX];
	struct stat st;
	size_t i;

	for (i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		snprintf(path, sizeof(path), "%s/instances", roots[i]);
		if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
			snprintf(tf->root, sizeof(tf->root), "%s", roots[i]);
			return 0;
		}
	}
	snprintf(why, whylen, "tracefs is not mounted (no /sys/kernel/tracing/"
		 "instances nor /sys/kernel/debug/tracing/instances)");
	return -1;
}

static int set_event(struct rq_tracefs *tf, const char *ev, const char *file,
		     const char *value, char *why, size_t whylen)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/events/block/%s/%s", tf->inst, ev, file);
	if (write_file(path, value)) {
		snprintf(why, whylen, "cannot write '%s' to %s: %s", value, path,
			 strerror(errno));
		return -1;
	}
	return 0;
}

static void build_filter(const struct rq_map_id *id, char *buf, size_t len)
{
	size_t used;
	unsigned int i;

	/* the kernel's dev_t: major << 20 | minor */
	used = (size_t)snprintf(buf, len, "dev == %u",
				(id->major << 20) | id->minor);
	for (i = 0; i < id->nr_slaves && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, " || dev == %u",
					 (id->slave_major[i] << 20) |
					 id->slave_minor[i]);
}

int rq_tracefs_open(struct rq_tracefs *tf, const struct rq_map_id *id,
		    char *why, size_t whylen)
{
	char path[PATH_MAX + 64], filter[2048];
	size_t i;

	memset(tf, 0, sizeof(*tf));
	tf->pipe_fd = -1;
	if (find_root(tf, why, whylen))
		return -1;
	snprintf(tf->inst, sizeof(tf->inst), "%s/instances/rqpathctl-%ld",
		 tf->root, (long)getpid());
	if (mkdir(tf->inst, 0700)) {
		snprintf(why, whylen, "cannot make a tracefs instance %s: %s%s",
			 tf->inst, strerror(errno),
			 errno == EACCES || errno == EPERM ? " (not permitted: "
			 "run as root)" : "");
		tf->inst[0] = '\0';
		return -1;
	}
	snprintf(path, sizeof(path), "%s/trace_clock", tf->inst);
	tf->mono = !write_file(path, "mono");
	build_filter(id, filter, sizeof(filter));
	for (i = 0; i < NR_EVENTS; i++)
		if (set_event(tf, events[i], "filter", filter, why, whylen) ||
		    set_event(tf, events[i], "enable", "1", why, whylen))
			goto fail;
	snprintf(path, sizeof(path), "%s/trace_pipe", tf->inst);
	tf->pipe_fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (tf->pipe_fd < 0) {
		snprintf(why, whylen, "cannot open %s: %s", path, strerror(errno));
		goto fail;
	}
	return 0;
fail:
	rq_tracefs_close(tf);
	return -1;
}

static void deliver(struct rq_tracefs *tf,
		    void (*cb)(const char *line, void *arg), void *arg)
{
	size_t start = 0;
	char *nl;

	while ((nl = memchr(tf->buf + start, '\n', tf->len - start))) {
		*nl = '\0';
		tf->lines++;
		cb(tf->buf + start, arg);
		start = (size_t)(nl - tf->buf) + 1;
	}
	memmove(tf->buf, tf->buf + start, tf->len - start);
	tf->len -= start;
	/* a line longer than the buffer: drop it */
	if (tf->len == sizeof(tf->buf) - 1)
		tf->len = 0;
}

int rq_tracefs_pump(struct rq_tracefs *tf, int timeout_ms,
		    void (*cb)(const char *line, void *arg), void *arg)
{
	struct pollfd pfd = { .fd = tf->pipe_fd, .events = POLLIN };

	if (timeout_ms > 0 && poll(&pfd, 1, timeout_ms) < 0 && errno != EINTR)
		return -1;
	for (;;) {
		ssize_t n = read(tf->pipe_fd, tf->buf + tf->len,
				 sizeof(tf->buf) - 1 - tf->len);

		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return 0;
		if (n < 0)
			return -1;
		if (n == 0)
			return 0;
		tf->len += (size_t)n;
		deliver(tf, cb, arg);
	}
}

void rq_tracefs_close(struct rq_tracefs *tf)
{
	char path[PATH_MAX + 64];
	size_t i;

	if (tf->pipe_fd >= 0)
		close(tf->pipe_fd);
	tf->pipe_fd = -1;
	if (!tf->inst[0])
		return;
	for (i = 0; i < NR_EVENTS; i++) {
		snprintf(path, sizeof(path), "%s/events/block/%s/enable",
			 tf->inst, events[i]);
		write_file(path, "0");
	}
	rmdir(tf->inst);
	tf->inst[0] = '\0';
}

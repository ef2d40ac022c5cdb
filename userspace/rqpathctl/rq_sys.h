/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host facts rqpathctl needs besides device-mapper itself: block device
 * sizes and numbers, whether udev can be relied upon, and the kernel log
 * lines that explain a refused table or message.  No libdevmapper here.
 */
#ifndef RQ_SYS_H
#define RQ_SYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct rq_blockdev {
	unsigned int major;
	unsigned int minor;
	uint64_t size_bytes;
};

/* Open path read-only, check it is a block device, get number and size. */
int rq_blockdev_probe(const char *path, struct rq_blockdev *out, char *err,
		      size_t errlen);

/* "major:minor", or a block device node.  Returns 0, or -1 if neither. */
int rq_resolve_dev(const char *arg, unsigned int *major, unsigned int *minor);

/* What decides whether to synchronise with udev. */
struct rq_udev_facts {
	bool env_noudev;	/* RQPATHCTL_NOUDEV set and not "0" */
	bool env_dm_disable_udev; /* libdevmapper's own DM_DISABLE_UDEV */
	bool udevd_running;	/* /run/udev/control exists */
	bool notify_rules;	/* 95-dm-notify.rules installed */
};

void rq_udev_probe(struct rq_udev_facts *facts);

/*
 * Pure: true to use udev synchronisation.  *reason says why, for -v.
 * Without the dm-notify rule nobody would complete the cookie and
 * dm_udev_wait() would block forever, so a running udevd alone is not
 * enough.
 */
bool rq_udev_decide(const struct rq_udev_facts *facts, const char **reason);

/* The kernel log from a given point on (/dev/kmsg). */
struct rq_kmsg {
	int fd;			/* -1 when /dev/kmsg cannot be read */
};

/* Remember where the kernel log ends now. */
void rq_kmsg_mark(struct rq_kmsg *k);

/*
 * Print the device-mapper and rqpath lines logged since rq_kmsg_mark(),
 * each preceded by prefix.  Returns how many were printed.
 */
unsigned int rq_kmsg_print_since(struct rq_kmsg *k, FILE *out,
				 const char *prefix);

void rq_kmsg_close(struct rq_kmsg *k);

/*
 * Pure: the message text of one /dev/kmsg record
 * ("6,339,5140900,-;text\n KEY=value...").  Returns 0, or -1 if malformed.
 */
int rq_kmsg_record_text(const char *record, size_t len, char *out,
			size_t outlen);

bool rq_kmsg_is_relevant(const char *text);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The only part of rqpathctl that talks to device-mapper (through
 * libdevmapper).  Everything it reads is handed to the pure parsers.
 */
#ifndef RQ_DM_H
#define RQ_DM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum rq_dm_result {
	RQ_DM_OK,
	RQ_DM_NOT_FOUND,	/* no device of that name (any more) */
	RQ_DM_FAILED,
};

/* The single target of an rqpath device, as the kernel reports it. */
struct rq_dm_target {
	uint64_t start;
	uint64_t length;
	char *params;		/* malloc'd; rq_dm_target_free() */
	char type[32];		/* the target type: "rqpath", "multipath" */
};

/*
 * Set up logging (everything to stderr, debug with verbose) and decide on
 * udev synchronisation once.  Call before any other rq_dm_ function.
 */
void rq_dm_init(bool verbose);

/* Whether udev synchronisation is in use (after rq_dm_init()). */
bool rq_dm_udev_sync(void);

/*
 * Create NAME with the table "0 sectors rqpath params", load it and resume
 * it, then check that /dev/mapper/NAME exists.  On any failure after the
 * device exists, remove it again.  Messages go to stderr.  Returns 0 or -1.
 */
int rq_dm_create(const char *name, uint64_t sectors, const char *params);

/* Remove NAME.  Messages go to stderr.  Returns 0 or -1. */
int rq_dm_remove(const char *name);

/*
 * Read the status (table == false) or the table of NAME's single rqpath
 * target.  On RQ_DM_FAILED, err says why; nothing is printed.
 */
enum rq_dm_result rq_dm_read_target(const char *name, bool table,
				    struct rq_dm_target *out, char *err,
				    size_t errlen);

/* The same for a device with a single target of any type. */
enum rq_dm_result rq_dm_read_any_target(const char *name, bool table,
					struct rq_dm_target *out, char *err,
					size_t errlen);

void rq_dm_target_free(struct rq_dm_target *target);

/*
 * Send text to NAME's target at sector 0.  Prints the target's reply, if
 * any, to stdout; failures, with the kernel's reason when it can be read,
 * to stderr.  Returns RQ_DM_OK, RQ_DM_NOT_FOUND or RQ_DM_FAILED.
 */
enum rq_dm_result rq_dm_message(const char *name, const char *text);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The workload: open the target, write generations, read them back.
 */
#ifndef RQCHECK_RUN_H
#define RQCHECK_RUN_H

#include <signal.h>
#include <stdio.h>

#include <stdbool.h>

#include "cli.h"
#include "report.h"
#include "verify.h"

/* Blocks --verify-only reads to learn the seed and generation. */
#define RUN_IDENTITY_SAMPLES 16

/*
 * Resubmits of one I/O that completed with -EAGAIN (see run.c) before its
 * -EAGAIN is an I/O error.  One -EAGAIN is a queue below that had no free
 * tag at that instant, a shortage that ends when one of the I/Os in flight
 * there completes; a resubmit, a round trip through the kernel after the
 * reap that found it, nearly always outlasts it.  A thousand in a row are
 * no passing shortage but a kernel that answers -EAGAIN for ever, and the
 * bound turns that into an I/O error (exit 3) at the cost of at most a
 * thousand extra round trips per I/O, instead of a run that never ends.
 */
#define RUN_EAGAIN_RETRIES 1000u

/* set from a signal handler: finish in-flight I/O and stop */
extern volatile sig_atomic_t run_stop;

/*
 * open(2) flags for the target: read-only for --verify-only, else
 * read-write, and O_EXCL on a block device unless --force.
 */
int run_open_flags(const struct rq_config *cfg, bool block_device);

/*
 * Open cfg->target and fill @tgt; on failure the reason is recorded in @rep
 * (RES_SETUP_ERROR) and -1 returned.  *fd is the open descriptor.
 */
int run_open_target(const struct rq_config *cfg, struct target_info *tgt,
		    int *fd, struct report *rep);

/*
 * --verify-only: read up to RUN_IDENTITY_SAMPLES blocks spread over the
 * region and tally the headers they carry.  0, or -1 with a reason in err
 * when a block cannot be read.
 */
int run_read_identity(const struct rq_config *cfg,
		      const struct target_info *tgt, int fd,
		      struct identity_tally *t, char *err, size_t errlen);

/*
 * Take the seed and generation the options did not give from the tally
 * (and record where each came from in rep->identity); warn on @warn when
 * a given one disagrees with the headers, say on @info (may be NULL) what
 * was taken from them.  -1 (setup error in @rep) when something is missing
 * and no block had a header.
 */
int run_resolve_identity(struct rq_config *cfg, const struct identity_tally *t,
			 struct report *rep, FILE *warn, FILE *info);

/*
 * Run the generations on @fd, printing per-generation lines to @out (NULL
 * for none).  Everything found goes into @rep.
 */
void run_workload(const struct rq_config *cfg, const struct target_info *tgt,
		  int fd, struct report *rep, FILE *out);

/*
 * run_workload() on the engine @ops instead of the one cfg->engine names:
 * the seam through which the unit tests drive the workload with a fake
 * engine.
 */
void run_workload_on(const struct engine_ops *ops,
		     const struct rq_config *cfg,
		     const struct target_info *tgt, int fd,
		     struct report *rep, FILE *out);

#endif

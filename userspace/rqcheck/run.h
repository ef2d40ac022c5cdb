/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The workload: open the target, write generations, read them back.
 */
#ifndef RQCHECK_RUN_H
#define RQCHECK_RUN_H

#include <signal.h>
#include <stdio.h>

#include "cli.h"
#include "report.h"

/* set from a signal handler: finish in-flight I/O and stop */
extern volatile sig_atomic_t run_stop;

/*
 * Open cfg->target and fill @tgt; on failure the reason is recorded in @rep
 * (RES_SETUP_ERROR) and -1 returned.  *fd is the open descriptor.
 */
int run_open_target(const struct rq_config *cfg, struct target_info *tgt,
		    int *fd, struct report *rep);

/*
 * Run the generations on @fd, printing per-generation lines to @out (NULL
 * for none).  Everything found goes into @rep.
 */
void run_workload(const struct rq_config *cfg, const struct target_info *tgt,
		  int fd, struct report *rep, FILE *out);

#endif

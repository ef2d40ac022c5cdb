/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The exit status of every rqpath userspace tool (the table in both
 * READMEs).  One scheme, so that a script can tell "found something" from
 * "could not look" from "did not finish" without knowing which tool ran.
 */
#ifndef RQ_EXIT_H
#define RQ_EXIT_H

enum rq_exit {
	RQ_EXIT_OK = 0,		/* ran to the end and found nothing */
	RQ_EXIT_FINDING = 1,	/* rqcheck: bad blocks; watch: livelock */
	RQ_EXIT_USAGE = 2,	/* bad command line */
	RQ_EXIT_FAILURE = 3,	/* could not do its job: I/O, setup... */
	RQ_EXIT_INCOMPLETE = 4,	/* no answer: timeout, interrupted */
};

#endif

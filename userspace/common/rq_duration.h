/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Time options of the rqpath tools: "200ms", "1.5s", "2m", "1h", or a bare
 * number.  A bare number is seconds everywhere, except where an option
 * took milliseconds before this parser existed (rqpathctl watch
 * --interval): its caller passes RQ_BARE_MILLISECONDS so that old command
 * lines keep their meaning.
 */
#ifndef RQ_DURATION_H
#define RQ_DURATION_H

enum rq_bare_unit {
	RQ_BARE_SECONDS,
	RQ_BARE_MILLISECONDS,
};

/*
 * Digits with at most one decimal point, then nothing or one of ms, s, m,
 * h.  No sign, exponent, blank, hex, inf or nan.  Returns 0 with the
 * duration in seconds in *seconds, or -1 (and *seconds untouched).
 */
int rq_parse_duration(const char *text, enum rq_bare_unit bare,
		      double *seconds);

#endif

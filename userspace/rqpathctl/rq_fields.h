/* SPDX-License-Identifier: GPL-2.0 */
/*
 * status --fields: chosen values of a status line as RQ_<FIELD>=<value>
 * lines a shell can eval, like "dmsetup info -c --noheadings
 * --nameprefixes".  Pure: parsing a field list, and printing it for a
 * parsed status to a given FILE.
 */
#ifndef RQ_FIELDS_H
#define RQ_FIELDS_H

#include <stdio.h>

#include "rq_status.h"

#define RQ_FIELDS_MAX	256	/* names in one --fields list */
#define RQ_FIELD_LEN	64	/* longest field name + NUL */

enum rq_field_kind {
	RQ_FIELD_ALL,		/* every field, for the line at hand */
	RQ_FIELD_DEVICE,	/* a device-wide value or a total */
	RQ_FIELD_OP,		/* <op>_<counter> */
	RQ_FIELD_PATH,		/* path<N>_<attribute> */
};

struct rq_field {
	enum rq_field_kind kind;
	unsigned int which;	/* device value, op counter, path attribute */
	unsigned int path;		/* RQ_FIELD_PATH: 1-based */
	char op[RQ_OP_NAME_LEN];	/* RQ_FIELD_OP */
};

struct rq_field_list {
	unsigned int nr;
	struct rq_field fields[RQ_FIELDS_MAX];
};

/*
 * Parse "in_flight,read_busy,path1_state" or "all".  Returns 0, or -1
 * with a one-line reason in err (an unknown or empty name, too many).
 */
int rq_fields_parse(const char *list, struct rq_field_list *out, char *err,
		    size_t errlen);

/* One RQ_<FIELD>=<value> line per field (all: every field), in order. */
void rq_fields_print(FILE *out, const struct rq_field_list *list,
		     const struct rq_status *st);

/*
 * value as eval will read it back: as is when it is only [A-Za-z0-9._:-],
 * else in single quotes ('' for an empty value).
 */
void rq_shell_quote(FILE *out, const char *value);

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * Block request tracepoint lines, parsed.  No I/O: see rq_trace.h.
 */
#include "rq_trace.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const type_names[RQ_TEV_NR] = {
	[RQ_TEV_INSERT] = "block_rq_insert",
	[RQ_TEV_ISSUE] = "block_rq_issue",
	[RQ_TEV_REQUEUE] = "block_rq_requeue",
	[RQ_TEV_COMPLETE] = "block_rq_complete",
	[RQ_TEV_ERROR] = "block_rq_error",
	[RQ_TEV_MERGE] = "block_rq_merge",
};

static const char *const op_names[RQ_OPC_NR] = {
	[RQ_OPC_READ] = "read",
	[RQ_OPC_WRITE] = "write",
	[RQ_OPC_FLUSH] = "flush",
	[RQ_OPC_DISCARD] = "discard",
	[RQ_OPC_SECURE_ERASE] = "secure_erase",
	[RQ_OPC_WRITE_ZEROES] = "write_zeroes",
};

const char *rq_op_class_name(enum rq_op_class op)
{
	return op < RQ_OPC_NR ? op_names[op] : "?";
}

const char *rq_trace_type_name(enum rq_trace_type type)
{
	return type < RQ_TEV_NR ? type_names[type] : "?";
}

static bool is_flag_letter(char c)
{
	return c == 'F' || c == 'A' || c == 'S' || c == 'M';
}

static bool is_op_start(char c)
{
	return c == 'R' || c == 'W' || c == 'D' || c == 'F' || c == 'N';
}

int rq_trace_parse_rwbs(const char *rwbs, enum rq_op_class *op,
			bool *preflush)
{
	const char *p = rwbs;

	*preflush = false;
	/* "F" then an op letter: REQ_PREFLUSH; "F" alone or "FS": flush. */
	if (p[0] == 'F' && is_op_start(p[1])) {
		*preflush = true;
		p++;
	}
	switch (*p++) {
	case 'R':
		*op = RQ_OPC_READ;
		break;
	case 'W':
		*op = RQ_OPC_WRITE;
		if (*p == 'Z') {
			*op = RQ_OPC_WRITE_ZEROES;
			p++;
		}
		break;
	case 'D':
		*op = RQ_OPC_DISCARD;
		if (*p == 'E') {
			*op = RQ_OPC_SECURE_ERASE;
			p++;
		}
		break;
	case 'F':
		*op = RQ_OPC_FLUSH;
		break;
	case 'N':
		*op = RQ_OPC_WRITE_ZEROES;
		break;
	default:
		return -1;
	}
	for (; *p; p++)
		if (!is_flag_letter(*p))
			return -1;
	return 0;
}

static enum rq_trace_parse bad(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static enum rq_trace_parse bad(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return RQ_TRACE_BAD;
}

/* "<digits>[.<digits>]:" exactly, from p to end.  Sets *t. */
static bool parse_timestamp(const char *p, const char *end, double *t)
{
	const char *q = p;
	bool dot = false;
	char buf[40];

	if (end - p < 2 || end[-1] != ':' || (size_t)(end - p) >= sizeof(buf))
		return false;
	for (; q < end - 1; q++) {
		if (*q == '.' && !dot && q > p && q + 1 < end - 1)
			dot = true;
		else if (!isdigit((unsigned char)*q))
			return false;
	}
	memcpy(buf, p, (size_t)(end - 1 - p));
	buf[end - 1 - p] = '\0';
	*t = strtod(buf, NULL);
	return true;
}

static const char *skip_blanks(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

static const char *token_end(const char *p)
{
	while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
		p++;
	return p;
}

/* An unsigned decimal number followed by a blank or sep; advances *pp. */
static bool parse_u64(const char **pp, uint64_t *out, char sep)
{
	const char *p = *pp;
	char *end;
	unsigned long long v;

	if (!isdigit((unsigned char)*p))
		return false;
	errno = 0;
	v = strtoull(p, &end, 10);
	if (errno || (*end != ' ' && *end != sep))
		return false;
	*out = v;
	*pp = end;
	return true;
}

static bool parse_uint(const char **pp, unsigned int *out, char sep)
{
	uint64_t v;

	if (!parse_u64(pp, &v, sep) || v > UINT32_MAX)
		return false;
	*out = (unsigned int)v;
	return true;
}

/* Find "<timestamp>: block_rq_<x>:"; returns the fields' start or NULL. */
static const char *find_event(const char *line, double *t, const char **name,
			      size_t *name_len)
{
	const char *p = skip_blanks(line);

	while (*p) {
		const char *e = token_end(p);
		const char *n, *ne;

		if (parse_timestamp(p, e, t)) {
			n = skip_blanks(e);
			ne = token_end(n);
			/* a comm like "42:" is not the timestamp: go on */
			if (ne - n >= 2 && ne[-1] == ':') {
				*name = n;
				*name_len = (size_t)(ne - 1 - n);
				return skip_blanks(ne);
			}
		}
		p = skip_blanks(e);
	}
	return NULL;
}

static int event_type(const char *name, size_t len, enum rq_trace_type *type)
{
	int i;

	for (i = 0; i < RQ_TEV_NR; i++)
		if (strlen(type_names[i]) == len && !strncmp(name, type_names[i], len)) {
			*type = (enum rq_trace_type)i;
			return 0;
		}
	return -1;
}

/* The 6.12 "class,hint,level": a word, two numbers, no blank. */
static bool is_ioprio(const char *p, const char *end)
{
	const char *c1 = memchr(p, ',', (size_t)(end - p));
	const char *c2;
	const char *q;

	if (!c1 || c1 == p)
		return false;
	for (q = p; q < c1; q++)
		if (!islower((unsigned char)*q))
			return false;
	c2 = memchr(c1 + 1, ',', (size_t)(end - c1 - 1));
	if (!c2 || c2 == c1 + 1 || c2 + 1 >= end)
		return false;
	for (q = c1 + 1; q < end; q++)
		if (q != c2 && !isdigit((unsigned char)*q))
			return false;
	return true;
}

enum rq_trace_parse rq_trace_parse_line(const char *line,
					struct rq_trace_event *ev,
					char *err, size_t errlen)
{
	const char *name, *p, *e, *close;
	size_t name_len;
	double t;

	memset(ev, 0, sizeof(*ev));
	if (*skip_blanks(line) == '#')
		return RQ_TRACE_SKIP;
	p = find_event(line, &t, &name, &name_len);
	if (!p || event_type(name, name_len, &ev->type))
		return RQ_TRACE_SKIP;
	ev->t = t;
	/* major,minor */
	if (!parse_uint(&p, &ev->major, ',') || *p != ',')
		return bad(err, errlen, "%s: no major,minor", type_names[ev->type]);
	p++;
	if (!parse_uint(&p, &ev->minor, ' ') || *p != ' ')
		return bad(err, errlen, "%s: no major,minor", type_names[ev->type]);
	/* rwbs */
	p = skip_blanks(p);
	e = token_end(p);
	if (e == p || (size_t)(e - p) >= sizeof(ev->rwbs))
		return bad(err, errlen, "%s: no rwbs", type_names[ev->type]);
	memcpy(ev->rwbs, p, (size_t)(e - p));
	if (rq_trace_parse_rwbs(ev->rwbs, &ev->op, &ev->preflush))
		return bad(err, errlen, "%s: unknown rwbs '%s'",
			   type_names[ev->type], ev->rwbs);
	p = skip_blanks(e);
	/* insert/issue/merge: the byte count */
	if (ev->type == RQ_TEV_INSERT || ev->type == RQ_TEV_ISSUE ||
	    ev->type == RQ_TEV_MERGE) {
		if (!parse_uint(&p, &ev->bytes, ' '))
			return bad(err, errlen, "%s: no byte count",
				   type_names[ev->type]);
		p = skip_blanks(p);
	}
	/* (cmd): empty on 6.x, anything up to the ") " on older kernels */
	if (*p != '(' || !(close = strstr(p, ") ")))
		return bad(err, errlen, "%s: no (cmd)", type_names[ev->type]);
	p = skip_blanks(close + 1);
	if (!parse_u64(&p, &ev->sector, ' '))
		return bad(err, errlen, "%s: no sector", type_names[ev->type]);
	p = skip_blanks(p);
	if (*p != '+' || p[1] != ' ')
		return bad(err, errlen, "%s: no '+' after the sector",
			   type_names[ev->type]);
	p = skip_blanks(p + 1);
	if (!parse_uint(&p, &ev->nr_sectors, ' '))
		return bad(err, errlen, "%s: no sector count",
			   type_names[ev->type]);
	p = skip_blanks(p);
	e = token_end(p);
	if (*p != '[' && e > p && is_ioprio(p, e)) {
		ev->has_ioprio = true;
		p = skip_blanks(e);
	}
	if (*p != '[')
		return bad(err, errlen, "%s: no [...] after the size",
			   type_names[ev->type]);
	if (ev->type == RQ_TEV_COMPLETE || ev->type == RQ_TEV_ERROR ||
	    ev->type == RQ_TEV_REQUEUE) {
		char *end;
		long x;

		errno = 0;
		x = strtol(p + 1, &end, 10);
		if (errno || end == p + 1 || *end != ']')
			return bad(err, errlen, "%s: no [error]",
				   type_names[ev->type]);
		ev->error = (int)x;
	}
	return RQ_TRACE_EVENT;
}

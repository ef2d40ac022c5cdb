// SPDX-License-Identifier: GPL-2.0
/*
 * Path states of a request-based dm map.  No I/O: see rq_mapstate.h.
 */
#include "rq_mapstate.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cursor {
	const char *p;
};

/* The next blank-separated word into buf; false at the end. */
static bool word(struct cursor *c, char *buf, size_t len)
{
	size_t n;

	while (*c->p == ' ' || *c->p == '\t' || *c->p == '\n')
		c->p++;
	if (!*c->p)
		return false;
	n = strcspn(c->p, " \t\n");
	if (n >= len)
		n = len - 1;
	memcpy(buf, c->p, n);
	buf[n] = '\0';
	c->p += strcspn(c->p, " \t\n");
	return true;
}

static bool number(struct cursor *c, unsigned long *out)
{
	char buf[32], *end;

	if (!word(c, buf, sizeof(buf)))
		return false;
	errno = 0;
	*out = strtoul(buf, &end, 10);
	return !errno && end != buf && !*end && buf[0] != '-';
}

static bool skip(struct cursor *c, unsigned long n)
{
	char buf[128];

	while (n--)
		if (!word(c, buf, sizeof(buf)))
			return false;
	return true;
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* A leading "<start> <length> multipath " as dmsetup prints it. */
static const char *skip_dmsetup_prefix(const char *line)
{
	struct cursor c = { line };
	char a[32], b[32], t[32];
	unsigned long x;

	if (!word(&c, a, sizeof(a)) || !word(&c, b, sizeof(b)) ||
	    !word(&c, t, sizeof(t)) || strcmp(t, "multipath"))
		return line;
	c.p = line;
	if (!number(&c, &x) || !number(&c, &x))
		return line;
	word(&c, t, sizeof(t));
	return c.p;
}

static int table_queue_if_no_path(const char *table)
{
	struct cursor c = { skip_dmsetup_prefix(table) };
	unsigned long n, i;
	char buf[64];

	if (!number(&c, &n))
		return -1;
	for (i = 0; i < n; i++) {
		if (!word(&c, buf, sizeof(buf)))
			return -1;
		if (!strcmp(buf, "queue_if_no_path"))
			return 1;
	}
	return 0;
}

int rq_mapstate_parse_multipath(const char *status, const char *table,
				struct rq_map_state *ms, char *err,
				size_t errlen)
{
	struct cursor c = { skip_dmsetup_prefix(status) };
	unsigned long nf, qio, n, npg, pg, g, np, ninfo, nps, i;
	char buf[64];

	memset(ms, 0, sizeof(*ms));
	snprintf(ms->target, sizeof(ms->target), "multipath");
	ms->queue_if_no_path = -1;
	ms->queue_io = -1;
	if (!number(&c, &nf) || nf < 1 || !number(&c, &qio) || !skip(&c, nf - 1))
		return fail(err, errlen, "multipath status: bad features");
	ms->queue_io = qio ? 1 : 0;
	if (!number(&c, &n) || !skip(&c, n))
		return fail(err, errlen, "multipath status: bad hardware handler");
	if (!number(&c, &npg) || !number(&c, &pg))
		return fail(err, errlen, "multipath status: no group count");
	for (g = 0; g < npg; g++) {
		if (!word(&c, buf, sizeof(buf)) || strlen(buf) != 1 ||
		    !strchr("AED", buf[0]))
			return fail(err, errlen, "multipath status: group %lu: bad state", g + 1);
		if (!number(&c, &nps) || !skip(&c, nps) || !number(&c, &np) ||
		    !number(&c, &ninfo))
			return fail(err, errlen, "multipath status: group %lu: bad counts", g + 1);
		for (i = 0; i < np; i++) {
			struct rq_map_path *p = &ms->paths[ms->nr_paths];
			unsigned long fc;
			char st[8];

			if (!word(&c, buf, sizeof(buf)) || !word(&c, st, sizeof(st)) ||
			    !number(&c, &fc) || !skip(&c, ninfo))
				return fail(err, errlen, "multipath status: group %lu path %lu cut short",
					    g + 1, i + 1);
			if (strcmp(st, "A") && strcmp(st, "F"))
				return fail(err, errlen, "multipath status: path %s: state '%s'", buf, st);
			if (ms->nr_paths == RQ_MAP_MAX_PATHS)
				continue;
			snprintf(p->dev, sizeof(p->dev), "%s", buf);
			if (rq_parse_dev(buf, strlen(buf), &p->major, &p->minor))
				return fail(err, errlen, "multipath status: path '%s' is not major:minor", buf);
			p->active = !strcmp(st, "A");
			p->fail_count = (unsigned int)fc;
			ms->nr_active += p->active;
			ms->nr_paths++;
		}
	}
	(void)pg;
	if (table)
		ms->queue_if_no_path = table_queue_if_no_path(table);
	return 0;
}

void rq_mapstate_from_rqpath(const struct rq_status *st,
			     struct rq_map_state *ms)
{
	unsigned int i;

	memset(ms, 0, sizeof(*ms));
	snprintf(ms->target, sizeof(ms->target), "rqpath");
	ms->queue_io = -1;
	ms->queue_if_no_path = st->queue_if_no_path ? 1 : 0;
	for (i = 0; i < st->nr_paths && i < RQ_MAP_MAX_PATHS; i++) {
		struct rq_map_path *p = &ms->paths[i];

		snprintf(p->dev, sizeof(p->dev), "%s", st->paths[i].dev);
		p->major = st->paths[i].major;
		p->minor = st->paths[i].minor;
		p->active = !st->paths[i].failed;
		p->fail_count = (unsigned int)st->paths[i].fail_count;
		ms->nr_active += p->active;
		ms->nr_paths++;
	}
}

bool rq_mapstate_path_active(const struct rq_map_state *ms,
			     unsigned int major, unsigned int minor)
{
	unsigned int i;

	for (i = 0; i < ms->nr_paths; i++)
		if (ms->paths[i].major == major && ms->paths[i].minor == minor)
			return ms->paths[i].active;
	return false;
}

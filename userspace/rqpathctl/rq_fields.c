// SPDX-License-Identifier: GPL-2.0
/*
 * status --fields: see rq_fields.h.  One DM_DEVICE_STATUS line in, shell
 * assignments out; no JSON on the way, so scripts can poll it cheaply.
 *
 * A value the line does not carry (refused and the per-op
 * busy_since_completion of an older target, a path beyond nr_paths, an op
 * the line does not have) is printed empty, never as 0.
 */
#include "rq_fields.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

/* Device-wide values and totals, in the order "all" prints them. */
enum device_value {
	DEV_NR_PATHS,
	DEV_NR_ACTIVE,
	DEV_QUEUE_IF_NO_PATH,
	DEV_IN_FLIGHT,
	DEV_BUSY_SINCE_COMPLETION,
	DEV_NO_PATH_REQUEUES,
	DEV_NO_CLONE_REQUEUES,
	DEV_MAPPED,
	DEV_BUSY,
	DEV_COMPLETED,
	DEV_ERRORS,
	DEV_REFUSED,
	DEV_PATHS,
	NR_DEVICE_VALUES,
};

static const char *const device_names[NR_DEVICE_VALUES] = {
	[DEV_NR_PATHS] = "nr_paths",
	[DEV_NR_ACTIVE] = "nr_active",
	[DEV_QUEUE_IF_NO_PATH] = "queue_if_no_path",
	[DEV_IN_FLIGHT] = "in_flight",
	[DEV_BUSY_SINCE_COMPLETION] = "busy_since_completion",
	[DEV_NO_PATH_REQUEUES] = "no_path_requeues",
	[DEV_NO_CLONE_REQUEUES] = "no_clone_requeues",
	[DEV_MAPPED] = "mapped",
	[DEV_BUSY] = "busy",
	[DEV_COMPLETED] = "completed",
	[DEV_ERRORS] = "errors",
	[DEV_REFUSED] = "refused",
	[DEV_PATHS] = "paths",
};

enum op_counter {
	OP_MAPPED,
	OP_BUSY,
	OP_COMPLETED,
	OP_ERRORS,
	OP_REFUSED,
	OP_BUSY_SINCE_COMPLETION,
	NR_OP_COUNTERS,
};

static const char *const op_counter_names[NR_OP_COUNTERS] = {
	[OP_MAPPED] = "mapped",
	[OP_BUSY] = "busy",
	[OP_COMPLETED] = "completed",
	[OP_ERRORS] = "errors",
	[OP_REFUSED] = "refused",
	[OP_BUSY_SINCE_COMPLETION] = "busy_since_completion",
};

/* The ops of the contract; "all" also lists ops a newer line adds. */
static const char *const contract_ops[] = {
	"read", "write", "flush", "discard", "write_zeroes", "other",
};

enum path_attr {
	PATH_DEV,
	PATH_STATE,
	PATH_FAIL_COUNT,
	PATH_DISPATCHED,
	NR_PATH_ATTRS,
};

static const char *const path_attr_names[NR_PATH_ATTRS] = {
	[PATH_DEV] = "dev",
	[PATH_STATE] = "state",
	[PATH_FAIL_COUNT] = "fail_count",
	[PATH_DISPATCHED] = "dispatched",
};

#define NR_OF(a) (sizeof(a) / sizeof((a)[0]))

static void set_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static int find_name(const char *const names[], unsigned int nr,
		     const char *name)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		if (!strcmp(names[i], name))
			return (int)i;
	return -1;
}

static bool parse_device_field(const char *name, struct rq_field *f)
{
	int i = find_name(device_names, NR_DEVICE_VALUES, name);

	if (i < 0)
		return false;
	f->kind = RQ_FIELD_DEVICE;
	f->which = (unsigned int)i;
	return true;
}

/* "write_zeroes_busy": an op of the contract, "_", a counter. */
static bool parse_op_field(const char *name, struct rq_field *f)
{
	size_t i;

	for (i = 0; i < NR_OF(contract_ops); i++) {
		size_t len = strlen(contract_ops[i]);
		int c;

		if (strncmp(name, contract_ops[i], len) || name[len] != '_')
			continue;
		c = find_name(op_counter_names, NR_OP_COUNTERS,
			      name + len + 1);
		if (c < 0)
			continue;	/* "write" may be "write_zeroes" */
		f->kind = RQ_FIELD_OP;
		f->which = (unsigned int)c;
		snprintf(f->op, sizeof(f->op), "%s", contract_ops[i]);
		return true;
	}
	return false;
}

/* "path12_state": 1 to RQ_MAX_PATHS, no leading zero. */
static bool parse_path_field(const char *name, struct rq_field *f)
{
	const char *p = name + strlen("path");
	unsigned int n = 0;
	int attr;

	if (strncmp(name, "path", 4) || *p < '1' || *p > '9')
		return false;
	while (isdigit((unsigned char)*p) && n <= RQ_MAX_PATHS)
		n = n * 10 + (unsigned int)(*p++ - '0');
	if (n > RQ_MAX_PATHS || *p != '_')
		return false;
	attr = find_name(path_attr_names, NR_PATH_ATTRS, p + 1);
	if (attr < 0)
		return false;
	f->kind = RQ_FIELD_PATH;
	f->which = (unsigned int)attr;
	f->path = n;
	return true;
}

static bool parse_one(const char *name, struct rq_field *f)
{
	memset(f, 0, sizeof(*f));
	if (!strcmp(name, "all")) {
		f->kind = RQ_FIELD_ALL;
		return true;
	}
	return parse_device_field(name, f) || parse_op_field(name, f) ||
	       parse_path_field(name, f);
}

static bool has_upper(const char *s)
{
	for (; *s; s++)
		if (isupper((unsigned char)*s))
			return true;
	return false;
}

int rq_fields_parse(const char *list, struct rq_field_list *out, char *err,
		    size_t errlen)
{
	const char *p = list ? list : "";

	out->nr = 0;
	for (;;) {
		size_t len = strcspn(p, ",");
		char name[RQ_FIELD_LEN];

		if (!len) {
			set_err(err, errlen, "empty field name in '%s'", list);
			return -1;
		}
		if (out->nr == RQ_FIELDS_MAX) {
			set_err(err, errlen, "more than %d fields",
				RQ_FIELDS_MAX);
			return -1;
		}
		snprintf(name, sizeof(name), "%.*s", (int)len, p);
		if (len >= sizeof(name) ||
		    !parse_one(name, &out->fields[out->nr])) {
			set_err(err, errlen, "unknown field '%.*s'%s",
				(int)len, p, has_upper(name) ?
				" (field names are lower case)" : "");
			return -1;
		}
		out->nr++;
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

/* ---- printing ------------------------------------------------------------ */

static bool is_plain(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("._:-", *s))
			return false;
	return true;
}

void rq_shell_quote(FILE *out, const char *value)
{
	if (is_plain(value)) {
		fputs(value, out);
		return;
	}
	fputc('\'', out);
	for (; *value; value++) {
		if (*value == '\'')
			fputs("'\\''", out);
		else
			fputc(*value, out);
	}
	fputc('\'', out);
}

/* RQ_ and the name in upper case, "=", the value quoted. */
static void print_assignment(FILE *out, const char *name, const char *value)
{
	fputs("RQ_", out);
	for (; *name; name++)
		fputc(toupper((unsigned char)*name), out);
	fputc('=', out);
	rq_shell_quote(out, value);
	fputc('\n', out);
}

static void u64_text(char *buf, size_t len, uint64_t v)
{
	snprintf(buf, len, "%" PRIu64, v);
}

static unsigned int nr_active(const struct rq_status *st)
{
	unsigned int i, n = 0;

	for (i = 0; i < st->nr_paths; i++)
		n += !st->paths[i].failed;
	return n;
}

/* "8:16:A 8:32:F"; buf holds RQ_MAX_PATHS of them. */
static void paths_text(char *buf, size_t len, const struct rq_status *st)
{
	size_t used = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < st->nr_paths && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s:%c",
					 i ? " " : "", st->paths[i].dev,
					 st->paths[i].failed ? 'F' : 'A');
}

#define VALUE_LEN (RQ_MAX_PATHS * (RQ_DEV_LEN + 3))

static void device_value(char *buf, size_t len, unsigned int which,
			 const struct rq_status *st)
{
	struct rq_op_counters total = rq_status_totals(st);
	const uint64_t numbers[] = {
		[DEV_NR_PATHS] = st->nr_paths,
		[DEV_NR_ACTIVE] = nr_active(st),
		[DEV_QUEUE_IF_NO_PATH] = st->queue_if_no_path,
		[DEV_IN_FLIGHT] = st->in_flight,
		[DEV_BUSY_SINCE_COMPLETION] = st->busy_since_completion,
		[DEV_NO_PATH_REQUEUES] = st->no_path_requeues,
		[DEV_NO_CLONE_REQUEUES] = st->no_clone_requeues,
		[DEV_MAPPED] = total.mapped,
		[DEV_BUSY] = total.busy,
		[DEV_COMPLETED] = total.completed,
		[DEV_ERRORS] = total.errors,
		[DEV_REFUSED] = total.refused,
	};

	buf[0] = '\0';
	if (which == DEV_PATHS)
		paths_text(buf, len, st);
	else if (which != DEV_REFUSED || st->has_op_details)
		u64_text(buf, len, numbers[which]);
}

static void op_value(char *buf, size_t len, const struct rq_op_counters *op,
		     unsigned int which, bool details)
{
	const uint64_t numbers[] = {
		[OP_MAPPED] = op->mapped,
		[OP_BUSY] = op->busy,
		[OP_COMPLETED] = op->completed,
		[OP_ERRORS] = op->errors,
		[OP_REFUSED] = op->refused,
		[OP_BUSY_SINCE_COMPLETION] = op->busy_since_completion,
	};

	buf[0] = '\0';
	if (which < OP_REFUSED || details)
		u64_text(buf, len, numbers[which]);
}

static void path_value(char *buf, size_t len,
		       const struct rq_path_status *path, unsigned int which)
{
	switch (which) {
	case PATH_DEV:
		snprintf(buf, len, "%s", path->dev);
		break;
	case PATH_STATE:
		snprintf(buf, len, "%c", path->failed ? 'F' : 'A');
		break;
	case PATH_FAIL_COUNT:
		u64_text(buf, len, path->fail_count);
		break;
	default:
		u64_text(buf, len, path->dispatched);
		break;
	}
}

static void print_op_field(FILE *out, const char *op_name,
			   const struct rq_op_counters *op, unsigned int which,
			   bool details)
{
	char name[RQ_OP_NAME_LEN + RQ_FIELD_LEN];
	char value[VALUE_LEN] = "";

	snprintf(name, sizeof(name), "%s_%s", op_name,
		 op_counter_names[which]);
	if (op)
		op_value(value, sizeof(value), op, which, details);
	print_assignment(out, name, value);
}

static void print_path_field(FILE *out, const struct rq_status *st,
			     unsigned int path, unsigned int which)
{
	char name[RQ_FIELD_LEN];
	char value[VALUE_LEN] = "";

	snprintf(name, sizeof(name), "path%u_%s", path,
		 path_attr_names[which]);
	if (path >= 1 && path <= st->nr_paths)
		path_value(value, sizeof(value), &st->paths[path - 1], which);
	print_assignment(out, name, value);
}

static void print_device_field(FILE *out, const struct rq_status *st,
			       unsigned int which)
{
	char value[VALUE_LEN];

	device_value(value, sizeof(value), which, st);
	print_assignment(out, device_names[which], value);
}

/* Device values, then every op of the line, then every path. */
static void print_all(FILE *out, const struct rq_status *st)
{
	unsigned int i, c;

	for (i = 0; i < NR_DEVICE_VALUES; i++)
		print_device_field(out, st, i);
	for (i = 0; i < st->nr_ops_kept; i++)
		for (c = 0; c < NR_OP_COUNTERS; c++)
			print_op_field(out, st->ops[i].name, &st->ops[i], c,
				       st->has_op_details);
	for (i = 1; i <= st->nr_paths; i++)
		for (c = 0; c < NR_PATH_ATTRS; c++)
			print_path_field(out, st, i, c);
}

void rq_fields_print(FILE *out, const struct rq_field_list *list,
		     const struct rq_status *st)
{
	unsigned int i;

	for (i = 0; i < list->nr; i++) {
		const struct rq_field *f = &list->fields[i];

		switch (f->kind) {
		case RQ_FIELD_ALL:
			print_all(out, st);
			break;
		case RQ_FIELD_DEVICE:
			print_device_field(out, st, f->which);
			break;
		case RQ_FIELD_OP:
			print_op_field(out, f->op,
				       rq_status_find_op(st, f->op), f->which,
				       st->has_op_details);
			break;
		case RQ_FIELD_PATH:
			print_path_field(out, st, f->path, f->which);
			break;
		}
	}
}

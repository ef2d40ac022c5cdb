// SPDX-License-Identifier: GPL-2.0
/*
 * Status and table line parsers for the rqpath target.
 *
 * The format is fixed by dm-target/README.md.  The parser is strict about
 * every field it knows (a truncated or garbled line must not turn into
 * plausible counters) and lenient about what the contract allows to grow:
 * <nr_ops> op groups with any names, and any fields after the last group.
 *
 * The last known group, <nr_ops> (<op> <refused>
 * <busy_since_completion>){nr_ops}, is optional (older targets end before
 * it), but when anything follows the first op groups it must be that
 * group, whole, with the same count and names in the same order: a line
 * whose tail is garbled must not pass as an older one.
 */
#include "rq_status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* A walk over the white-space separated fields of one line. */
struct cursor {
	const char *pos;
	unsigned int field;		/* 1-based number of the last field read */
	char *err;
	size_t errlen;
};

struct token {
	const char *text;
	size_t len;
};

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static const char *skip_blanks(const char *p)
{
	while (*p && is_blank(*p))
		p++;
	return p;
}

static bool next_token(struct cursor *c, struct token *tok)
{
	const char *p = skip_blanks(c->pos);

	if (!*p)
		return false;
	tok->text = p;
	while (*p && !is_blank(*p))
		p++;
	tok->len = (size_t)(p - tok->text);
	c->pos = p;
	c->field++;
	return true;
}

static void fail(struct cursor *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void fail(struct cursor *c, const char *fmt, ...)
{
	va_list ap;

	if (!c->err || !c->errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(c->err, c->errlen, fmt, ap);
	va_end(ap);
}

/* Fetch the next field or explain that the line ended before <what>. */
static bool need_token(struct cursor *c, struct token *tok, const char *what)
{
	if (next_token(c, tok))
		return true;
	fail(c, "line ends after field %u, %s missing", c->field, what);
	return false;
}

static bool token_is(const struct token *tok, const char *word)
{
	return tok->len == strlen(word) && !memcmp(tok->text, word, tok->len);
}

/* Decimal digits only: no sign, no blanks, no hex, no overflow. */
static bool token_to_u64(const struct token *tok, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (!tok->len)
		return false;
	for (i = 0; i < tok->len; i++) {
		unsigned int digit;

		if (tok->text[i] < '0' || tok->text[i] > '9')
			return false;
		digit = (unsigned int)(tok->text[i] - '0');
		if (v > (UINT64_MAX - digit) / 10)
			return false;
		v = v * 10 + digit;
	}
	*out = v;
	return true;
}

static bool read_u64(struct cursor *c, const char *what, uint64_t *out)
{
	struct token tok;

	if (!need_token(c, &tok, what))
		return false;
	if (token_to_u64(&tok, out))
		return true;
	fail(c, "field %u (%s): expected an unsigned number, got '%.*s'",
	     c->field, what, (int)tok.len, tok.text);
	return false;
}

static bool read_count(struct cursor *c, const char *what, unsigned int min,
		       unsigned int max, unsigned int *out)
{
	uint64_t v;

	if (!read_u64(c, what, &v))
		return false;
	if (v < min || v > max) {
		fail(c, "field %u (%s): %llu is out of range %u..%u", c->field,
		     what, (unsigned long long)v, min, max);
		return false;
	}
	*out = (unsigned int)v;
	return true;
}

int rq_parse_dev(const char *text, size_t len, unsigned int *major,
		 unsigned int *minor)
{
	const char *colon = memchr(text, ':', len);
	struct token maj, min;
	uint64_t a, b;

	if (!colon)
		return -1;
	maj.text = text;
	maj.len = (size_t)(colon - text);
	min.text = colon + 1;
	min.len = len - maj.len - 1;
	if (!token_to_u64(&maj, &a) || !token_to_u64(&min, &b))
		return -1;
	if (a > UINT32_MAX || b > UINT32_MAX)
		return -1;
	*major = (unsigned int)a;
	*minor = (unsigned int)b;
	return 0;
}

static bool read_dev(struct cursor *c, const char *what, char dev[RQ_DEV_LEN],
		     unsigned int *major, unsigned int *minor)
{
	struct token tok;

	if (!need_token(c, &tok, what))
		return false;
	if (tok.len >= RQ_DEV_LEN ||
	    rq_parse_dev(tok.text, tok.len, major, minor)) {
		fail(c, "field %u (%s): expected major:minor, got '%.*s'",
		     c->field, what, (int)tok.len, tok.text);
		return false;
	}
	memcpy(dev, tok.text, tok.len);
	dev[tok.len] = '\0';
	return true;
}

static bool read_path_state(struct cursor *c, const char *what, bool *failed)
{
	struct token tok;

	if (!need_token(c, &tok, what))
		return false;
	if (token_is(&tok, "A") || token_is(&tok, "F")) {
		*failed = tok.text[0] == 'F';
		return true;
	}
	fail(c, "field %u (%s): expected A or F, got '%.*s'", c->field, what,
	     (int)tok.len, tok.text);
	return false;
}

static bool read_flag01(struct cursor *c, const char *what, bool *out)
{
	struct token tok;

	if (!need_token(c, &tok, what))
		return false;
	if (token_is(&tok, "0") || token_is(&tok, "1")) {
		*out = tok.text[0] == '1';
		return true;
	}
	fail(c, "field %u (%s): expected 0 or 1, got '%.*s'", c->field, what,
	     (int)tok.len, tok.text);
	return false;
}

/*
 * Op and feature names are identifiers.  Insisting on a leading letter is
 * what catches a wrong <nr_ops>: a count that is too large makes the parser
 * read a number where a name should be.
 */
static bool token_is_identifier(const struct token *tok)
{
	size_t i;

	if (!tok->len || tok->text[0] < 'a' || tok->text[0] > 'z')
		return false;
	for (i = 1; i < tok->len; i++) {
		char ch = tok->text[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
		      ch == '_'))
			return false;
	}
	return true;
}

static bool read_name(struct cursor *c, const char *what,
		      char name[RQ_OP_NAME_LEN])
{
	struct token tok;

	if (!need_token(c, &tok, what))
		return false;
	if (!token_is_identifier(&tok) || tok.len >= RQ_OP_NAME_LEN) {
		fail(c, "field %u (%s): expected a lower-case name, got '%.*s'",
		     c->field, what, (int)tok.len, tok.text);
		return false;
	}
	memcpy(name, tok.text, tok.len);
	name[tok.len] = '\0';
	return true;
}

/*
 * dmsetup prints "<start> <length> rqpath <params>"; libdevmapper hands us
 * only <params>.  Accept both so a line pasted from dmsetup parses too.  The
 * two forms cannot be confused: the second field of <params> is a
 * major:minor, never a plain number, and a target type is a name.
 */
static bool skip_target_prefix(struct cursor *c)
{
	struct cursor peek = *c;
	struct token start, length, type;
	uint64_t unused;

	if (!next_token(&peek, &start) || !next_token(&peek, &length) ||
	    !next_token(&peek, &type))
		return true;
	if (!token_to_u64(&start, &unused) || !token_to_u64(&length, &unused) ||
	    type.text[0] < 'a' || type.text[0] > 'z')
		return true;
	if (!token_is(&type, "rqpath")) {
		fail(c, "field 3: target type is '%.*s', not rqpath",
		     (int)type.len, type.text);
		return false;
	}
	*c = peek;
	c->field = 0;	/* count fields of <params> only, as README does */
	return true;
}

static void cursor_init(struct cursor *c, const char *line, char *err,
			size_t errlen)
{
	c->pos = line ? line : "";
	c->field = 0;
	c->err = err;
	c->errlen = errlen;
	if (err && errlen)
		err[0] = '\0';
}

static bool read_path(struct cursor *c, unsigned int index,
		      struct rq_path_status *path)
{
	char what[48];

	snprintf(what, sizeof(what), "device of path %u", index + 1);
	if (!read_dev(c, what, path->dev, &path->major, &path->minor))
		return false;
	snprintf(what, sizeof(what), "state of path %u", index + 1);
	if (!read_path_state(c, what, &path->failed))
		return false;
	snprintf(what, sizeof(what), "fail_count of path %u", index + 1);
	if (!read_u64(c, what, &path->fail_count))
		return false;
	snprintf(what, sizeof(what), "dispatched of path %u", index + 1);
	return read_u64(c, what, &path->dispatched);
}

static bool read_op_group(struct cursor *c, unsigned int index,
			  struct rq_op_counters *op)
{
	char what[48];

	snprintf(what, sizeof(what), "name of op group %u", index + 1);
	if (!read_name(c, what, op->name))
		return false;
	snprintf(what, sizeof(what), "mapped of op %s", op->name);
	if (!read_u64(c, what, &op->mapped))
		return false;
	snprintf(what, sizeof(what), "busy of op %s", op->name);
	if (!read_u64(c, what, &op->busy))
		return false;
	snprintf(what, sizeof(what), "completed of op %s", op->name);
	if (!read_u64(c, what, &op->completed))
		return false;
	snprintf(what, sizeof(what), "errors of op %s", op->name);
	return read_u64(c, what, &op->errors);
}

static bool op_name_seen(const struct rq_status *st, unsigned int kept,
			 const char *name)
{
	unsigned int i;

	for (i = 0; i < kept; i++)
		if (!strcmp(st->ops[i].name, name))
			return true;
	return false;
}

static bool read_op_groups(struct cursor *c, struct rq_status *st,
			   struct cursor *first_name)
{
	unsigned int i;

	if (!read_count(c, "nr_ops", 1, RQ_MAX_NR_OPS, &st->nr_ops))
		return false;
	*first_name = *c;
	for (i = 0; i < st->nr_ops; i++) {
		struct rq_op_counters op;

		/* refused, busy_since_completion: the trailing group's */
		memset(&op, 0, sizeof(op));
		if (!read_op_group(c, i, &op))
			return false;
		if (i >= RQ_MAX_OPS)
			continue;	/* parsed for validity, not kept */
		if (op_name_seen(st, st->nr_ops_kept, op.name)) {
			fail(c, "field %u: op '%s' appears twice",
			     c->field - 4, op.name);
			return false;
		}
		st->ops[st->nr_ops_kept++] = op;
	}
	return true;
}

/*
 * The name of the next op of the first groups: walks a copy of the cursor
 * that read them, so that ops beyond RQ_MAX_OPS (parsed, not kept) are
 * checked too.  That part of the line is known to be well-formed.
 */
static void next_first_name(struct cursor *names, struct token *name)
{
	struct token counter;
	int i;

	next_token(names, name);
	for (i = 0; i < 4; i++)
		next_token(names, &counter);
}

static bool read_detail_name(struct cursor *c, unsigned int index,
			     const struct token *want)
{
	struct token tok;
	char what[64];

	snprintf(what, sizeof(what),
		 "name of op group %u of the trailing group", index + 1);
	if (!need_token(c, &tok, what))
		return false;
	if (tok.len == want->len && !memcmp(tok.text, want->text, tok.len))
		return true;
	fail(c, "field %u (%s): expected '%.*s', got '%.*s' (the same ops in "
	     "the same order as the first op groups)", c->field, what,
	     (int)want->len, want->text, (int)tok.len, tok.text);
	return false;
}

static bool read_detail_group(struct cursor *c, unsigned int index,
			      const struct token *name, uint64_t *refused,
			      uint64_t *busy_since_completion)
{
	char what[64];

	if (!read_detail_name(c, index, name))
		return false;
	snprintf(what, sizeof(what), "refused of op %.*s", (int)name->len,
		 name->text);
	if (!read_u64(c, what, refused))
		return false;
	snprintf(what, sizeof(what), "busy_since_completion of op %.*s",
		 (int)name->len, name->text);
	return read_u64(c, what, busy_since_completion);
}

static bool read_detail_count(struct cursor *c, const struct rq_status *st)
{
	const char *what = "nr_ops of the trailing group";
	uint64_t count;

	if (!read_u64(c, what, &count))
		return false;
	if (count != st->nr_ops) {
		fail(c, "field %u (%s): %llu does not match <nr_ops> %u",
		     c->field, what, (unsigned long long)count, st->nr_ops);
		return false;
	}
	return true;
}

/* The optional trailing (<op> <refused> <busy_since_completion>) group. */
static bool read_op_details(struct cursor *c, struct rq_status *st,
			    struct cursor names)
{
	struct cursor peek = *c;
	struct token tok;
	unsigned int i;

	if (!next_token(&peek, &tok))
		return true;	/* an older target: the line ends here */
	if (!read_detail_count(c, st))
		return false;
	for (i = 0; i < st->nr_ops; i++) {
		struct token name;
		uint64_t refused, since;

		next_first_name(&names, &name);
		if (!read_detail_group(c, i, &name, &refused, &since))
			return false;
		if (i >= RQ_MAX_OPS)
			continue;	/* checked, not kept, as above */
		st->ops[i].refused = refused;
		st->ops[i].busy_since_completion = since;
	}
	st->has_op_details = true;
	return true;
}

/*
 * Copy what is left of the line into a bounded buffer and count its
 * fields; used for fields that a newer target may add.
 */
static unsigned int keep_rest(struct cursor *c, char *buf, size_t len)
{
	size_t used = 0;
	unsigned int count = 0;
	struct token tok;

	buf[0] = '\0';
	while (next_token(c, &tok)) {
		size_t need = tok.len + (used ? 1 : 0);

		count++;
		if (used + need >= len)
			continue;	/* keep counting, stop copying */
		if (used)
			buf[used++] = ' ';
		memcpy(buf + used, tok.text, tok.len);
		used += tok.len;
		buf[used] = '\0';
	}
	return count;
}

int rq_status_parse(const char *line, struct rq_status *st, char *err,
		    size_t errlen)
{
	struct cursor c, first_name;
	unsigned int i;

	memset(st, 0, sizeof(*st));
	cursor_init(&c, line, err, errlen);
	if (!skip_target_prefix(&c))
		return -1;
	if (!read_count(&c, "nr_paths", 1, RQ_MAX_PATHS, &st->nr_paths))
		return -1;
	for (i = 0; i < st->nr_paths; i++)
		if (!read_path(&c, i, &st->paths[i]))
			return -1;
	if (!read_flag01(&c, "queue_if_no_path", &st->queue_if_no_path) ||
	    !read_u64(&c, "in_flight", &st->in_flight) ||
	    !read_u64(&c, "busy_since_completion",
		      &st->busy_since_completion) ||
	    !read_u64(&c, "no_path_requeues", &st->no_path_requeues) ||
	    !read_u64(&c, "no_clone_requeues", &st->no_clone_requeues))
		return -1;
	if (!read_op_groups(&c, st, &first_name) ||
	    !read_op_details(&c, st, first_name))
		return -1;
	st->nr_extra_fields = keep_rest(&c, st->extra_fields,
					sizeof(st->extra_fields));
	return 0;
}

static bool read_features(struct cursor *c, struct rq_table *table)
{
	unsigned int i;
	size_t used = 0;

	if (!read_count(c, "nr_features", 0, RQ_MAX_FEATURES,
			&table->nr_features))
		return false;
	for (i = 0; i < table->nr_features; i++) {
		struct token tok;

		if (!need_token(c, &tok, "feature"))
			return false;
		if (token_is(&tok, "queue_if_no_path")) {
			table->queue_if_no_path = true;
			continue;
		}
		/*
		 * A feature this version does not know (perhaps one with
		 * arguments): keep its text rather than guess its meaning.
		 */
		table->nr_unknown_features++;
		if (used + tok.len + 1 >= sizeof(table->unknown_features))
			continue;
		if (used)
			table->unknown_features[used++] = ' ';
		memcpy(table->unknown_features + used, tok.text, tok.len);
		used += tok.len;
		table->unknown_features[used] = '\0';
	}
	return true;
}

int rq_table_parse(const char *line, struct rq_table *table, char *err,
		   size_t errlen)
{
	struct cursor c;
	struct token extra;
	unsigned int i;

	memset(table, 0, sizeof(*table));
	cursor_init(&c, line, err, errlen);
	if (!skip_target_prefix(&c))
		return -1;
	if (!read_count(&c, "nr_paths", 1, RQ_MAX_PATHS, &table->nr_paths))
		return -1;
	for (i = 0; i < table->nr_paths; i++) {
		char what[32];
		unsigned int major, minor;

		snprintf(what, sizeof(what), "device of path %u", i + 1);
		if (!read_dev(&c, what, table->paths[i], &major, &minor))
			return -1;
	}
	/* The canonical form always prints <nr_features>. */
	if (!read_features(&c, table))
		return -1;
	/* The constructor refuses anything after the features. */
	if (next_token(&c, &extra)) {
		fail(&c, "field %u: unexpected '%.*s' after the features",
		     c.field, (int)extra.len, extra.text);
		return -1;
	}
	return 0;
}

static bool has_blank(const char *s)
{
	for (; *s; s++)
		if (is_blank(*s))
			return true;
	return false;
}

int rq_table_params_format(char *buf, size_t len, unsigned int nr_paths,
			   const char *const paths[], bool queue_if_no_path)
{
	size_t used;
	unsigned int i;
	int n;

	if (!len || nr_paths < 1 || nr_paths > RQ_MAX_PATHS)
		return -1;
	n = snprintf(buf, len, "%u", nr_paths);
	if (n < 0 || (size_t)n >= len)
		return -1;
	used = (size_t)n;
	for (i = 0; i < nr_paths; i++) {
		/* The table is split on white space: such a path cannot work. */
		if (!paths[i] || !paths[i][0] || has_blank(paths[i]))
			return -1;
		n = snprintf(buf + used, len - used, " %s", paths[i]);
		if (n < 0 || (size_t)n >= len - used)
			return -1;
		used += (size_t)n;
	}
	if (queue_if_no_path) {
		n = snprintf(buf + used, len - used, " 1 queue_if_no_path");
		if (n < 0 || (size_t)n >= len - used)
			return -1;
	}
	return 0;
}

struct rq_op_counters rq_status_totals(const struct rq_status *st)
{
	struct rq_op_counters sum;
	unsigned int i;

	memset(&sum, 0, sizeof(sum));
	snprintf(sum.name, sizeof(sum.name), "total");
	for (i = 0; i < st->nr_ops_kept; i++) {
		sum.mapped += st->ops[i].mapped;
		sum.busy += st->ops[i].busy;
		sum.completed += st->ops[i].completed;
		sum.errors += st->ops[i].errors;
		sum.refused += st->ops[i].refused;
	}
	return sum;
}

const struct rq_op_counters *rq_status_find_op(const struct rq_status *st,
					       const char *name)
{
	unsigned int i;

	for (i = 0; i < st->nr_ops_kept; i++)
		if (!strcmp(st->ops[i].name, name))
			return &st->ops[i];
	return NULL;
}

bool rq_table_has_dev(const struct rq_table *table, unsigned int major,
		      unsigned int minor)
{
	unsigned int i;

	for (i = 0; i < table->nr_paths; i++) {
		unsigned int a, b;
		const char *dev = table->paths[i];

		if (!rq_parse_dev(dev, strlen(dev), &a, &b) && a == major &&
		    b == minor)
			return true;
	}
	return false;
}

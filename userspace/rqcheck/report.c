// SPDX-License-Identifier: GPL-2.0
/*
 * rqcheck results: accounting, text report and JSON report.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

void report_init(struct report *r, const struct rq_config *cfg,
		 const struct target_info *tgt, uint64_t seed)
{
	memset(r, 0, sizeof(*r));
	r->cfg = cfg;
	r->tgt = tgt;
	r->seed = seed;
}

static void free_bad(struct bad_block *b)
{
	free(b->runs);
	free(b->rruns);
}

void report_free(struct report *r)
{
	size_t i;

	for (i = 0; i < r->nbad; i++)
		free_bad(&r->bad[i]);
	free(r->bad);
	free(r->ioerr);
	free(r->gens);
	r->bad = NULL;
	r->ioerr = NULL;
	r->gens = NULL;
	r->nbad = r->nioerr = r->ngens = r->gens_cap = 0;
}

void report_set_error(struct report *r, enum run_result kind,
		      const char *fmt, ...)
{
	va_list ap;

	if (r->error_kind != RES_CLEAN)
		return;		/* keep the first error */
	r->error_kind = kind;
	va_start(ap, fmt);
	vsnprintf(r->error, sizeof(r->error), fmt, ap);
	va_end(ap);
}

struct gen_stats *report_gen_begin(struct report *r, uint64_t gen)
{
	struct gen_stats *gs;

	if (r->ngens == r->gens_cap) {
		size_t cap = r->gens_cap ? r->gens_cap * 2 : 16;
		struct gen_stats *n = realloc(r->gens, cap * sizeof(*n));

		if (!n)
			return NULL;
		r->gens = n;
		r->gens_cap = cap;
	}
	gs = &r->gens[r->ngens++];
	memset(gs, 0, sizeof(*gs));
	gs->gen = gen;
	return gs;
}

static struct sec_run *dup_runs(const struct sec_run *runs, uint32_t n)
{
	struct sec_run *d;

	if (!runs || !n)
		return NULL;
	d = malloc(n * sizeof(*d));
	if (d)
		memcpy(d, runs, n * sizeof(*d));
	return d;
}

int report_add_bad(struct report *r, struct gen_stats *gs,
		   const struct bad_block *b)
{
	struct bad_block *d;

	gs->bad++;
	gs->cls[b->cls]++;
	r->total_bad++;
	r->cls[b->cls]++;
	r->reread_cls[b->reread]++;
	if (b->reread == CLS_GOOD) {
		gs->read_path++;
		r->read_path++;
	} else if (b->reread != CLS_IO_ERROR) {
		gs->on_disk++;
		r->on_disk++;
	}
	if (!r->have_first_bad) {
		r->have_first_bad = true;
		r->first_bad_s = b->found_s;
	}

	if (r->nbad >= r->cfg->max_report)
		return 0;
	if (!r->bad) {
		r->bad = calloc(r->cfg->max_report, sizeof(*r->bad));
		if (!r->bad)
			return -ENOMEM;
	}
	d = &r->bad[r->nbad];
	*d = *b;
	d->runs = dup_runs(b->runs, b->nruns);
	d->rruns = dup_runs(b->rruns, b->nrruns);
	if ((b->nruns && b->runs && !d->runs) ||
	    (b->nrruns && b->rruns && !d->rruns)) {
		free_bad(d);
		return -ENOMEM;
	}
	if (!d->runs)
		d->nruns = 0;
	if (!d->rruns)
		d->nrruns = 0;
	r->nbad++;
	return 0;
}

void report_add_io_error(struct report *r, struct gen_stats *gs,
			 const struct io_error *e)
{
	if (e->op == IO_WRITE) {
		gs->write_errors++;
		r->write_errors++;
	} else {
		gs->read_errors++;
		r->read_errors++;
	}
	if (r->nioerr >= r->cfg->max_report)
		return;
	if (!r->ioerr) {
		r->ioerr = calloc(r->cfg->max_report, sizeof(*r->ioerr));
		if (!r->ioerr)
			return;
	}
	r->ioerr[r->nioerr++] = *e;
}

enum run_result report_result(const struct report *r)
{
	if (r->error_kind == RES_SETUP_ERROR)
		return RES_SETUP_ERROR;
	if (r->error_kind != RES_CLEAN || r->read_errors || r->write_errors)
		return RES_IO_ERROR;
	if (r->total_bad)
		return RES_CORRUPTION;
	return RES_CLEAN;
}

int report_exit_code(enum run_result res)
{
	switch (res) {
	case RES_CLEAN:
		return 0;
	case RES_CORRUPTION:
		return 1;
	default:
		return 3;
	}
}

const char *report_result_name(enum run_result res)
{
	switch (res) {
	case RES_CLEAN:
		return "clean";
	case RES_CORRUPTION:
		return "corruption";
	case RES_IO_ERROR:
		return "io_error";
	default:
		return "setup_error";
	}
}

/* ---- text ----------------------------------------------------------------- */

static void describe_hdr(char *buf, size_t len, const struct sec_run *run,
			 uint64_t expect_seed)
{
	const struct fmt_hdr *h = &run->hdr;
	char seed[48] = "";

	if (h->seed != expect_seed)
		snprintf(seed, sizeof(seed), ", seed %llu",
			 (unsigned long long)h->seed);
	if (run->count > 1)
		snprintf(buf, len,
			 "lba %llu-%llu, block %llu sectors %u-%u of %u, generation %llu%s",
			 (unsigned long long)h->lba,
			 (unsigned long long)(h->lba + run->count - 1),
			 (unsigned long long)h->block, h->sector,
			 h->sector + run->count - 1, h->block_sectors,
			 (unsigned long long)h->gen, seed);
	else
		snprintf(buf, len,
			 "lba %llu, block %llu sector %u of %u, generation %llu%s",
			 (unsigned long long)h->lba,
			 (unsigned long long)h->block, h->sector,
			 h->block_sectors, (unsigned long long)h->gen, seed);
}

void report_describe_run(char *buf, size_t len, const struct sec_run *run,
			 uint64_t expect_seed)
{
	char hdr[192];

	switch (run->kind) {
	case SK_GOOD:
		snprintf(buf, len, "good");
		break;
	case SK_STALE:
		if (run->hdr.seed != expect_seed)
			snprintf(buf, len, "stale: generation %llu, seed %llu",
				 (unsigned long long)run->hdr.gen,
				 (unsigned long long)run->hdr.seed);
		else
			snprintf(buf, len, "stale: generation %llu",
				 (unsigned long long)run->hdr.gen);
		break;
	case SK_MISPLACED:
		describe_hdr(hdr, sizeof(hdr), run, expect_seed);
		snprintf(buf, len, "misplaced: carries %s", hdr);
		break;
	case SK_POISON:
		snprintf(buf, len, "unfilled: read poison");
		break;
	case SK_UNWRITTEN:
	default:
		if (run->content == FMT_BADCRC)
			snprintf(buf, len,
				 "unwritten: bad checksum (header claims lba %llu, generation %llu)",
				 (unsigned long long)run->hdr.lba,
				 (unsigned long long)run->hdr.gen);
		else
			snprintf(buf, len, "unwritten: %s",
				 fmt_content_name(run->content));
		break;
	}
}

static void print_classes(FILE *f, const uint64_t *cls)
{
	const char *sep = "";
	int c;

	for (c = CLS_FIRST_BAD; c <= CLS_LAST_BAD; c++) {
		if (!cls[c])
			continue;
		fprintf(f, "%s%s %llu", sep, blk_class_name(c),
			(unsigned long long)cls[c]);
		sep = ", ";
	}
}

static const char *location(enum blk_class reread)
{
	if (reread == CLS_GOOD)
		return "read path";
	if (reread == CLS_IO_ERROR)
		return "unknown";
	return "on disk";
}

void report_print_header(FILE *f, const struct report *r)
{
	const struct rq_config *c = r->cfg;
	const struct target_info *t = r->tgt;

	fprintf(f,
		"rqcheck: target %s (%s, %llu bytes, logical block %u), region %llu+%llu: %llu blocks of %llu\n",
		t->path, t->type, (unsigned long long)t->bytes, t->lbs,
		(unsigned long long)t->offset, (unsigned long long)t->size,
		(unsigned long long)t->nblocks, (unsigned long long)c->bs);
	fprintf(f, "rqcheck: engine %s, qd %u, batch %u, order %s",
		engine_name(c->engine), c->qd, c->batch, order_name(c->order));
	if (c->order == ORDER_INTERLEAVE)
		fprintf(f, " (stride %u, window %llu)", c->stride,
			(unsigned long long)c->window);
	fprintf(f, ", seed %llu (0x%llx)", (unsigned long long)r->seed,
		(unsigned long long)r->seed);
	if (c->cpu >= 0)
		fprintf(f, ", cpu %d", c->cpu);
	if (c->verify_only)
		fprintf(f, ", verify only, generation %llu",
			(unsigned long long)c->gen);
	else if (c->time_s > 0)
		fprintf(f, ", for %.3gs from generation %llu", c->time_s,
			(unsigned long long)c->gen);
	else
		fprintf(f, ", generations %llu-%llu",
			(unsigned long long)c->gen,
			(unsigned long long)(c->gen + c->passes - 1));
	if (c->write_only)
		fprintf(f, ", write only");
	fprintf(f, "\n");
}

void report_print_prefill(FILE *f, const struct report *r)
{
	fprintf(f, "prefill: generation 0 written in %.3fs\n", r->prefill_s);
}

void report_print_gen(FILE *f, const struct report *r,
		      const struct gen_stats *gs)
{
	fprintf(f, "gen %llu:", (unsigned long long)gs->gen);
	if (!r->cfg->verify_only)
		fprintf(f, " write %.3fs (%llu submit calls)", gs->write_s,
			(unsigned long long)gs->write_submits);
	if (gs->write_errors)
		fprintf(f, ", %llu WRITE ERRORS",
			(unsigned long long)gs->write_errors);
	if (gs->blocks_verified || gs->verified) {
		fprintf(f, "%s verify %.3fs: ", r->cfg->verify_only ? "" : ",",
			gs->verify_s);
		if (gs->bad) {
			fprintf(f, "%llu BAD (", (unsigned long long)gs->bad);
			print_classes(f, gs->cls);
			fprintf(f, "; on disk %llu, read path %llu)",
				(unsigned long long)gs->on_disk,
				(unsigned long long)gs->read_path);
		} else {
			fprintf(f, "0 bad");
		}
		if (gs->read_errors)
			fprintf(f, ", %llu READ ERRORS",
				(unsigned long long)gs->read_errors);
	} else if (r->cfg->write_only) {
		fprintf(f, ", not verified (--write-only)");
	}
	if (gs->interrupted)
		fprintf(f, " [interrupted]");
	fprintf(f, "\n");
}

static void print_runs(FILE *f, const char *indent, const struct sec_run *runs,
		       uint32_t n, uint64_t seed)
{
	char desc[320];
	uint32_t i;

	for (i = 0; i < n; i++) {
		const struct sec_run *s = &runs[i];

		report_describe_run(desc, sizeof(desc), s, seed);
		if (s->count > 1)
			fprintf(f, "%ssectors %u-%u: %s\n", indent, s->first,
				s->first + s->count - 1, desc);
		else
			fprintf(f, "%ssector %u: %s\n", indent, s->first, desc);
	}
}

static const char *op_name(enum io_op op)
{
	return op == IO_WRITE ? "write" : "read";
}

void report_print_summary(FILE *f, const struct report *r)
{
	size_t i;

	if (r->nioerr) {
		fprintf(f, "I/O errors (%llu, showing %zu):\n",
			(unsigned long long)(r->read_errors + r->write_errors),
			r->nioerr);
		for (i = 0; i < r->nioerr; i++) {
			const struct io_error *e = &r->ioerr[i];

			if (e->res < 0)
				fprintf(f,
					"  gen %llu block %llu lba %llu: %s failed: %s\n",
					(unsigned long long)e->gen,
					(unsigned long long)e->block,
					(unsigned long long)e->lba,
					op_name(e->op), strerror((int)-e->res));
			else
				fprintf(f,
					"  gen %llu block %llu lba %llu: short %s: %lld of %llu bytes\n",
					(unsigned long long)e->gen,
					(unsigned long long)e->block,
					(unsigned long long)e->lba,
					op_name(e->op), (long long)e->res,
					(unsigned long long)e->len);
		}
	}
	if (r->total_bad) {
		fprintf(f, "bad blocks (%llu, showing %zu):\n",
			(unsigned long long)r->total_bad, r->nbad);
		for (i = 0; i < r->nbad; i++) {
			const struct bad_block *b = &r->bad[i];

			fprintf(f,
				"  gen %llu block %llu lba %llu-%llu (byte %llu): %s, re-read %s",
				(unsigned long long)b->gen,
				(unsigned long long)b->block,
				(unsigned long long)b->lba,
				(unsigned long long)(b->lba + b->nsect - 1),
				(unsigned long long)b->lba * FMT_SECTOR,
				blk_class_name(b->cls),
				blk_class_name(b->reread));
			if (b->reread == CLS_IO_ERROR)
				fprintf(f, " (%s)", strerror(b->reread_errno));
			fprintf(f, ": %s, found at %.3fs\n",
				location(b->reread), b->found_s);
			print_runs(f, "    ", b->runs, b->nruns, r->seed);
			if (b->nrruns && b->reread != b->cls) {
				fprintf(f, "    re-read:\n");
				print_runs(f, "      ", b->rruns, b->nrruns,
					   r->seed);
			}
		}
	}
	fprintf(f, "total: %zu generation%s, %llu blocks verified, %llu bad",
		r->ngens, r->ngens == 1 ? "" : "s",
		(unsigned long long)r->blocks_verified,
		(unsigned long long)r->total_bad);
	if (r->total_bad) {
		fprintf(f, " (");
		print_classes(f, r->cls);
		fprintf(f, "; on disk %llu, read path %llu)",
			(unsigned long long)r->on_disk,
			(unsigned long long)r->read_path);
	}
	fprintf(f, ", %llu read errors, %llu write errors\n",
		(unsigned long long)r->read_errors,
		(unsigned long long)r->write_errors);
	if (r->have_first_bad)
		fprintf(f, "first bad block found %.3fs into the workload; ",
			r->first_bad_s);
	fprintf(f, "workload %.3fs\n", r->workload_s);
}

void report_print_result(FILE *f, const struct report *r)
{
	enum run_result res = report_result(r);

	fprintf(f, "rqcheck: %s", report_result_name(res));
	if (r->total_bad) {
		fprintf(f, ": %llu bad block%s (",
			(unsigned long long)r->total_bad,
			r->total_bad == 1 ? "" : "s");
		print_classes(f, r->cls);
		fprintf(f, "), first after %.3fs", r->first_bad_s);
	}
	if (r->read_errors || r->write_errors)
		fprintf(f, "; %llu read errors, %llu write errors",
			(unsigned long long)r->read_errors,
			(unsigned long long)r->write_errors);
	if (r->error[0])
		fprintf(f, "; %s", r->error);
	if (r->interrupted)
		fprintf(f, "; interrupted");
	fprintf(f, "; %zu generation%s, seed %llu; exit %d\n", r->ngens,
		r->ngens == 1 ? "" : "s", (unsigned long long)r->seed,
		report_exit_code(res));
}

/* ---- JSON ----------------------------------------------------------------- */

#define JW_MAX_DEPTH 16

struct jw {
	FILE *f;
	int depth;
	int inline_from;		/* depth from which no newlines */
	bool has_items[JW_MAX_DEPTH];
};

static void jw_newline(struct jw *w)
{
	int i;

	if (w->inline_from && w->depth >= w->inline_from) {
		fputc(' ', w->f);
		return;
	}
	fputc('\n', w->f);
	for (i = 0; i < w->depth; i++)
		fputs("  ", w->f);
}

static void jw_string(struct jw *w, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', w->f);
	for (; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", w->f);
			break;
		case '\\':
			fputs("\\\\", w->f);
			break;
		case '\n':
			fputs("\\n", w->f);
			break;
		case '\t':
			fputs("\\t", w->f);
			break;
		default:
			if (*p < 0x20)
				fprintf(w->f, "\\u%04x", *p);
			else
				fputc(*p, w->f);
		}
	}
	fputc('"', w->f);
}

/* separator and key before a value; @key NULL inside arrays */
static void jw_item(struct jw *w, const char *key)
{
	if (w->depth > 0) {
		if (w->has_items[w->depth])
			fputc(',', w->f);
		w->has_items[w->depth] = true;
		jw_newline(w);
	}
	if (key) {
		jw_string(w, key);
		fputs(": ", w->f);
	}
}

static void jw_open(struct jw *w, const char *key, char c, bool inl)
{
	jw_item(w, key);
	fputc(c, w->f);
	if (w->depth + 1 < JW_MAX_DEPTH)
		w->depth++;
	w->has_items[w->depth] = false;
	if (inl && !w->inline_from)
		w->inline_from = w->depth;
}

static void jw_close(struct jw *w, char c)
{
	bool had = w->has_items[w->depth];

	if (w->inline_from == w->depth) {
		w->depth--;
		w->inline_from = 0;
		fputs(had ? " " : "", w->f);
	} else {
		w->depth--;
		if (had)
			jw_newline(w);
	}
	fputc(c, w->f);
}

static void jw_str(struct jw *w, const char *key, const char *v)
{
	jw_item(w, key);
	jw_string(w, v);
}

static void jw_u64(struct jw *w, const char *key, uint64_t v)
{
	jw_item(w, key);
	fprintf(w->f, "%llu", (unsigned long long)v);
}

static void jw_i64(struct jw *w, const char *key, int64_t v)
{
	jw_item(w, key);
	fprintf(w->f, "%lld", (long long)v);
}

static void jw_dbl(struct jw *w, const char *key, double v)
{
	jw_item(w, key);
	fprintf(w->f, "%.6f", v);
}

static void jw_bool(struct jw *w, const char *key, bool v)
{
	jw_item(w, key);
	fputs(v ? "true" : "false", w->f);
}

static void jw_null(struct jw *w, const char *key)
{
	jw_item(w, key);
	fputs("null", w->f);
}

static void json_classes(struct jw *w, const char *key, const uint64_t *cls)
{
	int c;

	jw_open(w, key, '{', true);
	for (c = CLS_FIRST_BAD; c <= CLS_LAST_BAD; c++)
		jw_u64(w, blk_class_name(c), cls[c]);
	jw_close(w, '}');
}

static void json_params(struct jw *w, const struct report *r)
{
	const struct rq_config *c = r->cfg;

	jw_open(w, "parameters", '{', false);
	jw_u64(w, "bs", c->bs);
	jw_u64(w, "offset", r->tgt->offset);
	jw_u64(w, "size", r->tgt->size);
	jw_u64(w, "blocks", r->tgt->nblocks);
	jw_u64(w, "qd", c->qd);
	jw_u64(w, "batch", c->batch);
	jw_str(w, "engine", engine_name(c->engine));
	jw_str(w, "order", order_name(c->order));
	jw_u64(w, "stride", c->stride);
	jw_u64(w, "window", c->window);
	if (c->cpu >= 0)
		jw_i64(w, "cpu", c->cpu);
	else
		jw_null(w, "cpu");
	jw_u64(w, "passes", c->passes);
	if (c->time_s > 0)
		jw_dbl(w, "time", c->time_s);
	else
		jw_null(w, "time");
	jw_bool(w, "prefill", c->prefill);
	jw_u64(w, "first_generation", c->gen);
	jw_bool(w, "verify_only", c->verify_only);
	jw_bool(w, "write_only", c->write_only);
	jw_u64(w, "max_report", c->max_report);
	jw_close(w, '}');
}

static void json_runs(struct jw *w, const char *key, const struct sec_run *runs,
		      uint32_t n)
{
	uint32_t i;

	jw_open(w, key, '[', false);
	for (i = 0; i < n; i++) {
		const struct sec_run *s = &runs[i];

		jw_open(w, NULL, '{', true);
		jw_u64(w, "first", s->first);
		jw_u64(w, "count", s->count);
		jw_str(w, "kind", sec_kind_name(s->kind));
		jw_str(w, "content", fmt_content_name(s->content));
		if (s->content == FMT_VALID || s->content == FMT_BADCRC) {
			jw_u64(w, "lba", s->hdr.lba);
			jw_u64(w, "block", s->hdr.block);
			jw_u64(w, "sector", s->hdr.sector);
			jw_u64(w, "block_sectors", s->hdr.block_sectors);
			jw_u64(w, "generation", s->hdr.gen);
			jw_u64(w, "seed", s->hdr.seed);
		}
		jw_close(w, '}');
	}
	jw_close(w, ']');
}

static void json_bad(struct jw *w, const struct report *r)
{
	size_t i;

	jw_open(w, "bad_blocks", '[', false);
	for (i = 0; i < r->nbad; i++) {
		const struct bad_block *b = &r->bad[i];

		jw_open(w, NULL, '{', false);
		jw_u64(w, "generation", b->gen);
		jw_u64(w, "block", b->block);
		jw_u64(w, "lba", b->lba);
		jw_u64(w, "lba_last", b->lba + b->nsect - 1);
		jw_u64(w, "byte_offset", b->lba * FMT_SECTOR);
		jw_u64(w, "sectors", b->nsect);
		jw_str(w, "class", blk_class_name(b->cls));
		jw_str(w, "reread_class", blk_class_name(b->reread));
		if (b->reread == CLS_IO_ERROR)
			jw_str(w, "reread_error", strerror(b->reread_errno));
		jw_str(w, "location", b->reread == CLS_GOOD ? "read_path" :
			   b->reread == CLS_IO_ERROR ? "unknown" : "on_disk");
		jw_dbl(w, "found_seconds", b->found_s);
		json_runs(w, "found", b->runs, b->nruns);
		if (b->nrruns)
			json_runs(w, "reread_found", b->rruns, b->nrruns);
		jw_close(w, '}');
	}
	jw_close(w, ']');
}

int report_write_json(FILE *f, const struct report *r)
{
	struct jw w = { .f = f };
	enum run_result res = report_result(r);
	size_t i;
	int c;

	jw_open(&w, NULL, '{', false);
	jw_str(&w, "tool", "rqcheck");
	jw_u64(&w, "format_version", FMT_VERSION);
	jw_str(&w, "result", report_result_name(res));
	jw_u64(&w, "exit_code", (uint64_t)report_exit_code(res));
	if (r->error[0])
		jw_str(&w, "error", r->error);
	else
		jw_null(&w, "error");
	jw_bool(&w, "interrupted", r->interrupted);

	jw_open(&w, "target", '{', false);
	jw_str(&w, "path", r->tgt->path ? r->tgt->path : "");
	jw_str(&w, "type", r->tgt->type ? r->tgt->type : "unknown");
	jw_u64(&w, "bytes", r->tgt->bytes);
	jw_u64(&w, "logical_block_size", r->tgt->lbs);
	jw_close(&w, '}');

	json_params(&w, r);
	jw_u64(&w, "seed", r->seed);
	{
		char hex[24];

		snprintf(hex, sizeof(hex), "0x%llx",
			 (unsigned long long)r->seed);
		jw_str(&w, "seed_hex", hex);
	}

	if (r->prefilled)
		jw_dbl(&w, "prefill_seconds", r->prefill_s);
	else
		jw_null(&w, "prefill_seconds");

	jw_open(&w, "generations", '[', false);
	for (i = 0; i < r->ngens; i++) {
		const struct gen_stats *g = &r->gens[i];

		jw_open(&w, NULL, '{', true);
		jw_u64(&w, "generation", g->gen);
		jw_bool(&w, "written", g->written);
		jw_bool(&w, "verified", g->verified);
		jw_u64(&w, "blocks_written", g->blocks_written);
		jw_u64(&w, "blocks_verified", g->blocks_verified);
		jw_dbl(&w, "write_seconds", g->write_s);
		jw_dbl(&w, "verify_seconds", g->verify_s);
		jw_u64(&w, "write_submit_calls", g->write_submits);
		jw_u64(&w, "read_submit_calls", g->read_submits);
		jw_u64(&w, "bad", g->bad);
		json_classes(&w, "classes", g->cls);
		jw_u64(&w, "on_disk", g->on_disk);
		jw_u64(&w, "read_path", g->read_path);
		jw_u64(&w, "read_errors", g->read_errors);
		jw_u64(&w, "write_errors", g->write_errors);
		jw_bool(&w, "interrupted", g->interrupted);
		jw_close(&w, '}');
	}
	jw_close(&w, ']');

	jw_open(&w, "totals", '{', false);
	jw_u64(&w, "generations", r->ngens);
	jw_u64(&w, "blocks_verified", r->blocks_verified);
	jw_u64(&w, "bad", r->total_bad);
	json_classes(&w, "classes", r->cls);
	jw_open(&w, "reread_classes", '{', true);
	for (c = 0; c < CLS__COUNT; c++)
		jw_u64(&w, blk_class_name(c), r->reread_cls[c]);
	jw_close(&w, '}');
	jw_u64(&w, "on_disk", r->on_disk);
	jw_u64(&w, "read_path", r->read_path);
	jw_u64(&w, "read_errors", r->read_errors);
	jw_u64(&w, "write_errors", r->write_errors);
	jw_close(&w, '}');

	if (r->have_first_bad)
		jw_dbl(&w, "first_bad_seconds", r->first_bad_s);
	else
		jw_null(&w, "first_bad_seconds");
	jw_dbl(&w, "workload_seconds", r->workload_s);

	json_bad(&w, r);
	jw_bool(&w, "bad_blocks_truncated", r->total_bad > r->nbad);

	jw_open(&w, "io_errors", '[', false);
	for (i = 0; i < r->nioerr; i++) {
		const struct io_error *e = &r->ioerr[i];

		jw_open(&w, NULL, '{', true);
		jw_u64(&w, "generation", e->gen);
		jw_u64(&w, "block", e->block);
		jw_u64(&w, "lba", e->lba);
		jw_str(&w, "op", op_name(e->op));
		jw_i64(&w, "result", e->res);
		jw_u64(&w, "length", e->len);
		jw_str(&w, "error", e->res < 0 ? strerror((int)-e->res) :
						 "short transfer");
		jw_close(&w, '}');
	}
	jw_close(&w, ']');
	jw_bool(&w, "io_errors_truncated",
		r->read_errors + r->write_errors > r->nioerr);
	jw_close(&w, '}');
	fputc('\n', f);
	return ferror(f) ? -EIO : 0;
}

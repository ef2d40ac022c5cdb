// SPDX-License-Identifier: GPL-2.0
/*
 * rqcheck results: accounting, text report and JSON report.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "rq_json.h"

void report_init(struct report *r, const struct rq_config *cfg,
		 const struct target_info *tgt, uint64_t seed)
{
	memset(r, 0, sizeof(*r));
	r->cfg = cfg;
	r->tgt = tgt;
	r->seed = seed;
	r->seed_known = true;
	r->identity.seed_from = cfg->seed_set ? "option" : "clock";
	r->identity.gen_from = cfg->gen_set ? "option" : "default";
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

/*
 * Not an error, and no completion: the I/O was not done and went again.
 * Counted all the same, so that a run on a kernel that needs it says so.
 */
void report_add_eagain_resubmit(struct report *r, struct gen_stats *gs)
{
	gs->eagain_resubmits++;
	r->eagain_resubmits++;
}

/*
 * Failure beats a finding beats an interruption: a run that could not do
 * its job says so even if it found bad blocks first, and an interrupted
 * run is never clean (it did not verify everything it meant to), but bad
 * blocks it did find are still a finding.
 */
enum run_result report_result(const struct report *r)
{
	if (r->error_kind == RES_SETUP_ERROR)
		return RES_SETUP_ERROR;
	if (r->error_kind != RES_CLEAN || r->read_errors || r->write_errors)
		return RES_IO_ERROR;
	if (r->total_bad)
		return RES_CORRUPTION;
	if (r->interrupted)
		return RES_INTERRUPTED;
	return RES_CLEAN;
}

int report_exit_code(enum run_result res)
{
	switch (res) {
	case RES_CLEAN:
		return 0;
	case RES_CORRUPTION:
		return 1;
	case RES_INTERRUPTED:
		return 4;
	case RES_IO_ERROR:
	case RES_SETUP_ERROR:
		break;
	}
	return 3;
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
	case RES_INTERRUPTED:
		return "interrupted";
	case RES_SETUP_ERROR:
		break;
	}
	return "setup_error";
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
	if (order_is_interleave(c->order))
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
	if (gs->eagain_resubmits)
		fprintf(f, ", %llu resubmits after EAGAIN",
			(unsigned long long)gs->eagain_resubmits);
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
	fprintf(f, ", %llu read errors, %llu write errors",
		(unsigned long long)r->read_errors,
		(unsigned long long)r->write_errors);
	if (r->eagain_resubmits)
		fprintf(f, ", %llu resubmits after EAGAIN",
			(unsigned long long)r->eagain_resubmits);
	fprintf(f, "\n");
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
	if (r->interrupted && res != RES_INTERRUPTED)
		fprintf(f, "; interrupted");
	fprintf(f, "; %zu generation%s", r->ngens, r->ngens == 1 ? "" : "s");
	if (r->seed_known)
		fprintf(f, ", seed %llu", (unsigned long long)r->seed);
	fprintf(f, "; exit %d\n", report_exit_code(res));
}

/* ---- JSON ----------------------------------------------------------------- */

/* Seconds in the report keep the microsecond resolution they always had. */
#define JSON_SECONDS_DECIMALS 6

static void json_seconds(struct rq_json *d, json_object *o, const char *key,
			 double v)
{
	rq_json_fixed(d, o, key, v, JSON_SECONDS_DECIMALS);
}

static void json_classes(struct rq_json *d, json_object *parent,
			 const char *key, const uint64_t *cls)
{
	json_object *o = rq_json_object(d, parent, key);
	int c;

	for (c = CLS_FIRST_BAD; c <= CLS_LAST_BAD; c++)
		rq_json_u64(d, o, blk_class_name(c), cls[c]);
}

static void json_target(struct rq_json *d, const struct report *r)
{
	json_object *o = rq_json_object(d, d->root, "target");

	rq_json_str(d, o, "path", r->tgt->path ? r->tgt->path : "");
	rq_json_str(d, o, "type", r->tgt->type ? r->tgt->type : "unknown");
	rq_json_u64(d, o, "bytes", r->tgt->bytes);
	rq_json_u64(d, o, "logical_block_size", r->tgt->lbs);
}

static void json_params(struct rq_json *d, const struct report *r)
{
	const struct rq_config *c = r->cfg;
	json_object *o = rq_json_object(d, d->root, "parameters");

	rq_json_u64(d, o, "bs", c->bs);
	rq_json_u64(d, o, "offset", r->tgt->offset);
	rq_json_u64(d, o, "size", r->tgt->size);
	rq_json_u64(d, o, "blocks", r->tgt->nblocks);
	rq_json_u64(d, o, "qd", c->qd);
	rq_json_u64(d, o, "batch", c->batch);
	rq_json_str(d, o, "engine", engine_name(c->engine));
	rq_json_str(d, o, "order", order_name(c->order));
	rq_json_u64(d, o, "stride", c->stride);
	rq_json_u64(d, o, "window", c->window);
	if (c->cpu >= 0)
		rq_json_i64(d, o, "cpu", c->cpu);
	else
		rq_json_null(d, o, "cpu");
	rq_json_u64(d, o, "passes", c->passes);
	if (c->time_s > 0)
		json_seconds(d, o, "time", c->time_s);
	else
		rq_json_null(d, o, "time");
	rq_json_bool(d, o, "prefill", c->prefill);
	rq_json_u64(d, o, "first_generation", c->gen);
	rq_json_bool(d, o, "verify_only", c->verify_only);
	rq_json_bool(d, o, "write_only", c->write_only);
	rq_json_u64(d, o, "max_report", c->max_report);
	rq_json_bool(d, o, "force", c->force);
}

static void json_seed(struct rq_json *d, const struct report *r)
{
	char hex[24];

	if (!r->seed_known) {
		rq_json_null(d, d->root, "seed");
		rq_json_null(d, d->root, "seed_hex");
		return;
	}
	snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)r->seed);
	rq_json_u64(d, d->root, "seed", r->seed);
	rq_json_str(d, d->root, "seed_hex", hex);
}

/* Where the seed and the generation came from (--verify-only: headers). */
static void json_identity(struct rq_json *d, const struct report *r)
{
	const struct identity_info *id = &r->identity;
	json_object *o = rq_json_object(d, d->root, "identity");

	rq_json_str(d, o, "seed_from", id->seed_from);
	rq_json_str(d, o, "generation_from", id->gen_from);
	if (id->header_found) {
		rq_json_u64(d, o, "header_seed", id->header_seed);
		rq_json_u64(d, o, "header_generation", id->header_gen);
	} else {
		rq_json_null(d, o, "header_seed");
		rq_json_null(d, o, "header_generation");
	}
	rq_json_u64(d, o, "blocks_sampled", id->sampled);
	rq_json_u64(d, o, "blocks_agreeing", id->agreeing);
}

static void json_generation(struct rq_json *d, json_object *arr,
			    const struct gen_stats *g)
{
	json_object *o = rq_json_object(d, arr, NULL);

	rq_json_u64(d, o, "generation", g->gen);
	rq_json_bool(d, o, "written", g->written);
	rq_json_bool(d, o, "verified", g->verified);
	rq_json_u64(d, o, "blocks_written", g->blocks_written);
	rq_json_u64(d, o, "blocks_verified", g->blocks_verified);
	json_seconds(d, o, "write_seconds", g->write_s);
	json_seconds(d, o, "verify_seconds", g->verify_s);
	rq_json_u64(d, o, "write_submit_calls", g->write_submits);
	rq_json_u64(d, o, "read_submit_calls", g->read_submits);
	rq_json_u64(d, o, "bad", g->bad);
	json_classes(d, o, "classes", g->cls);
	rq_json_u64(d, o, "on_disk", g->on_disk);
	rq_json_u64(d, o, "read_path", g->read_path);
	rq_json_u64(d, o, "read_errors", g->read_errors);
	rq_json_u64(d, o, "write_errors", g->write_errors);
	rq_json_u64(d, o, "eagain_resubmits", g->eagain_resubmits);
	rq_json_bool(d, o, "interrupted", g->interrupted);
}

static void json_totals(struct rq_json *d, const struct report *r)
{
	json_object *o = rq_json_object(d, d->root, "totals");
	json_object *reread;
	int c;

	rq_json_u64(d, o, "generations", r->ngens);
	rq_json_u64(d, o, "blocks_verified", r->blocks_verified);
	rq_json_u64(d, o, "bad", r->total_bad);
	json_classes(d, o, "classes", r->cls);
	reread = rq_json_object(d, o, "reread_classes");
	for (c = 0; c < CLS__COUNT; c++)
		rq_json_u64(d, reread, blk_class_name(c), r->reread_cls[c]);
	rq_json_u64(d, o, "on_disk", r->on_disk);
	rq_json_u64(d, o, "read_path", r->read_path);
	rq_json_u64(d, o, "read_errors", r->read_errors);
	rq_json_u64(d, o, "write_errors", r->write_errors);
	rq_json_u64(d, o, "eagain_resubmits", r->eagain_resubmits);
}

static void json_runs(struct rq_json *d, json_object *parent, const char *key,
		      const struct sec_run *runs, uint32_t n)
{
	json_object *arr = rq_json_array(d, parent, key);
	uint32_t i;

	for (i = 0; i < n; i++) {
		const struct sec_run *s = &runs[i];
		json_object *o = rq_json_object(d, arr, NULL);

		rq_json_u64(d, o, "first", s->first);
		rq_json_u64(d, o, "count", s->count);
		rq_json_str(d, o, "kind", sec_kind_name(s->kind));
		rq_json_str(d, o, "content", fmt_content_name(s->content));
		if (s->content != FMT_VALID && s->content != FMT_BADCRC)
			continue;
		rq_json_u64(d, o, "lba", s->hdr.lba);
		rq_json_u64(d, o, "block", s->hdr.block);
		rq_json_u64(d, o, "sector", s->hdr.sector);
		rq_json_u64(d, o, "block_sectors", s->hdr.block_sectors);
		rq_json_u64(d, o, "generation", s->hdr.gen);
		rq_json_u64(d, o, "seed", s->hdr.seed);
	}
}

static const char *json_location(enum blk_class reread)
{
	if (reread == CLS_GOOD)
		return "read_path";
	if (reread == CLS_IO_ERROR)
		return "unknown";
	return "on_disk";
}

static void json_bad_block(struct rq_json *d, json_object *arr,
			   const struct bad_block *b)
{
	json_object *o = rq_json_object(d, arr, NULL);

	rq_json_u64(d, o, "generation", b->gen);
	rq_json_u64(d, o, "block", b->block);
	rq_json_u64(d, o, "lba", b->lba);
	rq_json_u64(d, o, "lba_last", b->lba + b->nsect - 1);
	rq_json_u64(d, o, "byte_offset", b->lba * FMT_SECTOR);
	rq_json_u64(d, o, "sectors", b->nsect);
	rq_json_str(d, o, "class", blk_class_name(b->cls));
	rq_json_str(d, o, "reread_class", blk_class_name(b->reread));
	if (b->reread == CLS_IO_ERROR)
		rq_json_str(d, o, "reread_error", strerror(b->reread_errno));
	rq_json_str(d, o, "location", json_location(b->reread));
	json_seconds(d, o, "found_seconds", b->found_s);
	json_runs(d, o, "found", b->runs, b->nruns);
	if (b->nrruns)
		json_runs(d, o, "reread_found", b->rruns, b->nrruns);
}

static void json_io_error(struct rq_json *d, json_object *arr,
			  const struct io_error *e)
{
	json_object *o = rq_json_object(d, arr, NULL);

	rq_json_u64(d, o, "generation", e->gen);
	rq_json_u64(d, o, "block", e->block);
	rq_json_u64(d, o, "lba", e->lba);
	rq_json_str(d, o, "op", op_name(e->op));
	rq_json_i64(d, o, "result", e->res);
	rq_json_u64(d, o, "length", e->len);
	rq_json_str(d, o, "error", e->res < 0 ? strerror((int)-e->res) :
						"short transfer");
}

static void json_lists(struct rq_json *d, const struct report *r)
{
	json_object *arr;
	size_t i;

	arr = rq_json_array(d, d->root, "bad_blocks");
	for (i = 0; i < r->nbad; i++)
		json_bad_block(d, arr, &r->bad[i]);
	rq_json_bool(d, d->root, "bad_blocks_truncated", r->total_bad > r->nbad);
	arr = rq_json_array(d, d->root, "io_errors");
	for (i = 0; i < r->nioerr; i++)
		json_io_error(d, arr, &r->ioerr[i]);
	rq_json_bool(d, d->root, "io_errors_truncated",
		     r->read_errors + r->write_errors > r->nioerr);
}

static void json_report(struct rq_json *d, const struct report *r)
{
	enum run_result res = report_result(r);
	json_object *gens;
	size_t i;

	rq_json_str(d, d->root, "tool", "rqcheck");
	rq_json_u64(d, d->root, "format_version", FMT_VERSION);
	rq_json_str(d, d->root, "result", report_result_name(res));
	rq_json_u64(d, d->root, "exit_code", (uint64_t)report_exit_code(res));
	rq_json_str(d, d->root, "error", r->error[0] ? r->error : NULL);
	rq_json_bool(d, d->root, "interrupted", r->interrupted);
	json_target(d, r);
	json_params(d, r);
	json_seed(d, r);
	json_identity(d, r);
	if (r->prefilled)
		json_seconds(d, d->root, "prefill_seconds", r->prefill_s);
	else
		rq_json_null(d, d->root, "prefill_seconds");
	gens = rq_json_array(d, d->root, "generations");
	for (i = 0; i < r->ngens; i++)
		json_generation(d, gens, &r->gens[i]);
	json_totals(d, r);
	if (r->have_first_bad)
		json_seconds(d, d->root, "first_bad_seconds", r->first_bad_s);
	else
		rq_json_null(d, d->root, "first_bad_seconds");
	json_seconds(d, d->root, "workload_seconds", r->workload_s);
	json_lists(d, r);
}

int report_write_json(FILE *f, const struct report *r)
{
	struct rq_json doc;
	int ret;

	rq_json_init(&doc);
	json_report(&doc, r);
	ret = rq_json_write(f, &doc);
	rq_json_free(&doc);
	if (ret || fflush(f) || ferror(f))
		return -EIO;
	return 0;
}

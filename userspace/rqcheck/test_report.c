// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: accounting, exit codes, text and JSON rendering.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report.h"
#include "rq_json_check.h"

static struct rq_config cfg;
static struct target_info tgt = {
	.path = "/dev/\"odd\"\\name",
	.type = "block",
	.bytes = 1 << 20,
	.lbs = 512,
	.offset = 0,
	.size = 1 << 20,
	.nblocks = 256,
};

static int setup(void **state)
{
	(void)state;
	cli_defaults(&cfg);
	cfg.target = tgt.path;
	cfg.max_report = 2;
	return 0;
}

/* render with @fn into a malloc'ed string */
static char *render(void (*fn)(FILE *, const struct report *),
		    const struct report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	fn(f, r);
	fclose(f);
	return buf;
}

static void json_fn(FILE *f, const struct report *r)
{
	assert_int_equal(report_write_json(f, r), 0);
}

/* The report's JSON, parsed strictly; the caller puts it. */
static json_object *json_of(const struct report *r)
{
	char *text = render(json_fn, r);
	json_object *root = json_parse_strict(text);

	free(text);
	return root;
}

static struct bad_block stale_block(uint64_t block, struct sec_run *run)
{
	struct bad_block b = {
		.gen = 2,
		.block = block,
		.lba = block * 8,
		.nsect = 8,
		.found_s = 0.5,
		.cls = CLS_STALE,
		.reread = CLS_STALE,
		.runs = run,
		.nruns = 1,
	};

	memset(run, 0, sizeof(*run));
	run->count = 8;
	run->kind = SK_STALE;
	run->content = FMT_VALID;
	run->hdr.lba = block * 8;
	run->hdr.gen = 1;
	run->hdr.seed = 9;
	return b;
}

static char *render_gen(const struct report *r, const struct gen_stats *gs)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	report_print_gen(f, r, gs);
	fclose(f);
	return buf;
}

static void test_clean(void **state)
{
	struct report r;
	json_object *j;
	char *s;

	(void)state;
	report_init(&r, &cfg, &tgt, 9);
	assert_non_null(report_gen_begin(&r, 1));
	assert_int_equal(report_result(&r), RES_CLEAN);
	assert_int_equal(report_exit_code(report_result(&r)), 0);
	j = json_of(&r);
	assert_json_str(j, "result", "clean");
	assert_json_u64(j, "exit_code", 0);
	assert_json_null(j, "error");
	assert_json_bool(j, "interrupted", false);
	assert_json_null(j, "first_bad_seconds");
	assert_int_equal(json_len(j, "bad_blocks"), 0);
	assert_int_equal(json_len(j, "io_errors"), 0);
	/* the odd path survives the escaping */
	assert_json_str(j, "target.path", "/dev/\"odd\"\\name");
	assert_json_u64(j, "seed", 9);
	assert_json_str(j, "seed_hex", "0x9");
	assert_json_str(j, "identity.seed_from", "clock");
	assert_json_str(j, "identity.generation_from", "default");
	assert_json_null(j, "identity.header_seed");
	assert_json_u64(j, "generations.0.generation", 1);
	assert_json_bool(j, "generations.0.verified", false);
	assert_json_u64(j, "totals.blocks_verified", 0);
	assert_json_u64(j, "totals.classes.stale", 0);
	assert_json_u64(j, "totals.reread_classes.io_error", 0);
	assert_json_null(j, "parameters.time");
	assert_json_bool(j, "parameters.force", false);
	assert_json_u64(j, "generations.0.eagain_resubmits", 0);
	assert_json_u64(j, "totals.eagain_resubmits", 0);
	json_object_put(j);
	/* the text names resubmits only when there were some */
	s = render(report_print_summary, &r);
	assert_null(strstr(s, "EAGAIN"));
	free(s);
	report_free(&r);
}

/*
 * I/Os the kernel answered -EAGAIN and rqcheck submitted again: no error,
 * but counted per generation and in total (the prefill's too), never hidden.
 */
static void test_eagain_resubmits(void **state)
{
	struct report r;
	struct gen_stats *gs;
	json_object *j;
	char *s;

	(void)state;
	report_init(&r, &cfg, &tgt, 9);
	gs = report_gen_begin(&r, 1);
	assert_non_null(gs);
	gs->verified = true;
	gs->eagain_resubmits = 2;
	r.eagain_resubmits = 5;
	assert_int_equal(report_result(&r), RES_CLEAN);
	j = json_of(&r);
	assert_json_str(j, "result", "clean");
	assert_json_u64(j, "generations.0.eagain_resubmits", 2);
	assert_json_u64(j, "totals.eagain_resubmits", 5);
	json_object_put(j);
	s = render(report_print_summary, &r);
	assert_non_null(strstr(s, ", 0 read errors, 0 write errors, "
			       "5 resubmits after EAGAIN\n"));
	free(s);
	s = render_gen(&r, gs);
	assert_non_null(strstr(s, "0 bad, 2 resubmits after EAGAIN\n"));
	free(s);
	report_free(&r);
}

static void test_corruption_and_truncation(void **state)
{
	struct report r;
	struct gen_stats *gs;
	struct sec_run run;
	struct bad_block b;
	json_object *j;
	char *s;
	int i;

	(void)state;
	report_init(&r, &cfg, &tgt, 9);
	gs = report_gen_begin(&r, 2);
	assert_non_null(gs);
	for (i = 0; i < 3; i++) {
		b = stale_block(10 + i, &run);
		b.found_s = 0.5 + i;
		if (i == 2)
			b.reread = CLS_GOOD;	/* read path */
		assert_int_equal(report_add_bad(&r, gs, &b), 0);
	}
	assert_true(gs->bad == 3 && r.total_bad == 3);
	assert_true(r.cls[CLS_STALE] == 3);
	assert_true(gs->on_disk == 2 && gs->read_path == 1);
	assert_int_equal(r.nbad, 2);		/* --max-report 2 */
	assert_true(r.have_first_bad && r.first_bad_s == 0.5);
	assert_int_equal(report_result(&r), RES_CORRUPTION);
	assert_int_equal(report_exit_code(RES_CORRUPTION), 1);

	j = json_of(&r);
	assert_json_str(j, "result", "corruption");
	assert_json_u64(j, "exit_code", 1);
	assert_json_double(j, "first_bad_seconds", 0.5);
	assert_json_bool(j, "bad_blocks_truncated", true);
	assert_int_equal(json_len(j, "bad_blocks"), 2);
	assert_json_str(j, "bad_blocks.0.class", "stale");
	assert_json_str(j, "bad_blocks.0.location", "on_disk");
	assert_json_u64(j, "bad_blocks.0.block", 10);
	assert_json_u64(j, "bad_blocks.0.lba_last", 87);
	assert_json_u64(j, "bad_blocks.0.found.0.first", 0);
	assert_json_u64(j, "bad_blocks.0.found.0.count", 8);
	assert_json_str(j, "bad_blocks.0.found.0.kind", "stale");
	assert_json_u64(j, "bad_blocks.0.found.0.generation", 1);
	assert_json_u64(j, "totals.bad", 3);
	assert_json_u64(j, "totals.classes.stale", 3);
	assert_json_u64(j, "totals.reread_classes.good", 1);
	assert_json_u64(j, "generations.0.bad", 3);
	json_object_put(j);

	s = render(report_print_summary, &r);
	assert_non_null(strstr(s, "bad blocks (3, showing 2):"));
	assert_non_null(strstr(s, "gen 2 block 10 lba 80-87 (byte 40960): stale, re-read stale: on disk"));
	assert_non_null(strstr(s, "    sectors 0-7: stale: generation 1\n"));
	assert_non_null(strstr(s, "on disk 2, read path 1"));
	free(s);
	report_free(&r);
}

static void test_io_error_wins(void **state)
{
	struct io_error e = {
		.gen = 1, .block = 3, .lba = 24, .op = IO_READ,
		.res = -EIO, .len = 4096,
	};
	struct report r;
	struct gen_stats *gs;
	struct sec_run run;
	struct bad_block b;
	json_object *j;
	char *s;

	(void)state;
	report_init(&r, &cfg, &tgt, 9);
	gs = report_gen_begin(&r, 1);
	b = stale_block(1, &run);
	report_add_bad(&r, gs, &b);
	report_add_io_error(&r, gs, &e);
	e.op = IO_WRITE;
	e.res = 512;			/* short */
	report_add_io_error(&r, gs, &e);
	assert_true(gs->read_errors == 1 && gs->write_errors == 1);
	assert_int_equal(report_result(&r), RES_IO_ERROR);
	assert_int_equal(report_exit_code(RES_IO_ERROR), 3);

	s = render(report_print_summary, &r);
	assert_non_null(strstr(s, "read failed: Input/output error"));
	assert_non_null(strstr(s, "short write: 512 of 4096 bytes"));
	free(s);
	j = json_of(&r);
	assert_json_str(j, "result", "io_error");
	assert_json_u64(j, "exit_code", 3);
	assert_json_str(j, "io_errors.0.op", "read");
	assert_json_i64(j, "io_errors.0.result", -5);
	assert_json_str(j, "io_errors.0.error", "Input/output error");
	assert_json_str(j, "io_errors.1.op", "write");
	assert_json_i64(j, "io_errors.1.result", 512);
	assert_json_str(j, "io_errors.1.error", "short transfer");
	assert_json_bool(j, "io_errors_truncated", false);
	json_object_put(j);
	report_free(&r);
}

static void test_setup_error(void **state)
{
	struct report r;
	char *s;

	(void)state;
	report_init(&r, &cfg, &tgt, 9);
	report_set_error(&r, RES_SETUP_ERROR, "cannot open %s", "x");
	report_set_error(&r, RES_IO_ERROR, "second error is ignored");
	assert_int_equal(report_result(&r), RES_SETUP_ERROR);
	assert_int_equal(report_exit_code(RES_SETUP_ERROR), 3);
	assert_string_equal(r.error, "cannot open x");
	s = render(report_print_result, &r);
	assert_non_null(strstr(s, "setup_error; cannot open x"));
	assert_non_null(strstr(s, "exit 3"));
	free(s);
	report_free(&r);
}

/* A signal stopped the run: never "clean", exit 4 unless worse was found. */
static void test_interrupted_is_not_clean(void **state)
{
	struct report r;
	struct gen_stats *gs;
	struct sec_run run;
	struct bad_block b;
	json_object *j;
	char *s;

	(void)state;
	report_init(&r, &cfg, &tgt, 9);
	gs = report_gen_begin(&r, 1);
	assert_non_null(gs);
	gs->interrupted = true;
	r.interrupted = true;
	assert_int_equal(report_exit_code(report_result(&r)), 4);
	j = json_of(&r);
	assert_json_str(j, "result", "interrupted");
	assert_json_u64(j, "exit_code", 4);
	assert_json_bool(j, "interrupted", true);
	assert_json_bool(j, "generations.0.interrupted", true);
	json_object_put(j);
	s = render(report_print_result, &r);
	assert_non_null(strstr(s, "rqcheck: interrupted"));
	assert_non_null(strstr(s, "exit 4"));
	free(s);

	/* a finding wins over the interruption */
	b = stale_block(1, &run);
	assert_int_equal(report_add_bad(&r, gs, &b), 0);
	assert_int_equal(report_exit_code(report_result(&r)), 1);
	/* and a failure over both */
	report_set_error(&r, RES_IO_ERROR, "engine failed");
	assert_int_equal(report_exit_code(report_result(&r)), 3);
	report_free(&r);
}

/* The keys other code reads stay where they were, in the same order. */
static void test_json_keys_are_stable(void **state)
{
	struct report r;
	json_object *j;
	char keys[1024];

	(void)state;
	report_init(&r, &cfg, &tgt, 9);
	assert_non_null(report_gen_begin(&r, 1));
	j = json_of(&r);
	json_keys(j, "", keys, sizeof(keys));
	assert_string_equal(keys,
		"tool format_version result exit_code error interrupted "
		"target parameters seed seed_hex identity prefill_seconds "
		"generations totals first_bad_seconds workload_seconds "
		"bad_blocks bad_blocks_truncated io_errors io_errors_truncated");
	json_keys(j, "parameters", keys, sizeof(keys));
	assert_string_equal(keys,
		"bs offset size blocks qd batch engine order stride window "
		"cpu passes time prefill first_generation verify_only "
		"write_only max_report force");
	json_keys(j, "generations.0", keys, sizeof(keys));
	assert_string_equal(keys,
		"generation written verified blocks_written blocks_verified "
		"write_seconds verify_seconds write_submit_calls "
		"read_submit_calls bad classes on_disk read_path read_errors "
		"write_errors eagain_resubmits interrupted");
	json_keys(j, "totals", keys, sizeof(keys));
	assert_string_equal(keys,
		"generations blocks_verified bad classes reread_classes "
		"on_disk read_path read_errors write_errors "
		"eagain_resubmits");
	json_object_put(j);

	/* --verify-only before the headers were read: the seed is unknown */
	r.seed_known = false;
	j = json_of(&r);
	assert_json_null(j, "seed");
	assert_json_null(j, "seed_hex");
	json_object_put(j);
	report_free(&r);
}

static void test_describe(void **state)
{
	struct sec_run run;
	char buf[256];

	(void)state;
	memset(&run, 0, sizeof(run));
	run.count = 8;
	run.kind = SK_MISPLACED;
	run.content = FMT_VALID;
	run.hdr.lba = 24;
	run.hdr.block = 3;
	run.hdr.block_sectors = 8;
	run.hdr.gen = 2;
	run.hdr.seed = 9;
	report_describe_run(buf, sizeof(buf), &run, 9);
	assert_string_equal(buf,
		"misplaced: carries lba 24-31, block 3 sectors 0-7 of 8, generation 2");
	run.kind = SK_STALE;
	run.hdr.seed = 10;
	report_describe_run(buf, sizeof(buf), &run, 9);
	assert_string_equal(buf, "stale: generation 2, seed 10");
	run.kind = SK_UNWRITTEN;
	run.content = FMT_ZERO;
	report_describe_run(buf, sizeof(buf), &run, 9);
	assert_string_equal(buf, "unwritten: zero");
	run.kind = SK_POISON;
	run.content = FMT_POISON;
	report_describe_run(buf, sizeof(buf), &run, 9);
	assert_string_equal(buf, "unfilled: read poison");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean),
		cmocka_unit_test(test_corruption_and_truncation),
		cmocka_unit_test(test_io_error_wins),
		cmocka_unit_test(test_eagain_resubmits),
		cmocka_unit_test(test_setup_error),
		cmocka_unit_test(test_interrupted_is_not_clean),
		cmocka_unit_test(test_json_keys_are_stable),
		cmocka_unit_test(test_describe),
	};

	return cmocka_run_group_tests_name("report", tests, setup, NULL);
}

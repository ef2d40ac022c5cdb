// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: the json-c builders both tools write their reports with,
 * and the strict checker the tests read them back with.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "rq_json.h"
#include "rq_json_check.h"

static char *text;

static const char *written(const struct rq_json *doc)
{
	size_t len = 0;
	FILE *f;

	free(text);
	text = NULL;
	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(rq_json_write(f, doc), 0);
	fclose(f);
	return text;
}

static int teardown(void **state)
{
	(void)state;
	free(text);
	text = NULL;
	return 0;
}

static void builds_every_kind_of_value(void **state)
{
	struct rq_json doc;
	json_object *obj, *arr, *root;
	char keys[128];

	(void)state;
	rq_json_init(&doc);
	rq_json_str(&doc, doc.root, "path", "/dev/\"odd\"\\name\n");
	rq_json_u64(&doc, doc.root, "big", UINT64_MAX);
	rq_json_i64(&doc, doc.root, "neg", -5);
	rq_json_bool(&doc, doc.root, "yes", true);
	rq_json_null(&doc, doc.root, "nothing");
	rq_json_str(&doc, doc.root, "no_string", NULL);
	rq_json_fixed(&doc, doc.root, "secs", 4.01, 3);
	rq_json_fixed(&doc, doc.root, "nan", NAN, 3);
	obj = rq_json_object(&doc, doc.root, "obj");
	rq_json_u64(&doc, obj, "z", 1);
	rq_json_u64(&doc, obj, "a", 2);
	arr = rq_json_array(&doc, doc.root, "arr");
	rq_json_str(&doc, arr, NULL, "x");
	rq_json_null(&doc, arr, NULL);
	rq_json_array(&doc, doc.root, "empty");
	assert_false(doc.failed);

	root = json_parse_strict(written(&doc));
	assert_json_str(root, "path", "/dev/\"odd\"\\name\n");
	assert_json_u64(root, "big", UINT64_MAX);
	assert_json_i64(root, "neg", -5);
	assert_json_bool(root, "yes", true);
	assert_json_null(root, "nothing");
	assert_json_null(root, "no_string");
	assert_json_double(root, "secs", 4.01);
	assert_json_null(root, "nan");
	assert_json_u64(root, "obj.a", 2);
	assert_int_equal(json_len(root, "arr"), 2);
	assert_json_str(root, "arr.0", "x");
	assert_json_null(root, "arr.1");
	assert_int_equal(json_len(root, "empty"), 0);
	/* keys stay in the order they were added */
	json_keys(root, "obj", keys, sizeof(keys));
	assert_string_equal(keys, "z a");
	/* fixed decimals as written, slashes not escaped */
	assert_non_null(strstr(text, "\"secs\": 4.010"));
	assert_non_null(strstr(text, "\"/dev/"));
	json_object_put(root);
	rq_json_free(&doc);
}

static void a_missing_parent_spoils_the_document(void **state)
{
	struct rq_json doc;
	FILE *f;

	(void)state;
	rq_json_init(&doc);
	rq_json_u64(&doc, NULL, "lost", 1);
	assert_true(doc.failed);
	f = fopen("/dev/null", "w");
	assert_non_null(f);
	assert_int_equal(rq_json_write(f, &doc), -1);
	fclose(f);
	rq_json_free(&doc);
}

static void strict_checker(void **state)
{
	(void)state;
	assert_true(json_is_strict("{\"a\": [1, -2.5, true, null, "
				   "\"\\u00e9\"]}"));
	assert_false(json_is_strict("{\"a\": 1,}"));
	assert_false(json_is_strict("{\"a\" 1}"));
	assert_false(json_is_strict("[1 2]"));
	assert_false(json_is_strict("\"a\x01\""));
	assert_false(json_is_strict("nan"));
	assert_false(json_is_strict("{'a': 1}"));
	assert_false(json_is_strict("{\"a\": 1} x"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(builds_every_kind_of_value, teardown),
		cmocka_unit_test(a_missing_parent_spoils_the_document),
		cmocka_unit_test(strict_checker),
	};

	return cmocka_run_group_tests_name("rq_json", tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: block orders.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "order.h"

static const uint64_t sizes[] = { 0, 1, 2, 3, 4, 7, 8, 9, 100, 1001 };
static const unsigned int strides[] = { 1, 2, 3, 5, 8, 2000 };

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* out is a permutation of 0..n-1: each block exactly once */
static void assert_permutation(const uint64_t *out, uint64_t n)
{
	uint8_t *seen = calloc(n ? n : 1, 1);
	uint64_t i;

	assert_non_null(seen);
	for (i = 0; i < n; i++) {
		assert_true(out[i] < n);
		assert_int_equal(seen[out[i]], 0);
		seen[out[i]] = 1;
	}
	free(seen);
}

static void test_every_order_visits_each_block_once(void **state)
{
	enum order_kind o;
	size_t i, j;

	(void)state;
	for (o = ORDER_DESC; o <= ORDER_INTERLEAVE; o++) {
		for (i = 0; i < ARRAY_SIZE(sizes); i++) {
			for (j = 0; j < ARRAY_SIZE(strides); j++) {
				uint64_t n = sizes[i];
				uint64_t *out = malloc((n + 1) * sizeof(*out));

				assert_non_null(out);
				out[n] = 0xdeadbeef;	/* no write past n */
				order_fill(o, n, strides[j], 0, 1234 + j, out);
				assert_permutation(out, n);
				assert_true(out[n] == 0xdeadbeef);
				free(out);
			}
		}
	}
}

/* The exact order of a small fill with no seed. */
static void assert_order(enum order_kind o, uint64_t n, unsigned int stride,
			 uint64_t window, const uint64_t *want)
{
	uint64_t out[16];

	assert_true(n <= 16);
	order_fill(o, n, stride, window, 0, out);
	assert_memory_equal(out, want, n * sizeof(out[0]));
}

static void test_desc_asc(void **state)
{
	uint64_t out[5];
	const uint64_t desc[] = { 4, 3, 2, 1, 0 };
	const uint64_t asc[] = { 0, 1, 2, 3, 4 };

	(void)state;
	order_fill(ORDER_DESC, 5, 2, 0, 0, out);
	assert_memory_equal(out, desc, sizeof(desc));
	order_fill(ORDER_ASC, 5, 2, 0, 0, out);
	assert_memory_equal(out, asc, sizeof(asc));
}

static void test_interleave_exact(void **state)
{
	const uint64_t even8[] = { 6, 4, 2, 0, 7, 5, 3, 1 };
	const uint64_t odd7[] = { 6, 4, 2, 0, 5, 3, 1 };
	const uint64_t s3n10[] = { 9, 6, 3, 0, 7, 4, 1, 8, 5, 2 };
	uint64_t out[10];

	(void)state;
	assert_order(ORDER_INTERLEAVE, 8, 2, 0, even8);
	assert_order(ORDER_INTERLEAVE, 7, 2, 0, odd7);
	assert_order(ORDER_INTERLEAVE, 10, 3, 0, s3n10);
	/* stride 1 is plain descending */
	order_fill(ORDER_INTERLEAVE, 4, 1, 0, 0, out);
	assert_true(out[0] == 3 && out[1] == 2 && out[2] == 1 && out[3] == 0);
}

/* Windows of 4 from the top; the lowest window is short. */
static void test_interleave_window(void **state)
{
	const uint64_t w4n10[] = { 8, 6, 9, 7, 4, 2, 5, 3, 0, 1 };
	uint64_t out[10], seen[10] = { 0 };
	uint64_t i;

	(void)state;
	order_fill(ORDER_INTERLEAVE, 10, 2, 4, 0, out);
	assert_memory_equal(out, w4n10, sizeof(w4n10));
	/* a window larger than the region is the whole region */
	order_fill(ORDER_INTERLEAVE, 10, 2, 1000, 0, out);
	assert_true(out[0] == 8 && out[5] == 9 && out[9] == 1);
	/* window 3 with stride 2: still a permutation */
	order_fill(ORDER_INTERLEAVE, 10, 2, 3, 0, out);
	for (i = 0; i < 10; i++)
		seen[out[i]]++;
	for (i = 0; i < 10; i++)
		assert_int_equal(seen[i], 1);
}

/*
 * The property the reproducer relies on: every even block comes before
 * every odd block, both passes descend, and each odd block i comes after
 * block i + 1, the block it lies in front of.
 */
static void test_interleave_odd_after_even_front(void **state)
{
	const uint64_t n = 1001;
	uint64_t *out = malloc(n * sizeof(*out));
	uint64_t *pos = malloc(n * sizeof(*pos));
	uint64_t i, half = (n + 1) / 2;

	(void)state;
	assert_non_null(out);
	assert_non_null(pos);
	order_fill(ORDER_INTERLEAVE, n, 2, 0, 0, out);
	for (i = 0; i < n; i++)
		pos[out[i]] = i;
	for (i = 0; i < n; i++) {
		if (i < half)
			assert_true(out[i] % 2 == 0);
		else
			assert_true(out[i] % 2 == 1);
		if (i + 1 < n && (out[i] % 2) == (out[i + 1] % 2))
			assert_true(out[i] == out[i + 1] + 2);
	}
	for (i = 1; i + 1 < n; i += 2)
		assert_true(pos[i + 1] < pos[i]);
	free(out);
	free(pos);
}

/* Windows of 4 from the top, the second (and fourth) ascending. */
static void test_interleave_alternate(void **state)
{
	const uint64_t w4n10[] = { 8, 6, 9, 7, 4, 2, 5, 3, 0, 1 };
	const uint64_t a4n10[] = { 8, 6, 9, 7, 2, 4, 3, 5, 0, 1 };
	const uint64_t a4n16[] = { 14, 12, 15, 13, 8, 10, 9, 11,
				   6, 4, 7, 5, 0, 2, 1, 3 };
	uint64_t out[16], plain[16];

	(void)state;
	assert_order(ORDER_INTERLEAVE, 10, 2, 4, w4n10);
	assert_order(ORDER_INTERLEAVE_ALTERNATE, 10, 2, 4, a4n10);
	assert_order(ORDER_INTERLEAVE_ALTERNATE, 16, 2, 4, a4n16);
	assert_permutation(a4n16, 16);
	/* one window: plain interleave */
	order_fill(ORDER_INTERLEAVE_ALTERNATE, 10, 2, 0, 0, out);
	order_fill(ORDER_INTERLEAVE, 10, 2, 0, 0, plain);
	assert_memory_equal(out, plain, 10 * sizeof(out[0]));
}

/*
 * In an ascending window every even block still comes before every odd
 * one, and each odd block i comes after block i + 1, the block it lies in
 * front of, while block i - 1 was submitted before i + 1.
 */
static void test_interleave_alternate_front(void **state)
{
	const uint64_t n = 64, window = 16;
	uint64_t out[64], pos[64];
	uint64_t i;

	(void)state;
	order_fill(ORDER_INTERLEAVE_ALTERNATE, n, 2, window, 0, out);
	assert_permutation(out, n);
	for (i = 0; i < n; i++)
		pos[out[i]] = i;
	for (i = 1; i + 1 < n; i += 2) {
		if ((i + 1) % window == 0)
			continue;	/* i + 1 is in the next window up */
		assert_true(pos[i + 1] < pos[i]);
		/* ascending windows: i - 1 before i + 1 */
		if ((n - 1 - i) / window % 2 == 1 && i % window)
			assert_true(pos[i - 1] < pos[i + 1]);
	}
	/* window 32..47 (the second from the top) ascends */
	assert_true(pos[32] < pos[34] && pos[33] < pos[35]);
	/* window 48..63 (the top one) descends */
	assert_true(pos[62] < pos[60] && pos[63] < pos[61]);
}

static void test_random(void **state)
{
	const uint64_t n = 200;
	uint64_t a[200], b[200], c[200];
	uint64_t i, moved = 0;

	(void)state;
	order_fill(ORDER_RANDOM, n, 2, 0, 42, a);
	order_fill(ORDER_RANDOM, n, 2, 0, 42, b);
	order_fill(ORDER_RANDOM, n, 2, 0, 43, c);
	assert_memory_equal(a, b, sizeof(a));
	assert_memory_not_equal(a, c, sizeof(a));
	assert_permutation(a, n);
	for (i = 0; i < n; i++)
		moved += a[i] != i;
	assert_true(moved > n / 2);
}

static void test_parse_names(void **state)
{
	enum order_kind o;

	(void)state;
	assert_int_equal(order_parse("desc", &o), 0);
	assert_int_equal(o, ORDER_DESC);
	assert_int_equal(order_parse("asc", &o), 0);
	assert_int_equal(o, ORDER_ASC);
	assert_int_equal(order_parse("random", &o), 0);
	assert_int_equal(o, ORDER_RANDOM);
	assert_int_equal(order_parse("interleave", &o), 0);
	assert_int_equal(o, ORDER_INTERLEAVE);
	assert_int_equal(order_parse("interleave-alternate", &o), 0);
	assert_int_equal(o, ORDER_INTERLEAVE_ALTERNATE);
	assert_int_equal(order_parse("Desc", &o), -1);
	assert_int_equal(order_parse("", &o), -1);
	assert_string_equal(order_name(ORDER_INTERLEAVE), "interleave");
	assert_string_equal(order_name((enum order_kind)42), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_order_visits_each_block_once),
		cmocka_unit_test(test_desc_asc),
		cmocka_unit_test(test_interleave_exact),
		cmocka_unit_test(test_interleave_window),
		cmocka_unit_test(test_interleave_odd_after_even_front),
		cmocka_unit_test(test_interleave_alternate),
		cmocka_unit_test(test_interleave_alternate_front),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_parse_names),
	};

	return cmocka_run_group_tests_name("order", tests, NULL, NULL);
}

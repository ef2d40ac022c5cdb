// SPDX-License-Identifier: GPL-2.0
/*
 * Block visiting orders.
 */
#include <string.h>

#include "format.h"
#include "order.h"

static const char *const order_names[] = {
	[ORDER_DESC]		= "desc",
	[ORDER_ASC]		= "asc",
	[ORDER_RANDOM]		= "random",
	[ORDER_INTERLEAVE]	= "interleave",
	[ORDER_INTERLEAVE_ALTERNATE] = "interleave-alternate",
};

const char *order_name(enum order_kind o)
{
	if ((unsigned int)o < sizeof(order_names) / sizeof(order_names[0]))
		return order_names[o];
	return "?";
}

int order_parse(const char *s, enum order_kind *o)
{
	unsigned int i;

	for (i = 0; i < sizeof(order_names) / sizeof(order_names[0]); i++) {
		if (!strcmp(s, order_names[i])) {
			*o = (enum order_kind)i;
			return 0;
		}
	}
	return -1;
}

int order_is_interleave(enum order_kind o)
{
	return o == ORDER_INTERLEAVE || o == ORDER_INTERLEAVE_ALTERNATE;
}

/* unbiased random number in [0, bound) */
static uint64_t rand_below(uint64_t *st, uint64_t bound)
{
	uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
	uint64_t r;

	do {
		r = fmt_mix64(st);
	} while (r >= limit);
	return r % bound;
}

/* Interleave passes over blocks base .. base + n - 1, written from out[0]. */
static void interleave_fill(uint64_t base, uint64_t n, unsigned int stride,
			    int up, uint64_t *out)
{
	uint64_t k = 0, c, b;

	for (c = 0; c < stride && c < n; c++) {
		if (up) {
			for (b = c; b < n; b += stride)
				out[k++] = base + b;
			continue;
		}
		/* highest block of class c, then downwards */
		b = c + (n - 1 - c) / stride * stride;
		for (;;) {
			out[k++] = base + b;
			if (b < c + stride)
				break;
			b -= stride;
		}
	}
}

void order_fill(enum order_kind o, uint64_t n, unsigned int stride,
		uint64_t window, uint64_t seed, uint64_t *out)
{
	uint64_t i, k, st;

	switch (o) {
	case ORDER_ASC:
		for (i = 0; i < n; i++)
			out[i] = i;
		break;
	case ORDER_RANDOM:
		for (i = 0; i < n; i++)
			out[i] = i;
		st = seed ^ 0x52514f5244455221ULL;
		for (i = n; i > 1; i--) {
			uint64_t j = rand_below(&st, i);
			uint64_t t = out[i - 1];

			out[i - 1] = out[j];
			out[j] = t;
		}
		break;
	case ORDER_INTERLEAVE:
	case ORDER_INTERLEAVE_ALTERNATE:
		if (!stride)
			stride = 1;
		if (!window || window > n)
			window = n;
		/* windows from the top; the lowest one may be short */
		for (k = 0; k < n; k += window) {
			uint64_t len = n - k < window ? n - k : window;
			int up = o == ORDER_INTERLEAVE_ALTERNATE &&
				 (k / window) % 2 == 1;

			interleave_fill(n - k - len, len, stride, up, out + k);
		}
		break;
	case ORDER_DESC:
	default:
		for (i = 0; i < n; i++)
			out[i] = n - 1 - i;
		break;
	}
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Block visiting orders for the write (and read-back) phases.
 */
#ifndef RQCHECK_ORDER_H
#define RQCHECK_ORDER_H

#include <stdint.h>

enum order_kind {
	ORDER_DESC,
	ORDER_ASC,
	ORDER_RANDOM,
	ORDER_INTERLEAVE,
};

const char *order_name(enum order_kind o);
int order_parse(const char *s, enum order_kind *o);

/*
 * Fill out[0..n-1] with a permutation of 0..n-1.
 *
 *   desc        n-1, n-2, ..., 0
 *   asc         0, 1, ..., n-1
 *   random      a Fisher-Yates shuffle seeded by @seed
 *   interleave  @stride descending passes: pass c visits the blocks
 *               i with i % stride == c, from the highest down.  With
 *               stride 2: all even blocks, then all odd blocks, so each
 *               odd block i is submitted after block i + 1: the bio for
 *               i ends exactly where the already-submitted request for
 *               i + 1 starts, i.e. i lies in front of it (a front-merge
 *               candidate).
 *
 * @stride is used by interleave only and must be >= 1.  A non-zero
 * @window makes interleave work window by window: the blocks are cut into
 * windows of @window blocks from the top down, and each window gets its
 * own interleave passes before the next one starts.  The front-merge
 * candidate i then follows block i + 1 within a few submissions, while a
 * request for i + 1 that failed to issue may still be waiting.
 */
void order_fill(enum order_kind o, uint64_t n, unsigned int stride,
		uint64_t window, uint64_t seed, uint64_t *out);

#endif

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
	ORDER_INTERLEAVE_ALTERNATE,
};

const char *order_name(enum order_kind o);
int order_parse(const char *s, enum order_kind *o);
/* interleave or interleave-alternate: the orders --stride and --window shape */
int order_is_interleave(enum order_kind o);

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
 *
 *   interleave-alternate
 *               interleave window by window, the first (top) window
 *               descending as above, the next ascending (pass c visits
 *               its blocks i with i % stride == c from the lowest up), and
 *               so on.  Whether a bio lands in front of a request that
 *               waits in the software queue, or behind another one that
 *               waits there too and is checked first, depends on the order
 *               the kernel issues a plug in: 6.1 issues it newest first,
 *               6.12 in submission order (e70c301faece).  Alternating gives both kinds of
 *               kernel front-merge candidates.  With one window it is
 *               interleave.
 */
void order_fill(enum order_kind o, uint64_t n, unsigned int stride,
		uint64_t window, uint64_t seed, uint64_t *out);

#endif

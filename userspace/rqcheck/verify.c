// SPDX-License-Identifier: GPL-2.0
/*
 * Block verification and classification.
 *
 *   all sectors good                        -> good
 *   some poison, every other sector good    -> unfilled
 *   all sectors without a valid header      -> unwritten
 *   all sectors stale, one (gen, seed)      -> stale
 *   all sectors misplaced, and together one
 *   consistent block (consecutive LBAs and
 *   sector indices, one gen, seed, block)   -> misplaced
 *   anything else                           -> torn
 */
#include <stdbool.h>
#include <stddef.h>

#include "verify.h"

static const char *const class_names[] = {
	[CLS_GOOD]	= "good",
	[CLS_STALE]	= "stale",
	[CLS_UNWRITTEN]	= "unwritten",
	[CLS_MISPLACED]	= "misplaced",
	[CLS_TORN]	= "torn",
	[CLS_UNFILLED]	= "unfilled",
	[CLS_IO_ERROR]	= "io_error",
};

static const char *const kind_names[] = {
	[SK_GOOD]	= "good",
	[SK_STALE]	= "stale",
	[SK_MISPLACED]	= "misplaced",
	[SK_UNWRITTEN]	= "unwritten",
	[SK_POISON]	= "unfilled",
};

const char *blk_class_name(enum blk_class c)
{
	if ((unsigned int)c < CLS__COUNT)
		return class_names[c];
	return "?";
}

const char *sec_kind_name(enum sec_kind k)
{
	if ((unsigned int)k < SK__COUNT)
		return kind_names[k];
	return "?";
}

enum sec_kind verify_sector(const void *sector, const struct verify_expect *x,
			    uint32_t idx, struct fmt_hdr *h,
			    enum fmt_content *content)
{
	*content = fmt_decode_sector(sector, h);

	switch (*content) {
	case FMT_VALID:
		break;
	case FMT_POISON:
		return SK_POISON;
	default:
		return SK_UNWRITTEN;
	}
	if (h->lba != x->lba + idx)
		return SK_MISPLACED;
	if (h->seed != x->seed || h->gen != x->gen)
		return SK_STALE;
	/* right LBA and generation, but written as another block/geometry */
	if (h->block != x->block || h->sector != idx ||
	    h->block_sectors != x->nsect)
		return SK_MISPLACED;
	return SK_GOOD;
}

/* may sector @h (kind @k, content @c) extend run @r whose last is @last? */
static int run_extends(const struct sec_run *r, const struct fmt_hdr *last,
		       enum sec_kind k, enum fmt_content c,
		       const struct fmt_hdr *h)
{
	if (r->kind != k || r->content != c)
		return 0;
	if (c != FMT_VALID)
		return 1;
	return h->lba == last->lba + 1 && h->gen == r->hdr.gen &&
	       h->seed == r->hdr.seed && h->block == r->hdr.block &&
	       h->sector == last->sector + 1;
}

enum blk_class verify_block(const void *buf, const struct verify_expect *x,
			    struct sec_run *runs, uint32_t *nruns)
{
	uint32_t count[SK__COUNT] = { 0 };
	struct fmt_hdr h, first = { 0 }, last = { 0 };
	int same_stale = 1, coherent = 1;
	uint32_t i, n = 0;

	for (i = 0; i < x->nsect; i++) {
		const uint8_t *s = (const uint8_t *)buf + (size_t)i * FMT_SECTOR;
		enum fmt_content c;
		enum sec_kind k = verify_sector(s, x, i, &h, &c);

		count[k]++;
		if (i == 0) {
			first = h;
		} else {
			if (h.gen != first.gen || h.seed != first.seed)
				same_stale = 0;
			if (h.lba != last.lba + 1 || h.gen != first.gen ||
			    h.seed != first.seed || h.block != first.block ||
			    h.sector != last.sector + 1)
				coherent = 0;
		}
		if (runs) {
			if (n && run_extends(&runs[n - 1], &last, k, c, &h)) {
				runs[n - 1].count++;
			} else {
				runs[n].first = i;
				runs[n].count = 1;
				runs[n].kind = k;
				runs[n].content = c;
				runs[n].hdr = h;
				n++;
			}
		}
		last = h;
	}
	if (nruns)
		*nruns = n;

	if (count[SK_GOOD] == x->nsect)
		return CLS_GOOD;
	if (count[SK_POISON] &&
	    count[SK_POISON] + count[SK_GOOD] == x->nsect)
		return CLS_UNFILLED;
	if (count[SK_UNWRITTEN] == x->nsect)
		return CLS_UNWRITTEN;
	if (count[SK_STALE] == x->nsect && same_stale)
		return CLS_STALE;
	if (count[SK_MISPLACED] == x->nsect && coherent)
		return CLS_MISPLACED;
	return CLS_TORN;
}

/* ---- whose blocks are these? ---------------------------------------------- */

/* The header of the block's first valid sector, if any. */
static int block_identity(const void *buf, uint32_t nsect, struct fmt_hdr *h)
{
	const unsigned char *p = buf;
	uint32_t i;

	for (i = 0; i < nsect; i++)
		if (fmt_decode_sector(p + (size_t)i * FMT_SECTOR, h) ==
		    FMT_VALID)
			return 0;
	return -1;
}

void identity_tally_block(struct identity_tally *t, const void *buf,
			  uint32_t nsect)
{
	struct fmt_hdr h;
	unsigned int i;

	t->sampled++;
	if (block_identity(buf, nsect, &h))
		return;
	for (i = 0; i < t->nr; i++) {
		if (t->c[i].seed == h.seed && t->c[i].gen == h.gen) {
			t->c[i].votes++;
			return;
		}
	}
	/* More distinct candidates than room: not a region of one run. */
	if (t->nr == IDENTITY_MAX_CANDIDATES)
		return;
	t->c[t->nr].seed = h.seed;
	t->c[t->nr].gen = h.gen;
	t->c[t->nr].votes = 1;
	t->nr++;
}

static bool beats(const struct identity_vote *a, const struct identity_vote *b)
{
	if (a->votes != b->votes)
		return a->votes > b->votes;
	return a->gen > b->gen;
}

int identity_pick(const struct identity_tally *t, uint64_t *seed,
		  uint64_t *gen, unsigned int *votes)
{
	const struct identity_vote *best = NULL;
	unsigned int i;

	for (i = 0; i < t->nr; i++)
		if (!best || beats(&t->c[i], best))
			best = &t->c[i];
	if (!best)
		return -1;
	*seed = best->seed;
	*gen = best->gen;
	*votes = best->votes;
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Verification and classification of one block read back from the target.
 */
#ifndef RQCHECK_VERIFY_H
#define RQCHECK_VERIFY_H

#include <stdint.h>

#include "format.h"

/* class of a whole block */
enum blk_class {
	CLS_GOOD,
	CLS_STALE,	/* intact, this LBA, another (older) generation */
	CLS_UNWRITTEN,	/* no valid header at all */
	CLS_MISPLACED,	/* intact, but another LBA's identity */
	CLS_TORN,	/* sectors disagree with each other */
	CLS_UNFILLED,	/* read buffer still holds the poison */
	CLS_IO_ERROR,	/* the read failed (re-read only); not corruption */
	CLS__COUNT,
};

/* first and last corruption class, for counting loops */
#define CLS_FIRST_BAD	CLS_STALE
#define CLS_LAST_BAD	CLS_UNFILLED

/* what one sector holds, relative to what was expected there */
enum sec_kind {
	SK_GOOD,
	SK_STALE,
	SK_MISPLACED,
	SK_UNWRITTEN,
	SK_POISON,
	SK__COUNT,
};

/* a run of consecutive sectors that hold "the same kind of thing" */
struct sec_run {
	uint32_t first;			/* sector index within the block */
	uint32_t count;
	enum sec_kind kind;
	enum fmt_content content;
	/* header of the run's first sector (meaningful for FMT_VALID) */
	struct fmt_hdr hdr;
};

struct verify_expect {
	uint64_t seed;
	uint64_t gen;
	uint64_t block;		/* region-relative block index */
	uint64_t lba;		/* LBA of the block's first sector */
	uint32_t nsect;		/* sectors per block */
};

const char *blk_class_name(enum blk_class c);
const char *sec_kind_name(enum sec_kind k);

/* classify one sector on its own */
enum sec_kind verify_sector(const void *sector, const struct verify_expect *x,
			    uint32_t idx, struct fmt_hdr *h,
			    enum fmt_content *content);

/*
 * Classify the block in @buf (x->nsect sectors).  If @runs is not NULL it
 * must have room for x->nsect entries; the per-sector findings are stored
 * there, merged into runs, and their number in *nruns.
 */
enum blk_class verify_block(const void *buf, const struct verify_expect *x,
			    struct sec_run *runs, uint32_t *nruns);

/*
 * The (seed, generation) the blocks of a region carry, by vote: each
 * sampled block votes with the header of its first valid sector.
 */
#define IDENTITY_MAX_CANDIDATES 16

struct identity_tally {
	unsigned int sampled;		/* blocks looked at */
	unsigned int nr;		/* distinct candidates */
	struct identity_vote {
		uint64_t seed;
		uint64_t gen;
		unsigned int votes;
	} c[IDENTITY_MAX_CANDIDATES];
};

/* Count one block of @nsect sectors. */
void identity_tally_block(struct identity_tally *t, const void *buf,
			  uint32_t nsect);

/*
 * The candidate with the most votes; on a tie the newest generation (a
 * lost write leaves an older one behind, never a newer one).  Returns 0,
 * or -1 when no sampled block had a valid header.
 */
int identity_pick(const struct identity_tally *t, uint64_t *seed,
		  uint64_t *gen, unsigned int *votes);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rqcheck block format: every 512-byte sector of every block carries a
 * self-describing header and a pattern derived from (seed, lba, generation).
 *
 * Sector layout, all fields little-endian:
 *
 *   off size field
 *     0    8 magic          FMT_MAGIC ("RQCHKSEC" as a little-endian u64)
 *     8    8 lba            this sector's own LBA, 512-byte units, absolute
 *    16    8 block          block index, relative to the start of the region
 *    24    8 generation     write generation (0 = --prefill)
 *    32    8 seed           run seed
 *    40    4 sector         sector index within the block
 *    44    4 block_sectors  sectors per block (bs / 512) when written
 *    48    4 version        FMT_VERSION
 *    52    4 crc            CRC32C of bytes 0..51 followed by 56..511
 *    56  456 pattern        fmt_pattern(seed, lba, generation)
 */
#ifndef RQCHECK_FORMAT_H
#define RQCHECK_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#define FMT_SECTOR		512u
#define FMT_HDR_SIZE		56u
#define FMT_MAGIC		0x4345534b48435152ULL	/* "RQCHKSEC" */
#define FMT_VERSION		1u
#define FMT_POISON_WORD		0x4e4f53494f505152ULL	/* "RQPOISON" */

#define FMT_OFF_MAGIC		0
#define FMT_OFF_LBA		8
#define FMT_OFF_BLOCK		16
#define FMT_OFF_GEN		24
#define FMT_OFF_SEED		32
#define FMT_OFF_SECTOR		40
#define FMT_OFF_BLKSECT		44
#define FMT_OFF_VERSION		48
#define FMT_OFF_CRC		52

struct fmt_hdr {
	uint64_t magic;
	uint64_t lba;
	uint64_t block;
	uint64_t gen;
	uint64_t seed;
	uint32_t sector;
	uint32_t block_sectors;
	uint32_t version;
	uint32_t crc;
};

/* What a 512-byte sector holds, judged on the sector alone. */
enum fmt_content {
	FMT_VALID,	/* magic, version, checksum and pattern all good */
	FMT_ZERO,	/* all zero bytes */
	FMT_POISON,	/* the read poison pattern, untouched */
	FMT_BADCRC,	/* our magic, but checksum or pattern wrong */
	FMT_GARBAGE,	/* anything else */
};

const char *fmt_content_name(enum fmt_content c);

uint32_t crc32c(uint32_t crc, const void *buf, size_t len);

/* Fill a sector's pattern area; deterministic in (seed, lba, gen). */
void fmt_pattern(void *sector, uint64_t seed, uint64_t lba, uint64_t gen);

/* Encode one sector from @h (magic, version and crc are set here). */
void fmt_encode_sector(void *sector, const struct fmt_hdr *h);

/*
 * Encode a whole block of @bs bytes: block index @block of the region,
 * whose first sector is at @lba.
 */
void fmt_encode_block(void *buf, uint32_t bs, uint64_t seed, uint64_t gen,
		      uint64_t block, uint64_t lba);

/* Decode a sector; @h is filled as far as the bytes allow. */
enum fmt_content fmt_decode_sector(const void *sector, struct fmt_hdr *h);

/* Read poison: fill @len bytes (a multiple of 8) / test one sector. */
void fmt_poison(void *buf, size_t len);
int fmt_is_poison(const void *sector);

/* Little-endian helpers, exposed for the tests. */
uint64_t fmt_get_le64(const void *p);
uint32_t fmt_get_le32(const void *p);
void fmt_put_le64(void *p, uint64_t v);
void fmt_put_le32(void *p, uint32_t v);

/* splitmix64 step, used for patterns and random orders */
uint64_t fmt_mix64(uint64_t *state);

#endif

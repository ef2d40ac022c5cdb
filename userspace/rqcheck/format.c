// SPDX-License-Identifier: GPL-2.0
/*
 * rqcheck block format: sector headers, patterns, CRC32C, poison.
 */
#include <string.h>

#include "format.h"

static const char *const content_names[] = {
	[FMT_VALID]	= "valid",
	[FMT_ZERO]	= "zero",
	[FMT_POISON]	= "poison",
	[FMT_BADCRC]	= "bad-checksum",
	[FMT_GARBAGE]	= "garbage",
};

const char *fmt_content_name(enum fmt_content c)
{
	if ((unsigned int)c < sizeof(content_names) / sizeof(content_names[0]))
		return content_names[c];
	return "?";
}

uint64_t fmt_get_le64(const void *p)
{
	const uint8_t *b = p;
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = (v << 8) | b[i];
	return v;
}

uint32_t fmt_get_le32(const void *p)
{
	const uint8_t *b = p;

	return (uint32_t)b[0] | (uint32_t)b[1] << 8 |
	       (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

void fmt_put_le64(void *p, uint64_t v)
{
	uint8_t *b = p;
	int i;

	for (i = 0; i < 8; i++, v >>= 8)
		b[i] = (uint8_t)v;
}

void fmt_put_le32(void *p, uint32_t v)
{
	uint8_t *b = p;
	int i;

	for (i = 0; i < 4; i++, v >>= 8)
		b[i] = (uint8_t)v;
}

/* ---- CRC32C (Castagnoli), reflected, slicing by 8 ----------------------- */

#define CRC32C_POLY 0x82f63b78u

static uint32_t crc_table[8][256];
static int crc_ready;

static void crc32c_init(void)
{
	uint32_t c;
	int i, j;

	for (i = 0; i < 256; i++) {
		c = (uint32_t)i;
		for (j = 0; j < 8; j++)
			c = (c >> 1) ^ ((c & 1) ? CRC32C_POLY : 0);
		crc_table[0][i] = c;
	}
	for (i = 0; i < 256; i++) {
		c = crc_table[0][i];
		for (j = 1; j < 8; j++) {
			c = crc_table[0][c & 0xff] ^ (c >> 8);
			crc_table[j][i] = c;
		}
	}
	crc_ready = 1;
}

/*
 * crc32c(0, buf, len) is the standard CRC32C of buf; passing the result of a
 * previous call as @crc continues the checksum over more bytes.
 */
uint32_t crc32c(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	if (!crc_ready)
		crc32c_init();
	crc = ~crc;
	while (len >= 8) {
		uint32_t lo = crc ^ fmt_get_le32(p);
		uint32_t hi = fmt_get_le32(p + 4);

		crc = crc_table[7][lo & 0xff] ^
		      crc_table[6][(lo >> 8) & 0xff] ^
		      crc_table[5][(lo >> 16) & 0xff] ^
		      crc_table[4][lo >> 24] ^
		      crc_table[3][hi & 0xff] ^
		      crc_table[2][(hi >> 8) & 0xff] ^
		      crc_table[1][(hi >> 16) & 0xff] ^
		      crc_table[0][hi >> 24];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = crc_table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

/* ---- patterns ------------------------------------------------------------ */

uint64_t fmt_mix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void fmt_pattern(void *sector, uint64_t seed, uint64_t lba, uint64_t gen)
{
	uint8_t *p = (uint8_t *)sector + FMT_HDR_SIZE;
	uint64_t st = seed;
	unsigned int i;

	/* fold lba and generation into the stream's start */
	st ^= fmt_mix64(&st) ^ lba * 0xd6e8feb86659fd93ULL;
	st ^= fmt_mix64(&st) ^ gen * 0xa0761d6478bd642fULL;
	for (i = 0; i < (FMT_SECTOR - FMT_HDR_SIZE) / 8; i++)
		fmt_put_le64(p + 8 * i, fmt_mix64(&st));
}

static uint32_t sector_crc(const uint8_t *s)
{
	uint32_t crc = crc32c(0, s, FMT_OFF_CRC);

	return crc32c(crc, s + FMT_HDR_SIZE, FMT_SECTOR - FMT_HDR_SIZE);
}

void fmt_encode_sector(void *sector, const struct fmt_hdr *h)
{
	uint8_t *s = sector;

	fmt_put_le64(s + FMT_OFF_MAGIC, FMT_MAGIC);
	fmt_put_le64(s + FMT_OFF_LBA, h->lba);
	fmt_put_le64(s + FMT_OFF_BLOCK, h->block);
	fmt_put_le64(s + FMT_OFF_GEN, h->gen);
	fmt_put_le64(s + FMT_OFF_SEED, h->seed);
	fmt_put_le32(s + FMT_OFF_SECTOR, h->sector);
	fmt_put_le32(s + FMT_OFF_BLKSECT, h->block_sectors);
	fmt_put_le32(s + FMT_OFF_VERSION, FMT_VERSION);
	fmt_pattern(s, h->seed, h->lba, h->gen);
	fmt_put_le32(s + FMT_OFF_CRC, sector_crc(s));
}

void fmt_encode_block(void *buf, uint32_t bs, uint64_t seed, uint64_t gen,
		      uint64_t block, uint64_t lba)
{
	struct fmt_hdr h = {
		.block = block,
		.gen = gen,
		.seed = seed,
		.block_sectors = bs / FMT_SECTOR,
	};
	uint32_t i;

	for (i = 0; i < bs / FMT_SECTOR; i++) {
		h.lba = lba + i;
		h.sector = i;
		fmt_encode_sector((uint8_t *)buf + (size_t)i * FMT_SECTOR, &h);
	}
}

static int all_zero(const uint8_t *s)
{
	unsigned int i;

	for (i = 0; i < FMT_SECTOR; i += 8)
		if (fmt_get_le64(s + i))
			return 0;
	return 1;
}

enum fmt_content fmt_decode_sector(const void *sector, struct fmt_hdr *h)
{
	const uint8_t *s = sector;
	uint8_t pat[FMT_SECTOR];

	h->magic = fmt_get_le64(s + FMT_OFF_MAGIC);
	h->lba = fmt_get_le64(s + FMT_OFF_LBA);
	h->block = fmt_get_le64(s + FMT_OFF_BLOCK);
	h->gen = fmt_get_le64(s + FMT_OFF_GEN);
	h->seed = fmt_get_le64(s + FMT_OFF_SEED);
	h->sector = fmt_get_le32(s + FMT_OFF_SECTOR);
	h->block_sectors = fmt_get_le32(s + FMT_OFF_BLKSECT);
	h->version = fmt_get_le32(s + FMT_OFF_VERSION);
	h->crc = fmt_get_le32(s + FMT_OFF_CRC);

	if (h->magic != FMT_MAGIC) {
		if (all_zero(s))
			return FMT_ZERO;
		if (fmt_is_poison(s))
			return FMT_POISON;
		return FMT_GARBAGE;
	}
	if (h->version != FMT_VERSION || h->crc != sector_crc(s))
		return FMT_BADCRC;
	/* the checksum holds: the pattern must be the one the header names */
	fmt_pattern(pat, h->seed, h->lba, h->gen);
	if (memcmp(pat + FMT_HDR_SIZE, s + FMT_HDR_SIZE,
		   FMT_SECTOR - FMT_HDR_SIZE))
		return FMT_BADCRC;
	return FMT_VALID;
}

/* ---- poison ---------------------------------------------------------------- */

static uint64_t poison_word(unsigned int i)
{
	return FMT_POISON_WORD ^ ((uint64_t)(i % (FMT_SECTOR / 8)) << 56);
}

void fmt_poison(void *buf, size_t len)
{
	uint8_t *p = buf;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8)
		fmt_put_le64(p + i, poison_word((unsigned int)(i / 8)));
}

int fmt_is_poison(const void *sector)
{
	const uint8_t *s = sector;
	unsigned int i;

	for (i = 0; i < FMT_SECTOR / 8; i++)
		if (fmt_get_le64(s + 8 * i) != poison_word(i))
			return 0;
	return 1;
}

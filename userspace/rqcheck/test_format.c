// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: block format, CRC32C, patterns, poison.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "format.h"

static void test_crc32c_vectors(void **state)
{
	uint8_t buf[32];
	int i;

	(void)state;
	assert_int_equal(crc32c(0, "", 0), 0);
	assert_int_equal(crc32c(0, "123456789", 9), 0xe3069283);
	/* RFC 3720 B.4 */
	memset(buf, 0, sizeof(buf));
	assert_int_equal(crc32c(0, buf, 32), 0x8a9136aa);
	memset(buf, 0xff, sizeof(buf));
	assert_int_equal(crc32c(0, buf, 32), 0x62a8ab43);
	for (i = 0; i < 32; i++)
		buf[i] = (uint8_t)i;
	assert_int_equal(crc32c(0, buf, 32), 0x46dd794e);
	for (i = 0; i < 32; i++)
		buf[i] = (uint8_t)(31 - i);
	assert_int_equal(crc32c(0, buf, 32), 0x113fdb5c);
}

static void test_crc32c_chaining(void **state)
{
	const char *s = "The quick brown fox jumps over the lazy dog";
	size_t len = strlen(s), cut;
	uint32_t whole = crc32c(0, s, len);

	(void)state;
	for (cut = 0; cut <= len; cut++)
		assert_int_equal(crc32c(crc32c(0, s, cut), s + cut, len - cut),
				 whole);
}

static void test_le_helpers(void **state)
{
	uint8_t b[8];

	(void)state;
	fmt_put_le64(b, 0x0102030405060708ULL);
	assert_int_equal(b[0], 0x08);
	assert_int_equal(b[7], 0x01);
	assert_true(fmt_get_le64(b) == 0x0102030405060708ULL);
	fmt_put_le32(b, 0xa1b2c3d4);
	assert_int_equal(b[0], 0xd4);
	assert_int_equal(b[3], 0xa1);
	assert_int_equal(fmt_get_le32(b), 0xa1b2c3d4);
}

static void make_sector(uint8_t *s)
{
	struct fmt_hdr h = {
		.lba = 123456789012ULL,
		.block = 77,
		.gen = 5,
		.seed = 0xfeedfacecafebeefULL,
		.sector = 3,
		.block_sectors = 8,
	};

	fmt_encode_sector(s, &h);
}

static void test_encode_decode(void **state)
{
	uint8_t s[FMT_SECTOR];
	struct fmt_hdr h;

	(void)state;
	make_sector(s);
	assert_int_equal(fmt_decode_sector(s, &h), FMT_VALID);
	assert_true(h.magic == FMT_MAGIC);
	assert_true(h.lba == 123456789012ULL);
	assert_true(h.block == 77);
	assert_true(h.gen == 5);
	assert_true(h.seed == 0xfeedfacecafebeefULL);
	assert_int_equal(h.sector, 3);
	assert_int_equal(h.block_sectors, 8);
	assert_int_equal(h.version, FMT_VERSION);
	/* the layout is fixed: magic reads "RQCHKSEC" on disk */
	assert_memory_equal(s, "RQCHKSEC", 8);
	assert_true(fmt_get_le64(s + FMT_OFF_LBA) == 123456789012ULL);
}

static void test_every_bit_flip_detected(void **state)
{
	uint8_t s[FMT_SECTOR], c[FMT_SECTOR];
	struct fmt_hdr h;
	unsigned int byte, bit;

	(void)state;
	make_sector(s);
	for (byte = 0; byte < FMT_SECTOR; byte++) {
		for (bit = 0; bit < 8; bit++) {
			enum fmt_content got;

			memcpy(c, s, sizeof(c));
			c[byte] ^= (uint8_t)(1u << bit);
			got = fmt_decode_sector(c, &h);
			if (byte < 8)
				assert_int_equal(got, FMT_GARBAGE);
			else
				assert_int_equal(got, FMT_BADCRC);
		}
	}
}

/* a checksum that matches but a pattern that does not: still rejected */
static void test_pattern_checked(void **state)
{
	uint8_t s[FMT_SECTOR];
	struct fmt_hdr h;
	uint32_t crc;

	(void)state;
	make_sector(s);
	s[200] ^= 0x40;
	crc = crc32c(0, s, FMT_OFF_CRC);
	crc = crc32c(crc, s + FMT_HDR_SIZE, FMT_SECTOR - FMT_HDR_SIZE);
	fmt_put_le32(s + FMT_OFF_CRC, crc);
	assert_int_equal(fmt_decode_sector(s, &h), FMT_BADCRC);
}

static void test_pattern_depends_on_inputs(void **state)
{
	uint8_t a[FMT_SECTOR], b[FMT_SECTOR];

	(void)state;
	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	fmt_pattern(a, 1, 2, 3);
	fmt_pattern(b, 1, 2, 3);
	assert_memory_equal(a, b, FMT_SECTOR);
	fmt_pattern(b, 2, 2, 3);
	assert_memory_not_equal(a + FMT_HDR_SIZE, b + FMT_HDR_SIZE,
				FMT_SECTOR - FMT_HDR_SIZE);
	fmt_pattern(b, 1, 3, 3);
	assert_memory_not_equal(a + FMT_HDR_SIZE, b + FMT_HDR_SIZE,
				FMT_SECTOR - FMT_HDR_SIZE);
	fmt_pattern(b, 1, 2, 4);
	assert_memory_not_equal(a + FMT_HDR_SIZE, b + FMT_HDR_SIZE,
				FMT_SECTOR - FMT_HDR_SIZE);
	/* the header area is left alone */
	assert_true(fmt_get_le64(b) == 0);
}

static void test_encode_block(void **state)
{
	uint8_t buf[8 * FMT_SECTOR];
	struct fmt_hdr h;
	uint32_t i;

	(void)state;
	fmt_encode_block(buf, sizeof(buf), 99, 4, 10, 1000);
	for (i = 0; i < 8; i++) {
		assert_int_equal(fmt_decode_sector(buf + i * FMT_SECTOR, &h),
				 FMT_VALID);
		assert_true(h.lba == 1000 + i);
		assert_true(h.block == 10);
		assert_true(h.gen == 4);
		assert_true(h.seed == 99);
		assert_int_equal(h.sector, i);
		assert_int_equal(h.block_sectors, 8);
	}
}

static void test_zero_garbage_poison(void **state)
{
	uint8_t s[2 * FMT_SECTOR];
	struct fmt_hdr h;
	unsigned int i;

	(void)state;
	memset(s, 0, sizeof(s));
	assert_int_equal(fmt_decode_sector(s, &h), FMT_ZERO);
	assert_false(fmt_is_poison(s));

	fmt_poison(s, sizeof(s));
	assert_true(fmt_is_poison(s));
	assert_true(fmt_is_poison(s + FMT_SECTOR));
	assert_int_equal(fmt_decode_sector(s, &h), FMT_POISON);
	/* one changed byte is not poison any more */
	s[300] ^= 1;
	assert_false(fmt_is_poison(s));
	assert_int_equal(fmt_decode_sector(s, &h), FMT_GARBAGE);

	for (i = 0; i < FMT_SECTOR; i++)
		s[i] = (uint8_t)(i * 7 + 1);
	assert_int_equal(fmt_decode_sector(s, &h), FMT_GARBAGE);

	/* a valid sector is never poison */
	make_sector(s);
	assert_false(fmt_is_poison(s));
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(fmt_content_name(FMT_VALID), "valid");
	assert_string_equal(fmt_content_name(FMT_ZERO), "zero");
	assert_string_equal(fmt_content_name(FMT_POISON), "poison");
	assert_string_equal(fmt_content_name(FMT_BADCRC), "bad-checksum");
	assert_string_equal(fmt_content_name(FMT_GARBAGE), "garbage");
	assert_string_equal(fmt_content_name((enum fmt_content)99), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc32c_vectors),
		cmocka_unit_test(test_crc32c_chaining),
		cmocka_unit_test(test_le_helpers),
		cmocka_unit_test(test_encode_decode),
		cmocka_unit_test(test_every_bit_flip_detected),
		cmocka_unit_test(test_pattern_checked),
		cmocka_unit_test(test_pattern_depends_on_inputs),
		cmocka_unit_test(test_encode_block),
		cmocka_unit_test(test_zero_garbage_poison),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests_name("format", tests, NULL, NULL);
}

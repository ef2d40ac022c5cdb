// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: host helpers that need no root and no device-mapper
 * (rq_sys.c): the udev decision, /dev/kmsg records, device resolution.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "rq_sys.h"

static void udev_sync_needs_udevd_and_notify_rule(void **state)
{
	struct rq_udev_facts f = { .udevd_running = true,
				   .notify_rules = true };
	const char *why = NULL;

	(void)state;
	assert_true(rq_udev_decide(&f, &why));
	assert_non_null(strstr(why, "running"));

	f.notify_rules = false;
	assert_false(rq_udev_decide(&f, &why));
	assert_non_null(strstr(why, "95-dm-notify.rules"));

	f.notify_rules = true;
	f.udevd_running = false;
	assert_false(rq_udev_decide(&f, &why));
	assert_non_null(strstr(why, "/run/udev/control"));
}

static void environment_forces_no_udev(void **state)
{
	struct rq_udev_facts f = { .udevd_running = true,
				   .notify_rules = true };
	const char *why = NULL;

	(void)state;
	f.env_noudev = true;
	assert_false(rq_udev_decide(&f, &why));
	assert_non_null(strstr(why, "RQPATHCTL_NOUDEV"));

	f.env_noudev = false;
	f.env_dm_disable_udev = true;
	assert_false(rq_udev_decide(&f, &why));
	assert_non_null(strstr(why, "DM_DISABLE_UDEV"));
	assert_false(rq_udev_decide(&f, NULL));
}

static void probe_reads_the_environment(void **state)
{
	struct rq_udev_facts f;

	(void)state;
	setenv("RQPATHCTL_NOUDEV", "1", 1);
	rq_udev_probe(&f);
	assert_true(f.env_noudev);
	setenv("RQPATHCTL_NOUDEV", "0", 1);
	rq_udev_probe(&f);
	assert_false(f.env_noudev);
	setenv("RQPATHCTL_NOUDEV", "", 1);
	rq_udev_probe(&f);
	assert_false(f.env_noudev);
	unsetenv("RQPATHCTL_NOUDEV");
}

static void kmsg_record_text(void **state)
{
	static const char rec[] =
		"3,1234,5678901,-;device-mapper: table: 253:0: rqpath: "
		"Invalid path count\n SUBSYSTEM=block\n DEVICE=b253:0\n";
	static const char bare[] = "4,1,2,-;no newline";
	char text[128];
	char tiny[8];

	(void)state;
	assert_int_equal(rq_kmsg_record_text(rec, strlen(rec), text,
					     sizeof(text)), 0);
	assert_string_equal(text, "device-mapper: table: 253:0: rqpath: "
			    "Invalid path count");
	assert_int_equal(rq_kmsg_record_text(bare, strlen(bare), text,
					     sizeof(text)), 0);
	assert_string_equal(text, "no newline");
	assert_int_equal(rq_kmsg_record_text(rec, strlen(rec), tiny,
					     sizeof(tiny)), 0);
	assert_string_equal(tiny, "device-");
	assert_int_equal(rq_kmsg_record_text("garbage", 7, text,
					     sizeof(text)), -1);
}

static void kmsg_relevance(void **state)
{
	(void)state;
	assert_true(rq_kmsg_is_relevant("device-mapper: ioctl: error"));
	assert_true(rq_kmsg_is_relevant("rqpath: fail_path: 8:48 is not a "
					"path"));
	assert_false(rq_kmsg_is_relevant("EXT4-fs (sda1): mounted"));
}

static void resolves_major_minor_without_io(void **state)
{
	unsigned int major, minor;

	(void)state;
	assert_int_equal(rq_resolve_dev("8:16", &major, &minor), 0);
	assert_int_equal(major, 8);
	assert_int_equal(minor, 16);
	/* a character device and a missing file are not block devices */
	assert_int_equal(rq_resolve_dev("/dev/null", &major, &minor), -1);
	assert_int_equal(rq_resolve_dev("/nonexistent/rqpath", &major,
					&minor), -1);
}

static void probe_refuses_non_block_devices(void **state)
{
	char path[] = "/tmp/rqpathctl-test-XXXXXX";
	struct rq_blockdev bdev;
	char err[256];
	int fd;

	(void)state;
	assert_int_equal(rq_blockdev_probe("/nonexistent/rqpath", &bdev, err,
					   sizeof(err)), -1);
	assert_non_null(strstr(err, "cannot open /nonexistent/rqpath"));

	assert_int_equal(rq_blockdev_probe("/dev/null", &bdev, err,
					   sizeof(err)), -1);
	assert_non_null(strstr(err, "/dev/null is not a block device"));

	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(rq_blockdev_probe(path, &bdev, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "is not a block device"));
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(udev_sync_needs_udevd_and_notify_rule),
		cmocka_unit_test(environment_forces_no_udev),
		cmocka_unit_test(probe_reads_the_environment),
		cmocka_unit_test(kmsg_record_text),
		cmocka_unit_test(kmsg_relevance),
		cmocka_unit_test(resolves_major_minor_without_io),
		cmocka_unit_test(probe_refuses_non_block_devices),
	};

	return cmocka_run_group_tests_name("rq_sys", tests, NULL, NULL);
}

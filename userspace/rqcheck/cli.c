// SPDX-License-Identifier: GPL-2.0
/*
 * rqcheck command line parsing and usage text.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rq_duration.h"
#include "run.h"

enum {
	OPT_BS = 256,
	OPT_OFFSET,
	OPT_SIZE,
	OPT_QD,
	OPT_BATCH,
	OPT_ENGINE,
	OPT_ORDER,
	OPT_STRIDE,
	OPT_WINDOW,
	OPT_SEED,
	OPT_CPU,
	OPT_PASSES,
	OPT_TIME,
	OPT_PREFILL,
	OPT_JSON,
	OPT_MAX_REPORT,
	OPT_GEN,
	OPT_VERIFY_ONLY,
	OPT_WRITE_ONLY,
	OPT_FORCE,
	OPT_VERSION,
};

static const struct option long_opts[] = {
	{ "bs",		 required_argument, NULL, OPT_BS },
	{ "offset",	 required_argument, NULL, OPT_OFFSET },
	{ "size",	 required_argument, NULL, OPT_SIZE },
	{ "qd",		 required_argument, NULL, OPT_QD },
	{ "batch",	 required_argument, NULL, OPT_BATCH },
	{ "engine",	 required_argument, NULL, OPT_ENGINE },
	{ "order",	 required_argument, NULL, OPT_ORDER },
	{ "stride",	 required_argument, NULL, OPT_STRIDE },
	{ "window",	 required_argument, NULL, OPT_WINDOW },
	{ "seed",	 required_argument, NULL, OPT_SEED },
	{ "cpu",	 required_argument, NULL, OPT_CPU },
	{ "passes",	 required_argument, NULL, OPT_PASSES },
	{ "time",	 required_argument, NULL, OPT_TIME },
	{ "prefill",	 no_argument,	    NULL, OPT_PREFILL },
	{ "json",	 required_argument, NULL, OPT_JSON },
	{ "max-report",	 required_argument, NULL, OPT_MAX_REPORT },
	{ "quiet",	 no_argument,	    NULL, 'q' },
	{ "gen",	 required_argument, NULL, OPT_GEN },
	{ "verify-only", no_argument,	    NULL, OPT_VERIFY_ONLY },
	{ "write-only",	 no_argument,	    NULL, OPT_WRITE_ONLY },
	{ "force",	 no_argument,	    NULL, OPT_FORCE },
	{ "help",	 no_argument,	    NULL, 'h' },
	{ "version",	 no_argument,	    NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

void cli_defaults(struct rq_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->bs = 4096;
	cfg->qd = 32;
	cfg->batch = 1;
	cfg->engine = ENGINE_IO_URING;
	cfg->order = ORDER_DESC;
	cfg->stride = 2;
	cfg->cpu = -1;
	cfg->passes = 1;
	cfg->max_report = 64;
	cfg->gen = 1;
}

/* digits in base 10, or 0x + hex digits; the whole string up to @end */
static int parse_digits(const char *s, uint64_t *out, const char **end)
{
	unsigned long long v;
	int base = 10;
	char *e;

	if (!isdigit((unsigned char)s[0]))
		return -1;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		if (!isxdigit((unsigned char)s[2]))
			return -1;
	}
	errno = 0;
	v = strtoull(s, &e, base);
	if (errno)
		return -1;
	*out = v;
	*end = e;
	return 0;
}

int cli_parse_u64(const char *s, uint64_t *out)
{
	const char *end;

	if (parse_digits(s, out, &end) || *end)
		return -1;
	return 0;
}

int cli_parse_size(const char *s, uint64_t *out)
{
	const char *end;
	unsigned int shift = 0;
	uint64_t v;

	if (parse_digits(s, &v, &end))
		return -1;
	if (*end) {
		switch (tolower((unsigned char)*end)) {
		case 'k':
			shift = 10;
			break;
		case 'm':
			shift = 20;
			break;
		case 'g':
			shift = 30;
			break;
		case 't':
			shift = 40;
			break;
		default:
			return -1;
		}
		if (end[1])
			return -1;
	}
	if (shift && v > (UINT64_MAX >> shift))
		return -1;
	*out = v << shift;
	return 0;
}

static void set_err(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_err(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!err || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

/* a counting option that must fit in [min, max] */
static int parse_uint(const char *opt, const char *arg, uint64_t min,
		      uint64_t max, uint64_t *out, char *err, size_t errlen)
{
	if (cli_parse_u64(arg, out)) {
		set_err(err, errlen, "--%s: '%s' is not a number", opt, arg);
		return -1;
	}
	if (*out < min || *out > max) {
		set_err(err, errlen, "--%s: %s is out of range [%llu, %llu]",
			opt, arg, (unsigned long long)min,
			(unsigned long long)max);
		return -1;
	}
	return 0;
}

static int parse_sz(const char *opt, const char *arg, uint64_t *out,
		    char *err, size_t errlen)
{
	if (cli_parse_size(arg, out)) {
		set_err(err, errlen,
			"--%s: '%s' is not a size (number with optional k, m, g or t)",
			opt, arg);
		return -1;
	}
	return 0;
}

static enum cli_result check_config(struct rq_config *cfg, bool size_set,
				    bool stride_set, bool window_set,
				    bool time_set,
				    char *err, size_t errlen)
{
	if (cfg->bs < 512 || cfg->bs % 512 || cfg->bs > CLI_MAX_BS) {
		set_err(err, errlen,
			"--bs: %llu is not a multiple of 512 in [512, %llu]",
			(unsigned long long)cfg->bs,
			(unsigned long long)CLI_MAX_BS);
		return CLI_ERROR;
	}
	if (cfg->offset % 512) {
		set_err(err, errlen, "--offset: %llu is not a multiple of 512",
			(unsigned long long)cfg->offset);
		return CLI_ERROR;
	}
	if (size_set && (!cfg->size || cfg->size % cfg->bs)) {
		set_err(err, errlen,
			"--size: %llu is not a non-zero multiple of --bs %llu",
			(unsigned long long)cfg->size,
			(unsigned long long)cfg->bs);
		return CLI_ERROR;
	}
	if (size_set && cfg->offset > UINT64_MAX - cfg->size) {
		set_err(err, errlen, "--offset + --size overflows");
		return CLI_ERROR;
	}
	if (cfg->batch > cfg->qd) {
		set_err(err, errlen, "--batch %u is larger than --qd %u",
			cfg->batch, cfg->qd);
		return CLI_ERROR;
	}
	if (stride_set && !order_is_interleave(cfg->order)) {
		set_err(err, errlen, "--stride only applies to --order interleave");
		return CLI_ERROR;
	}
	if (window_set && !order_is_interleave(cfg->order)) {
		set_err(err, errlen, "--window only applies to --order interleave");
		return CLI_ERROR;
	}
	if (cfg->prefill && cfg->gen == 0) {
		set_err(err, errlen,
			"--gen 0 is the --prefill generation; use --gen 1 or more");
		return CLI_ERROR;
	}
	if (cfg->gen > UINT64_MAX - cfg->passes) {
		set_err(err, errlen, "--gen + --passes overflows");
		return CLI_ERROR;
	}
	if (cfg->verify_only) {
		if (cfg->write_only || cfg->prefill || time_set ||
		    cfg->passes != 1) {
			set_err(err, errlen,
				"--verify-only does not go with --write-only, --prefill, --time or --passes");
			return CLI_ERROR;
		}
	}
	return CLI_OK;
}

enum cli_result cli_parse(int argc, char **argv, struct rq_config *cfg,
			  char *err, size_t errlen)
{
	bool size_set = false, stride_set = false, time_set = false;
	bool window_set = false;
	uint64_t v;
	int c;

	cli_defaults(cfg);
	set_err(err, errlen, "bad command line");
	if (argc < 1)
		return CLI_ERROR;

	optind = 0;		/* glibc: full re-initialisation */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hq", long_opts, NULL)) != -1) {
		const char *name = NULL;
		const struct option *o;

		for (o = long_opts; o->name; o++)
			if (o->val == c)
				name = o->name;

		switch (c) {
		case 'h':
			return CLI_HELP;
		case OPT_VERSION:
			return CLI_VERSION;
		case OPT_BS:
			if (parse_sz(name, optarg, &cfg->bs, err, errlen))
				return CLI_ERROR;
			break;
		case OPT_OFFSET:
			if (parse_sz(name, optarg, &cfg->offset, err, errlen))
				return CLI_ERROR;
			break;
		case OPT_SIZE:
			if (parse_sz(name, optarg, &cfg->size, err, errlen))
				return CLI_ERROR;
			size_set = true;
			break;
		case OPT_QD:
			if (parse_uint(name, optarg, 1, CLI_MAX_QD, &v, err,
				       errlen))
				return CLI_ERROR;
			cfg->qd = (unsigned int)v;
			break;
		case OPT_BATCH:
			if (parse_uint(name, optarg, 1, CLI_MAX_QD, &v, err,
				       errlen))
				return CLI_ERROR;
			cfg->batch = (unsigned int)v;
			break;
		case OPT_ENGINE:
			if (engine_parse(optarg, &cfg->engine)) {
				set_err(err, errlen,
					"--engine: '%s' is not io_uring or aio",
					optarg);
				return CLI_ERROR;
			}
			break;
		case OPT_ORDER:
			if (order_parse(optarg, &cfg->order)) {
				set_err(err, errlen,
					"--order: '%s' is not desc, asc, random, interleave or interleave-alternate",
					optarg);
				return CLI_ERROR;
			}
			break;
		case OPT_STRIDE:
			if (parse_uint(name, optarg, 1, CLI_MAX_STRIDE, &v,
				       err, errlen))
				return CLI_ERROR;
			cfg->stride = (unsigned int)v;
			stride_set = true;
			break;
		case OPT_WINDOW:
			if (parse_uint(name, optarg, 1, UINT32_MAX, &v,
				       err, errlen))
				return CLI_ERROR;
			cfg->window = v;
			window_set = true;
			break;
		case OPT_SEED:
			if (cli_parse_u64(optarg, &cfg->seed)) {
				set_err(err, errlen,
					"--seed: '%s' is not a 64-bit number",
					optarg);
				return CLI_ERROR;
			}
			cfg->seed_set = true;
			break;
		case OPT_CPU:
			if (parse_uint(name, optarg, 0, CPU_SETSIZE - 1, &v,
				       err, errlen))
				return CLI_ERROR;
			cfg->cpu = (int)v;
			break;
		case OPT_PASSES:
			if (parse_uint(name, optarg, 1, UINT64_MAX / 2,
				       &cfg->passes, err, errlen))
				return CLI_ERROR;
			cfg->passes_set = true;
			break;
		case OPT_TIME:
			if (rq_parse_duration(optarg, RQ_BARE_SECONDS,
					      &cfg->time_s) ||
			    cfg->time_s <= 0 || cfg->time_s > 1e9) {
				set_err(err, errlen,
					"--time: '%s' is not a positive duration (seconds, or with ms, s, m or h)",
					optarg);
				return CLI_ERROR;
			}
			time_set = true;
			break;
		case OPT_PREFILL:
			cfg->prefill = true;
			break;
		case OPT_JSON:
			if (!optarg[0]) {
				set_err(err, errlen,
					"--json: empty file name (use - for stdout)");
				return CLI_ERROR;
			}
			cfg->json = optarg;
			break;
		case OPT_MAX_REPORT:
			if (parse_uint(name, optarg, 0, 1000000, &v, err,
				       errlen))
				return CLI_ERROR;
			cfg->max_report = (unsigned int)v;
			break;
		case 'q':
			cfg->quiet = true;
			break;
		case OPT_GEN:
			if (parse_uint(name, optarg, 0, UINT64_MAX / 2,
				       &cfg->gen, err, errlen))
				return CLI_ERROR;
			cfg->gen_set = true;
			break;
		case OPT_VERIFY_ONLY:
			cfg->verify_only = true;
			break;
		case OPT_WRITE_ONLY:
			cfg->write_only = true;
			break;
		case OPT_FORCE:
			cfg->force = true;
			break;
		case ':':
			set_err(err, errlen, "option '%s' needs an argument",
				argv[optind - 1]);
			return CLI_ERROR;
		case '?':
		default:
			if (!strncmp(argv[optind - 1], "--", 2) &&
			    strchr(argv[optind - 1], '=') && optopt)
				set_err(err, errlen,
					"option '%s' takes no argument",
					argv[optind - 1]);
			else if (optopt && optopt < 256 && isprint(optopt))
				set_err(err, errlen, "unknown option '-%c'",
					optopt);
			else
				set_err(err, errlen, "unknown option '%s'",
					argv[optind - 1]);
			return CLI_ERROR;
		}
	}
	if (optind >= argc) {
		set_err(err, errlen, "no target given");
		return CLI_ERROR;
	}
	if (optind + 1 < argc) {
		set_err(err, errlen, "more than one target given ('%s')",
			argv[optind + 1]);
		return CLI_ERROR;
	}
	cfg->target = argv[optind];
	if (!cfg->target[0]) {
		set_err(err, errlen, "empty target name");
		return CLI_ERROR;
	}
	return check_config(cfg, size_set, stride_set, window_set, time_set,
			    err, errlen);
}

void cli_usage(FILE *f, const char *prog)
{
	fprintf(f,
"Usage: %s [OPTIONS] TARGET\n"
"\n"
"Data-integrity checker for the rqpath reproducer.  Writes self-describing\n"
"blocks over a region of TARGET (a block device or a regular file, always\n"
"opened O_DIRECT), reads them back, and classifies every bad block.\n"
"ALL DATA IN THE REGION IS OVERWRITTEN.\n"
"\n"
"Region and I/O shape:\n"
"  --bs SIZE          block size, a multiple of 512 (default 4k)\n"
"  --offset SIZE      start of the region in bytes, multiple of 512 (default 0)\n"
"  --size SIZE        length of the region, multiple of --bs (default: to the\n"
"                     end of TARGET, rounded down to a whole block)\n"
"  --qd N             queue depth, I/Os in flight (default 32, max %u)\n"
"  --batch N          I/Os handed to the kernel per submit syscall (default 1,\n"
"                     at most --qd).  This decides block-layer plugging:\n"
"                     io_uring plugs when more than 2 SQEs are submitted at\n"
"                     once, Linux AIO when io_submit() gets nr > 2\n"
"  --engine E         io_uring (default) or aio (raw io_setup/io_submit/\n"
"                     io_getevents; use it on kernels without io_uring, e.g. 4.19)\n"
"  --order O          order in which blocks are written and read back:\n"
"                       desc        last block first, down to block 0 (default)\n"
"                       asc         block 0 first\n"
"                       random      a shuffle seeded by (seed, generation)\n"
"                       interleave  --stride descending passes: pass c visits\n"
"                                   the blocks i with i %% stride == c, from the\n"
"                                   highest down.  With stride 2: all even blocks,\n"
"                                   then all odd blocks, so each odd block i is\n"
"                                   submitted after block i+1 and lies right in\n"
"                                   front of it: a front-merge candidate\n"
"                       interleave-alternate\n"
"                                   interleave with --window, every second\n"
"                                   window ascending (whether a kernel issues\n"
"                                   a plug newest first or in order, some\n"
"                                   windows give it front-merge candidates)\n"
"  --stride N         number of interleave classes (default 2)\n"
"  --window N         interleave window by window, N blocks each, from the\n"
"                     top down (default: one window, the whole region)\n"
"\n"
"Run:\n"
"  --seed N           run seed, decimal or 0x hex (default: from the clock;\n"
"                     always printed)\n"
"  --passes N         write+verify generations (default 1)\n"
"  --time DURATION    repeat generations until DURATION has passed or\n"
"                     corruption was found, whichever comes first; the\n"
"                     running generation is always finished.  With --passes\n"
"                     too, --passes is a maximum.  DURATION: seconds, or a\n"
"                     number with ms, s, m or h (500ms, 1.5s, 2m)\n"
"  --prefill          first write generation 0 over the region (not verified),\n"
"                     so that a lost write of a later generation reads as\n"
"                     'stale' instead of 'unwritten'\n"
"  --cpu N            pin the process to CPU N (sched_setaffinity)\n"
"  --force            write even to a block device that is in use; without\n"
"                     it, the write modes open a block device O_EXCL and\n"
"                     refuse one that is mounted or held (device-mapper, md)\n"
"\n"
"Output:\n"
"  --json FILE        also write a JSON report to FILE ('-' = stdout; the\n"
"                     text report then goes to stderr).  FILE is created\n"
"                     before anything else is done: a bad path costs nothing\n"
"  --max-report N     bad blocks listed in detail (default 64; counts are\n"
"                     always complete)\n"
"  -q, --quiet        print only the final result line and errors\n"
"  -h, --help         this text\n"
"      --version      print the version\n"
"\n"
"Forensics and tests:\n"
"  --gen N            number of the first generation written (default 1);\n"
"                     generations are N, N+1, ...; 0 is reserved to --prefill\n"
"  --verify-only      do not write: read the region back and check it holds\n"
"                     generation --gen of --seed.  Without them, the seed and\n"
"                     generation come from the block headers found in the\n"
"                     region (without headers: --gen defaults to 1, --seed\n"
"                     is needed); given ones win, with a warning if the\n"
"                     headers disagree.  The format does not record the\n"
"                     region's length: give --size to have a short target\n"
"                     refused\n"
"  --write-only       write the generations, do not read back\n"
"\n"
"Block format: every 512-byte sector starts with a 56-byte header (magic\n"
"\"RQCHKSEC\", its own LBA in 512-byte units, region-relative block index,\n"
"generation, seed, sector index within the block, sectors per block, format\n"
"version, CRC32C); the rest is a pattern derived from (seed, LBA, generation).\n"
"Read buffers are filled with a poison pattern before every read.\n"
"\n"
"Classes of bad blocks:\n"
"  stale      intact sectors of this LBA, but another (older) generation or\n"
"             seed: a lost write\n"
"  unwritten  no valid header in any sector (zeros, garbage, bad checksum)\n"
"  misplaced  intact sectors of one consistent block of another LBA\n"
"  torn       the sectors disagree: mixed generations, LBAs or validity\n"
"  unfilled   the read buffer still holds the poison pattern (the read\n"
"             completed without data); partly poisoned blocks whose other\n"
"             sectors are good count here too\n"
"Each bad block is read again with a synchronous pread() into a fresh\n"
"buffer: if the re-read is good the corruption was in the read path,\n"
"otherwise it is on disk.  Both classes are reported.\n"
"\n"
"Exit status:\n"
"  0  clean: every block written was verified good\n"
"  1  corruption found\n"
"  2  usage error\n"
"  3  I/O error (a read or write failed) or setup failure; wins over 1.\n"
"     A read or write the kernel answers EAGAIN (not done) is no error:\n"
"     it is submitted again, up to %u times, and counted\n"
"  4  interrupted (SIGINT, SIGTERM) before the end; 1 and 3 win over it\n",
		prog, CLI_MAX_QD, RUN_EAGAIN_RETRIES);
}

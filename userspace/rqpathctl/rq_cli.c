// SPDX-License-Identifier: GPL-2.0
/*
 * rqpathctl command line parsing.  Hand-written rather than getopt_long so
 * that it keeps no global state (the tests parse many command lines in one
 * process) and so that each subcommand accepts exactly its own options.
 */
#include "rq_cli.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "rq_duration.h"

enum opt_id {
	OPT_QUEUE_IF_NO_PATH,
	OPT_JSON_OPTIONAL,	/* status --json[=FILE] */
	OPT_JSON_FILE,		/* watch --json FILE */
	OPT_FIELDS,
	OPT_INTERVAL,
	OPT_STALL,
	OPT_TIMEOUT,
	OPT_FOLLOW,
	OPT_SAMPLES_FILE,	/* watch --samples FILE */
	OPT_VIA,
};

enum opt_arg {
	ARG_NONE,
	ARG_REQUIRED,		/* --opt VALUE or --opt=VALUE */
	/*
	 * --opt or --opt=VALUE: status --json has always been a flag, and
	 * "status --json NAME" must keep meaning the device NAME.
	 */
	ARG_OPTIONAL,
};

struct opt_spec {
	const char *name;	/* without the leading "--" */
	enum opt_arg arg;
	enum opt_id id;
};

struct cmd_spec {
	enum rq_cmd cmd;
	const char *name;
	unsigned int min_args;	/* positional arguments, NAME included */
	unsigned int max_args;
	const struct opt_spec *opts;
	const char *synopsis;
	const char *help;
};

static const struct opt_spec create_opts[] = {
	{ "queue-if-no-path", ARG_NONE, OPT_QUEUE_IF_NO_PATH },
	{ NULL, ARG_NONE, 0 },
};

static const struct opt_spec status_opts[] = {
	{ "json", ARG_OPTIONAL, OPT_JSON_OPTIONAL },
	{ "fields", ARG_REQUIRED, OPT_FIELDS },
	{ NULL, ARG_NONE, 0 },
};

static const struct opt_spec watch_opts[] = {
	{ "interval", ARG_REQUIRED, OPT_INTERVAL },
	{ "stall", ARG_REQUIRED, OPT_STALL },
	{ "timeout", ARG_REQUIRED, OPT_TIMEOUT },
	{ "json", ARG_REQUIRED, OPT_JSON_FILE },
	{ "follow", ARG_NONE, OPT_FOLLOW },
	{ "samples", ARG_REQUIRED, OPT_SAMPLES_FILE },
	{ "via", ARG_REQUIRED, OPT_VIA },
	{ NULL, ARG_NONE, 0 },
};

static const struct opt_spec no_opts[] = {
	{ NULL, ARG_NONE, 0 },
};

#define MANY_ARGS 1000

static const struct cmd_spec commands[] = {
	{ RQ_CMD_CREATE, "create", 2, 1 + RQ_MAX_PATHS, create_opts,
	  "create NAME PATH... [--queue-if-no-path]",
	  "Create and resume the rqpath device NAME over the block devices\n"
	  "PATH... (1 to 32).  Its size is that of the smallest path.  With\n"
	  "--queue-if-no-path, I/O waits for a path instead of failing when\n"
	  "every path is down.  If loading the table fails, the half-made\n"
	  "device is removed again and the kernel's reason is shown.\n" },
	{ RQ_CMD_REMOVE, "remove", 1, 1, no_opts,
	  "remove NAME",
	  "Remove the device NAME.\n" },
	{ RQ_CMD_STATUS, "status", 1, 1, status_opts,
	  "status NAME [--json | --json - | --json=FILE] [--fields LIST]",
	  "Show the parsed status of NAME: paths with state and fail count,\n"
	  "queueing, requests in flight and the counters of each operation.\n"
	  "  --json         one JSON object instead (schema in README.md), on\n"
	  "                 stdout; --json=FILE writes it to FILE (FILE\n"
	  "                 needs the '=': a word after --json is NAME)\n"
	  "  --fields LIST  only the fields of LIST (comma-separated, or all),\n"
	  "                 one RQ_<FIELD>=<value> line each, quoted for eval:\n"
	  "                 nr_paths nr_active queue_if_no_path in_flight\n"
	  "                 busy_since_completion no_path_requeues\n"
	  "                 no_clone_requeues; totals mapped busy completed\n"
	  "                 errors refused; paths (dev:state list); per op\n"
	  "                 <op>_mapped _busy _completed _errors _refused\n"
	  "                 _busy_since_completion (op: read write flush\n"
	  "                 discard write_zeroes other); per path N (1-based)\n"
	  "                 path<N>_dev _state _fail_count _dispatched.  A\n"
	  "                 value the target does not report is empty ('')\n" },
	{ RQ_CMD_TABLE, "table", 1, 1, no_opts,
	  "table NAME",
	  "Print the live table line of NAME as the kernel reports it.\n" },
	{ RQ_CMD_FAIL_PATH, "fail-path", 2, 2, no_opts,
	  "fail-path NAME PATH",
	  "Mark PATH (device node or major:minor) failed in NAME.\n" },
	{ RQ_CMD_REINSTATE_PATH, "reinstate-path", 2, 2, no_opts,
	  "reinstate-path NAME PATH",
	  "Mark PATH (device node or major:minor) active again in NAME.\n" },
	{ RQ_CMD_MESSAGE, "message", 2, MANY_ARGS, no_opts,
	  "message NAME TEXT...",
	  "Send the words TEXT... as one message to the target of NAME\n"
	  "(sector 0), e.g. 'queue_if_no_path' or 'reset_counters'.\n" },
	{ RQ_CMD_WATCH, "watch", 1, 1, watch_opts,
	  "watch NAME|/dev/dm-N [--interval TIME] [--stall TIME] [--timeout TIME]\n"
	  "                 [--json FILE] [--follow] [--samples FILE]\n"
	  "                 [--via auto|status|trace|counters]",
	  "Watch a request-based dm device and decide between drained and\n"
	  "livelock.  --via status (the default for dm-rqpath): sample the\n"
	  "rqpath status counters, as below.  --via trace (the default for\n"
	  "any other map, e.g. dm-multipath): the block request tracepoints\n"
	  "of the map and its paths, per request: one request refused over\n"
	  "and over while nothing of its op class completes, with proof the\n"
	  "paths had room, is a livelock (typically well under 1 s); no\n"
	  "usable path with queue_if_no_path is queueing, not livelock.\n"
	  "Without tracefs it says so and falls back to --via counters\n"
	  "(/sys/block/dm-N/inflight and stat: slow or not, never livelock).\n"
	  "NAME may be a device-mapper name or a block node (/dev/dm-N,\n"
	  "/dev/mapper/NAME).  README.md has both rules in full.\n"
	  "--via status: sample the status of NAME.\n"
	  "Livelock: requests in flight, and one op's busy hand-backs rising\n"
	  "while its completions stay flat for --stall (on a target without\n"
	  "per-op busy_since_completion: the sums over all ops).\n"
	  "TIME: seconds, or a number with ms, s, m or h (200ms, 1.5s, 2m).\n"
	  "  --interval TIME    sampling interval (default 200ms; a bare\n"
	  "                     number here is milliseconds, as it always was)\n"
	  "  --stall TIME       flat completions that mean livelock (default 3)\n"
	  "  --timeout TIME     give up without a decision after this long\n"
	  "  --json FILE        write the verdict, latency, stuck ops and\n"
	  "                     counter deltas to FILE (- is stdout; the\n"
	  "                     progress lines and report then go to stderr)\n"
	  "  --follow           watch a whole workload: in_flight 0 does not\n"
	  "                     end the watch (phase idle, windows restart);\n"
	  "                     it ends at livelock, or at --timeout or\n"
	  "                     SIGINT/SIGTERM with verdict quiet (no\n"
	  "                     livelock) or stall\n"
	  "  --samples FILE     one JSON line per sample to FILE (- is\n"
	  "                     stdout): its time, in_flight, and mapped,\n"
	  "                     busy and completed of every op in use\n"
	  "  --via MODE         auto (default), status, trace or counters\n"
	  "Exit: 0 drained or quiet, 1 livelock, 2 usage, 3 error (device\n"
	  "missing or vanished, status unreadable), 4 timeout, stall or\n"
	  "interrupted.\n" },
};

#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))
#define MAX_POSITIONAL 256

static int usage_error(struct rq_cli *cli, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int usage_error(struct rq_cli *cli, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cli->error, sizeof(cli->error), fmt, ap);
	va_end(ap);
	return RQ_EXIT_USAGE;
}

static const struct cmd_spec *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static const struct cmd_spec *spec_of(enum rq_cmd cmd)
{
	size_t i;

	for (i = 0; i < NR_COMMANDS; i++)
		if (commands[i].cmd == cmd)
			return &commands[i];
	return NULL;
}

const char *rq_cmd_name(enum rq_cmd cmd)
{
	const struct cmd_spec *spec = spec_of(cmd);

	return spec ? spec->name : "rqpathctl";
}

/*
 * A TIME option: rq_parse_duration() with the option's unit for a bare
 * number, then a range in seconds.
 */
static int parse_time(const char *text, enum rq_bare_unit bare, double min,
		      double max, double *out)
{
	double v;

	if (rq_parse_duration(text, bare, &v) || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

/* --interval: whole milliseconds, 1 to 60000 (the JSON says interval_ms). */
static int parse_interval(const char *text, unsigned int *ms_out)
{
	double s, ms;

	if (parse_time(text, RQ_BARE_MILLISECONDS, 0.001,
		       RQ_WATCH_INTERVAL_MAX_MS / 1000.0, &s))
		return -1;
	ms = s * 1000;
	if (fabs(ms - round(ms)) > 1e-6)
		return -1;
	*ms_out = (unsigned int)round(ms);
	return 0;
}

static bool has_blank(const char *s)
{
	for (; *s; s++)
		if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
			return true;
	return false;
}

static int check_device_name(struct rq_cli *cli, const char *name)
{
	const char *cmd = rq_cmd_name(cli->cmd);

	if (!*name)
		return usage_error(cli, "%s: NAME must not be empty", cmd);
	if (strlen(name) > RQ_NAME_MAX)
		return usage_error(cli, "%s: NAME is longer than %d characters",
				   cmd, RQ_NAME_MAX);
	/* The name becomes /dev/mapper/NAME. */
	if (strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return usage_error(cli, "%s: NAME '%s' cannot be a file name "
				   "in /dev/mapper", cmd, name);
	if (has_blank(name))
		return usage_error(cli, "%s: NAME must not contain white space",
				   cmd);
	return RQ_EXIT_OK;
}

static int check_path_arg(struct rq_cli *cli, const char *path)
{
	/* Paths go into a table or a message split on white space. */
	if (!*path || has_blank(path))
		return usage_error(cli, "%s: PATH '%s' is empty or contains "
				   "white space", rq_cmd_name(cli->cmd), path);
	return RQ_EXIT_OK;
}

static int join_message(struct rq_cli *cli, char *const words[],
			unsigned int nr_words)
{
	size_t used = 0;
	unsigned int i;

	for (i = 0; i < nr_words; i++) {
		size_t len = strlen(words[i]);

		if (!len)
			return usage_error(cli, "message: empty word in TEXT");
		if (used + len + 1 >= sizeof(cli->message))
			return usage_error(cli, "message: TEXT is longer than "
					   "%zu characters",
					   sizeof(cli->message) - 1);
		if (used)
			cli->message[used++] = ' ';
		memcpy(cli->message + used, words[i], len);
		used += len;
		cli->message[used] = '\0';
	}
	return RQ_EXIT_OK;
}

static int apply_json(struct rq_cli *cli, const char *value)
{
	if (value && !*value)
		return usage_error(cli, "%s: --json needs a file name (- is "
				   "stdout)", rq_cmd_name(cli->cmd));
	cli->json = true;
	cli->json_file = value ? value : "-";
	return RQ_EXIT_OK;
}

static int apply_fields(struct rq_cli *cli, const char *value)
{
	char why[192];

	if (rq_fields_parse(value, &cli->fields, why, sizeof(why)))
		return usage_error(cli, "%s: --fields: %s",
				   rq_cmd_name(cli->cmd), why);
	cli->has_fields = true;
	return RQ_EXIT_OK;
}

static int apply_option(struct rq_cli *cli, const struct opt_spec *opt,
			const char *value)
{
	const char *cmd = rq_cmd_name(cli->cmd);

	switch (opt->id) {
	case OPT_QUEUE_IF_NO_PATH:
		cli->queue_if_no_path = true;
		return RQ_EXIT_OK;
	case OPT_JSON_OPTIONAL:
	case OPT_JSON_FILE:
		return apply_json(cli, value);
	case OPT_FIELDS:
		return apply_fields(cli, value);
	case OPT_INTERVAL:
		cli->has_interval = true;
		if (parse_interval(value, &cli->interval_ms))
			return usage_error(cli, "%s: --interval '%s': expected "
					   "whole milliseconds from 1ms to "
					   "60s (a bare number is ms)", cmd,
					   value);
		return RQ_EXIT_OK;
	case OPT_STALL:
		if (parse_time(value, RQ_BARE_SECONDS, 0.001, 86400,
			       &cli->stall_s))
			return usage_error(cli, "%s: --stall '%s': expected "
					   "a time from 1ms to 24h", cmd,
					   value);
		return RQ_EXIT_OK;
	case OPT_TIMEOUT:
		if (parse_time(value, RQ_BARE_SECONDS, 0.001, 31536000,
			       &cli->timeout_s))
			return usage_error(cli, "%s: --timeout '%s': expected "
					   "a time from 1ms to a year", cmd,
					   value);
		cli->has_timeout = true;
		return RQ_EXIT_OK;
	case OPT_FOLLOW:
		cli->follow = true;
		return RQ_EXIT_OK;
	case OPT_VIA:
		if (!strcmp(value, "auto"))
			cli->via = RQ_VIA_AUTO;
		else if (!strcmp(value, "status"))
			cli->via = RQ_VIA_STATUS;
		else if (!strcmp(value, "trace"))
			cli->via = RQ_VIA_TRACE;
		else if (!strcmp(value, "counters"))
			cli->via = RQ_VIA_COUNTERS;
		else
			return usage_error(cli, "%s: --via '%s': expected auto, "
					   "status, trace or counters", cmd,
					   value);
		return RQ_EXIT_OK;
	case OPT_SAMPLES_FILE:
		if (!*value)
			return usage_error(cli, "%s: --samples needs a file "
					   "name (- is stdout)", cmd);
		cli->samples_file = value;
		return RQ_EXIT_OK;
	}
	return usage_error(cli, "%s: internal error: option", cmd);
}

/* Handle argv[*i], an option of the subcommand; may consume a value. */
static int parse_option(struct rq_cli *cli, const struct cmd_spec *spec,
			int argc, char *const argv[], int *i)
{
	const char *arg = argv[*i];
	const char *eq = strchr(arg, '=');
	size_t name_len = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
	const struct opt_spec *opt;

	if (arg[1] != '-')
		return usage_error(cli, "%s: unknown option '%s'", spec->name,
				   arg);
	for (opt = spec->opts; opt->name; opt++)
		if (strlen(opt->name) == name_len &&
		    !strncmp(opt->name, arg + 2, name_len))
			break;
	if (!opt->name)
		return usage_error(cli, "%s: unknown option '%.*s'", spec->name,
				   (int)(name_len + 2), arg);
	if (opt->arg == ARG_NONE) {
		if (eq)
			return usage_error(cli, "%s: option '--%s' takes no "
					   "value", spec->name, opt->name);
		return apply_option(cli, opt, NULL);
	}
	if (eq)
		return apply_option(cli, opt, eq + 1);
	/* "-" cannot be a FILE taken for NAME: --json - works as anywhere */
	if (opt->arg == ARG_OPTIONAL && *i + 1 < argc &&
	    !strcmp(argv[*i + 1], "-")) {
		*i += 1;
		return apply_option(cli, opt, argv[*i]);
	}
	if (opt->arg == ARG_OPTIONAL)
		return apply_option(cli, opt, NULL);
	if (*i + 1 >= argc)
		return usage_error(cli, "%s: option '--%s' needs a value",
				   spec->name, opt->name);
	*i += 1;
	return apply_option(cli, opt, argv[*i]);
}

static bool is_help(const char *arg)
{
	return !strcmp(arg, "--help") || !strcmp(arg, "-h");
}

static bool wants_help(int argc, char *const argv[], int first)
{
	int i;

	for (i = first; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return false;
		if (is_help(argv[i]))
			return true;
	}
	return false;
}

static const char *missing_arg_name(const struct cmd_spec *spec,
				    unsigned int nr_pos)
{
	if (nr_pos == 0)
		return "NAME";
	switch (spec->cmd) {
	case RQ_CMD_CREATE:
	case RQ_CMD_FAIL_PATH:
	case RQ_CMD_REINSTATE_PATH:
		return "PATH";
	case RQ_CMD_MESSAGE:
		return "TEXT";
	default:
		return "an argument";
	}
}

static int assign_positionals(struct rq_cli *cli, const struct cmd_spec *spec,
			      char *const pos[], unsigned int nr_pos)
{
	unsigned int i;
	int rc;

	if (nr_pos < spec->min_args)
		return usage_error(cli, "%s: missing %s", spec->name,
				   missing_arg_name(spec, nr_pos));
	if (nr_pos > spec->max_args) {
		if (spec->cmd == RQ_CMD_CREATE)
			return usage_error(cli, "create: at most %d paths",
					   RQ_MAX_PATHS);
		return usage_error(cli, "%s: unexpected argument '%s'",
				   spec->name, pos[spec->max_args]);
	}

	cli->name = pos[0];
	/* watch also takes a block node of the map */
	if (spec->cmd == RQ_CMD_WATCH && !strncmp(cli->name, "/dev/", 5))
		return has_blank(cli->name) ?
		       usage_error(cli, "watch: NAME must not contain white "
				   "space") : RQ_EXIT_OK;
	rc = check_device_name(cli, cli->name);
	if (rc)
		return rc;

	switch (spec->cmd) {
	case RQ_CMD_CREATE:
		cli->nr_paths = nr_pos - 1;
		for (i = 0; i < cli->nr_paths; i++) {
			rc = check_path_arg(cli, pos[i + 1]);
			if (rc)
				return rc;
			cli->paths[i] = pos[i + 1];
		}
		return RQ_EXIT_OK;
	case RQ_CMD_FAIL_PATH:
	case RQ_CMD_REINSTATE_PATH:
		cli->path = pos[1];
		return check_path_arg(cli, cli->path);
	case RQ_CMD_MESSAGE:
		return join_message(cli, pos + 1, nr_pos - 1);
	default:
		return RQ_EXIT_OK;
	}
}

static int parse_subcommand(struct rq_cli *cli, const struct cmd_spec *spec,
			    int argc, char *const argv[], int first)
{
	char *pos[MAX_POSITIONAL];
	unsigned int nr_pos = 0;
	bool options_done = false;
	int i, rc;

	cli->cmd = spec->cmd;
	if (wants_help(argc, argv, first)) {
		cli->help = true;
		return RQ_EXIT_OK;
	}
	for (i = first; i < argc; i++) {
		const char *arg = argv[i];

		if (!options_done && !strcmp(arg, "--")) {
			options_done = true;
			continue;
		}
		if (!options_done && arg[0] == '-' && arg[1]) {
			rc = parse_option(cli, spec, argc, argv, &i);
			if (rc)
				return rc;
			continue;
		}
		if (nr_pos == MAX_POSITIONAL)
			return usage_error(cli, "%s: too many arguments",
					   spec->name);
		pos[nr_pos++] = argv[i];
	}
	if (cli->json && cli->has_fields)
		return usage_error(cli, "%s: --json and --fields do not go "
				   "together", spec->name);
	/* Two documents interleaved on stdout could be read as neither. */
	if (cli->json && cli->samples_file &&
	    !strcmp(cli->json_file, "-") && !strcmp(cli->samples_file, "-"))
		return usage_error(cli, "%s: --json - and --samples - cannot "
				   "both use stdout", spec->name);
	return assign_positionals(cli, spec, pos, nr_pos);
}

static void set_defaults(struct rq_cli *cli)
{
	memset(cli, 0, sizeof(*cli));
	cli->cmd = RQ_CMD_NONE;
	cli->interval_ms = RQ_WATCH_INTERVAL_MS;
	cli->stall_s = RQ_WATCH_STALL_S;
}

/* "rqpathctl help [COMMAND]" is the same as "--help". */
static int parse_help_command(struct rq_cli *cli, int argc,
			      char *const argv[], int i)
{
	const struct cmd_spec *spec;

	cli->help = true;
	if (i + 1 >= argc)
		return RQ_EXIT_OK;
	if (i + 2 < argc)
		return usage_error(cli, "help: unexpected argument '%s'",
				   argv[i + 2]);
	spec = find_command(argv[i + 1]);
	if (!spec)
		return usage_error(cli, "help: unknown command '%s'",
				   argv[i + 1]);
	cli->cmd = spec->cmd;
	return RQ_EXIT_OK;
}

int rq_cli_parse(int argc, char *const argv[], struct rq_cli *cli)
{
	const struct cmd_spec *spec;
	int i;

	set_defaults(cli);
	for (i = 1; i < argc; i++) {
		const char *arg = argv[i];

		if (is_help(arg)) {
			cli->help = true;
			return RQ_EXIT_OK;
		}
		if (!strcmp(arg, "--version")) {
			cli->version = true;
			return RQ_EXIT_OK;
		}
		if (!strcmp(arg, "-v") || !strcmp(arg, "--verbose")) {
			cli->verbose = true;
			continue;
		}
		if (arg[0] == '-')
			return usage_error(cli, "unknown option '%s'", arg);
		break;
	}
	if (i >= argc)
		return usage_error(cli, "missing command");
	if (!strcmp(argv[i], "help"))
		return parse_help_command(cli, argc, argv, i);
	spec = find_command(argv[i]);
	if (!spec)
		return usage_error(cli, "unknown command '%s'", argv[i]);
	return parse_subcommand(cli, spec, argc, argv, i + 1);
}

void rq_cli_usage(FILE *out, enum rq_cmd cmd)
{
	const struct cmd_spec *spec = spec_of(cmd);
	size_t i;

	if (spec) {
		fprintf(out, "Usage: rqpathctl %s\n\n%s", spec->synopsis,
			spec->help);
		return;
	}
	fprintf(out,
		"Usage: rqpathctl [-v] COMMAND [ARGS...]\n"
		"       rqpathctl COMMAND --help\n\n"
		"Control devices of the rqpath device-mapper target.\n\n"
		"Commands:\n");
	for (i = 0; i < NR_COMMANDS; i++)
		fprintf(out, "  %s\n", commands[i].synopsis);
	fprintf(out,
		"\nOptions:\n"
		"  -v, --verbose   libdevmapper debug messages on stderr\n"
		"  -h, --help      this text\n"
		"      --version   print the version\n"
		"\nEnvironment:\n"
		"  RQPATHCTL_NOUDEV=1  never synchronise with udev; "
		"libdevmapper\n"
		"                      creates /dev/mapper nodes itself\n"
		"\nExit status: 0 success (watch: drained or quiet), 1 watch:\n"
		"livelock, 2 usage error, 3 error (device-mapper, device missing\n"
		"or vanished, status unparsable, file not writable), 4 watch:\n"
		"no decision (timeout, stall, interrupted).\n");
}

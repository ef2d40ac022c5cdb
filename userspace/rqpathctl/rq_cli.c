// SPDX-License-Identifier: GPL-2.0
/*
 * rqpathctl command line parsing.  Hand-written rather than getopt_long so
 * that it keeps no global state (the tests parse many command lines in one
 * process) and so that each subcommand accepts exactly its own options.
 */
#include "rq_cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

enum opt_id {
	OPT_QUEUE_IF_NO_PATH,
	OPT_JSON_FLAG,		/* status --json */
	OPT_JSON_FILE,		/* watch --json FILE */
	OPT_INTERVAL,
	OPT_STALL,
	OPT_TIMEOUT,
	OPT_FOLLOW,
};

struct opt_spec {
	const char *name;	/* without the leading "--" */
	bool takes_value;
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
	{ "queue-if-no-path", false, OPT_QUEUE_IF_NO_PATH },
	{ NULL, false, 0 },
};

static const struct opt_spec status_opts[] = {
	{ "json", false, OPT_JSON_FLAG },
	{ NULL, false, 0 },
};

static const struct opt_spec watch_opts[] = {
	{ "interval", true, OPT_INTERVAL },
	{ "stall", true, OPT_STALL },
	{ "timeout", true, OPT_TIMEOUT },
	{ "json", true, OPT_JSON_FILE },
	{ "follow", false, OPT_FOLLOW },
	{ NULL, false, 0 },
};

static const struct opt_spec no_opts[] = {
	{ NULL, false, 0 },
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
	  "status NAME [--json]",
	  "Show the parsed status of NAME: paths with state and fail count,\n"
	  "queueing, requests in flight and the counters of each operation.\n"
	  "  --json   print one JSON object instead (schema in README.md)\n" },
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
	  "watch NAME [--interval MS] [--stall SECONDS] [--timeout SECONDS]\n"
	  "                 [--json FILE] [--follow]",
	  "Sample the status of NAME and decide between drained and livelock.\n"
	  "Livelock: requests in flight, busy hand-backs rising, completions\n"
	  "flat for --stall seconds.\n"
	  "  --interval MS      sampling interval (default 200)\n"
	  "  --stall SECONDS    flat completions that mean livelock (default 3)\n"
	  "  --timeout SECONDS  give up without a decision after this long\n"
	  "  --json FILE        write the verdict, latency, stuck ops and\n"
	  "                     counter deltas to FILE\n"
	  "  --follow           watch a whole workload: in_flight 0 does not\n"
	  "                     end the watch (phase idle, windows restart);\n"
	  "                     it ends at livelock, or at --timeout or\n"
	  "                     SIGINT/SIGTERM with verdict quiet (no\n"
	  "                     livelock) or stall\n"
	  "Exit: 0 drained or quiet, 3 livelock, 4 timeout or stall, 1 error\n"
	  "or interrupted, 2 usage.\n" },
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

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

int rq_parse_uint(const char *text, unsigned int min, unsigned int max,
		  unsigned int *out)
{
	unsigned long long v;
	char *end;

	if (!text || !all_digits(text))
		return -1;
	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = (unsigned int)v;
	return 0;
}

/* "3", "0.5", "2.", ".25": digits with at most one dot, nothing else. */
static bool is_plain_decimal(const char *s)
{
	bool dot = false, digit = false;

	for (; *s; s++) {
		if (*s >= '0' && *s <= '9')
			digit = true;
		else if (*s == '.' && !dot)
			dot = true;
		else
			return false;
	}
	return digit;
}

int rq_parse_seconds(const char *text, double min, double max, double *out)
{
	double v;
	char *end;

	if (!text || !is_plain_decimal(text))
		return -1;
	errno = 0;
	v = strtod(text, &end);
	if (errno || *end || !(v >= min) || !(v <= max))
		return -1;
	*out = v;
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

static int apply_option(struct rq_cli *cli, const struct opt_spec *opt,
			const char *value)
{
	const char *cmd = rq_cmd_name(cli->cmd);

	switch (opt->id) {
	case OPT_QUEUE_IF_NO_PATH:
		cli->queue_if_no_path = true;
		return RQ_EXIT_OK;
	case OPT_JSON_FLAG:
		cli->json = true;
		return RQ_EXIT_OK;
	case OPT_JSON_FILE:
		if (!*value)
			return usage_error(cli, "%s: --json needs a file name",
					   cmd);
		cli->json_file = value;
		return RQ_EXIT_OK;
	case OPT_INTERVAL:
		if (rq_parse_uint(value, 1, 60000, &cli->interval_ms))
			return usage_error(cli, "%s: --interval '%s': expected "
					   "milliseconds, 1 to 60000", cmd,
					   value);
		return RQ_EXIT_OK;
	case OPT_STALL:
		if (rq_parse_seconds(value, 0.001, 86400, &cli->stall_s))
			return usage_error(cli, "%s: --stall '%s': expected "
					   "seconds, 0.001 to 86400", cmd,
					   value);
		return RQ_EXIT_OK;
	case OPT_TIMEOUT:
		if (rq_parse_seconds(value, 0.001, 31536000, &cli->timeout_s))
			return usage_error(cli, "%s: --timeout '%s': expected "
					   "seconds, more than 0", cmd, value);
		cli->has_timeout = true;
		return RQ_EXIT_OK;
	case OPT_FOLLOW:
		cli->follow = true;
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
	if (!opt->takes_value) {
		if (eq)
			return usage_error(cli, "%s: option '--%s' takes no "
					   "value", spec->name, opt->name);
		return apply_option(cli, opt, NULL);
	}
	if (eq)
		return apply_option(cli, opt, eq + 1);
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
		"\nExit status: 0 success, 1 error, 2 usage error,\n"
		"             watch: 3 livelock, 4 timeout without decision.\n");
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Duration parser shared by rqpathctl and rqcheck.
 */
#include "rq_duration.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define NUMBER_MAX 32

/* seconds = value * mul / div: dividing keeps 200ms exactly 0.2 s */
struct unit {
	const char *suffix;
	double mul;
	double div;
};

static const struct unit units[] = {
	{ "ms", 1, 1000 },
	{ "s", 1, 1 },
	{ "m", 60, 1 },
	{ "h", 3600, 1 },
};

static const struct unit bare_seconds = { "", 1, 1 };
static const struct unit bare_milliseconds = { "", 1, 1000 };

/* Length of the "12", "0.5", "2.", ".25" at the start of text, or 0. */
static size_t decimal_prefix(const char *text)
{
	bool dot = false, digit = false;
	size_t i;

	for (i = 0; text[i]; i++) {
		if (text[i] >= '0' && text[i] <= '9')
			digit = true;
		else if (text[i] == '.' && !dot)
			dot = true;
		else
			break;
	}
	return digit ? i : 0;
}

static const struct unit *find_unit(const char *suffix,
				    enum rq_bare_unit bare)
{
	size_t i;

	if (!*suffix)
		return bare == RQ_BARE_MILLISECONDS ? &bare_milliseconds :
						      &bare_seconds;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(suffix, units[i].suffix))
			return &units[i];
	return NULL;
}

int rq_parse_duration(const char *text, enum rq_bare_unit bare,
		      double *seconds)
{
	char number[NUMBER_MAX];
	const struct unit *unit;
	double value;
	size_t len;
	char *end;

	if (!text)
		return -1;
	len = decimal_prefix(text);
	if (!len || len >= sizeof(number))
		return -1;
	unit = find_unit(text + len, bare);
	if (!unit)
		return -1;
	memcpy(number, text, len);
	number[len] = '\0';
	errno = 0;
	value = strtod(number, &end);
	if (errno || *end)
		return -1;
	value = value * unit->mul / unit->div;
	if (!isfinite(value))
		return -1;
	*seconds = value;
	return 0;
}

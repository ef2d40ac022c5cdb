/* SPDX-License-Identifier: GPL-2.0 */
/*
 * For the unit tests only: parse what a tool wrote with json-c's strict
 * tokener and look values up by path ("ops.read.mapped", "paths.1.state").
 * Include after <cmocka.h>.
 */
#ifndef RQ_JSON_CHECK_H
#define RQ_JSON_CHECK_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

/*
 * What json-c's strict mode lets through but RFC 8259 forbids: raw control
 * characters inside strings, and single-quoted strings.
 */
static inline int json_lexically_clean(const char *text)
{
	int in_string = 0;

	for (; *text; text++) {
		if (!in_string) {
			if (*text == '\'')
				return 0;
			in_string = *text == '"';
			continue;
		}
		if ((unsigned char)*text < 0x20)
			return 0;
		if (*text == '\\' && text[1])
			text++;
		else if (*text == '"')
			in_string = 0;
	}
	return 1;
}

/* The whole text must be one strict JSON value; fails the test if not. */
static inline json_object *json_parse_strict(const char *text)
{
	struct json_tokener *tok = json_tokener_new();
	json_object *obj;
	size_t len = strlen(text);

	assert_non_null(tok);
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	obj = json_tokener_parse_ex(tok, text, (int)len);
	if (!obj || json_tokener_get_error(tok) != json_tokener_success ||
	    !json_lexically_clean(text) ||
	    strspn(text + json_tokener_get_parse_end(tok), " \t\r\n") !=
	    len - json_tokener_get_parse_end(tok)) {
		json_tokener_free(tok);
		json_object_put(obj);
		fail_msg("not strict JSON:\n%s", text);
	}
	json_tokener_free(tok);
	return obj;
}

/* Is text one strict JSON value?  For tests of the checker itself. */
static inline int json_is_strict(const char *text)
{
	struct json_tokener *tok = json_tokener_new();
	json_object *obj;
	size_t len = strlen(text);
	int ok;

	assert_non_null(tok);
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	obj = json_tokener_parse_ex(tok, text, (int)len);
	ok = obj && json_tokener_get_error(tok) == json_tokener_success &&
	     json_tokener_get_parse_end(tok) == len &&
	     json_lexically_clean(text);
	json_object_put(obj);
	json_tokener_free(tok);
	return ok;
}

/*
 * The value at a dotted path; numbers index arrays.  Returns NULL for a
 * JSON null and fails the test when the path does not exist.
 */
static inline json_object *json_at(json_object *root, const char *path)
{
	char buf[256];
	char *part, *save = NULL;
	json_object *cur = root;

	snprintf(buf, sizeof(buf), "%s", path);
	for (part = strtok_r(buf, ".", &save); part;
	     part = strtok_r(NULL, ".", &save)) {
		json_object *next = NULL;

		if (json_object_is_type(cur, json_type_array)) {
			size_t i = strtoul(part, NULL, 10);

			if (i >= json_object_array_length(cur))
				fail_msg("%s: index %s out of range", path,
					 part);
			next = json_object_array_get_idx(cur, i);
		} else if (!json_object_is_type(cur, json_type_object) ||
			   !json_object_object_get_ex(cur, part, &next)) {
			fail_msg("%s: no key '%s'", path, part);
		}
		cur = next;
	}
	return cur;
}

static inline void assert_json_null(json_object *root, const char *path)
{
	if (json_at(root, path))
		fail_msg("%s: expected null, got %s", path,
			 json_object_to_json_string(json_at(root, path)));
}

static inline void assert_json_u64(json_object *root, const char *path,
				   uint64_t want)
{
	json_object *v = json_at(root, path);

	if (!json_object_is_type(v, json_type_int))
		fail_msg("%s: expected the integer %llu, got %s", path,
			 (unsigned long long)want,
			 v ? json_object_to_json_string(v) : "null");
	if (json_object_get_uint64(v) != want)
		fail_msg("%s: expected %llu, got %s", path,
			 (unsigned long long)want,
			 json_object_to_json_string(v));
}

static inline void assert_json_i64(json_object *root, const char *path,
				   int64_t want)
{
	json_object *v = json_at(root, path);

	if (!json_object_is_type(v, json_type_int) ||
	    json_object_get_int64(v) != want)
		fail_msg("%s: expected %lld, got %s", path, (long long)want,
			 v ? json_object_to_json_string(v) : "null");
}

static inline void assert_json_double(json_object *root, const char *path,
				      double want)
{
	json_object *v = json_at(root, path);

	if (!json_object_is_type(v, json_type_double) &&
	    !json_object_is_type(v, json_type_int))
		fail_msg("%s: expected the number %g, got %s", path, want,
			 v ? json_object_to_json_string(v) : "null");
	if (fabs(json_object_get_double(v) - want) > 1e-9)
		fail_msg("%s: expected %.9g, got %s", path, want,
			 json_object_to_json_string(v));
}

static inline void assert_json_str(json_object *root, const char *path,
				   const char *want)
{
	json_object *v = json_at(root, path);

	if (!json_object_is_type(v, json_type_string) ||
	    strcmp(json_object_get_string(v), want))
		fail_msg("%s: expected \"%s\", got %s", path, want,
			 v ? json_object_to_json_string(v) : "null");
}

static inline void assert_json_bool(json_object *root, const char *path,
				    int want)
{
	json_object *v = json_at(root, path);

	if (!json_object_is_type(v, json_type_boolean) ||
	    json_object_get_boolean(v) != !!want)
		fail_msg("%s: expected %s, got %s", path,
			 want ? "true" : "false",
			 v ? json_object_to_json_string(v) : "null");
}

/* Length of the array at path. */
static inline size_t json_len(json_object *root, const char *path)
{
	json_object *v = json_at(root, path);

	if (!json_object_is_type(v, json_type_array))
		fail_msg("%s: not an array", path);
	return json_object_array_length(v);
}

/* The keys of the object at path, joined by spaces, in document order. */
static inline void json_keys(json_object *root, const char *path, char *buf,
			     size_t len)
{
	json_object *v = json_at(root, path);
	size_t used = 0;

	buf[0] = '\0';
	if (!json_object_is_type(v, json_type_object))
		fail_msg("%s: not an object", path);
	json_object_object_foreach(v, key, val) {
		(void)val;
		if (used >= len)
			break;
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 used ? " " : "", key);
	}
}

#endif

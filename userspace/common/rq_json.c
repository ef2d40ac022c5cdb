// SPDX-License-Identifier: GPL-2.0
/*
 * json-c document builders for rqpathctl and rqcheck; see rq_json.h.
 */
#include "rq_json.h"

#include <math.h>

/*
 * Attach value to parent under key (or at the end, for an array).  On
 * failure the value is freed and the document marked; returns success.
 */
static bool attach(struct rq_json *doc, json_object *parent, const char *key,
		   json_object *value, bool null_wanted)
{
	int rc;

	if ((!value && !null_wanted) || !parent) {
		doc->failed = true;
		json_object_put(value);
		return false;
	}
	if (json_object_is_type(parent, json_type_array))
		rc = json_object_array_add(parent, value);
	else
		rc = json_object_object_add(parent, key, value);
	if (rc) {
		doc->failed = true;
		json_object_put(value);
		return false;
	}
	return true;
}

static bool add(struct rq_json *doc, json_object *parent, const char *key,
		json_object *value)
{
	return attach(doc, parent, key, value, false);
}

void rq_json_init(struct rq_json *doc)
{
	doc->root = json_object_new_object();
	doc->failed = !doc->root;
}

void rq_json_free(struct rq_json *doc)
{
	json_object_put(doc->root);
	doc->root = NULL;
}

json_object *rq_json_object(struct rq_json *doc, json_object *parent,
			    const char *key)
{
	json_object *obj = json_object_new_object();

	return add(doc, parent, key, obj) ? obj : NULL;
}

json_object *rq_json_array(struct rq_json *doc, json_object *parent,
			   const char *key)
{
	json_object *arr = json_object_new_array();

	return add(doc, parent, key, arr) ? arr : NULL;
}

void rq_json_u64(struct rq_json *doc, json_object *parent, const char *key,
		 uint64_t value)
{
	add(doc, parent, key, json_object_new_uint64(value));
}

void rq_json_i64(struct rq_json *doc, json_object *parent, const char *key,
		 int64_t value)
{
	add(doc, parent, key, json_object_new_int64(value));
}

void rq_json_bool(struct rq_json *doc, json_object *parent, const char *key,
		  bool value)
{
	add(doc, parent, key, json_object_new_boolean(value));
}

void rq_json_str(struct rq_json *doc, json_object *parent, const char *key,
		 const char *value)
{
	if (!value)
		rq_json_null(doc, parent, key);
	else
		add(doc, parent, key, json_object_new_string(value));
}

void rq_json_null(struct rq_json *doc, json_object *parent, const char *key)
{
	attach(doc, parent, key, NULL, true);
}

void rq_json_fixed(struct rq_json *doc, json_object *parent, const char *key,
		   double value, int decimals)
{
	char text[64];
	int len;

	if (!isfinite(value)) {
		rq_json_null(doc, parent, key);
		return;
	}
	len = snprintf(text, sizeof(text), "%.*f", decimals, value);
	if (len < 0 || (size_t)len >= sizeof(text)) {
		/* Absurdly large: json-c's own notation rather than a cut. */
		add(doc, parent, key, json_object_new_double(value));
		return;
	}
	/* The text is what gets serialised; the double is for readers. */
	add(doc, parent, key, json_object_new_double_s(value, text));
}

int rq_json_write(FILE *f, const struct rq_json *doc)
{
	const char *text;

	if (doc->failed || !doc->root)
		return -1;
	/* No "\/": paths in the output stay readable. */
	text = json_object_to_json_string_ext(doc->root,
					      JSON_C_TO_STRING_PRETTY |
					      JSON_C_TO_STRING_SPACED |
					      JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!text)
		return -1;
	if (fputs(text, f) == EOF || fputc('\n', f) == EOF)
		return -1;
	return 0;
}

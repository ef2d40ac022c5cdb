/* SPDX-License-Identifier: GPL-2.0 */
/*
 * JSON output of the rqpath tools, built with json-c.
 *
 * Every builder takes the parent (an object, with a key, or an array, with
 * key NULL) and records an allocation failure in the document instead of
 * writing a silent null: rq_json_write() then refuses to write a document
 * that is not what the code built.  A NULL parent (its own creation
 * failed) is treated the same way, so call sites need no checks.
 */
#ifndef RQ_JSON_H
#define RQ_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

struct rq_json {
	json_object *root;		/* an object */
	bool failed;			/* some value could not be built */
};

/* Start a document whose root is an empty object. */
void rq_json_init(struct rq_json *doc);
void rq_json_free(struct rq_json *doc);

json_object *rq_json_object(struct rq_json *doc, json_object *parent,
			    const char *key);
json_object *rq_json_array(struct rq_json *doc, json_object *parent,
			   const char *key);
void rq_json_u64(struct rq_json *doc, json_object *parent, const char *key,
		 uint64_t value);
void rq_json_i64(struct rq_json *doc, json_object *parent, const char *key,
		 int64_t value);
void rq_json_bool(struct rq_json *doc, json_object *parent, const char *key,
		  bool value);
/* A NULL string is written as null. */
void rq_json_str(struct rq_json *doc, json_object *parent, const char *key,
		 const char *value);
void rq_json_null(struct rq_json *doc, json_object *parent, const char *key);
/*
 * A number with a fixed number of decimals ("3.000", "0.000486"), as the
 * tools always printed them; NaN and infinity, which JSON lacks, are null.
 */
void rq_json_fixed(struct rq_json *doc, json_object *parent, const char *key,
		   double value, int decimals);

/*
 * Pretty-print the document and a newline to f.  Returns 0, or -1 when
 * the document is incomplete (allocation failure) or writing failed.
 */
int rq_json_write(FILE *f, const struct rq_json *doc);

#endif

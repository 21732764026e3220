/*
 * jv: JSON values read in place, exactly as cJSON reads them.
 *
 * The renderer used to parse a record's members into cJSON trees and walk
 * them; a 100 MB tool output then cost the line, a tree holding a decoded
 * copy, and the output. jv answers the same questions on the line's own
 * bytes, with cJSON's rules wherever they differ from plain JSON:
 *   - a value is accepted when cJSON_ParseWithLength() accepts it: any byte
 *     up to 0x20 is whitespace, containers nest at most CJSON_NESTING_LIMIT
 *     deep, escapes are checked (a lone low surrogate fails; a \u with bad
 *     hex digits decodes as U+0000), numbers are what cJSON's parser takes;
 *   - a string's value is its decoded bytes up to the first NUL (a C string),
 *     so "a\u0000b" reads "a" and a key "id\u0000x" is the key "id";
 *   - an object's member is the first one whose key is equal (as a C string);
 *     walking the children of an object gives its member values in order.
 *
 * Text is checked once with jv_check(), which also notes where each long
 * string and container ends (a jv_doc), so that later walks step over a
 * long value without reading it again. The other calls assume checked text
 * and take the doc that checked it.
 *
 * Every call takes the text as [p, e). A doc belongs to one caller; the
 * functions touch nothing else and are thread-safe. None recurses.
 */
#ifndef SESSFS_JV_H
#define SESSFS_JV_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "jscan.h"
#include "sbuf.h"

#define JV_DEPTH_MAX CJSON_NESTING_LIMIT	/* deepest nesting cJSON takes */
#define JV_LONG 256	/* values at least this long have their end noted */

struct jv_span {
	const char *p, *end;
};

/* Where the long values of some checked text end, sorted by start. */
struct jv_doc {
	struct jv_span *s;
	size_t n, cap;
};

void jv_doc_init(struct jv_doc *d);
void jv_doc_free(struct jv_doc *d);

/*
 * The value starting at p (leading whitespace skipped), checked as
 * cJSON_ParseWithLength(p, e - p) checks it; what follows the value is not
 * looked at. Returns a pointer just past the value, or NULL when cJSON
 * would refuse it. Notes the long values in d (text checked into one doc
 * must come in file order).
 */
const char *jv_check(const char *p, const char *e, struct jv_doc *d);

/* The children of an array, or the member values of an object. */
struct jv_iter {
	const struct jv_doc *d;
	const char *p, *e;
	int obj;
};

/* 1 when v is an array or object (then iterate), 0 otherwise. */
int jv_begin(struct jv_iter *it, const struct jv_doc *d, const char *v,
	     const char *e);
/* 1 and the next child's first byte in *val (and, for an object, its raw
 * key in *key when key is not NULL); 0 after the last one. After it,
 * it->p is at the ',' before the next child, or at the closing bracket. */
int jv_next(struct jv_iter *it, struct js_str *key, const char **val);
/* How many children v has (0 for a value that is not a container). */
size_t jv_count(const struct jv_doc *d, const char *v, const char *e);

/* The value of the first member of object v whose key equals key, or
 * NULL (v not an object, or no such member). v may be NULL. */
const char *jv_get(const struct jv_doc *d, const char *v, const char *e,
		   const char *key);

/* The string at v (v at its quote) as its C string: does it equal lit? */
int jv_str_eq(const char *v, const char *e, const char *lit);

/*
 * The C string of the string at v, handed over in pieces: each piece is a
 * run of bytes as written or the bytes of one escape, never a part of
 * either, so a piece never ends inside a UTF-8 sequence that the next one
 * completes. Stops before the first NUL; pieces are never empty.
 */
void jv_str(const char *v, const char *e,
	    void (*emit)(void *arg, const char *p, size_t n), void *arg);
/* The same for a raw key from jv_next(). */
void jv_key(const struct js_str *k,
	    void (*emit)(void *arg, const char *p, size_t n), void *arg);
/* The C string of the string at v appended to out as the inside of a
 * JSON literal, as sb_add_json_chars() writes it (in one pass). */
void jv_json(const char *v, const char *e, struct sbuf *out);
/* The same for a raw key from jv_next(). */
void jv_key_json(const struct js_str *k, struct sbuf *out);
/*
 * The C string of the string at v appended to out with invalid UTF-8
 * replaced (as sb_add_utf8() does); returns its length before the
 * replacement (0 for an empty one) and its last byte in *last.
 */
size_t jv_text(const char *v, const char *e, struct sbuf *out, char *last);

/* The number at v as cJSON_PrintUnformatted() prints it, appended to out. */
void jv_number(const char *v, const char *e, struct sbuf *out);
/* The number at v as cJSON's valuedouble. */
double jv_double(const char *v, const char *e);

#endif

/*
 * jscan: a JSON scanner that walks text without building a tree.
 *
 * The index reads a handful of keys from every line of a log; parsing each
 * line into a cJSON tree would cost several times the whole index. These
 * functions step over JSON text in place, 64 bytes at a time (bit masks of
 * quotes, backslashes and brackets: no branch per byte), nested values with
 * an explicit stack (no recursion, so a line nested a million deep costs a
 * bit per level, not a stack frame). They read only [p, e).
 *
 * Every function takes the text as [p, e) and returns a pointer just past
 * what it consumed, or NULL when the text is not JSON there. Keys and string
 * values are handed back raw (escapes not decoded); js_unescape() decodes.
 * All functions are pure and thread-safe.
 */
#ifndef SESSFS_JSCAN_H
#define SESSFS_JSCAN_H

#include <stddef.h>
#include <stdint.h>

#include "sbuf.h"

/* A raw JSON string: the bytes between the quotes, escapes undecoded. */
struct js_str {
	const char *p;
	size_t n;
	int escaped;		/* contains a backslash */
};

const char *js_ws(const char *p, const char *e);
/* p at the opening quote; fills *s when s is not NULL. */
const char *js_string(const char *p, const char *e, struct js_str *s);
/* Skips one value of any kind (checks bracket nesting, not literals inside). */
const char *js_value(const char *p, const char *e);

/* Iterates the members of one object or the elements of one array. */
struct js_iter {
	const char *p, *e;
	int first;
};

/* p at '{' (or '[' for js_arr_begin); returns 0, or -1 if it is not there. */
int js_obj_begin(struct js_iter *it, const char *p, const char *e);
int js_arr_begin(struct js_iter *it, const char *p, const char *e);
/*
 * Next member: returns 1 and sets *key and *val (the value's first byte);
 * the caller must then set it->p past the value (js_value() or its own
 * walk). Returns 0 after the closing bracket (it->p is past it), -1 on
 * malformed text.
 */
int js_obj_next(struct js_iter *it, struct js_str *key, const char **val);
int js_arr_next(struct js_iter *it, const char **val);

/* Key equality against a C string literal (inline: the length folds). */
static inline int js_eq(const struct js_str *s, const char *lit)
{
	size_t n = __builtin_strlen(lit);

	return s->n == n && !__builtin_memcmp(s->p, lit, n);
}
/* True when the raw string holds only JSON whitespace (escaped or not). */
int js_blank(const struct js_str *s);
/* Decodes a raw string, appending UTF-8 to out; lone surrogates and bad
 * escapes become U+FFFD. */
void js_unescape(const struct js_str *s, struct sbuf *out);
/* 64-bit FNV-1a of a raw string (for grouping ids such as message.id). */
uint64_t js_hash(const struct js_str *s);
/* Parses an ISO-8601 UTC time ("2026-01-01T10:00:00.000Z", offsets
 * allowed) into ms since the epoch; returns 0 or -1. */
int js_time(const struct js_str *s, int64_t *ms);
/* The inverse: writes "YYYY-MM-DDTHH:MM:SS.mmmZ" (25 bytes with NUL). */
void js_time_fmt(int64_t ms, char buf[32]);

#endif

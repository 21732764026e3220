/*
 * jv: strings written out in one pass (jv_text(), jv_json(),
 * jv_key_json()) give the bytes that decoding them piece by piece
 * (jv_str()) and then mending or escaping the pieces (sb_add_utf8(),
 * sb_add_json_chars()) gives, on strings made of every kind of piece, at
 * every length and offset, into buffers full to every degree; and
 * jv_check() takes a string where cJSON does, ending it where cJSON does.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "jv.h"

/* What a string body is made of: plain runs, each escape, raw control
 * and NUL bytes, UTF-8 whole, cut short and stray, surrogate pairs. */
static const char *const pieces[] = {
	"a", "plain text ", "0123456789abcdef0123456789abcdef", "\\\"", "\\\\", "\\/",
	"\\b", "\\f", "\\n", "\\r", "\\t", "\\u0041", "\\u00e9", "\\u20AC", "\\u001b",
	"\\u001B", "\\u0022", "\\u005c", "\\u007f", "\\u0000", "\\uZZZZ",
	"\\ud83d\\ude00", "\x01", "\x1f", "\x7f", "\t", "\xc3\xa9", "\xe2\x82\xac",
	"\xf0\x9f\x98\x80", "\xe2\x82", "\xff", "\x80", "\xc0\xaf", "\xed\xa0\x80",
	"\0",
};

#define NPIECES (sizeof(pieces) / sizeof(pieces[0]))

static void emit_cat(void *arg, const char *p, size_t n)
{
	sb_add(arg, p, n);
}

static void emit_json(void *arg, const char *p, size_t n)
{
	sb_add_json_chars(arg, p, n);
}

/* out prefilled with pre bytes, in a buffer of the size sb_grow() gives. */
static void prefill(struct sbuf *out, size_t pre)
{
	sb_init(out);
	while (out->len < pre)
		sb_addc(out, 'p');
}

/* The quoted string s of n bytes, in a buffer of just its size (so that a
 * read past it is caught under ASan): checked, then written both ways. */
static void compare(const char *s, size_t n, size_t pre)
{
	char *v = malloc(n), last, ref_last;
	struct sbuf a, b, cat;
	struct jv_doc d;
	size_t got;

	memcpy(v, s, n);
	jv_doc_init(&d);
	if (jv_check(v, v + n, &d) != v + n) {
		jv_doc_free(&d);
		free(v);
		return;	/* cJSON refuses it: nothing renders it */
	}
	prefill(&a, pre);
	prefill(&b, pre);
	jv_json(v, v + n, &a);
	jv_str(v, v + n, emit_json, &b);
	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.buf, b.buf, a.len + 1);
	sb_free(&a);
	sb_free(&b);

	prefill(&a, pre);
	prefill(&b, pre);
	sb_init(&cat);
	got = jv_text(v, v + n, &a, &last);
	jv_str(v, v + n, emit_cat, &cat);
	sb_add_utf8(&b, cat.buf, cat.len);
	ref_last = cat.len ? cat.buf[cat.len - 1] : 0;
	assert_int_equal(got, cat.len);
	assert_int_equal(last, ref_last);
	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.buf, b.buf, a.len + 1);
	sb_free(&a);
	sb_free(&b);
	sb_free(&cat);
	jv_doc_free(&d);
	free(v);
}

/* A string of up to k pieces chosen by rnd, quoted. */
static void make(struct sbuf *s, uint64_t *rnd, int k)
{
	int i;

	sb_reset(s);
	sb_addc(s, '"');
	for (i = 0; i < k; i++) {
		const char *p;

		*rnd = *rnd * 6364136223846793005ULL + 1442695040888963407ULL;
		p = pieces[(*rnd >> 33) % NPIECES];
		sb_add(s, p, *p ? strlen(p) : 1);
	}
	sb_addc(s, '"');
}

static void test_random_strings_agree(void **state)
{
	uint64_t rnd = 0x9e3779b97f4a7c15ULL;
	struct sbuf s;
	int round;

	(void)state;
	sb_init(&s);
	for (round = 0; round < 20000; round++) {
		make(&s, &rnd, round % 40);
		compare(s.buf, s.len, (size_t)(rnd >> 40) % 200);
	}
	sb_free(&s);
}

/* Each piece alone at every offset from a block's start, with a run of
 * plain bytes after it, into buffers about to grow. */
static void test_every_piece_at_every_offset(void **state)
{
	struct sbuf s;
	size_t i, off, pre;

	(void)state;
	sb_init(&s);
	for (i = 0; i < NPIECES; i++) {
		for (off = 0; off < 40; off++) {
			sb_reset(&s);
			sb_addc(&s, '"');
			while (s.len < off + 1)
				sb_addc(&s, 'x');
			sb_add(&s, pieces[i], *pieces[i] ? strlen(pieces[i]) : 1);
			sb_adds(&s, "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy\"");
			for (pre = 0; pre < 70; pre += 7)
				compare(s.buf, s.len, pre);
		}
	}
	sb_free(&s);
}

/* A long string (grows the output many times) and an empty one. */
static void test_long_and_empty(void **state)
{
	struct sbuf s;
	int i;

	(void)state;
	sb_init(&s);
	sb_addc(&s, '"');
	for (i = 0; i < 5000; i++)
		sb_adds(&s, i % 5 ? "some text \\\"quoted\\\"\\n" : "caf\xc3\xa9 \\u00e9\xff\\t");
	sb_addc(&s, '"');
	compare(s.buf, s.len, 0);
	compare(s.buf, s.len, 100);
	compare("\"\"", 2, 0);
	compare("\"\"", 2, 63);
	sb_free(&s);
}

/* What a checker must refuse or look closer at: bad escapes, lone and
 * broken surrogates, \u digits holding a quote or backslash, a string
 * cut short. */
static const char *const odd_pieces[] = {
	"\\x", "\\u12", "\\u12\"", "\\u1\\\\", "\\udc80", "\\ud800", "\\ud800\\u0041",
	"\\ud800\\udc0", "\\ud800\\", "\\", "\"", "\\u00", "\\uD83D\\uDE00",
};

/* jv_check() on a string: does cJSON take it, and end it there? */
static void check_as_cjson(const char *s, size_t n)
{
	char *v = malloc(n);
	const char *end = NULL, *got;
	struct jv_doc d;
	cJSON *j;

	memcpy(v, s, n);
	jv_doc_init(&d);
	got = jv_check(v, v + n, &d);
	j = cJSON_ParseWithLengthOpts(v, n, &end, 0);
	if (!j)
		assert_null(got);
	else
		assert_ptr_equal(got, end);
	cJSON_Delete(j);
	jv_doc_free(&d);
	free(v);
}

static void test_check_as_cjson(void **state)
{
	uint64_t rnd = 0x2545f4914f6cdd1dULL;
	struct sbuf s;
	int round, i;

	(void)state;
	sb_init(&s);
	for (round = 0; round < 20000; round++) {
		int k = round % 50;

		make(&s, &rnd, k);
		for (i = 0; i < 1 + k / 16; i++) {	/* a few odd pieces in it */
			const char *o;
			size_t at;

			rnd = rnd * 6364136223846793005ULL + 1442695040888963407ULL;
			o = odd_pieces[(rnd >> 33) % (sizeof(odd_pieces) / sizeof(odd_pieces[0]))];
			at = 1 + (size_t)(rnd >> 20) % (s.len - 1);
			sb_add(&s, "", 0);
			sb_grow(&s, strlen(o));
			memmove(s.buf + at + strlen(o), s.buf + at, s.len - at + 1);
			memcpy(s.buf + at, o, strlen(o));
			s.len += strlen(o);
		}
		check_as_cjson(s.buf, s.len);
		check_as_cjson(s.buf, s.len - 1 - (size_t)(rnd >> 50) % s.len);
	}
	sb_free(&s);
}

/* Keys: written as their values are, cut at a NUL. */
static void test_keys(void **state)
{
	static const char *const objs[] = {
		"{\"plain\":1}", "{\"k\\u0000j\":1}", "{\"a\\\"b\\n\\u001b\\/\xff\":1}",
		"{\"\":1}", "{\"\xe2\x82\xac\\ud83d\\ude00\":1}",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(objs) / sizeof(objs[0]); i++) {
		const char *v = objs[i], *e = v + strlen(v), *c;
		struct jv_doc d;
		struct jv_iter it;
		struct js_str k;
		struct sbuf a, b;

		jv_doc_init(&d);
		assert_ptr_equal(jv_check(v, e, &d), e);
		assert_true(jv_begin(&it, &d, v, e));
		assert_true(jv_next(&it, &k, &c));
		sb_init(&a);
		sb_init(&b);
		jv_key_json(&k, &a);
		jv_key(&k, emit_json, &b);
		assert_string_equal(a.buf, b.buf);
		sb_free(&a);
		sb_free(&b);
		jv_doc_free(&d);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_strings_agree),
		cmocka_unit_test(test_every_piece_at_every_offset),
		cmocka_unit_test(test_long_and_empty),
		cmocka_unit_test(test_check_as_cjson),
		cmocka_unit_test(test_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

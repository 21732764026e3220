/*
 * jscan: the in-place JSON scanner.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <time.h>

#include "testutil.h"
#include "jscan.h"
#include "sbuf.h"

/* The end of a C string, for [p, e) arguments. */
#define END(s) ((s) + strlen(s))

/* js_value over the whole text: the number of bytes consumed, -1 for NULL. */
static long value_len(const char *text)
{
	const char *end = js_value(text, END(text));

	return end ? (long)(end - text) : -1;
}

static struct js_str str_of(const char *raw)
{
	struct js_str s = { raw, strlen(raw), strchr(raw, '\\') != NULL };

	return s;
}

/* js_unescape of a raw string (what sits between the quotes). */
static char *unescaped(const char *raw)
{
	struct js_str s = str_of(raw);
	struct sbuf out;

	sb_init(&out);
	js_unescape(&s, &out);
	return sb_detach(&out, NULL);
}

static void test_string_plain(void **state)
{
	const char *t = "\"hello\" tail";
	struct js_str s;
	const char *end = js_string(t, END(t), &s);

	(void)state;
	assert_ptr_equal(end, t + 7);
	assert_int_equal(s.n, 5);
	assert_memory_equal(s.p, "hello", 5);
	assert_false(s.escaped);
}

static void test_string_escaped_quote_does_not_end_it(void **state)
{
	/* "a\"b" then more text with a quote in it */
	const char *t = "\"a\\\"b\",\"x\"";
	struct js_str s;
	const char *end = js_string(t, END(t), &s);

	(void)state;
	assert_non_null(end);
	assert_int_equal(end - t, 6);
	assert_int_equal(s.n, 4);
	assert_memory_equal(s.p, "a\\\"b", 4);
	assert_true(s.escaped);
}

static void test_string_escaped_backslash_before_quote_ends_it(void **state)
{
	/* "a\\" : the backslash is escaped, so the next quote closes */
	const char *t = "\"a\\\\\"b\"";
	struct js_str s;
	const char *end = js_string(t, END(t), &s);

	(void)state;
	assert_int_equal(end - t, 5);
	assert_int_equal(s.n, 3);
	assert_true(s.escaped);
}

static void test_string_three_backslashes_then_quote(void **state)
{
	/* "\\\"" : an escaped backslash and an escaped quote, one string */
	const char *t = "\"\\\\\\\"\"";
	struct js_str s;
	const char *end = js_string(t, END(t), &s);
	char *dec;

	(void)state;
	assert_ptr_equal(end, END(t));
	assert_int_equal(s.n, 4);
	dec = unescaped("\\\\\\\"");
	assert_string_equal(dec, "\\\"");
	free(dec);
}

static void test_string_backslash_run_far_from_start(void **state)
{
	/* a long run of backslashes: 4 is even (closes), 5 is odd (does not) */
	const char *even = "\"xyz\\\\\\\\\" rest";
	const char *odd = "\"xyz\\\\\\\\\\\" rest\"";

	(void)state;
	assert_int_equal(js_string(even, END(even), NULL) - even, 9);
	assert_ptr_equal(js_string(odd, END(odd), NULL), END(odd));
}

static void test_string_unterminated_is_null(void **state)
{
	const char *a = "\"abc", *b = "\"abc\\\"", *c = "abc\"";

	(void)state;
	assert_null(js_string(a, END(a), NULL));
	assert_null(js_string(b, END(b), NULL));
	assert_null(js_string(c, END(c), NULL));
	assert_null(js_string(a, a, NULL));
}

static void test_string_stops_at_end_bound(void **state)
{
	/* the closing quote lies past e: not a string within [p, e) */
	const char *t = "\"abcdef\"";

	(void)state;
	assert_null(js_string(t, t + 5, NULL));
}

static void test_value_every_kind(void **state)
{
	(void)state;
	assert_int_equal(value_len("\"s\\\"t\" ,"), 6);
	assert_int_equal(value_len("0,"), 1);
	assert_int_equal(value_len("-12.5e+3]"), 8);
	assert_int_equal(value_len("1E-2}"), 4);
	assert_int_equal(value_len("true,"), 4);
	assert_int_equal(value_len("false]"), 5);
	assert_int_equal(value_len("null}"), 4);
	assert_int_equal(value_len("{}x"), 2);
	assert_int_equal(value_len("[]x"), 2);
	assert_int_equal(value_len("{\"a\":[1,{\"b\":\"}]\"}],\"c\":null} tail"), 29);
	assert_int_equal(value_len("[[[\"]\"]],[{}]],"), 14);
}

static void test_value_malformed_is_null(void **state)
{
	(void)state;
	assert_int_equal(value_len(""), -1);
	assert_int_equal(value_len("tru"), -1);
	assert_int_equal(value_len("nul"), -1);
	assert_int_equal(value_len("trueish"), -1);
	assert_int_equal(value_len("xyz"), -1);
	assert_int_equal(value_len("}"), -1);
	assert_int_equal(value_len("]"), -1);
	assert_int_equal(value_len(","), -1);
	assert_int_equal(value_len("{\"a\":1"), -1);
	assert_int_equal(value_len("[1,2"), -1);
	assert_int_equal(value_len("{\"a\":1]"), -1);
	assert_int_equal(value_len("[1}"), -1);
	assert_int_equal(value_len("{\"a\":\"}"), -1);
	assert_int_equal(value_len("\"open"), -1);
}

static void test_value_deep_nesting(void **state)
{
	size_t depth = 100000, i;
	char *t = malloc(2 * depth + 1);

	(void)state;
	for (i = 0; i < depth; i++) {
		t[i] = i % 2 ? '[' : '{';
		t[2 * depth - 1 - i] = i % 2 ? ']' : '}';
	}
	t[2 * depth] = '\0';
	/* not valid JSON ({ without keys) but the nesting is balanced */
	assert_int_equal(js_value(t, t + 2 * depth) - t, (long)(2 * depth));
	/* one closer short: not a value */
	assert_null(js_value(t, t + 2 * depth - 1));
	/* a closer of the wrong kind deep inside */
	t[depth] = t[depth] == ']' ? '}' : ']';
	assert_null(js_value(t, t + 2 * depth));
	free(t);
}

static void test_obj_iteration(void **state)
{
	const char *t = "{ \"a\" : 1 , \"b\\\"\":[2,3], \"c\":{\"d\":null} }tail";
	struct js_iter it;
	struct js_str k;
	const char *v;

	(void)state;
	assert_int_equal(js_obj_begin(&it, t, END(t)), 0);
	assert_int_equal(js_obj_next(&it, &k, &v), 1);
	assert_true(js_eq(&k, "a"));
	assert_int_equal(*v, '1');
	it.p = js_value(v, it.e);
	assert_int_equal(js_obj_next(&it, &k, &v), 1);
	assert_true(js_eq(&k, "b\\\""));
	assert_true(k.escaped);
	assert_int_equal(*v, '[');
	it.p = js_value(v, it.e);
	assert_int_equal(js_obj_next(&it, &k, &v), 1);
	assert_true(js_eq(&k, "c"));
	it.p = js_value(v, it.e);
	assert_int_equal(js_obj_next(&it, &k, &v), 0);
	assert_string_equal(it.p, "tail");
}

static void test_obj_malformed(void **state)
{
	static const char *const bad[] = {
		"{\"a\" 1}", "{\"a\":1,}", "{,\"a\":1}", "{\"a\":1 \"b\":2}", "{a:1}",
		"{\"a\":1", "{\"a\":",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct js_iter it;
		struct js_str k;
		const char *v, *e = END(bad[i]);
		int r;

		assert_int_equal(js_obj_begin(&it, bad[i], e), 0);
		while ((r = js_obj_next(&it, &k, &v)) == 1) {
			it.p = js_value(v, e);
			assert_non_null(it.p);
		}
		assert_int_equal(r, -1);
	}
	{
		struct js_iter it;

		assert_int_equal(js_obj_begin(&it, "[1]", END("[1]")), -1);
		assert_int_equal(js_arr_begin(&it, "{}", END("{}")), -1);
	}
}

static void test_arr_iteration(void **state)
{
	const char *t = "[ 1, \"two\" ,[3] ,{\"x\":4} ]", *v;
	struct js_iter it;
	int n = 0, r;

	(void)state;
	assert_int_equal(js_arr_begin(&it, t, END(t)), 0);
	while ((r = js_arr_next(&it, &v)) == 1) {
		it.p = js_value(v, it.e);
		assert_non_null(it.p);
		n++;
	}
	assert_int_equal(r, 0);
	assert_int_equal(n, 4);
	assert_ptr_equal(it.p, END(t));

	assert_int_equal(js_arr_begin(&it, "[]", END("[]")), 0);
	assert_int_equal(js_arr_next(&it, &v), 0);
	assert_int_equal(js_arr_begin(&it, "[1,]", END("[1,]")), 0);
	assert_int_equal(js_arr_next(&it, &v), 1);
	it.p = js_value(v, it.e);
	assert_int_equal(js_arr_next(&it, &v), -1);
}

static void test_eq_and_blank(void **state)
{
	struct js_str s = str_of("type"), b1 = str_of(" \\n\\t \\r"), b2 = str_of(""),
		      n1 = str_of(" x ");

	(void)state;
	assert_true(js_eq(&s, "type"));
	assert_false(js_eq(&s, "typ"));
	assert_false(js_eq(&s, "types"));
	assert_true(js_blank(&b1));
	assert_true(js_blank(&b2));
	assert_false(js_blank(&n1));
}

static void test_unescape_simple(void **state)
{
	char *s = unescaped("a\\\"b\\\\c\\/d\\n\\t\\r\\b\\f");

	(void)state;
	assert_string_equal(s, "a\"b\\c/d\n\t\r\b\f");
	free(s);
	s = unescaped("plain text");
	assert_string_equal(s, "plain text");
	free(s);
}

static void test_unescape_unicode(void **state)
{
	char *s = unescaped("caf\\u00e9 \\u20ac \\ud83d\\ude00 \\u0041");

	(void)state;
	assert_string_equal(s, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 A");
	free(s);
}

static void test_unescape_lone_surrogates_give_fffd(void **state)
{
	char *s = unescaped("\\udc80");

	(void)state;
	assert_string_equal(s, "\xef\xbf\xbd");
	free(s);
	s = unescaped("a\\ud800b");
	assert_string_equal(s, "a\xef\xbf\xbd" "b");
	free(s);
	/* a high surrogate followed by a non-low escape: both decoded apart */
	s = unescaped("\\ud800\\u0041");
	assert_string_equal(s, "\xef\xbf\xbd" "A");
	free(s);
	/* a low surrogate before a high one is not a pair */
	s = unescaped("\\udc00\\ud800");
	assert_string_equal(s, "\xef\xbf\xbd\xef\xbf\xbd");
	free(s);
}

static void test_unescape_bad_escapes_and_bytes(void **state)
{
	char *s = unescaped("x\\uZZZZy");

	(void)state;
	assert_string_equal(s, "x\xef\xbf\xbdZZZZy");
	free(s);
	s = unescaped("\\u12");
	assert_string_equal(s, "\xef\xbf\xbd" "12");
	free(s);
	/* invalid UTF-8 bytes in the raw text */
	s = unescaped("a\xff" "b\xc3");
	assert_string_equal(s, "a\xef\xbf\xbd" "b\xef\xbf\xbd");
	free(s);
	/* a trailing lone backslash is kept as is */
	s = unescaped("ab\\");
	assert_string_equal(s, "ab\\");
	free(s);
}

static void test_hash(void **state)
{
	struct js_str a = str_of("msg_01abc"), b = str_of("msg_01abc"), c = str_of("msg_01abd"),
		      e = str_of("");

	(void)state;
	assert_true(js_hash(&a) == js_hash(&b));
	assert_true(js_hash(&a) != js_hash(&c));
	assert_true(js_hash(&e) != 0);
}

static int64_t time_of(const char *text)
{
	struct js_str s = str_of(text);
	int64_t ms = 0;

	return js_time(&s, &ms) ? -1 : ms;
}

static void test_time_parses(void **state)
{
	(void)state;
	assert_true(time_of("2026-01-01T10:00:00.000Z") == 1767261600000LL);
	assert_true(time_of("1970-01-01T00:00:00.000Z") == 0);
	assert_true(time_of("1970-01-01T00:00:00Z") == 0);
	assert_true(time_of("2026-01-01T10:00:00.5Z") == 1767261600500LL);
	assert_true(time_of("2026-01-01T10:00:00.123456Z") == 1767261600123LL);
	assert_true(time_of("2026-01-01T12:00:00.000+02:00") == 1767261600000LL);
	assert_true(time_of("2026-01-01T05:30:00.000-04:30") == 1767261600000LL);
	assert_true(time_of("2024-02-29T23:59:59.999Z") == 1709251199999LL);
	assert_true(time_of("1969-12-31T23:59:59.000Z") == -1000);
}

static void test_time_rejects(void **state)
{
	(void)state;
	assert_true(time_of("") == -1);
	assert_true(time_of("garbage") == -1);
	assert_true(time_of("2026-13-01T10:00:00.000Z") == -1);
	assert_true(time_of("2026-01-32T10:00:00.000Z") == -1);
	assert_true(time_of("2026-01-01T24:00:00.000Z") == -1);
	assert_true(time_of("2026-01-01T10:00:00.000") == -1);
	assert_true(time_of("2026-01-01T10:00:00.000Zjunk") == -1);
	assert_true(time_of("2026-01-01T10:00:00.000+0200") == -1);
	assert_true(time_of("2026/01/01T10:00:00.000Z") == -1);
}

static void test_time_round_trip(void **state)
{
	static const int64_t ms[] = {
		0, 1, 999, 1000, 1767261600000LL, 1767261600123LL, 1709251199999LL,
		951782400000LL /* 2000-02-29 */, 4102444799999LL /* 2099-12-31 */,
		-1, -86400000, -1000, 253402300799999LL /* 9999-12-31 */,
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ms) / sizeof(ms[0]); i++) {
		char buf[32];

		js_time_fmt(ms[i], buf);
		assert_int_equal(strlen(buf), 24);
		assert_true(time_of(buf) == ms[i]);
	}
}

static void test_time_fmt_text(void **state)
{
	char buf[32];

	(void)state;
	js_time_fmt(1767261600123LL, buf);
	assert_string_equal(buf, "2026-01-01T10:00:00.123Z");
	js_time_fmt(-1, buf);
	assert_string_equal(buf, "1969-12-31T23:59:59.999Z");
	js_time_fmt(1709251199999LL, buf);
	assert_string_equal(buf, "2024-02-29T23:59:59.999Z");
}

/* Every year from 0 to 9999 (written without snprintf) and beyond it
 * (with it), against gmtime_r(). */
static void test_time_fmt_all_years(void **state)
{
	uint64_t rnd = 0x9e3779b97f4a7c15ULL;
	int i;

	(void)state;
	for (i = 0; i < 200000; i++) {
		int64_t lo = -62167219200000LL - 86400000LL * 366 * 3;	/* year -3 */
		int64_t span = 253402300800000LL - lo + 86400000LL * 366 * 3;
		int64_t ms;
		time_t t;
		struct tm tm;
		char got[32], want[96];

		rnd = rnd * 6364136223846793005ULL + 1442695040888963407ULL;
		ms = lo + (int64_t)((rnd >> 11) % (uint64_t)span);
		if (i < 2000)	/* the edges of the fast years */
			ms = (i & 1 ? 253402300800000LL : -62167219200000LL) + (i / 2 - 500);
		t = (time_t)((ms - (((ms % 1000) + 1000) % 1000)) / 1000);
		assert_non_null(gmtime_r(&t, &tm));
		snprintf(want, sizeof(want), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
			 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
			 tm.tm_min, tm.tm_sec, (int)(((ms % 1000) + 1000) % 1000));
		js_time_fmt(ms, got);
		assert_string_equal(got, want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_string_plain),
		cmocka_unit_test(test_string_escaped_quote_does_not_end_it),
		cmocka_unit_test(test_string_escaped_backslash_before_quote_ends_it),
		cmocka_unit_test(test_string_three_backslashes_then_quote),
		cmocka_unit_test(test_string_backslash_run_far_from_start),
		cmocka_unit_test(test_string_unterminated_is_null),
		cmocka_unit_test(test_string_stops_at_end_bound),
		cmocka_unit_test(test_value_every_kind),
		cmocka_unit_test(test_value_malformed_is_null),
		cmocka_unit_test(test_value_deep_nesting),
		cmocka_unit_test(test_obj_iteration),
		cmocka_unit_test(test_obj_malformed),
		cmocka_unit_test(test_arr_iteration),
		cmocka_unit_test(test_eq_and_blank),
		cmocka_unit_test(test_unescape_simple),
		cmocka_unit_test(test_unescape_unicode),
		cmocka_unit_test(test_unescape_lone_surrogates_give_fffd),
		cmocka_unit_test(test_unescape_bad_escapes_and_bytes),
		cmocka_unit_test(test_hash),
		cmocka_unit_test(test_time_parses),
		cmocka_unit_test(test_time_rejects),
		cmocka_unit_test(test_time_round_trip),
		cmocka_unit_test(test_time_fmt_text),
		cmocka_unit_test(test_time_fmt_all_years),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * jskip: the ends of strings and nested values, on every instruction set
 * this CPU runs, against byte-at-a-time references.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"
#include "jskip.h"

/* The instruction sets to test: the portable one, and AVX2 if here. */
static int isa_count(void)
{
	return jskip_isa() == JSKIP_AVX2 ? 2 : 1;
}

static enum jskip_isa isa_at(int i)
{
	return i ? JSKIP_AVX2 : JSKIP_PORTABLE;
}

/* The closing quote of a string whose body starts at p. */
static const char *ref_string_end(const char *p, const char *e)
{
	for (; p < e; p++) {
		if (*p == '\\') {
			if (++p == e)
				return NULL;
		} else if (*p == '"') {
			return p;
		}
	}
	return NULL;
}

/* The closing quote of a string whose body starts at p, or the first
 * backslash before it whose escaped byte c has ok[c] == 0. */
static const char *ref_string_esc(const char *p, const char *e, const char ok[256])
{
	for (; p < e; p++) {
		if (*p == '\\') {
			if (p + 1 == e)
				return NULL;
			if (!ok[(unsigned char)p[1]])
				return p;
			p++;
		} else if (*p == '"') {
			return p;
		}
	}
	return NULL;
}

/* The escapes a JSON checker passes as they are; and the same with 'x'. */
static const char ok_json[256] = {
	['"'] = 1, ['\\'] = 1, ['/'] = 1, ['b'] = 1, ['f'] = 1, ['n'] = 1, ['r'] = 1, ['t'] = 1,
};
static const char ok_x[256] = {
	['"'] = 1, ['\\'] = 1, ['x'] = 1,
};

/* Past the nested value at p: brackets outside strings must match; a
 * backslash outside strings is an ordinary byte. */
static const char *ref_nested(const char *p, const char *e)
{
	char stack[1024];
	size_t d = 0;

	for (; p < e; p++) {
		char c = *p;

		if (c == '"') {
			p = ref_string_end(p + 1, e);
			if (!p)
				return NULL;
		} else if (c == '{' || c == '[') {
			if (d == sizeof(stack))
				return NULL;
			stack[d++] = c;
		} else if (c == '}' || c == ']') {
			if (!d || stack[--d] != (c == '}' ? '{' : '['))
				return NULL;
			if (!d)
				return p + 1;
		}
	}
	return NULL;
}

static uint32_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (uint32_t)(*s >> 11);
}

/* Random text: runs of plain bytes (some longer than a block) between
 * bytes dense in quotes, backslashes and brackets. */
static void random_text(char *t, int n, uint64_t *seed)
{
	static const char alpha[] = "\"\\\\{}[]\"\\x \"";
	int i = 0;

	while (i < n) {
		int run = rnd(seed) % 4 ? 1 : (int)(rnd(seed) % 150);

		if (run == 1) {
			t[i++] = alpha[rnd(seed) % (sizeof(alpha) - 1)];
			continue;
		}
		while (run-- > 0 && i < n)
			t[i++] = 'x';
	}
}

static void check_both(enum jskip_isa isa, const char *t, int n)
{
	const char *e = t + n;

	if (n && t[0] == '"') {
		const char *want = ref_string_end(t + 1, e), *got;
		int bs = -1;

		got = jskip_string_isa(isa, t + 1, e, &bs);
		assert_ptr_equal(got, want);
		assert_ptr_equal(jskip_string_esc_isa(isa, t + 1, e, ok_json),
				 ref_string_esc(t + 1, e, ok_json));
		assert_ptr_equal(jskip_string_esc_isa(isa, t + 1, e, ok_x),
				 ref_string_esc(t + 1, e, ok_x));
		if (want)
			assert_int_equal(bs, memchr(t + 1, '\\', (size_t)(want - t - 1)) != NULL);
	} else if (n) {
		assert_ptr_equal(jskip_nested_isa(isa, t, e), ref_nested(t, e));
	}
}

/* Random texts at every alignment, long enough to cross several blocks. */
static void test_random_texts_match_reference(void **state)
{
	char buf[1024];
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	int k, i;

	(void)state;
	for (k = 0; k < 40000; k++) {
		int off = (int)(rnd(&seed) % 64), n = (int)(rnd(&seed) % 900);
		char *t = buf + off;

		random_text(t, n, &seed);
		if (n)
			t[0] = "\"{["[rnd(&seed) % 3];
		for (i = 0; i < isa_count(); i++)
			check_both(isa_at(i), t, n);
	}
}

/* A run of backslashes ending on each side of a block boundary: the quote
 * after it ends the string when the run is even; inside a nested value,
 * the bracket after that quote closes it. */
static void test_backslash_runs_across_blocks(void **state)
{
	char t[300];
	const char *e = t + sizeof(t);
	int end, run, i, bs;

	(void)state;
	for (end = 50; end < 200; end++) {
		for (run = 0; run < 6; run++) {
			memset(t, 'a', sizeof(t));
			memcpy(t, "[\"", 2);
			memset(t + end - run, '\\', (size_t)run);
			memcpy(t + end, "\"]", 2);
			memcpy(t + sizeof(t) - 2, "\"]", 2);
			for (i = 0; i < isa_count(); i++) {
				assert_ptr_equal(jskip_string_isa(isa_at(i), t + 2, e, &bs),
						 run % 2 ? e - 2 : t + end);
				assert_int_equal(bs, run > 0);
				assert_ptr_equal(jskip_string_esc_isa(isa_at(i), t + 2, e, ok_json),
						 run % 2 ? e - 2 : t + end);
				assert_ptr_equal(jskip_nested_isa(isa_at(i), t, e),
						 run % 2 ? e : t + end + 2);
			}
		}
	}
}

/* A text that ends in a backslash, at every length: its escape is not
 * there, so neither is the string's end. */
static void test_string_esc_cut_at_a_backslash(void **state)
{
	char t[200];
	int n, i;

	(void)state;
	memset(t, 'a', sizeof(t));
	for (n = 1; n <= (int)sizeof(t); n++) {
		t[n - 1] = '\\';
		for (i = 0; i < isa_count(); i++)
			assert_null(jskip_string_esc_isa(isa_at(i), t, t + n, ok_json));
		t[n - 1] = 'a';
	}
}

static void check_nested(const char *t, size_t n)
{
	int i;

	for (i = 0; i < isa_count(); i++)
		assert_ptr_equal(jskip_nested_isa(isa_at(i), t, t + n), ref_nested(t, t + n));
}

/* Outside strings a backslash escapes nothing: the quote after it opens
 * a string (the masks alone would take it as escaped). At the start, and
 * after a string longer than a block. */
static void test_backslash_outside_strings(void **state)
{
	static const char *const texts[] = {
		"[\\\"]\"]", "{\\\"\"a\"}", "[\\\"]", "{\"a\":[1,\\\"x\\\"]}", "[\\\\\"]\"]",
	};
	char buf[200];
	size_t k, n;
	int i;

	(void)state;
	for (k = 0; k < sizeof(texts) / sizeof(texts[0]); k++) {
		check_nested(texts[k], strlen(texts[k]));
		memset(buf, 'x', sizeof(buf));
		memcpy(buf, "[\"", 2);
		memcpy(buf + 92, "\",", 2);
		n = strlen(texts[k]);
		memcpy(buf + 94, texts[k], n);
		buf[94 + n] = ']';
		check_nested(buf, 95 + n);
	}
	for (i = 0; i < isa_count(); i++) {
		const char *t = "[\\\"]\"]";

		assert_ptr_equal(jskip_nested_isa(isa_at(i), t, t + 6), t + 6);
	}
}

static void test_deep_nesting(void **state)
{
	size_t depth = 100000, j;
	char *t = malloc(2 * depth + 1);
	int i;

	(void)state;
	for (j = 0; j < depth; j++) {
		t[j] = j % 3 ? '[' : '{';
		t[2 * depth - 1 - j] = j % 3 ? ']' : '}';
	}
	for (i = 0; i < isa_count(); i++) {
		assert_ptr_equal(jskip_nested_isa(isa_at(i), t, t + 2 * depth), t + 2 * depth);
		assert_null(jskip_nested_isa(isa_at(i), t, t + 2 * depth - 1));
	}
	t[depth + 7] = t[depth + 7] == ']' ? '}' : ']';
	for (i = 0; i < isa_count(); i++)
		assert_null(jskip_nested_isa(isa_at(i), t, t + 2 * depth));
	free(t);
}

/* A long string inside a nested value (read past with the string masks)
 * that holds brackets, escaped quotes and an odd run at a block's end. */
static void test_long_string_inside_value(void **state)
{
	char t[700];
	int i, cut;

	(void)state;
	for (cut = 60; cut < 200; cut++) {
		memset(t, 'y', sizeof(t));
		memcpy(t, "{\"k\":\"", 6);
		memcpy(t + cut, "\\\"}]\\\\", 6);
		t[cut + 40] = '{';
		memcpy(t + 600, "\",\"z\":[1]}", 10);
		for (i = 0; i < isa_count(); i++) {
			assert_ptr_equal(jskip_nested_isa(isa_at(i), t, t + sizeof(t)), t + 610);
			assert_null(jskip_nested_isa(isa_at(i), t, t + 609));
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_texts_match_reference),
		cmocka_unit_test(test_backslash_runs_across_blocks),
		cmocka_unit_test(test_string_esc_cut_at_a_backslash),
		cmocka_unit_test(test_backslash_outside_strings),
		cmocka_unit_test(test_deep_nesting),
		cmocka_unit_test(test_long_string_inside_value),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

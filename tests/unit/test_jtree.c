/*
 * jtree: jt_parse() builds the tree cJSON_ParseWithLength() builds, node
 * for node, on texts made to hit cJSON's corners, on mutations of them,
 * and on every line of the corpus.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jtree.h"
#include "testutil.h"

/* 1 when both parsers agree on p[0..n) (both refuse it, or the same tree). */
static int agree(const char *p, size_t n)
{
	cJSON *a = cJSON_ParseWithLength(p, n), *b = jt_parse(p, n);
	int ok = jt_same(a, b);

	cJSON_Delete(a);
	cJSON_Delete(b);
	return ok;
}

#define TEXT(s) s, sizeof(s) - 1

static const struct {
	const char *p;
	size_t n;
} corners[] = {
	{ TEXT("{\"a\":1,\"b\":[true,false,null],\"c\":\"x\"}") },
	{ TEXT("  \t\n{}  ") }, { TEXT("[]") }, { TEXT("[[[[]]]]") },
	{ TEXT("\"\"") }, { TEXT("\"plain\"") }, { TEXT("\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"") },
	{ TEXT("\"\\u00e9\\u20AC\\ud83d\\ude00\"") },
	{ TEXT("\"a\\u0000b\"") },		/* a C string ends at the NUL */
	{ TEXT("\"a\\u00zzb\"") },		/* bad hex: U+0000 */
	{ TEXT("\"\\udc00\"") },		/* a lone low surrogate: refused */
	{ TEXT("\"\\ud800x\"") },		/* a lone high one: refused */
	{ TEXT("\"raw\x01\x1f bytes\"") },
	{ TEXT("\"nul\0inside\"") },
	{ TEXT("\"\\q\"") }, { TEXT("\"unterminated") }, { TEXT("\"a\\") },
	{ TEXT("{\"k\":1,\"k\":2}") },	/* both members kept */
	{ TEXT("{\"k\\u0000x\":1}") },	/* the key "k" */
	{ TEXT("{\"\":\"\"}") }, { TEXT("{\"a\" : 1 , \"b\" : 2 }") },
	{ TEXT("{\"a\":1,}") }, { TEXT("[1,]") }, { TEXT("[1 2]") }, { TEXT("{\"a\"}") },
	{ TEXT("{1:2}") }, { TEXT("]") }, { TEXT("") }, { TEXT("   ") },
	{ TEXT("0") }, { TEXT("-0") }, { TEXT("007") }, { TEXT("-12") },
	{ TEXT("123456789012345") }, { TEXT("1234567890123456") },
	{ TEXT("12345678901234567890123") }, { TEXT("2147483647") },
	{ TEXT("2147483648") }, { TEXT("-2147483649") }, { TEXT("1.5") },
	{ TEXT("-1.25e-3") }, { TEXT("1e999") }, { TEXT("-1e999") }, { TEXT("1E2") },
	{ TEXT("1e+2") }, { TEXT("0.1") }, { TEXT("-") }, { TEXT("+1") }, { TEXT(".5") },
	{ TEXT("1.") }, { TEXT("1e") }, { TEXT("01.5") }, { TEXT("--1") }, { TEXT("1-2") },
	{ TEXT("1234567890123456789012345678901234567890123456789012345678901234567890") },
	{ TEXT("[1.0000000000000001,2.5e308,4.9e-324]") },
	{ TEXT("true") }, { TEXT("false") }, { TEXT("null") }, { TEXT("tru") },
	{ TEXT("nul") }, { TEXT("truex") }, { TEXT("[true,false]x") },
	{ TEXT("{\"a\":1} trailing") }, { TEXT("{\"a\":1}\n{\"b\":2}") },
	{ TEXT("\xef\xbb\xbf{\"a\":1}") }, { TEXT("\xef\xbb\xbf" "1") },
	{ TEXT("\xef\xbb\xbf" "12") }, { TEXT("\xef\xbb\xbf") },
	{ TEXT("\0\0{\"a\":1}") },
	{ TEXT("{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":"
	       "\"tool_result\",\"tool_use_id\":\"t1\",\"content\":\"line 1\\nline 2\\t\\\"q\\\"\"}]},"
	       "\"uuid\":\"u1\",\"n\":-3.75,\"ok\":true,\"none\":null}") },
};

static void corner_cases(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(corners) / sizeof(corners[0]); i++)
		if (!agree(corners[i].p, corners[i].n))
			fail_msg("corner %zu differs: %.*s", i, (int)corners[i].n, corners[i].p);
}

/* Nesting up to cJSON's limit and one past it: objects and arrays by
 * turns, a number at the bottom. */
static void deep_nesting(void **state)
{
	size_t depth[] = { CJSON_NESTING_LIMIT - 1, CJSON_NESTING_LIMIT, CJSON_NESTING_LIMIT + 1 };
	char *s = malloc(8 * CJSON_NESTING_LIMIT + 16);
	size_t i, j, n;

	(void)state;
	assert_non_null(s);
	for (i = 0; i < 3; i++) {
		n = 0;
		for (j = 0; j < depth[i]; j++) {
			if (j & 1) {
				s[n++] = '[';
			} else {
				memcpy(s + n, "{\"k\":", 5);
				n += 5;
			}
		}
		s[n++] = '1';
		for (j = depth[i]; j-- > 0;)
			s[n++] = j & 1 ? ']' : '}';
		assert_true(agree(s, n));
	}
	free(s);
}

/* Long strings made mostly of escapes (their buffers are cut to fit) and
 * without any (one copy), as keys and as values. */
static void long_strings(void **state)
{
	static const char *const unit[] = { "\\n", "\\u00e9", "\\\"", "ab", "\\ud83d\\ude00" };
	char *s = malloc(64 * 1024);
	size_t i, j, n;

	(void)state;
	assert_non_null(s);
	for (i = 0; i < sizeof(unit) / sizeof(unit[0]); i++) {
		n = 0;
		memcpy(s + n, "{\"", 2);
		n += 2;
		for (j = 0; j < 300; j++, n += strlen(unit[i]))
			memcpy(s + n, unit[i], strlen(unit[i]));
		memcpy(s + n, "\":[\"", 4);
		n += 4;
		for (j = 0; j < 3000; j++, n += strlen(unit[i]))
			memcpy(s + n, unit[i], strlen(unit[i]));
		memcpy(s + n, "\"]}", 3);
		n += 3;
		assert_true(agree(s, n));
	}
	free(s);
}

/* Every corner with bytes changed, removed and repeated (a fixed seed). */
static void mutations(void **state)
{
	static const char alphabet[] = "{}[]\",:\\u0dD8e+-.1 tfnx\xc3\xa9\0";
	unsigned long long x = 0x9e3779b97f4a7c15ull;
	char buf[512];
	size_t i, r, n;
	int checked = 0;

	(void)state;
	for (r = 0; r < 40; r++)
		for (i = 0; i < sizeof(corners) / sizeof(corners[0]); i++) {
			size_t k, edits;

			n = corners[i].n < sizeof(buf) / 2 ? corners[i].n : sizeof(buf) / 2;
			memcpy(buf, corners[i].p, n);
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			edits = 1 + x % 3;
			for (k = 0; k < edits && n; k++) {
				size_t at;

				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				at = (size_t)(x >> 8) % n;
				switch (x % 3) {
				case 0:
					buf[at] = alphabet[(x >> 32) % (sizeof(alphabet) - 1)];
					break;
				case 1:
					memmove(buf + at, buf + at + 1, n - at - 1);
					n--;
					break;
				default:
					memmove(buf + at + 1, buf + at, n - at);
					n++;
					break;
				}
			}
			if (!agree(buf, n))
				fail_msg("a mutation of corner %zu differs: %.*s", i, (int)n, buf);
			checked++;
		}
	assert_true(checked > 2000);
}

/* Every line of every log of the corpus, when it is there. */
static unsigned long corpus_lines;

static void corpus_log(const char *path)
{
	size_t cap = 0;
	char *line = NULL;
	ssize_t len;
	FILE *f = fopen(path, "r");

	if (!f)
		return;
	while ((len = getline(&line, &cap, f)) > 0) {
		if (!agree(line, (size_t)len))
			fail_msg("%s: a line differs: %.200s", path, line);
		corpus_lines++;
	}
	free(line);
	fclose(f);
}

static void corpus(void **state)
{
	(void)state;
	tu_corpus_logs(corpus_log);
	print_message("%lu lines agree\n", corpus_lines);
	assert_true(corpus_lines > 10000);
}

/* A node is one block with its key and string value: cJSON's functions
 * that print, detach, replace and delete work on it, and jt_dup() copies
 * a subtree that outlives its tree (ASan sees a key left shared). The
 * text is mostly escapes, so that its block is given back in part. */
static void one_block_nodes(void **state)
{
	char text[512], want[64], *out;
	cJSON *j, *m, *c, *b, *d, *r;
	int i, n = 0;

	(void)state;
	n += snprintf(text + n, sizeof(text) - (size_t)n, "{\"message\":{\"id\":\"m1\","
		      "\"content\":[{\"type\":\"text\",\"text\":\"a");
	for (i = 0; i < 40; i++)
		n += snprintf(text + n, sizeof(text) - (size_t)n, "\\n");
	n += snprintf(text + n, sizeof(text) - (size_t)n, "b\",\"n\":-0,\"big\":12345678901234}]}}");
	memset(want, '\n', sizeof(want));
	want[0] = 'a';
	want[41] = 'b';
	want[42] = '\0';
	assert_non_null(j = jt_parse(text, (size_t)n));
	m = cJSON_GetObjectItemCaseSensitive(j, "message");
	c = cJSON_GetObjectItemCaseSensitive(m, "content");
	b = cJSON_GetArrayItem(c, 0);
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(b, "text")->valuestring, want);
	assert_true(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(m, "id")));
	assert_int_equal(cJSON_GetObjectItemCaseSensitive(b, "big")->valueint, INT_MAX);
	/* a copy keeps its keys when the tree it came from is gone */
	d = jt_dup(b);
	r = cJSON_DetachItemFromObjectCaseSensitive(m, "id");
	assert_true(cJSON_ReplaceItemInObjectCaseSensitive(m, "content", r));
	cJSON_Delete(j);
	assert_string_equal(d->child->string, "type");
	out = cJSON_PrintUnformatted(d);
	assert_non_null(strstr(out, "\"n\":-0,\"big\":12345678901234}"));
	assert_non_null(strstr(out, "{\"type\":\"text\",\"text\":\"a\\n"));
	free(out);
	cJSON_Delete(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(corner_cases),
		cmocka_unit_test(deep_nesting),
		cmocka_unit_test(long_strings),
		cmocka_unit_test(mutations),
		cmocka_unit_test(corpus),
		cmocka_unit_test(one_block_nodes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

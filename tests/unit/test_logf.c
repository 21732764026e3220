/*
 * logf: the log opened read-only, records read back and parsed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "testutil.h"
#include "idx.h"
#include "logf.h"

/* The log text, indexed; f->lf and f->ix are usable. */
struct lfx {
	char *path;
	struct logf *lf;
	struct idx *ix;
};

static void lfx_open(struct lfx *f, const char *data, size_t n)
{
	f->path = tu_write(data, n);
	f->ix = idx_new();
	assert_int_equal(lf_open(f->path, &f->lf), 0);
	assert_int_equal(idx_finish(f->ix, lf_fd(f->lf)), 0);
}

static void lfx_close(struct lfx *f)
{
	lf_close(f->lf);
	idx_free(f->ix);
	tu_remove(f->path);
}

static const char *content_of(const cJSON *j)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(j, "message");
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(m, "content");

	return cJSON_IsString(c) ? c->valuestring : NULL;
}

static void test_read_gives_the_exact_line(void **state)
{
	static const char log[] = "{\"type\":\"mode\"}\r\n\0\0{\"type\":\"tag\",\"tag\":\"x\"}\n";
	struct lfx f;
	struct sbuf sb;

	(void)state;
	lfx_open(&f, log, sizeof(log) - 1);
	assert_int_equal(idx_nrecs(f.ix), 2);
	sb_init(&sb);
	sb_adds(&sb, "prefix:");
	assert_int_equal(lf_read(f.lf, idx_rec(f.ix, 0), &sb), 0);
	assert_int_equal(sb.len, 7 + 16);
	assert_memory_equal(sb.buf, "prefix:{\"type\":\"mode\"}\r", 23);
	sb_reset(&sb);
	assert_int_equal(lf_read(f.lf, idx_rec(f.ix, 1), &sb), 0);
	assert_int_equal(sb.len, 2 + 24);
	assert_memory_equal(sb.buf, "\0\0{\"type\":\"tag\",", 16);
	sb_free(&sb);
	lfx_close(&f);
}

static void test_parse_skips_leading_nuls(void **state)
{
	static const char log[] = "\0\0\0{\"type\":\"tag\",\"tag\":\"x\"}\n";
	struct lfx f;
	cJSON *j;

	(void)state;
	lfx_open(&f, log, sizeof(log) - 1);
	j = lf_parse(f.lf, idx_rec(f.ix, 0));
	assert_non_null(j);
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(j, "tag")->valuestring, "x");
	cJSON_Delete(j);
	lfx_close(&f);
}

static void test_parse_invalid_utf8(void **state)
{
	const char *log = "{\"type\":\"user\",\"message\":{\"content\":\"a\xff\xfe" "b\xed\xa0\x80\"}}\n";
	struct lfx f;
	cJSON *j;

	(void)state;
	lfx_open(&f, log, strlen(log));
	j = lf_parse(f.lf, idx_rec(f.ix, 0));
	assert_non_null(j);
	assert_non_null(content_of(j));
	assert_int_equal(content_of(j)[0], 'a');
	cJSON_Delete(j);
	lfx_close(&f);
}

static void test_parse_lone_surrogates_become_fffd(void **state)
{
	const char *log =
		"{\"type\":\"user\",\"message\":{\"content\":\"x\\udc80y\"}}\n"
		"{\"type\":\"user\",\"message\":{\"content\":\"\\ud800\"}}\n"
		"{\"type\":\"user\",\"message\":{\"content\":\"\\ud83d\\ude00 \\\\udc80\"}}\n";
	struct lfx f;
	cJSON *j;

	(void)state;
	lfx_open(&f, log, strlen(log));
	assert_int_equal(idx_nrecs(f.ix), 3);
	j = lf_parse(f.lf, idx_rec(f.ix, 0));
	assert_non_null(j);
	assert_string_equal(content_of(j), "x\xef\xbf\xbdy");
	cJSON_Delete(j);
	j = lf_parse(f.lf, idx_rec(f.ix, 1));
	assert_non_null(j);
	assert_string_equal(content_of(j), "\xef\xbf\xbd");
	cJSON_Delete(j);
	/* a valid pair is kept; an escaped backslash before "udc80" is text */
	j = lf_parse(f.lf, idx_rec(f.ix, 2));
	assert_non_null(j);
	assert_string_equal(content_of(j), "\xf0\x9f\x98\x80 \\udc80");
	cJSON_Delete(j);
	lfx_close(&f);
}

/* Read through a buffer, a record has the bytes lf_read() gives and parses
 * in place as lf_parse() parses it: in order, backwards, twice, a record
 * longer than the buffer, one at the end of the file and one whose bytes
 * the file no longer has. */
static void test_read_ahead_matches_read(void **state)
{
	struct sbuf log, want;
	struct lf_ahead a = { 0 };
	struct lfx f;
	char *big = malloc(LF_AHEAD + 100);
	uint32_t i, n, order[] = { 0, 1, 2, 3, 4, 2, 1, 0, 4, 4, 3 };
	struct idx_rec gone;

	(void)state;
	assert_non_null(big);
	memset(big, 'b', LF_AHEAD + 99);
	big[LF_AHEAD + 99] = '\0';
	sb_init(&log);
	sb_adds(&log, "{\"type\":\"user\",\"message\":{\"content\":\"x\\udc80y\"}}\n");
	sb_add(&log, "\0\0{\"type\":\"tag\",\"tag\":\"x\"}\n", 27);
	sb_adds(&log, "{\"type\":\"tag\",\"tag\":\"");
	sb_adds(&log, big);
	sb_adds(&log, "\"}\n");
	sb_adds(&log, "{\"type\":\"user\",\"message\":{\"content\":\"\\ud83d\\ude00\"}}\n");
	sb_adds(&log, "{\"type\":\"tag\",\"tag\":\"last\"}\n");
	lfx_open(&f, log.buf, log.len);
	n = idx_nrecs(f.ix);
	assert_int_equal(n, 5);
	sb_init(&want);
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		const struct idx_rec *r = idx_rec(f.ix, order[i]);
		char *p = lf_ahead_get(f.lf, &a, r);
		cJSON *w = lf_parse(f.lf, r), *g;
		char *ws, *gs;

		sb_reset(&want);
		assert_int_equal(lf_read(f.lf, r, &want), 0);
		assert_non_null(p);
		assert_memory_equal(p, want.buf, r->len);
		g = lf_parse_in_place(p, r->len);
		ws = cJSON_PrintUnformatted(w);
		gs = cJSON_PrintUnformatted(g);

		assert_non_null(ws);
		assert_non_null(gs);
		assert_string_equal(gs, ws);
		free(ws);
		free(gs);
		cJSON_Delete(w);
		cJSON_Delete(g);
	}
	/* past the end of the file: nothing to parse, as with lf_parse() */
	gone = *idx_rec(f.ix, 4);
	gone.off = log.len + 10;
	assert_null(lf_ahead_get(f.lf, &a, &gone));
	assert_null(lf_parse(f.lf, &gone));
	lf_ahead_free(&a);
	lf_ahead_free(&a);	/* twice is harmless */
	sb_free(&want);
	sb_free(&log);
	free(big);
	lfx_close(&f);
}

static void test_parse_too_deep_is_null_not_a_crash(void **state)
{
	struct sbuf sb;
	struct lfx f;
	int i;

	(void)state;
	sb_init(&sb);
	sb_adds(&sb, "{\"type\":\"user\",\"x\":");
	for (i = 0; i < 100000; i++)
		sb_addc(&sb, '[');
	for (i = 0; i < 100000; i++)
		sb_addc(&sb, ']');
	sb_adds(&sb, "}\n");
	lfx_open(&f, sb.buf, sb.len);
	assert_int_equal(idx_nrecs(f.ix), 1);
	assert_null(lf_parse(f.lf, idx_rec(f.ix, 0)));
	sb_free(&sb);
	lfx_close(&f);
}

static void test_parse_mem(void **state)
{
	cJSON *j = lf_parse_mem("\0{\"a\":\"\\udfff\"}", 15);

	(void)state;
	assert_non_null(j);
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(j, "a")->valuestring, "\xef\xbf\xbd");
	cJSON_Delete(j);
	assert_null(lf_parse_mem("{\"a\":", 5));
}

static void test_open_refuses_what_is_not_a_log(void **state)
{
	struct logf *lf = (struct logf *)1;
	char dir[] = "/tmp/sessfs-test-dir-XXXXXX", fifo[64];

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(lf_open(dir, &lf), -EISDIR);
	assert_null(lf);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(lf_open(fifo, &lf), -EINVAL);
	assert_int_equal(lf_open("/nonexistent/sessfs/log.jsonl", &lf), -ENOENT);
	unlink(fifo);
	rmdir(dir);
}

/* lf_fix_surrogates() one byte at a time, as its comment says it works. */
static int hexv(const char *p, unsigned *v)
{
	char tmp[5] = { p[0], p[1], p[2], p[3], 0 }, *end;

	*v = (unsigned)strtoul(tmp, &end, 16);
	return end == tmp + 4 && tmp[0] != '+' && tmp[0] != '-' && tmp[0] != ' ';
}

static void fix_ref(char *p, size_t n)
{
	size_t i = 0, b;
	unsigned hi, lo;

	while (i + 3 <= n) {
		if (p[i] != '\\' || p[i + 1] != 'u' || (p[i + 2] | 0x20) != 'd') {
			i++;
			continue;
		}
		for (b = i; b > 0 && p[b - 1] == '\\'; b--)
			;
		if ((i - b) % 2 || i + 6 > n || !hexv(p + i + 2, &hi) || hi < 0xd800) {
			i += 2;
			continue;
		}
		if (hi <= 0xdbff && i + 12 <= n && p[i + 6] == '\\' && p[i + 7] == 'u' &&
		    hexv(p + i + 8, &lo) && lo >= 0xdc00 && lo <= 0xdfff) {
			i += 12;
			continue;
		}
		memcpy(p + i + 2, "fffd", 4);
		i += 6;
	}
}

/* Random text of escapes that are and are not surrogates, at every
 * offset and length the wide and narrow scans meet: the same rewrite as
 * one byte at a time. */
static void test_fix_surrogates_matches_bytewise(void **state)
{
	static const char *const piece[] = {
		"\\ud800", "\\uDC80", "\\\\ud800", "\\ud83d\\ude00", "\\ud83d\\u0041",
		"\\u0041", "\\udbff\\udfff", "\\ud8", "\\ud80g", "\\\\\\udc00", "x", "yz",
		"\\", "u", "d", "\\udc00\\ud800", "plain text, no escape", "0123456789abcdef",
		"0123456789abcdef0123456789abcde", "\\u00e9t\\u00e9", "\\n\\t",
	};
	char a[160], b[160];	/* want < 160 */
	int round;

	(void)state;
	srand(7);
	for (round = 0; round < 20000; round++) {
		size_t n = 0, want = (size_t)rand() % 160;

		while (n < want) {
			const char *x = piece[rand() % (int)(sizeof(piece) / sizeof(*piece))];
			size_t k = strlen(x);

			if (n + k > want)
				break;
			memcpy(a + n, x, k);
			n += k;
		}
		memcpy(b, a, n);
		lf_fix_surrogates(a, n);
		fix_ref(b, n);
		assert_memory_equal(a, b, n);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_gives_the_exact_line),
		cmocka_unit_test(test_parse_skips_leading_nuls),
		cmocka_unit_test(test_parse_invalid_utf8),
		cmocka_unit_test(test_parse_lone_surrogates_become_fffd),
		cmocka_unit_test(test_fix_surrogates_matches_bytewise),
		cmocka_unit_test(test_parse_too_deep_is_null_not_a_crash),
		cmocka_unit_test(test_parse_mem),
		cmocka_unit_test(test_read_ahead_matches_read),
		cmocka_unit_test(test_open_refuses_what_is_not_a_log),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

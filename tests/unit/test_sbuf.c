/*
 * sbuf: the growable buffer and its UTF-8 / JSON helpers.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "testutil.h"
#include "sbuf.h"

static void test_init_is_empty_and_terminated(void **state)
{
	struct sbuf sb;

	(void)state;
	sb_init(&sb);
	assert_non_null(sb.buf);
	assert_int_equal(sb.len, 0);
	assert_string_equal(sb.buf, "");
	sb_reset(&sb);
	assert_string_equal(sb.buf, "");
	sb_free(&sb);
	assert_non_null(sb.buf);
	assert_int_equal(sb.len, 0);
}

static void test_add_grows_and_terminates(void **state)
{
	struct sbuf sb;
	int i;

	(void)state;
	sb_init(&sb);
	sb_add(&sb, "", 0);
	assert_int_equal(sb.len, 0);
	for (i = 0; i < 1000; i++)
		sb_adds(&sb, "abc");
	sb_addc(&sb, '!');
	assert_int_equal(sb.len, 3001);
	assert_int_equal(sb.buf[sb.len], '\0');
	assert_int_equal(sb.buf[3000], '!');
	assert_true(sb.cap > sb.len);
	sb_add(&sb, "x\0y", 3);
	assert_int_equal(sb.len, 3004);
	assert_memory_equal(sb.buf + 3001, "x\0y", 4);
	sb_reset(&sb);
	assert_int_equal(sb.len, 0);
	assert_string_equal(sb.buf, "");
	sb_free(&sb);
}

static void test_addf(void **state)
{
	struct sbuf sb;

	(void)state;
	sb_init(&sb);
	sb_addf(&sb, "line %u: %s", 42u, "ok");
	sb_addf(&sb, "%s", "");
	sb_addf(&sb, " %05d", 7);
	assert_string_equal(sb.buf, "line 42: ok 00007");
	assert_int_equal(sb.len, strlen("line 42: ok 00007"));
	sb_free(&sb);
}

/* sb_addf() formats into the room it has, or grows and formats again:
 * text that fits exactly, text one byte over, and nothing at all. */
static void test_addf_at_the_edge_of_its_room(void **state)
{
	struct sbuf sb;
	char want[80];

	(void)state;
	sb_init(&sb);
	sb_addc(&sb, 'a');
	assert_int_equal(sb.cap, 64);
	sb_add(&sb, "bcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefgh", 59);
	assert_int_equal(sb.len, 60);
	sb_addf(&sb, "%s", "123");	/* 3 bytes and the NUL: the room left */
	assert_int_equal(sb.len, 63);
	assert_int_equal(sb.cap, 64);
	sb_addf(&sb, "%s", "");
	assert_int_equal(sb.len, 63);
	assert_int_equal(sb.buf[63], '\0');
	sb_addf(&sb, "%d", 45);	/* one byte over */
	assert_int_equal(sb.len, 65);
	snprintf(want, sizeof(want), "a%.59s12345",
		 "bcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefgh");
	assert_string_equal(sb.buf, want);
	sb_free(&sb);
}

static void test_add_dec(void **state)
{
	struct sbuf sb;

	(void)state;
	sb_init(&sb);
	sb_add_dec(&sb, 0, 0);
	sb_addc(&sb, ' ');
	sb_add_dec(&sb, 42, 6);
	sb_addc(&sb, ' ');
	sb_add_dec(&sb, 1234567, 6);
	sb_addc(&sb, ' ');
	sb_add_dec(&sb, UINT64_MAX, 3);
	assert_string_equal(sb.buf, "0 000042 1234567 18446744073709551615");
	sb_free(&sb);
}

static void test_detach(void **state)
{
	struct sbuf sb;
	size_t n = 99;
	char *p;

	(void)state;
	sb_init(&sb);
	p = sb_detach(&sb, &n);	/* an empty buffer still gives memory to free */
	assert_int_equal(n, 0);
	assert_string_equal(p, "");
	free(p);
	sb_adds(&sb, "hello");
	p = sb_detach(&sb, &n);
	assert_int_equal(n, 5);
	assert_string_equal(p, "hello");
	assert_int_equal(sb.len, 0);
	assert_string_equal(sb.buf, "");
	free(p);
	sb_free(&sb);
}

static void test_utf8_seq_len(void **state)
{
	(void)state;
	assert_int_equal(utf8_seq_len((const unsigned char *)"A", 1), 1);
	assert_int_equal(utf8_seq_len((const unsigned char *)"\xc3\xa9", 2), 2);
	assert_int_equal(utf8_seq_len((const unsigned char *)"\xe2\x82\xac", 3), 3);
	assert_int_equal(utf8_seq_len((const unsigned char *)"\xf0\x9f\x98\x80", 4), 4);
	/* truncated, bad continuation, overlong, surrogate, too large */
	assert_int_equal(utf8_seq_len((const unsigned char *)"\xc3", 1), 0);
	assert_int_equal(utf8_seq_len((const unsigned char *)"\xc3(", 2), 0);
	assert_int_equal(utf8_seq_len((const unsigned char *)"\xc0\x80", 2), 0);
	assert_int_equal(utf8_seq_len((const unsigned char *)"\xe0\x80\x80", 3), 0);
	assert_int_equal(utf8_seq_len((const unsigned char *)"\xed\xa0\x80", 3), 0);
	assert_int_equal(utf8_seq_len((const unsigned char *)"\xf4\x90\x80\x80", 4), 0);
	assert_int_equal(utf8_seq_len((const unsigned char *)"\xff", 1), 0);
	assert_int_equal(utf8_seq_len((const unsigned char *)"\x80", 1), 0);
}

static void test_add_utf8_replaces_invalid_bytes(void **state)
{
	struct sbuf sb;

	(void)state;
	sb_init(&sb);
	sb_add_utf8(&sb, "ok \xc3\xa9 \xff\xfe end \xe2\x82", 15);
	assert_string_equal(sb.buf, "ok \xc3\xa9 \xef\xbf\xbd\xef\xbf\xbd end "
			    "\xef\xbf\xbd\xef\xbf\xbd");
	sb_free(&sb);
}

static void test_add_line_keeps_one_line(void **state)
{
	struct sbuf sb;

	(void)state;
	sb_init(&sb);
	sb_add_line(&sb, "a\nb\tc\x7f\xff\xc3\xa9", 9);
	assert_string_equal(sb.buf, "a\xef\xbf\xbd" "b\xef\xbf\xbd" "c\xef\xbf\xbd"
			    "\xef\xbf\xbd" "\xc3\xa9");
	sb_reset(&sb);
	sb_add_lines(&sb, "plain");
	assert_string_equal(sb.buf, "plain");
	sb_free(&sb);
}

static void test_add_json_str_escapes(void **state)
{
	struct sbuf sb;

	(void)state;
	sb_init(&sb);
	sb_add_json_str(&sb, "a\"b\\c\nd\te\rf\bg\fh\x01i\x1f", 18);
	assert_string_equal(sb.buf, "\"a\\\"b\\\\c\\nd\\te\\rf\\bg\\fh\\u0001i\\u001f\"");
	sb_reset(&sb);
	sb_add_json_str(&sb, "caf\xc3\xa9 \xff", 7);
	assert_string_equal(sb.buf, "\"caf\xc3\xa9 \xef\xbf\xbd\"");
	sb_reset(&sb);
	sb_add_json_str(&sb, "x\0y", 3);
	assert_string_equal(sb.buf, "\"x\\u0000y\"");
	sb_reset(&sb);
	sb_add_json_str(&sb, "", 0);
	assert_string_equal(sb.buf, "\"\"");
	sb_free(&sb);
}

/* A number JSON can hold, in the caller's format; null for any other. */
static void test_add_json_num(void **state)
{
	struct sbuf sb;

	(void)state;
	sb_init(&sb);
	sb_add_json_num(&sb, "%.10g", 0.25);
	sb_addc(&sb, ' ');
	sb_add_json_num(&sb, "%.0f", 1e308 * 10);
	sb_addc(&sb, ' ');
	sb_add_json_num(&sb, "%.6g", -HUGE_VAL);
	sb_addc(&sb, ' ');
	sb_add_json_num(&sb, "%.6g", NAN);
	assert_string_equal(sb.buf, "0.25 null null null");
	sb_free(&sb);
}

static void test_utf8_valid(void **state)
{
	static const char ok[] = "plain ascii, long enough for a word at a time: \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80";
	static const char cut[] = "ends inside a sequence \xe2\x82";
	static const char surrogate[] = "\xed\xa0\x80 is a surrogate";

	(void)state;
	assert_true(utf8_valid("", 0));
	assert_true(utf8_valid(ok, sizeof(ok) - 1));
	assert_false(utf8_valid(cut, sizeof(cut) - 1));
	assert_false(utf8_valid(surrogate, sizeof(surrogate) - 1));
	assert_false(utf8_valid("\xff", 1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_is_empty_and_terminated),
		cmocka_unit_test(test_utf8_valid),
		cmocka_unit_test(test_add_grows_and_terminates),
		cmocka_unit_test(test_addf),
		cmocka_unit_test(test_addf_at_the_edge_of_its_room),
		cmocka_unit_test(test_add_dec),
		cmocka_unit_test(test_detach),
		cmocka_unit_test(test_utf8_seq_len),
		cmocka_unit_test(test_add_utf8_replaces_invalid_bytes),
		cmocka_unit_test(test_add_line_keeps_one_line),
		cmocka_unit_test(test_add_json_str_escapes),
		cmocka_unit_test(test_add_json_num),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

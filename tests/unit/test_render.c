/*
 * render: message files as text (rd_message).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"
#include "render.h"

#define FFFD "\xef\xbf\xbd"

/* Fails unless sb is valid UTF-8 ending in a newline. */
static void assert_text(const struct sbuf *sb)
{
	assert_true(sb->len > 0 && sb->buf[sb->len - 1] == '\n');
	assert_true(tu_utf8(sb->buf, sb->len));
}

/* The lines of the header (before the first blank line). */
static int header_lines(const char *text)
{
	const char *end = strstr(text, "\n\n"), *p;
	int n = 1;

	assert_non_null(end);
	for (p = text; p < end; p++)
		n += *p == '\n';
	return n;
}

static void render(struct tu_fx *f, int row, struct sbuf *out)
{
	sb_init(out);
	assert_int_equal(rd_message(f->g, f->lf, tu_id(f, row), out), 0);
}

static void test_plain_prompt(void **state)
{
	struct tu_log l;
	struct tu_fx f;
	struct sbuf sb;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "hello there");
	tu_load_log(&f, &l);
	render(&f, 1, &sb);
	assert_text(&sb);
	assert_non_null(strstr(sb.buf, "uuid: 00000001-0000-4000-8000-000000000001\n"
				       "parent: -\n"));
	assert_non_null(strstr(sb.buf, "\n\nhello there\n"));
	assert_int_equal(header_lines(sb.buf), 5);
	sb_free(&sb);
	tu_unload(&f);
	tu_log_free(&l);
}

/*
 * A uuid (here the parent's) may hold bytes that are not UTF-8, or escaped
 * control characters; so may a model, a message id, a tool's name and id.
 * The text stays UTF-8 and each value stays on its line (found by the fuzz
 * target: the parent's bytes were copied as they were).
 */
static void test_header_values_stay_utf8_on_their_line(void **state)
{
	struct tu_fx f;
	struct sbuf sb;

	(void)state;
	tu_load(&f,
		"{\"type\":\"user\",\"uuid\":\"u1\",\"parentUuid\":\"p\xff\xfe-1\","
		"\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n"
		"{\"type\":\"assistant\",\"uuid\":\"u2\",\"parentUuid\":\"u\\n1\","
		"\"message\":{\"id\":\"m\\r1\",\"model\":\"x\\ny: z\",\"role\":\"assistant\","
		"\"content\":[{\"type\":\"tool_use\",\"id\":\"t\\n1\",\"name\":\"Ba\\nsh\","
		"\"input\":{}}]}}\n");
	sb_init(&sb);
	assert_int_equal(rd_message(f.g, f.lf, idx_id_find(f.ix, "u1", 2), &sb), 0);
	assert_text(&sb);
	assert_non_null(strstr(sb.buf, "parent: p" FFFD FFFD "-1\n"));
	sb_reset(&sb);
	assert_int_equal(rd_message(f.g, f.lf, idx_id_find(f.ix, "u2", 2), &sb), 0);
	assert_text(&sb);
	assert_non_null(strstr(sb.buf, "parent: u" FFFD "1\n"));
	assert_non_null(strstr(sb.buf, "model: x" FFFD "y: z\n"));
	assert_non_null(strstr(sb.buf, "message-id: m" FFFD "1\n"));
	assert_non_null(strstr(sb.buf, "--- tool_use Ba" FFFD "sh (t" FFFD "1) ---\n"));
	assert_int_equal(header_lines(sb.buf), 7);
	sb_free(&sb);
	tu_unload(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_prompt),
		cmocka_unit_test(test_header_values_stay_utf8_on_their_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * ctx: the messages kept as text (messages.json's layout), not as a tree.
 *
 * Each message alone (ctx_message_json()) is its part of messages.json
 * with one step of indent less; both parse to the same values; the byte
 * count of the token estimate is the compact JSON's; and the messages
 * are, value for value, those the log's rows make, with the synthetic
 * rows a resume adds (rule 12's is_error result for a call left without
 * one, rule 14's "No response requested."). Texts with the characters a
 * layout could trip on: newlines, quotes, backslashes and runs of spaces
 * inside strings, nested objects and arrays.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "tu_fixture.h"
#include "ctx.h"

/* message i alone, without its last newline (new buffer in out) */
static void one(const struct ctx *x, uint32_t i, struct sbuf *out)
{
	sb_init(out);
	ctx_message_json(x, i, out);
	assert_true(out->len > 0 && out->buf[out->len - 1] == '\n');
	out->buf[--out->len] = '\0';
}

/* s with two spaces put before each of its lines */
static void indent(const char *s, struct sbuf *out)
{
	sb_adds(out, "  ");
	for (; *s; s++) {
		sb_addc(out, *s);
		if (*s == '\n')
			sb_adds(out, "  ");
	}
}

static void check_text(const struct ctx *x)
{
	struct sbuf all, want, m;
	cJSON *arr, *mj;
	char *compact;
	uint32_t i, n = ctx_nmessages(x);

	sb_init(&all);
	sb_init(&want);
	ctx_messages_json(x, &all);
	arr = cJSON_Parse(all.buf);
	assert_non_null(arr);
	assert_int_equal(cJSON_GetArraySize(arr), n);
	sb_adds(&want, n ? "[\n" : "[");
	for (i = 0; i < n; i++) {
		one(x, i, &m);
		indent(m.buf, &want);
		sb_adds(&want, i + 1 < n ? ",\n" : "\n");
		mj = cJSON_Parse(m.buf);
		assert_non_null(mj);
		assert_true(cJSON_Compare(mj, cJSON_GetArrayItem(arr, (int)i), 1));
		cJSON_Delete(mj);
		sb_free(&m);
	}
	sb_adds(&want, "]\n");
	assert_string_equal(all.buf, want.buf);
	compact = cJSON_PrintUnformatted(arr);
	assert_int_equal(ctx_bytes(x), strlen(compact));
	assert_int_equal(ctx_tokens(x), (strlen(compact) + CTX_BYTES_PER_TOKEN - 1) /
					    CTX_BYTES_PER_TOKEN);
	free(compact);
	cJSON_Delete(arr);
	sb_free(&all);
	sb_free(&want);
}

/* The messages of l's window are want's (a JSON array), value for value,
 * and their text is laid out as above. */
static void build_and_check(const struct tu_log *l, const char *want)
{
	struct tu_fx f;
	struct ctx *x;
	struct sbuf all;
	cJSON *got, *exp = cJSON_Parse(want);

	assert_non_null(exp);
	tu_load_log(&f, l);
	assert_int_equal(ctx_build(f.g, f.c, f.lf, &x), 0);
	assert_int_equal(ctx_nmessages(x), cJSON_GetArraySize(exp));
	sb_init(&all);
	ctx_messages_json(x, &all);
	got = cJSON_Parse(all.buf);
	assert_non_null(got);
	if (!cJSON_Compare(got, exp, 1))
		fail_msg("the messages:\n%s\nnot as expected:\n%s", all.buf, want);
	cJSON_Delete(got);
	cJSON_Delete(exp);
	sb_free(&all);
	check_text(x);
	ctx_free(x);
	tu_unload(&f);
}

static void test_tricky_strings_and_nesting(void **state)
{
	struct tu_log l;

	(void)state;
	tu_log_init(&l);
	tu_row(&l, "user", 1, 0, "\"message\":{\"role\":\"user\",\"content\":"
	       "\"two\\nlines, \\\"quoted\\\",  spaces \\\\ and a tab\\t\"}");
	tu_row(&l, "assistant", 2, 1, "\"message\":{\"id\":\"m2\",\"role\":\"assistant\","
	       "\"content\":[{\"type\":\"text\",\"text\":\"a: [1, {\\\"b\\\": 2}]\\n  \"},"
	       "{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"Bash\",\"input\":"
	       "{\"command\":\"ls \\\\\\\"x\\\"\",\"n\":[1,2,[3,{}],[]],\"ok\":true,"
	       "\"no\":null,\"f\":false,\"neg\":-7}}]}");
	tu_row(&l, "user", 3, 2, "\"message\":{\"role\":\"user\",\"content\":"
	       "[{\"type\":\"tool_result\",\"tool_use_id\":\"t1\",\"content\":\"out\\n\\n\"}]}");
	tu_row(&l, "assistant", 4, 3, "\"message\":{\"id\":\"m4\",\"role\":\"assistant\","
	       "\"content\":[{\"type\":\"tool_use\",\"id\":\"t2\",\"name\":\"Read\","
	       "\"input\":{}}]}");
	/* each text as logged; t2 unanswered: rule 12's synthetic result,
	 * then the trailing user row's reply (rule 14) */
	build_and_check(&l, "["
		"{\"role\":\"user\",\"content\":"
		"\"two\\nlines, \\\"quoted\\\",  spaces \\\\ and a tab\\t\"},"
		"{\"role\":\"assistant\",\"content\":["
		"{\"type\":\"text\",\"text\":\"a: [1, {\\\"b\\\": 2}]\\n  \"},"
		"{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"Bash\",\"input\":"
		"{\"command\":\"ls \\\\\\\"x\\\"\",\"n\":[1,2,[3,{}],[]],\"ok\":true,"
		"\"no\":null,\"f\":false,\"neg\":-7}}]},"
		"{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\","
		"\"tool_use_id\":\"t1\",\"content\":\"out\\n\\n\"}]},"
		"{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"t2\","
		"\"name\":\"Read\",\"input\":{}}]},"
		"{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"content\":"
		"\"[Tool call interrupted: the session ended before this call's result was "
		"recorded, so its outcome is unknown. Check whether it took effect before "
		"relying on it or running it again.]\",\"is_error\":true,\"tool_use_id\":\"t2\"}]},"
		"{\"role\":\"assistant\",\"content\":[{\"type\":\"text\","
		"\"text\":\"No response requested.\"}]}]");
	tu_log_free(&l);
}

static void test_one_message_and_none(void **state)
{
	struct tu_log l;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "only");
	build_and_check(&l, "[{\"role\":\"user\",\"content\":\"only\"},"
		"{\"role\":\"assistant\",\"content\":[{\"type\":\"text\","
		"\"text\":\"No response requested.\"}]}]");
	tu_log_free(&l);
	tu_log_init(&l);
	tu_line(&l, "{\"type\":\"mode\",\"mode\":\"normal\",\"sessionId\":\"" TU_SID "\"}");
	build_and_check(&l, "[]");
	tu_log_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tricky_strings_and_nesting),
		cmocka_unit_test(test_one_message_and_none),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

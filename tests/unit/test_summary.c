/*
 * summary: branch titles, the session's title and continuedFrom, from the
 * summary records of 0.2-1.0.x logs ({type:"summary", summary, leafUuid}).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>

#include "tu_fixture.h"
#include "tu_session.h"
#include "session.h"
#include "summary.h"

/* A summary line naming row leaf (or the uuid text when leaf is 0). */
static void summary(struct tu_log *l, int leaf, const char *other, const char *text)
{
	char u[37];

	tu_uuid(leaf, u);
	sb_adds(&l->sb, "{\"type\":\"summary\",\"summary\":");
	sb_add_json_str(&l->sb, text, strlen(text));
	sb_addf(&l->sb, ",\"leafUuid\":\"%s\"}\n", leaf ? u : other);
}

static int branch_named(const struct br_set *bs, const char *prefix)
{
	uint32_t i;

	for (i = 0; i < br_count(bs); i++)
		if (!strncmp(br_get(bs, i)->name, prefix, strlen(prefix)))
			return (int)i;
	fail();
	return -1;
}

static void test_titles_of_branches_last_one_wins(void **state)
{
	struct tu_log l;
	struct tu_fx f;
	struct sm_set *sm;
	int m, k;

	(void)state;
	tu_forked_log(&l);
	summary(&l, 4, NULL, "old title of main");
	summary(&l, 6, NULL, "The fork's title");
	summary(&l, 4, NULL, "Main's title");
	summary(&l, 3, NULL, "not a leaf: no branch ends here");
	tu_load_log(&f, &l);
	assert_int_equal(sm_build(f.g, f.br, f.lf, &sm), 0);
	m = branch_named(f.br, "main");
	k = branch_named(f.br, "fork-");
	assert_string_equal(sm_branch_title(sm, (uint32_t)m), "Main's title");
	assert_string_equal(sm_branch_title(sm, (uint32_t)k), "The fork's title");
	assert_null(sm_branch_title(sm, 99));
	assert_int_equal(sm_ncont(sm), 0);
	assert_int_equal(sm_nsummaries(sm), 4);
	sm_free(sm);
	tu_unload(&f);
	tu_log_free(&l);
}

/* A leaf that is an attachment: its nearest message takes the title too. */
static void test_title_through_a_trailing_row(void **state)
{
	struct tu_log l;
	struct tu_fx f;
	struct sm_set *sm;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "a");
	tu_asst(&l, 2, 1, "m1", "b");
	tu_system(&l, 3, 2, "turn_duration");
	summary(&l, 2, NULL, "Picked by its message");
	tu_load_log(&f, &l);
	assert_int_equal(sm_build(f.g, f.br, f.lf, &sm), 0);
	assert_string_equal(sm_branch_title(sm, 0), "Picked by its message");
	sm_free(sm);
	tu_unload(&f);
	tu_log_free(&l);
}

/* session.json: title (the current branch's), branchTitles, continuedFrom. */
static void test_session_title_and_continued_from(void **state)
{
	struct tu_log l;
	struct session *s;
	char *path;
	const cJSON *c, *bt;
	cJSON *j;

	(void)state;
	tu_log_init(&l);
	summary(&l, 0, "0d5e11a1-9999-4000-8000-00000000abcd", "Earlier work");
	summary(&l, 0, "0d5e11a1-9999-4000-8000-00000000abcd", "Earlier work, renamed");
	summary(&l, 0, "1e6f22b2-8888-4000-8000-00000000dcba", "Even earlier");
	tu_user(&l, 1, 0, "a");
	tu_asst(&l, 2, 1, "m1", "b");
	summary(&l, 2, NULL, "This session");
	path = tu_write_str(l.sb.buf);
	assert_int_equal(ss_open(path, SS_COMPLETE, &s), 0);
	assert_string_equal(ss_title(s), "This session");
	j = tu_facts(s);
	assert_string_equal(cJSON_GetObjectItem(j, "title")->valuestring, "This session");
	bt = cJSON_GetObjectItem(j, "branchTitles");
	assert_string_equal(cJSON_GetObjectItem(bt, "main")->valuestring, "This session");
	c = cJSON_GetObjectItem(j, "continuedFrom");
	assert_int_equal(cJSON_GetArraySize(c), 2);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(c, 0), "leafUuid")->valuestring,
			    "0d5e11a1-9999-4000-8000-00000000abcd");
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(c, 0), "summary")->valuestring,
			    "Earlier work, renamed");
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(c, 1), "summary")->valuestring,
			    "Even earlier");
	assert_int_equal(sm_cont(ss_summaries(s), 1)->line, 3);
	cJSON_Delete(j);
	ss_close(s);
	tu_remove(path);
	tu_log_free(&l);
}

/* No summary: no title, empty lists. A summary-only file is a log too. */
static void test_no_title_and_summary_only_files(void **state)
{
	struct tu_log l;
	struct session *s;
	char *path;
	cJSON *j;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "a");
	path = tu_write_str(l.sb.buf);
	assert_int_equal(ss_open(path, SS_COMPLETE, &s), 0);
	assert_null(ss_title(s));
	j = tu_facts(s);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, "title")));
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "branchTitles")), 0);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "continuedFrom")), 0);
	cJSON_Delete(j);
	ss_close(s);
	tu_remove(path);
	sb_reset(&l.sb);
	summary(&l, 0, "0d5e11a1-9999-4000-8000-00000000abcd", "Only a summary");
	path = tu_write_str(l.sb.buf);
	assert_int_equal(ss_open(path, SS_COMPLETE, &s), 0);
	assert_int_equal(br_count(ss_branches(s)), 0);
	assert_int_equal(sm_ncont(ss_summaries(s)), 1);
	ss_close(s);
	tu_remove(path);
	tu_log_free(&l);
}

/* A long summary is cut on a character boundary. */
static void test_long_summary_is_cut_whole(void **state)
{
	struct tu_log l;
	struct tu_fx f;
	struct sm_set *sm;
	struct sbuf text;
	int i;

	(void)state;
	sb_init(&text);
	for (i = 0; i < SM_TEXT_MAX; i++)
		sb_adds(&text, "\xc3\xa9");		/* é, 2 bytes */
	tu_log_init(&l);
	tu_user(&l, 1, 0, "a");
	summary(&l, 1, NULL, text.buf);
	tu_load_log(&f, &l);
	assert_int_equal(sm_build(f.g, f.br, f.lf, &sm), 0);
	assert_true(strlen(sm_branch_title(sm, 0)) <= SM_TEXT_MAX);
	assert_true(tu_utf8(sm_branch_title(sm, 0), strlen(sm_branch_title(sm, 0))));
	sm_free(sm);
	tu_unload(&f);
	tu_log_free(&l);
	sb_free(&text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_titles_of_branches_last_one_wins),
		cmocka_unit_test(test_title_through_a_trailing_row),
		cmocka_unit_test(test_session_title_and_continued_from),
		cmocka_unit_test(test_no_title_and_summary_only_files),
		cmocka_unit_test(test_long_summary_is_cut_whole),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

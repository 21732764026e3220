/*
 * Every release as it reads itself (core/RULES.md, rules 27 and 32-36):
 * what a log's rows say decides, by their fields where a release marks
 * them and by their "version" where it does not. Small logs of our own;
 * the corpus checks (tests/corpus) hold the real ones.
 */
#include "cxutil.h"
#include "tu_session.h"
#include "names.h"
#include "release.h"
#include "session.h"

/* ---- the release module ---- */

static void test_versions_parse_and_order(void **state)
{
	struct rl_version a, b;

	(void)state;
	assert_int_equal(rl_parse("2.1.332", &a), 0);
	assert_int_equal(a.major, 2);
	assert_int_equal(a.minor, 1);
	assert_int_equal(a.patch, 332);
	assert_int_equal(rl_parse("1.0.98", &b), 0);
	assert_true(rl_cmp(&b, &a) < 0 && rl_cmp(&a, &b) > 0 && rl_cmp(&a, &a) == 0);
	assert_int_equal(rl_parse("2.1.332-beta.1", &a), 0);
	assert_int_equal(rl_parse("2.1", &a), -1);
	assert_int_equal(rl_parse("", &a), -1);
	assert_int_equal(rl_parse("x.1.2", &a), -1);
	assert_int_equal(rl_parse("1.2.3x", &a), -1);
	assert_int_equal(rl_parse("1234567890.1.1", &a), -1);
	assert_int_equal(rl_parse(NULL, &a), -1);

	assert_true(rl_older("1.0.98") && rl_older("2.0.28") && rl_older("0.2.9"));
	assert_false(rl_older("2.1.0") || rl_older("2.1.332") || rl_older("3.0.0"));
	assert_false(rl_older("") || rl_older(NULL) || rl_older("garbage"));
	assert_true(rl_disk_reminder("1.0.98"));
	assert_false(rl_disk_reminder("2.0.28") || rl_disk_reminder("0.2.9"));
	assert_true(rl_copies_on_resume("1.0.98") && rl_copies_on_resume("0.2.9"));
	assert_false(rl_copies_on_resume("2.0.28"));
	assert_false(rl_newer(RL_NEWEST_CHECKED) || rl_newer("2.1.328") || rl_newer(""));
	assert_true(rl_newer("2.1.333") && rl_newer("2.2.0") && rl_newer("3.0.0"));
}

static void test_log_release_is_its_last_rows(void **state)
{
	struct tu_log l;
	struct tu_fx f;

	(void)state;
	tu_log_init(&l);
	l.version = "2.0.28";
	tu_user(&l, 1, 0, "a");
	tu_asst(&l, 2, 1, "m1", "b");
	l.version = "2.1.332";
	tu_user(&l, 3, 2, "c");
	tu_line(&l, "{\"type\":\"mode\",\"mode\":\"normal\"}");	/* no version */
	tu_load_log(&f, &l);
	assert_string_equal(rl_of_log(f.ix), "2.1.332");
	tu_unload(&f);
	tu_log_free(&l);

	tu_log_init(&l);
	tu_line(&l, "{\"type\":\"mode\",\"mode\":\"normal\"}");
	tu_load_log(&f, &l);
	assert_string_equal(rl_of_log(f.ix), "");
	tu_unload(&f);
	tu_log_free(&l);
}

/* ---- rule 32: a call killed before its result, before 2.1 ---- */

/* Turn 1 answered; turn 2: a text row, then a call the kill left open. */
static void killed_call(struct tu_log *l, const char *version)
{
	tu_log_init(l);
	l->version = version;
	tu_user(l, 1, 0, "What files are here?");
	tu_tool_use(l, 2, 1, "m1", "toolu_a");
	tu_result(l, 3, 2, "toolu_a");
	tu_asst(l, 4, 3, "m2", "Three files.");
	tu_user(l, 5, 4, "Run the slow check.");
	tu_asst(l, 6, 5, "m3", "Starting the slow check.");
	tu_tool_use(l, 7, 6, "m3", "toolu_b");
}

static void test_older_release_drops_a_killed_call(void **state)
{
	static const char *const older[] = { "1.0.98", "2.0.28" };
	struct tu_log l;
	struct cx t;
	size_t i;

	(void)state;
	for (i = 0; i < 2; i++) {
		killed_call(&l, older[i]);
		cx_load(&t, &l);
		expect_messages(&t, "[{'role':'user','content':'What files are here?'},"
				"{'role':'assistant','content':[" TOOL_USE("toolu_a") "]},"
				"{'role':'user','content':[" RESULT("toolu_a") "]},"
				"{'role':'assistant','content':[{'type':'text','text':'Three files.'}]},"
				"{'role':'user','content':'Run the slow check.'},"
				"{'role':'assistant','content':[{'type':'text','text':'Starting the slow check.'}]}]");
		/* no synthetic rows; the row left with no block is not sent, and
		 * a resume appends after the last row it keeps */
		assert_string_equal(rows(&t), "1:1:0 2:2:1 3:3:2 4:4:3 5:5:4 6:6:5 7:-:-");
		assert_non_null(strstr(why(&t, 7), "only tool calls no result answers"));
		assert_int_equal(ctx_attach(t.x), ID(6));
		assert_int_equal(t.f.c->attach, ID(6));
		assert_true(has_repair(&t, "toolu_b"));
		cx_unload(&t);
		tu_log_free(&l);
	}

	/* the same log written by 2.1.x: repaired (rule 12) */
	killed_call(&l, "2.1.328");
	cx_load(&t, &l);
	assert_string_equal(rows(&t), "1:1:0 2:2:1 3:3:2 4:4:3 5:5:4 6:6:5 7:7:5 i:8:6 n:9:7");
	assert_int_equal(ctx_attach(t.x), ID(7));
	cx_unload(&t);
	tu_log_free(&l);

	/* ... and a 2.0.x log resumed since by 2.1.x (its last rows say so) */
	killed_call(&l, "2.0.28");
	l.version = "2.1.332";
	tu_line(&l, "{\"type\":\"last-prompt\",\"leafUuid\":null,\"sessionId\":\"" TU_SID
		    "\",\"version\":\"2.1.332\"}");
	cx_load(&t, &l);
	assert_int_equal(ctx_attach(t.x), ID(7));
	assert_true(has_repair(&t, "synthetic tool_result"));
	cx_unload(&t);
	tu_log_free(&l);
}

static void test_older_release_keeps_the_answered_half_of_a_batch(void **state)
{
	struct tu_log l;
	struct cx t;

	(void)state;
	tu_log_init(&l);
	l.version = "2.0.28";
	tu_user(&l, 1, 0, "Check two things at once.");
	tu_asst(&l, 2, 1, "m1", "Checking both.");
	tu_tool_use(&l, 3, 2, "m1", "toolu_a");
	tu_tool_use(&l, 4, 3, "m1", "toolu_b");	/* killed: no result */
	tu_result(&l, 5, 4, "toolu_a");		/* hangs off the last call */
	cx_load(&t, &l);
	expect_messages(&t, "[{'role':'user','content':'Check two things at once.'},"
			"{'role':'assistant','content':[{'type':'text','text':'Checking both.'},"
			TOOL_USE("toolu_a") "]},"
			"{'role':'user','content':[" RESULT("toolu_a") "]}," NO_RESPONSE "]");
	assert_int_equal(ctx_attach(t.x), ID(5));
	assert_int_equal(t.f.c->attach, ID(5));
	assert_non_null(why(&t, 4));
	cx_unload(&t);
	tu_log_free(&l);

	/* one row holding both calls: the answered one keeps it */
	tu_log_init(&l);
	l.version = "1.0.98";
	tu_user(&l, 1, 0, "Two.");
	cx_asst(&l, 2, 1, "m1", "[" TOOL_USE("toolu_a") "," TOOL_USE("toolu_b") "]", "");
	tu_result(&l, 3, 2, "toolu_b");
	cx_load(&t, &l);
	expect_messages(&t, "[{'role':'user','content':'Two.'},"
			"{'role':'assistant','content':[" TOOL_USE("toolu_b") "]},"
			"{'role':'user','content':[" RESULT("toolu_b") "]}," NO_RESPONSE "]");
	assert_int_equal(ctx_attach(t.x), ID(3));
	cx_unload(&t);
	tu_log_free(&l);
}

/* ---- rule 34: user rows join without the seam before 2.1 ---- */

static void test_older_release_joins_without_the_seam(void **state)
{
	struct tu_log l;
	struct cx t;

	(void)state;
	tu_log_init(&l);
	l.version = "2.0.28";
	tu_boundary(&l, 1, 0, 0, NULL, 0);
	tu_summary(&l, 2, 1);
	cx_user(&l, 3, 2, "'<command-name>/compact</command-name>'", "");
	tu_asst(&l, 4, 3, "m1", "No response requested.");
	cx_load(&t, &l);
	expect_messages(&t, "[{'role':'user','content':[{'type':'text','text':'This session is being "
			"continued from a previous conversation. Summary: ...'},"
			"{'type':'text','text':'<command-name>/compact</command-name>'}]},"
			"{'role':'assistant','content':[{'type':'text','text':'No response requested.'}]}]");
	cx_unload(&t);
	tu_log_free(&l);

	/* 2.1.x adds it */
	tu_log_init(&l);
	tu_boundary(&l, 1, 0, 0, NULL, 0);
	tu_summary(&l, 2, 1);
	cx_user(&l, 3, 2, "'<command-name>/compact</command-name>'", "");
	tu_asst(&l, 4, 3, "m1", "No response requested.");
	cx_load(&t, &l);
	expect_messages(&t, "[{'role':'user','content':[{'type':'text','text':'This session is being "
			"continued from a previous conversation. Summary: ...\n'},"
			"{'type':'text','text':'<command-name>/compact</command-name>'}]},"
			"{'role':'assistant','content':[{'type':'text','text':'No response requested.'}]}]");
	cx_unload(&t);
	tu_log_free(&l);
}

/* ---- rule 33: rows a release marks to be sent as a reminder ---- */

#define LEAD "The text below is the output of a hook."

static void test_marked_rows_are_sent_as_reminders(void **state)
{
	struct tu_log l;
	struct cx t;

	(void)state;
	tu_log_init(&l);
	l.version = "2.1.332";
	tu_user(&l, 1, 0, "Say hello.");
	tu_asst(&l, 2, 1, "m1", "Hello.");
	cx_user(&l, 3, 2, "'Stop hook feedback:\\nSTOP-REASON'",
		"'isMeta':true,'hookText':true,'hookTextLead':'" LEAD "'");
	tu_asst(&l, 4, 3, "m2", "Done.");
	tu_user(&l, 5, 4, "Just think.");
	cx_user(&l, 6, 5, "'[No visible output.]'", "'isMeta':true,'ownNote':true");
	tu_asst(&l, 7, 6, "m3", "Ok.");
	cx_load(&t, &l);
	expect_messages(&t, "[{'role':'user','content':'Say hello.'},"
			"{'role':'assistant','content':[{'type':'text','text':'Hello.'}]},"
			"{'role':'user','content':'<system-reminder>\n" LEAD "\nStop hook feedback:\n"
			"STOP-REASON\n</system-reminder>'},"
			"{'role':'assistant','content':[{'type':'text','text':'Done.'}]},"
			"{'role':'user','content':[{'type':'text','text':'Just think.\n'},"
			"{'type':'text','text':'<system-reminder>\n[No visible output.]\n</system-reminder>'}]},"
			"{'role':'assistant','content':[{'type':'text','text':'Ok.'}]}]");
	assert_true(has_repair(&t, "hookText"));
	assert_true(has_repair(&t, "ownNote"));
	cx_unload(&t);
	tu_log_free(&l);

	/* the same rows as 2.1.328 wrote them (no such fields): sent raw */
	tu_log_init(&l);
	tu_user(&l, 1, 0, "Say hello.");
	tu_asst(&l, 2, 1, "m1", "Hello.");
	cx_user(&l, 3, 2, "'Stop hook feedback:\\nSTOP-REASON'", "'isMeta':true");
	tu_asst(&l, 4, 3, "m2", "Done.");
	cx_load(&t, &l);
	expect_messages(&t, "[{'role':'user','content':'Say hello.'},"
			"{'role':'assistant','content':[{'type':'text','text':'Hello.'}]},"
			"{'role':'user','content':'Stop hook feedback:\nSTOP-REASON'},"
			"{'role':'assistant','content':[{'type':'text','text':'Done.'}]}]");
	cx_unload(&t);
	tu_log_free(&l);
}

/* ---- rule 27: a prompt typed while a tool ran ---- */

#define QUEUED_TEXT "The user sent a new message while you were working:\\nAlso count them."

/* A queued_command attachment, rendered as Claude Code writes it, with
 * the members given (single-quoted). */
static void cx_queued_rendered(struct tu_log *l, int n, int parent, const char *members)
{
	char x[1024];

	snprintf(x, sizeof(x), "'attachment':{'type':'queued_command','prompt':'Also count them.'%s},"
		 "'rendered':[{'content':'<system-reminder>\\n" QUEUED_TEXT "\\n</system-reminder>'}],"
		 "'renderedRole':'system'", members);
	tu_row(l, "attachment", n, parent, dq(x));
}

static void test_queued_prompt_is_sent_as_rendered(void **state)
{
	static const char *const marks[] = { ",'origin':{'kind':'human'},'humanTurn':true",
					      ",'hostsOwnTurn':true" };
	struct tu_log l;
	struct cx t;
	size_t i;

	(void)state;
	for (i = 0; i < 2; i++) {
		tu_log_init(&l);
		l.version = "2.1.332";
		tu_user(&l, 1, 0, "List.");
		tu_tool_use(&l, 2, 1, "m1", "toolu_a");
		tu_result(&l, 3, 2, "toolu_a");
		tu_attach(&l, 4, 3, "prompt_snapshot");
		cx_queued_rendered(&l, 5, 4, marks[i]);
		tu_asst(&l, 6, 5, "m2", "Three files.");
		cx_load(&t, &l);
		expect_messages(&t, "[{'role':'user','content':'List.'},"
				"{'role':'assistant','content':[" TOOL_USE("toolu_a") "]},"
				"{'role':'user','content':[" RESULT("toolu_a") ","
				"{'type':'text','text':'The user sent a new message while you were "
				"working:\nAlso count them.'}]},"
				"{'role':'assistant','content':[{'type':'text','text':'Three files.'}]}]");
		cx_unload(&t);
		tu_log_free(&l);
	}

	/* a queued command no person typed (2.1.328's stream-json queue):
	 * a system-role attachment, its own message */
	tu_log_init(&l);
	tu_user(&l, 1, 0, "List.");
	tu_tool_use(&l, 2, 1, "m1", "toolu_a");
	tu_result(&l, 3, 2, "toolu_a");
	cx_queued_rendered(&l, 4, 3, "");
	tu_asst(&l, 5, 4, "m2", "Three files.");
	cx_load(&t, &l);
	expect_messages(&t, "[{'role':'user','content':'List.'},"
			"{'role':'assistant','content':[" TOOL_USE("toolu_a") "]},"
			"{'role':'user','content':[" RESULT("toolu_a") "]},"
			"{'role':'system','content':'The user sent a new message while you were "
			"working:\nAlso count them.'},"
			"{'role':'assistant','content':[{'type':'text','text':'Three files.'}]}]");
	cx_unload(&t);
	tu_log_free(&l);
}

/* ---- rule 36: 1.0.x's /compact writes no boundary ---- */

static void test_summary_root_is_a_compaction_on_one_path(void **state)
{
	struct tu_log l;
	struct cx t;
	struct sbuf md;

	(void)state;
	tu_log_init(&l);
	l.version = "1.0.98";
	tu_user(&l, 1, 0, "Read the README.");
	tu_asst(&l, 2, 1, "m1", "It adds todos.");
	tu_summary(&l, 3, 0);			/* a new root, no boundary */
	cx_user(&l, 4, 3, "'<command-name>/compact</command-name>'", "");
	tu_user(&l, 5, 4, "Which test file exists?");
	tu_asst(&l, 6, 5, "m2", "test_todo.py.");
	cx_load(&t, &l);
	assert_int_equal(br_count(t.f.br), 1);
	assert_int_equal(br_ndead(t.f.br), 0);
	assert_string_equal(tu_path(&t.f, 0), "1 2 3 4 5 6");
	assert_true(gr_is_compaction(t.f.g, ID(3)) && gr_is_summary_root(t.f.g, ID(3)));
	assert_false(gr_is_compaction(t.f.g, ID(1)));
	assert_string_equal(tu_chain(&t.f), "3 4 5 6");
	expect_messages(&t, "[{'role':'user','content':[{'type':'text','text':'This session is being "
			"continued from a previous conversation. Summary: ...'},"
			"{'type':'text','text':'<command-name>/compact</command-name>'},"
			"{'type':'text','text':'Which test file exists?'}]},"
			"{'role':'assistant','content':[{'type':'text','text':'test_todo.py.'}]}]");
	sb_init(&md);
	ctx_window_md(t.x, t.f.g, &md);
	assert_non_null(strstr(md.buf, "compaction summary, written without a boundary"));
	/* rule 35: what a 1.0.x request adds from disk is said, not shown */
	assert_non_null(strstr(md.buf, "Not shown: a 1.0.x request begins with a <system-reminder>"));
	assert_non_null(strstr(md.buf, "Written last by Claude Code 1.0.98"));
	sb_free(&md);
	cx_unload(&t);
	tu_log_free(&l);
}

/* ---- rule 37: a release newer than any checked ---- */

static void test_newer_release_is_said(void **state)
{
	struct tu_log l;
	struct session *s;
	struct sbuf sb;
	char *path;
	cJSON *facts;

	(void)state;
	tu_log_init(&l);
	l.version = "2.1.999";
	tu_user(&l, 1, 0, "Hi.");
	tu_asst(&l, 2, 1, "m1", "Hello.");
	path = tu_write_str(l.sb.buf);
	assert_int_equal(ss_open(path, SS_COMPLETE, &s), 0);
	sb_init(&sb);
	ss_errors_text(s, &sb);
	assert_non_null(strstr(sb.buf, "written by Claude Code 2.1.999, newer than any release"));
	sb_reset(&sb);
	ctx_window_md(ss_context(s), ss_graph(s), &sb);
	assert_non_null(strstr(sb.buf, "newer than any sessfs was checked against (" RL_NEWEST_CHECKED));
	facts = tu_facts(s);
	assert_string_equal(cJSON_GetObjectItem(facts, "release")->valuestring, "2.1.999");
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(facts, "releaseNewerThanChecked")));
	cJSON_Delete(facts);
	sb_free(&sb);
	ss_close(s);
	tu_remove(path);
	tu_log_free(&l);

	/* a checked release: no note */
	tu_log_init(&l);
	tu_user(&l, 1, 0, "Hi.");
	path = tu_write_str(l.sb.buf);
	assert_int_equal(ss_open(path, SS_COMPLETE, &s), 0);
	sb_init(&sb);
	ss_errors_text(s, &sb);
	assert_null(strstr(sb.buf, "newer than any"));
	facts = tu_facts(s);
	assert_false(cJSON_IsTrue(cJSON_GetObjectItem(facts, "releaseNewerThanChecked")));
	cJSON_Delete(facts);
	sb_free(&sb);
	ss_close(s);
	tu_remove(path);
	tu_log_free(&l);
}

/* ---- 1.0.x: a parallel batch's results chained one after the other ---- */

static void test_chained_results_are_named_by_their_call(void **state)
{
	struct tu_log l;
	struct tu_fx f;
	char kind[NM_KIND_MAX + 1];

	(void)state;
	tu_log_init(&l);
	l.version = "1.0.98";
	tu_user(&l, 1, 0, "Two reads.");
	tu_tool_call(&l, 2, 1, "Read", "toolu_a", "{}");
	/* the same response: both rows share message.id msg_2 */
	tu_row(&l, "assistant", 3, 2,
	       "\"message\":{\"id\":\"msg_2\",\"type\":\"message\",\"role\":\"assistant\","
	       "\"content\":[{\"type\":\"tool_use\",\"id\":\"toolu_b\",\"name\":\"Grep\","
	       "\"input\":{}}]}");
	tu_result(&l, 4, 3, "toolu_a");		/* off the last call */
	tu_result(&l, 5, 4, "toolu_b");		/* off the result before */
	tu_load_log(&f, &l);
	nm_kind(f.g, tu_id(&f, 4), kind);
	assert_string_equal(kind, "tool_result-Read");
	nm_kind(f.g, tu_id(&f, 5), kind);
	assert_string_equal(kind, "tool_result-Grep");
	tu_unload(&f);
	tu_log_free(&l);
}

/* ---- rule 4 of the graph: rows that name no parent ---- */

static void test_unlinked_messages_read_in_file_order(void **state)
{
	struct tu_log l;
	struct tu_fx f;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "a");
	tu_asst(&l, 2, 0, "m1", "b");
	tu_user(&l, 3, 0, "c");
	tu_asst(&l, 4, 0, "m2", "d");
	tu_system(&l, 5, 4, "informational");	/* a row that names one */
	tu_load_log(&f, &l);
	assert_int_equal(br_count(f.br), 1);
	assert_string_equal(tu_path(&f, 0), "1 2 3 4 5");
	assert_string_equal(tu_chain(&f), "1 2 3 4 5");
	tu_unload(&f);
	tu_log_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_versions_parse_and_order),
		cmocka_unit_test(test_log_release_is_its_last_rows),
		cmocka_unit_test(test_older_release_drops_a_killed_call),
		cmocka_unit_test(test_older_release_keeps_the_answered_half_of_a_batch),
		cmocka_unit_test(test_older_release_joins_without_the_seam),
		cmocka_unit_test(test_marked_rows_are_sent_as_reminders),
		cmocka_unit_test(test_queued_prompt_is_sent_as_rendered),
		cmocka_unit_test(test_summary_root_is_a_compaction_on_one_path),
		cmocka_unit_test(test_newer_release_is_said),
		cmocka_unit_test(test_chained_results_are_named_by_their_call),
		cmocka_unit_test(test_unlinked_messages_read_in_file_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

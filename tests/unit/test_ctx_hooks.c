/*
 * ctx: the context window a resume sends, round two (rules 24-31): hook
 * rows beside a call, local-command output, prompts queued during a tool,
 * the max-turns stop. Helpers in cxutil.h; rules 9-23 in test_ctx.c.
 */
#include "cxutil.h"

/* A system-role hook_additional_context row. */
static void cx_hook(struct tu_log *l, int n, int parent, const char *text)
{
	char parts[256];

	snprintf(parts, sizeof(parts), "[{'content':'<system-reminder>\\n%s\\n</system-reminder>'}]",
		 text);
	cx_att(l, n, parent, "system", "hook_additional_context", parts);
}

static void test_hook_context_of_parallel_batch_is_sent(void **state)
{
	struct tu_log l;
	struct cx t;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "Two reads at once.");
	tu_tool_use(&l, 2, 1, "m1", "toolu_a");
	tu_tool_use(&l, 3, 2, "m1", "toolu_b");
	tu_result(&l, 4, 2, "toolu_a");		/* a's result: the dead end ... */
	tu_attach(&l, 5, 4, "hook_success");
	cx_hook(&l, 6, 5, "PostToolUse:Read CTX");	/* ... ends in its hook rows */
	tu_result(&l, 7, 3, "toolu_b");
	cx_hook(&l, 8, 7, "PostToolUse:Bash CTX");
	tu_asst(&l, 9, 8, "m2", "Both read.");
	cx_load(&t, &l);
	expect_messages(&t, "[{'role':'user','content':'Two reads at once.'},"
			"{'role':'assistant','content':[" TOOL_USE("toolu_a") "," TOOL_USE("toolu_b") "]},"
			"{'role':'user','content':[" RESULT("toolu_a") "," RESULT("toolu_b") "]},"
			"{'role':'system','content':'PostToolUse:Read CTX\n\nPostToolUse:Bash CTX'},"
			"{'role':'assistant','content':[{'type':'text','text':'Both read.'}]}]");
	cx_unload(&t);
	tu_log_free(&l);
}

static void test_pre_tool_hook_is_sent_after_the_result(void **state)
{
	struct tu_log l;
	struct cx t;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "List.");
	tu_tool_use(&l, 2, 1, "m1", "toolu_a");
	cx_hook(&l, 3, 2, "PreToolUse:Bash CTX");	/* beside the result */
	tu_result(&l, 4, 2, "toolu_a");
	tu_asst(&l, 5, 4, "m2", "Done.");
	cx_load(&t, &l);
	expect_messages(&t, "[{'role':'user','content':'List.'},"
			"{'role':'assistant','content':[" TOOL_USE("toolu_a") "]},"
			"{'role':'user','content':[" RESULT("toolu_a") "]},"
			"{'role':'system','content':'PreToolUse:Bash CTX'},"
			"{'role':'assistant','content':[{'type':'text','text':'Done.'}]}]");
	cx_unload(&t);
	tu_log_free(&l);
}

/* A system local_command row holding content (JSON string, quoted). */
static void cx_local(struct tu_log *l, int n, int parent, const char *content)
{
	char x[512];

	snprintf(x, sizeof(x), "\"subtype\":\"local_command\",\"content\":%s,\"level\":\"info\"",
		 dq(content));
	tu_row(l, "system", n, parent, x);
}

#define CAVEAT "<local-command-caveat>Caveat.</local-command-caveat>"

static void test_local_command_output_is_sent(void **state)
{
	struct tu_log l;
	struct cx t;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "q1");
	tu_asst(&l, 2, 1, "m1", "a1");
	cx_user(&l, 3, 2, "'" CAVEAT "'", "'isMeta':true");
	tu_user(&l, 4, 3, "<command-name>/cost</command-name>");
	cx_local(&l, 5, 4, "'<local-command-stdout>$0.01</local-command-stdout>'");
	tu_user(&l, 6, 5, "Thanks.");
	tu_asst(&l, 7, 6, "m2", "Welcome.");
	cx_load(&t, &l);
	expect_messages(&t, "[{'role':'user','content':'q1'},"
			"{'role':'assistant','content':[{'type':'text','text':'a1'}]},"
			"{'role':'user','content':[{'type':'text','text':'" CAVEAT "\n'},"
			"{'type':'text','text':'<command-name>/cost</command-name>\n'},"
			"{'type':'text','text':'<local-command-stdout>$0.01</local-command-stdout>\n'},"
			"{'type':'text','text':'Thanks.'}]},"
			"{'role':'assistant','content':[{'type':'text','text':'Welcome.'}]}]");
	assert_null(why(&t, 5));
	cx_unload(&t);
	tu_log_free(&l);
}

static void test_clear_sends_empty_local_output(void **state)
{
	struct tu_log l;
	struct cx t;

	(void)state;
	tu_log_init(&l);	/* the first rows of a session /clear started */
	cx_user(&l, 1, 0, "'" CAVEAT "'", "'isMeta':true");
	tu_user(&l, 2, 1, "<command-name>/clear</command-name>");
	cx_local(&l, 3, 2, "''");
	cx_load(&t, &l);	/* ends in local-command output: no repair */
	expect_messages(&t, "[{'role':'user','content':[{'type':'text','text':'" CAVEAT "\n'},"
			"{'type':'text','text':'<command-name>/clear</command-name>\n'},"
			"{'type':'text','text':'<local-command-stdout></local-command-stdout>'}]}]");
	assert_int_equal(ctx_nrepairs(t.x), 0);
	cx_unload(&t);
	tu_log_free(&l);
}

/* A queued_command attachment: prompt (quoted JSON) and origin kind. */
static void cx_queued(struct tu_log *l, int n, int parent, const char *prompt,
		      const char *kind)
{
	char x[512];

	snprintf(x, sizeof(x), "\"attachment\":{\"type\":\"queued_command\",\"prompt\":%s,"
		 "\"origin\":{\"kind\":\"%s\"}}", dq(prompt), kind);
	tu_row(l, "attachment", n, parent, x);
}

static void test_prompt_typed_during_a_tool_joins_its_result(void **state)
{
	struct tu_log l;
	struct cx t;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "List.");
	tu_tool_use(&l, 2, 1, "m1", "toolu_a");
	tu_result(&l, 3, 2, "toolu_a");
	cx_queued(&l, 4, 3, "'Also count them.'", "human");
	tu_asst(&l, 5, 4, "m2", "Three files.");
	cx_load(&t, &l);
	expect_messages(&t, "[{'role':'user','content':'List.'},"
			"{'role':'assistant','content':[" TOOL_USE("toolu_a") "]},"
			"{'role':'user','content':[" RESULT("toolu_a") ","
			"{'type':'text','text':'Also count them.'}]},"
			"{'role':'assistant','content':[{'type':'text','text':'Three files.'}]}]");
	cx_unload(&t);
	tu_log_free(&l);

	/* killed right after it: the turn is unanswered */
	tu_log_init(&l);
	tu_user(&l, 1, 0, "List.");
	tu_tool_use(&l, 2, 1, "m1", "toolu_a");
	tu_result(&l, 3, 2, "toolu_a");
	cx_queued(&l, 4, 3, "[{'type':'text','text':'Also count them.'}]", "human");
	cx_load(&t, &l);
	assert_int_equal(ctx_nmessages(t.x), 4);
	assert_true(has_repair(&t, "No response requested."));
	cx_unload(&t);
	tu_log_free(&l);
}

static void test_max_turns_stop_gets_no_synthetic_reply(void **state)
{
	struct tu_log l;
	struct cx t;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "Work.");
	tu_tool_use(&l, 2, 1, "m1", "toolu_a");
	tu_result(&l, 3, 2, "toolu_a");
	tu_row(&l, "attachment", 4, 3,
	       "\"attachment\":{\"type\":\"max_turns_reached\",\"maxTurns\":1,\"turnCount\":1}");
	cx_load(&t, &l);
	expect_messages(&t, "[{'role':'user','content':'Work.'},"
			"{'role':'assistant','content':[" TOOL_USE("toolu_a") "]},"
			"{'role':'user','content':[" RESULT("toolu_a") "]}]");
	assert_int_equal(ctx_nrepairs(t.x), 0);
	assert_non_null(note(&t, 4, CTX_N_INFO));
	cx_unload(&t);

	/* the next prompt joins the tool-result message */
	tu_user(&l, 5, 4, "Go on.");
	tu_asst(&l, 6, 5, "m2", "Going on.");
	cx_load(&t, &l);
	expect_messages(&t, "[{'role':'user','content':'Work.'},"
			"{'role':'assistant','content':[" TOOL_USE("toolu_a") "]},"
			"{'role':'user','content':[" RESULT("toolu_a") ",{'type':'text','text':'Go on.'}]},"
			"{'role':'assistant','content':[{'type':'text','text':'Going on.'}]}]");
	cx_unload(&t);
	tu_log_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hook_context_of_parallel_batch_is_sent),
		cmocka_unit_test(test_pre_tool_hook_is_sent_after_the_result),
		cmocka_unit_test(test_local_command_output_is_sent),
		cmocka_unit_test(test_clear_sends_empty_local_output),
		cmocka_unit_test(test_prompt_typed_during_a_tool_joins_its_result),
		cmocka_unit_test(test_max_turns_stop_gets_no_synthetic_reply),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * ctx: the context window a resume sends (rules 9-23), on small logs.
 * Rules 24-31 (hook rows, local commands, queued prompts, max turns) are
 * in test_ctx_hooks.c; the helpers in cxutil.h.
 *
 * Expected JSON is written with single quotes for readability; dq()
 * turns them into double quotes (no test text holds an apostrophe).
 */
#include "cxutil.h"

/* ---- the whole chain, the JSON text, the effort marker ---- */

static void test_plain_turns_and_empty_effort_marker(void **state)
{
	struct tu_log l;
	struct cx t;
	struct sbuf sb;
	char *c;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "hi");
	cx_effort(&l, "high");
	tu_asst(&l, 2, 1, "m1", "hello");
	tu_user(&l, 3, 2, "again");
	tu_asst(&l, 4, 3, "m2", "ok");
	tu_last_prompt(&l, 4, 0);
	cx_load(&t, &l);
	/* rule 23: the first turn has no system message: an empty one */
	expect_messages(&t, "[{'role':'user','content':'hi'},"
			"{'role':'system','content':[],'output_config':{'effort':'high'}},"
			"{'role':'assistant','content':[{'type':'text','text':'hello'}]},"
			"{'role':'user','content':'again'},"
			"{'role':'assistant','content':[{'type':'text','text':'ok'}]}]");
	assert_string_equal(rows(&t), "1:1:0 2:2:2 3:3:3 4:4:4");
	assert_int_equal(ctx_attach(t.x), ID(4));
	assert_int_equal(ctx_window(t.x)->start, ID(1));
	assert_int_equal(ctx_window(t.x)->boundary, 0);
	assert_int_equal(ctx_nrepairs(t.x), 0);
	/* the token estimate: compact JSON bytes / 4, rounded up */
	c = cJSON_PrintUnformatted(t.msgs);
	assert_int_equal(ctx_bytes(t.x), strlen(c));
	assert_int_equal(ctx_tokens(t.x), (strlen(c) + 3) / 4);
	free(c);
	sb_init(&sb);
	/* one message alone, pretty-printed */
	ctx_message_json(t.x, 0, &sb);
	assert_string_equal(sb.buf, "{\n  \"role\": \"user\",\n  \"content\": \"hi\"\n}\n");
	sb_free(&sb);
	cx_unload(&t);
	tu_log_free(&l);
}

static void test_json_text_format(void **state)
{
	struct tu_log l;
	struct cx t;
	struct sbuf sb;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "a\"b\n\xc3\xa9");
	tu_asst(&l, 2, 1, "m1", "ok");
	cx_load(&t, &l);
	sb_init(&sb);
	ctx_messages_json(t.x, &sb);
	assert_string_equal(sb.buf,
			    "[\n"
			    "  {\n"
			    "    \"role\": \"user\",\n"
			    "    \"content\": \"a\\\"b\\n\xc3\xa9\"\n"
			    "  },\n"
			    "  {\n"
			    "    \"role\": \"assistant\",\n"
			    "    \"content\": [\n"
			    "      {\n"
			    "        \"type\": \"text\",\n"
			    "        \"text\": \"ok\"\n"
			    "      }\n"
			    "    ]\n"
			    "  }\n"
			    "]\n");
	sb_free(&sb);
	cx_unload(&t);
	tu_log_free(&l);
}

/* The compact JSON's size, byte by byte: the oracle of ctx_bytes(). */
static uint64_t compact_size(const char *p)
{
	uint64_t n = 0;
	int in_str = 0;

	for (; *p; p++) {
		if (in_str) {
			n++;
			if (*p == '\\' && p[1]) {
				p++;
				n++;
			} else if (*p == '"') {
				in_str = 0;
			}
		} else if (*p != ' ' && *p != '\n') {
			n++;
			in_str = *p == '"';
		}
	}
	return n;
}

static void test_size_counts_every_byte_of_a_string(void **state)
{
	static const char *const texts[] = {
		"say \"hi\"  twice", "a\\", "b\\\"c", "\\\\\"", "two\n\nlines ",
		"\"", "\\", "",
	};
	struct tu_log l;
	struct cx t;
	struct sbuf sb;
	size_t i;

	(void)state;
	tu_log_init(&l);
	for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		tu_user(&l, (int)(2 * i + 1), i ? (int)(2 * i) : 0, texts[i]);
		tu_asst(&l, (int)(2 * i + 2), (int)(2 * i + 1), "m1", texts[i]);
	}
	cx_load(&t, &l);
	sb_init(&sb);
	ctx_messages_json(t.x, &sb);
	assert_true(ctx_bytes(t.x) > 0);
	/* the text ends with a newline that is not the array's */
	assert_int_equal(ctx_bytes(t.x), compact_size(sb.buf));
	sb_free(&sb);
	cx_unload(&t);
	tu_log_free(&l);
}

static void test_cleared_conversation_is_empty(void **state)
{
	struct tu_log l;
	struct cx t;
	struct sbuf sb;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "hi");
	tu_asst(&l, 2, 1, "m1", "hello");
	tu_last_prompt(&l, 0, 1);
	cx_load(&t, &l);
	assert_int_equal(ctx_nmessages(t.x), 0);
	assert_int_equal(ctx_nrows(t.x), 0);
	assert_int_equal(ctx_attach(t.x), 0);
	sb_init(&sb);
	ctx_messages_json(t.x, &sb);
	assert_string_equal(sb.buf, "[]\n");
	sb_reset(&sb);
	ctx_window_md(t.x, t.f.g, &sb);
	assert_non_null(strstr(sb.buf, "empty"));
	sb_free(&sb);
	cx_unload(&t);
	tu_log_free(&l);
}

/* ---- rule 9: the window, after compactions ---- */

static void test_window_after_one_compaction(void **state)
{
	struct tu_log l;
	struct cx t;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "q1");
	tu_asst(&l, 2, 1, "m1", "a1");
	tu_boundary(&l, 3, 2, 0, NULL, 0);
	tu_summary(&l, 4, 3);
	tu_user(&l, 5, 4, "q2");
	tu_asst(&l, 6, 5, "m2", "a2");
	cx_load(&t, &l);
	expect_messages(&t, "[{'role':'user','content':["
			"{'type':'text','text':'This session is being continued from a previous "
			"conversation. Summary: ...\\n'},{'type':'text','text':'q2'}]},"
			"{'role':'assistant','content':[{'type':'text','text':'a2'}]}]");
	assert_string_equal(rows(&t), "3:-:- 4:1:0 5:2:0 6:3:1");
	assert_string_equal(why(&t, 3), "compact boundary: marks where the window starts, not sent");
	assert_int_equal(ctx_window(t.x)->start, ID(3));
	assert_int_equal(ctx_window(t.x)->boundary, ID(3));
	assert_int_equal(ctx_window(t.x)->dpos, 3);
	assert_int_equal(ctx_window(t.x)->before, 0);
	assert_string_equal(note(&t, 1, CTX_N_LEFT_OUT),
			    "before the last compact boundary: summarised away");
	assert_string_equal(note(&t, 2, CTX_N_LEFT_OUT),
			    "before the last compact boundary: summarised away");
	assert_int_equal(ctx_attach(t.x), ID(6));
	cx_unload(&t);
	tu_log_free(&l);
}

static void test_window_after_three_compactions(void **state)
{
	struct tu_log l;
	struct cx t;
	int k, n = 1, prev = 0;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, n, 0, "q0");
	tu_asst(&l, n + 1, n, "m0", "a0");
	prev = n + 1;
	n += 2;
	for (k = 1; k <= 3; k++) {
		char q[16], a[16], m[16];

		snprintf(q, sizeof(q), "q%d", k);
		snprintf(a, sizeof(a), "a%d", k);
		snprintf(m, sizeof(m), "m%d", k);
		tu_boundary(&l, n, prev, 0, NULL, 0);
		tu_summary(&l, n + 1, n);
		tu_user(&l, n + 2, n + 1, q);
		tu_asst(&l, n + 3, n + 2, m, a);
		prev = n + 3;
		n += 4;
	}
	/* boundaries 3, 7, 11; the window is 11 12 13 14 */
	cx_load(&t, &l);
	expect_messages(&t, "[{'role':'user','content':["
			"{'type':'text','text':'This session is being continued from a previous "
			"conversation. Summary: ...\\n'},{'type':'text','text':'q3'}]},"
			"{'role':'assistant','content':[{'type':'text','text':'a3'}]}]");
	assert_string_equal(rows(&t), "11:-:- 12:1:0 13:2:0 14:3:1");
	assert_int_equal(ctx_window(t.x)->boundary, ID(11));
	assert_int_equal(ctx_window(t.x)->dpos, 11);
	for (k = 1; k <= 10; k++)
		assert_string_equal(note(&t, k, CTX_N_LEFT_OUT),
				    "before the last compact boundary: summarised away");
	assert_null(note(&t, 12, CTX_N_LEFT_OUT));
	cx_unload(&t);
	tu_log_free(&l);
}

/* ---- rule 5 (relinked by resume.c), rendered ---- */

static void test_preserved_segment(void **state)
{
	static const int pres[] = { 4 };
	struct tu_log l;
	struct cx t;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "q1");
	tu_asst(&l, 2, 1, "m1", "a1");
	tu_user(&l, 3, 2, "q2");
	tu_asst(&l, 4, 3, "m2", "kept word for word");
	tu_boundary(&l, 5, 4, 6, pres, 1);
	tu_summary(&l, 6, 5);
	tu_user(&l, 7, 6, "<local-command-stdout>Compacted</local-command-stdout>");
	tu_user(&l, 8, 7, "q3");
	tu_asst(&l, 9, 8, "m3", "a3");
	cx_load(&t, &l);
	/* boundary, summary (the anchor), the preserved reply, what followed */
	expect_messages(&t, "[{'role':'user','content':'This session is being continued "
			"from a previous conversation. Summary: ...'},"
			"{'role':'assistant','content':[{'type':'text','text':'kept word for word'}]},"
			"{'role':'user','content':[{'type':'text','text':"
			"'<local-command-stdout>Compacted</local-command-stdout>\\n'},"
			"{'type':'text','text':'q3'}]},"
			"{'role':'assistant','content':[{'type':'text','text':'a3'}]}]");
	assert_string_equal(rows(&t), "5:-:- 6:1:0 4:2:1 7:3:2 8:4:2 9:5:3");
	assert_int_equal(ctx_window(t.x)->summarised, 3);
	assert_string_equal(note(&t, 1, CTX_N_LEFT_OUT),
			    "before the last compact boundary and not preserved: summarised away");
	assert_string_equal(note(&t, 3, CTX_N_LEFT_OUT),
			    "before the last compact boundary and not preserved: summarised away");
	assert_null(note(&t, 4, CTX_N_LEFT_OUT));
	cx_unload(&t);
	tu_log_free(&l);
}

/* ---- rule 14: an unanswered prompt ---- */

static void test_unanswered_prompt(void **state)
{
	struct tu_log l;
	struct cx t;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "q1");
	tu_asst(&l, 2, 1, "m1", "a1");
	tu_user(&l, 3, 2, "are you there?");
	tu_attach(&l, 4, 3, "prompt_snapshot");
	cx_load(&t, &l);
	expect_messages(&t, "[{'role':'user','content':'q1'},"
			"{'role':'assistant','content':[{'type':'text','text':'a1'}]},"
			"{'role':'user','content':'are you there?'}," NO_RESPONSE "]");
	assert_string_equal(rows(&t), "1:1:0 2:2:1 3:3:2 4:-:- n:4:3");
	assert_string_equal(why(&t, 4),
			    "attachment prompt_snapshot: has no rendered text for the model");
	/* the attach point is the last row of the chain: the snapshot */
	assert_int_equal(ctx_attach(t.x), ID(4));
	assert_true(has_repair(&t, "synthetic assistant \"No response requested.\" after "
				   "the unanswered user row 00000003"));
	cx_unload(&t);
	tu_log_free(&l);
}

static void test_local_command_output_is_not_unanswered(void **state)
{
	struct tu_log l;
	struct cx t;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "q1");
	tu_asst(&l, 2, 1, "m1", "a1");
	tu_user(&l, 3, 2, "  <local-command-stdout>done</local-command-stdout>");
	cx_load(&t, &l);
	assert_int_equal(ctx_nmessages(t.x), 3);
	assert_int_equal(ctx_nrepairs(t.x), 0);
	cx_unload(&t);
	tu_log_free(&l);
}

/* ---- rule 12: tool calls without a result ---- */

static void test_tool_call_without_result(void **state)
{
	struct tu_log l;
	struct cx t;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "run it");
	tu_asst(&l, 2, 1, "m1", "Running.");
	tu_tool_use(&l, 3, 2, "m1", "t1");
	cx_load(&t, &l);
	expect_messages(&t, "[{'role':'user','content':'run it'},"
			"{'role':'assistant','content':[{'type':'text','text':'Running.'}," TOOL_USE("t1") "]},"
			"{'role':'user','content':[" INTERRUPTED("t1") "]}," NO_RESPONSE "]");
	assert_string_equal(rows(&t), "1:1:0 2:2:1 3:3:1 i:4:2 n:5:3");
	/* rule 8: the resume appends after the row holding the call */
	assert_int_equal(ctx_attach(t.x), ID(3));
	assert_true(has_repair(&t, "synthetic tool_result (is_error) for unanswered call(s) t1 "
				   "of assistant row 00000003"));
	assert_true(has_repair(&t, "after the unanswered user row (synthetic)"));
	cx_unload(&t);
	tu_log_free(&l);
}

static void test_parallel_call_killed_halfway(void **state)
{
	struct tu_log l;
	struct cx t;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "three at once");
	tu_tool_use(&l, 2, 1, "m1", "t1");
	tu_tool_use(&l, 3, 2, "m1", "t2");
	tu_tool_use(&l, 4, 3, "m1", "t3");
	tu_result(&l, 5, 3, "t2");	/* the second call finished first; then killed */
	cx_load(&t, &l);
	/* one assistant message, then one result message: the real result,
	 * then the synthetic ones in call order */
	expect_messages(&t, "[{'role':'user','content':'three at once'},"
			"{'role':'assistant','content':[" TOOL_USE("t1") "," TOOL_USE("t2") ","
			TOOL_USE("t3") "]},"
			"{'role':'user','content':[" RESULT("t2") "," INTERRUPTED("t1") ","
			INTERRUPTED("t3") "]}," NO_RESPONSE "]");
	assert_string_equal(rows(&t), "1:1:0 2:2:1 3:3:1 4:4:1 5:5:2 i:6:2 n:7:3");
	assert_int_equal(ctx_attach(t.x), ID(2));
	assert_string_equal(note(&t, 4, CTX_N_INFO),
			    "parallel tool call row off the parent chain: recovered into its response");
	assert_true(has_repair(&t, "call(s) t1, t3 of assistant row 00000002"));
	cx_unload(&t);
	tu_log_free(&l);
}

static void test_interrupted_call_before_later_turns(void **state)
{
	struct tu_log l;
	struct cx t;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "run it");
	tu_tool_use(&l, 2, 1, "m1", "t1");
	tu_user(&l, 3, 2, "never mind");
	tu_asst(&l, 4, 3, "m2", "ok");
	cx_load(&t, &l);
	/* the synthetic result goes right after its response, and the next
	 * prompt joins it (no seam after a tool_result) */
	expect_messages(&t, "[{'role':'user','content':'run it'},"
			"{'role':'assistant','content':[" TOOL_USE("t1") "]},"
			"{'role':'user','content':[" INTERRUPTED("t1") ",{'type':'text','text':'never mind'}]},"
			"{'role':'assistant','content':[{'type':'text','text':'ok'}]}]");
	assert_string_equal(rows(&t), "1:1:0 2:2:1 i:3:2 3:4:2 4:5:3");
	assert_int_equal(ctx_attach(t.x), ID(2));
	cx_unload(&t);
	tu_log_free(&l);
}

/* ---- rules 11, 19: one response written as several rows ---- */

static void test_split_assistant_response(void **state)
{
	struct tu_log l;
	struct cx t;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "q");
	cx_asst(&l, 2, 1, "m1", "[{'type':'thinking','thinking':'hmm','signature':'s'}]", "");
	cx_asst(&l, 3, 2, "m1", "[{'type':'text','text':'  \\n'}]", "");
	cx_asst(&l, 4, 3, "m1", "[" TOOL_USE("t1") "]", "");
	cx_asst(&l, 5, 4, "m1", "[{'type':'text','text':'after the call'}]", "");
	tu_result(&l, 6, 5, "t1");
	cx_asst(&l, 7, 6, "m2", "[{'type':'thinking','thinking':'only','signature':'s'}]", "");
	tu_asst(&l, 8, 7, "m3", "done");
	cx_load(&t, &l);
	/* thinking kept (its response has content), blank row gone, tool_use
	 * last; the thinking-only response m2 is dropped */
	expect_messages(&t, "[{'role':'user','content':'q'},"
			"{'role':'assistant','content':[{'type':'thinking','thinking':'hmm','signature':'s'},"
			"{'type':'text','text':'after the call'}," TOOL_USE("t1") "]},"
			"{'role':'user','content':[" RESULT("t1") "]},"
			"{'role':'assistant','content':[{'type':'text','text':'done'}]}]");
	assert_string_equal(rows(&t), "1:1:0 2:2:1 3:-:- 4:3:1 5:4:1 6:5:2 7:-:- 8:6:3");
	assert_string_equal(why(&t, 3), "assistant row with whitespace-only text");
	assert_string_equal(why(&t, 7), "thinking-only row without content");
	cx_unload(&t);
	tu_log_free(&l);
}

/* ---- rules 15-18, 22, 23: attachments of both roles ---- */

static void test_attachments_and_seams(void **state)
{
	struct tu_log l;
	struct cx t;

	(void)state;
	tu_log_init(&l);
	cx_effort(&l, "medium");
	tu_user(&l, 1, 0, "hello");
	cx_att(&l, 2, 1, "user", "session_context", "[{'content':'CTX'}]");
	cx_att(&l, 3, 2, "system", "environment",
	       "[{'content':'<system-reminder>\\nENV\\n</system-reminder>'}]");
	cx_att(&l, 4, 3, "system", "date", "['<system-reminder>\\nno close']");
	cx_att(&l, 5, 4, "user", "file", "[{'content':'A'},{'content':'B'}]");
	tu_attach(&l, 6, 5, "prompt_snapshot");
	tu_asst(&l, 7, 6, "m1", "hi");
	tu_user(&l, 8, 7, "next");
	cx_att(&l, 9, 8, "user", "nested_memory", "[{'content':'MEM'}]");
	cx_att(&l, 10, 9, "user", "compaction_reminder", "[{'content':'UI'}]");
	tu_asst(&l, 11, 10, "m2", "ok");
	cx_load(&t, &l);
	/*
	 * The attachments move before the prompt. session_context starts the
	 * message; each part of the file joins with the seam, as does the
	 * prompt; the system texts wait for the reply, unwrapped when both
	 * ends are there, and carry the first turn's effort.
	 */
	expect_messages(&t, "[{'role':'user','content':[{'type':'text','text':'CTX\\n'},"
			"{'type':'text','text':'A\\n'},{'type':'text','text':'B\\n'},"
			"{'type':'text','text':'hello'}]},"
			"{'role':'system','content':'ENV\\n\\n<system-reminder>\\nno close',"
			"'output_config':{'effort':'medium'}},"
			"{'role':'assistant','content':[{'type':'text','text':'hi'}]},"
			"{'role':'user','content':[{'type':'text','text':'MEM\\n'},"
			"{'type':'text','text':'next'}]},"
			"{'role':'assistant','content':[{'type':'text','text':'ok'}]}]");
	assert_string_equal(rows(&t), "1:1:0 2:2:0 3:3:1 4:4:1 5:5:0 6:-:- 7:6:2 8:7:3 "
				      "9:8:3 10:-:- 11:9:4");
	assert_string_equal(why(&t, 10), "attachment compaction_reminder: shown in the UI only");
	cx_unload(&t);
	tu_log_free(&l);
}

static void test_user_attachment_after_reply_stands_alone(void **state)
{
	struct tu_log l;
	struct cx t;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "q");
	tu_asst(&l, 2, 1, "m1", "a");
	cx_att(&l, 3, 2, "user", "file", "[{'content':'Called'},{'content':'Result'}]");
	cx_att(&l, 4, 3, "user", "remote_session_change", "[{'content':'R'}]");
	tu_user(&l, 5, 4, "q2");
	tu_asst(&l, 6, 5, "m2", "a2");
	cx_load(&t, &l);
	/* rule 16: after an assistant message each part is its own message;
	 * later rows join the last one (remote_session_change without seam) */
	expect_messages(&t, "[{'role':'user','content':'q'},"
			"{'role':'assistant','content':[{'type':'text','text':'a'}]},"
			"{'role':'user','content':'Called'},"
			"{'role':'user','content':[{'type':'text','text':'Result'},"
			"{'type':'text','text':'R\\n'},{'type':'text','text':'q2'}]},"
			"{'role':'assistant','content':[{'type':'text','text':'a2'}]}]");
	assert_string_equal(rows(&t), "1:1:0 2:2:1 3:3:2 4:4:3 5:5:3 6:6:4");
	cx_unload(&t);
	tu_log_free(&l);
}

static void test_results_move_before_text(void **state)
{
	struct tu_log l;
	struct cx t;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "q");
	tu_tool_use(&l, 2, 1, "m1", "t1");
	tu_result(&l, 3, 2, "t1");
	tu_row(&l, "system", 4, 3, dq("'subtype':'model_refusal_fallback','content':'',"
				      "'retractedMessageUuids':['00000002']"));
	tu_asst(&l, 5, 4, "m2", "done");
	cx_load(&t, &l);
	/* the call is retracted, so its result joins the prompt (no seam
	 * before a tool_result) and rule 17 moves it to the front */
	expect_messages(&t, "[{'role':'user','content':[" RESULT("t1") ",{'type':'text','text':'q'}]},"
			"{'role':'assistant','content':[{'type':'text','text':'done'}]}]");
	assert_string_equal(rows(&t), "1:1:0 2:-:- 3:2:0 4:-:- 5:3:1");
	assert_string_equal(why(&t, 4), "system row (model_refusal_fallback): shown in the terminal only");
	cx_unload(&t);
	tu_log_free(&l);
}

/* ---- rules 20, 21: replaced results, task notifications ---- */

static void test_content_replacement(void **state)
{
	struct tu_log l;
	struct cx t;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "read it");
	tu_tool_use(&l, 2, 1, "m1", "t1");
	tu_result(&l, 3, 2, "t1");
	tu_asst(&l, 4, 3, "m2", "read");
	tu_line(&l, dq("{'type':'content-replacement','sessionId':'other-session','replacements':"
		       "[{'kind':'tool-result','toolUseId':'t1','replacement':'[replaced: 9 KB]'}]}"));
	tu_line(&l, dq("{'type':'content-replacement','agentId':'a1','replacements':"
		       "[{'kind':'tool-result','toolUseId':'t1','replacement':'[subagent]'}]}"));
	cx_load(&t, &l);
	expect_messages(&t, "[{'role':'user','content':'read it'},"
			"{'role':'assistant','content':[" TOOL_USE("t1") "]},"
			"{'role':'user','content':[{'tool_use_id':'t1','type':'tool_result',"
			"'content':'[replaced: 9 KB]','is_error':false}]},"
			"{'role':'assistant','content':[{'type':'text','text':'read'}]}]");
	assert_true(has_repair(&t, "tool result(s) t1 of row 00000003 replaced by their "
				   "content-replacement placeholder"));
	cx_unload(&t);
	tu_log_free(&l);
}

static void test_task_notification_is_framed(void **state)
{
	struct tu_log l;
	struct cx t;
	const char *text;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "q");
	tu_asst(&l, 2, 1, "m1", "a");
	cx_user(&l, 3, 2, "'<task-notification>done</task-notification>'",
		"'origin':{'kind':'task-notification'}");
	tu_asst(&l, 4, 3, "m2", "noted");
	cx_load(&t, &l);
	text = cJSON_GetObjectItem(cJSON_GetArrayItem(t.msgs, 2), "content")->valuestring;
	assert_true(!strncmp(text, "<system-reminder>\n[SYSTEM NOTIFICATION - NOT USER INPUT]\n", 56));
	assert_non_null(strstr(text, "\n\n<task-notification>done</task-notification>\n"
				     "</system-reminder>"));
	assert_non_null(strstr(text, "something \xe2\x80\x94 including"));
	assert_true(has_repair(&t, "task-notification row 00000003 wrapped"));
	cx_unload(&t);
	tu_log_free(&l);
}

/* ---- rules 9-10: rows that are not sent ---- */

/* A row is parsed with only the members the context reads: what it skips
 * (a toolUseResult, odd members, a member whose key is written with
 * escapes and then pruned) changes nothing. */
static void test_rows_read_with_their_members_only(void **state)
{
	struct tu_log l;
	struct cx t;

	(void)state;
	tu_log_init(&l);
	cx_user(&l, 1, 0, "'q'", "'toolUseResult':{'stdout':[1,{'a':'}'}]},"
		"'\\u0074oolUseResult':'x'");
	cx_asst(&l, 2, 1, "m1", "[{'type':'text','text':'a'}]", "'toolUseResult':'x','z':[[[]]]");
	cx_load(&t, &l);
	expect_messages(&t, "[{'role':'user','content':'q'},"
			"{'role':'assistant','content':[{'type':'text','text':'a'}]}]");
	cx_unload(&t);
	tu_log_free(&l);
}

static void test_rows_not_sent(void **state)
{
	struct tu_log l;
	struct cx t;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "q");
	tu_system(&l, 2, 1, "informational");
	tu_row(&l, "attachment", 3, 2, dq("'attachment':{'type':'file','content':'not an object'},"
					  "'rendered':[{'content':'x'}],'renderedRole':'user'"));
	cx_att(&l, 4, 3, NULL, "session_context", "[{'content':'no role'}]");
	tu_asst(&l, 5, 4, "m1", "retract me");
	cx_asst(&l, 6, 5, "m2", "[{'type':'text','text':5}]", "");
	cx_asst(&l, 7, 6, "m3", "[{'type':'text','text':'kept'}]",
		"'retractedMessageUuids':['00000005-0000']");
	cx_load(&t, &l);
	expect_messages(&t, "[{'role':'user','content':'q'},"
			"{'role':'assistant','content':[{'type':'text','text':'kept'}]}]");
	assert_string_equal(rows(&t), "1:1:0 2:-:- 3:-:- 4:-:- 5:-:- 6:-:- 7:2:1");
	assert_string_equal(why(&t, 2), "system row (informational): shown in the terminal only");
	assert_string_equal(why(&t, 3),
			    "attachment with an invalid payload (transcript partially corrupt)");
	assert_string_equal(why(&t, 4),
			    "attachment session_context: has no rendered text for the model");
	assert_string_equal(why(&t, 5), "retracted by a later row (retractedMessageUuids)");
	assert_string_equal(why(&t, 6), "only broken text blocks: dropped");
	cx_unload(&t);
	tu_log_free(&l);
}

/* ---- window.md and the notes on the rest of the log ---- */

static void test_window_md(void **state)
{
	struct tu_log l;
	struct cx t;
	struct sbuf sb;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "q1");
	tu_asst(&l, 2, 1, "m1", "a1");
	tu_user(&l, 3, 2, "abandoned");
	tu_progress(&l, 4, 2);
	tu_user(&l, 5, 4, "q2");	/* child of a progress row: bridged to 2 */
	tu_asst(&l, 6, 5, "m2", "a2");
	tu_last_prompt(&l, 6, 0);
	cx_load(&t, &l);
	assert_string_equal(note(&t, 3, CTX_N_LEFT_OUT),
			    "not on the resumed branch (abandoned fork or dead end)");
	assert_string_equal(note(&t, 4, CTX_N_LEFT_OUT),
			    "progress row: not part of the conversation, its children hang off its parent");
	assert_string_equal(note(&t, 5, CTX_N_INFO),
			    "re-parented past a progress/dropped row to 00000002");
	sb_init(&sb);
	ctx_window_md(t.x, t.f.g, &sb);
	assert_non_null(strstr(sb.buf, "# Context window\n"));
	assert_non_null(strstr(sb.buf, "- Window starts at: 00000001-0000-4000-8000-000000000001"));
	assert_non_null(strstr(sb.buf, "- A resume appends after: 00000006-0000-4000-8000-000000000006\n"));
	assert_non_null(strstr(sb.buf, "## Left out\n\n- line 3, 00000003-0000-4000-8000-000000000003: "
				       "not on the resumed branch"));
	assert_non_null(strstr(sb.buf, "- 000004 00000006-0000-4000-8000-000000000006 assistant: message 3\n"));
	assert_non_null(strstr(sb.buf, "- last-prompt: 1\n"));
	assert_int_equal(sb.buf[sb.len - 1], '\n');
	sb_free(&sb);
	cx_unload(&t);
	tu_log_free(&l);
}

/*
 * Notes cut a uuid to 8 bytes, which may split a character; a metadata
 * type may hold bytes that are not UTF-8. window.md, the notes and the
 * repairs stay UTF-8, one line each (found by the fuzz target).
 */
static void test_window_md_is_utf8_text(void **state)
{
	struct tu_fx f;
	struct ctx *x;
	struct sbuf sb;
	uint32_t i;

	(void)state;
	tu_load(&f,
		"{\"type\":\"user\",\"uuid\":\"u1\",\"parentUuid\":null,"
		"\"message\":{\"role\":\"user\",\"content\":\"q1\"}}\n"
		"{\"type\":\"assistant\",\"uuid\":\"abcdefg\xc3\xa9-2\",\"parentUuid\":\"u1\","
		"\"message\":{\"id\":\"m1\",\"role\":\"assistant\","
		"\"content\":[{\"type\":\"text\",\"text\":\"a1\"}]}}\n"
		"{\"type\":\"progress\",\"uuid\":\"p3\",\"parentUuid\":\"abcdefg\xc3\xa9-2\"}\n"
		"{\"type\":\"user\",\"uuid\":\"u\\n4\",\"parentUuid\":\"p3\","
		"\"message\":{\"role\":\"user\",\"content\":\"q2\"}}\n"
		"{\"type\":\"t\xff\\n\",\"sessionId\":\"s\"}\n");
	assert_int_equal(ctx_build(f.g, f.c, f.lf, &x), 0);
	assert_true(ctx_nnotes(x) > 0);
	for (i = 0; i < ctx_nnotes(x); i++) {
		const char *t = ctx_note(x, i)->text;

		assert_true(tu_utf8(t, strlen(t)) && !strchr(t, '\n'));
	}
	sb_init(&sb);
	ctx_window_md(x, f.g, &sb);
	assert_true(tu_utf8(sb.buf, sb.len));
	assert_non_null(strstr(sb.buf, "re-parented past a progress/dropped row to abcdefg\xef\xbf\xbd\n"));
	assert_non_null(strstr(sb.buf, "- line 4, u\xef\xbf\xbd" "4: re-parented"));
	sb_free(&sb);
	ctx_free(x);
	tu_unload(&f);
}

/*
 * Numbers in a message are written back as numbers; one too large for a
 * long long is not converted to one (undefined behaviour: the UBSan build
 * fails here without the fix; seen in the fuzz target's coverage report,
 * then confirmed by the target on such a log).
 */
static void test_large_numbers_in_messages(void **state)
{
	struct tu_log l;
	struct cx t;
	struct sbuf sb;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "go");
	cx_asst(&l, 2, 1, "m1", "[{'type':'tool_use','id':'t1','name':'Bash','input':"
		"{'a':1e300,'b':-1e19,'c':0.5,'d':12345,'e':-7}}]", "");
	cx_load(&t, &l);
	sb_init(&sb);
	ctx_messages_json(t.x, &sb);
	assert_non_null(strstr(sb.buf, "\"a\": 1e+300"));
	assert_non_null(strstr(sb.buf, "\"b\": -1e+19"));
	assert_non_null(strstr(sb.buf, "\"c\": 0.5"));
	assert_non_null(strstr(sb.buf, "\"d\": 12345"));
	assert_non_null(strstr(sb.buf, "\"e\": -7"));
	sb_free(&sb);
	cx_unload(&t);
	tu_log_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_turns_and_empty_effort_marker),
		cmocka_unit_test(test_json_text_format),
		cmocka_unit_test(test_size_counts_every_byte_of_a_string),
		cmocka_unit_test(test_cleared_conversation_is_empty),
		cmocka_unit_test(test_window_after_one_compaction),
		cmocka_unit_test(test_window_after_three_compactions),
		cmocka_unit_test(test_preserved_segment),
		cmocka_unit_test(test_unanswered_prompt),
		cmocka_unit_test(test_local_command_output_is_not_unanswered),
		cmocka_unit_test(test_tool_call_without_result),
		cmocka_unit_test(test_parallel_call_killed_halfway),
		cmocka_unit_test(test_interrupted_call_before_later_turns),
		cmocka_unit_test(test_split_assistant_response),
		cmocka_unit_test(test_attachments_and_seams),
		cmocka_unit_test(test_user_attachment_after_reply_stands_alone),
		cmocka_unit_test(test_results_move_before_text),
		cmocka_unit_test(test_content_replacement),
		cmocka_unit_test(test_task_notification_is_framed),
		cmocka_unit_test(test_rows_not_sent),
		cmocka_unit_test(test_rows_read_with_their_members_only),
		cmocka_unit_test(test_window_md),
		cmocka_unit_test(test_window_md_is_utf8_text),
		cmocka_unit_test(test_large_numbers_in_messages),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

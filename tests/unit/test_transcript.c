/*
 * transcript: a branch as one Markdown file.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "session.h"
#include "harness.h"
#include "transcript.h"

/* Two turns, then a rewind to after the first that starts a second
 * branch. The first reply holds a fence of its own. */
static void fork_log(struct tu_log *l)
{
	tu_log_init(l);
	tu_user(l, 1, 0, "list the files");
	tu_attach(l, 2, 1, "date");
	tu_attach(l, 3, 2, "prompt_snapshot");
	tu_tool_use(l, 4, 3, "msg_1", "toolu_1");
	tu_result(l, 5, 4, "toolu_1");
	tu_asst(l, 6, 5, "msg_2", "Here:\n```\nREADME.md\n```");
	tu_system(l, 7, 6, "turn_duration");
	tu_user(l, 8, 7, "second question");
	tu_asst(l, 9, 8, "msg_3", "first answer");
	tu_user(l, 10, 7, "another question");	/* the rewind */
	tu_asst(l, 11, 10, "msg_4", "second answer");
}

static char *render(struct session *s, const char *branch)
{
	struct sbuf sb;
	int b = br_find(ss_branches(s), branch);

	assert_true(b >= 0);
	sb_init(&sb);
	assert_int_equal(tx_render(s, (uint32_t)b, NULL, 0, NULL, &sb), 0);
	return sb_detach(&sb, NULL);
}

static void test_turns_calls_and_folded_rows(void **state)
{
	struct tu_log l;
	struct session *s;
	char *path, *md;

	(void)state;
	fork_log(&l);
	path = tu_write_str(l.sb.buf);
	assert_int_equal(ss_open(path, SS_COMPLETE, &s), 0);
	md = render(s, "main");
	assert_non_null(strstr(md, "## Turn 1 · 2026-01-01T10:00:00.000Z · 3 in · 5 out"));
	assert_non_null(strstr(md, "**User:**\n\nlist the files\n"));
	assert_non_null(strstr(md, "**Tool call: Bash**\n\n```sh\nls\n```\n"));
	assert_non_null(strstr(md, "*Result (Bash):*\n\n```\nok\n```\n"));
	/* a reply is its text as written, fences and all */
	assert_non_null(strstr(md, "**Assistant:**\n\nHere:\n```\nREADME.md\n```\n"));
	/* Claude Code's own rows: one line each, with their file in harness/ */
	assert_non_null(strstr(md, "· attachment-prompt_snapshot (line 3): Claude Code's own text, "
				   "never sent to the model: "
				   "../harness/000003-attachment-prompt_snapshot.md\n"));
	assert_non_null(strstr(md, "· system-turn_duration (line 7): Claude Code's own text, never"));
	assert_non_null(strstr(md, "· attachment-date (line "));
	assert_non_null(strstr(md, "Claude Code's own text, sent to the model: ../harness/"));
	assert_null(strstr(md, "> date\n"));
	assert_non_null(strstr(md, "## Turn 2 · "));
	assert_non_null(strstr(md, "Branch main: "));
	free(md);
	ss_close(s);
	tu_remove(path);
	tu_log_free(&l);
}

/* Up to the rewind, two branches' transcripts are the same text; after
 * it, they differ until their ends: diff shows one hunk. */
static void test_branches_share_their_common_part(void **state)
{
	struct tu_log l;
	struct session *s;
	const struct br_set *bs;
	char *path, *a, *b, *turn2a, *turn2b;

	(void)state;
	fork_log(&l);
	path = tu_write_str(l.sb.buf);
	assert_int_equal(ss_open(path, SS_COMPLETE, &s), 0);
	bs = ss_branches(s);
	assert_int_equal(br_count(bs), 2);
	a = render(s, "main");
	b = render(s, br_get(bs, 1)->name);
	turn2a = strstr(a, "## Turn 2");
	turn2b = strstr(b, "## Turn 2");
	assert_non_null(turn2a);
	assert_non_null(turn2b);
	assert_int_equal(turn2a - a, turn2b - b);
	assert_memory_equal(a, b, (size_t)(turn2a - a));
	assert_non_null(strstr(turn2a, "second question"));
	assert_non_null(strstr(turn2b, "another question"));
	assert_null(strstr(b, "second question"));
	free(a);
	free(b);
	ss_close(s);
	tu_remove(path);
	tu_log_free(&l);
}

/* A branch that leaves another starts where it leaves it: a line links
 * the other's transcript for the rows before, and its turns go on with
 * the other's numbers. */
static void test_a_fork_starts_where_it_leaves(void **state)
{
	struct tu_log l;
	struct session *s;
	struct sbuf sb;
	const struct br_set *bs;
	uint32_t from;
	char *path;

	(void)state;
	fork_log(&l);
	path = tu_write_str(l.sb.buf);
	assert_int_equal(ss_open(path, SS_COMPLETE, &s), 0);
	bs = ss_branches(s);
	assert_int_equal(br_count(bs), 2);
	from = gr_dpos(ss_graph(s), br_get(bs, 1)->first_own) - 1;
	assert_int_equal(from, 7);	/* rows 1..7 are main's */
	sb_init(&sb);
	assert_int_equal(tx_render(s, 1, NULL, from, "main", &sb), 0);
	assert_non_null(strstr(sb.buf, "Rows 1 to 7 are the same as on branch main: read them in "
				       "[main.md](main.md). This branch leaves it after line 7 "
				       "of the log.\n\n## Turn 2 · "));
	assert_non_null(strstr(sb.buf, "another question"));
	assert_null(strstr(sb.buf, "list the files"));
	assert_null(strstr(sb.buf, "## Turn 1"));
	/* its totals are still the whole branch's */
	if (!strstr(sb.buf, ": rows 9, responses 2, "))
		print_message("%s\n", sb.buf);
	assert_non_null(strstr(sb.buf, ": rows 9, responses 2, "));
	sb_free(&sb);
	ss_close(s);
	tu_remove(path);
	tu_log_free(&l);
}

/* A tool result holding a fence gets a longer one. */
static void test_fence_outgrows_the_text(void **state)
{
	struct tu_log l;
	struct session *s;
	char *path, *md;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "go");
	tu_tool_use(&l, 2, 1, "msg_1", "toolu_1");
	tu_row(&l, "user", 3, 2, "\"message\":{\"role\":\"user\",\"content\":[{\"tool_use_id\":"
	       "\"toolu_1\",\"type\":\"tool_result\",\"content\":\"a\\n````\\nb\"}]}");
	path = tu_write_str(l.sb.buf);
	assert_int_equal(ss_open(path, SS_COMPLETE, &s), 0);
	md = render(s, "main");
	assert_non_null(strstr(md, "`````\na\n````\nb\n`````\n"));
	free(md);
	ss_close(s);
	tu_remove(path);
	tu_log_free(&l);
}

/* The pieces a sink takes. */
struct pieces {
	struct sbuf all;
	unsigned n;
	size_t most;
};

static int take_piece(void *arg, const char *p, size_t n)
{
	struct pieces *ps = arg;

	sb_add(&ps->all, p, n);
	ps->n++;
	ps->most = n > ps->most ? n : ps->most;
	return ps->n == 1000 ? -EINTR : 0;
}

/* A branch longer than SB_PIECE, rendered in pieces: the same text as
 * whole, handed over in pieces of about SB_PIECE, never held whole; a
 * sink's error ends the rendering. */
static void test_pieces_are_the_whole(void **state)
{
	struct pieces ps = { .n = 0 };
	struct sb_sink sink = { take_piece, &ps };
	struct tu_log l;
	struct session *s;
	struct sbuf sb, text;
	char *path, *md;
	uint32_t i;

	(void)state;
	tu_log_init(&l);
	sb_init(&text);
	for (i = 0; i < 4096; i++)
		sb_addc(&text, (char)('a' + i % 26));
	tu_user(&l, 1, 0, "go");
	for (i = 2; i < 1000; i += 2) {
		char id[16];

		snprintf(id, sizeof(id), "msg_%u", i);
		tu_asst(&l, (int)i, (int)i - 1, id, text.buf);
		tu_user(&l, (int)i + 1, (int)i, "more");
	}
	path = tu_write_str(l.sb.buf);
	assert_int_equal(ss_open(path, SS_COMPLETE, &s), 0);
	md = render(s, "main");
	assert_true(strlen(md) > 2 * SB_PIECE);
	sb_init(&ps.all);
	sb_init(&sb);
	assert_int_equal(tx_render_to(s, 0, NULL, 0, NULL, &sb, &sink), 0);
	assert_true(sb.len < SB_PIECE);		/* the rest, the caller's */
	sb_add(&ps.all, sb.buf, sb.len);
	assert_true(ps.n >= 2);
	assert_true(ps.most < SB_PIECE + 2 * text.len);
	assert_int_equal(ps.all.len, strlen(md));
	assert_memory_equal(ps.all.buf, md, ps.all.len);
	ps.n = 999;		/* the next piece is refused */
	sb_reset(&sb);
	assert_int_equal(tx_render_to(s, 0, NULL, 0, NULL, &sb, &sink), -EINTR);
	sb_free(&sb);
	sb_free(&ps.all);
	sb_free(&text);
	free(md);
	ss_close(s);
	tu_remove(path);
	tu_log_free(&l);
}

/* Harness or conversation, by attachment type: what Claude Code writes by
 * itself (the corpus's types and those its code names) against what the
 * user named, queued or configured (harness.h). */
static void test_harness_by_attachment_type(void **state)
{
	static const struct { const char *type; int harness; } t[] = {
		{ "environment", 1 }, { "prompt_snapshot", 1 }, { "skill_listing", 1 },
		{ "nested_memory", 1 }, { "edited_text_file", 1 }, { "already_read_file", 1 },
		{ "compact_file_reference", 1 }, { "invoked_skills", 1 }, { "fork_briefing", 1 },
		{ "selected_lines_in_ide", 1 }, { "file", 0 }, { "directory", 0 },
		{ "queued_command", 0 }, { "hook_success", 0 }, { "hook_additional_context", 0 },
		{ "pdf_reference", 0 }, { "a_type_no_release_wrote", 0 },
	};
	const size_t n = sizeof(t) / sizeof(t[0]);
	const struct idx *ix;
	struct tu_log l;
	struct session *s;
	char *path;
	size_t i;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "hello");
	for (i = 0; i < n; i++)
		tu_attach(&l, (int)i + 2, (int)i + 1, t[i].type);
	tu_row(&l, "user", (int)n + 2, (int)n + 1, "\"rowSource\":\"harness\",\"message\":"
	       "{\"role\":\"user\",\"content\":\"a note of its own\"}");
	path = tu_write_str(l.sb.buf);
	assert_int_equal(ss_open(path, SS_COMPLETE, &s), 0);
	ix = ss_idx(s);
	assert_int_equal(idx_nrecs(ix), n + 2);
	assert_false(hn_is_harness(ix, idx_rec(ix, 0)));
	/* a user row Claude Code marks as its own (2.1.332) */
	assert_true(hn_is_harness(ix, idx_rec(ix, (uint32_t)n + 1)));
	for (i = 0; i < n; i++) {
		const struct idx_rec *r = idx_rec(ix, (uint32_t)i + 1);

		assert_string_equal(idx_atom(ix, r->sub), t[i].type);
		if (hn_is_harness(ix, r) != t[i].harness)
			fail_msg("%s: harness %d, expected %d", t[i].type, !t[i].harness,
				 t[i].harness);
	}
	ss_close(s);
	tu_remove(path);
	tu_log_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_turns_calls_and_folded_rows),
		cmocka_unit_test(test_branches_share_their_common_part),
		cmocka_unit_test(test_a_fork_starts_where_it_leaves),
		cmocka_unit_test(test_fence_outgrows_the_text),
		cmocka_unit_test(test_pieces_are_the_whole),
		cmocka_unit_test(test_harness_by_attachment_type),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * branch: the terminal view's branches, their names and paths.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>

#include "tu_fixture.h"
#include "branch.h"

#define ID(n) tu_id(&f, (n))

/* All branch names in listing order, space separated. */
static const char *names(struct tu_fx *f)
{
	uint32_t i;

	sb_reset(&f->seq);
	for (i = 0; i < br_count(f->br); i++)
		sb_addf(&f->seq, "%s%s", i ? " " : "", br_get(f->br, i)->name);
	return f->seq.buf;
}

/* The path of the branch called name, as row numbers ("" if none). */
static const char *path_of(struct tu_fx *f, const char *name)
{
	int i = br_find(f->br, name);

	assert_true(i >= 0);
	return tu_path(f, (uint32_t)i);
}

/* The branch a resume continues, as session.c computes it. */
static const char *current(struct tu_fx *f)
{
	int i = f->c->attach ? br_of_node(f->br, f->c->attach) : -1;

	if (i < 0 && f->c->leaf)
		i = br_of_node(f->br, f->c->leaf);
	return i < 0 ? "(none)" : br_get(f->br, (uint32_t)i)->name;
}

/* Appends the rows of l to the fixture's file and rebuilds. */
static void append_and_rebuild(struct tu_fx *f, const struct tu_log *l)
{
	int fd = open(f->path, O_WRONLY | O_APPEND);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, l->sb.buf, l->sb.len), (ssize_t)l->sb.len);
	close(fd);
	assert_int_equal(idx_finish(f->ix, lf_fd(f->lf)), 0);
	tu_build(f);
}

/* br_path_from() from each branch's first own record is br_path() from
 * there on, as view.c's homes take it (where that record is listed, or
 * the whole path where br_path_from() gives the whole path). */
static unsigned tails;	/* branches given from their own record on */

static void check_paths_from(const struct br_set *bs, const struct graph *g)
{
	uint32_t i, *ids, *tail, n, tn, skip;

	for (i = 0; i < br_count(bs); i++) {
		uint32_t key = br_get(bs, i)->first_own, s = key ? gr_dpos(g, key) : 0;
		uint32_t want;

		assert_int_equal(br_path(bs, i, &ids, &n), 0);
		want = s && s <= n && ids[s - 1] == key ? s - 1 : 0;
		assert_int_equal(br_path_from(bs, i, key, &tail, &tn, &skip), 0);
		if (skip) {
			assert_int_equal(skip, want);
			tails++;
		}
		assert_int_equal(tn, n - skip);
		assert_memory_equal(tail, ids + skip, (size_t)tn * sizeof(*ids));
		free(ids);
		free(tail);
	}
}

static void test_single_chain_is_main(void **state)
{
	struct tu_log l;
	struct tu_fx f;
	const struct br_info *b;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "hi");
	tu_attach(&l, 2, 1, "date");
	tu_asst(&l, 3, 2, "m1", "hello");
	tu_attach(&l, 4, 3, "prompt_snapshot");
	tu_load_log(&f, &l);

	assert_int_equal(br_count(f.br), 1);
	b = br_get(f.br, 0);
	assert_string_equal(b->name, "main");
	assert_int_equal(b->terminal, ID(4));
	assert_int_equal(b->first_own, 0);
	assert_int_equal(b->key, 0);
	assert_string_equal(tu_path(&f, 0), "1 2 3 4");
	assert_int_equal(br_find(f.br, "main"), 0);
	assert_int_equal(br_find(f.br, "fork"), -1);
	assert_int_equal(br_of_node(f.br, ID(1)), 0);
	assert_int_equal(br_of_node(f.br, ID(4)), 0);
	assert_int_equal(br_of_node(f.br, 0), -1);
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_fork_names_main_and_fork(void **state)
{
	struct tu_log l;
	struct tu_fx f;
	const struct br_info *b;

	(void)state;
	tu_forked_log(&l);
	tu_load_log(&f, &l);

	assert_int_equal(br_count(f.br), 2);
	assert_string_equal(names(&f), "main fork-000003-00000005");
	assert_string_equal(path_of(&f, "main"), "1 2 3 4");
	assert_string_equal(path_of(&f, "fork-000003-00000005"), "1 2 5 6");
	b = br_get(f.br, 1);
	assert_int_equal(b->terminal, ID(6));
	assert_int_equal(b->first_own, ID(5));
	assert_int_equal(br_of_node(f.br, ID(1)), 0);
	assert_int_equal(br_of_node(f.br, ID(2)), 0);
	assert_int_equal(br_of_node(f.br, ID(3)), 0);
	assert_int_equal(br_of_node(f.br, ID(5)), 1);
	assert_int_equal(br_of_node(f.br, ID(6)), 1);
	/* no checkpoint: the last row decides, and it is on the fork */
	assert_string_equal(current(&f), "fork-000003-00000005");
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_fork_current_follows_checkpoint(void **state)
{
	struct tu_log l;
	struct tu_fx f;

	(void)state;
	tu_forked_log(&l);
	tu_last_prompt(&l, 4, 0);
	tu_load_log(&f, &l);
	assert_string_equal(current(&f), "main");
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_nested_forks(void **state)
{
	struct tu_log l;
	struct tu_fx f;
	int i;

	(void)state;
	tu_log_init(&l);
	for (i = 1; i <= 6; i++)
		if (i % 2)
			tu_user(&l, i, i - 1, "prompt");
		else
			tu_asst(&l, i, i - 1, i == 2 ? "m2" : i == 4 ? "m4" : "m6", "reply");
	tu_user(&l, 7, 2, "fork from 2");
	tu_asst(&l, 8, 7, "m8", "reply");
	tu_user(&l, 9, 8, "go on");
	tu_asst(&l, 10, 9, "m10", "reply");
	tu_user(&l, 11, 8, "fork from 8");
	tu_asst(&l, 12, 11, "m12", "reply");
	tu_user(&l, 13, 4, "late fork from 4");
	tu_load_log(&f, &l);

	assert_int_equal(br_count(f.br), 4);
	assert_string_equal(names(&f),
			    "main fork-000003-00000007 fork-000005-00000011 fork-000005-00000013");
	assert_string_equal(path_of(&f, "main"), "1 2 3 4 5 6");
	assert_string_equal(path_of(&f, "fork-000003-00000007"), "1 2 7 8 9 10");
	assert_string_equal(path_of(&f, "fork-000005-00000011"), "1 2 7 8 11 12");
	assert_string_equal(path_of(&f, "fork-000005-00000013"), "1 2 3 4 13");
	assert_int_equal(br_of_node(f.br, ID(8)), br_find(f.br, "fork-000003-00000007"));
	assert_int_equal(br_of_node(f.br, ID(12)), br_find(f.br, "fork-000005-00000011"));
	assert_string_equal(current(&f), "fork-000005-00000013");
	check_paths_from(f.br, f.g);
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_names_stay_the_same_after_appends(void **state)
{
	struct tu_log l, more;
	struct tu_fx f;
	char before[256];

	(void)state;
	tu_forked_log(&l);
	tu_load_log(&f, &l);
	snprintf(before, sizeof(before), "%s", names(&f));
	assert_string_equal(before, "main fork-000003-00000005");

	/* the fork grows */
	tu_log_init(&more);
	tu_at(&more, l.ms);
	tu_user(&more, 7, 6, "and tests");
	tu_asst(&more, 8, 7, "msg_4", "Tests added.");
	append_and_rebuild(&f, &more);
	assert_string_equal(names(&f), before);
	assert_string_equal(path_of(&f, "fork-000003-00000005"), "1 2 5 6 7 8");
	assert_string_equal(path_of(&f, "main"), "1 2 3 4");
	assert_string_equal(current(&f), "fork-000003-00000005");

	/* main grows after the fork did */
	tu_log_free(&more);
	tu_log_init(&more);
	tu_at(&more, l.ms + 10000);
	tu_user(&more, 9, 4, "back on main");
	tu_asst(&more, 10, 9, "msg_5", "OK.");
	append_and_rebuild(&f, &more);
	assert_string_equal(names(&f), before);
	assert_string_equal(path_of(&f, "main"), "1 2 3 4 9 10");
	assert_string_equal(current(&f), "main");

	/* a new fork adds a name and renames nothing */
	tu_log_free(&more);
	tu_log_init(&more);
	tu_at(&more, l.ms + 20000);
	tu_user(&more, 11, 6, "fork of the fork");
	append_and_rebuild(&f, &more);
	assert_string_equal(names(&f),
			    "main fork-000003-00000005 fork-000005-00000011");
	assert_string_equal(path_of(&f, "fork-000003-00000005"), "1 2 5 6 7 8");
	assert_string_equal(path_of(&f, "fork-000005-00000011"), "1 2 5 6 11");
	tu_log_free(&more);
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_one_compaction_is_one_branch(void **state)
{
	struct tu_log l;
	struct tu_fx f;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "a");
	tu_asst(&l, 2, 1, "m1", "b");
	tu_boundary(&l, 3, 2, 0, NULL, 0);
	tu_summary(&l, 4, 3);
	tu_user(&l, 5, 4, "c");
	tu_asst(&l, 6, 5, "m2", "d");
	tu_load_log(&f, &l);
	assert_int_equal(br_count(f.br), 1);
	assert_string_equal(names(&f), "main");
	assert_string_equal(tu_path(&f, 0), "1 2 3 4 5 6");
	assert_int_equal(br_of_node(f.br, ID(1)), 0);
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_three_compactions_are_one_branch(void **state)
{
	struct tu_log l;
	struct tu_fx f;
	int k, u = 1;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, u, 0, "start");
	u++;
	tu_asst(&l, u, u - 1, "m0", "ok");
	for (k = 0; k < 3; k++) {
		char mid[16];

		snprintf(mid, sizeof(mid), "m%d", k + 1);
		tu_boundary(&l, u + 1, u, 0, NULL, 0);
		tu_summary(&l, u + 2, u + 1);
		tu_user(&l, u + 3, u + 2, "more");
		tu_asst(&l, u + 4, u + 3, mid, "ok");
		u += 4;
	}
	tu_load_log(&f, &l);
	assert_int_equal(br_count(f.br), 1);
	assert_string_equal(tu_path(&f, 0), "1 2 3 4 5 6 7 8 9 10 11 12 13 14");
	assert_int_equal(br_get(f.br, 0)->terminal, ID(14));
	tu_unload(&f);
	tu_log_free(&l);
}

/* 1 prompt; response msg_1 = rows 2 (text), 3 (call a), 4 (call b); b's
 * result 5 is written before a's result 6. */
static void parallel_calls(struct tu_log *l)
{
	tu_log_init(l);
	tu_user(l, 1, 0, "Check both files.");
	tu_asst(l, 2, 1, "msg_1", "Reading both.");
	tu_tool_use(l, 3, 2, "msg_1", "toolu_a");
	tu_tool_use(l, 4, 3, "msg_1", "toolu_b");
	tu_result(l, 5, 4, "toolu_b");
	tu_result(l, 6, 3, "toolu_a");
}

static void test_parallel_tool_calls_are_one_branch(void **state)
{
	struct tu_log l;
	struct tu_fx f;

	(void)state;
	parallel_calls(&l);
	tu_asst(&l, 7, 6, "msg_2", "Both read.");	/* continues from a's result */
	tu_user(&l, 8, 7, "Thanks.");
	tu_load_log(&f, &l);
	assert_int_equal(br_count(f.br), 1);
	assert_string_equal(names(&f), "main");
	assert_string_equal(tu_path(&f, 0), "1 2 3 4 5 6 7 8");
	assert_int_equal(br_of_node(f.br, ID(5)), 0);
	check_paths_from(f.br, f.g);
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_parallel_continuing_from_first_result(void **state)
{
	struct tu_log l;
	struct tu_fx f;

	(void)state;
	parallel_calls(&l);
	tu_asst(&l, 7, 5, "msg_2", "Both read.");	/* continues from b's result */
	tu_load_log(&f, &l);
	assert_int_equal(br_count(f.br), 1);
	assert_string_equal(tu_path(&f, 0), "1 2 3 4 5 6 7");
	check_paths_from(f.br, f.g);
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_killed_parallel_batch_counts_once(void **state)
{
	struct tu_log l;
	struct tu_fx f;

	(void)state;
	parallel_calls(&l);	/* both results written, then killed */
	tu_load_log(&f, &l);
	assert_int_equal(br_count(f.br), 1);
	assert_string_equal(tu_path(&f, 0), "1 2 3 4 5 6");
	check_paths_from(f.br, f.g);
	tu_unload(&f);
	tu_log_free(&l);

	/* killed with only the first call answered */
	tu_log_init(&l);
	tu_user(&l, 1, 0, "Check both files.");
	tu_tool_use(&l, 3, 1, "msg_1", "toolu_a");
	tu_tool_use(&l, 4, 3, "msg_1", "toolu_b");
	tu_result(&l, 6, 3, "toolu_a");
	tu_load_log(&f, &l);
	assert_int_equal(br_count(f.br), 1);
	assert_string_equal(tu_path(&f, 0), "1 3 4 6");
	assert_int_equal(br_of_node(f.br, ID(4)), 0);
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_real_fork_inside_tool_turn_is_a_branch(void **state)
{
	struct tu_log l;
	struct tu_fx f;

	(void)state;
	parallel_calls(&l);
	tu_asst(&l, 7, 6, "msg_2", "Both read.");
	tu_user(&l, 8, 2, "No, stop: do something else.");	/* rewind to 2 */
	tu_load_log(&f, &l);
	assert_int_equal(br_count(f.br), 2);
	assert_string_equal(path_of(&f, "main"), "1 2 3 4 5 6 7");
	assert_int_equal(br_get(f.br, 1)->first_own, ID(8));
	check_paths_from(f.br, f.g);
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_progress_rows_make_no_branch(void **state)
{
	struct tu_log l;
	struct tu_fx f;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "a");
	tu_progress(&l, 50, 1);
	tu_asst(&l, 2, 50, "m1", "b");
	tu_progress(&l, 51, 2);		/* a dead-end progress row */
	tu_user(&l, 3, 2, "c");
	tu_load_log(&f, &l);
	assert_int_equal(br_count(f.br), 1);
	assert_string_equal(tu_path(&f, 0), "1 2 3");
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_sidechain_rows_make_no_branch(void **state)
{
	struct tu_log l;
	struct tu_fx f;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "a");
	tu_asst(&l, 2, 1, "m1", "b");
	l.sidechain = 1;
	tu_user(&l, 3, 2, "subagent");
	tu_asst(&l, 4, 3, "m2", "subagent reply");
	l.sidechain = 0;
	tu_user(&l, 5, 2, "c");
	tu_load_log(&f, &l);
	assert_int_equal(br_count(f.br), 1);
	assert_string_equal(tu_path(&f, 0), "1 2 5");
	assert_int_equal(br_of_node(f.br, ID(4)), -1);
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_second_root_is_its_own_branch(void **state)
{
	struct tu_log l;
	struct tu_fx f;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "a");
	tu_asst(&l, 2, 1, "m1", "b");
	tu_user(&l, 3, 99, "parent missing");
	tu_asst(&l, 4, 3, "m2", "d");
	tu_load_log(&f, &l);
	assert_string_equal(names(&f), "main fork-000001-00000003");
	assert_string_equal(path_of(&f, "fork-000001-00000003"), "3 4");
	check_paths_from(f.br, f.g);
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_metadata_only_log_has_no_branch(void **state)
{
	struct tu_fx f;

	(void)state;
	tu_load(&f, "{\"type\":\"custom-title\",\"customTitle\":\"x\",\"sessionId\":\"s\"}\n"
		    "{\"type\":\"last-prompt\",\"leafUuid\":null,\"sessionId\":\"s\"}\n");
	assert_int_equal(br_count(f.br), 0);
	assert_int_equal(br_find(f.br, "main"), -1);
	tu_unload(&f);
}

/* ---- round two: hook rows, a fork of a compacted log, dead ends ---- */

static void test_hook_rows_on_parallel_dead_end_are_one_branch(void **state)
{
	struct tu_log l;
	struct tu_fx f;

	(void)state;
	parallel_calls(&l);		/* a's result 6 is the dead end ... */
	tu_attach(&l, 10, 6, "hook_success");		/* ... with its hook rows */
	tu_attach(&l, 11, 10, "hook_additional_context");
	tu_attach(&l, 12, 5, "hook_additional_context");	/* b's, on the path */
	tu_asst(&l, 7, 12, "msg_2", "Both read.");
	tu_load_log(&f, &l);
	assert_int_equal(br_count(f.br), 1);
	assert_int_equal(br_ndead(f.br), 0);
	assert_string_equal(tu_path(&f, 0), "1 2 3 4 5 6 10 11 12 7");
	assert_int_equal(br_of_node(f.br, ID(11)), 0);
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_pre_tool_hook_beside_result_is_on_the_branch(void **state)
{
	struct tu_log l;
	struct tu_fx f;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "List.");
	tu_tool_use(&l, 2, 1, "msg_1", "toolu_a");
	tu_attach(&l, 3, 2, "hook_additional_context");	/* PreToolUse */
	tu_result(&l, 4, 2, "toolu_a");
	tu_asst(&l, 5, 4, "msg_2", "Done.");
	tu_load_log(&f, &l);
	assert_int_equal(br_count(f.br), 1);
	assert_string_equal(tu_path(&f, 0), "1 2 3 4 5");
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_fork_of_compacted_log_is_one_branch(void **state)
{
	struct tu_log l;
	struct tu_fx f;
	uint32_t i;
	int logical = 0;

	(void)state;
	tu_log_init(&l);	/* the boundary names 12, written after it */
	tu_boundary(&l, 10, 12, 0, NULL, 0);
	tu_summary(&l, 11, 10);
	tu_asst(&l, 12, 11, "msg_1", "Kept word for word.");
	tu_user(&l, 13, 12, "Fork: show the log.");
	tu_asst(&l, 14, 13, "msg_2", "Two commits.");
	tu_load_log(&f, &l);
	assert_int_equal(br_count(f.br), 1);
	assert_string_equal(tu_path(&f, 0), "10 11 12 13 14");
	for (i = 0; i < gr_nerrs(f.g); i++)
		logical |= gr_err(f.g, i)->code == GR_E_LOGICAL_CYCLE &&
			   gr_err(f.g, i)->id == ID(10);
	assert_true(logical);
	assert_int_equal(f.c->attach, ID(14));
	check_paths_from(f.br, f.g);
	tu_unload(&f);
	tu_log_free(&l);
}

/* 1 prompt, 2 reply, 3 unanswered prompt, 4 the resume's repair, then a
 * killed /compact's summary 5 off the repair; 6, 7 the next turn. */
static void compact_leftover(struct tu_log *l, int leftover_last)
{
	tu_log_init(l);
	tu_user(l, 1, 0, "q1");
	tu_asst(l, 2, 1, "msg_1", "a1");
	tu_user(l, 3, 2, "q2");
	tu_asst(l, 4, 3, "msg_2", "No response requested.");
	if (!leftover_last)
		tu_summary(l, 5, 4);
	tu_user(l, 6, 4, "q3");
	tu_asst(l, 7, 6, "msg_3", "a3");
	if (leftover_last) {
		tu_summary(l, 5, 4);
		tu_attach(l, 8, 5, "hook_success");
	}
}

static void test_interrupted_compact_leaves_a_dead_end(void **state)
{
	struct tu_log l;
	struct tu_fx f;
	int last;

	(void)state;
	for (last = 0; last < 2; last++) {
		compact_leftover(&l, last);
		tu_load_log(&f, &l);
		assert_int_equal(br_count(f.br), 1);
		assert_string_equal(tu_path(&f, 0), "1 2 3 4 6 7");
		assert_int_equal(br_ndead(f.br), 1);
		assert_int_equal(br_dead(f.br, 0)->top, ID(5));
		assert_int_equal(br_dead(f.br, 0)->from, ID(4));
		assert_int_equal(br_dead(f.br, 0)->rows, last ? 2 : 1);
		assert_int_equal(br_dead(f.br, 0)->why, BR_DEAD_SIDE);
		tu_unload(&f);
		tu_log_free(&l);
	}
}

static void test_summarised_rows_are_a_dead_end(void **state)
{
	struct tu_log l;
	struct tu_fx f;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "q1");
	tu_asst(&l, 2, 1, "msg_1", "a1");
	tu_user(&l, 3, 2, "q2");		/* summarised from here ... */
	tu_asst(&l, 4, 3, "msg_2", "a2");	/* ... to here */
	tu_partial_boundary(&l, 10, 2, 2);	/* joins 2: "Summarize from here" */
	tu_summary(&l, 11, 10);
	tu_user(&l, 12, 11, "q3");
	tu_asst(&l, 13, 12, "msg_3", "a3");
	tu_load_log(&f, &l);
	assert_int_equal(br_count(f.br), 1);
	assert_string_equal(tu_path(&f, 0), "1 2 10 11 12 13");
	assert_int_equal(br_ndead(f.br), 1);
	assert_int_equal(br_dead(f.br, 0)->top, ID(3));
	assert_int_equal(br_dead(f.br, 0)->terminal, ID(4));
	assert_int_equal(br_dead(f.br, 0)->why, BR_DEAD_SUMMARISED);
	tu_unload(&f);
	tu_log_free(&l);

	/* rule 29, kept to what it covers: a rewind to 2, then a plain
	 * /compact there (its boundary joins 2 too, but says nothing of rows
	 * it summarised): the turns the rewind left are a branch */
	tu_log_init(&l);
	tu_user(&l, 1, 0, "q1");
	tu_asst(&l, 2, 1, "msg_1", "a1");
	tu_user(&l, 3, 2, "q2, abandoned by the rewind");
	tu_asst(&l, 4, 3, "msg_2", "a2");
	tu_boundary(&l, 10, 2, 0, NULL, 0);	/* /compact after the rewind to 2 */
	tu_summary(&l, 11, 10);
	tu_user(&l, 12, 11, "q3");
	tu_asst(&l, 13, 12, "msg_3", "a3");
	tu_load_log(&f, &l);
	assert_int_equal(br_count(f.br), 2);
	assert_int_equal(br_ndead(f.br), 0);
	assert_string_equal(tu_path(&f, 0), "1 2 3 4");
	assert_string_equal(tu_path(&f, 1), "1 2 10 11 12 13");
	tu_unload(&f);
	tu_log_free(&l);

	/* a rewind to 2 after a compaction and a turn: two branches */
	tu_log_init(&l);
	tu_user(&l, 1, 0, "q1");
	tu_asst(&l, 2, 1, "msg_1", "a1");
	tu_boundary(&l, 10, 2, 0, NULL, 0);
	tu_summary(&l, 11, 10);
	tu_user(&l, 12, 11, "q3");
	tu_asst(&l, 13, 12, "msg_3", "a3");
	tu_user(&l, 3, 2, "q2 after a rewind");
	tu_asst(&l, 4, 3, "msg_2", "a2");
	tu_load_log(&f, &l);
	assert_int_equal(br_count(f.br), 2);
	assert_int_equal(br_ndead(f.br), 0);
	tu_unload(&f);
	tu_log_free(&l);

	/* ... and with nothing after the summary, the compaction's rows are
	 * a piece without conversation: a dead end */
	tu_log_init(&l);
	tu_user(&l, 1, 0, "q1");
	tu_asst(&l, 2, 1, "msg_1", "a1");
	tu_boundary(&l, 10, 2, 0, NULL, 0);
	tu_summary(&l, 11, 10);
	tu_user(&l, 3, 2, "q2 after a rewind");
	tu_asst(&l, 4, 3, "msg_2", "a2");
	tu_load_log(&f, &l);
	assert_int_equal(br_count(f.br), 1);
	assert_int_equal(br_ndead(f.br), 1);
	assert_int_equal(br_dead(f.br, 0)->top, ID(10));
	tu_unload(&f);
	tu_log_free(&l);
}

/* Rule 29's second half: a piece without a turn row is a dead end when
 * the row it hangs off goes on in a piece already accepted, though that
 * piece holds no turn either. 1-4 as above, then two killed /compacts off
 * the repair 4: the newer one (9, 10) is the branch's end (nothing else
 * goes on from 4), the older one (5) a dead end beside it. */
static void test_side_piece_beside_an_accepted_piece_is_a_dead_end(void **state)
{
	struct tu_log l;
	struct tu_fx f;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "q1");
	tu_asst(&l, 2, 1, "msg_1", "a1");
	tu_user(&l, 3, 2, "q2");
	tu_asst(&l, 4, 3, "msg_2", "No response requested.");
	tu_summary(&l, 5, 4);			/* the first killed /compact */
	tu_summary(&l, 9, 4);			/* the second, written later */
	tu_attach(&l, 10, 9, "hook_success");
	tu_load_log(&f, &l);
	assert_int_equal(br_count(f.br), 1);
	assert_string_equal(tu_path(&f, 0), "1 2 3 4 9 10");
	assert_int_equal(br_ndead(f.br), 1);
	assert_int_equal(br_dead(f.br, 0)->terminal, ID(5));
	assert_int_equal(br_dead(f.br, 0)->top, ID(5));
	assert_int_equal(br_dead(f.br, 0)->from, ID(4));
	assert_int_equal(br_dead(f.br, 0)->rows, 1);
	assert_int_equal(br_dead(f.br, 0)->why, BR_DEAD_SIDE);
	tu_unload(&f);
	tu_log_free(&l);
}

/* Every log of the corpus: check_paths_from() on its branches. */
static unsigned corpus_branches;

static void corpus_log(const char *path)
{
	struct logf *lf;
	struct idx *ix;
	struct graph *g = NULL;
	struct br_set *bs = NULL;

	if (lf_open(path, &lf))
		return;
	ix = idx_new();
	assert_non_null(ix);
	if (!idx_finish(ix, lf_fd(lf)) && !gr_build(ix, &g) && !br_build(g, &bs)) {
		check_paths_from(bs, g);
		corpus_branches += br_count(bs);
	}
	br_free(bs);
	gr_free(g);
	idx_free(ix);
	lf_close(lf);
}

static void test_corpus_paths_from(void **state)
{
	(void)state;
	tu_corpus_logs(corpus_log);
	print_message("%u branches checked, %u from their own record\n", corpus_branches, tails);
	assert_true(corpus_branches > 50);
	assert_true(tails > 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_single_chain_is_main),
		cmocka_unit_test(test_fork_names_main_and_fork),
		cmocka_unit_test(test_fork_current_follows_checkpoint),
		cmocka_unit_test(test_nested_forks),
		cmocka_unit_test(test_names_stay_the_same_after_appends),
		cmocka_unit_test(test_one_compaction_is_one_branch),
		cmocka_unit_test(test_three_compactions_are_one_branch),
		cmocka_unit_test(test_parallel_tool_calls_are_one_branch),
		cmocka_unit_test(test_parallel_continuing_from_first_result),
		cmocka_unit_test(test_killed_parallel_batch_counts_once),
		cmocka_unit_test(test_real_fork_inside_tool_turn_is_a_branch),
		cmocka_unit_test(test_progress_rows_make_no_branch),
		cmocka_unit_test(test_sidechain_rows_make_no_branch),
		cmocka_unit_test(test_second_root_is_its_own_branch),
		cmocka_unit_test(test_metadata_only_log_has_no_branch),
		cmocka_unit_test(test_hook_rows_on_parallel_dead_end_are_one_branch),
		cmocka_unit_test(test_pre_tool_hook_beside_result_is_on_the_branch),
		cmocka_unit_test(test_fork_of_compacted_log_is_one_branch),
		cmocka_unit_test(test_interrupted_compact_leaves_a_dead_end),
		cmocka_unit_test(test_summarised_rows_are_a_dead_end),
		cmocka_unit_test(test_side_piece_beside_an_accepted_piece_is_a_dead_end),
		cmocka_unit_test(test_corpus_paths_from),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

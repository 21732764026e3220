/*
 * resume: the leaf, the loaded chain, the window and the attach point.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "tu_fixture.h"
#include "resume.h"

#define ID(n) tu_id(&f, (n))
#define NUM(id) tu_num(&f, (id))

/* How many notes of code the chain has. */
static int count_notes(const struct rs_chain *c, uint8_t code)
{
	uint32_t i;
	int n = 0;

	for (i = 0; i < c->nnotes; i++)
		n += c->notes[i].code == code;
	return n;
}

static const struct rs_note *find_note(const struct rs_chain *c, uint8_t code)
{
	uint32_t i;

	for (i = 0; i < c->nnotes; i++)
		if (c->notes[i].code == code)
			return &c->notes[i];
	return NULL;
}

/* 1 user, 2 reply, 3 user, 4 reply. */
static void four_rows(struct tu_log *l)
{
	tu_log_init(l);
	tu_user(l, 1, 0, "What is in this repo?");
	tu_asst(l, 2, 1, "msg_1", "A todo app.");
	tu_user(l, 3, 2, "Add a done command.");
	tu_asst(l, 4, 3, "msg_2", "Added.");
}

/* ---- the leaf ---- */

static void test_no_checkpoint_leaf_is_last_row(void **state)
{
	struct tu_log l;
	struct tu_fx f;

	(void)state;
	four_rows(&l);
	tu_load_log(&f, &l);
	assert_int_equal(NUM(f.c->leaf), 4);
	assert_int_equal(NUM(f.c->attach), 4);
	assert_string_equal(tu_chain(&f), "1 2 3 4");
	assert_int_equal(f.c->window, 0);
	assert_int_equal(f.c->boundary, 0);
	assert_false(f.c->cleared);
	assert_false(f.c->relinked);
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_checkpoint_names_the_leaf(void **state)
{
	struct tu_log l;
	struct tu_fx f;

	(void)state;
	four_rows(&l);
	tu_last_prompt(&l, 2, 0);	/* the checkpoint is on row 2 ... */
	tu_user(&l, 5, 2, "Add a delete command instead.");	/* ... a fork */
	tu_asst(&l, 6, 5, "msg_3", "Added delete.");
	tu_last_prompt(&l, 4, 0);	/* newest checkpoint: back on row 4 */
	tu_load_log(&f, &l);
	assert_int_equal(NUM(f.c->leaf), 4);
	assert_string_equal(tu_chain(&f), "1 2 3 4");
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_checkpoint_kept_over_later_rows_on_another_branch(void **state)
{
	struct tu_log l;
	struct tu_fx f;

	(void)state;
	four_rows(&l);
	tu_last_prompt(&l, 4, 0);
	tu_user(&l, 5, 2, "written later by another process");
	tu_asst(&l, 6, 5, "msg_3", "reply");
	tu_load_log(&f, &l);
	assert_int_equal(NUM(f.c->leaf), 4);
	assert_string_equal(tu_chain(&f), "1 2 3 4");
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_non_explicit_checkpoint_gives_way_to_descendant(void **state)
{
	struct tu_log l;
	struct tu_fx f;

	(void)state;
	four_rows(&l);
	tu_last_prompt(&l, 2, 0);
	tu_attach(&l, 5, 4, "date");
	tu_user(&l, 6, 5, "one more");
	tu_asst(&l, 7, 6, "msg_3", "sure");
	tu_load_log(&f, &l);
	assert_int_equal(NUM(f.c->leaf), 7);
	assert_string_equal(tu_chain(&f), "1 2 3 4 5 6 7");
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_explicit_checkpoint_beats_descendant_last_row(void **state)
{
	struct tu_log l;
	struct tu_fx f;

	(void)state;
	four_rows(&l);
	tu_last_prompt(&l, 2, 1);	/* rewind to row 2 */
	tu_user(&l, 5, 4, "a late row under the abandoned turn");
	tu_load_log(&f, &l);
	assert_int_equal(NUM(f.c->leaf), 2);
	assert_string_equal(tu_chain(&f), "1 2");
	assert_int_equal(NUM(f.c->attach), 2);
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_explicit_checkpoint_beats_later_rows_on_another_branch(void **state)
{
	struct tu_log l;
	struct tu_fx f;

	(void)state;
	four_rows(&l);
	tu_user(&l, 5, 2, "rewound and asked again");
	tu_asst(&l, 6, 5, "msg_3", "reply");
	tu_last_prompt(&l, 6, 0);
	tu_last_prompt(&l, 4, 1);	/* back to the first branch */
	tu_user(&l, 7, 6, "a later row on the other branch");
	tu_asst(&l, 8, 7, "msg_4", "reply");
	tu_load_log(&f, &l);
	assert_int_equal(NUM(f.c->leaf), 4);
	assert_string_equal(tu_chain(&f), "1 2 3 4");
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_explicit_null_leaf_clears_the_conversation(void **state)
{
	struct tu_log l;
	struct tu_fx f;

	(void)state;
	four_rows(&l);
	tu_last_prompt(&l, 4, 0);
	tu_last_prompt(&l, 0, 1);
	tu_load_log(&f, &l);
	assert_true(f.c->cleared);
	assert_int_equal(f.c->leaf, 0);
	assert_int_equal(f.c->attach, 0);
	assert_int_equal(f.c->n, 0);
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_checkpoint_after_clear_restores_a_leaf(void **state)
{
	struct tu_log l;
	struct tu_fx f;

	(void)state;
	four_rows(&l);
	tu_last_prompt(&l, 0, 1);
	tu_last_prompt(&l, 2, 0);
	tu_load_log(&f, &l);
	assert_false(f.c->cleared);
	/* row 4 descends from the non-explicit checkpoint */
	assert_int_equal(NUM(f.c->leaf), 4);
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_null_leaf_without_explicit_does_not_clear(void **state)
{
	struct tu_log l;
	struct tu_fx f;

	(void)state;
	four_rows(&l);
	tu_last_prompt(&l, 0, 0);
	tu_load_log(&f, &l);
	assert_false(f.c->cleared);
	assert_int_equal(NUM(f.c->leaf), 4);
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_boundary_resets_checkpoint_and_clear(void **state)
{
	struct tu_log l;
	struct tu_fx f;

	(void)state;
	four_rows(&l);
	tu_last_prompt(&l, 2, 1);
	tu_last_prompt(&l, 0, 1);
	tu_boundary(&l, 5, 4, 0, NULL, 0);
	tu_summary(&l, 6, 5);
	tu_load_log(&f, &l);
	assert_false(f.c->cleared);
	assert_int_equal(NUM(f.c->leaf), 6);
	assert_string_equal(tu_chain(&f), "5 6");
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_sidechain_rows_never_lead(void **state)
{
	struct tu_log l;
	struct tu_fx f;

	(void)state;
	four_rows(&l);
	l.sidechain = 1;
	tu_user(&l, 5, 4, "subagent task");
	tu_asst(&l, 6, 5, "msg_9", "subagent reply");
	tu_load_log(&f, &l);
	assert_int_equal(NUM(f.c->leaf), 4);
	assert_string_equal(tu_chain(&f), "1 2 3 4");
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_old_log_prefers_newest_descendant_of_last_row(void **state)
{
	struct tu_log l;
	struct tu_fx f;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "a");
	tu_at(&l, TU_T0 + 60000);
	tu_asst(&l, 3, 2, "msg_2", "written before its parent, newest");
	tu_at(&l, TU_T0 + 30000);
	tu_user(&l, 2, 1, "b");
	tu_load_log(&f, &l);
	assert_int_equal(NUM(f.c->leaf), 3);
	assert_string_equal(tu_chain(&f), "1 2 3");
	tu_unload(&f);
	tu_log_free(&l);

	/* with a checkpoint key anywhere, lastRow is taken as it is */
	tu_log_init(&l);
	tu_user(&l, 1, 0, "a");
	tu_at(&l, TU_T0 + 60000);
	tu_asst(&l, 3, 2, "msg_2", "newest");
	tu_at(&l, TU_T0 + 30000);
	tu_user(&l, 2, 1, "b");
	tu_last_prompt(&l, 99, 0);	/* names nothing */
	tu_load_log(&f, &l);
	assert_int_equal(NUM(f.c->leaf), 2);
	tu_unload(&f);
	tu_log_free(&l);
}

/* ---- the attach point ---- */

static void test_attach_point_is_trailing_prompt_snapshot(void **state)
{
	struct tu_log l;
	struct tu_fx f;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "hi");
	tu_attach(&l, 2, 1, "date");
	tu_attach(&l, 3, 2, "prompt_snapshot");
	tu_asst(&l, 4, 3, "msg_1", "hello");
	tu_attach(&l, 5, 4, "prompt_snapshot");
	tu_last_prompt(&l, 5, 0);
	tu_load_log(&f, &l);
	assert_int_equal(NUM(f.c->leaf), 4);
	assert_int_equal(NUM(f.c->attach), 5);
	assert_string_equal(tu_chain(&f), "1 2 3 4 5");
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_trailing_attachments_sorted_by_time(void **state)
{
	struct tu_log l;
	struct tu_fx f;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "hi");
	tu_asst(&l, 2, 1, "msg_1", "hello");
	tu_at(&l, TU_T0 + 9000);
	tu_attach(&l, 3, 2, "prompt_snapshot");
	tu_at(&l, TU_T0 + 5000);
	tu_attach(&l, 4, 3, "date");	/* child of 3, stamped earlier */
	tu_load_log(&f, &l);
	/* lastRow is the attachment 4; its message is 2 */
	assert_int_equal(NUM(f.c->leaf), 2);
	assert_string_equal(tu_chain(&f), "1 2 4 3");
	assert_int_equal(NUM(f.c->attach), 3);
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_unanswered_tool_call_attaches_to_its_row(void **state)
{
	struct tu_log l;
	struct tu_fx f;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "Run the slow check.");
	tu_asst(&l, 2, 1, "msg_1", "Starting the slow check.");
	tu_tool_use(&l, 3, 2, "msg_1", "toolu_slow");
	tu_last_prompt(&l, 3, 0);
	tu_load_log(&f, &l);
	assert_int_equal(NUM(f.c->leaf), 3);
	assert_string_equal(tu_chain(&f), "1 2 3");
	assert_int_equal(NUM(f.c->attach), 3);
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_unanswered_call_of_a_parallel_batch(void **state)
{
	struct tu_log l;
	struct tu_fx f;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "Check both.");
	tu_tool_use(&l, 2, 1, "msg_1", "toolu_a");
	tu_tool_use(&l, 3, 2, "msg_1", "toolu_b");
	tu_result(&l, 4, 2, "toolu_a");	/* b never answered */
	tu_load_log(&f, &l);
	assert_int_equal(NUM(f.c->leaf), 4);
	assert_string_equal(tu_chain(&f), "1 2 3 4");
	assert_int_equal(NUM(f.c->attach), 3);
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_answered_calls_attach_to_the_last_record(void **state)
{
	struct tu_log l;
	struct tu_fx f;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "List files.");
	tu_tool_use(&l, 2, 1, "msg_1", "toolu_a");
	tu_result(&l, 3, 2, "toolu_a");
	tu_attach(&l, 4, 3, "prompt_snapshot");
	tu_asst(&l, 5, 4, "msg_2", "Here they are.");
	tu_load_log(&f, &l);
	assert_int_equal(NUM(f.c->attach), 5);
	tu_unload(&f);
	tu_log_free(&l);
}

/* ---- the chain ---- */

static void test_parallel_results_follow_their_rows_in_file_order(void **state)
{
	struct tu_log l;
	struct tu_fx f;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "Check both files.");
	tu_asst(&l, 2, 1, "msg_1", "Reading both.");
	tu_tool_use(&l, 3, 2, "msg_1", "toolu_a");
	tu_tool_use(&l, 4, 3, "msg_1", "toolu_b");
	tu_result(&l, 5, 4, "toolu_b");
	tu_result(&l, 6, 3, "toolu_a");
	tu_asst(&l, 7, 6, "msg_2", "Both read.");
	tu_load_log(&f, &l);
	assert_string_equal(tu_chain(&f), "1 2 3 4 5 6 7");
	/* the walk went 7 6 3 2 1: 4 and 5 were recovered */
	assert_int_equal(count_notes(f.c, RS_N_RECOVERED), 2);
	assert_int_equal(NUM(f.c->attach), 7);
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_result_found_by_tool_use_id(void **state)
{
	struct tu_log l;
	struct tu_fx f;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "Check.");
	tu_tool_use(&l, 2, 1, "msg_1", "toolu_a");
	tu_tool_use(&l, 3, 2, "msg_1", "toolu_b");
	tu_result(&l, 4, 3, "toolu_b");
	tu_attach(&l, 5, 4, "date");
	tu_result(&l, 6, 5, "toolu_a");	/* parent is not a row of msg_1 */
	tu_asst(&l, 7, 6, "msg_2", "Done.");
	tu_load_log(&f, &l);
	assert_string_equal(tu_chain(&f), "1 2 3 4 6 5 7");
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_progress_rows_are_bridged_in_the_chain(void **state)
{
	struct tu_log l;
	struct tu_fx f;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "a");
	tu_progress(&l, 50, 1);
	tu_progress(&l, 51, 50);
	tu_asst(&l, 2, 51, "msg_1", "b");
	tu_load_log(&f, &l);
	assert_string_equal(tu_chain(&f), "1 2");
	assert_int_equal(f.c->nnotes, 0);
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_dropped_rows_are_bridged_in_the_chain(void **state)
{
	struct tu_log l;
	struct tu_fx f;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "a");
	tu_row(&l, "assistant", 2, 1, "\"message\":{\"id\":\"m\",\"role\":\"assistant\","
	       "\"content\":\" \"}");
	tu_row(&l, "assistant", 3, 2, "\"message\":{\"id\":\"m\",\"role\":\"assistant\","
	       "\"content\":[{\"text\":\"untyped\"}]}");
	tu_asst(&l, 4, 3, "msg_2", "kept");
	tu_load_log(&f, &l);
	assert_string_equal(tu_chain(&f), "1 4");
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_dangling_parent_takes_substitute_within_5s(void **state)
{
	struct tu_log l;
	struct tu_fx f;
	const struct rs_note *nt;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "a");
	tu_asst(&l, 2, 1, "msg_1", "b");		/* T0 + 1 s */
	tu_at(&l, TU_T0 + 1000 + RS_SUBSTITUTE_MS);
	tu_user(&l, 3, 77, "parent lost");		/* exactly 5 s later */
	tu_asst(&l, 4, 3, "msg_2", "d");
	tu_load_log(&f, &l);
	assert_string_equal(tu_chain(&f), "1 2 3 4");
	nt = find_note(f.c, RS_N_SUBSTITUTE);
	assert_non_null(nt);
	assert_int_equal(NUM(nt->id), 3);
	assert_int_equal(NUM(nt->aux), 77);
	assert_int_equal(NUM(nt->aux2), 2);
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_dangling_parent_without_substitute_starts_chain(void **state)
{
	struct tu_log l;
	struct tu_fx f;
	const struct rs_note *nt;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "a");
	tu_asst(&l, 2, 1, "msg_1", "b");		/* T0 + 1 s */
	tu_at(&l, TU_T0 + 1001 + RS_SUBSTITUTE_MS);
	tu_user(&l, 3, 77, "parent lost");		/* 5.001 s later */
	tu_asst(&l, 4, 3, "msg_2", "d");
	tu_load_log(&f, &l);
	assert_string_equal(tu_chain(&f), "3 4");
	assert_null(find_note(f.c, RS_N_SUBSTITUTE));
	nt = find_note(f.c, RS_N_CHAIN_START);
	assert_non_null(nt);
	assert_int_equal(NUM(nt->id), 3);
	assert_int_equal(NUM(nt->aux), 77);
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_substitute_is_on_the_same_side(void **state)
{
	struct tu_log l;
	struct tu_fx f;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "a");
	l.sidechain = 1;
	tu_user(&l, 2, 0, "a sidechain row, newer");
	l.sidechain = 0;
	tu_user(&l, 3, 77, "parent lost");
	tu_load_log(&f, &l);
	assert_string_equal(tu_chain(&f), "1 3");
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_cycle_walk_stops_at_first_repeat(void **state)
{
	struct tu_log l;
	struct tu_fx f;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 2, "a");		/* 1 -> 2 -> 1 */
	tu_asst(&l, 2, 1, "msg_1", "b");
	tu_user(&l, 3, 2, "c");
	tu_load_log(&f, &l);
	/* the loader walks 3, 2, 1 and stops when 1 names 2 again */
	assert_int_equal(NUM(f.c->leaf), 3);
	assert_string_equal(tu_chain(&f), "1 2 3");
	assert_int_equal(count_notes(f.c, RS_N_CYCLE), 1);
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_self_parent_walk_stops(void **state)
{
	struct tu_log l;
	struct tu_fx f;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 1, "me");
	tu_asst(&l, 2, 1, "msg_1", "b");
	tu_load_log(&f, &l);
	assert_string_equal(tu_chain(&f), "1 2");
	assert_int_equal(count_notes(f.c, RS_N_CYCLE), 1);
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_duplicate_uuid_walks_with_last_value(void **state)
{
	struct tu_log l;
	struct tu_fx f;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "a");
	tu_asst(&l, 2, 1, "msg_1", "b");
	tu_user(&l, 3, 2, "c, first copy");
	tu_asst(&l, 4, 3, "msg_2", "d");
	tu_user(&l, 3, 1, "c, second copy under 1");
	tu_last_prompt(&l, 4, 0);
	tu_load_log(&f, &l);
	assert_int_equal(NUM(f.c->leaf), 4);
	assert_string_equal(tu_chain(&f), "1 3 4");
	tu_unload(&f);
	tu_log_free(&l);
}

/* ---- compaction ---- */

static void test_one_compaction_chain_starts_at_boundary(void **state)
{
	struct tu_log l;
	struct tu_fx f;

	(void)state;
	four_rows(&l);
	tu_boundary(&l, 5, 4, 0, NULL, 0);
	tu_summary(&l, 6, 5);
	tu_user(&l, 7, 6, "after the compaction");
	tu_asst(&l, 8, 7, "msg_3", "ok");
	tu_load_log(&f, &l);
	assert_int_equal(NUM(f.c->boundary), 5);
	assert_string_equal(tu_chain(&f), "5 6 7 8");
	assert_int_equal(f.c->window, 0);
	assert_false(f.c->relinked);
	assert_int_equal(f.c->deleted, 0);
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_three_compactions_chain_starts_at_last(void **state)
{
	struct tu_log l;
	struct tu_fx f;
	int k, u = 4;

	(void)state;
	four_rows(&l);
	for (k = 0; k < 3; k++) {
		char mid[16];

		snprintf(mid, sizeof(mid), "m%d", k);
		tu_boundary(&l, u + 1, u, 0, NULL, 0);
		tu_summary(&l, u + 2, u + 1);
		tu_user(&l, u + 3, u + 2, "more");
		tu_asst(&l, u + 4, u + 3, mid, "ok");
		tu_last_prompt(&l, u + 4, 0);
		u += 4;
	}
	tu_load_log(&f, &l);
	assert_int_equal(NUM(f.c->boundary), 13);
	assert_string_equal(tu_chain(&f), "13 14 15 16");
	assert_int_equal(f.c->window, 0);
	assert_int_equal(NUM(f.c->leaf), 16);
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_preserved_segment_is_relinked(void **state)
{
	static const int pres[] = { 5, 6 };
	struct tu_log l;
	struct tu_fx f;

	(void)state;
	four_rows(&l);
	tu_user(&l, 5, 4, "keep this question");
	tu_asst(&l, 6, 5, "msg_3", "and this answer");
	tu_boundary(&l, 7, 6, 8, pres, 2);
	tu_summary(&l, 8, 7);
	tu_user(&l, 9, 8, "after the compaction");
	tu_asst(&l, 10, 9, "msg_4", "ok");
	tu_load_log(&f, &l);
	assert_true(f.c->relinked);
	assert_int_equal(f.c->deleted, 4);
	assert_int_equal(NUM(f.c->boundary), 7);
	assert_string_equal(tu_chain(&f), "7 8 5 6 9 10");
	assert_int_equal(f.c->window, 0);
	assert_int_equal(NUM(f.c->leaf), 10);
	/* the branch view does not relink: one branch over the whole log */
	assert_int_equal(br_count(f.br), 1);
	assert_string_equal(tu_path(&f, 0), "1 2 3 4 5 6 7 8 9 10");
	tu_unload(&f);
	tu_log_free(&l);
}

/* A boundary preserving pres (npres) after anchor, where something is
 * missing: no relinking, nothing deleted, the note, the chain from the
 * boundary. */
static void check_preserved_missing(const int *pres, int npres, int anchor)
{
	struct tu_log l;
	struct tu_fx f;

	four_rows(&l);
	tu_user(&l, 5, 4, "keep");
	tu_boundary(&l, 7, 5, anchor, pres, npres);
	tu_summary(&l, 8, 7);
	tu_user(&l, 9, 8, "after");
	tu_load_log(&f, &l);
	assert_false(f.c->relinked);
	assert_int_equal(f.c->deleted, 0);
	assert_non_null(find_note(f.c, RS_N_PRESERVED_MISSING));
	assert_string_equal(tu_chain(&f), "7 8 9");
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_preserved_segment_with_missing_row_is_ignored(void **state)
{
	static const int pres[] = { 5, 66 };

	(void)state;
	check_preserved_missing(pres, 2, 8);
}

/* The same when the anchor is what is missing, whether or not a line
 * names its uuid (here none does; a row's parentUuid would intern it):
 * the note does not hang on what else the log mentions. */
static void test_preserved_segment_with_unnamed_anchor_is_ignored(void **state)
{
	static const int pres[] = { 5 };

	(void)state;
	check_preserved_missing(pres, 1, 77);	/* 77: no line names it */
}

static void test_only_the_last_boundary_preserves(void **state)
{
	static const int pres1[] = { 2 }, pres2[] = { 10 };
	struct tu_log l;
	struct tu_fx f;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "a");
	tu_asst(&l, 2, 1, "msg_1", "b");
	tu_boundary(&l, 3, 2, 4, pres1, 1);
	tu_summary(&l, 4, 3);
	tu_user(&l, 9, 4, "c");
	tu_asst(&l, 10, 9, "msg_2", "d");
	tu_boundary(&l, 11, 10, 12, pres2, 1);
	tu_summary(&l, 12, 11);
	tu_user(&l, 13, 12, "e");
	tu_load_log(&f, &l);
	assert_true(f.c->relinked);
	assert_string_equal(tu_chain(&f), "11 12 10 13");
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_preserved_list_naming_its_anchor_does_not_hang(void **state)
{
	static const int pres[] = { 8 };
	struct tu_log l;
	struct tu_fx f;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "a");
	tu_asst(&l, 2, 1, "msg_1", "b");
	tu_boundary(&l, 7, 2, 8, pres, 1);	/* the anchor preserves itself */
	tu_summary(&l, 8, 7);			/* the last row */
	tu_load_log(&f, &l);
	assert_int_equal(NUM(f.c->leaf), 8);
	assert_string_equal(tu_chain(&f), "8");
	assert_int_equal(count_notes(f.c, RS_N_CYCLE), 1);
	tu_unload(&f);
	tu_log_free(&l);
}

/* ---- odd logs ---- */

static void test_metadata_only_log_has_no_chain(void **state)
{
	struct tu_fx f;

	(void)state;
	tu_load(&f, "{\"type\":\"custom-title\",\"customTitle\":\"x\",\"sessionId\":\"s\"}\n"
		    "{\"type\":\"last-prompt\",\"leafUuid\":\"00000001-0000-4000-8000-000000000001\"}\n");
	assert_int_equal(f.c->leaf, 0);
	assert_int_equal(f.c->attach, 0);
	assert_int_equal(f.c->n, 0);
	assert_null(f.c->ids);
	tu_unload(&f);
}

static void test_attachment_only_log_falls_back_to_terminal_scan(void **state)
{
	struct tu_log l;
	struct tu_fx f;

	(void)state;
	tu_log_init(&l);
	tu_attach(&l, 1, 0, "date");
	tu_attach(&l, 2, 1, "prompt_snapshot");
	tu_load_log(&f, &l);
	assert_int_equal(f.c->leaf, 0);
	assert_int_equal(f.c->n, 0);
	tu_unload(&f);
	tu_log_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_checkpoint_leaf_is_last_row),
		cmocka_unit_test(test_checkpoint_names_the_leaf),
		cmocka_unit_test(test_checkpoint_kept_over_later_rows_on_another_branch),
		cmocka_unit_test(test_non_explicit_checkpoint_gives_way_to_descendant),
		cmocka_unit_test(test_explicit_checkpoint_beats_descendant_last_row),
		cmocka_unit_test(test_explicit_checkpoint_beats_later_rows_on_another_branch),
		cmocka_unit_test(test_explicit_null_leaf_clears_the_conversation),
		cmocka_unit_test(test_checkpoint_after_clear_restores_a_leaf),
		cmocka_unit_test(test_null_leaf_without_explicit_does_not_clear),
		cmocka_unit_test(test_boundary_resets_checkpoint_and_clear),
		cmocka_unit_test(test_sidechain_rows_never_lead),
		cmocka_unit_test(test_old_log_prefers_newest_descendant_of_last_row),
		cmocka_unit_test(test_attach_point_is_trailing_prompt_snapshot),
		cmocka_unit_test(test_trailing_attachments_sorted_by_time),
		cmocka_unit_test(test_unanswered_tool_call_attaches_to_its_row),
		cmocka_unit_test(test_unanswered_call_of_a_parallel_batch),
		cmocka_unit_test(test_answered_calls_attach_to_the_last_record),
		cmocka_unit_test(test_parallel_results_follow_their_rows_in_file_order),
		cmocka_unit_test(test_result_found_by_tool_use_id),
		cmocka_unit_test(test_progress_rows_are_bridged_in_the_chain),
		cmocka_unit_test(test_dropped_rows_are_bridged_in_the_chain),
		cmocka_unit_test(test_dangling_parent_takes_substitute_within_5s),
		cmocka_unit_test(test_dangling_parent_without_substitute_starts_chain),
		cmocka_unit_test(test_substitute_is_on_the_same_side),
		cmocka_unit_test(test_cycle_walk_stops_at_first_repeat),
		cmocka_unit_test(test_self_parent_walk_stops),
		cmocka_unit_test(test_duplicate_uuid_walks_with_last_value),
		cmocka_unit_test(test_one_compaction_chain_starts_at_boundary),
		cmocka_unit_test(test_three_compactions_chain_starts_at_last),
		cmocka_unit_test(test_preserved_segment_is_relinked),
		cmocka_unit_test(test_preserved_segment_with_missing_row_is_ignored),
		cmocka_unit_test(test_preserved_segment_with_unnamed_anchor_is_ignored),
		cmocka_unit_test(test_only_the_last_boundary_preserves),
		cmocka_unit_test(test_preserved_list_naming_its_anchor_does_not_hang),
		cmocka_unit_test(test_metadata_only_log_has_no_chain),
		cmocka_unit_test(test_attachment_only_log_falls_back_to_terminal_scan),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

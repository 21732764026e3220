/*
 * graph: admission (duplicates, bridging, repair), links, cycles, blocks.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "tu_fixture.h"
#include "graph.h"

#define ID(n) tu_id(&f, (n))

/* The children of id as row numbers, in order. */
static const char *children(struct tu_fx *f, uint32_t id)
{
	uint32_t v[64], n = 0, c;

	for (c = gr_first_child(f->g, id); c && n < 64; c = gr_next_sibling(f->g, c))
		v[n++] = c;
	return tu_seq(f, v, n);
}

static const char *nodes(struct tu_fx *f)
{
	uint32_t n;
	const uint32_t *v = gr_nodes(f->g, &n);

	return tu_seq(f, v, n);
}

/* The one error of code in the graph (fails if not exactly one). */
static const struct gr_err *only_err(const struct graph *g, uint8_t code)
{
	const struct gr_err *hit = NULL;
	uint32_t i;

	for (i = 0; i < gr_nerrs(g); i++)
		if (gr_err(g, i)->code == code) {
			assert_null(hit);
			hit = gr_err(g, i);
		}
	assert_non_null(hit);
	return hit;
}

static void test_nodes_in_file_order_with_parents(void **state)
{
	struct tu_log l;
	struct tu_fx f;

	(void)state;
	tu_log_init(&l);
	tu_line(&l, "{\"type\":\"queue-operation\",\"operation\":\"enqueue\"}");
	tu_user(&l, 1, 0, "hi");
	tu_attach(&l, 2, 1, "date");
	tu_line(&l, "{\"type\":\"file-history-snapshot\",\"messageId\":\"x\",\"snapshot\":{}}");
	tu_asst(&l, 3, 2, "m1", "hello");
	tu_system(&l, 4, 3, "turn_duration");
	tu_last_prompt(&l, 4, 0);
	tu_row(&l, "some-future-type", 5, 4, "");
	tu_load_log(&f, &l);

	assert_string_equal(nodes(&f), "1 2 3 4");
	assert_int_equal(gr_parent(f.g, ID(1)), 0);
	assert_int_equal(gr_parent(f.g, ID(2)), ID(1));
	assert_int_equal(gr_parent(f.g, ID(3)), ID(2));
	assert_int_equal(gr_parent(f.g, ID(4)), ID(3));
	assert_false(gr_is_node(f.g, ID(5)));
	assert_int_equal(gr_rec(f.g, ID(5)), IDX_NONE);
	assert_true(gr_is_message(f.g, ID(1)));
	assert_false(gr_is_message(f.g, ID(2)));
	assert_true(gr_is_message(f.g, ID(3)));
	assert_false(gr_is_message(f.g, ID(4)));
	assert_int_equal(gr_rec(f.g, ID(3)), 4);
	assert_int_equal(gr_pos(f.g, ID(3)), 4);
	assert_int_equal(gr_node_rec(f.g, ID(3))->line, 5);
	assert_string_equal(children(&f, ID(1)), "2");
	assert_int_equal(gr_dpos(f.g, ID(1)), 1);
	assert_int_equal(gr_dpos(f.g, ID(4)), 4);
	assert_int_equal(gr_nerrs(f.g), 0);
	assert_ptr_equal(gr_idx(f.g), f.ix);
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_children_in_file_order(void **state)
{
	struct tu_log l;
	struct tu_fx f;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "a");
	tu_asst(&l, 4, 1, "m1", "first answer");
	tu_asst(&l, 2, 1, "m2", "second answer");
	tu_asst(&l, 3, 1, "m3", "third answer");
	tu_load_log(&f, &l);
	assert_string_equal(children(&f, ID(1)), "4 2 3");
	assert_int_equal(gr_first_child(f.g, ID(3)), 0);
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_progress_rows_are_bridged(void **state)
{
	struct tu_log l;
	struct tu_fx f;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "run the hook");
	tu_progress(&l, 50, 1);
	tu_progress(&l, 51, 50);
	tu_asst(&l, 2, 51, "m1", "done");
	tu_attach(&l, 3, 50, "hook_success");
	tu_load_log(&f, &l);

	assert_string_equal(nodes(&f), "1 2 3");
	assert_false(gr_is_node(f.g, ID(50)));
	assert_false(gr_is_node(f.g, ID(51)));
	assert_int_equal(gr_parent(f.g, ID(2)), ID(1));
	assert_int_equal(gr_parent(f.g, ID(3)), ID(1));
	assert_int_equal(gr_dangling(f.g, ID(2)), 0);
	assert_string_equal(children(&f, ID(1)), "2 3");
	assert_int_equal(gr_nerrs(f.g), 0);
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_progress_with_missing_parent_leaves_child_dangling(void **state)
{
	struct tu_log l;
	struct tu_fx f;
	const struct gr_err *e;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "a");
	tu_progress(&l, 50, 99);
	tu_asst(&l, 2, 50, "m1", "b");
	tu_load_log(&f, &l);
	assert_int_equal(gr_parent(f.g, ID(2)), 0);
	assert_int_equal(gr_dangling(f.g, ID(2)), ID(99));
	e = only_err(f.g, GR_E_DANGLING);
	assert_int_equal(e->line, 3);
	assert_int_equal(e->id, ID(2));
	assert_int_equal(e->aux, ID(99));
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_cycle_is_cut_and_reported(void **state)
{
	struct tu_log l;
	struct tu_fx f;
	const struct gr_err *e;
	uint32_t n, k;
	const uint32_t *v;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 2, "a");		/* line 1: names 2 as parent */
	tu_asst(&l, 2, 1, "m1", "b");	/* line 2: names 1: a cycle */
	tu_user(&l, 3, 2, "c");
	tu_load_log(&f, &l);

	e = only_err(f.g, GR_E_CYCLE);
	assert_int_equal(e->line, 2);
	assert_int_equal(e->id, ID(2));
	assert_int_equal(e->aux, ID(1));
	assert_int_equal(gr_parent(f.g, ID(2)), 0);
	assert_int_equal(gr_vparent(f.g, ID(2)), 0);
	assert_int_equal(gr_parent(f.g, ID(1)), ID(2));
	assert_int_equal(gr_parent(f.g, ID(3)), ID(2));
	/* every upward walk ends at a root now */
	v = gr_nodes(f.g, &n);
	for (k = 0; k < n; k++) {
		uint32_t id = v[k], steps = 0;

		while (id && steps++ <= n)
			id = gr_vparent(f.g, id);
		assert_int_equal(id, 0);
	}
	/* display positions follow the cut graph */
	assert_int_equal(gr_dpos(f.g, ID(2)), 1);
	assert_int_equal(gr_dpos(f.g, ID(1)), 2);
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_self_parent_is_a_root(void **state)
{
	struct tu_log l;
	struct tu_fx f;
	const struct gr_err *e;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 9, 0, "before");
	tu_user(&l, 1, 1, "me");
	tu_asst(&l, 2, 1, "m1", "child");
	tu_load_log(&f, &l);
	e = only_err(f.g, GR_E_SELF_PARENT);
	assert_int_equal(e->line, 2);
	assert_int_equal(e->id, ID(1));
	assert_int_equal(gr_parent(f.g, ID(1)), 0);
	assert_int_equal(gr_parent(f.g, ID(2)), ID(1));
	assert_string_equal(children(&f, ID(1)), "2");
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_dangling_parent_reported_with_line(void **state)
{
	struct tu_log l;
	struct tu_fx f;
	const struct gr_err *e;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "a");
	tu_asst(&l, 2, 1, "m1", "b");
	tu_user(&l, 3, 77, "lost parent");
	tu_load_log(&f, &l);
	assert_int_equal(gr_parent(f.g, ID(3)), 0);
	assert_int_equal(gr_vparent(f.g, ID(3)), 0);
	assert_int_equal(gr_dangling(f.g, ID(3)), ID(77));
	assert_false(gr_is_node(f.g, ID(77)));
	e = only_err(f.g, GR_E_DANGLING);
	assert_int_equal(e->line, 3);
	assert_int_equal(e->id, ID(3));
	assert_int_equal(e->aux, ID(77));
	assert_int_equal(gr_dpos(f.g, ID(3)), 1);
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_duplicate_uuid_last_value_first_position(void **state)
{
	struct tu_log l;
	struct tu_fx f;
	const struct gr_err *e;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "a");			/* line 1, rec 0 */
	tu_asst(&l, 2, 1, "m1", "first copy");	/* line 2, rec 1 */
	tu_user(&l, 3, 1, "c");			/* line 3, rec 2 */
	tu_line(&l, "{\"type\":\"mode\",\"mode\":\"x\"}");	/* line 4, rec 3 */
	tu_asst(&l, 2, 3, "m2", "second copy");	/* line 5, rec 4 */
	tu_load_log(&f, &l);

	assert_string_equal(nodes(&f), "1 2 3");
	assert_int_equal(gr_pos(f.g, ID(2)), 1);
	assert_int_equal(gr_rec(f.g, ID(2)), 4);
	assert_int_equal(gr_node_rec(f.g, ID(2))->line, 5);
	assert_int_equal(gr_parent(f.g, ID(2)), ID(3));
	assert_string_equal(children(&f, ID(1)), "3");
	assert_string_equal(children(&f, ID(3)), "2");
	e = only_err(f.g, GR_E_DUPLICATE);
	assert_int_equal(e->line, 5);
	assert_int_equal(e->id, ID(2));
	assert_int_equal(e->aux, 2);
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_rows_dropped_by_repair_are_bridged(void **state)
{
	static const uint32_t want[][2] = {
		{ 2, IDX_D_NO_MESSAGE }, { 3, IDX_D_BLANK }, { 4, IDX_D_NO_BLOCKS },
		{ 5, IDX_D_NO_MESSAGE }, { 6, IDX_D_NO_CONTENT }, { 7, IDX_D_NO_BLOCKS },
	};
	struct tu_log l;
	struct tu_fx f;
	uint32_t i, k = 0;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "a");
	tu_row(&l, "assistant", 2, 1, "\"message\":\"not an object\"");
	tu_row(&l, "assistant", 3, 2, "\"message\":{\"id\":\"m\",\"role\":\"assistant\","
	       "\"content\":\"  \\n\\t \"}");
	tu_row(&l, "assistant", 4, 3, "\"message\":{\"id\":\"m\",\"role\":\"assistant\","
	       "\"content\":[{\"text\":\"no type\"},{\"type\":7}]}");
	tu_row(&l, "user", 5, 4, "\"toolUseResult\":{}");
	tu_row(&l, "user", 6, 5, "\"message\":{\"role\":\"user\",\"content\":42}");
	tu_row(&l, "user", 7, 6, "\"message\":{\"role\":\"user\",\"content\":[]}");
	tu_user(&l, 8, 7, "survivor");
	tu_row(&l, "assistant", 9, 8, "\"message\":{\"id\":\"n\",\"role\":\"assistant\","
	       "\"content\":\"plain string reply\"}");
	tu_row(&l, "user", 10, 9, "\"message\":{\"role\":\"user\",\"content\":\"   \"}");
	tu_row(&l, "assistant", 11, 10, "\"message\":{\"id\":\"o\",\"role\":\"assistant\","
	       "\"content\":[{\"text\":\"untyped\"},{\"type\":\"text\",\"text\":\"typed\"}]}");
	tu_load_log(&f, &l);

	assert_string_equal(nodes(&f), "1 8 9 10 11");
	assert_int_equal(gr_parent(f.g, ID(8)), ID(1));
	assert_int_equal(gr_dangling(f.g, ID(8)), 0);
	assert_int_equal(gr_nerrs(f.g), 6);
	for (i = 0; i < gr_nerrs(f.g); i++) {
		const struct gr_err *e = gr_err(f.g, i);

		assert_int_equal(e->code, GR_E_DROPPED);
		assert_int_equal(e->line, want[k][0]);
		assert_int_equal(e->aux, want[k][1]);
		assert_int_equal(e->id, ID((int)want[k][0]));
		k++;
	}
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_dropped_row_does_not_replace_a_kept_one(void **state)
{
	struct tu_log l;
	struct tu_fx f;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "a");
	tu_asst(&l, 2, 1, "m1", "kept");
	tu_row(&l, "assistant", 2, 1, "\"message\":null");
	tu_user(&l, 3, 2, "c");
	tu_load_log(&f, &l);
	assert_int_equal(gr_node_rec(f.g, ID(2))->line, 2);
	assert_int_equal(gr_parent(f.g, ID(3)), ID(2));
	assert_int_equal(only_err(f.g, GR_E_DROPPED)->line, 3);
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_parallel_tool_calls_form_one_block(void **state)
{
	struct tu_log l;
	struct tu_fx f;
	uint32_t b, m, v[8], n = 0;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "run both");
	tu_asst(&l, 2, 1, "msg_1", "Running two commands.");
	tu_tool_use(&l, 3, 2, "msg_1", "toolu_a");
	tu_tool_use(&l, 4, 3, "msg_1", "toolu_b");
	tu_result(&l, 5, 4, "toolu_b");		/* finished first */
	tu_result(&l, 6, 3, "toolu_a");
	tu_asst(&l, 7, 6, "msg_2", "Both done.");
	tu_load_log(&f, &l);

	b = gr_block(f.g, ID(2));
	assert_true(b != 0);
	assert_int_equal(gr_block(f.g, ID(3)), b);
	assert_int_equal(gr_block(f.g, ID(4)), b);
	assert_int_equal(gr_block(f.g, ID(5)), b);
	assert_int_equal(gr_block(f.g, ID(6)), b);
	assert_int_equal(gr_block(f.g, ID(1)), 0);
	assert_true(gr_block(f.g, ID(7)) != b && gr_block(f.g, ID(7)) != 0);
	assert_int_equal(gr_block_head(f.g, b), ID(2));
	for (m = gr_block_first(f.g, b); m && n < 8; m = gr_block_next(f.g, m))
		v[n++] = m;
	assert_string_equal(tu_seq(&f, v, n), "2 3 4 5 6");
	/* display positions: the block reads as one path */
	assert_int_equal(gr_dpos(f.g, ID(1)), 1);
	assert_int_equal(gr_dpos(f.g, ID(2)), 2);
	assert_int_equal(gr_dpos(f.g, ID(4)), 4);
	assert_int_equal(gr_dpos(f.g, ID(5)), 5);
	assert_int_equal(gr_dpos(f.g, ID(6)), 6);
	assert_int_equal(gr_dpos(f.g, ID(7)), 7);
	/* raw links are left as written */
	assert_int_equal(gr_parent(f.g, ID(6)), ID(3));
	assert_string_equal(children(&f, ID(3)), "4 6");
	tu_unload(&f);
	tu_log_free(&l);
}

/* Block 0 is "none": asking for its members, or for the next member after
 * a node in no block, is 0, also in a log without any response (no blocks
 * at all; found by the fuzz target). */
static void test_node_outside_blocks_has_no_next_member(void **state)
{
	struct tu_log l;
	struct tu_fx f;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "first");
	tu_user(&l, 2, 1, "second");
	tu_load_log(&f, &l);
	assert_int_equal(gr_block(f.g, ID(1)), 0);
	assert_int_equal(gr_block_next(f.g, ID(1)), 0);
	assert_int_equal(gr_block_head(f.g, 0), 0);
	assert_int_equal(gr_block_first(f.g, 0), 0);
	tu_unload(&f);

	tu_asst(&l, 3, 2, "msg_1", "An answer.");
	tu_user(&l, 4, 3, "third");
	tu_load_log(&f, &l);
	assert_true(gr_block(f.g, ID(3)) != 0);
	assert_int_equal(gr_block_next(f.g, ID(2)), 0);
	assert_int_equal(gr_block_next(f.g, ID(4)), 0);
	assert_int_equal(gr_block_first(f.g, 0), 0);
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_boundary_links_to_logical_parent_in_view(void **state)
{
	struct tu_log l;
	struct tu_fx f;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "a");
	tu_asst(&l, 2, 1, "m1", "b");
	tu_boundary(&l, 3, 2, 0, NULL, 0);
	tu_summary(&l, 4, 3);
	tu_user(&l, 5, 4, "after");
	tu_load_log(&f, &l);

	assert_true(gr_is_boundary(f.g, ID(3)));
	assert_false(gr_is_boundary(f.g, ID(4)));
	assert_int_equal(gr_parent(f.g, ID(3)), 0);
	assert_int_equal(gr_vparent(f.g, ID(3)), ID(2));
	assert_int_equal(gr_dangling(f.g, ID(3)), 0);
	assert_string_equal(children(&f, ID(2)), "3");
	assert_int_equal(gr_dpos(f.g, ID(3)), 3);
	assert_int_equal(gr_dpos(f.g, ID(5)), 5);
	assert_int_equal(gr_nerrs(f.g), 0);
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_boundary_with_missing_logical_parent(void **state)
{
	struct tu_log l;
	struct tu_fx f;
	const struct gr_err *e;

	(void)state;
	tu_log_init(&l);
	tu_boundary(&l, 3, 88, 0, NULL, 0);
	tu_summary(&l, 4, 3);
	tu_load_log(&f, &l);
	assert_int_equal(gr_vparent(f.g, ID(3)), 0);
	e = only_err(f.g, GR_E_UNLINKED);
	assert_int_equal(e->line, 1);
	assert_int_equal(e->aux, ID(88));
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_sidechain_rows_are_off_the_main_side(void **state)
{
	struct tu_log l;
	struct tu_fx f;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "a");
	l.sidechain = 1;
	tu_user(&l, 2, 0, "subagent prompt");
	l.sidechain = 0;
	tu_asst(&l, 3, 1, "m1", "b");
	tu_load_log(&f, &l);
	assert_true(gr_main_side(f.g, ID(1)));
	assert_false(gr_main_side(f.g, ID(2)));
	assert_true(gr_main_side(f.g, ID(3)));
	tu_unload(&f);
	tu_log_free(&l);

	/* a subagent's own log: every row is a sidechain row, all on its side */
	tu_log_init(&l);
	l.sidechain = 1;
	tu_user(&l, 1, 0, "task");
	tu_asst(&l, 2, 1, "m1", "working");
	tu_load_log(&f, &l);
	assert_true(gr_main_side(f.g, ID(1)));
	assert_true(gr_main_side(f.g, ID(2)));
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_sent_as_uuid_stores_under_that_uuid(void **state)
{
	struct tu_log l;
	struct tu_fx f;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "a");
	tu_row(&l, "user", 2, 1, "\"message\":{\"role\":\"user\",\"content\":\"b\"},"
	       "\"sentAsUuid\":\"00000030-0000-4000-8000-000000000030\"");
	tu_asst(&l, 3, 30, "m1", "c");
	tu_load_log(&f, &l);
	assert_true(gr_is_node(f.g, ID(30)));
	assert_false(gr_is_node(f.g, ID(2)));
	assert_int_equal(gr_parent(f.g, ID(30)), ID(1));
	assert_int_equal(gr_parent(f.g, ID(3)), ID(30));
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_errors_are_in_line_order(void **state)
{
	struct tu_log l;
	struct tu_fx f;
	uint32_t i;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "a");
	tu_user(&l, 2, 66, "dangling");
	tu_user(&l, 1, 0, "duplicate");
	tu_row(&l, "assistant", 3, 1, "\"message\":7");
	tu_user(&l, 4, 4, "self");
	tu_load_log(&f, &l);
	assert_int_equal(gr_nerrs(f.g), 4);
	for (i = 0; i < 4; i++)
		assert_int_equal(gr_err(f.g, i)->line, i + 2);
	assert_int_equal(gr_err(f.g, 0)->code, GR_E_DANGLING);
	assert_int_equal(gr_err(f.g, 1)->code, GR_E_DUPLICATE);
	assert_int_equal(gr_err(f.g, 2)->code, GR_E_DROPPED);
	assert_int_equal(gr_err(f.g, 3)->code, GR_E_SELF_PARENT);
	tu_unload(&f);
	tu_log_free(&l);
}

static void test_empty_log_has_no_nodes(void **state)
{
	struct tu_fx f;
	uint32_t n = 99;

	(void)state;
	tu_load(&f, "{\"type\":\"custom-title\",\"customTitle\":\"x\"}\n");
	gr_nodes(f.g, &n);
	assert_int_equal(n, 0);
	assert_int_equal(gr_nerrs(f.g), 0);
	tu_unload(&f);
}

/* A log whose rows name no parent (null or absent) reads in file order. */
static void test_unlinked_rows_read_in_file_order(void **state)
{
	struct tu_log l;
	struct tu_fx f;
	const struct gr_err *e;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "first");
	tu_line(&l, "{\"type\":\"assistant\",\"uuid\":\"00000002-0000-4000-8000-000000000002\","
		"\"message\":{\"id\":\"m1\",\"role\":\"assistant\",\"content\":"
		"[{\"type\":\"text\",\"text\":\"second\"}]}}");
	tu_user(&l, 3, 0, "third");
	tu_asst(&l, 4, 0, "m2", "fourth");
	tu_load_log(&f, &l);
	assert_int_equal(br_count(f.br), 1);
	assert_string_equal(tu_path(&f, 0), "1 2 3 4");
	assert_string_equal(tu_chain(&f), "1 2 3 4");
	assert_int_equal(gr_parent(f.g, ID(3)), ID(2));
	e = only_err(f.g, GR_E_UNCHAINED);
	assert_int_equal(e->line, 1);
	assert_int_equal(e->aux, 4);
	tu_unload(&f);
	/* One link anywhere: the log is linked, nothing is chained. */
	sb_reset(&l.sb);
	tu_user(&l, 1, 0, "a");
	tu_user(&l, 2, 0, "b");
	tu_asst(&l, 3, 2, "m1", "c");
	tu_load_log(&f, &l);
	assert_int_equal(br_count(f.br), 2);
	assert_int_equal(gr_parent(f.g, ID(2)), 0);
	assert_int_equal(gr_nerrs(f.g), 0);
	tu_unload(&f);
	/* A single row is no unlinked log. */
	sb_reset(&l.sb);
	tu_user(&l, 1, 0, "a");
	tu_load_log(&f, &l);
	assert_int_equal(gr_nerrs(f.g), 0);
	tu_unload(&f);
	tu_log_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nodes_in_file_order_with_parents),
		cmocka_unit_test(test_children_in_file_order),
		cmocka_unit_test(test_progress_rows_are_bridged),
		cmocka_unit_test(test_progress_with_missing_parent_leaves_child_dangling),
		cmocka_unit_test(test_cycle_is_cut_and_reported),
		cmocka_unit_test(test_self_parent_is_a_root),
		cmocka_unit_test(test_dangling_parent_reported_with_line),
		cmocka_unit_test(test_duplicate_uuid_last_value_first_position),
		cmocka_unit_test(test_rows_dropped_by_repair_are_bridged),
		cmocka_unit_test(test_dropped_row_does_not_replace_a_kept_one),
		cmocka_unit_test(test_parallel_tool_calls_form_one_block),
		cmocka_unit_test(test_node_outside_blocks_has_no_next_member),
		cmocka_unit_test(test_boundary_links_to_logical_parent_in_view),
		cmocka_unit_test(test_boundary_with_missing_logical_parent),
		cmocka_unit_test(test_sidechain_rows_are_off_the_main_side),
		cmocka_unit_test(test_sent_as_uuid_stores_under_that_uuid),
		cmocka_unit_test(test_errors_are_in_line_order),
		cmocka_unit_test(test_empty_log_has_no_nodes),
		cmocka_unit_test(test_unlinked_rows_read_in_file_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * Unit tests of the paths a growth takes: for each case, a log of our
 * own cut before the rows that make it and grown to its end, the session
 * shows what a fresh one does (grow_util.h) and the growths made each
 * part as the case says, extended or built anew: the graph and the
 * branches (gr_grow(), br_grow(), and their guards), the resumed chain
 * (rs_grow()), the summaries (sm_grow()) and the inline sidechains
 * (sc_grow()), counted by ss_grow_counts(). Whole logs grown record by
 * record, and the corpus: test_grow.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "grow_util.h"

/* ---- the extensions of the graph and the branches, and their guards ---- */

/* Whether the counts a and b of one part differ; a part want leaves at
 * zero (the chain, sidechains, summaries) is not looked at. */
static int differ(const uint32_t *got, const uint32_t *want, int always)
{
	return (always || want[0] || want[1]) && (got[0] != want[0] || got[1] != want[1]);
}

/*
 * The log cut at cut[0], grown to cut[1..n) and then to its end: the
 * session shows what a fresh one does, and the growths made the graph,
 * the branches and (where want says) the chain, the sidechains and the
 * summaries as want says ([0] extended, [1] built anew).
 */
static void grow_cuts(struct tu_log *l, const size_t *cut, size_t n,
		      struct ss_grow_counts want, const char *name)
{
	char *path = tu_write("", 0);
	size_t steps[8], k;
	struct ss_grow_counts got;

	for (k = 1; k < n; k++)
		steps[k - 1] = cut[k];
	steps[n - 1] = l->sb.len;
	gu_grow(path, l->sb.buf, cut[0], steps, n, name, &got);
	if (differ(got.graph, want.graph, 1) || differ(got.branches, want.branches, 1) ||
	    differ(got.chain, want.chain, 0) || differ(got.sidechains, want.sidechains, 0) ||
	    differ(got.summaries, want.summaries, 0))
		fail_msg("%s: extended/anew: graph %u %u, branches %u %u, chain %u %u, sidechains"
			 " %u %u, summaries %u %u; wanted %u %u, %u %u, %u %u, %u %u, %u %u", name,
			 got.graph[0], got.graph[1], got.branches[0], got.branches[1],
			 got.chain[0], got.chain[1], got.sidechains[0], got.sidechains[1],
			 got.summaries[0], got.summaries[1], want.graph[0], want.graph[1],
			 want.branches[0], want.branches[1], want.chain[0], want.chain[1],
			 want.sidechains[0], want.sidechains[1], want.summaries[0],
			 want.summaries[1]);
	tu_log_free(l);
	tu_remove(path);
}

static void grow_at(struct tu_log *l, size_t cut, struct ss_grow_counts want,
		    const char *name)
{
	grow_cuts(l, &cut, 1, want, name);
}

#define EXTENDED ((struct ss_grow_counts){ .graph = { 1, 0 }, .branches = { 1, 0 } })
#define BRANCHES_ANEW ((struct ss_grow_counts){ .graph = { 1, 0 }, .branches = { 0, 1 } })
#define ALL_ANEW ((struct ss_grow_counts){ .graph = { 0, 1 } })

static size_t two_turns(struct tu_log *l)
{
	tu_log_init(l);
	tu_user(l, 1, 0, "one");
	tu_asst(l, 2, 1, "msg_2", "uno");
	tu_user(l, 3, 2, "two");
	tu_asst(l, 4, 3, "msg_4", "dos");
	return l->sb.len;
}

/* The normal append: turns going on from the leaf, through a progress
 * row written with them; both extended. */
static void test_ext_turns(void **state)
{
	struct tu_log l;
	size_t cut = two_turns(&l);

	(void)state;
	tu_user(&l, 5, 4, "three");
	tu_progress(&l, 6, 5);
	tu_asst(&l, 7, 6, "msg_7", "tres, under a progress row");
	tu_user(&l, 8, 7, "four");
	grow_at(&l, cut, EXTENDED, "turns");
}

/* A later row that is the parent of an earlier dangling row. */
static void test_ext_parent_later(void **state)
{
	struct tu_log l;
	size_t cut[2];

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "one");
	tu_asst(&l, 2, 1, "msg_2", "uno");
	cut[0] = l.sb.len;
	tu_user(&l, 4, 3, "names 3, not written yet");
	cut[1] = l.sb.len;
	tu_user(&l, 3, 2, "three, at last");
	grow_cuts(&l, cut, 2, ((struct ss_grow_counts){ .graph = { 1, 1 }, .branches = { 0, 1 } }),
		  "parent later");
	/* and both in one growth: named before it is written */
	tu_log_init(&l);
	tu_user(&l, 1, 0, "one");
	tu_asst(&l, 2, 1, "msg_2", "uno");
	cut[0] = l.sb.len;
	tu_user(&l, 4, 3, "names 3, not written yet");
	tu_user(&l, 3, 2, "three");
	grow_at(&l, cut[0], ALL_ANEW, "parent later, one growth");
}

/* A duplicate of an old uuid, and of a new one. */
static void test_ext_duplicates(void **state)
{
	struct tu_log l;
	size_t cut = two_turns(&l);

	(void)state;
	tu_asst(&l, 4, 3, "msg_4", "dos, again");
	grow_at(&l, cut, ALL_ANEW, "old duplicate");
	cut = two_turns(&l);
	tu_user(&l, 5, 4, "three");
	tu_user(&l, 5, 4, "three, again");
	grow_at(&l, cut, ALL_ANEW, "new duplicate");
}

/* A response continued across the cut, a result joining its block: the
 * graph extends the old block; the branches, whose names hold display
 * positions, are built anew. A row joining an old block that a turn
 * hangs off would move that turn's positions: built anew. */
static void test_ext_blocks(void **state)
{
	struct tu_log l;
	size_t cut;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "one");
	tu_asst(&l, 2, 1, "msg_2", "uno");
	cut = l.sb.len;
	tu_tool_use(&l, 3, 2, "msg_2", "toolu_3");
	tu_result(&l, 4, 3, "toolu_3");
	tu_asst(&l, 5, 4, "msg_5", "done");
	grow_at(&l, cut, BRANCHES_ANEW, "block continued");

	tu_log_init(&l);
	tu_user(&l, 1, 0, "one");
	tu_tool_use(&l, 2, 1, "msg_2", "toolu_2");
	tu_result(&l, 3, 2, "toolu_2");
	tu_asst(&l, 4, 3, "msg_4", "done");
	cut = l.sb.len;
	tu_attach(&l, 5, 2, "date_change");
	grow_at(&l, cut, ALL_ANEW, "block with a turn off it");
}

/* A rewind: a prompt under an old row. */
static void test_ext_rewind(void **state)
{
	struct tu_log l;
	size_t cut = two_turns(&l);

	(void)state;
	tu_user(&l, 5, 2, "two, said otherwise");
	tu_asst(&l, 6, 5, "msg_6", "otro");
	grow_at(&l, cut, BRANCHES_ANEW, "rewind");
}

/* A compaction appended. */
static void test_ext_compaction(void **state)
{
	struct tu_log l;
	size_t cut = two_turns(&l);

	(void)state;
	tu_boundary(&l, 5, 4, 0, NULL, 0);
	tu_summary(&l, 6, 5);
	tu_user(&l, 7, 6, "three");
	grow_at(&l, cut, ALL_ANEW, "compaction");
}

/* A row under an old progress row (bridged: its parent is no node). */
static void test_ext_old_progress(void **state)
{
	struct tu_log l;
	size_t cut = two_turns(&l);

	(void)state;
	tu_progress(&l, 5, 4);
	cut = l.sb.len;
	tu_user(&l, 6, 5, "three");
	grow_at(&l, cut, ALL_ANEW, "old progress row");
	/* a progress row under the uuid an old row names: it bridges that */
	two_turns(&l);
	tu_user(&l, 6, 5, "names 5, not written yet");
	cut = l.sb.len;
	tu_progress(&l, 5, 4);
	grow_at(&l, cut, ALL_ANEW, "progress row under a named uuid");
}

/* A turn below an old side row (a hook row beside a result): the row
 * leaves the block, being below a turn now. */
static void test_ext_side_row(void **state)
{
	struct tu_log l;
	size_t cut;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "one");
	tu_tool_use(&l, 2, 1, "msg_2", "toolu_2");
	tu_result(&l, 3, 2, "toolu_2");
	tu_attach(&l, 4, 3, "date_change");
	cut = l.sb.len;
	tu_asst(&l, 5, 4, "msg_5", "after the hook row");
	grow_at(&l, cut, ALL_ANEW, "turn below a side row");
}

/* The branches built anew: sidechain rows; the newest terminal a dead
 * end; a marked sidechain row off the leaf (a main row hangs off it). */
static void test_ext_branch_guards(void **state)
{
	struct tu_log l;
	size_t cut = two_turns(&l);

	(void)state;
	l.sidechain = 1;
	tu_user(&l, 5, 4, "a subagent's prompt");
	grow_at(&l, cut, BRANCHES_ANEW, "sidechain appended");

	two_turns(&l);
	tu_attach(&l, 5, 2, "date_change");	/* off a row that goes on */
	cut = l.sb.len;
	tu_user(&l, 6, 4, "three");
	grow_at(&l, cut, BRANCHES_ANEW, "newest terminal dead");

	tu_log_init(&l);
	tu_user(&l, 1, 0, "one");
	tu_asst(&l, 2, 1, "msg_2", "uno");
	tu_user(&l, 4, 3, "main, off a sidechain row");
	l.sidechain = 1;
	tu_user(&l, 3, 5, "a sidechain row off the leaf");
	l.sidechain = 0;
	tu_user(&l, 5, 2, "the leaf");
	cut = l.sb.len;
	tu_asst(&l, 6, 5, "msg_6", "after the leaf");
	grow_at(&l, cut, BRANCHES_ANEW, "marked row off the leaf");
}

/* ---- the chain, the sidechains and the summaries extended ---- */

#define CHAIN(e, a) ((struct ss_grow_counts){ .graph = { 1, 0 }, .branches = { 1, 0 }, \
	.chain = { e, a }, .sidechains = { 1, 0 }, .summaries = { 1, 0 } })
#define CHAIN_BR(e, a) ((struct ss_grow_counts){ .graph = { 1, 0 }, .branches = { 0, 1 }, \
	.chain = { e, a }, .sidechains = { 1, 0 }, .summaries = { 0, 1 } })

/* Turns, a checkpoint naming a new row, rows under the trailing rows, a
 * call answered in the next growth, parallel calls answered: the chain
 * is extended. */
static void test_chain_extended(void **state)
{
	struct tu_log l;
	size_t cut;

	(void)state;
	cut = two_turns(&l);
	tu_user(&l, 5, 4, "three");
	tu_asst(&l, 6, 5, "msg_6", "tres");
	grow_at(&l, cut, CHAIN(1, 0), "chain: turns");

	two_turns(&l);
	tu_last_prompt(&l, 4, 0);
	cut = l.sb.len;
	tu_user(&l, 5, 4, "three");
	tu_asst(&l, 6, 5, "msg_6", "tres");
	tu_last_prompt(&l, 6, 0);
	grow_at(&l, cut, CHAIN(1, 0), "chain: checkpoint on a new row");

	two_turns(&l);
	tu_user(&l, 5, 4, "three");
	tu_attach(&l, 6, 5, "date_change");
	tu_system(&l, 7, 6, "turn_duration");
	cut = l.sb.len;
	tu_asst(&l, 8, 7, "msg_8", "tres, under the trailing rows");
	grow_at(&l, cut, CHAIN(1, 0), "chain: under the trailing rows");

	two_turns(&l);
	tu_user(&l, 5, 4, "list it");
	tu_tool_use(&l, 6, 5, "msg_6", "toolu_6");
	cut = l.sb.len;
	tu_result(&l, 7, 6, "toolu_6");
	tu_asst(&l, 8, 7, "msg_8", "listed");
	grow_at(&l, cut, CHAIN_BR(1, 0), "chain: a call answered");

	two_turns(&l);
	tu_user(&l, 5, 4, "two at once");
	tu_tool_use(&l, 6, 5, "msg_6", "toolu_6");
	tu_tool_use(&l, 7, 6, "msg_6", "toolu_7");
	cut = l.sb.len;
	tu_result(&l, 8, 6, "toolu_6");
	tu_result(&l, 9, 7, "toolu_7");
	tu_asst(&l, 10, 9, "msg_10", "both");
	grow_at(&l, cut, CHAIN_BR(1, 0), "chain: parallel calls answered");
}

/* A rewind, a row with an older response's id, an explicit rewind that
 * empties the chain, a turn below a side row of the tail: built anew. */
static void test_chain_anew(void **state)
{
	struct tu_log l;
	size_t cut;

	(void)state;
	cut = two_turns(&l);
	tu_user(&l, 5, 2, "two, said otherwise");
	tu_asst(&l, 6, 5, "msg_6", "otro");
	grow_at(&l, cut, CHAIN_BR(0, 1), "chain: rewind");

	cut = two_turns(&l);
	tu_user(&l, 5, 4, "three");
	tu_asst(&l, 6, 5, "msg_2", "the id of the first response");
	grow_at(&l, cut, CHAIN(0, 1), "chain: an older response's id");

	two_turns(&l);
	tu_last_prompt(&l, 4, 0);
	cut = l.sb.len;
	tu_last_prompt(&l, 0, 1);
	grow_at(&l, cut, CHAIN(0, 1), "chain: emptied");

	cut = two_turns(&l);
	tu_last_prompt(&l, 2, 1);
	grow_at(&l, cut, CHAIN(0, 1), "chain: an explicit rewind to an old row");

	cut = two_turns(&l);
	tu_last_prompt(&l, 2, 0);
	grow_at(&l, cut, CHAIN(0, 1), "chain: a checkpoint on an old row");

	/* a new dead end with an older response's id joins its block */
	cut = two_turns(&l);
	tu_user(&l, 5, 4, "three");
	tu_asst(&l, 7, 5, "msg_2", "a dead end in the first response");
	tu_asst(&l, 6, 5, "msg_6", "tres");
	grow_at(&l, cut, CHAIN_BR(0, 1), "chain: a dead end of an older response");

	/* the leaf's trailing row, off the chain now, joins its block */
	two_turns(&l);
	tu_attach(&l, 5, 4, "date_change");
	cut = l.sb.len;
	tu_user(&l, 6, 4, "three");
	tu_asst(&l, 7, 6, "msg_7", "tres");
	grow_at(&l, cut, CHAIN_BR(0, 1), "chain: a trailing row left behind");

	/* a row in the time window of the substitute the walk looked for */
	tu_log_init(&l);
	tu_user(&l, 1, 0, "one");
	tu_asst(&l, 2, 1, "msg_2", "uno");
	tu_at(&l, 20000);
	tu_user(&l, 3, 99, "names a row never written");
	tu_asst(&l, 4, 3, "msg_4", "dos");
	cut = l.sb.len;
	tu_at(&l, 18000);
	tu_attach(&l, 5, 4, "date_change");
	grow_at(&l, cut, CHAIN_BR(0, 1), "chain: a substitute's window");
}

/* A summary record: the titles of the branches. */
static void title(struct tu_log *l, int leaf, const char *text)
{
	char u[37];

	tu_uuid(leaf, u);
	sb_addf(&l->sb, "{\"type\":\"summary\",\"summary\":\"%s\",\"leafUuid\":\"%s\"}\n", text, u);
}

/* Titles kept while turns are appended; a new title builds them again. */
static void test_summaries_grown(void **state)
{
	struct tu_log l;
	size_t cut;

	(void)state;
	tu_log_init(&l);
	title(&l, 4, "a title for the first turns");
	tu_user(&l, 1, 0, "one");
	tu_asst(&l, 2, 1, "msg_2", "uno");
	tu_user(&l, 3, 2, "two");
	tu_asst(&l, 4, 3, "msg_4", "dos");
	cut = l.sb.len;
	tu_user(&l, 5, 4, "three");
	tu_asst(&l, 6, 5, "msg_6", "tres");
	grow_at(&l, cut, CHAIN(1, 0), "summaries: turns");

	/* the new terminal takes the title of an older row */
	tu_log_init(&l);
	title(&l, 3, "a title of a prompt");
	tu_user(&l, 1, 0, "one");
	tu_asst(&l, 2, 1, "msg_2", "uno");
	tu_user(&l, 3, 2, "two");
	cut = l.sb.len;
	tu_attach(&l, 4, 3, "date_change");
	grow_at(&l, cut, ((struct ss_grow_counts){ .graph = { 1, 0 }, .branches = { 1, 0 },
		.chain = { 1, 0 }, .summaries = { 0, 1 } }), "summaries: an older title");

	cut = two_turns(&l);
	title(&l, 4, "a title written later");
	grow_at(&l, cut, ((struct ss_grow_counts){ .graph = { 1, 0 }, .branches = { 1, 0 },
		.summaries = { 0, 1 } }), "summaries: a title");
}

/* An inline subagent (1.0.x) that goes on: its rows extend it; a second
 * one started builds the set again. */
static void test_sidechains_grown(void **state)
{
	struct tu_log l;
	size_t cut;

	(void)state;
	two_turns(&l);
	tu_tool_call(&l, 5, 4, "Task", "toolu_5", "{\"prompt\":\"look around\"}");
	l.sidechain = 1;
	tu_user(&l, 6, 0, "look around");
	tu_asst(&l, 7, 6, "msg_7", "looking");
	cut = l.sb.len;
	tu_user(&l, 8, 7, "more");
	tu_asst(&l, 9, 8, "msg_9", "still looking");
	l.sidechain = 0;
	grow_at(&l, cut, ((struct ss_grow_counts){ .graph = { 1, 0 }, .branches = { 0, 1 },
		.chain = { 1, 0 }, .sidechains = { 1, 0 } }), "sidechains: rows of an agent");

	two_turns(&l);
	tu_tool_call(&l, 5, 4, "Task", "toolu_5", "{\"prompt\":\"look around\"}");
	cut = l.sb.len;
	l.sidechain = 1;
	tu_user(&l, 6, 0, "look around");
	tu_asst(&l, 7, 6, "msg_7", "looking");
	l.sidechain = 0;
	grow_at(&l, cut, ((struct ss_grow_counts){ .graph = { 1, 0 }, .branches = { 0, 1 },
		.chain = { 1, 0 }, .sidechains = { 0, 1 }, .summaries = { 0, 1 } }),
		"sidechains: a new agent");

	/* an agent no call named gets its first text, or a call */
	two_turns(&l);
	tu_tool_call(&l, 5, 4, "Task", "toolu_5", "{\"prompt\":\"look around\"}");
	l.sidechain = 1;
	tu_result(&l, 6, 0, "toolu_x");
	cut = l.sb.len;
	tu_user(&l, 7, 6, "look around");
	l.sidechain = 0;
	grow_at(&l, cut, ((struct ss_grow_counts){ .graph = { 1, 0 }, .branches = { 0, 1 },
		.chain = { 1, 0 }, .sidechains = { 0, 1 }, .summaries = { 0, 1 } }),
		"sidechains: a first text");

	two_turns(&l);
	l.sidechain = 1;
	tu_user(&l, 6, 0, "look around");
	tu_asst(&l, 7, 6, "msg_7", "looking");
	l.sidechain = 0;
	cut = l.sb.len;
	tu_tool_call(&l, 5, 4, "Task", "toolu_5", "{\"prompt\":\"look around\"}");
	grow_at(&l, cut, ((struct ss_grow_counts){ .graph = { 1, 0 }, .branches = { 1, 0 },
		.chain = { 1, 0 }, .sidechains = { 0, 1 }, .summaries = { 1, 0 } }),
		"sidechains: a call naming an agent");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ext_turns),
		cmocka_unit_test(test_ext_parent_later),
		cmocka_unit_test(test_ext_duplicates),
		cmocka_unit_test(test_ext_blocks),
		cmocka_unit_test(test_ext_rewind),
		cmocka_unit_test(test_ext_compaction),
		cmocka_unit_test(test_ext_old_progress),
		cmocka_unit_test(test_ext_side_row),
		cmocka_unit_test(test_ext_branch_guards),
		cmocka_unit_test(test_chain_extended),
		cmocka_unit_test(test_chain_anew),
		cmocka_unit_test(test_summaries_grown),
		cmocka_unit_test(test_sidechains_grown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

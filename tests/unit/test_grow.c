/*
 * Unit tests of growth: a session that follows a log as it is appended to
 * (ss_refresh()) shows exactly what a fresh ss_open() of the same bytes
 * shows: session.json, errors.txt, window.md, the branches and their
 * paths, the resumed chain, context/messages.json and every file of
 * state/. Logs of our own making (forks, compactions, tool calls the
 * state reads, metadata, file history, a torn line completed later) are
 * cut at every line and grown record by record and in chunks; every log
 * of the corpus (../shared/corpus, or SESSFS_CORPUS) is cut at a sample
 * of its lines and grown in a few chunks.
 */
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "testutil.h"

/* ---- what a session shows, as one text ---- */

static void add_state(struct session *s, struct sbuf *out)
{
	const struct st_state *st = ss_state(s);
	uint32_t i;

	if (!st) {
		sb_adds(out, "no state\n");
		return;
	}
	for (i = 0; i < st_count(st); i++) {
		sb_addf(out, "node %u parent %u dir %d name %s\n", i, st_parent(st, i),
			st_is_dir(st, i), st_name(st, i));
		st_listxattr(st, i, out);
		if (!st_is_dir(st, i))
			sb_addf(out, "render %d\n", st_render(st, i, out));
	}
	st_errors_text(st, out);
}

/* br_last()'s tests: ids that are a multiple of *arg, and one id. */
static int multiple(uint32_t id, void *arg)
{
	return id % *(uint32_t *)arg == 0;
}

static int equal(uint32_t id, void *arg)
{
	return id == *(uint32_t *)arg;
}

/* The last of ids[0..n) that want() takes, or 0: br_last() by br_path(). */
static uint32_t last_of(const uint32_t *ids, uint32_t n,
			int (*want)(uint32_t id, void *arg), void *arg)
{
	while (n-- > 0)
		if (want(ids[n], arg))
			return ids[n];
	return 0;
}

/* br_last() finds what a search of br_path() from its end finds: for a
 * few divisors, and for each of the last 40 rows and every 50th. */
static void check_last(const struct br_set *b, uint32_t i, const uint32_t *ids, uint32_t n)
{
	uint32_t m, k;

	for (m = 1; m <= 5; m++)
		assert_int_equal(br_last(b, i, multiple, &m), last_of(ids, n, multiple, &m));
	for (k = 0; k < n; k++) {
		if (k + 40 < n && k % 50)
			continue;
		m = ids[k];
		assert_int_equal(br_last(b, i, equal, &m), last_of(ids, n, equal, &m));
	}
}

static void add_branches(const struct session *s, struct sbuf *out)
{
	const struct br_set *b = ss_branches(s);
	const struct rs_chain *c = ss_chain(s);
	uint32_t i, k, *ids, n;

	for (i = 0; i < br_count(b); i++) {
		const struct br_info *r = br_get(b, i);

		sb_addf(out, "branch %s terminal %u first %u key %u:", r->name, r->terminal,
			r->first_own, r->key);
		assert_int_equal(br_path(b, i, &ids, &n), 0);
		for (k = 0; k < n; k++)
			sb_addf(out, " %u", ids[k]);
		sb_addc(out, '\n');
		check_last(b, i, ids, n);
		free(ids);
	}
	sb_addf(out, "current %d chain leaf %u attach %u window %u n %u boundary %u deleted %u"
		" cleared %d relinked %d:", ss_current_branch(s), c->leaf, c->attach, c->window,
		c->n, c->boundary, c->deleted, c->cleared, c->relinked);
	for (k = 0; k < c->n; k++)
		sb_addf(out, " %u", c->ids[k]);
	sb_addc(out, '\n');
	for (k = 0; k < c->nnotes; k++)
		sb_addf(out, "chain note %u %u %u %u\n", c->notes[k].code, c->notes[k].id,
			c->notes[k].aux, c->notes[k].aux2);
}

/* The inline sidechains and the summaries, field by field. */
static void add_sets(const struct session *s, struct sbuf *out)
{
	const struct sc_set *sc = ss_sidechains(s);
	const struct sm_set *sm = ss_summaries(s);
	const struct br_set *b = ss_branches(s);
	uint32_t i;

	for (i = 0; i < sc_count(sc); i++) {
		const struct sc_agent *a = sc_get(sc, i);

		sb_addf(out, "agent %u root %u rows %u call %u use %llu id %s uuid %s\n", i,
			a->root, a->rows, a->call, (unsigned long long)a->useid, a->id, a->uuid);
	}
	sb_addf(out, "summaries %u cont %u\n", sm_nsummaries(sm), sm_ncont(sm));
	for (i = 0; i < br_count(b); i++)
		sb_addf(out, "title %u %s\n", i, sm_branch_title(sm, i) ? sm_branch_title(sm, i) : "-");
	for (i = 0; i < sm_ncont(sm); i++)
		sb_addf(out, "cont %s %u %s\n", sm_cont(sm, i)->leaf, sm_cont(sm, i)->line,
			sm_cont(sm, i)->summary);
}

/* The graph and the branches node by node: what gr_grow() and br_grow()
 * must give as a build does (a block by its head: numbers may differ). */
static void add_graph(const struct session *s, struct sbuf *out)
{
	const struct graph *g = ss_graph(s);
	const struct br_set *b = ss_branches(s);
	const uint32_t *order;
	uint32_t n, k;

	order = gr_nodes(g, &n);
	for (k = 0; k < n; k++) {
		uint32_t id = order[k];

		sb_addf(out, "node %u rec %u pos %u parent %u/%u dang %u child %u sib %u"
			" head %u next %u dpos %u side %d branch %d first %d\n", id,
			gr_rec(g, id), gr_pos(g, id), gr_parent(g, id), gr_vparent(g, id),
			gr_dangling(g, id), gr_first_child(g, id), gr_next_sibling(g, id),
			gr_block_head(g, gr_block(g, id)), gr_block_next(g, id), gr_dpos(g, id),
			gr_main_side(g, id), br_of_node(b, id), br_of_first(b, id));
	}
	for (k = 0; k < gr_nerrs(g); k++)
		sb_addf(out, "graph error %u %u %u %u\n", gr_err(g, k)->line, gr_err(g, k)->id,
			gr_err(g, k)->aux, gr_err(g, k)->code);
	for (k = 0; k < br_ndead(b); k++)
		sb_addf(out, "dead %u %u %u %u %u\n", br_dead(b, k)->terminal, br_dead(b, k)->top,
			br_dead(b, k)->from, br_dead(b, k)->rows, br_dead(b, k)->why);
}

static void shown(struct session *s, struct sbuf *out)
{
	const struct ctx *x;

	add_graph(s, out);
	ss_facts_json(s, out);
	ss_errors_text(s, out);
	ss_window_md(s, out);
	add_branches(s, out);
	add_sets(s, out);
	x = ss_context(s);
	if (x)
		ctx_messages_json(x, out);
	add_state(s, out);
}

/* ---- growing a log ---- */

static void put(const char *path, const char *data, size_t n, int append)
{
	int fd = open(path, O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC), 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, n), (ssize_t)n);
	close(fd);
}

static uint32_t compared;
static uint32_t origins[3];	/* contexts by ctx_origin(), after growth */
static struct ss_grow_counts grows;	/* how the growths made the graph */

/* s, grown to the file's bytes, shows what a fresh session of them does. */
static void check_same(struct session *s, const char *path, const char *what)
{
	struct session *fresh;
	struct sbuf a, b;

	assert_true(ss_refresh(s) >= 0);
	assert_int_equal(ss_open(path, SS_LIVE, &fresh), 0);
	sb_init(&a);
	sb_init(&b);
	shown(s, &a);
	shown(fresh, &b);
	if (a.len != b.len || memcmp(a.buf, b.buf, a.len)) {
		size_t i = 0;

		while (i < a.len && i < b.len && a.buf[i] == b.buf[i])
			i++;
		fail_msg("%s: grown and fresh differ at byte %zu:\n--- grown\n%.300s\n--- fresh\n%.300s",
			 what, i, a.buf + (i > 100 ? i - 100 : 0), b.buf + (i > 100 ? i - 100 : 0));
	}
	compared++;
	if (ss_context(s))
		origins[ctx_origin(ss_context(s))]++;
	sb_free(&a);
	sb_free(&b);
	ss_close(fresh);
}

static void add_counts(const struct session *s)
{
	struct ss_grow_counts c;

	ss_grow_counts(s, &c);
	grows.graph[0] += c.graph[0];
	grows.graph[1] += c.graph[1];
	grows.branches[0] += c.branches[0];
	grows.branches[1] += c.branches[1];
	grows.chain[0] += c.chain[0];
	grows.chain[1] += c.chain[1];
	grows.sidechains[0] += c.sidechains[0];
	grows.sidechains[1] += c.sidechains[1];
	grows.summaries[0] += c.summaries[0];
	grows.summaries[1] += c.summaries[1];
}

/* Line ends of data (offsets just past each '\n'). */
static size_t line_ends(const char *data, size_t n, size_t **out)
{
	size_t i, k = 0, *ends = malloc((n + 1) * sizeof(*ends));

	assert_non_null(ends);
	for (i = 0; i < n; i++)
		if (data[i] == '\n')
			ends[k++] = i + 1;
	*out = ends;
	return k;
}

/*
 * Writes data[0..cut) to path, opens it (building everything a reader
 * asks for), then appends the rest at the offsets steps[] (increasing,
 * the last one n), checking after each.
 */
static void grow(const char *path, const char *data, size_t cut, const size_t *steps,
		 size_t nsteps, const char *name, struct ss_grow_counts *counts)
{
	struct session *s;
	struct sbuf scratch;
	size_t k, at = cut;
	char what[512];

	put(path, data, cut, 0);
	assert_int_equal(ss_open(path, SS_LIVE, &s), 0);
	sb_init(&scratch);
	shown(s, &scratch);	/* the context and the state built, as a mount would */
	sb_free(&scratch);
	for (k = 0; k < nsteps; k++) {
		if (steps[k] <= at)
			continue;
		put(path, data + at, steps[k] - at, 1);
		at = steps[k];
		snprintf(what, sizeof(what), "%s cut at byte %zu grown to %zu", name, cut, at);
		check_same(s, path, what);
	}
	add_counts(s);
	if (counts)
		ss_grow_counts(s, counts);
	ss_close(s);
}

/* Cut at every line end (every stride-th), grow a line at a time, then
 * by the rest at once; and once in about ntorn byte chunks that tear
 * lines. */
static void grow_everywhere(const char *data, size_t n, size_t stride, size_t ntorn,
			    const char *name)
{
	char *path = tu_write("", 0);
	size_t *ends, nl = line_ends(data, n, &ends), i, k;

	for (i = 0; i < nl; i += stride) {
		size_t steps[4] = { 0, 0, 0, n }, ns = 0;

		for (k = 1; k <= 3 && i + k < nl; k++)
			steps[ns++] = ends[i + k];
		steps[ns++] = n;
		grow(path, data, ends[i], steps, ns, name, NULL);
	}
	{
		/* A torn line: half a line now, its end and more later. */
		size_t steps[64], ns = 0, at;

		for (at = 37; at < n && ns < 63; at += n / ntorn + 37)
			steps[ns++] = at;
		steps[ns++] = n;
		grow(path, data, 0, steps, ns, name, NULL);
	}
	free(ends);
	tu_remove(path);
}

/* Record by record from nothing: the whole history of the log. */
static void grow_by_record(const char *data, size_t n, const char *name)
{
	char *path = tu_write("", 0);
	size_t *ends, nl = line_ends(data, n, &ends);

	grow(path, data, 0, ends, nl, name, NULL);
	free(ends);
	tu_remove(path);
}

static void grow_log(struct tu_log *l, const char *name)
{
	grow_by_record(l->sb.buf, l->sb.len, name);
	grow_everywhere(l->sb.buf, l->sb.len, 1, 20, name);
	tu_log_free(l);
}

/* ---- logs of our own ---- */

static void read_result(struct tu_log *l, int uuid, int parent, const char *toolid)
{
	char x[1024];

	snprintf(x, sizeof(x), "\"message\":{\"role\":\"user\",\"content\":[{\"tool_use_id\":\"%s\","
		 "\"type\":\"tool_result\",\"content\":\"     1\\tx\"}]},\"toolUseResult\":"
		 "{\"type\":\"text\",\"file\":{\"filePath\":\"/repo/a.c\",\"content\":\"x\","
		 "\"numLines\":1,\"startLine\":1,\"totalLines\":1}}", toolid);
	tu_row(l, "user", uuid, parent, x);
}

static void meta(struct tu_log *l, const char *type, const char *member)
{
	sb_addf(&l->sb, "{\"type\":\"%s\",%s,\"sessionId\":\"" TU_SID "\"}\n", type, member);
}

static void snapshot(struct tu_log *l, int msg)
{
	char u[37];

	tu_uuid(msg, u);
	sb_addf(&l->sb, "{\"type\":\"file-history-snapshot\",\"messageId\":\"%s\",\"snapshot\":"
		"{\"messageId\":\"%s\",\"trackedFileBackups\":{\"a.c\":{\"backupFileName\":"
		"\"0123456789abcdef@v1\",\"version\":1,\"backupTime\":\"2026-01-01T10:00:00.000Z\"}},"
		"\"timestamp\":\"2026-01-01T10:00:00.000Z\"},\"isSnapshotUpdate\":false}\n", u, u);
}

/* A delta naming row (not written yet) and changing a.c of snapshot snap. */
static void delta(struct tu_log *l, int row, int snap)
{
	char u[37], sn[37];

	tu_uuid(row, u);
	tu_uuid(snap, sn);
	sb_addf(&l->sb, "{\"type\":\"file-history-delta\",\"messageId\":\"%s\","
		"\"snapshotMessageId\":\"%s\",\"trackingPath\":\"a.c\",\"backup\":"
		"{\"backupFileName\":\"fedcba9876543210@v2\",\"version\":2,\"backupTime\":"
		"\"2026-01-01T10:00:01.000Z\",\"realParentDir\":\"/repo\"},"
		"\"timestamp\":\"2026-01-01T10:00:01.000Z\"}\n", u, sn);
}

/* A conversation of plain turns: the state is kept as it grows. */
static void test_plain_turns(void **state)
{
	struct tu_log l;
	char msg[16];
	int i;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "hello");
	for (i = 2; i < 24; i += 2) {
		snprintf(msg, sizeof(msg), "msg_%d", i);
		tu_asst(&l, i, i - 1, msg, "an answer");
		tu_user(&l, i + 1, i, "go on");
	}
	grow_log(&l, "plain turns");
}

/* A rewind: a new prompt under an old row starts a branch. */
static void test_fork(void **state)
{
	struct tu_log l;

	(void)state;
	tu_forked_log(&l);
	tu_user(&l, 7, 6, "And a list command.");
	tu_asst(&l, 8, 7, "msg_4", "Listed.");
	tu_user(&l, 9, 4, "Back on the first branch.");
	tu_asst(&l, 10, 9, "msg_5", "Back.");
	tu_last_prompt(&l, 8, 0);
	grow_log(&l, "fork");
}

/* Two turns, a compaction with a preserved segment, a turn, a second
 * compaction without one (rows 1 to 10). */
static void two_compactions(struct tu_log *l)
{
	int pres[] = { 3, 4 };

	tu_log_init(l);
	tu_user(l, 1, 0, "one");
	tu_asst(l, 2, 1, "msg_1", "uno");
	tu_user(l, 3, 2, "two");
	tu_asst(l, 4, 3, "msg_2", "dos");
	tu_boundary(l, 5, 4, 6, pres, 2);
	tu_summary(l, 6, 5);
	tu_user(l, 7, 6, "three");
	tu_asst(l, 8, 7, "msg_3", "tres");
	tu_boundary(l, 9, 8, 0, NULL, 0);
	tu_summary(l, 10, 9);
}

/* A compaction, then more turns after it. */
static void test_compaction(void **state)
{
	struct tu_log l;

	(void)state;
	two_compactions(&l);
	tu_user(&l, 11, 10, "four");
	tu_asst(&l, 12, 11, "msg_4", "cuatro");
	grow_log(&l, "compaction");
}

/* Boundaries written again: one the same, one as a user row (a copy
 * keeps its last value at its first place): the compactions counted
 * before must not count twice, nor the one that is no longer one. */
static void test_boundary_copies(void **state)
{
	struct tu_log l;
	int pres[] = { 3, 4 };

	(void)state;
	two_compactions(&l);
	tu_boundary(&l, 5, 4, 6, pres, 2);
	tu_user(&l, 11, 10, "four");
	tu_user(&l, 9, 8, "not a boundary now");
	tu_asst(&l, 12, 11, "msg_4", "cuatro");
	grow_log(&l, "boundary copies");
}

/* What the state reads: tool calls, metadata, file history, a permission
 * mode, another cwd and session id; and tool calls left unanswered, an
 * attachment, a progress row, a duplicate uuid. */
static void test_state_records(void **state)
{
	struct tu_log l;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "read a.c");
	snapshot(&l, 1);
	tu_tool_call(&l, 2, 1, "Read", "toolu_2", "{\"file_path\":\"/repo/a.c\"}");
	read_result(&l, 3, 2, "toolu_2");
	tu_asst(&l, 4, 3, "msg_4", "Read it.");
	meta(&l, "custom-title", "\"customTitle\":\"a title\"");
	tu_row(&l, "user", 5, 4, "\"message\":{\"role\":\"user\",\"content\":\"plan it\"},"
	       "\"permissionMode\":\"plan\"");
	tu_asst(&l, 6, 5, "msg_6", "Planned.");
	meta(&l, "mode", "\"mode\":\"normal\"");
	tu_tool_use(&l, 7, 6, "msg_7", "toolu_7");
	tu_attach(&l, 8, 7, "date_change");
	tu_progress(&l, 9, 8);
	tu_result(&l, 10, 7, "toolu_7");
	tu_asst(&l, 11, 10, "msg_11", "Done.");
	tu_tool_call(&l, 12, 11, "Write", "toolu_12",
	    "{\"file_path\":\"/repo/b.c\",\"content\":\"int b;\\n\"}");
	tu_user(&l, 13, 12, "a prompt that leaves the call unanswered");
	tu_asst(&l, 14, 13, "msg_14", "Ok.");
	tu_asst(&l, 14, 13, "msg_14", "Ok, again (a duplicate uuid).");
	tu_row(&l, "user", 15, 14, "\"message\":{\"role\":\"user\",\"content\":\"elsewhere\"},"
	       "\"cwd\":\"/somewhere/else\"");
	tu_asst(&l, 16, 15, "msg_16", "Moved.");
	sb_adds(&l.sb, "not json at all\n");
	tu_user(&l, 17, 16, "after a bad line");
	delta(&l, 19, 1);	/* its row comes two lines later */
	tu_asst(&l, 18, 17, "msg_18", "Editing.");
	tu_user(&l, 19, 18, "the row the delta names");
	tu_asst(&l, 20, 19, "msg_20", "Edited.");
	grow_log(&l, "state records");
}

/* An assistant row of response msgid whose content is the JSON blocks
 * (and extra members after it, "" for none). */
static void asst_blocks(struct tu_log *l, int uuid, int parent, const char *msgid,
			const char *blocks, const char *extra)
{
	char x[2048];

	snprintf(x, sizeof(x), "\"message\":{\"id\":\"%s\",\"type\":\"message\",\"role\":"
		 "\"assistant\",\"model\":\"claude-opus-5-5\",\"content\":%s}%s%s", msgid, blocks,
		 *extra ? "," : "", extra);
	tu_row(l, "assistant", uuid, parent, x);
}

/* Turns left unfinished at the end of the log, which growth completes: a
 * call waiting for its result (rule 12), parallel calls answered one by
 * one, a response whose rows come apart (thinking first, rule 11), a
 * prompt not answered yet (rule 14), a blank row, an attachment. */
static void test_tail_repairs(void **state)
{
	struct tu_log l;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "list it");
	tu_asst(&l, 2, 1, "msg_2", "Listing.");
	tu_tool_use(&l, 3, 2, "msg_2", "toolu_3");
	tu_result(&l, 4, 3, "toolu_3");
	tu_asst(&l, 5, 4, "msg_5", "Two at once.");
	tu_tool_use(&l, 6, 5, "msg_5", "toolu_6");
	tu_tool_use(&l, 7, 6, "msg_5", "toolu_7");
	tu_result(&l, 8, 6, "toolu_6");
	tu_attach(&l, 9, 8, "date_change");
	tu_result(&l, 10, 7, "toolu_7");
	asst_blocks(&l, 11, 10, "msg_11", "[{\"type\":\"thinking\",\"thinking\":\"hm\"}]", "");
	asst_blocks(&l, 12, 11, "msg_11", "[{\"type\":\"text\",\"text\":\"  \"}]", "");
	tu_asst(&l, 13, 12, "msg_11", "Both done.");
	tu_user(&l, 14, 13, "and now?");
	tu_attach(&l, 15, 14, "date_change");
	asst_blocks(&l, 16, 15, "msg_16", "[{\"type\":\"thinking\",\"thinking\":\"only\"}]", "");
	tu_user(&l, 17, 16, "again");
	tu_asst(&l, 18, 17, "msg_18", "Again.");
	grow_log(&l, "tail repairs");
}

/* Effort levels (rule 23): a prompt takes the level of the response
 * after it, which a growth may bring; the newest api-request's effort
 * is the tail's. */
static void test_effort(void **state)
{
	struct tu_log l;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "one");
	asst_blocks(&l, 2, 1, "msg_2", "[{\"type\":\"text\",\"text\":\"uno\"}]", "\"effort\":\"high\"");
	tu_user(&l, 3, 2, "two");
	tu_asst(&l, 4, 3, "msg_4", "dos, no level");
	tu_user(&l, 5, 4, "three");
	asst_blocks(&l, 6, 5, "msg_6", "[{\"type\":\"text\",\"text\":\"tres\"}]", "\"effort\":\"low\"");
	meta(&l, "api-request", "\"id\":\"r1\",\"params\":{\"output_config\":{\"effort\":\"medium\"}}");
	tu_user(&l, 7, 6, "four");
	tu_asst(&l, 8, 7, "msg_8", "cuatro");
	meta(&l, "api-request", "\"id\":\"r2\",\"params\":{\"output_config\":{\"effort\":\"max\"}}");
	tu_user(&l, 9, 8, "five");
	asst_blocks(&l, 10, 9, "msg_10", "[{\"type\":\"text\",\"text\":\"cinco\"}]",
		    "\"perTurnEffort\":\"high\"");
	grow_log(&l, "effort");
}

/* What a growth may not render after the cut alone: a row retracting an
 * earlier one, a call reusing an id answered before, a response id used
 * again in a later turn, a replaced result, sidechain rows, a duplicate
 * uuid, a uuid named before it is written. */
static void test_cut_hazards(void **state)
{
	struct tu_log l;
	char u[37], x[512];

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "one");
	tu_tool_use(&l, 2, 1, "msg_2", "toolu_2");
	tu_result(&l, 3, 2, "toolu_2");
	tu_asst(&l, 4, 3, "msg_4", "uno");
	tu_user(&l, 5, 4, "two");
	tu_tool_use(&l, 6, 5, "msg_6", "toolu_2");	/* answered before */
	tu_user(&l, 7, 6, "three");
	tu_asst(&l, 8, 7, "msg_4", "the id of an earlier response");
	tu_user(&l, 9, 8, "four");
	tu_asst(&l, 10, 9, "msg_10", "cuatro");
	tu_uuid(8, u);
	snprintf(x, sizeof(x), "\"message\":{\"role\":\"user\",\"content\":\"five\"},"
		 "\"retractedMessageUuids\":[\"%.13s\"]", u);
	tu_row(&l, "user", 11, 10, x);
	tu_asst(&l, 12, 11, "msg_12", "cinco");
	meta(&l, "content-replacement", "\"replacements\":[{\"kind\":\"tool-result\","
	     "\"toolUseId\":\"toolu_2\",\"replacement\":\"[moved]\"}]");
	tu_user(&l, 13, 12, "six");
	l.sidechain = 1;
	tu_user(&l, 14, 13, "a subagent's prompt");
	tu_asst(&l, 15, 14, "msg_15", "a subagent's answer");
	l.sidechain = 0;
	tu_asst(&l, 16, 13, "msg_16", "seis");
	tu_user(&l, 17, 20, "names 20 before it is written");
	tu_user(&l, 18, 16, "seven");
	tu_asst(&l, 19, 18, "msg_19", "siete");
	tu_asst(&l, 19, 18, "msg_19", "siete, again (a duplicate uuid)");
	tu_user(&l, 20, 19, "eight");
	tu_asst(&l, 21, 20, "msg_21", "ocho");
	grow_log(&l, "cut hazards");
}

/* Where the rows before a cut still render with those after it: a
 * system text waiting over a response's two rows, a response row that
 * joins its message after a result, a thinking-only row whose response
 * gets a text row two cuts later. */
static void test_cut_renders(void **state)
{
	struct tu_log l;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "one");
	tu_asst(&l, 2, 1, "msg_2", "uno");
	tu_attach(&l, 3, 2, "date_change");
	tu_asst(&l, 4, 3, "msg_2", "uno, more");
	tu_user(&l, 5, 4, "two");
	tu_asst(&l, 6, 5, "msg_6", "dos");
	tu_user(&l, 7, 6, "three");
	tu_tool_use(&l, 8, 7, "msg_8", "toolu_8");
	tu_result(&l, 9, 8, "toolu_8");
	tu_asst(&l, 10, 9, "msg_8", "tres, after its result");
	tu_user(&l, 11, 10, "four");
	tu_asst(&l, 12, 11, "msg_12", "cuatro");
	tu_user(&l, 13, 12, "five");
	asst_blocks(&l, 14, 13, "msg_14", "[{\"type\":\"thinking\",\"thinking\":\"hm\"}]", "");
	tu_asst(&l, 15, 14, "msg_15", "cinco");
	tu_user(&l, 16, 15, "six");
	tu_asst(&l, 17, 16, "msg_17", "seis");
	tu_user(&l, 18, 17, "seven");
	tu_asst(&l, 19, 18, "msg_14", "siete, in the response of five");
	tu_user(&l, 20, 19, "eight");
	tu_asst(&l, 21, 20, "msg_21", "ocho");
	tu_asst(&l, 21, 20, "msg_21", "ocho, again (a duplicate uuid)");
	grow_log(&l, "cut renders");
}

/* A subagent's log (every row a sidechain) that main rows join later. */
static void test_side_flip(void **state)
{
	struct tu_log l;

	(void)state;
	tu_log_init(&l);
	l.sidechain = 1;
	tu_user(&l, 1, 0, "a task");
	tu_asst(&l, 2, 1, "msg_2", "done");
	tu_user(&l, 3, 2, "another");
	tu_asst(&l, 4, 3, "msg_4", "done too");
	l.sidechain = 0;
	tu_user(&l, 5, 4, "a main prompt, after them");
	tu_asst(&l, 6, 5, "msg_6", "a main answer");
	tu_user(&l, 7, 6, "more");
	tu_asst(&l, 8, 7, "msg_8", "more answer");
	grow_log(&l, "side flip");
}

/* Rows that name no parent: read in file order, as long as none does. */
static void test_unchained(void **state)
{
	struct tu_log l;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "one");
	tu_asst(&l, 2, 0, "msg_2", "uno");
	tu_user(&l, 3, 0, "two");
	tu_asst(&l, 4, 0, "msg_4", "dos");
	tu_user(&l, 5, 0, "three");
	tu_asst(&l, 6, 5, "msg_6", "tres, naming its parent");
	tu_user(&l, 7, 6, "four");
	tu_asst(&l, 8, 7, "msg_8", "cuatro");
	grow_log(&l, "unchained");
}

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
	grow(path, l->sb.buf, cut[0], steps, n, name, &got);
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

/* Growth built on the context before, both ways, somewhere above. */
static void test_grown_contexts(void **state)
{
	(void)state;
	print_message("contexts after growth: %u built, %u window rendered, %u after the cut\n",
		      origins[CTX_BUILT], origins[CTX_GROWN_WINDOW], origins[CTX_GROWN_CUT]);
	assert_true(origins[CTX_GROWN_WINDOW] > 0);
	assert_true(origins[CTX_GROWN_CUT] > origins[CTX_GROWN_WINDOW]);
	print_message("graphs after growth: %u extended, %u built anew; branches: %u extended,"
		      " %u built anew\n", grows.graph[0], grows.graph[1], grows.branches[0],
		      grows.branches[1]);
	print_message("chains: %u extended, %u built anew; sidechains: %u, %u; summaries: %u, %u\n",
		      grows.chain[0], grows.chain[1], grows.sidechains[0], grows.sidechains[1],
		      grows.summaries[0], grows.summaries[1]);
	assert_true(grows.graph[0] > grows.graph[1]);
	assert_true(grows.branches[0] > 0);
	assert_true(grows.chain[0] > grows.chain[1]);
}

/* ---- the corpus ---- */

static uint32_t corpus_logs;

/* A scenario's session.jsonl, which its projects/ folder holds too. */
static int is_copy(const char *path)
{
	char dir[4096];
	struct stat st;
	size_t n = strlen(path);

	if (n < 14 || strcmp(path + n - 14, "/session.jsonl"))
		return 0;
	snprintf(dir, sizeof(dir), "%.*s/projects", (int)(n - 14), path);
	return !stat(dir, &st);
}

static int corpus_log(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	size_t n = (size_t)st->st_size, stride, nl, *ends;
	char *data;
	FILE *f;

	(void)ftw;
	if (type != FTW_F || strlen(path) < 6 || strcmp(path + strlen(path) - 6, ".jsonl") ||
	    strstr(path, "resume-appended") || is_copy(path))
		return 0;
	data = malloc(n + 1);
	f = fopen(path, "rb");
	assert_non_null(data);
	assert_non_null(f);
	assert_int_equal(fread(data, 1, n, f), n);
	fclose(f);
	nl = line_ends(data, n, &ends);
	free(ends);
	/* About three cuts a log, each grown in four steps, and four torn. */
	stride = nl / 3 + 1;
	grow_everywhere(data, n, stride, 4, path);
	free(data);
	corpus_logs++;
	return 0;
}

static void test_corpus(void **state)
{
	const char *dir = getenv("SESSFS_CORPUS") ? getenv("SESSFS_CORPUS") : "../shared/corpus";
	struct stat st;

	(void)state;
	if (stat(dir, &st)) {
		if (getenv("CI") && !strcmp(getenv("CI"), "true"))
			fail_msg("no corpus at %s", dir);
		print_message("skipped: no corpus at %s\n", dir);
		return;
	}
	assert_int_equal(nftw(dir, corpus_log, 16, FTW_PHYS), 0);
	assert_true(corpus_logs > 0);
	print_message("corpus: %u logs, %u growths compared\n", corpus_logs, compared);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_turns),
		cmocka_unit_test(test_fork),
		cmocka_unit_test(test_compaction),
		cmocka_unit_test(test_boundary_copies),
		cmocka_unit_test(test_state_records),
		cmocka_unit_test(test_tail_repairs),
		cmocka_unit_test(test_effort),
		cmocka_unit_test(test_cut_hazards),
		cmocka_unit_test(test_cut_renders),
		cmocka_unit_test(test_side_flip),
		cmocka_unit_test(test_unchained),
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
		cmocka_unit_test(test_corpus),
		cmocka_unit_test(test_grown_contexts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * Unit tests of growth: a session that follows a log as it is appended to
 * (ss_refresh()) shows exactly what a fresh ss_open() of the same bytes
 * shows: session.json, errors.txt, window.md, the branches and their
 * paths, the resumed chain, context/messages.json and every file of
 * state/. Logs of our own making (forks, compactions, tool calls the
 * state reads, metadata, file history, a torn line completed later) are
 * cut at every line and grown record by record and in chunks; every log
 * of the corpus (../shared/corpus, or SESSFS_CORPUS) is cut at a sample
 * of its lines and grown in a few chunks. Which kind of growth (extended
 * or built anew) each part takes, case by case: test_grow_paths.c; the
 * helpers in grow_util.h.
 */
#include <dirent.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "grow_util.h"

/* ---- growing a log ---- */

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
		gu_grow(path, data, ends[i], steps, ns, name, NULL);
	}
	{
		/* A torn line: half a line now, its end and more later. */
		size_t steps[64], ns = 0, at;

		for (at = 37; at < n && ns < 63; at += n / ntorn + 37)
			steps[ns++] = at;
		steps[ns++] = n;
		gu_grow(path, data, 0, steps, ns, name, NULL);
	}
	if (n > 1 && data[n - 1] == '\n') {
		/* The last line whole but for its newline, which comes alone. */
		size_t steps[2] = { n - 1, n };

		gu_grow(path, data, 0, steps, 2, name, NULL);
	}
	free(ends);
	tu_remove(path);
}

/* Record by record from nothing: the whole history of the log. */
static void grow_by_record(const char *data, size_t n, const char *name)
{
	char *path = tu_write("", 0);
	size_t *ends, nl = line_ends(data, n, &ends);

	gu_grow(path, data, 0, ends, nl, name, NULL);
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

/* The release that wrote the log last changes as it grows (rule 32): a
 * call of 2.0.28 left without its result, which that release drops, and
 * then rows of 2.1.332, which repairs it. What was built for the one
 * release is not grown for the other. */
static void test_release_changes(void **state)
{
	struct tu_log l;

	(void)state;
	tu_log_init(&l);
	l.version = "2.0.28";
	tu_user(&l, 1, 0, "check it");
	tu_asst(&l, 2, 1, "msg_2", "Checking.");
	tu_tool_use(&l, 3, 2, "msg_2", "toolu_3");
	l.version = "2.1.332";
	tu_attach(&l, 4, 3, "date_change");
	tu_user(&l, 5, 4, "go on");
	l.version = "2.0.28";
	tu_attach(&l, 6, 5, "date_change");
	grow_log(&l, "release changes");
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

/* Growth built on the context before, both ways, somewhere above. */
static void test_grown_contexts(void **state)
{
	(void)state;
	print_message("contexts after growth: %u built, %u window rendered, %u after the cut\n",
		      gu_origins[CTX_BUILT], gu_origins[CTX_GROWN_WINDOW], gu_origins[CTX_GROWN_CUT]);
	assert_true(gu_origins[CTX_GROWN_WINDOW] > 0);
	assert_true(gu_origins[CTX_GROWN_CUT] > gu_origins[CTX_GROWN_WINDOW]);
	print_message("graphs after growth: %u extended, %u built anew; branches: %u extended,"
		      " %u built anew\n", gu_grows.graph[0], gu_grows.graph[1], gu_grows.branches[0],
		      gu_grows.branches[1]);
	print_message("chains: %u extended, %u built anew; sidechains: %u, %u; summaries: %u, %u\n",
		      gu_grows.chain[0], gu_grows.chain[1], gu_grows.sidechains[0], gu_grows.sidechains[1],
		      gu_grows.summaries[0], gu_grows.summaries[1]);
	assert_true(gu_grows.graph[0] > gu_grows.graph[1]);
	assert_true(gu_grows.branches[0] > 0);
	assert_true(gu_grows.chain[0] > gu_grows.chain[1]);
}

/* ---- the corpus ---- */

static uint32_t corpus_logs;

/* A scenario's session.jsonl, which its projects/ folder holds too. */
static int is_copy(const char *path)
{
	char dir[4096];
	struct stat st;
	size_t n = strlen(path);

	if (n < 14 || strcmp(path + n - 14, "/session.jsonl") || n - 14 + 10 > sizeof(dir))
		return 0;
	memcpy(dir, path, n - 14);
	memcpy(dir + n - 14, "/projects", 10);
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
	(void)state;
	assert_int_equal(nftw(tu_corpus(), corpus_log, 16, FTW_PHYS), 0);
	assert_true(corpus_logs > 0);
	print_message("corpus: %u logs, %u growths compared\n", corpus_logs, gu_compared);
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
		cmocka_unit_test(test_release_changes),
		cmocka_unit_test(test_effort),
		cmocka_unit_test(test_cut_hazards),
		cmocka_unit_test(test_cut_renders),
		cmocka_unit_test(test_side_flip),
		cmocka_unit_test(test_unchained),
		cmocka_unit_test(test_corpus),
		cmocka_unit_test(test_grown_contexts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * eras: logs of the older Claude Code versions, read whole (session.h).
 *
 * Hand-written from session-format.md §10: a 2.0.x log (progress rows in
 * the chain, a compact boundary with only trigger/preTokens, slug, todos
 * and thinkingMetadata fields, turn_end rows, file-history-snapshot
 * without envelope, an agent-<id>.jsonl beside it), a log with no links,
 * and files that are no session log at all.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <sys/stat.h>

#include "testutil.h"
#include "agents.h"
#include "render.h"
#include "session.h"

#define SID20 "5e55f500-0000-4000-8000-000000000200"
#define ENV20 "\"isSidechain\":false,\"userType\":\"external\",\"cwd\":\"/home/u/p\"," \
	"\"sessionId\":\"" SID20 "\",\"version\":\"2.0.49\",\"gitBranch\":\"main\"," \
	"\"slug\":\"quiet-dancing-otter\""
#define U(n) "0000000" #n "-0000-4000-8000-00000000000" #n

static const char log20[] =
	"{\"parentUuid\":null," ENV20 ",\"type\":\"user\",\"message\":{\"role\":\"user\","
	"\"content\":\"list the files\"},\"uuid\":\"" U(1) "\",\"timestamp\":\"2025-11-20T10:00:00.000Z\","
	"\"thinkingMetadata\":{\"level\":\"high\",\"disabled\":false,\"triggers\":[]},\"todos\":[]}\n"
	"{\"type\":\"file-history-snapshot\",\"messageId\":\"" U(1) "\",\"snapshot\":{\"messageId\":\""
	U(1) "\",\"trackedFileBackups\":{},\"timestamp\":\"2025-11-20T10:00:00.000Z\"},"
	"\"isSnapshotUpdate\":false}\n"
	"{\"parentUuid\":\"" U(1) "\"," ENV20 ",\"type\":\"progress\",\"data\":{\"type\":\"hook_progress\","
	"\"hookEvent\":\"UserPromptSubmit\"},\"toolUseID\":\"x\",\"uuid\":\"" U(2) "\","
	"\"timestamp\":\"2025-11-20T10:00:00.500Z\"}\n"
	"{\"parentUuid\":\"" U(2) "\"," ENV20 ",\"type\":\"assistant\",\"message\":{\"id\":\"msg_1\","
	"\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5-20250929\","
	"\"content\":[{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"Bash\",\"input\":"
	"{\"command\":\"ls\"}}],\"stop_reason\":\"tool_use\"},\"requestId\":\"req_1\",\"uuid\":\""
	U(3) "\",\"timestamp\":\"2025-11-20T10:00:01.000Z\"}\n"
	"{\"parentUuid\":\"" U(3) "\"," ENV20 ",\"type\":\"progress\",\"data\":{\"type\":\"bash_progress\","
	"\"output\":\"a\"},\"toolUseID\":\"toolu_1\",\"uuid\":\"" U(4) "\","
	"\"timestamp\":\"2025-11-20T10:00:01.500Z\"}\n"
	"{\"parentUuid\":\"" U(4) "\"," ENV20 ",\"type\":\"user\",\"message\":{\"role\":\"user\","
	"\"content\":[{\"tool_use_id\":\"toolu_1\",\"type\":\"tool_result\",\"content\":\"a\\nb\"}]},"
	"\"toolUseResult\":{\"stdout\":\"a\\nb\",\"stderr\":\"\"},\"uuid\":\"" U(5) "\","
	"\"timestamp\":\"2025-11-20T10:00:02.000Z\"}\n"
	"{\"parentUuid\":\"" U(5) "\"," ENV20 ",\"type\":\"assistant\",\"message\":{\"id\":\"msg_2\","
	"\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5-20250929\","
	"\"content\":[{\"type\":\"text\",\"text\":\"a and b\"}],\"stop_reason\":\"end_turn\"},"
	"\"uuid\":\"" U(6) "\",\"timestamp\":\"2025-11-20T10:00:03.000Z\"}\n"
	"{\"parentUuid\":\"" U(6) "\"," ENV20 ",\"type\":\"system\",\"subtype\":\"stop_hook_summary\","
	"\"content\":\"\",\"level\":\"info\",\"uuid\":\"" U(7) "\",\"timestamp\":\"2025-11-20T10:00:03.100Z\"}\n"
	"{\"type\":\"turn_end\",\"sessionId\":\"" SID20 "\",\"timestamp\":\"2025-11-20T10:00:03.200Z\"}\n"
	"{\"parentUuid\":null,\"logicalParentUuid\":\"" U(7) "\"," ENV20 ",\"type\":\"system\","
	"\"subtype\":\"compact_boundary\",\"content\":\"Conversation compacted\",\"level\":\"info\","
	"\"isMeta\":false,\"compactMetadata\":{\"trigger\":\"auto\",\"preTokens\":155000},"
	"\"uuid\":\"" U(8) "\",\"timestamp\":\"2025-11-20T10:05:00.000Z\"}\n"
	"{\"parentUuid\":\"" U(8) "\"," ENV20 ",\"type\":\"user\",\"message\":{\"role\":\"user\","
	"\"content\":\"This session is being continued from a previous conversation. Summary: ls\"},"
	"\"isCompactSummary\":true,\"isVisibleInTranscriptOnly\":true,\"uuid\":\"" U(9) "\","
	"\"timestamp\":\"2025-11-20T10:05:00.100Z\"}\n";

struct fx {
	char dir[64];
	char log[128];
};

static void put(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	assert_int_equal(fputs(text, fp) >= 0, 1);
	fclose(fp);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	char agent[192];

	strcpy(f->dir, "/tmp/sessfs-eras-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->log, sizeof(f->log), "%s/" SID20 ".jsonl", f->dir);
	put(f->log, log20);
	/* 2.0.x: the subagent's log beside the session's. */
	snprintf(agent, sizeof(agent), "%s/agent-a1b2c3d4.jsonl", f->dir);
	put(agent, "{\"parentUuid\":null,\"isSidechain\":true,\"userType\":\"external\","
		   "\"sessionId\":\"" SID20 "\",\"version\":\"2.0.49\",\"agentId\":\"a1b2c3d4\","
		   "\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"Warmup\"},"
		   "\"uuid\":\"aaaaaaaa-0000-4000-8000-000000000001\","
		   "\"timestamp\":\"2025-11-20T10:00:00.000Z\"}\n");
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	assert_int_equal(system(cmd), 0);
	free(f);
	return 0;
}

static uint32_t id_of(const struct session *s, const char *uuid)
{
	return idx_id_find(ss_idx(s), uuid, strlen(uuid));
}

static char *text_of(struct session *s, int errors)
{
	struct sbuf sb;

	sb_init(&sb);
	if (errors)
		ss_errors_text(s, &sb);
	else
		ss_facts_json(s, &sb);
	return sb_detach(&sb, NULL);
}

/* Progress rows bridged, the boundary joined, the window after it. */
static void test_v20_log_reads_whole(void **state)
{
	struct fx *f = *state;
	struct session *s;
	const struct graph *g;
	uint32_t *ids, n;
	char *errs, *facts;

	assert_int_equal(ss_open(f->log, SS_COMPLETE, &s), 0);
	g = ss_graph(s);
	assert_false(gr_is_node(g, id_of(s, U(2))));		/* progress */
	assert_int_equal(gr_parent(g, id_of(s, U(3))), id_of(s, U(1)));
	assert_int_equal(gr_parent(g, id_of(s, U(5))), id_of(s, U(3)));
	assert_int_equal(gr_vparent(g, id_of(s, U(8))), id_of(s, U(7)));
	assert_int_equal(br_count(ss_branches(s)), 1);
	assert_int_equal(br_path(ss_branches(s), 0, &ids, &n), 0);
	assert_int_equal(n, 7);					/* 1 3 5 6 7 8 9 */
	assert_int_equal(ids[0], id_of(s, U(1)));
	assert_int_equal(ids[n - 1], id_of(s, U(9)));
	free(ids);
	assert_int_equal(ss_chain(s)->ids[ss_chain(s)->window], id_of(s, U(8)));
	assert_int_equal(ss_chain(s)->leaf, id_of(s, U(9)));
	errs = text_of(s, 1);
	assert_string_equal(errs, "");		/* turn_end, slug, todos: no error */
	facts = text_of(s, 0);
	assert_non_null(strstr(facts, "\"compactions\": 1"));
	assert_non_null(strstr(facts, "\"version\": \"2.0.49\""));
	free(errs);
	free(facts);
	ss_close(s);
}

/* The boundary's file shows trigger and token count. */
static void test_v20_boundary_renders_its_metadata(void **state)
{
	struct fx *f = *state;
	struct session *s;
	struct sbuf sb;

	assert_int_equal(ss_open(f->log, SS_COMPLETE, &s), 0);
	sb_init(&sb);
	assert_int_equal(rd_message(ss_graph(s), ss_logf(s), id_of(s, U(8)), &sb), 0);
	assert_non_null(strstr(sb.buf, "auto"));
	assert_non_null(strstr(sb.buf, "155000"));
	sb_free(&sb);
	ss_close(s);
}

static void test_v20_agent_beside_the_log_is_found(void **state)
{
	struct fx *f = *state;
	struct ag_list *l;

	assert_int_equal(ag_find(f->log, NULL, NULL, &l), 0);
	assert_int_equal(ag_count(l), 1);
	assert_string_equal(ag_get(l, 0)->id, "a1b2c3d4");
	ag_free(l);
}

/* A log with no links: one branch, one line in errors.txt. */
static void test_unlinked_log_is_one_branch(void **state)
{
	static const char text[] =
		"{\"type\":\"user\",\"uuid\":\"u1\",\"message\":{\"role\":\"user\",\"content\":\"one\"}}\n"
		"{\"type\":\"assistant\",\"uuid\":\"a1\",\"parentUuid\":null,\"message\":{\"role\":"
		"\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"two\"}]}}\n"
		"{\"type\":\"user\",\"uuid\":\"u2\",\"message\":{\"role\":\"user\",\"content\":\"three\"}}\n";
	char *path = tu_write_str(text), *errs;
	struct session *s;

	(void)state;
	assert_int_equal(ss_open(path, SS_COMPLETE, &s), 0);
	assert_int_equal(br_count(ss_branches(s)), 1);
	assert_int_equal(ss_chain(s)->n, 3);
	errs = text_of(s, 1);
	assert_string_equal(errs, "line 1: no message row names a parent (every parentUuid null "
				  "or absent): the 3 rows are read in file order as one branch\n");
	free(errs);
	ss_close(s);
	tu_remove(path);
}

/* What is no session log is refused: usage-only rows, rows without type. */
static void test_files_that_are_no_log_are_refused(void **state)
{
	static const char *const texts[] = {
		"{\"timestamp\":\"2025-08-01T10:00:00Z\",\"usage\":{\"input_tokens\":3,"
		"\"output_tokens\":5},\"model\":\"claude-sonnet-4\"}\n"
		"{\"timestamp\":\"2025-08-01T10:01:00Z\",\"usage\":{\"input_tokens\":4}}\n",
		"{\"a\":1}\n[1,2]\n\"x\"\n",
	};
	struct session *s = NULL;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		char *path = tu_write_str(texts[i]);

		assert_int_equal(ss_open(path, SS_COMPLETE, &s), -ENOMSG);
		assert_null(s);
		assert_int_equal(ss_open(path, SS_LIVE, &s), -ENOMSG);
		tu_remove(path);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_v20_log_reads_whole, setup, teardown),
		cmocka_unit_test_setup_teardown(test_v20_boundary_renders_its_metadata, setup, teardown),
		cmocka_unit_test_setup_teardown(test_v20_agent_beside_the_log_is_found, setup, teardown),
		cmocka_unit_test(test_unlinked_log_is_one_branch),
		cmocka_unit_test(test_files_that_are_no_log_are_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

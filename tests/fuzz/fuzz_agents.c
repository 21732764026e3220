/*
 * fuzz_agents: a libFuzzer target for what the agents module reads from a
 * log by itself (agents.h): the agent id an Agent call's result names, and
 * the first sessionId of a log in the older layout.
 *
 * The bytes are the value of toolUseResult in a result of an Agent call
 * (newlines become spaces, so the record stays one line), and also the
 * whole of an older-layout agent log beside the session. The id read back
 * names two agent logs (one under subagents/, one beside the session), so
 * the listing has to name, quote and tell apart what any id gives.
 *
 * Checks: the id fits and is terminated, and a shorter buffer gets its
 * prefix; when cJSON reads the same plain string, the ids agree; ag_name()
 * is a safe name, the id itself when that is safe; ag_quote() is
 * printable ASCII that decodes back to the id; ag_find() names every log
 * safely and uniquely, and gives the same list again with its cache.
 */
#include <cjson/cJSON.h>

#include "agents.h"
#include "session.h"
#include "fuzz_util.h"

#define SID "5e55f500-0000-4000-8000-0000000000a1"

static const char line1[] =
	"{\"type\":\"assistant\",\"uuid\":\"a1\",\"parentUuid\":null,\"sessionId\":\"" SID "\","
	"\"message\":{\"id\":\"m1\",\"role\":\"assistant\",\"content\":[{\"type\":"
	"\"tool_use\",\"id\":\"t1\",\"name\":\"Agent\",\"input\":{}}]}}\n";
static const char line2[] =
	"{\"type\":\"user\",\"uuid\":\"u2\",\"parentUuid\":\"a1\",\"sessionId\":\"" SID "\","
	"\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\","
	"\"tool_use_id\":\"t1\",\"content\":\"done\"}]},\"toolUseResult\":";

static char dir[4200], log_path[4200], sub[4200];

static void setup(void)
{
	if (!fz_make_root("sessfs-fuzz-agents"))
		return;
	fz_put_dir(FZ_PATH(dir, "p"));
	FZ_PATH(log_path, "p/" SID ".jsonl");
	fz_put_dir(FZ_PATH(sub, "p/" SID));
	fz_put_dir(FZ_PATH(sub, "p/" SID "/subagents"));
}

/* The session log: an Agent call, and its result with the bytes. */
static void write_log(const uint8_t *data, size_t size)
{
	struct sbuf sb;
	size_t i;

	sb_init(&sb);
	sb_adds(&sb, line1);
	sb_adds(&sb, line2);
	for (i = 0; i < size; i++)
		sb_addc(&sb, data[i] == '\n' ? ' ' : (char)data[i]);
	sb_adds(&sb, "}\n");
	fz_put_file(log_path, sb.buf, sb.len);
	sb_free(&sb);
}

/* What cJSON reads as the agent id, when it is a plain string (no escape,
 * no control character, UTF-8, shorter than AG_ID_MAX) in a line cJSON
 * takes whole: then ag_result_agent() must agree. */
static int plain_id(const uint8_t *data, size_t size, char *out)
{
	struct sbuf sb;
	cJSON *j, *v;
	size_t i;
	int ok = 0;

	if (memchr(data, '\\', size))
		return 0;
	for (i = 0; i < size; i++)
		if (data[i] < 0x20)
			return 0;	/* cJSON's strings end at a NUL; it skips any
					 * control character as white space */
	sb_init(&sb);
	sb_adds(&sb, line2);
	sb_add(&sb, data, size);
	sb_adds(&sb, "}");
	j = cJSON_ParseWithOpts(sb.buf, NULL, 1);	/* the whole line, as the index */
	v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "toolUseResult"),
					     "agentId");
	if (cJSON_IsString(v) && *v->valuestring && strlen(v->valuestring) < AG_ID_MAX &&
	    fz_utf8_len(v->valuestring, strlen(v->valuestring)) == strlen(v->valuestring)) {
		strcpy(out, v->valuestring);
		ok = 1;
	}
	cJSON_Delete(j);
	sb_free(&sb);
	return ok;
}

/* ag_quote(): printable ASCII that decodes back to the id. */
static void check_quote(const char *id, size_t n)
{
	struct sbuf q, back;
	size_t i;
	unsigned v;

	sb_init(&q);
	sb_init(&back);
	ag_quote(id, n, &q);
	for (i = 0; i < q.len; i++) {
		CHECK(q.buf[i] >= 0x20 && q.buf[i] < 0x7f && q.buf[i] != '"');
		if (q.buf[i] != '\\') {
			sb_addc(&back, q.buf[i]);
			continue;
		}
		CHECK(i + 3 < q.len);
		CHECK(q.buf[i + 1] == 'x' && sscanf(q.buf + i + 2, "%2x", &v) == 1);
		sb_addc(&back, (char)v);
		i += 3;
	}
	CHECK(back.len == n && !memcmp(back.buf, id, n));
	sb_free(&q);
	sb_free(&back);
}

static void check_name_of(const char *id, size_t n)
{
	char name[NM_MAX + 1], again[NM_MAX + 1], safe[NM_MAX + 1];

	ag_name(id, n, name);
	fz_check_name(name);
	ag_name(id, n, again);
	CHECK(!strcmp(name, again));
	if (n <= AG_NAME_KEEP && nm_safe(id, n, safe, sizeof(safe)) == n &&
	    !memcmp(safe, id, n))
		CHECK(strlen(name) == n && !memcmp(name, id, n));
}

/* The id the result names, read as agents.h says. */
static size_t result_id(const uint8_t *data, size_t size, char *aid)
{
	struct session *s;
	char small[8], want[AG_ID_MAX + 1];
	uint32_t id;
	size_t n, m;

	CHECK(!ss_open(log_path, SS_COMPLETE, &s));
	id = idx_id_find(ss_idx(s), "u2", 2);
	n = ag_result_agent(ss_graph(s), ss_logf(s), id, aid, AG_ID_MAX + 1);
	CHECK(n <= AG_ID_MAX && aid[n] == '\0');
	m = ag_result_agent(ss_graph(s), ss_logf(s), id, small, sizeof(small));
	CHECK(m == (n < sizeof(small) ? n : sizeof(small) - 1) && small[m] == '\0');
	CHECK(!memcmp(small, aid, m));
	CHECK(!ag_result_agent(ss_graph(s), ss_logf(s), idx_id_find(ss_idx(s), "a1", 2),
			       small, sizeof(small)));
	if (plain_id(data, size, want))
		CHECK(n == strlen(want) && !memcmp(aid, want, n));
	ss_close(s);
	return n;
}

/* Two logs of one id (from the result, when it can be a file name), one
 * under subagents/, one in the older layout holding the bytes. */
static void list_agents(const uint8_t *data, size_t size, const char *aid, size_t n)
{
	char p1[8600], p2[8600];
	const char *id = n && n < 200 && !strchr(aid, '/') && strlen(aid) == n ? aid : "f";
	struct ag_seen *seen = ag_seen_new();
	struct ag_list *a, *b;
	struct sbuf errs;
	uint32_t i;

	snprintf(p1, sizeof(p1), "%s/agent-%s.jsonl", sub, id);
	snprintf(p2, sizeof(p2), "%s/agent-%s.jsonl", dir, id);
	fz_put_file(p1, line1, strlen(line1));
	fz_put_file(p2, data, size);
	CHECK(seen && !ag_find(log_path, NULL, seen, &a) && !ag_find(log_path, NULL, seen, &b));
	CHECK(ag_count(a) == ag_count(b) && ag_count(a) >= 1 && ag_count(a) <= 2);
	for (i = 0; i < ag_count(a); i++) {
		fz_check_name(ag_get(a, i)->name);
		CHECK(!strcmp(ag_get(a, i)->name, ag_get(b, i)->name));
		CHECK(ag_by_name(a, ag_get(a, i)->name) == ag_get(a, i));
	}
	sb_init(&errs);
	ag_errors_text(a, &errs);
	fz_check_utf8(&errs, "agents errors", 0);
	sb_free(&errs);
	ag_free(a);
	ag_free(b);
	ag_seen_free(seen);
	CHECK(!unlink(p1) && !unlink(p2));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char aid[AG_ID_MAX + 1];
	size_t n;
	int fd0;

	setup();
	fd0 = fz_lowest_fd();
	write_log(data, size);
	n = result_id(data, size, aid);
	if (n) {
		check_name_of(aid, n);
		check_quote(aid, n);
	}
	list_agents(data, size, aid, n);
	CHECK(fz_lowest_fd() == fd0);
	return 0;
}

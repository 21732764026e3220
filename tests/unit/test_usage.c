/*
 * usage and report: each API response counted once, as ccusage 20.0.24
 * counts it; usage.json; the totals of a log with its subagents.
 *
 * The expectations of the crafted cases are what ccusage 20.0.24 gave on
 * the same rows (see usage.h); the corpus case reads its figures from
 * tests/ccusage-20.0.24.tsv.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "testutil.h"
#include "report.h"
#include "session.h"
#include "usage.h"

#define TABLE "tests/ccusage-20.0.24.tsv"

/* One row with usage. id or rid NULL leaves the key out; model NULL too;
 * extra: more top-level members ("" for none, else starting with ','). */
static void urow(struct sbuf *sb, int uuid, const char *id, const char *rid,
		 const char *model, long in, long out, long cc, long cr, const char *extra)
{
	sb_addf(sb, "{\"type\":\"assistant\",\"uuid\":\"%08d-0000-4000-8000-%012d\","
		"\"parentUuid\":null,\"sessionId\":\"" TU_SID "\","
		"\"timestamp\":\"2026-01-01T10:00:%02d.000Z\",\"message\":{", uuid, uuid,
		uuid % 60);
	if (id)
		sb_addf(sb, "\"id\":\"%s\",", id);
	if (model)
		sb_addf(sb, "\"model\":\"%s\",", model);
	sb_addf(sb, "\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"r%d\"}],"
		"\"usage\":{\"input_tokens\":%ld,\"cache_creation_input_tokens\":%ld,"
		"\"cache_read_input_tokens\":%ld,\"output_tokens\":%ld}}", uuid, in, cc, cr, out);
	if (rid)
		sb_addf(sb, ",\"requestId\":\"%s\"", rid);
	sb_addf(sb, "%s}\n", extra);
}

/* The totals of a log held in text. */
static void totals_of(const char *text, struct us_total *t, struct sbuf *json)
{
	char *path = tu_write_str(text);

	assert_int_equal(rp_log_totals(path, t, json), 0);
	tu_remove(path);
}

/* usage.json of a log held in text, parsed (it must parse); with facts,
 * that session.json parses too. */
static cJSON *usage_json_of(const char *text, int facts)
{
	char *path = tu_write_str(text);
	struct session *s;
	struct sbuf sb;
	cJSON *j;

	assert_int_equal(ss_open(path, SS_COMPLETE, &s), 0);
	sb_init(&sb);
	if (facts) {
		ss_facts_json(s, &sb);
		assert_non_null(j = cJSON_Parse(sb.buf));
		cJSON_Delete(j);
		sb_reset(&sb);
	}
	assert_int_equal(rp_usage_json(s, NULL, 0, &sb), 0);
	assert_non_null(j = cJSON_Parse(sb.buf));
	sb_free(&sb);
	ss_close(s);
	tu_remove(path);
	return j;
}

static void expect(const struct us_total *t, uint64_t in, uint64_t out,
		   uint64_t cc, uint64_t cr, uint64_t responses)
{
	assert_int_equal(t->t.input, in);
	assert_int_equal(t->t.output, out);
	assert_int_equal(t->t.cache_create, cc);
	assert_int_equal(t->t.cache_read, cr);
	assert_int_equal(t->responses, responses);
}

static void test_split_response_counts_once(void **state)
{
	struct sbuf sb;
	struct us_total t;

	(void)state;
	sb_init(&sb);
	/* three rows of one response (text, tool_use ...): usage repeated */
	urow(&sb, 1, "msg_1", "req_1", "m", 100, 7, 0, 0, "");
	urow(&sb, 2, "msg_1", "req_1", "m", 100, 7, 0, 0, "");
	urow(&sb, 3, "msg_1", "req_1", "m", 100, 7, 0, 0, "");
	urow(&sb, 4, "msg_2", "req_2", "m", 200, 9, 0, 0, "");
	totals_of(sb.buf, &t, NULL);
	expect(&t, 300, 16, 0, 0, 2);
	sb_free(&sb);
}

static void test_largest_row_of_a_response_wins(void **state)
{
	static const struct {
		long a[4], b[4];	/* in, out, cc, cr of two rows of one response */
		long want[4];
	} cases[] = {
		{ { 10, 1, 0, 0 }, { 20, 50, 0, 0 }, { 20, 50, 0, 0 } },
		{ { 20, 50, 0, 0 }, { 10, 1, 0, 0 }, { 20, 50, 0, 0 } },
		{ { 10, 50, 0, 0 }, { 20, 1, 0, 0 }, { 10, 50, 0, 0 } },
		{ { 10, 5, 0, 0 }, { 100, 1, 0, 0 }, { 100, 1, 0, 0 } },
		{ { 10, 5, 0, 0 }, { 14, 1, 0, 0 }, { 10, 5, 0, 0 } },	/* tie: first */
		{ { 14, 1, 0, 0 }, { 10, 5, 0, 0 }, { 14, 1, 0, 0 } },
		{ { 10, 1, 100, 0 }, { 10, 1, 0, 200 }, { 10, 1, 0, 200 } },
		{ { 10, 5, 0, 100 }, { 100, 1, 0, 0 }, { 10, 5, 0, 100 } },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sbuf sb;
		struct us_total t;

		sb_init(&sb);
		urow(&sb, 1, "m1", "r1", "x", cases[i].a[0], cases[i].a[1], cases[i].a[2],
		     cases[i].a[3], "");
		urow(&sb, 2, "m1", "r1", "x", cases[i].b[0], cases[i].b[1], cases[i].b[2],
		     cases[i].b[3], "");
		totals_of(sb.buf, &t, NULL);
		expect(&t, (uint64_t)cases[i].want[0], (uint64_t)cases[i].want[1],
		       (uint64_t)cases[i].want[2], (uint64_t)cases[i].want[3], 1);
		sb_free(&sb);
	}
}

static void test_response_repeated_after_a_resume(void **state)
{
	struct sbuf sb;
	struct us_total t;

	(void)state;
	sb_init(&sb);
	urow(&sb, 1, "msg_a", "req_a", "m", 1000, 10, 0, 0, "");
	urow(&sb, 2, "msg_b", "req_b", "m", 2000, 20, 0, 0, "");
	/* a resume (or --fork-session) writes the first response again */
	sb_adds(&sb, "{\"type\":\"user\",\"uuid\":\"00000003-0000-4000-8000-000000000003\","
		     "\"parentUuid\":null,\"timestamp\":\"2026-01-01T10:01:00.000Z\","
		     "\"message\":{\"role\":\"user\",\"content\":\"go on\"}}\n");
	urow(&sb, 4, "msg_a", "req_a", "m", 1000, 10, 0, 0, "");
	/* the same id with another request is another response; so is one
	 * without a requestId */
	urow(&sb, 5, "msg_a", "req_z", "m", 1000, 10, 0, 0, "");
	urow(&sb, 6, "msg_a", NULL, "m", 1000, 10, 0, 0, "");
	urow(&sb, 7, "msg_a", NULL, "m", 1000, 10, 0, 0, "");
	totals_of(sb.buf, &t, NULL);
	expect(&t, 5000, 50, 0, 0, 4);
	sb_free(&sb);
}

static void test_rows_without_an_id_all_count(void **state)
{
	struct sbuf sb;
	struct us_total t;

	(void)state;
	sb_init(&sb);
	urow(&sb, 1, NULL, "req_1", "m", 10, 1, 0, 0, "");
	urow(&sb, 2, NULL, "req_1", "m", 10, 1, 0, 0, "");
	urow(&sb, 3, NULL, NULL, "m", 10, 1, 0, 0, "");
	totals_of(sb.buf, &t, NULL);
	expect(&t, 30, 3, 0, 0, 3);
	sb_free(&sb);
}

static void test_unusable_usage_is_skipped(void **state)
{
	struct sbuf sb;
	struct us_total t;

	(void)state;
	sb_init(&sb);
	urow(&sb, 1, "m1", "r1", "m", -5, 1, 0, 0, "");		/* negative */
	urow(&sb, 2, "m2", "r2", "m", 100, 2, 0, 0, "");
	/* a float, a string, no input_tokens, no timestamp */
	sb_adds(&sb, "{\"type\":\"assistant\",\"timestamp\":\"2026-01-01T10:00:03.000Z\","
		     "\"message\":{\"id\":\"m3\",\"content\":[],\"usage\":{\"input_tokens\":10.7,"
		     "\"output_tokens\":1}}}\n"
		     "{\"type\":\"assistant\",\"timestamp\":\"2026-01-01T10:00:04.000Z\","
		     "\"message\":{\"id\":\"m4\",\"content\":[],\"usage\":{\"input_tokens\":\"10\","
		     "\"output_tokens\":1}}}\n"
		     "{\"type\":\"assistant\",\"timestamp\":\"2026-01-01T10:00:05.000Z\","
		     "\"message\":{\"id\":\"m5\",\"content\":[],\"usage\":{\"output_tokens\":1}}}\n"
		     "{\"type\":\"assistant\",\"message\":{\"id\":\"m6\",\"content\":[],"
		     "\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n");
	totals_of(sb.buf, &t, NULL);
	expect(&t, 100, 2, 0, 0, 1);
	sb_free(&sb);
}

/* A row whose usage holds cache_creation (split) with 1000 written in
 * cache_creation_input_tokens. */
static void split_row(struct sbuf *sb, int uuid, const char *split)
{
	sb_addf(sb, "{\"type\":\"assistant\",\"uuid\":\"%08d-0000-4000-8000-%012d\","
		"\"timestamp\":\"2026-01-01T10:00:%02d.000Z\",\"requestId\":\"r%d\",\"message\":"
		"{\"id\":\"m%d\",\"model\":\"m\",\"content\":[],\"usage\":{\"input_tokens\":5,"
		"\"cache_creation_input_tokens\":1000,\"cache_read_input_tokens\":0,"
		"\"output_tokens\":10,\"cache_creation\":%s}}}\n", uuid, uuid, uuid, uuid, uuid, split);
}

/* message.usage.cache_creation, as ccusage 20.0.24 read each of these
 * rows (measured on 2026-12-07, one log per row): the writes it splits
 * are the row's cache writes; a split that is no object, or a count in
 * it that is no non-negative integer, and the row does not count. */
static void test_cache_split_is_the_writes(void **state)
{
	static const char *const counted[] = {
		"{\"ephemeral_5m_input_tokens\":300,\"ephemeral_1h_input_tokens\":0}",	/* 300 */
		"{\"ephemeral_5m_input_tokens\":0,\"ephemeral_1h_input_tokens\":400}",	/* 400 */
		"{}",									/* 0 */
		"{\"ephemeral_5m_input_tokens\":2000}",					/* 2000 */
		"null",									/* 1000 */
		"{\"ephemeral_1h_input_tokens\":7,\"other\":1}",				/* 7 */
		"[]",									/* 0 */
	}, *const dropped[] = {
		"{\"ephemeral_5m_input_tokens\":null}", "{\"ephemeral_5m_input_tokens\":\"300\"}",
		"{\"ephemeral_5m_input_tokens\":300.5}", "{\"ephemeral_5m_input_tokens\":-3}",
		"{\"ephemeral_5m_input_tokens\":1e3}", "{\"ephemeral_5m_input_tokens\":{\"a\":1}}",
		"{\"ephemeral_5m_input_tokens\":300,\"ephemeral_1h_input_tokens\":null}",
		"\"x\"", "5", "true",
	};
	struct sbuf sb;
	struct us_total t;
	size_t i;

	(void)state;
	sb_init(&sb);
	for (i = 0; i < sizeof(counted) / sizeof(*counted); i++)
		split_row(&sb, (int)i + 1, counted[i]);
	for (i = 0; i < sizeof(dropped) / sizeof(*dropped); i++)
		split_row(&sb, (int)i + 20, dropped[i]);
	totals_of(sb.buf, &t, NULL);
	expect(&t, 35, 70, 300 + 400 + 2000 + 1000 + 7, 0, 7);
	sb_free(&sb);
}

static void test_models_used_and_recorded_cost(void **state)
{
	struct sbuf sb, json;
	struct us_total t;
	cJSON *j, *models;

	(void)state;
	sb_init(&sb);
	sb_init(&json);
	urow(&sb, 1, "m1", "r1", "claude-b", 10, 1, 0, 0, ",\"costUSD\":0.5");
	urow(&sb, 2, "m2", "r2", "<synthetic>", 0, 0, 0, 0, "");
	urow(&sb, 3, "m3", "r3", "claude-a", 100, 2, 0, 0, ",\"costUSD\":0.25");
	urow(&sb, 4, "m4", "r4", NULL, 1000, 3, 0, 0, "");
	totals_of(sb.buf, &t, &json);
	expect(&t, 1110, 6, 0, 0, 4);
	/* what the rows record is "logged"; the table knows neither model */
	assert_true(t.has_logged);
	assert_true(t.logged > 0.7499 && t.logged < 0.7501);
	assert_true(t.cost == 0);
	assert_int_equal(t.unpriced, 2);	/* not <synthetic>, not a row without a model */
	{
		struct sbuf obj;

		sb_init(&obj);
		sb_addf(&obj, "{\n%s\n}", json.buf);
		j = cJSON_Parse(obj.buf);
		sb_free(&obj);
	}
	assert_non_null(j);
	models = cJSON_GetObjectItem(j, "modelsUsed");
	assert_int_equal(cJSON_GetArraySize(models), 2);	/* no <synthetic> */
	assert_string_equal(cJSON_GetArrayItem(models, 0)->valuestring, "claude-b");
	assert_string_equal(cJSON_GetArrayItem(models, 1)->valuestring, "claude-a");
	assert_int_equal(cJSON_GetObjectItem(j, "totalTokens")->valuedouble, 1116);
	assert_true(cJSON_GetObjectItem(j, "costUSD")->valuedouble == 0);
	assert_true(cJSON_GetObjectItem(j, "costUSDLogged")->valuedouble == 0.75);
	models = cJSON_GetObjectItem(j, "modelBreakdowns");
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(models, 0), "modelName")->valuestring,
			    "claude-b");
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetArrayItem(models, 0), "missingPricing")));
	assert_true(cJSON_GetObjectItem(cJSON_GetArrayItem(models, 0), "costUSDLogged")->valuedouble == 0.5);
	cJSON_Delete(j);
	sb_free(&json);
	sb_free(&sb);
}

/* usage.json of a log with no usage: zeros, no cost, no real size. */
static void test_log_without_usage(void **state)
{
	struct tu_log l;
	struct session *s;
	char *path;
	cJSON *j, *sess;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "hello");
	tu_row(&l, "assistant", 2, 1, "\"message\":{\"id\":\"msg_1\",\"role\":\"assistant\","
	       "\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}");
	path = tu_write_str(l.sb.buf);
	assert_int_equal(ss_open(path, SS_COMPLETE, &s), 0);
	assert_int_equal(us_nrows(ss_usage(s)), 0);
	ss_close(s);
	tu_remove(path);
	j = usage_json_of(l.sb.buf, 0);
	sess = cJSON_GetObjectItem(j, "session");
	assert_int_equal(cJSON_GetObjectItem(sess, "totalTokens")->valuedouble, 0);
	assert_true(cJSON_GetObjectItem(sess, "costUSD")->valuedouble == 0);
	assert_null(cJSON_GetObjectItem(sess, "costUSDLogged"));
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, "contextTokensReal")));
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, "costState")));
	cJSON_Delete(j);
	tu_log_free(&l);
}

/* A row at time ts of model with usage (the inside of message.usage) and
 * top-level extra ("" or ",..."). */
static void prow(struct sbuf *sb, int uuid, const char *ts, const char *model,
		 const char *usage, const char *extra)
{
	sb_addf(sb, "{\"type\":\"assistant\",\"uuid\":\"%08d-0000-4000-8000-%012d\","
		"\"parentUuid\":null,\"sessionId\":\"" TU_SID "\",\"timestamp\":\"%s\","
		"\"requestId\":\"req_%d\",\"message\":{\"id\":\"msg_%d\",\"model\":\"%s\","
		"\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"r\"}],"
		"\"usage\":{%s}}%s}\n", uuid, uuid, ts, uuid, uuid, model, usage, extra);
}

static int near(double a, double b)
{
	return a - b < 1e-9 && b - a < 1e-9;
}

/* Each row priced as ccusage prices it (its figures: tests/ccusage/): the
 * cache writes by their split, the rates past 200k, a fast response, a
 * 1.0.x row without the split that records its costUSD; a model the
 * table lacks costs nothing and errors.txt's line says so once. */
static void test_prices_of_rows(void **state)
{
	struct sbuf sb, err;
	struct session *s;
	const struct us_set *u;
	char *path;

	(void)state;
	sb_init(&sb);
	prow(&sb, 1, "2026-01-20T15:00:40.000Z", "claude-sonnet-4-5-20250929",
	     "\"input_tokens\":250000,\"cache_creation_input_tokens\":440000,"
	     "\"cache_read_input_tokens\":260000,\"output_tokens\":3000,\"cache_creation\":"
	     "{\"ephemeral_1h_input_tokens\":230000,\"ephemeral_5m_input_tokens\":210000}", "");
	prow(&sb, 2, "2026-01-20T15:01:00.000Z", "claude-opus-4-6",
	     "\"input_tokens\":700,\"cache_creation_input_tokens\":1000,"
	     "\"cache_read_input_tokens\":9000,\"output_tokens\":150,\"cache_creation\":"
	     "{\"ephemeral_1h_input_tokens\":500,\"ephemeral_5m_input_tokens\":500},"
	     "\"speed\":\"fast\"", "");
	prow(&sb, 3, "2026-01-20T15:02:00.000Z", "claude-sonnet-4-20250514",
	     "\"input_tokens\":4,\"cache_creation_input_tokens\":12000,"
	     "\"cache_read_input_tokens\":0,\"output_tokens\":350", ",\"costUSD\":0.0834");
	prow(&sb, 4, "2026-01-20T15:03:00.000Z", "claude-opus-5-5",
	     "\"input_tokens\":5000,\"output_tokens\":140", "");
	prow(&sb, 5, "2026-01-20T15:04:00.000Z", "claude-opus-5-5",
	     "\"input_tokens\":50,\"output_tokens\":1", "");
	path = tu_write_str(sb.buf);
	assert_int_equal(ss_open(path, SS_COMPLETE, &s), 0);
	u = ss_usage(s);
	assert_int_equal(us_nrows(u), 5);
	assert_true(near(us_row(u, 0)->cost, 3.426));
	assert_true(near(us_row(u, 1)->cost, 0.11925));
	assert_true(near(us_row(u, 2)->cost, 0.050262));
	assert_true(us_row(u, 2)->has_logged && near(us_row(u, 2)->logged, 0.0834));
	assert_true(us_row(u, 3)->cost == 0 && us_row(u, 3)->unpriced);
	assert_false(us_row(u, 0)->unpriced);
	sb_init(&err);
	us_unpriced_text(u, ss_idx(s), &err);
	assert_string_equal(err.buf, "line 4: model \"claude-opus-5-5\" is not in the price table "
			    "(data/prices.txt (built in)): its responses are priced at $0\n");
	sb_free(&err);
	ss_close(s);
	tu_remove(path);
	sb_free(&sb);
}

/* Claude Code's own total (the last cost-state record) is the logged cost
 * of a log whose rows record none; rows that record one win. */
static void test_logged_cost_state(void **state)
{
	struct us_total t;
	struct sbuf sb;
	cJSON *j;

	(void)state;
	sb_init(&sb);
	prow(&sb, 1, "2026-01-20T15:00:00.000Z", "claude-haiku-4-5-20251001",
	     "\"input_tokens\":1000,\"output_tokens\":100", "");
	sb_adds(&sb, "{\"type\":\"cost-state\",\"sessionId\":\"" TU_SID "\",\"totalCostUSD\":0.5}\n");
	sb_adds(&sb, "{\"type\":\"cost-state\",\"sessionId\":\"" TU_SID "\",\"totalCostUSD\":0.75}\n");
	totals_of(sb.buf, &t, NULL);
	assert_true(near(t.cost, 0.0015));
	assert_true(t.has_logged && near(t.logged, 0.75));
	j = usage_json_of(sb.buf, 0);
	assert_true(near(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "session"), "costUSDLogged")
				 ->valuedouble, 0.75));
	assert_true(near(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "log"), "costUSD")->valuedouble,
			 0.0015));
	/* a branch's is its rows' only: none */
	assert_null(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "branches"), 0),
					"costUSDLogged"));
	assert_non_null(strstr(cJSON_GetObjectItem(j, "pricedAs")->valuestring, "data/prices.txt"));
	cJSON_Delete(j);

	sb_reset(&sb);
	prow(&sb, 1, "2026-01-20T15:00:00.000Z", "claude-haiku-4-5-20251001",
	     "\"input_tokens\":1000,\"output_tokens\":100", ",\"costUSD\":0.002");
	sb_adds(&sb, "{\"type\":\"cost-state\",\"sessionId\":\"" TU_SID "\",\"totalCostUSD\":0.75}\n");
	totals_of(sb.buf, &t, NULL);
	assert_true(t.has_logged && near(t.logged, 0.002));
	sb_free(&sb);
}

/* Numbers a double cannot hold ("1e999") or whose sum it cannot: no
 * figure where one was given, null where a sum overflows; usage.json and
 * session.json stay JSON (JSON has no infinity: "inf" made them unreadable). */
static void test_numbers_beyond_a_double(void **state)
{
	const cJSON *cs;
	struct us_total t;
	struct sbuf sb;
	cJSON *j;

	(void)state;
	sb_init(&sb);
	prow(&sb, 1, "2026-01-20T15:00:00.000Z", "claude-haiku-4-5-20251001",
	     "\"input_tokens\":1000,\"output_tokens\":100", ",\"costUSD\":1e999");
	sb_adds(&sb, "{\"type\":\"cost-state\",\"sessionId\":\"" TU_SID "\",\"totalCostUSD\":-1e999,"
		"\"modelUsage\":{\"a\":{\"inputTokens\":1e308},\"b\":{\"inputTokens\":1e308}}}\n");
	totals_of(sb.buf, &t, NULL);
	assert_false(t.has_logged);
	j = usage_json_of(sb.buf, 1);
	assert_null(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "session"), "costUSDLogged"));
	cs = cJSON_GetObjectItem(j, "costState");
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(cs, "totalCostUSD")));
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(cs, "inputTokens")));	/* 1e308 twice */
	cJSON_Delete(j);

	/* each figure holds in a double, their sum does not */
	sb_reset(&sb);
	prow(&sb, 1, "2026-01-20T15:00:00.000Z", "claude-haiku-4-5-20251001",
	     "\"input_tokens\":1000,\"output_tokens\":100", ",\"costUSD\":1e308");
	prow(&sb, 2, "2026-01-20T15:00:01.000Z", "claude-haiku-4-5-20251001",
	     "\"input_tokens\":1000,\"output_tokens\":100", ",\"costUSD\":1e308");
	j = usage_json_of(sb.buf, 0);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "session"),
						     "costUSDLogged")));
	cJSON_Delete(j);
	sb_free(&sb);
}

/* The hours a tally gives for the blocks: rows at the hour exactly apart. */
static void test_hours(void **state)
{
	static const char *const ts[] = {
		"2026-01-01T11:00:00.001Z", "2026-01-01T10:30:00.000Z", "2026-01-01T11:00:00.000Z",
		"2026-01-01T11:59:59.999Z", "2026-01-01T13:00:00.000Z",
	};
	struct sbuf sb;
	struct session *s;
	struct us_tally *y = us_tally_new();
	struct us_hour *h;
	uint32_t i, n;
	char *path;

	(void)state;
	sb_init(&sb);
	for (i = 0; i < 5; i++)
		prow(&sb, (int)i + 1, ts[i], i == 3 ? "claude-opus-5" : "claude-haiku-4-5",
		     "\"input_tokens\":10,\"output_tokens\":1", "");
	path = tu_write_str(sb.buf);
	assert_int_equal(ss_open(path, SS_COMPLETE, &s), 0);
	assert_int_equal(us_tally_set(y, ss_usage(s)), 0);
	assert_int_equal(us_tally_hours(y, &h, &n), 0);
	assert_int_equal(n, 4);
	assert_int_equal(h[0].hour, 1767261600000LL);	/* 10:00 */
	assert_int_equal(h[0].at_start, 0);
	assert_int_equal(h[1].hour, 1767265200000LL);	/* 11:00: the row at 11:00:00.000 */
	assert_int_equal(h[1].at_start, 1);
	assert_int_equal(h[1].t.responses, 1);
	assert_int_equal(h[2].at_start, 0);		/* the others of 11:00 */
	assert_int_equal(h[2].first, 1767265200001LL);
	assert_int_equal(h[2].last, 1767268799999LL);
	assert_int_equal(h[2].t.responses, 2);
	assert_int_equal(h[2].models, 3);		/* haiku (bit 0) and opus-5 (bit 1) */
	assert_int_equal(h[3].at_start, 1);
	free(h);
	us_tally_free(y);
	ss_close(s);
	tu_remove(path);
	sb_free(&sb);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
	fclose(f);
}

/* A session log with a subagent: the agent's rows count in the session's
 * total (once, with the session's own), sidechain rows too. */
static void test_sidechains_and_agents(void **state)
{
	char dir[] = "/tmp/sessfs-usage-XXXXXX", log[256], sub[256], agent[512];
	struct sbuf main_log, agent_log;
	struct us_total t;
	struct session *s, *a;
	struct rp_agent ra;
	struct sbuf json;
	cJSON *j;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(log, sizeof(log), "%s/" TU_SID ".jsonl", dir);
	snprintf(sub, sizeof(sub), "%s/" TU_SID, dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	strcat(sub, "/subagents");
	assert_int_equal(mkdir(sub, 0755), 0);
	snprintf(agent, sizeof(agent), "%s/agent-a1.jsonl", sub);
	sb_init(&main_log);
	sb_init(&agent_log);
	urow(&main_log, 1, "m1", "r1", "x", 10, 1, 0, 0, "");
	urow(&main_log, 2, "m2", "r2", "x", 100, 2, 0, 0, ",\"isSidechain\":true");
	urow(&agent_log, 3, "m1", "r1", "x", 10, 1, 0, 0, ",\"isSidechain\":true");
	urow(&agent_log, 4, "m3", "r3", "x", 1000, 3, 0, 0, ",\"isSidechain\":true");
	write_file(log, main_log.buf);
	write_file(agent, agent_log.buf);

	assert_int_equal(rp_log_totals(log, &t, NULL), 0);
	expect(&t, 1110, 6, 0, 0, 3);

	assert_int_equal(ss_open(log, SS_COMPLETE, &s), 0);
	assert_int_equal(ss_open(agent, SS_COMPLETE, &a), 0);
	ra.name = "a1";
	ra.s = a;
	sb_init(&json);
	assert_int_equal(rp_usage_json(s, &ra, 1, &json), 0);
	j = cJSON_Parse(json.buf);
	assert_non_null(j);
	assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "session"),
					     "inputTokens")->valuedouble, 1110);
	assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "log"),
					     "inputTokens")->valuedouble, 110);
	assert_int_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "agents"), 0),
					     "inputTokens")->valuedouble, 1010);
	cJSON_Delete(j);
	sb_free(&json);
	ss_close(a);
	ss_close(s);
	unlink(agent);
	rmdir(sub);
	*strrchr(sub, '/') = '\0';
	rmdir(sub);
	unlink(log);
	rmdir(dir);
	sb_free(&main_log);
	sb_free(&agent_log);
}

/* The real size: the last response on the current branch, not a
 * <synthetic> row. */
static void test_real_context_size(void **state)
{
	struct sbuf sb;
	struct session *s;
	const struct us_row *r;
	char *path;

	(void)state;
	sb_init(&sb);
	urow(&sb, 1, "m1", "r1", "x", 10, 1, 5, 7, "");
	sb_adds(&sb, "{\"type\":\"assistant\",\"uuid\":\"00000002-0000-4000-8000-000000000002\","
		     "\"parentUuid\":\"00000001-0000-4000-8000-000000000001\","
		     "\"timestamp\":\"2026-01-01T10:00:02.000Z\",\"message\":{\"id\":\"m2\","
		     "\"model\":\"<synthetic>\",\"role\":\"assistant\",\"content\":[{\"type\":"
		     "\"text\",\"text\":\"No response requested.\"}],\"usage\":{\"input_tokens\":0,"
		     "\"output_tokens\":0}}}\n");
	path = tu_write_str(sb.buf);
	assert_int_equal(ss_open(path, SS_COMPLETE, &s), 0);
	assert_int_equal(ss_last_usage(s, &r), 0);
	assert_non_null(r);
	assert_int_equal(us_context(&r->t), 22);
	ss_close(s);
	tu_remove(path);
	sb_free(&sb);
}

/* Rows read through the count's 64 KB windows (usage.c): many, some
 * across a window's end, one longer than a quarter window (read alone),
 * rows without usage between; every one counted once. */
static void test_counts_across_read_windows(void **state)
{
	struct sbuf sb, big;
	struct us_total t;
	char id[32];
	int i;

	(void)state;
	sb_init(&sb);
	sb_init(&big);
	sb_adds(&big, ",\"pad\":\"");
	for (i = 0; i < 40000; i++)
		sb_adds(&big, "x");
	sb_adds(&big, "\"");
	for (i = 1; i <= 3000; i++) {
		snprintf(id, sizeof(id), "msg_%d", i);
		urow(&sb, i, id, NULL, "m", 1, 2, 3, 4, i == 1500 ? big.buf : "");
		if (i % 7 == 0)
			sb_addf(&sb, "{\"type\":\"user\",\"uuid\":\"u%d\",\"parentUuid\":null,"
				"\"sessionId\":\"" TU_SID "\",\"message\":{\"role\":\"user\","
				"\"content\":\"q\"}}\n", i);
	}
	assert_true(sb.len > 8 * (64u << 10));
	totals_of(sb.buf, &t, NULL);
	expect(&t, 3000, 6000, 9000, 12000, 3000);
	sb_free(&big);
	sb_free(&sb);
}

/* A growing log: the rows appended are read, the others kept. */
static void test_growing_log(void **state)
{
	struct sbuf sb;
	struct session *s;
	struct us_tally *y;
	struct us_total t;
	char *path;
	FILE *f;

	(void)state;
	sb_init(&sb);
	urow(&sb, 1, "m1", "r1", "x", 10, 1, 0, 0, "");
	path = tu_write_str(sb.buf);
	assert_int_equal(ss_open(path, SS_LIVE, &s), 0);
	assert_int_equal(us_nrows(ss_usage(s)), 1);
	sb_reset(&sb);
	urow(&sb, 2, "m1", "r1", "x", 10, 1, 0, 0, "");
	urow(&sb, 3, "m2", "r2", "x", 100, 2, 0, 0, "");
	f = fopen(path, "a");
	assert_non_null(f);
	fputs(sb.buf, f);
	fclose(f);
	assert_int_equal(ss_refresh(s), SS_GREW);
	assert_int_equal(us_nrows(ss_usage(s)), 3);
	y = us_tally_new();
	assert_int_equal(us_tally_set(y, ss_usage(s)), 0);
	us_tally_total(y, &t);
	expect(&t, 110, 3, 0, 0, 2);
	us_tally_free(y);
	ss_close(s);
	tu_remove(path);
	sb_free(&sb);
}

/* Every corpus log's totals equal ccusage's, as recorded in TABLE. */
/* us_read_row_line() gives what us_read_row() gave (rc, row, model), and
 * leaves the record's whole line when it read one: always for a row. */
static void line_agrees(struct session *s, uint32_t i, int rc, const struct us_row *row,
			const char *model)
{
	struct sbuf m, line, whole;
	struct us_row got;

	sb_init(&m);
	sb_init(&line);
	sb_init(&whole);
	sb_adds(&line, "stale");
	assert_int_equal(us_read_row_line(ss_idx(s), ss_logf(s), i, &got, &m, &line), rc);
	if (rc > 0) {
		assert_memory_equal(&got.t, &row->t, sizeof(got.t));
		assert_int_equal(got.key, row->key);
		assert_string_equal(m.buf, model);
		assert_true(line.len > 0);
	}
	if (line.len) {
		assert_int_equal(lf_read(ss_logf(s), idx_rec(ss_idx(s), i), &whole), 0);
		assert_int_equal(line.len, whole.len);
		assert_memory_equal(line.buf, whole.buf, line.len);
	}
	/* From the whole line given (not read again: the same row). */
	if (i < idx_nrecs(ss_idx(s)) && !lf_read(ss_logf(s), idx_rec(ss_idx(s), i), &line)) {
		assert_int_equal(us_read_row_line(ss_idx(s), ss_logf(s), i, &got, &m, &line), rc);
		if (rc > 0) {
			assert_memory_equal(&got.t, &row->t, sizeof(got.t));
			assert_string_equal(m.buf, model);
		}
		assert_int_equal(line.len, idx_rec(ss_idx(s), i)->len);
	}
	sb_free(&m);
	sb_free(&line);
	sb_free(&whole);
}

/* us_read_row() of every record of the log at path gives what the set
 * holds for it: the same row, the same model name. The number of rows. */
static uint32_t rows_agree(const char *path)
{
	struct session *s;
	const struct us_set *u;
	struct sbuf model;
	uint32_t i, n = 0;

	assert_int_equal(ss_open(path, SS_COMPLETE, &s), 0);
	u = ss_usage(s);
	assert_non_null(u);
	sb_init(&model);
	for (i = 0; i <= idx_nrecs(ss_idx(s)); i++) {
		const struct us_row *want = us_of_rec(u, i);
		struct us_row got;
		int rc = us_read_row(ss_idx(s), ss_logf(s), i, &got, &model);

		assert_int_equal(rc, want != NULL);
		line_agrees(s, i, rc, &got, model.buf);
		if (!want)
			continue;
		n++;
		assert_int_equal(got.rec, want->rec);
		assert_int_equal(got.key, want->key);
		assert_int_equal(got.ts, want->ts);
		assert_memory_equal(&got.t, &want->t, sizeof(got.t));
		assert_int_equal(got.has_logged, want->has_logged);
		assert_true(got.logged == want->logged);
		assert_true(got.cost == want->cost);
		assert_int_equal(got.unpriced, want->unpriced);
		assert_string_equal(model.buf, us_model(u, want->model));
	}
	assert_int_equal(n, us_nrows(u));
	sb_free(&model);
	ss_close(s);
	return n;
}

/* A message file reads its row alone (us_read_row): the same as the set's,
 * for rows of every kind, unusable ones and long or escaped model names
 * included. */
static void test_row_alone_is_the_sets(void **state)
{
	struct sbuf sb, longname;
	char *path;
	int i;

	(void)state;
	sb_init(&sb);
	sb_init(&longname);
	for (i = 0; i < 300; i++)
		sb_adds(&longname, i % 7 ? "m" : "\\u00e9");
	urow(&sb, 1, "m1", "r1", "claude-b", 10, 1, 0, 0, ",\"costUSD\":0.5");
	urow(&sb, 2, "m2", NULL, "<synthetic>", 0, 0, 0, 0, "");
	urow(&sb, 3, NULL, "r3", NULL, 100, 2, 7, 9, "");
	urow(&sb, 4, "m4", "r4", longname.buf, 1000, 3, 0, 0, "");
	urow(&sb, 5, "m5", "r5", "a\\u0000b", 1, 1, 1, 1, "");
	urow(&sb, 6, "m6", "r6", "", -5, 1, 0, 0, "");		/* unusable */
	sb_adds(&sb, "{\"type\":\"assistant\",\"message\":{\"id\":\"m7\",\"content\":[],"
		     "\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n");
	urow(&sb, 8, "m1", "r1", "claude-b", 20, 1, 0, 0, "");	/* the pair again */
	path = tu_write_str(sb.buf);
	assert_int_equal(rows_agree(path), 6);
	tu_remove(path);
	sb_free(&longname);
	sb_free(&sb);
}

static void test_corpus_matches_ccusage(void **state)
{
	const char *corpus = tu_corpus();
	FILE *f = fopen(TABLE, "r");
	char line[2048], path[4096];
	int n = 0;

	(void)state;
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		char log[1024], models[512] = "";
		unsigned long long in, out, cc, cr, total;
		struct us_total t;

		if (line[0] == '#')
			continue;
		assert_true(sscanf(line, "%1023s %llu %llu %llu %llu %llu %511s", log, &in, &out,
				   &cc, &cr, &total, models) >= 6);
		snprintf(path, sizeof(path), "%s/%s", corpus, log);
		assert_int_equal(rp_log_totals(path, &t, NULL), 0);
		if (t.t.input != in || t.t.output != out || us_sum(&t.t) != total)
			fail_msg("%s: %llu in / %llu out, ccusage %llu / %llu", log,
				 (unsigned long long)t.t.input, (unsigned long long)t.t.output,
				 in, out);
		assert_int_equal(t.t.cache_create, cc);
		assert_int_equal(t.t.cache_read, cr);
		rows_agree(path);
		n++;
	}
	fclose(f);
	assert_true(n >= 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_response_counts_once),
		cmocka_unit_test(test_largest_row_of_a_response_wins),
		cmocka_unit_test(test_response_repeated_after_a_resume),
		cmocka_unit_test(test_rows_without_an_id_all_count),
		cmocka_unit_test(test_unusable_usage_is_skipped),
		cmocka_unit_test(test_cache_split_is_the_writes),
		cmocka_unit_test(test_models_used_and_recorded_cost),
		cmocka_unit_test(test_log_without_usage),
		cmocka_unit_test(test_sidechains_and_agents),
		cmocka_unit_test(test_real_context_size),
		cmocka_unit_test(test_counts_across_read_windows),
		cmocka_unit_test(test_growing_log),
		cmocka_unit_test(test_row_alone_is_the_sets),
		cmocka_unit_test(test_corpus_matches_ccusage),
		cmocka_unit_test(test_prices_of_rows),
		cmocka_unit_test(test_logged_cost_state),
		cmocka_unit_test(test_numbers_beyond_a_double),
		cmocka_unit_test(test_hours),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

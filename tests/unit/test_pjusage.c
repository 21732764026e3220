/*
 * test_pjusage: pjusage.c (a projects folder's token totals) and
 * pj_find_continued() on small projects folders made here: each session
 * counted once per change of its log, sums per project and overall,
 * split responses counted once, a subagent's log in its session's total,
 * costs, days, months, models and ccusage's five-hour blocks, usage.txt,
 * a leafUuid found in a sibling log.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include <cjson/cJSON.h>

#include "pjusage.h"
#include "projects.h"
#include "testutil.h"

static char root[64];

static void mk(const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	assert_int_equal(mkdir(path, 0755), 0);
}

/* Writes text to root/rel (appends when append). */
static void put(const char *rel, const char *text, int append)
{
	tu_put(root, rel, text, append);
}

/* An assistant row of session sid: response mid, in/out tokens. */
static void reply(const char *rel, const char *sid, int n, const char *mid, int in, int out,
		  int append)
{
	char line[1024];

	snprintf(line, sizeof(line),
		 "{\"parentUuid\":null,\"type\":\"assistant\",\"sessionId\":\"%s\","
		 "\"cwd\":\"/home/u/app\",\"uuid\":\"%08d-0000-4000-8000-000000000000\","
		 "\"timestamp\":\"2026-01-01T00:%02d:00.000Z\",\"requestId\":\"req_%s\","
		 "\"message\":{\"id\":\"%s\",\"role\":\"assistant\",\"model\":\"claude-x\","
		 "\"content\":[{\"type\":\"text\",\"text\":\"hi\"}],\"usage\":{\"input_tokens\":%d,"
		 "\"output_tokens\":%d,\"cache_creation_input_tokens\":0,"
		 "\"cache_read_input_tokens\":0}}}\n",
		 sid, n, n % 60, mid, mid, in, out);
	put(rel, line, append);
}

/* An assistant row of model at time ts (ISO), in input tokens; its cwd
 * the project folder's name ("-home-u-app": /home/u/app). */
static void row_at(const char *rel, const char *sid, int n, const char *model, const char *ts,
		   int in)
{
	char line[1024], cwd[64];
	size_t i;

	for (i = 0; rel[i] && rel[i] != '/' && i + 1 < sizeof(cwd); i++)
		cwd[i] = rel[i] == '-' ? '/' : rel[i];
	cwd[i] = '\0';

	snprintf(line, sizeof(line),
		 "{\"parentUuid\":null,\"type\":\"assistant\",\"sessionId\":\"%s\","
		 "\"cwd\":\"%s\",\"uuid\":\"%08d-0000-4000-8000-000000000000\","
		 "\"timestamp\":\"%s\",\"requestId\":\"req_%d\","
		 "\"message\":{\"id\":\"msg_%d\",\"role\":\"assistant\",\"model\":\"%s\","
		 "\"content\":[{\"type\":\"text\",\"text\":\"hi\"}],\"usage\":{\"input_tokens\":%d,"
		 "\"output_tokens\":0,\"cache_creation_input_tokens\":0,"
		 "\"cache_read_input_tokens\":0}}}\n",
		 sid, cwd, n, ts, n, n, model, in);
	put(rel, line, 1);
}

static int setup(void **state)
{
	(void)state;
	strcpy(root, "/tmp/sessfs-pu-XXXXXX");
	assert_non_null(mkdtemp(root));
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd);
}

static cJSON *usage_json(struct pu_cache *c, const struct pj_set *s)
{
	struct sbuf out;
	cJSON *j;

	sb_init(&out);
	assert_int_equal(pu_usage_json(c, s, &out), 0);
	j = cJSON_Parse(out.buf);
	assert_non_null(j);
	sb_free(&out);
	return j;
}

static double num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	assert_true(cJSON_IsNumber(v));
	return v->valuedouble;
}

/* The session object of sid in usage.json j. */
static const cJSON *session_of(const cJSON *j, const char *sid)
{
	const cJSON *x;

	cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(j, "sessions"))
		if (!strcmp(cJSON_GetObjectItemCaseSensitive(x, "sessionId")->valuestring, sid))
			return x;
	fail_msg("no session %s", sid);
	return NULL;
}

/* usage.json j's "daily" is one day, date, of in input tokens. */
static void check_daily(const cJSON *j, const char *date, int in)
{
	const cJSON *d = cJSON_GetObjectItemCaseSensitive(j, "daily");

	assert_int_equal(cJSON_GetArraySize(d), 1);
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(d, 0), "date")
				    ->valuestring, date);
	assert_int_equal(num(cJSON_GetArrayItem(d, 0), "inputTokens"), in);
	assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(
				cJSON_GetArrayItem(d, 0), "modelsUsed"), 0)->valuestring, "claude-x");
}

#define SA "aaaaaaaa-0000-4000-8000-000000000001"
#define SB "bbbbbbbb-0000-4000-8000-000000000002"

static void test_counted_once_per_change(void **state)
{
	struct pj_set *s, *s2;
	struct pu_cache *c;
	struct sbuf line;
	cJSON *j;

	(void)state;
	mk("-home-u-app");
	mk("-home-u-app/" SA);
	mk("-home-u-app/" SA "/subagents");
	/* a response split over two rows (one pair), then another one */
	reply("-home-u-app/" SA ".jsonl", SA, 1, "msg_1", 100, 10, 0);
	reply("-home-u-app/" SA ".jsonl", SA, 2, "msg_1", 100, 10, 1);
	reply("-home-u-app/" SA ".jsonl", SA, 3, "msg_2", 50, 5, 1);
	reply("-home-u-app/" SA "/subagents/agent-x1.jsonl", SA, 4, "msg_3", 7, 1, 0);
	reply("-home-u-app/" SB ".jsonl", SB, 5, "msg_4", 1000, 20, 0);
	assert_int_equal(pj_scan(root, NULL, &s), 0);
	assert_int_equal(pu_new(&c), 0);

	sb_init(&line);
	pu_session_json(c, &s->sessions[0], &line);
	assert_string_equal(line.buf, "null");	/* not counted yet */
	sb_free(&line);
	j = usage_json(c, s);
	assert_int_equal(pu_counted(c), 2);
	assert_int_equal(num(session_of(j, SA), "inputTokens"), 157);
	assert_int_equal(num(session_of(j, SA), "outputTokens"), 16);
	assert_int_equal(num(session_of(j, SA), "responses"), 3);
	assert_int_equal(num(session_of(j, SB), "totalTokens"), 1020);
	assert_int_equal(num(cJSON_GetObjectItemCaseSensitive(j, "totals"), "inputTokens"), 1157);
	assert_int_equal(num(cJSON_GetObjectItemCaseSensitive(j, "totals"), "sessions"), 2);
	assert_int_equal(num(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "projects"), 0),
			     "outputTokens"), 36);
	cJSON_Delete(j);
	sb_init(&line);
	pu_session_json(c, &s->sessions[0], &line);
	assert_non_null(strstr(line.buf, "\"modelsUsed\":[\"claude-x\"]"));
	sb_free(&line);

	j = usage_json(c, s);		/* nothing changed: nothing read */
	check_daily(j, "2026-01-01", 1157);
	cJSON_Delete(j);
	assert_int_equal(pu_counted(c), 2);

	reply("-home-u-app/" SB ".jsonl", SB, 6, "msg_5", 3, 1, 1);
	assert_int_equal(pj_scan(root, s, &s2), 0);
	j = usage_json(c, s2);
	assert_int_equal(pu_counted(c), 3);	/* the grown log alone */
	assert_int_equal(num(session_of(j, SB), "inputTokens"), 1003);
	cJSON_Delete(j);
	sb_init(&line);
	pu_session_json(c, &s->sessions[1], &line);	/* the old set's view: stale */
	assert_string_equal(line.buf, "null");
	sb_free(&line);
	pu_free(c);
	pj_free(s);
	pj_free(s2);
}

/* Days are local dates: the same rows five hours west of UTC fall on the
 * day before. */
static void test_daily_local(void **state)
{
	struct pj_set *s;
	struct pu_cache *c;
	cJSON *j;

	(void)state;
	mk("-home-u-app");
	reply("-home-u-app/" SA ".jsonl", SA, 1, "msg_1", 100, 10, 0);
	assert_int_equal(pj_scan(root, NULL, &s), 0);
	setenv("TZ", "EST5", 1);
	tzset();
	assert_int_equal(pu_new(&c), 0);
	j = usage_json(c, s);
	check_daily(j, "2025-12-31", 100);
	cJSON_Delete(j);
	pu_free(c);
	setenv("TZ", "UTC0", 1);
	tzset();
	pj_free(s);
}

static const char *str_of(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	assert_true(cJSON_IsString(v));
	return v->valuestring;
}

static void check_block(const cJSON *b, const char *id, const char *end, const char *last,
			int gap, int in)
{
	assert_string_equal(str_of(b, "id"), id);
	assert_string_equal(str_of(b, "endTime"), end);
	if (last)
		assert_string_equal(str_of(b, "actualEndTime"), last);
	else
		assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(b, "actualEndTime")));
	assert_int_equal(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(b, "isGap")), gap);
	assert_int_equal(num(b, "inputTokens"), in);
}

static int near(double a, double b)
{
	return a - b < 1e-9 && b - a < 1e-9;
}

/* Prices, the periods and the blocks over two sessions of two projects. */
static void test_prices_and_periods(void **state)
{
	const char *A = "-home-u-app/" SA ".jsonl", *B = "-home-u-web/" SB ".jsonl";
	struct pj_set *s;
	struct pu_cache *c;
	struct sbuf txt, err;
	const cJSON *d, *m, *b;
	cJSON *j;

	(void)state;
	mk("-home-u-app");
	mk("-home-u-web");
	/* a block from 10:00: a row at 15:00:00.000 exactly is still in it, the
	 * next opens one at 15:00; the other session's row falls between */
	row_at(A, SA, 1, "claude-sonnet-4-5-20250929", "2026-01-01T10:30:00.000Z", 1000);
	row_at(A, SA, 2, "claude-sonnet-4-5-20250929", "2026-01-01T15:00:00.000Z", 1000);
	row_at(A, SA, 3, "claude-sonnet-4-5-20250929", "2026-01-01T15:20:00.000Z", 1000);
	row_at(B, SB, 4, "claude-opus-5-5", "2026-01-01T12:00:00.000Z", 1000);
	row_at(B, SB, 5, "claude-haiku-4-5-20251001", "2026-02-03T01:00:00.500Z", 2000);
	assert_int_equal(pj_scan(root, NULL, &s), 0);
	assert_int_equal(pu_new(&c), 0);
	j = usage_json(c, s);

	assert_true(near(num(session_of(j, SA), "costUSD"), 0.009));
	assert_true(near(num(session_of(j, SB), "costUSD"), 0.002));
	assert_null(cJSON_GetObjectItemCaseSensitive(session_of(j, SA), "costUSDLogged"));
	assert_true(near(num(cJSON_GetObjectItemCaseSensitive(j, "totals"), "costUSD"), 0.011));
	assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(j, "totals"), "unpricedModels"), 0)->valuestring,
		"claude-opus-5-5");

	m = cJSON_GetObjectItemCaseSensitive(j, "models");
	assert_int_equal(cJSON_GetArraySize(m), 3);
	assert_string_equal(str_of(cJSON_GetArrayItem(m, 0), "modelName"), "claude-sonnet-4-5-20250929");
	assert_true(near(num(cJSON_GetArrayItem(m, 0), "costUSD"), 0.009));
	assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(m, 1),
								  "missingPricing")));
	assert_null(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(m, 2), "missingPricing"));

	d = cJSON_GetObjectItemCaseSensitive(j, "daily");
	assert_int_equal(cJSON_GetArraySize(d), 2);
	assert_string_equal(str_of(cJSON_GetArrayItem(d, 0), "date"), "2026-01-01");
	assert_int_equal(num(cJSON_GetArrayItem(d, 0), "inputTokens"), 4000);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(d, 0),
									      "modelsUsed")), 2);
	d = cJSON_GetObjectItemCaseSensitive(j, "monthly");
	assert_int_equal(cJSON_GetArraySize(d), 2);
	assert_string_equal(str_of(cJSON_GetArrayItem(d, 1), "month"), "2026-02");
	assert_true(near(num(cJSON_GetArrayItem(d, 1), "costUSD"), 0.002));

	b = cJSON_GetObjectItemCaseSensitive(j, "blocks");
	assert_int_equal(cJSON_GetArraySize(b), 4);
	check_block(cJSON_GetArrayItem(b, 0), "2026-01-01T10:00:00.000Z", "2026-01-01T15:00:00.000Z",
		    "2026-01-01T15:00:00.000Z", 0, 3000);
	check_block(cJSON_GetArrayItem(b, 1), "2026-01-01T15:00:00.000Z", "2026-01-01T20:00:00.000Z",
		    "2026-01-01T15:20:00.000Z", 0, 1000);
	check_block(cJSON_GetArrayItem(b, 2), "gap-2026-01-01T20:20:00.000Z",
		    "2026-02-03T01:00:00.500Z", NULL, 1, 0);
	check_block(cJSON_GetArrayItem(b, 3), "2026-02-03T01:00:00.000Z", "2026-02-03T06:00:00.000Z",
		    "2026-02-03T01:00:00.500Z", 0, 2000);
	assert_int_equal(num(cJSON_GetArrayItem(b, 0), "responses"), 3);
	cJSON_Delete(j);

	sb_init(&txt);
	assert_int_equal(pu_usage_txt(c, s, &txt), 0);
	assert_int_equal(pu_counted(c), 2);	/* counted for usage.json already */
	assert_non_null(strstr(txt.buf, "## Sessions"));
	assert_non_null(strstr(txt.buf, "\n2026-01-01  sonnet-4-5  "));	/* short names */
	assert_non_null(strstr(txt.buf, "claude-opus-5-5 (no price)"));
	assert_non_null(strstr(txt.buf, "Total (2 sessions)"));
	assert_non_null(strstr(txt.buf, "$0.01\n"));
	sb_free(&txt);
	sb_init(&err);
	pu_errors_text(c, s, &err);
	assert_string_equal(err.buf, "projects/home-u-web/" SB ": model \"claude-opus-5-5\" is not in "
			    "the price table (data/prices.txt (built in)): its responses are priced "
			    "at $0 (usage.json: unpricedModels)\n");
	sb_free(&err);
	pu_free(c);
	pj_free(s);
}

static void test_continued(void **state)
{
	struct pj_set *s;
	const struct pj_session *x = NULL;
	uint32_t i, key = 1;

	(void)state;
	mk("-home-u-app");
	reply("-home-u-app/" SA ".jsonl", SA, 1, "msg_1", 1, 1, 0);
	put("-home-u-app/" SB ".jsonl",
	    "{\"type\":\"summary\",\"summary\":\"S\",\"leafUuid\":\"00000001-0000-4000-8000-000000000000\"}\n", 0);
	reply("-home-u-app/" SB ".jsonl", SB, 9, "msg_2", 1, 1, 1);
	assert_int_equal(pj_scan(root, NULL, &s), 0);
	for (i = 0; i < s->nsessions; i++)
		if (!strcmp(s->sessions[i].f.sid, SB))
			x = &s->sessions[i];
	assert_non_null(x);
	assert_int_equal(pj_find_continued(s, x, "00000001-0000-4000-8000-000000000000", &key), 0);
	assert_int_not_equal(key, 0);
	assert_string_equal(pj_by_key(s, key)->f.sid, SA);
	/* x's own records are not looked at; a uuid no log holds */
	assert_int_equal(pj_find_continued(s, x, "00000009-0000-4000-8000-000000000000", &key), 0);
	assert_int_equal(key, 0);
	assert_int_equal(pj_find_continued(s, x, "0000000f-0000-4000-8000-000000000000", &key), 0);
	assert_int_equal(key, 0);
	pj_free(s);
}

int main(void)
{
	setenv("TZ", "UTC0", 1);
	tzset();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_counted_once_per_change, setup, teardown),
		cmocka_unit_test_setup_teardown(test_daily_local, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prices_and_periods, setup, teardown),
		cmocka_unit_test_setup_teardown(test_continued, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* meta: records outside the chain; see meta.h. */
#include <string.h>

#include "emit.h"
#include "meta.h"
#include "rnd.h"

/* ---------------------------------------------------- metadata records */

void rec_queue(struct gen *g, const char *content)
{
	uint64_t r = rec_begin(g);

	if (content)
		emit(g, "{\"type\":\"queue-operation\",\"operation\":\"enqueue\",\"timestamp\":%t,"
		     "\"sessionId\":%S,\"content\":%e}", content);
	else
		emit(g, "{\"type\":\"queue-operation\",\"operation\":\"dequeue\",\"timestamp\":%t,"
		     "\"sessionId\":%S}");
	rec_end(g, K_QUEUE, r);
}

void rec_latch(struct gen *g, enum kind k)
{
	uint64_t r = rec_begin(g);

	if (k == K_ATIS)
		emit(g, "{\"type\":\"atis-latch\",\"atis\":\"\",\"sessionId\":%S}");
	else
		emit(g, "{\"type\":\"mode\",\"mode\":\"normal\",\"sessionId\":%S}");
	rec_end(g, k, r);
}

void rec_last_prompt(struct gen *g, const char *prompt, const char *leaf, bool rewind)
{
	uint64_t r = rec_begin(g);

	emit(g, "{\"type\":\"last-prompt\",\"lastPrompt\":%e,\"leafUuid\":%q%s,\"sessionId\":%S}",
	     prompt, leaf, rewind ? ",\"explicit\":true,\"rewound\":true" : "");
	rec_end(g, K_LAST_PROMPT, r);
}

void rec_tools_used(struct gen *g)
{
	uint64_t r = rec_begin(g);

	emit(g, "{\"type\":\"tools-used\",\"tools\":[");
	for (unsigned i = 0; i < g->n_tools; i++)
		emit(g, i ? ",%q" : "%q", TOOL_NAME[g->tools_order[i]]);
	emit(g, "],\"sessionId\":%S}");
	rec_end(g, K_TOOLS_USED, r);
}

void note_tool(struct gen *g, enum tool t)
{
	if (g->tools_mask & (1u << t))
		return;
	g->tools_mask |= 1u << t;
	g->tools_order[g->n_tools++] = t;
	rec_tools_used(g);
}

/* Cost in 1e-5 USD as a JS number: 0.0747, 1.2, 3. */
static void fmt_usd(uint64_t usd5, char out[32])
{
	int n = snprintf(out, 32, "%llu.%05llu", (unsigned long long)(usd5 / 100000),
			 (unsigned long long)(usd5 % 100000));

	while (out[n - 1] == '0')
		out[--n] = '\0';
	if (out[n - 1] == '.')
		out[n - 1] = '\0';
}

void rec_cost(struct gen *g)
{
	const struct cost *c = &g->cost;
	uint64_t r = rec_begin(g);
	char usd[32];

	fmt_usd(c->usd5, usd);
	emit(g, "{\"type\":\"cost-state\",\"sessionId\":%S,\"totalCostUSD\":%s,"
	     "\"totalAPIDuration\":%U,\"totalAPIDurationWithoutRetries\":%U,"
	     "\"totalToolDuration\":%U,\"totalLinesAdded\":%U,\"totalLinesRemoved\":%U,"
	     "\"totalDuration\":%U,\"startTime\":%U,\"modelUsage\":{\"" MODEL_ID "\":"
	     "{\"inputTokens\":%U,\"outputTokens\":%U,\"thinkingTokens\":%U,"
	     "\"cacheReadInputTokens\":%U,\"cacheCreationInputTokens\":0,"
	     "\"cacheCreationEphemeral5mInputTokens\":0,\"cacheCreationEphemeral1hInputTokens\":0,"
	     "\"webSearchRequests\":0,\"costUSD\":%s}},\"hasUnknownModelCost\":false}",
	     usd, c->api_ms, c->api_ms - c->api_ms / 20, c->tool_ms, c->added, c->removed,
	     g->now - START_MS, (uint64_t)START_MS, c->in_tok, c->out_tok, c->think_tok,
	     c->cache_tok, usd);
	rec_end(g, K_COST, r);
}

/* A trackedFileBackups entry / file-history-delta backup, into b. */
static void put_backup(struct gen *g, struct buf *b, const struct tracked *t, bool created)
{
	char name[40], ts[TS_LEN + 1], dir[PATH_LEN + 1] = "";
	const char *slash = strrchr(t->path, '/');

	if (created)
		snprintf(name, sizeof(name), "null");
	else
		snprintf(name, sizeof(name), "\"%s@v%u\"", t->hash, t->version);
	if (slash)
		snprintf(dir, sizeof(dir), "/%.*s", (int)(slash - t->path), t->path);
	fmt_ts(g->now, ts);
	ts[TS_LEN] = '\0';
	bemit(g, b, "{\"backupFileName\":%s,\"version\":%u,\"backupTime\":%q,"
	      "\"realParentDir\":\"" PROJECT_DIR "%s\"}", name, t->version, ts, dir);
}

void rec_fh_snapshot(struct gen *g)
{
	uint64_t r = rec_begin(g);

	g->now += 1 + rnd_below(g, TS_STEP_MS);
	g->tmp.len = 0;
	for (unsigned i = 0; i < g->n_tracked; i++) {
		bemit(g, &g->tmp, i ? ",%q:" : "%q:", g->tracked[i].path);
		put_backup(g, &g->tmp, &g->tracked[i], false);
	}
	emit(g, "{\"type\":\"file-history-snapshot\",\"messageId\":%q,\"snapshot\":"
	     "{\"messageId\":%q,\"trackedFileBackups\":{%b},\"timestamp\":%t},"
	     "\"isSnapshotUpdate\":false}", g->prompt_uuid, g->prompt_uuid, &g->tmp);
	rec_end(g, K_FH_SNAPSHOT, r);
}

static struct tracked *track_file(struct gen *g, const char *path, bool *created)
{
	struct tracked *t;

	for (unsigned i = 0; i < g->n_tracked; i++)
		if (!strcmp(g->tracked[i].path, path))
			return &g->tracked[i];
	t = &g->tracked[g->n_tracked < TRACKED_MAX ? g->n_tracked++ : TRACKED_MAX - 1];
	snprintf(t->path, sizeof(t->path), "%s", path);
	hex16(fnv1a(path), t->hash);
	t->version = 0;
	*created = strncmp(path, "notes/", 6) == 0;
	return t;
}

void rec_fh_delta(struct gen *g, const char *path, const char *row)
{
	bool created = false;
	struct tracked *t = track_file(g, path, &created);
	uint64_t r = rec_begin(g);

	t->version++;
	g->now += 1 + rnd_below(g, TS_STEP_MS);
	g->tmp.len = 0;
	put_backup(g, &g->tmp, t, created);
	emit(g, "{\"type\":\"file-history-delta\",\"messageId\":%q,\"snapshotMessageId\":%q,"
	     "\"trackingPath\":%q,\"backup\":%b,\"timestamp\":%t}", row, g->prompt_uuid,
	     path, &g->tmp);
	rec_end(g, K_FH_DELTA, r);
}

/* ---------------------------------------------------- api-request trio */

void rec_shape(struct gen *g)
{
	uint64_t r = rec_begin(g);

	rnd_hash(g, g->shape);
	emit(g, "{\"type\":\"api-request-shape\",\"sessionId\":%S,\"shapeHash\":%q,"
	     "\"timestamp\":%t,\"version\":\"" CC_VERSION "\",\"shape\":{\"system\":"
	     "[{\"type\":\"text\",\"text\":\"" CLI_PREFIX "\"},{\"type\":\"text\",\"text\":%Q}],"
	     "\"tools\":%b}}", g->shape, &g->sys_joined, &g->tools_json);
	rec_end(g, K_API_SHAPE, r);
}

void rec_blobs(struct gen *g)
{
	uint64_t r = rec_begin(g);

	rnd_hash(g, g->blob_user);
	emit(g, "{\"type\":\"api-request-blob\",\"sessionId\":%S,\"hash\":%q,\"message\":"
	     "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":%Q},{\"type\":\"text\","
	     "\"text\":%Q},{\"type\":\"text\",\"text\":%e}]}}", g->blob_user,
	     &g->att_text[A_CONTEXT], &g->att_text[A_REMOTE], g->prompt);
	rec_end(g, K_API_BLOB, r);
	r = rec_begin(g);
	rnd_hash(g, g->blob_sys);
	emit(g, "{\"type\":\"api-request-blob\",\"sessionId\":%S,\"hash\":%q,\"message\":"
	     "{\"role\":\"system\",\"content\":[%b]}}", g->blob_sys, &g->sys_blob);
	rec_end(g, K_API_BLOB, r);
}

/* The message hashes sent: all of the context after a restart, else the new two. */
static void make_request_tail(struct gen *g)
{
	unsigned n = 2;
	char h[HASH_LEN + 1];

	g->tmp.len = 0;
	if (!g->req[0]) {
		n = g->ctx_msgs + 2 < CONTEXT_TAIL_MAX ? g->ctx_msgs + 2 : CONTEXT_TAIL_MAX;
		bemit(g, &g->tmp, "%q,%q", g->blob_user, g->blob_sys);
	}
	for (unsigned i = g->req[0] ? 0 : 2; i < n; i++) {
		rnd_hash(g, h);
		bemit(g, &g->tmp, i ? ",%q" : "%q", h);
	}
}

void rec_api_request(struct gen *g)
{
	uint64_t r = rec_begin(g);
	char id[UUID_LEN + 1], base[UUID_LEN + 16] = "", digest[HASH_LEN + 1];

	rnd_uuid(g, id);
	rnd_hash(g, digest);
	make_request_tail(g);
	if (g->req[0]) {
		snprintf(base, sizeof(base), ",\"base\":\"%s\"", g->req);
		g->keep += 2;
	} else {
		g->keep = 0;
	}
	emit(g, "{\"type\":\"api-request\",\"sessionId\":%S,\"id\":%q,\"timestamp\":%t,"
	     "\"version\":\"" CC_VERSION "\",\"querySource\":\"sdk\",\"shapeHash\":%q,"
	     "\"params\":{\"model\":\"" MODEL_ID "\",\"betas\":[\"claude-code-20250219\","
	     "\"interleaved-thinking-2025-05-14\",\"context-management-2025-06-27\","
	     "\"effort-2025-11-24\"],\"max_tokens\":128000,\"thinking\":{\"type\":\"adaptive\","
	     "\"display\":\"omitted\"},\"context_management\":{\"edits\":[{\"type\":"
	     "\"clear_thinking_20251015\",\"keep\":\"all\"}]},\"output_config\":{\"effort\":"
	     "\"medium\"}}%s,\"keep\":%u,\"tail\":[%b],\"cacheControl\":[{\"path\":[\"system\",0],"
	     "\"value\":{\"type\":\"ephemeral\"}},{\"path\":[\"system\",1],\"value\":{\"type\":"
	     "\"ephemeral\"}},{\"path\":[\"messages\",%u,\"content\",0],\"value\":{\"type\":"
	     "\"ephemeral\"}}],\"requestDigest\":%q}", id, g->shape, base, g->keep, &g->tmp,
	     g->keep + 1, digest);
	rec_end(g, K_API_REQUEST, r);
	memcpy(g->req, id, sizeof(id));
}


/*
 * context_check: rebuilds the resume context of every corpus log through
 * the core API (ss_open, ctx_build) and compares it with what Claude Code
 * really sent.
 *
 *   context_check CORPUS_DIR
 *
 * Logs: each scenario's projects/<project>/<session-id>.jsonl and its
 * stage<N>/session.jsonl that have a resume request: the resume-appended*
 * .jsonl of the log's folder (or its scenario folder) whose sessionId is
 * the log's names it, resume-request<same suffix>.json. Expected: the
 * request's messages up to, not including, the first user message with a
 * text containing RESUME-PROBE. Compared: role and content only, with
 * cache_control keys removed at every depth and a string content taken as
 * one text block. The attach point must be the parentUuid of the first
 * record with a uuid in the appended file. Prints one line per log and a
 * summary; fails unless every log agrees. branches/current must end at
 * the attach point (only rows of its response or non-message rows after it).
 * A request file that is there but cannot be read or is not a request (no
 * "messages" array) fails its log; a log without one is not counted.
 *
 * A subagent's own log (every row a sidechain) has no resume of its own.
 * A 1.0.x request's first user message begins with a <system-reminder>
 * block that Claude Code read from disk (its "important-instruction-
 * reminders" and CLAUDE.md), not from the log: that one block is left out
 * of the comparison for a log whose release is 1.0.x. The counts are also
 * printed per release (the log's last "version").
 */
#include <errno.h>
#include <unistd.h>

#include "corpus_util.h"
#include "ctx.h"
#include "session.h"

#define CLIP 160

/* resume-appended<X>.jsonl -> resume-request<X>.json */
static char *request_for(const char *appended)
{
	const char *base = strrchr(appended, '/');
	size_t dlen = base ? (size_t)(base - appended) + 1 : 0;
	const char *x = appended + dlen + strlen("resume-appended");
	size_t xlen = strlen(x) - strlen(".jsonl");
	char *out;

	if (asprintf(&out, "%.*sresume-request%.*s.json", (int)dlen, appended, (int)xlen, x) < 0)
		return NULL;
	return out;
}

/* ---- comparison ---- */

static void strip_cache_control(cJSON *v)
{
	cJSON *c;

	cJSON_DeleteItemFromObjectCaseSensitive(v, "cache_control");
	for (c = v ? v->child : NULL; c; c = c->next)
		strip_cache_control(c);
}

/* {role, content as blocks without cache_control}: a new tree. */
static cJSON *comparable(const cJSON *m)
{
	const cJSON *role = cJSON_GetObjectItemCaseSensitive(m, "role");
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(m, "content");
	cJSON *out = cJSON_CreateObject(), *blocks;

	cJSON_AddItemToObject(out, "role", cJSON_Duplicate(role, 1));
	if (cJSON_IsString(c)) {
		cJSON *b = cJSON_CreateObject();

		blocks = cJSON_CreateArray();
		cJSON_AddStringToObject(b, "type", "text");
		cJSON_AddStringToObject(b, "text", c->valuestring);
		cJSON_AddItemToArray(blocks, b);
	} else {
		blocks = cJSON_IsArray(c) ? cJSON_Duplicate(c, 1) : cJSON_CreateArray();
	}
	strip_cache_control(blocks);
	cJSON_AddItemToObject(out, "content", blocks);
	return out;
}

static int has_probe(const cJSON *m)
{
	const cJSON *r = cJSON_GetObjectItemCaseSensitive(m, "role");
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(m, "content"), *b;

	if (!cJSON_IsString(r) || strcmp(r->valuestring, "user"))
		return 0;
	if (cJSON_IsString(c))
		return strstr(c->valuestring, "RESUME-PROBE") != NULL;
	cJSON_ArrayForEach(b, c) {
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(b, "type");
		const cJSON *x = cJSON_GetObjectItemCaseSensitive(b, "text");

		if (cJSON_IsString(t) && !strcmp(t->valuestring, "text") && cJSON_IsString(x) &&
		    strstr(x->valuestring, "RESUME-PROBE"))
			return 1;
	}
	return 0;
}

static void clip(const cJSON *v, char *buf, size_t n)
{
	char *s = v ? cJSON_PrintUnformatted(v) : NULL;

	snprintf(buf, n, "%s", s ? s : "<missing>");
	if (s && strlen(s) >= n - 1)
		strcpy(buf + n - 4, "...");
	free(s);
}

/* Up to CLIP bytes of s from byte k on, as a JSON string (free() it). */
static char *fragment(const char *s, size_t k)
{
	char *part = strndup(s + k, CLIP), *out;
	cJSON *j = cJSON_CreateString(part ? part : "");

	out = cJSON_PrintUnformatted(j);
	cJSON_Delete(j);
	free(part);
	return out;
}

/* Two different strings: where they part, with some text around. */
static void string_diff(const char *a, const char *b, char *msg, size_t mn)
{
	size_t k = 0, from;
	char *fa, *fb;

	while (a[k] && a[k] == b[k])
		k++;
	from = k > CLIP / 2 ? k - CLIP / 2 : 0;
	fa = fragment(a, from);
	fb = fragment(b, from);
	snprintf(msg, mn, "strings differ at byte %zu; from byte %zu, expected %s, got %s",
		 k, from, fa ? fa : "?", fb ? fb : "?");
	free(fa);
	free(fb);
}

static void differ(const cJSON *a, const cJSON *b, char *msg, size_t mn)
{
	char ea[CLIP + 4], eb[CLIP + 4];

	if (cJSON_IsString(a) && cJSON_IsString(b)) {
		string_diff(a->valuestring, b->valuestring, msg, mn);
		return;
	}
	clip(a, ea, sizeof(ea));
	clip(b, eb, sizeof(eb));
	snprintf(msg, mn, "expected %s, got %s", ea, eb);
}

static int diff(const cJSON *a, const cJSON *b, char *path, size_t n, char *msg, size_t mn);

/* Objects: every key of a in b, equal, and no key of b missing in a. */
static int diff_object(const cJSON *a, const cJSON *b, char *path, size_t n, char *msg,
		       size_t mn)
{
	size_t len = strlen(path);
	const cJSON *c, *o;

	for (c = a->child; c; c = c->next) {
		snprintf(path + len, n - len, ".%s", c->string);
		o = cJSON_GetObjectItemCaseSensitive(b, c->string);
		if (!o) {
			differ(c, NULL, msg, mn);
			return 1;
		}
		if (diff(c, o, path, n, msg, mn))
			return 1;
	}
	for (c = b->child; c; c = c->next)
		if (!cJSON_GetObjectItemCaseSensitive(a, c->string)) {
			snprintf(path + len, n - len, ".%s", c->string);
			differ(NULL, c, msg, mn);
			return 1;
		}
	path[len] = '\0';
	return 0;
}

static int diff_array(const cJSON *a, const cJSON *b, char *path, size_t n, char *msg,
		      size_t mn)
{
	size_t len = strlen(path);
	const cJSON *c = a->child, *d = b->child;
	int i = 0;

	for (; c && d; c = c->next, d = d->next, i++) {
		snprintf(path + len, n - len, "[%d]", i);
		if (diff(c, d, path, n, msg, mn))
			return 1;
	}
	path[len] = '\0';
	if (!c && !d)
		return 0;
	snprintf(path + len, n - len, ".length");
	snprintf(msg, mn, "expected %d, got %d", cJSON_GetArraySize(a), cJSON_GetArraySize(b));
	return 1;
}

/* Path of the first difference between a (expected) and b in path, and
 * what it is in msg; 0 if they are equal. */
static int diff(const cJSON *a, const cJSON *b, char *path, size_t n, char *msg, size_t mn)
{
	if ((a->type & 0xff) != (b->type & 0xff) && !(cJSON_IsBool(a) && cJSON_IsBool(b))) {
		differ(a, b, msg, mn);
		return 1;
	}
	if (cJSON_IsObject(a))
		return diff_object(a, b, path, n, msg, mn);
	if (cJSON_IsArray(a))
		return diff_array(a, b, path, n, msg, mn);
	if (cJSON_Compare(a, b, 1))
		return 0;
	differ(a, b, msg, mn);
	return 1;
}

/* Compares the messages; fills why with the first difference. */
static int compare(const cJSON *want, const cJSON *got, char *why, size_t wn)
{
	const cJSON *w = want->child, *g = got->child;
	int i = 0, nw = 0, ng = cJSON_GetArraySize(got);
	char path[1024], msg[3 * CLIP + 128];

	for (; w && !has_probe(w); w = w->next)
		nw++;
	for (w = want->child; w && g && i < nw; w = w->next, g = g->next, i++) {
		cJSON *a = comparable(w), *b = comparable(g);
		int d;

		path[0] = '\0';
		d = diff(a, b, path, sizeof(path), msg, sizeof(msg));
		cJSON_Delete(a);
		cJSON_Delete(b);
		if (d) {
			snprintf(why, wn, "message %d%s: %s", i, path, msg);
			return 1;
		}
	}
	if (nw != ng) {
		snprintf(why, wn, "message count: expected %d, got %d", nw, ng);
		return 1;
	}
	return 0;
}

/* ---- one log ---- */

/* branches/current ends at the attach point: it is on the current branch,
 * and only rows of its own response or rows that are not messages follow
 * it there. 0 when it does, else -1 with why. */
static int current_ends_at(struct session *s, uint32_t at, char *why, size_t wn)
{
	const struct graph *g = ss_graph(s);
	int cur = ss_current_branch(s), rc = 0;
	uint32_t *ids = NULL, n = 0, k = 0;

	if (cur < 0 || br_path(ss_branches(s), (uint32_t)cur, &ids, &n)) {
		snprintf(why, wn, "no current branch");
		return -1;
	}
	while (k < n && ids[k] != at)
		k++;
	if (k == n) {
		snprintf(why, wn, "the attach point is not on branches/current");
		rc = -1;
	}
	for (k++; !rc && k < n; k++)
		if (gr_is_message(g, ids[k]) && gr_block(g, ids[k]) != gr_block(g, at)) {
			snprintf(why, wn, "branches/current goes on past the attach point (line %u)",
				 gr_node_rec(g, ids[k])->line);
			rc = -1;
		}
	free(ids);
	return rc;
}

static int rebuild(const char *log, cJSON **msgs, char **attach, int *n, char *why,
		   size_t wn)
{
	struct session *s;
	struct ctx *x;
	struct sbuf sb;
	int rc = ss_open(log, SS_COMPLETE, &s);

	if (rc)
		return rc;
	rc = ctx_build(ss_graph(s), ss_chain(s), ss_logf(s), &x);
	if (rc) {
		ss_close(s);
		return rc;
	}
	sb_init(&sb);
	ctx_messages_json(x, &sb);
	*msgs = cJSON_Parse(sb.buf);
	*n = (int)ctx_nmessages(x);
	sb_reset(&sb);
	if (ctx_attach(x))
		idx_id_str(ss_idx(s), ctx_attach(x), &sb);
	*attach = strdup(sb.buf);
	sb_free(&sb);
	if (ctx_attach(x) && current_ends_at(s, ctx_attach(x), why, wn)) {
		cJSON_Delete(*msgs);
		*msgs = NULL;
	}
	ctx_free(x);
	ss_close(s);
	return *msgs ? 0 : -1;
}

/* A 1.0.x request: its first message's first block, when it is the
 * reminder read from disk, goes. */
static void drop_disk_block(cJSON *want, const char *release)
{
	cJSON *m = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(want, "messages"), 0);
	cJSON *c = cJSON_GetObjectItemCaseSensitive(m, "content");
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(c, 0), "text");

	if (!release || strncmp(release, "1.0.", 4) || !cJSON_IsArray(c) ||
	    cJSON_GetArraySize(c) < 2 || !cJSON_IsString(t) ||
	    strncmp(t->valuestring, "<system-reminder>", 17) ||
	    !strstr(t->valuestring, "important-instruction-reminders"))
		return;
	cJSON_DeleteItemFromArray(c, 0);
}

static int check_log(const char *log, const char *dir, void *arg)
{
	struct cu_tally *tally = arg;
	int side = cu_sidechain_only(log);
	char *app = side ? NULL : cu_appended_for(log, dir), *req = app ? request_for(app) : NULL;
	char *text = req ? cu_slurp_path(req) : NULL, *attach = NULL, *want_at = NULL;
	cJSON *want = text ? cJSON_Parse(text) : NULL, *got = NULL;
	char why[4096] = "", *rel;
	int n = 0, ok = 0, rc;

	if (!req || (!text && access(req, F_OK) && errno == ENOENT)) {
		free(app);
		free(req);
		return -1;	/* no resume request for this log */
	}
	/* A request there but unreadable, or not a request: a failure, not
	 * a log without one. */
	if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(want, "messages"))) {
		printf("FAIL %s: %s: %s\n", log, req, !text ? "cannot be read" :
		       !want ? "not JSON" : "no \"messages\" array");
		cJSON_Delete(want);
		free(app);
		free(req);
		free(text);
		return 0;
	}
	rel = cu_last_of(log, "version");
	drop_disk_block(want, rel);
	want_at = cu_first_of(app, "parentUuid", 1);
	rc = rebuild(log, &got, &attach, &n, why, sizeof(why));
	if (rc && !*why)
		snprintf(why, sizeof(why), "the core could not build it (%d)", rc);
	else if (!rc && !compare(cJSON_GetObjectItemCaseSensitive(want, "messages"), got, why, sizeof(why)))
		ok = 1;
	if (ok && (!want_at || strcmp(want_at, attach))) {
		snprintf(why, sizeof(why), "attach point %s, expected %s", attach,
			 want_at ? want_at : "(none)");
		ok = 0;
	}
	if (ok)
		printf("OK   %s: %d messages, attach point %s\n", log, n, attach);
	else
		printf("FAIL %s: %s\n", log, why);
	cu_tally_add(tally, rel, ok);
	free(rel);
	cJSON_Delete(want);
	cJSON_Delete(got);
	free(attach);
	free(want_at);
	free(app);
	free(req);
	free(text);
	return ok;
}

int main(int argc, char **argv)
{
	struct cu_tally tally = { 0 };
	int pass = 0, fail = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: context_check CORPUS_DIR\n");
		return 2;
	}
	cu_each_log(argv[1], check_log, &tally, &pass, &fail);
	cu_tally_print(&tally, "context");
	printf("context: %d passed, %d failed\n", pass, fail);
	return fail || !pass ? 1 : 0;
}

/*
 * growbench: where the time of a growth goes, without a mount.
 *
 *   growbench LOG COPY [GROWTHS]
 *
 * Copies LOG to COPY (beside LOG, so forkedFrom looks where it would in
 * the bench), opens it as a mount does (SS_LIVE) and times the open and
 * the first session.json + context/messages.json: "fresh". Then appends
 * GROWTHS (5) turns of 10 records each, chained on the leaf as
 * scripts/bench.sh does, and times, after each, ss_refresh(), the
 * context (and how it was made: ctx_origin()), the state, and
 * session.json + messages.json, against fresh.
 * Last, each stage built anew on the grown log, to show what a growth
 * no longer pays. Prints "key: value" lines; removes COPY.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "session.h"

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int copy(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	char buf[1 << 16];
	size_t n;
	int rc = in && out ? 0 : -1;

	while (!rc && (n = fread(buf, 1, sizeof(buf), in)) > 0)
		rc = fwrite(buf, 1, n, out) == n ? 0 : -1;
	if (in)
		fclose(in);
	if (out && fclose(out))
		rc = -1;
	return rc;
}

/* session.json and context/messages.json, as the bench reads them. */
static void read_both(struct session *s)
{
	struct sbuf b;
	const struct ctx *x;

	sb_init(&b);
	ss_facts_json(s, &b);
	x = ss_context(s);
	if (x)
		ctx_messages_json(x, &b);
	sb_free(&b);
}

/* Ten records chained on parent (its uuid updated to the last one's),
 * with the envelope env (",\"sessionId\":...": the leaf's). */
static int turn(const char *path, const char *env, int g, char parent[64])
{
	FILE *f = fopen(path, "ab");
	int i;

	if (!f)
		return -1;
	for (i = 1; i <= 10; i++) {
		char u[64];

		snprintf(u, sizeof(u), "b%07d-0000-4000-8000-%012d", g * 10 + i, g * 10 + i);
		if (i % 2)
			fprintf(f, "{\"parentUuid\":\"%s\",\"isSidechain\":false,\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"growth-%d prompt %d\"},\"uuid\":\"%s\",\"timestamp\":\"2026-01-01T00:00:00.000Z\"%s}\n",
				parent, g, i, u, env);
		else
			fprintf(f, "{\"parentUuid\":\"%s\",\"isSidechain\":false,\"type\":\"assistant\",\"message\":{\"id\":\"msg_%s\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[{\"type\":\"text\",\"text\":\"growth-%d answer %d\"}]},\"uuid\":\"%s\",\"timestamp\":\"2026-01-01T00:00:00.000Z\"%s}\n",
				parent, u, g, i, u, env);
		snprintf(parent, 64, "%s", u);
	}
	return fclose(f);
}

/* The leaf's uuid, to chain the new records on, and its envelope as
 * Claude Code writes it on every row (sessionId, cwd, gitBranch,
 * version), to write on them: rows without a cwd would tell the state
 * the folder changed. */
static void leaf_of(struct session *s, char uuid[64], struct sbuf *env)
{
	static const char *const keys[] = { "sessionId", "cwd", "gitBranch", "version" };
	const struct rs_chain *c = ss_chain(s);
	char buf[IDX_UUID_MAX + 1];
	cJSON *j;
	size_t k;

	uuid[0] = '\0';
	if (!c->leaf)
		return;
	if (idx_id_buf(ss_idx(s), c->leaf, buf) >= 64)
		return;		/* not a uuid the turns can name */
	memcpy(uuid, buf, strlen(buf) + 1);
	j = lf_parse(ss_logf(s), gr_node_rec(ss_graph(s), c->leaf));
	for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, keys[k]);

		if (!cJSON_IsString(v))
			continue;
		sb_addf(env, ",\"%s\":", keys[k]);
		sb_add_json_str(env, v->valuestring, strlen(v->valuestring));
	}
	cJSON_Delete(j);
}

/* How the context was made (ctx_origin()). */
static const char *origin(struct session *s)
{
	static const char *const how[] = { "built anew", "window rendered", "grown at the cut" };
	const struct ctx *x = ss_context(s);

	return x ? how[ctx_origin(x)] : "none";
}

/* Each stage built anew on s's log: what a growth used to pay. */
static void stages(struct session *s)
{
	const struct graph *g = ss_graph(s);
	struct st_opts o = { ss_source(s), NULL };
	struct graph *g2 = NULL;
	struct br_set *b2 = NULL;
	struct rs_chain *c2 = NULL;
	struct ctx *x2 = NULL;
	struct st_state *st2 = NULL;
	uint32_t *path = NULL, np = 0;
	double t[6];

	t[0] = now();
	gr_build(ss_idx(s), &g2);
	t[1] = now();
	br_build(g, &b2);
	t[2] = now();
	rs_build(g, ss_logf(s), &c2);
	t[3] = now();
	ctx_build(g, ss_chain(s), ss_logf(s), &x2);
	t[4] = now();
	if (ss_current_branch(s) >= 0)
		br_path(ss_branches(s), (uint32_t)ss_current_branch(s), &path, &np);
	st_build(g, ss_chain(s), path, np, ss_logf(s), &o, &st2);
	t[5] = now();
	printf("anew_s: graph %.3f branches %.3f chain %.3f context %.3f state %.3f\n",
	       t[1] - t[0], t[2] - t[1], t[3] - t[2], t[4] - t[3], t[5] - t[4]);
	free(path);
	gr_free(g2);
	br_free(b2);
	rs_free(c2);
	ctx_free(x2);
	st_free(st2);
}

int main(int argc, char **argv)
{
	struct session *s;
	double t0, t1, t2, t3, t4, fresh, sum = 0, best = 0, part[4] = { 0 };
	int n = argc > 3 ? atoi(argv[3]) : 5, i, grown = 0;
	char leaf[64];
	struct sbuf env;

	if (argc < 3 || n < 1) {
		fprintf(stderr, "usage: growbench LOG COPY [GROWTHS]\n");
		return 2;
	}
	if (copy(argv[1], argv[2]))
		return 1;
	t0 = now();
	if (ss_open(argv[2], SS_LIVE, &s))
		return 1;
	t1 = now();
	read_both(s);
	fresh = now() - t0;
	printf("fresh_s: %.3f (open %.3f)\n", fresh, t1 - t0);
	sb_init(&env);
	leaf_of(s, leaf, &env);
	for (i = 1; i <= n; i++) {
		if (turn(argv[2], env.buf ? env.buf : "", i, leaf))
			return 1;
		t0 = now();
		ss_refresh(s);
		t1 = now();
		ss_context(s);
		t2 = now();
		ss_state(s);
		t3 = now();
		read_both(s);
		t4 = now();
		printf("growth_%d_s: %.3f = refresh %.3f + context %.3f + state %.3f + read %.3f"
		       " (context %s, %u rows rendered)\n",
		       i, t4 - t0, t1 - t0, t2 - t1, t3 - t2, t4 - t3, origin(s),
		       ss_context(s) ? ctx_rendered(ss_context(s)) : 0);
		sum += t4 - t0;
		part[0] += t1 - t0;
		part[1] += t2 - t1;
		part[2] += t3 - t2;
		part[3] += t4 - t3;
		grown += ss_context(s) && ctx_origin(ss_context(s)) == CTX_GROWN_CUT;
		if (i == 1 || t4 - t0 < best)
			best = t4 - t0;
	}
	printf("growth_mean_s: %.3f (best %.3f) = %.3f x fresh\n", sum / n, best,
	       sum / n / fresh);
	printf("growth_stages_s: refresh %.3f context %.3f state %.3f read %.3f"
	       " (means; the context grown at the cut %d of %d times)\n",
	       part[0] / n, part[1] / n, part[2] / n, part[3] / n, grown, n);
	{
		struct ss_grow_counts c;

		ss_grow_counts(s, &c);
		printf("growth_extended: graph %u of %u, branches %u of %u, chain %u of %u,"
		       " sidechains %u of %u, summaries %u of %u\n", c.graph[0],
		       c.graph[0] + c.graph[1], c.branches[0], c.branches[0] + c.branches[1],
		       c.chain[0], c.chain[0] + c.chain[1], c.sidechains[0],
		       c.sidechains[0] + c.sidechains[1], c.summaries[0],
		       c.summaries[0] + c.summaries[1]);
	}
	stages(s);
	sb_free(&env);
	ss_close(s);
	remove(argv[2]);
	return 0;
}

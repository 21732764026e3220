#include "report.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "agents.h"
#include "jscan.h"
#include "price.h"

/* Appends the totals as an object, a member of usage.json's. */
static void tally_obj(const struct us_tally *y, struct sbuf *out)
{
	sb_adds(out, "{\n");
	us_tally_json(y, 4, out);
	sb_adds(out, "\n  }");
}

struct us_tally *rp_tally_nodes(struct session *s, const uint32_t *ids, uint32_t n)
{
	const struct us_set *u = ss_usage(s);
	struct us_tally *y = us_tally_new();
	uint32_t i;

	for (i = 0; y && u && i < n; i++) {
		const struct us_row *r = us_of_rec(u, gr_rec(ss_graph(s), ids[i]));

		if (r && us_tally_add(y, u, r)) {
			us_tally_free(y);
			return NULL;
		}
	}
	return y;
}

static int add_branches(struct session *s, struct sbuf *out)
{
	const struct br_set *bs = ss_branches(s);
	uint32_t i, *ids, n;

	sb_adds(out, ",\n  \"branches\": [");
	for (i = 0; i < br_count(bs); i++) {
		struct us_tally *y;

		if (br_path(bs, i, &ids, &n))
			return -ENOMEM;
		y = rp_tally_nodes(s, ids, n);
		free(ids);
		if (!y)
			return -ENOMEM;
		sb_adds(out, i ? ",\n    {\n      \"name\": " : "\n    {\n      \"name\": ");
		sb_add_json_str(out, br_get(bs, i)->name, strlen(br_get(bs, i)->name));
		sb_addf(out, ",\n      \"current\": %s,\n",
			(int)i == ss_current_branch(s) ? "true" : "false");
		us_tally_json(y, 6, out);
		sb_adds(out, "\n    }");
		us_tally_free(y);
	}
	sb_adds(out, br_count(bs) ? "\n  ]" : "]");
	return 0;
}

static int add_context(struct session *s, struct sbuf *out)
{
	const struct ctx *x = ss_context(s);
	uint32_t i, n = 0, *ids = malloc(((x ? ctx_nrows(x) : 0) + 1) * sizeof(*ids));
	struct us_tally *y;

	if (!ids)
		return -ENOMEM;
	for (i = 0; x && i < ctx_nrows(x); i++)
		if (ctx_row(x, i)->synth == CTX_S_LOG && ctx_row(x, i)->sent)
			ids[n++] = ctx_row(x, i)->id;
	y = rp_tally_nodes(s, ids, n);
	free(ids);
	if (!y)
		return -ENOMEM;
	sb_adds(out, ",\n  \"context\": ");
	tally_obj(y, out);
	us_tally_free(y);
	return 0;
}

static void add_real(struct session *s, struct sbuf *out)
{
	const struct us_row *r;

	if (ss_last_usage(s, &r) || !r) {
		sb_adds(out, ",\n  \"contextTokensReal\": null,\n  \"contextTokensRealAt\": null");
		return;
	}
	sb_addf(out, ",\n  \"contextTokensReal\": %llu,\n  \"contextTokensRealAt\": ",
		(unsigned long long)us_context(&r->t));
	sb_addc(out, '"');
	idx_id_text(ss_idx(s), idx_rec(ss_idx(s), r->rec)->uuid, out);
	sb_addc(out, '"');
}

/* The newest cost-state record, or NULL. */
static const struct idx_rec *last_cost_state(const struct idx *ix)
{
	uint16_t atom = idx_atom_find(ix, "cost-state");
	uint32_t i = idx_nrecs(ix);

	while (atom && i-- > 0)
		if (idx_rec(ix, i)->type_atom == atom)
			return idx_rec(ix, i);
	return NULL;
}

static double num_of(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

/* The top-level "totalCostUSD" number of a cost-state line: 1, or 0 when
 * it has none (read in place, no tree: the projects mount asks it of
 * every log it counts). */
static int total_cost_of(const char *p, size_t n, double *cost)
{
	const char *e = p + n, *val;
	struct js_iter it;
	struct js_str k;

	if (js_obj_begin(&it, p, e))
		return 0;
	while (js_obj_next(&it, &k, &val) == 1) {
		if (js_eq(&k, "totalCostUSD") && (*val == '-' || (*val >= '0' && *val <= '9'))) {
			*cost = strtod(val, NULL);
			return isfinite(*cost);	/* "1e999": no figure */
		}
		if (!(it.p = js_value(val, e)))
			return 0;
	}
	return 0;
}

int rp_cost_state(const struct idx *ix, const struct logf *lf, double *cost)
{
	const struct idx_rec *r = last_cost_state(ix);
	struct sbuf line;
	int found;

	if (!r)
		return 0;
	sb_init(&line);
	found = !lf_read(lf, r, &line) && total_cost_of(line.buf, line.len, cost);
	sb_free(&line);
	return found;
}

/* The session's tallies get Claude Code's own total, where it has one. */
static void set_state(struct session *s, struct us_tally *y)
{
	double cost;

	if (rp_cost_state(ss_idx(s), ss_logf(s), &cost))
		us_tally_set_state(y, cost);
}

/* costState: the record's cost and its modelUsage summed over models. */
static void add_cost_state(struct session *s, struct sbuf *out)
{
	static const char *const keys[] = {
		"inputTokens", "outputTokens", "cacheCreationInputTokens",
		"cacheReadInputTokens",
	};
	const struct idx_rec *r = last_cost_state(ss_idx(s));
	cJSON *j = r ? lf_parse(ss_logf(s), r) : NULL;
	const cJSON *m, *mu = cJSON_GetObjectItemCaseSensitive(j, "modelUsage");
	size_t k;

	if (!j) {
		sb_adds(out, ",\n  \"costState\": null");
		return;
	}
	sb_addf(out, ",\n  \"costState\": {\n    \"line\": %u,\n    \"totalCostUSD\": ",
		r->line);
	sb_add_json_num(out, "%.6g", num_of(j, "totalCostUSD"));
	for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		double sum = 0;

		cJSON_ArrayForEach(m, mu)
			sum += num_of(m, keys[k]);
		sb_addf(out, ",\n    \"%s\": ", keys[k]);
		sb_add_json_num(out, "%.0f", sum);
	}
	sb_adds(out, "\n  }");
	cJSON_Delete(j);
}

/* "session", "log" and "agents". */
static int add_totals(struct session *s, const struct rp_agent *agents, uint32_t n,
		      struct sbuf *out)
{
	struct us_tally *all = us_tally_new(), *own = us_tally_new();
	const struct us_set *u = ss_usage(s);
	uint32_t i;
	int rc = all && own && u ? 0 : -ENOMEM;

	if (!rc)
		rc = us_tally_set(all, u);
	if (!rc)
		rc = us_tally_set(own, u);
	sb_adds(out, ",\n  \"agents\": [");
	for (i = 0; !rc && i < n; i++) {
		const struct us_set *au = ss_usage(agents[i].s);
		struct us_tally *y = us_tally_new();

		rc = y && au ? us_tally_set(y, au) : -ENOMEM;
		if (!rc)
			rc = us_tally_set(all, au);
		if (!rc) {
			sb_adds(out, i ? ",\n    {\n      \"name\": " : "\n    {\n      \"name\": ");
			sb_add_json_str(out, agents[i].name, strlen(agents[i].name));
			sb_adds(out, ",\n");
			us_tally_json(y, 6, out);
			sb_adds(out, "\n    }");
		}
		us_tally_free(y);
	}
	sb_adds(out, n ? "\n  ]" : "]");
	if (!rc) {
		set_state(s, all);
		set_state(s, own);
		sb_adds(out, ",\n  \"session\": ");
		tally_obj(all, out);
		sb_adds(out, ",\n  \"log\": ");
		tally_obj(own, out);
	}
	us_tally_free(all);
	us_tally_free(own);
	return rc;
}

void rp_priced_as(struct sbuf *out)
{
	struct sbuf t;

	sb_init(&t);
	sb_addf(&t, "ccusage 20.0.24 offline: %s", pr_source(pr_default()));
	sb_add_json_str(out, t.buf, t.len);
	sb_free(&t);
}

int rp_session_total(struct session *s, const struct rp_agent *agents, uint32_t n,
		     struct us_total *out)
{
	struct us_tally *y = us_tally_new();
	const struct us_set *u = ss_usage(s);
	uint32_t i;
	int rc = y && u ? us_tally_set(y, u) : -ENOMEM;

	for (i = 0; !rc && i < n; i++) {
		const struct us_set *au = ss_usage(agents[i].s);

		rc = au ? us_tally_set(y, au) : -ENOMEM;
	}
	if (!rc) {
		set_state(s, y);
		us_tally_total(y, out);
	}
	us_tally_free(y);
	return rc;
}

int rp_usage_json(struct session *s, const struct rp_agent *agents, uint32_t n,
		  struct sbuf *out)
{
	size_t start = out->len;
	int rc;

	sb_adds(out, "{\n  \"countedAs\": \"ccusage 20.0.24: each API response once\",\n"
		     "  \"pricedAs\": ");
	rp_priced_as(out);
	rc = add_totals(s, agents, n, out);
	if (!rc)
		rc = add_branches(s, out);
	if (!rc)
		rc = add_context(s, out);
	if (rc) {
		out->len = start;
		out->buf[start] = '\0';
		return rc;
	}
	add_real(s, out);
	add_cost_state(s, out);
	sb_adds(out, "\n}\n");
	return 0;
}

void rp_window_md(struct session *s, struct sbuf *out)
{
	const struct ctx *x = ss_context(s);
	const struct us_row *r;

	sb_adds(out, "\n## What the model last saw\n\n");
	if (ss_last_usage(s, &r) || !r) {
		sb_adds(out, "No response on the current branch records its usage.\n");
		return;
	}
	sb_adds(out, "The last response on the current branch (");
	idx_id_text(ss_idx(s), idx_rec(ss_idx(s), r->rec)->uuid, out);
	sb_addf(out, ", line %u)\nread ", idx_rec(ss_idx(s), r->rec)->line);
	us_num_text(us_context(&r->t), out);
	sb_adds(out, " input tokens (");
	us_tokens_text(&r->t, out);
	sb_adds(out, "):\nClaude Code's own count of what the model last read, system prompt and\n"
		     "tools included. The estimate above (");
	us_num_text(x ? ctx_tokens(x) : 0, out);
	sb_adds(out, " tokens: bytes / 4) counts only the\n"
		     "messages, and not what came after that response.\n");
}

/* ---- totals without a mount ---- */

/* Counts the usage rows of the log name in the folder dirfd into y;
 * main: the session's own log, whose cost-state gives y its logged
 * total. */
static int tally_log_at(int dirfd, const char *name, int main, struct us_tally *y)
{
	struct logf *lf = NULL;
	struct idx *ix = NULL;
	struct us_set *u = NULL;
	int rc = lf_openat(dirfd, name, &lf);

	if (rc)
		return rc;
	rc = (ix = idx_new()) ? idx_feed2(ix, lf_fd(lf), IDX_PAR_MIN) : -ENOMEM;
	if (!rc)
		rc = idx_finish(ix, lf_fd(lf));
	if (!rc)
		rc = us_build(ix, lf, &u);
	if (!rc)
		rc = us_tally_set(y, u);
	if (!rc && main) {
		double cost;

		if (rp_cost_state(ix, lf, &cost))
			us_tally_set_state(y, cost);
	}
	us_free(u);
	idx_free(ix);
	lf_close(lf);
	return rc;
}

int rp_log_tally_at(int dirfd, const char *name, const char *path, struct session *s,
		    struct us_tally *y)
{
	struct ag_list *l = NULL;
	const struct us_set *u = s ? ss_usage(s) : NULL;
	uint32_t i;
	int rc = s ? (u ? us_tally_set(y, u) : -ENOMEM) : tally_log_at(dirfd, name, 1, y);

	if (!rc && s)
		set_state(s, y);
	if (!rc)
		rc = ag_find(path, NULL, NULL, &l);
	for (i = 0; !rc && i < ag_count(l); i++)
		if (tally_log_at(AT_FDCWD, ag_get(l, i)->log, 0, y) == -ENOMEM)
			rc = -ENOMEM;
	ag_free(l);
	return rc;
}

int rp_log_tally(const char *path, struct session *s, struct us_tally *y)
{
	return rp_log_tally_at(AT_FDCWD, path, path, s, y);
}

int rp_log_totals(const char *path, struct us_total *out, struct sbuf *json)
{
	struct us_tally *y = us_tally_new();
	int rc = y ? rp_log_tally(path, NULL, y) : -ENOMEM;

	if (!rc) {
		us_tally_total(y, out);
		if (json)
			us_tally_json(y, 2, json);
	}
	us_tally_free(y);
	return rc;
}

/*
 * session_facts: what a session says about itself as text: session.json
 * (ss_facts_json()), window.md (ss_window_md()) and errors.txt
 * (ss_errors_text()). See session.h.
 */
#include "session_priv.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jscan.h"
#include "loghead.h"
#include "lineage.h"
#include "release.h"

/* ---- facts ---- */

static void add_key(struct sbuf *out, const char *key, int *first)
{
	sb_adds(out, *first ? "{\n  " : ",\n  ");
	*first = 0;
	sb_add_json_str(out, key, strlen(key));
	sb_adds(out, ": ");
}

static void add_str(struct sbuf *out, const char *key, const char *v, int *first)
{
	add_key(out, key, first);
	if (v)
		sb_add_json_str(out, v, strlen(v));
	else
		sb_adds(out, "null");
}

static void add_num(struct sbuf *out, const char *key, uint64_t v, int *first)
{
	add_key(out, key, first);
	sb_addf(out, "%llu", (unsigned long long)v);
}

static void add_uuid(struct sbuf *out, const struct idx *ix, const char *key,
		     uint32_t id, int *first)
{
	char buf[IDX_UUID_MAX + 1];

	add_str(out, key, id ? (idx_id_buf(ix, id, buf), buf) : NULL, first);
}

/* The record whose environment describes the session: the leaf, else the
 * last message, else the last record with a sessionId. */
static const struct idx_rec *env_record(const struct session *s)
{
	uint32_t n, i;
	const uint32_t *order = gr_nodes(s->g, &n);

	if (s->chain->leaf)
		return gr_node_rec(s->g, s->chain->leaf);
	if (n)
		return gr_node_rec(s->g, order[n - 1]);
	for (i = idx_nrecs(s->ix); i-- > 0;)
		if (idx_rec(s->ix, i)->flags & IDX_F_SESSION)
			return idx_rec(s->ix, i);
	return NULL;
}

static void add_env(const struct session *s, struct sbuf *out, int *first)
{
	static const char *const keys[] = { "sessionId", "cwd", "gitBranch", "version" };
	const struct idx_rec *r = env_record(s);
	cJSON *j = r ? lf_parse(s->lf, r) : NULL;
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, keys[i]);

		add_str(out, keys[i], cJSON_IsString(v) ? v->valuestring : NULL, first);
	}
	cJSON_Delete(j);
}

static char *dup_member(const cJSON *j, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);

	return cJSON_IsString(v) ? strdup(v->valuestring) : NULL;
}

void ss_env(const struct session *s, char **sid, char **cwd)
{
	const struct idx_rec *r = env_record(s);
	cJSON *j = r ? lf_parse(s->lf, r) : NULL;

	*sid = dup_member(j, "sessionId");
	*cwd = dup_member(j, "cwd");
	cJSON_Delete(j);
}

/* release: the release that wrote the log last (release.h), and whether
 * it is newer than any the rules were checked on. */
static void add_release(const struct session *s, struct sbuf *out, int *first)
{
	const char *rel = rl_of_log(s->ix);

	add_str(out, "release", *rel ? rel : NULL, first);
	add_key(out, "releaseNewerThanChecked", first);
	sb_adds(out, rl_newer(rel) ? "true" : "false");
}

/* Whether the records from the sums' end on may change what they hold:
 * one of them has a uuid met before (a copy of an older node, or a
 * parent named before written: either may be a node summed already). */
static int sums_stale(const struct session *s)
{
	uint32_t i;

	for (i = s->sums.nrecs; i < idx_nrecs(s->ix); i++) {
		uint32_t id = idx_rec(s->ix, i)->uuid;

		if (id && id <= s->sums.nids)
			return 1;
	}
	return 0;
}

/*
 * Extends the sums (the first and last times) over the records appended
 * since (from the first when sums_stale()). A part sums afresh each time
 * (its graph keeps only some records).
 */
static void sums_extend(struct session *s, struct ss_sums *out)
{
	uint32_t i, n = idx_nrecs(s->ix);
	struct ss_sums *m = &s->sums;

	pthread_mutex_lock(&s->sums_mu);
	if (s->part || sums_stale(s))
		ss_sums_reset(s);
	for (i = m->nrecs; i < n; i++) {
		const struct idx_rec *r = idx_rec(s->ix, i);

		if (r->ts != IDX_NO_TS && (m->lo == IDX_NO_TS || r->ts < m->lo))
			m->lo = r->ts;
		if (r->ts != IDX_NO_TS && (m->hi == IDX_NO_TS || r->ts > m->hi))
			m->hi = r->ts;
	}
	m->nrecs = n;
	m->nids = idx_nids(s->ix);
	*out = *m;
	pthread_mutex_unlock(&s->sums_mu);
}

static void add_times(const struct ss_sums *m, struct sbuf *out, int *first)
{
	char buf[32];

	js_time_fmt(m->lo, buf);
	add_str(out, "firstTimestamp", m->lo == IDX_NO_TS ? NULL : buf, first);
	js_time_fmt(m->hi, buf);
	add_str(out, "lastTimestamp", m->hi == IDX_NO_TS ? NULL : buf, first);
}

/* What decides forkedFrom besides the other logs: the first copied record
 * and the log's own first time (loghead.h), as one string (NULL when the
 * log cannot be read). Cheap: a head and a tail. */
static char *fork_facts(const struct session *s)
{
	char stem[LH_STEM_MAX + 1], *key = NULL;
	struct lh_facts f;

	lh_stem(s->base, stem);
	if (lh_read(s->dirfd, s->base, stem, &f))
		return NULL;
	if (asprintf(&key, "%s\n%s\n%lld", f.copy_uuid ? f.copy_uuid : "-",
		     f.copy_sid ? f.copy_sid : "-", (long long)f.first_ms) < 0)
		key = NULL;
	lh_free(&f);
	return key;
}

/* Whether forkedFrom as found still holds after growth: found whole, from
 * the same head facts, and its fork point settled (a record the fork wrote
 * itself follows it; while the log ends in copies, a copy appended moves
 * it). */
static int fork_still(const struct session *s, const char *facts)
{
	return s->fork_uuid && s->fork_sid && facts && s->fork_facts &&
	       !strcmp(facts, s->fork_facts) && s->fork_settled;
}

/* forkedFrom: the session a --fork-session copy came from (projects.h).
 * After growth it is looked for again unless fork_still() says it holds:
 * looking for the origin reads other logs (a second at 1 GB), which the
 * facts of this log's head decide. A log indexed anew looks again. */
static void add_fork(struct session *s, struct sbuf *out, int *first)
{
	char *facts = NULL;

	pthread_mutex_lock(&s->fork_mu);
	if (s->fork_known && s->fork_bytes != s->bytes)
		facts = fork_facts(s);
	if (!s->fork_known || (s->fork_bytes != s->bytes && !fork_still(s, facts))) {
		s->fork_known = 1;
		free(s->fork_sid);
		free(s->fork_uuid);
		free(s->fork_facts);
		s->fork_facts = facts ? facts : fork_facts(s);
		facts = NULL;
		s->fork_settled = 0;
		ln_fork_of(s->dirfd, s->base, &s->fork_sid, &s->fork_uuid, &s->fork_settled);
	}
	s->fork_bytes = s->bytes;
	free(facts);
	pthread_mutex_unlock(&s->fork_mu);
	add_key(out, "forkedFrom", first);
	if (!s->fork_uuid) {
		sb_adds(out, "null");
		return;
	}
	sb_adds(out, "{\"sessionId\": ");
	if (s->fork_sid)
		sb_add_json_str(out, s->fork_sid, strlen(s->fork_sid));
	else
		sb_adds(out, "null");
	sb_adds(out, ", \"uuid\": ");
	sb_add_json_str(out, s->fork_uuid, strlen(s->fork_uuid));
	sb_addc(out, '}');
}

/* Compactions (boundaries, and 1.0.x's summary roots) on the log's own
 * thread (gr_main_side()), over the graph as it is: whether a row is a
 * summary root can change as the log grows, so no sum over the rows
 * appended would do (one pass over the nodes). */
static uint32_t count_compactions(const struct session *s)
{
	uint32_t id, n = 0, nids = idx_nids(s->ix);

	for (id = 1; id <= nids; id++)
		n += gr_is_node(s->g, id) && gr_main_side(s->g, id) && gr_is_compaction(s->g, id);
	return n;
}

/* sessionTitle: the session's title by the rule of a projects folder
 * (loghead.h), over the whole log. */
static void add_session_title(const struct session *s, struct sbuf *out, int *first)
{
	enum lh_title_kind kind;
	char *t = NULL;

	lh_index_title(s->ix, s->lf, &t, &kind);
	add_str(out, "sessionTitle", t, first);
	free(t);
}

/* title, branchTitles (only the titled branches), continuedFrom. */
static void add_titles(const struct session *s, struct sbuf *out, int *first)
{
	uint32_t i, titled = 0;

	add_str(out, "title", ss_title(s), first);
	add_session_title(s, out, first);
	add_key(out, "branchTitles", first);
	for (i = 0; i < br_count(s->br); i++) {
		const char *t = sm_branch_title(s->sm, i);

		if (!t)
			continue;
		sb_adds(out, titled++ ? ", " : "{");
		sb_add_json_str(out, br_get(s->br, i)->name, strlen(br_get(s->br, i)->name));
		sb_adds(out, ": ");
		sb_add_json_str(out, t, strlen(t));
	}
	sb_adds(out, titled ? "}" : "{}");
	add_key(out, "continuedFrom", first);
	sb_adds(out, sm_ncont(s->sm) ? "[" : "[]");
	for (i = 0; i < sm_ncont(s->sm); i++) {
		const struct sm_cont *c = sm_cont(s->sm, i);

		sb_adds(out, i ? ", {\"leafUuid\": " : "{\"leafUuid\": ");
		sb_add_json_str(out, c->leaf, strlen(c->leaf));
		sb_adds(out, ", \"summary\": ");
		sb_add_json_str(out, c->summary, strlen(c->summary));
		sb_addc(out, '}');
	}
	if (sm_ncont(s->sm))
		sb_addc(out, ']');
	add_num(out, "inlineSidechains", sc_count(s->sc), first);
	if (s->part)
		add_str(out, "sidechainRoot", s->part, first);
}

/* The last response's own count of its input: what the model last saw. */
static void add_real(struct session *s, struct sbuf *out, int *first)
{
	const struct us_row *r;

	if (ss_last_usage(s, &r) || !r) {
		add_str(out, "contextTokensReal", NULL, first);
		add_str(out, "contextTokensRealAt", NULL, first);
		return;
	}
	add_num(out, "contextTokensReal", us_context(&r->t), first);
	add_uuid(out, s->ix, "contextTokensRealAt", idx_rec(s->ix, r->rec)->uuid, first);
}

static void add_context(struct session *s, struct sbuf *out, int *first)
{
	const struct ctx *x = ss_context(s);
	const struct ctx_window *w = x ? ctx_window(x) : NULL;

	add_num(out, "contextMessages", x ? ctx_nmessages(x) : 0, first);
	add_uuid(out, s->ix, "contextStart", w ? w->start : 0, first);
	add_num(out, "contextStartPosition", w ? w->dpos : 0, first);
	add_num(out, "contextTokens", x ? ctx_tokens(x) : 0, first);
	add_real(s, out, first);
}

static void add_state(struct session *s, struct sbuf *out, int *first)
{
	const struct st_state *st = ss_state(s);
	struct st_counts n = { 0, 0, 0, 0 };

	if (st)
		st_counts(st, &n);
	add_num(out, "stateReadCache", n.reads, first);
	add_num(out, "stateSnapshots", n.snapshots, first);
	add_num(out, "stateBackups", n.backups, first);
	add_num(out, "stateMissingBackups", n.missing, first);
	add_str(out, "fileHistoryFolder", st ? st_fh_dir(st) : NULL, first);
}

/* deadEnds: the pieces of the graph that are on no branch (branch.h). */
static void add_dead_ends(struct session *s, struct sbuf *out, int *first)
{
	uint32_t i, n = br_ndead(s->br);

	add_key(out, "deadEnds", first);
	sb_adds(out, n ? "[" : "[]");
	for (i = 0; i < n; i++) {
		const struct br_dead *d = br_dead(s->br, i);
		char buf[IDX_UUID_MAX + 1];

		sb_adds(out, i ? ",\n    {\"first\": " : "\n    {\"first\": ");
		sb_add_json_str(out, buf, idx_id_buf(s->ix, d->top, buf));
		sb_adds(out, ", \"last\": ");
		sb_add_json_str(out, buf, idx_id_buf(s->ix, d->terminal, buf));
		sb_adds(out, ", \"from\": ");
		if (d->from)
			sb_add_json_str(out, buf, idx_id_buf(s->ix, d->from, buf));
		else
			sb_adds(out, "null");
		sb_addf(out, ", \"line\": %u, \"rows\": %u, \"reason\": \"%s\"}",
			gr_node_rec(s->g, d->top)->line, d->rows,
			d->why == BR_DEAD_SUMMARISED ? "summarised" : "side");
	}
	if (n)
		sb_adds(out, "\n  ]");
}

void ss_window_md(struct session *s, struct sbuf *out)
{
	const struct ctx *x = ss_context(s);
	uint32_t i, n = br_ndead(s->br);

	if (x)
		ctx_window_md(x, s->g, out);
	if (n)
		sb_adds(out, "\n## Dead ends (on no branch)\n\n");
	for (i = 0; i < n; i++) {
		const struct br_dead *d = br_dead(s->br, i);

		sb_addf(out, "- line %u, ", gr_node_rec(s->g, d->top)->line);
		idx_id_text(s->ix, d->top, out);
		sb_addf(out, ", %u row%s", d->rows, d->rows == 1 ? "" : "s");
		if (d->from) {
			sb_adds(out, " off ");
			idx_id_text(s->ix, d->from, out);
		}
		sb_addf(out, ": %s\n", br_dead_reason(d->why));
	}
}

void ss_facts_json(struct session *s, struct sbuf *out)
{
	const struct rs_chain *c = s->chain;
	const struct ctx *x = ss_context(s);
	struct ss_sums sums;
	uint32_t nodes;
	int first = 1;

	gr_nodes(s->g, &nodes);
	sums_extend(s, &sums);
	add_env(s, out, &first);
	add_release(s, out, &first);
	add_str(out, "source", s->source, &first);
	add_num(out, "bytes", s->bytes, &first);
	add_num(out, "lines", idx_lines(s->ix), &first);
	add_num(out, "records", s->part ? nodes : idx_nrecs(s->ix), &first);
	add_num(out, "badLines", ss_bad_lines(s), &first);
	add_num(out, "unfinishedLastLine", ss_unfinished(s), &first);
	add_num(out, "messages", nodes, &first);
	add_num(out, "branches", br_count(s->br), &first);
	add_dead_ends(s, out, &first);
	add_str(out, "currentBranch",
		s->current >= 0 ? br_get(s->br, (uint32_t)s->current)->name : NULL, &first);
	add_uuid(out, s->ix, "currentLeaf", x ? ctx_attach(x) : c->attach, &first);
	add_uuid(out, s->ix, "leafMessage", c->leaf, &first);
	add_num(out, "compactions", count_compactions(s), &first);
	add_titles(s, out, &first);
	add_context(s, out, &first);
	add_state(s, out, &first);
	add_times(&sums, out, &first);
	add_fork(s, out, &first);
	sb_adds(out, "\n}\n");
}

/* ---- errors.txt ---- */

static void add_uuid_text(const struct session *s, struct sbuf *out, uint32_t id)
{
	idx_id_text(s->ix, id, out);
}

static void graph_error(const struct session *s, const struct gr_err *e,
			struct sbuf *out)
{
	static const char *const drops[] = {
		"", "no message object", "content neither string nor list",
		"blank assistant text", "no content block with a type",
	};

	sb_addf(out, "line %u: ", e->line);
	switch (e->code) {
	case GR_E_DUPLICATE:
		sb_adds(out, "duplicate uuid ");
		add_uuid_text(s, out, e->id);
		sb_addf(out, ": this copy replaces the one at line %u, which keeps its place\n",
			e->aux);
		return;
	case GR_E_DROPPED:
		sb_addf(out, "record dropped by the loader's repair (%s); its children hang off its parent\n",
			e->aux < 5 ? drops[e->aux] : "?");
		return;
	case GR_E_DANGLING:
		sb_adds(out, "parent ");
		add_uuid_text(s, out, e->aux);
		sb_adds(out, " not found; the record starts a path of its own\n");
		return;
	case GR_E_CYCLE:
		sb_adds(out, "cycle in parentUuid links; cut above this record\n");
		return;
	case GR_E_SELF_PARENT:
		sb_adds(out, "record names itself as parent; treated as a root\n");
		return;
	case GR_E_NO_UUID:
		sb_adds(out, "message record without a uuid; ignored\n");
		return;
	case GR_E_LOGICAL_CYCLE:
		sb_adds(out, "compact boundary's logicalParentUuid ");
		add_uuid_text(s, out, e->aux);
		sb_adds(out, " leads back to the boundary (a fork of a compacted session); the boundary starts its own piece\n");
		return;
	case GR_E_UNLINKED:
		sb_adds(out, "compact boundary's logicalParentUuid ");
		add_uuid_text(s, out, e->aux);
		sb_adds(out, " not found\n");
		return;
	case GR_E_UNCHAINED:
		sb_addf(out, "no message row names a parent (every parentUuid null or absent): the %u rows are read in file order as one branch\n",
			e->aux);
		return;
	}
}

void ss_errors_text(const struct session *s, struct sbuf *out)
{
	/* A part leaves the log's bad lines to the whole log's errors.txt. */
	uint32_t i, j = 0, ni = s->part ? 0 : idx_nerrs(s->ix), ng = gr_nerrs(s->g);
	const struct st_state *st;

	/* Both lists are in line order: merge them. */
	for (i = 0; i < ni || j < ng;) {
		const struct idx_err *ie = i < ni ? idx_err(s->ix, i) : NULL;
		const struct gr_err *ge = j < ng ? gr_err(s->g, j) : NULL;

		if (ie && (!ge || ie->line <= ge->line)) {
			sb_addf(out, "line %u: %s", ie->line, idx_err_text(ie->code));
			if (ie->code == IDX_E_NOT_JSON || ie->code == IDX_E_TORN)
				sb_addf(out, " (at byte %u)", ie->col);
			sb_addc(out, '\n');
			i++;
		} else {
			graph_error(s, ge, out);
			j++;
		}
	}
	if (idx_pending(s->ix))
		sb_addf(out, "note: %llu bytes after line %u wait for a newline (the log is being written)\n",
			(unsigned long long)idx_pending(s->ix), idx_lines(s->ix));
	if (rl_newer(rl_of_log(s->ix))) {
		sb_adds(out, "note: the log was written by Claude Code ");
		sb_add_line(out, rl_of_log(s->ix), strlen(rl_of_log(s->ix)));
		sb_adds(out, ", newer than any release sessfs was checked against (" RL_NEWEST_CHECKED
			"): context/ may differ from what that release sends on resume\n");
	}
	sb_add(out, s->notes.buf, s->notes.len);
	/* The state is built lazily under its own lock; the session itself
	 * is never a const object, so this cast only hides the laziness. */
	st = ss_state((struct session *)s);
	if (st)
		st_errors_text(st, out);
}

void ss_notes_copy(const struct session *s, struct sbuf *out)
{
	sb_add(out, s->notes.buf, s->notes.len);
}

void ss_notes_take(struct session *s, const char *kept, size_t n)
{
	struct sbuf all;

	if (!n)
		return;
	sb_init(&all);
	sb_add(&all, kept, n);
	sb_add(&all, s->notes.buf, s->notes.len);
	sb_free(&s->notes);
	s->notes = all;
}

void ss_notes_text(const struct session *s, struct sbuf *out)
{
	const char *p = s->notes.buf, *end = p + s->notes.len, *nl;

	for (; p && p < end; p = nl + 1) {
		if (!(nl = memchr(p, '\n', (size_t)(end - p))))
			nl = end;
		if ((size_t)(nl - p) > 6 && !memcmp(p, "note: ", 6))
			p += 6;
		sb_adds(out, "- ");
		sb_add(out, p, (size_t)(nl - p));
		sb_addc(out, '\n');
	}
}

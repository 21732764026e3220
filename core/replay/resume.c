#include "resume.h"
#include "resume_priv.h"
#include "release.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>


static int is_sub(const struct rsi_work *w, uint32_t id, uint8_t type, uint16_t atom)
{
	const struct idx_rec *r = rsi_rec(w, id);

	return r->type == type && atom && r->sub == atom;
}

/* ---- the file scan (rules 2, 3): rsi_scan(), resume_scan.c ---- */

static void scan_file(struct rsi_work *w)
{
	struct rsi_scan s = { 0 };

	rsi_scan(w->g, &s, 0, idx_nrecs(w->ix));
	w->last_row = s.last_row;
	w->checkpoint = s.checkpoint;
	w->cp_explicit = s.cp_explicit;
	w->saw_leaf_key = s.saw_leaf_key;
	w->c->boundary = s.boundary;
	w->c->cleared = s.cleared;
}

/* ---- rule 5: the preserved segment of the last boundary ---- */

static uint32_t id_of_json(const struct rsi_work *w, const cJSON *s)
{
	return cJSON_IsString(s) ? idx_id_find(w->ix, s->valuestring,
						 strlen(s->valuestring)) : 0;
}

/* The preserved ids, from preservedMessages, else the preservedSegment
 * path from tailUuid up to headUuid; *named: an anchorUuid was given
 * (*anchor is 0 when no record or row of the log names that uuid). */
static int preserved_list(struct rsi_work *w, const cJSON *meta, uint32_t *anchor,
			  int *named, struct ids *list, struct ids *keep)
{
	const cJSON *pm = cJSON_GetObjectItemCaseSensitive(meta, "preservedMessages");
	const cJSON *ps = cJSON_GetObjectItemCaseSensitive(meta, "preservedSegment");
	const cJSON *u;

	if (cJSON_IsObject(pm) &&
	    cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(pm, "uuids"))) {
		u = cJSON_GetObjectItemCaseSensitive(pm, "anchorUuid");
		*named = cJSON_IsString(u);
		*anchor = id_of_json(w, u);
		cJSON_ArrayForEach(u, cJSON_GetObjectItemCaseSensitive(pm, "uuids"))
			if (rsi_push(list, id_of_json(w, u)) || rsi_push(keep, id_of_json(w, u)))
				return -ENOMEM;
		cJSON_ArrayForEach(u, cJSON_GetObjectItemCaseSensitive(pm, "allUuids"))
			if (rsi_push(keep, id_of_json(w, u)))
				return -ENOMEM;
		return 0;
	}
	if (cJSON_IsObject(ps)) {
		uint32_t head = id_of_json(w, cJSON_GetObjectItemCaseSensitive(ps, "headUuid"));
		uint32_t id = id_of_json(w, cJSON_GetObjectItemCaseSensitive(ps, "tailUuid"));
		uint32_t i, steps = 0;

		u = cJSON_GetObjectItemCaseSensitive(ps, "anchorUuid");
		*named = cJSON_IsString(u);
		*anchor = id_of_json(w, u);
		for (; head && rsi_exists(w, id) && steps++ < w->n; id = w->par[id]) {
			if (rsi_push(list, id) || rsi_push(keep, id))
				return -ENOMEM;
			if (id == head)
				break;
		}
		if (id != head || !head) {
			list->n = keep->n = 0;
			return 0;
		}
		for (i = 0; i < list->n / 2; i++) {
			uint32_t t = list->v[i];

			list->v[i] = list->v[list->n - 1 - i];
			list->v[list->n - 1 - i] = t;
		}
	}
	return 0;
}

static void relink_apply(struct rsi_work *w, uint32_t anchor, const struct ids *list,
			 const uint8_t *keep)
{
	uint32_t last = list->v[list->n - 1], prev = anchor, i, k, nn;
	uint32_t bpos = gr_pos(w->g, w->c->boundary);
	const uint32_t *order = gr_nodes(w->g, &nn);

	for (k = 0; k < nn; k++)
		if (w->par[order[k]] == anchor && !keep[order[k]])
			w->par[order[k]] = last;
	for (i = 0; i < list->n; i++) {
		w->par[list->v[i]] = prev;
		prev = list->v[i];
	}
	for (k = 0; k < nn && gr_pos(w->g, order[k]) < bpos; k++)
		if (!keep[order[k]]) {
			w->del[order[k]] = 1;
			w->c->deleted++;
		}
	for (k = 0; k < nn; k++) {
		uint32_t id = order[k], p = w->par[id];

		if (!w->del[id] && p && w->del[p] && gr_is_message(w->g, id))
			w->par[id] = last;
	}
	w->c->relinked = 1;
}

static int relink(struct rsi_work *w)
{
	uint32_t b = w->c->boundary, anchor = 0, i;
	struct ids list = { 0 }, keep = { 0 };
	uint8_t *keepset = NULL;
	cJSON *j;
	int rc = 0, ok, named = 0;

	if (!b || !(rsi_rec(w, b)->flags & IDX_F_PRESERVED))
		return 0;
	j = lf_parse(w->lf, rsi_rec(w, b));
	if (!j)
		return 0;
	rc = preserved_list(w, cJSON_GetObjectItemCaseSensitive(j, "compactMetadata"),
			    &anchor, &named, &list, &keep);
	/* An anchor no line names is as missing as one only a parentUuid
	 * names: the same note, whatever a later line may mention. */
	if (rc || !named || !list.n)
		goto out;
	ok = anchor && rsi_exists(w, anchor);
	for (i = 0; i < list.n; i++)
		ok = ok && rsi_exists(w, list.v[i]);
	if (!ok) {
		rc = rsi_note(w, RS_N_PRESERVED_MISSING, b, 0, 0);
		goto out;
	}
	keepset = calloc(w->n + 1, 1);
	if (!keepset) {
		rc = -ENOMEM;
		goto out;
	}
	for (i = 0; i < keep.n; i++)
		keepset[keep.v[i]] = 1;
	relink_apply(w, anchor, &list, keepset);
	w->c->more->anchor = anchor;
	w->c->more->list = list.v;	/* taken */
	w->c->more->nlist = list.n;
	list.v = NULL;
out:
	free(keepset);
	free(list.v);
	free(keep.v);
	cJSON_Delete(j);
	return rc;
}

/* ---- children on the relinked parents ---- */

static int link_children(struct rsi_work *w)
{
	uint32_t nn, k, *last;
	const uint32_t *order = gr_nodes(w->g, &nn);

	last = calloc(w->n + 1, sizeof(*last));
	if (!last)
		return -ENOMEM;
	for (k = 0; k < nn; k++) {
		uint32_t id = order[k], p = w->par[id];

		if (w->del[id] || !rsi_exists(w, p))
			continue;
		if (last[p])
			w->sib[last[p]] = id;
		else
			w->child[p] = id;
		last[p] = id;
	}
	free(last);
	return 0;
}

/* ---- rules 2-3: the leaf ---- */

static int descends(struct rsi_work *w, uint32_t id, uint32_t anc)
{
	w->gen++;
	while (rsi_exists(w, id) && w->seen[id] != w->gen) {
		if (id == anc)
			return 1;
		w->seen[id] = w->gen;
		id = w->par[id];
	}
	return 0;
}

static uint32_t nearest_message(struct rsi_work *w, uint32_t id)
{
	w->gen++;
	while (rsi_exists(w, id) && w->seen[id] != w->gen) {
		if (gr_is_message(w->g, id))
			return id;
		w->seen[id] = w->gen;
		id = w->par[id];
	}
	return 0;
}

static int skip_row(const struct rsi_work *w, uint32_t id)
{
	return !gr_main_side(w->g, id) ||
	       is_sub(w, id, IDX_T_SYSTEM, w->a_file_snapshot);
}

/* §5.3 step 4, for logs without last-prompt: the newest descendant. */
static uint32_t newest_descendant(struct rsi_work *w, uint32_t top)
{
	struct ids stack = { 0 };
	uint32_t best = top, c;

	if (rsi_push(&stack, top))
		return top;
	w->gen++;		/* relinking can make cycles: visit once */
	w->seen[top] = w->gen;
	while (stack.n) {
		for (c = w->child[stack.v[--stack.n]]; c; c = w->sib[c]) {
			if (skip_row(w, c) || w->seen[c] == w->gen)
				continue;
			w->seen[c] = w->gen;
			if (rsi_rec(w, c)->ts > rsi_rec(w, best)->ts)
				best = c;
			if (rsi_push(&stack, c))
				break;
		}
	}
	free(stack.v);
	return best;
}

/* §5.3 steps 6-7: the newest message above a childless row. */
static uint32_t terminal_scan(struct rsi_work *w)
{
	uint32_t nn, k, best = 0;
	const uint32_t *order = gr_nodes(w->g, &nn);

	for (k = 0; k < nn; k++) {
		uint32_t id = order[k], u;

		if (w->del[id] || !gr_main_side(w->g, id) || w->child[id])
			continue;
		u = nearest_message(w, id);
		if (u && (!best || rsi_rec(w, u)->ts >= rsi_rec(w, best)->ts))
			best = u;
	}
	return best;
}

static uint32_t leaf_candidate(struct rsi_work *w)
{
	uint32_t cp = w->checkpoint;

	if (rsi_exists(w, cp) && gr_main_side(w->g, cp)) {
		if (!w->cp_explicit && rsi_exists(w, w->last_row) &&
		    (w->c->more->lr_desc = (uint8_t)descends(w, w->last_row, cp)))
			return w->last_row;
		return cp;
	}
	if (rsi_exists(w, w->last_row) && !w->saw_leaf_key)
		return newest_descendant(w, w->last_row);
	return rsi_exists(w, w->last_row) ? w->last_row : 0;
}

static int pick_leaf(struct rsi_work *w)
{
	uint32_t cand;

	struct rs_more *m = w->c->more;

	m->last_row = w->last_row;
	m->checkpoint = w->checkpoint;
	m->cp_explicit = (uint8_t)w->cp_explicit;
	m->saw_leaf_key = (uint8_t)w->saw_leaf_key;
	m->cp_ok = rsi_exists(w, w->checkpoint) && gr_main_side(w->g, w->checkpoint);
	m->lr_ok = (uint8_t)rsi_exists(w, w->last_row);
	if (w->c->cleared)
		return 0;
	cand = m->cand = leaf_candidate(w);
	w->c->leaf = cand ? nearest_message(w, cand) : 0;
	if (!w->c->leaf) {
		w->c->leaf = terminal_scan(w);
		if (w->c->leaf)
			return rsi_note(w, RS_N_TERMINAL_SCAN, w->c->leaf, 0, 0);
	}
	return 0;
}

/* ---- rule 4: the walk ---- */

static int sort_by_time(struct rsi_work *w)
{
	uint32_t nn, k;
	const uint32_t *order = gr_nodes(w->g, &nn);

	w->by_ts = malloc((nn ? nn : 1) * sizeof(*w->by_ts));
	if (!w->by_ts)
		return -ENOMEM;
	for (k = 0; k < nn; k++)
		if (!w->del[order[k]] && rsi_rec(w, order[k])->ts != IDX_NO_TS)
			w->by_ts[w->nts++] = (struct rs_ts){ rsi_rec(w, order[k])->ts,
							     gr_pos(w->g, order[k]), order[k] };
	qsort(w->by_ts, w->nts, sizeof(*w->by_ts), rsi_cmp_ts);
	return 0;
}

/* The row on the same side with the greatest time <= the child's, at most
 * RS_SUBSTITUTE_MS older, not already walked (0 if none). */
static uint32_t substitute(struct rsi_work *w, uint32_t child)
{
	int64_t t = rsi_rec(w, child)->ts;
	uint32_t lo = 0, hi, side = rsi_rec(w, child)->flags & IDX_F_SIDECHAIN;

	if (t == IDX_NO_TS || (!w->by_ts && sort_by_time(w)))
		return 0;
	hi = w->nts;
	while (lo < hi) {	/* first entry with ts > t */
		uint32_t mid = lo + (hi - lo) / 2;

		if (w->by_ts[mid].ts <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo-- > 0 && t - w->by_ts[lo].ts <= RS_SUBSTITUTE_MS) {
		uint32_t id = w->by_ts[lo].id;

		if (w->seen[id] != w->gen &&
		    (rsi_rec(w, id)->flags & IDX_F_SIDECHAIN) == side &&
		    !is_sub(w, id, IDX_T_SYSTEM, w->a_file_snapshot))
			return id;
	}
	return 0;
}

/*
 * The parent link the graph cut to break a cycle at id (0 if none). The
 * loader's walk has no such cut: it follows the link and stops at the
 * first repeated uuid, so the walk below does the same.
 */
static uint32_t cut_parent(const struct rsi_work *w, uint32_t id)
{
	uint32_t i;

	for (i = 0; i < gr_nerrs(w->g); i++) {
		const struct gr_err *e = gr_err(w->g, i);

		if ((e->code == GR_E_CYCLE || e->code == GR_E_SELF_PARENT) &&
		    e->id == id && rsi_rec(w, id)->parent)
			return e->aux;
	}
	return 0;
}

static int walk_up(struct rsi_work *w, struct ids *chain)
{
	uint32_t id = w->c->leaf, i;
	int rc = 0;

	w->gen++;
	while (id) {
		uint32_t p = w->par[id] ? w->par[id] : cut_parent(w, id);

		if (w->seen[id] == w->gen) {
			rc = rsi_note(w, RS_N_CYCLE, id, 0, 0);
			break;
		}
		w->seen[id] = w->gen;
		if (rsi_push(chain, id))
			return -ENOMEM;
		if (!p)
			break;
		if (!rsi_exists(w, p)) {
			uint32_t s = substitute(w, id);

			if (rsi_note(w, s ? RS_N_SUBSTITUTE : RS_N_CHAIN_START, id, p, s))
				return -ENOMEM;
			id = s;
			continue;
		}
		if (w->seen[p] == w->gen) {
			rc = rsi_note(w, RS_N_CYCLE, p, 0, 0);
			break;
		}
		id = p;
	}
	/* root first, also when a cycle ended the walk */
	for (i = 0; i < chain->n / 2; i++) {
		uint32_t t = chain->v[i];

		chain->v[i] = chain->v[chain->n - 1 - i];
		chain->v[chain->n - 1 - i] = t;
	}
	return rc;
}

/* The leaf's descendants through non-message rows, by time. */
static int add_trailing(struct rsi_work *w, struct ids *chain)
{
	struct ids stack = { 0 }, out = { 0 };
	struct rs_ts *v = NULL;
	uint32_t c, i;
	int rc = rsi_push(&stack, w->c->leaf);

	while (!rc && stack.n) {
		for (c = w->child[stack.v[--stack.n]]; c && !rc; c = w->sib[c]) {
			if (gr_is_message(w->g, c) || !gr_main_side(w->g, c))
				continue;
			rc = rsi_push(&out, c) || rsi_push(&stack, c) ? -ENOMEM : 0;
		}
	}
	if (!rc && out.n && !(v = malloc(out.n * sizeof(*v))))
		rc = -ENOMEM;
	for (i = 0; !rc && i < out.n; i++) {
		int64_t ts = rsi_rec(w, out.v[i])->ts;

		v[i] = (struct rs_ts){ ts == IDX_NO_TS ? 0 : ts, gr_pos(w->g, out.v[i]),
				       out.v[i] };
	}
	if (!rc && out.n)
		qsort(v, out.n, sizeof(*v), rsi_cmp_ts);
	for (i = 0; !rc && i < out.n; i++)
		rc = rsi_push(chain, v[i].id);
	free(v);
	free(stack.v);
	free(out.v);
	return rc;
}

/* ---- rule 8: the attach point ---- */

/*
 * The row holding the first tool call of the window that no result of the
 * window answers (rule 12 gives it a synthetic result), else the last
 * record of the chain.
 */
static uint32_t attach_point(struct rsi_work *w)
{
	struct rs_chain *c = w->c;
	struct useref *answered = NULL, *u, *ut;
	uint32_t i, at = c->n ? c->ids[c->n - 1] : 0;

	for (i = c->window; i < c->n; i++) {
		const struct idx_rec *r = rsi_rec(w, c->ids[i]);

		if (r->type != IDX_T_USER || r->block != IDX_B_TOOL_RESULT || !r->useid)
			continue;
		HASH_FIND(hh, answered, &r->useid, sizeof(r->useid), u);
		if (!u && (u = calloc(1, sizeof(*u)))) {
			u->useid = r->useid;
			HASH_ADD(hh, answered, useid, sizeof(u->useid), u);
		}
	}
	for (i = c->window; i < c->n; i++) {
		const struct idx_rec *r = rsi_rec(w, c->ids[i]);

		if (r->type != IDX_T_ASSISTANT || r->block != IDX_B_TOOL_USE || !r->useid)
			continue;
		HASH_FIND(hh, answered, &r->useid, sizeof(r->useid), u);
		if (!u) {
			at = c->ids[i];
			c->more->attach_call = 1;
			break;
		}
	}
	HASH_ITER(hh, answered, u, ut) {
		HASH_DEL(answered, u);
		free(u);
	}
	return at;
}

/*
 * Rule 32: a release before 2.1 drops the tool_use blocks no result of the
 * window answers, and a row left holding only them, and resumes from the
 * last row of the chain it keeps. The index knows a row's first block
 * only: the rows are read back (only when rule 8 found an unanswered call).
 */
struct idstr {
	UT_hash_handle hh;
	char *id;
};

static int idstr_add(struct idstr **set, const char *id)
{
	struct idstr *e = NULL;

	HASH_FIND_STR(*set, id, e);
	if (e)
		return 0;
	if (!(e = calloc(1, sizeof(*e))) || !(e->id = strdup(id))) {
		free(e);
		return -ENOMEM;
	}
	HASH_ADD_KEYPTR(hh, *set, e->id, strlen(e->id), e);
	return 0;
}

static void idstr_free(struct idstr **set)
{
	struct idstr *e, *t;

	HASH_ITER(hh, *set, e, t) {
		HASH_DEL(*set, e);
		free(e->id);
		free(e);
	}
}

/* The blocks of message.content of a row read back (NULL if none). */
static const cJSON *blocks_of(const cJSON *j)
{
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(j, "message"), "content");

	return cJSON_IsArray(c) ? c : NULL;
}

/* True when the assistant row holds tool_use blocks only, none answered. */
static int only_unanswered(struct rsi_work *w, uint32_t id, struct idstr *answered)
{
	const struct idx_rec *r = rsi_rec(w, id);
	cJSON *j;
	const cJSON *b;
	int only = 1, any = 0;

	if (r->type != IDX_T_ASSISTANT || r->block != IDX_B_TOOL_USE)
		return 0;
	j = lf_parse(w->lf, r);
	cJSON_ArrayForEach(b, blocks_of(j)) {
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(b, "type");
		const cJSON *u = cJSON_GetObjectItemCaseSensitive(b, "id");
		struct idstr *e = NULL;

		if (cJSON_IsString(u))
			HASH_FIND_STR(answered, u->valuestring, e);
		any = 1;
		if (!cJSON_IsString(t) || strcmp(t->valuestring, "tool_use") || e)
			only = 0;
	}
	cJSON_Delete(j);
	return any && only;
}

static int older_attach(struct rsi_work *w, uint32_t *out)
{
	struct rs_chain *c = w->c;
	struct idstr *answered = NULL;
	uint32_t i;
	int rc = 0;

	for (i = c->window; i < c->n && !rc; i++) {
		const struct idx_rec *r = rsi_rec(w, c->ids[i]);
		cJSON *j;
		const cJSON *b;

		if (r->type != IDX_T_USER || r->block != IDX_B_TOOL_RESULT)
			continue;
		j = lf_parse(w->lf, r);
		cJSON_ArrayForEach(b, blocks_of(j)) {
			const cJSON *u = cJSON_GetObjectItemCaseSensitive(b, "tool_use_id");

			if (!rc && cJSON_IsString(u))
				rc = idstr_add(&answered, u->valuestring);
		}
		cJSON_Delete(j);
	}
	for (i = c->n; !rc && i-- > c->window;)
		if (!only_unanswered(w, c->ids[i], answered)) {
			*out = c->ids[i];
			break;
		}
	idstr_free(&answered);
	return rc;
}

/* ---- shared with resume_grow.c (resume_priv.h) ---- */

/* ---- the whole ---- */

static int work_init(struct rsi_work *w, const struct graph *g, const struct logf *lf,
		     struct rs_chain *c)
{
	uint32_t id;

	memset(w, 0, sizeof(*w));
	w->g = g;
	w->ix = gr_idx(g);
	w->lf = lf;
	w->c = c;
	w->n = idx_nids(w->ix);
	w->a_boundary = idx_atom_find(w->ix, "compact_boundary");
	w->a_fork_briefing = idx_atom_find(w->ix, "fork_briefing");
	w->a_file_snapshot = idx_atom_find(w->ix, "file_snapshot");
	w->par = calloc(w->n + 1, sizeof(*w->par));
	w->del = calloc(w->n + 1, 1);
	w->child = calloc(w->n + 1, sizeof(*w->child));
	w->sib = calloc(w->n + 1, sizeof(*w->sib));
	w->seen = calloc(w->n + 1, sizeof(*w->seen));
	if (!w->par || !w->del || !w->child || !w->sib || !w->seen)
		return -ENOMEM;
	for (id = 1; id <= w->n; id++)
		if (gr_is_node(g, id))
			w->par[id] = gr_parent(g, id) ? gr_parent(g, id) : gr_dangling(g, id);
	return 0;
}

static void work_free(struct rsi_work *w)
{
	free(w->par);
	free(w->del);
	free(w->child);
	free(w->sib);
	free(w->seen);
	free(w->by_ts);
}

static int build_chain(struct rsi_work *w)
{
	struct ids chain = { 0 }, out = { 0 };
	struct rs_chain *c = w->c;
	uint32_t i, nwalk;
	int rc;

	rc = walk_up(w, &chain);
	nwalk = chain.n;
	if (!rc)
		rc = add_trailing(w, &chain);
	c->more->ntrail = chain.n - nwalk;
	if (!rc)
		rc = rsi_recover(w, &chain, nwalk, &out);
	free(chain.v);
	if (rc) {
		free(out.v);
		return rc;
	}
	c->ids = out.v;
	c->n = out.n;
	for (i = 0; i < c->n; i++)
		if (gr_is_boundary(w->g, c->ids[i]))
			c->window = i;
	c->attach = attach_point(w);
	c->more->older = (uint8_t)rl_older(rl_of_log(w->ix));
	if (c->more->attach_call && c->more->older) {
		c->more->attach_call = 0;
		return older_attach(w, &c->attach);
	}
	return 0;
}

/* What rs_grow() extends from: the sizes built over, and the filter of
 * the keys outside the tail response (resume_priv.h). */
static int keep_more(struct rsi_work *w)
{
	struct rs_more *m = w->c->more;
	uint32_t nn, k;
	const uint32_t *order = gr_nodes(w->g, &nn);

	m->nrecs = idx_nrecs(w->ix);
	m->nids = w->n;
	m->norder = nn;
	for (k = 0; k < nn; k++)	/* counted first */
		if (!w->del[order[k]])
			rsi_filter_row(m, w->g, order[k], m->tail);
	if (rsi_filter_init(m, m->nkeys))
		return -ENOMEM;
	for (k = 0; k < nn; k++)
		if (!w->del[order[k]])
			rsi_filter_row(m, w->g, order[k], m->tail);
	return 0;
}

int rs_build(const struct graph *g, const struct logf *lf, struct rs_chain **out)
{
	struct rs_chain *c = calloc(1, sizeof(*c));
	struct rsi_work w;
	int rc;

	*out = NULL;
	if (!c || !(c->more = calloc(1, sizeof(*c->more)))) {
		free(c);
		return -ENOMEM;
	}
	rc = work_init(&w, g, lf, c);
	if (!rc) {
		scan_file(&w);
		rc = relink(&w);
	}
	if (!rc)
		rc = link_children(&w);
	if (!rc)
		rc = pick_leaf(&w);
	if (!rc && c->leaf)
		rc = build_chain(&w);
	if (!rc)
		rc = keep_more(&w);
	work_free(&w);
	if (rc) {
		rs_free(c);
		return rc;
	}
	*out = c;
	return 0;
}

void rs_free(struct rs_chain *c)
{
	if (!c)
		return;
	if (c->more) {
		free(c->more->list);
		free(c->more->bits);
		free(c->more);
	}
	free(c->ids);
	free(c->notes);
	free(c);
}

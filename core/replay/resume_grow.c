/*
 * resume_grow: rs_grow() (resume.h), the chain extended by the rows
 * appended to the graph.
 *
 * The chain is emit(walk(leaf) + trailing(leaf)) (resume.c): units (a
 * response's block, or one row) in walk order, then the trailing rows.
 * Its tail T is the walk's last unit (ids[tb..n - ntrail)) and the old
 * leaf L0's trailing rows. What is proved before the tail is rebuilt:
 *   - the walk: the new leaf L1 is L0, or a new row whose path up runs
 *     through new rows and T (taking in every old trailing row, which
 *     else could turn side rows) to a row z of the old walk in T; the
 *     walk is then walk(z) + that path, and walk(z) emits what the old
 *     walk emitted before T, then T's unit;
 *   - parents: a new main-side row hangs off a new row or a row of T
 *     (not the anchor of rule 5), so the relinking leaves its parent
 *     as written; rows of T stepped over are checked the same way;
 *   - blocks: no new row has the response id or call id of an old row
 *     outside T's response, and no new call has the id of an old tool
 *     result (the filter); so no old response, and no old row's
 *     response, changes but T's; a new turn row hangs below old rows
 *     only through messages or trailing rows (on the chain, for which
 *     being below decides nothing), so no old side row changes;
 *   - substitutes (rule 4): no new row, nor a row of T, is in the time
 *     window of a substitute the walk looked for;
 *   - the leaf pick: the scan goes on over the new records; lastRow's
 *     descent from the checkpoint and the nearest message are walked
 *     over new rows, and decided on old rows only where the old pick
 *     knew them (L0, the old lastRow, checkpoint and candidate).
 * RS_GROW_NO wherever one of these is not shown.
 */
#include "resume.h"
#include "resume_priv.h"
#include "release.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

/* ---- the growth's work ---- */

/* Flags of an old row of T, and of a new row. */
enum {
	F_UNIT = 1,	/* in T's unit (old) */
	F_ROW = 2,	/* a row of T's response (old) */
	F_TRAIL = 4,	/* an old trailing row (old); on the new trailing (new) */
	F_WALK = 8,	/* on the old walk, in T (old) */
	F_PATH = 16,	/* on the new walk's part below z */
	F_CHAIN = 32,	/* on the new walk or trailing */
	F_PLACED = 64,	/* emitted */
	F_BELOW = 128,	/* a new turn row below it (new) */
};

#define UNKNOWN ((struct resp *)1)

struct gw {
	struct rs_chain *c;
	struct rs_more *m;
	const struct graph *g;
	const uint32_t *order;
	uint32_t norder, nids, n0;	/* n0: ids then (new ids are above) */
	/* T: old ids (open addressing, tmask + 1 slots) and their flags */
	uint32_t *tk, tmask;
	uint8_t *tf;
	uint8_t *nf;			/* flags per new id - n0 */
	struct resp **nresp;		/* per new id - n0: its response (ofrow) */
	struct resp *byid, *tailr;
	struct useref *byuse;
	struct ids wt;			/* the old walk in T, from L0 up */
	struct ids path;		/* the new walk below z, top first */
	struct ids trail;		/* the new trailing rows */
	struct ids out;
	struct ids recovered;		/* rows emitted off the chain */
	struct rsi_scan sc;		/* the scan after the new records */
	uint32_t l0, l1, z, cand;
	uint8_t cp_ok, lr_ok, lr_desc;
	uint32_t tb, ntrail;		/* the new tail */
	uint64_t tail;
	uint32_t bpos;			/* the boundary's position (relinked) */
};

static int is_new(const struct gw *w, uint32_t id)
{
	return id > w->n0;
}

static uint32_t tslot(const struct gw *w, uint32_t id)
{
	uint32_t h = (id * 2654435761u) & w->tmask;

	while (w->tk[h] && w->tk[h] != id)
		h = (h + 1) & w->tmask;
	return h;
}

/* The flags of id (old: 0 outside T). */
static uint8_t *flags(struct gw *w, uint32_t id)
{
	static uint8_t none;
	uint32_t h;

	if (is_new(w, id))
		return &w->nf[id - w->n0];
	none = 0;
	if (!id)
		return &none;
	h = tslot(w, id);
	if (w->tk[h] == id)
		return &w->tf[h];
	none = 0;
	return &none;
}

static uint8_t flag(struct gw *w, uint32_t id)
{
	return *flags(w, id);
}

static const struct idx_rec *rec(const struct gw *w, uint32_t id)
{
	return gr_node_rec(w->g, id);
}

/*
 * The parent the chain's walk takes from id, a new row or a row of T:
 * the parent written, which rule 5 leaves where it is not the anchor, id
 * is not relinked and (for a message) the parent is not summarised
 * away; 0 (RS_GROW_NO) when that is not shown or id names no row.
 */
static uint32_t par(struct gw *w, uint32_t id)
{
	uint32_t p = gr_parent(w->g, id), i;
	const struct rs_more *m = w->m;

	if (!p || !gr_is_node(w->g, p))
		return 0;
	if (!w->c->relinked)
		return p;
	if (p == m->anchor)
		return 0;
	for (i = 0; i < m->nlist; i++)
		if (m->list[i] == id)
			return 0;
	if (!is_new(w, p) && !(flag(w, p) & (F_UNIT | F_TRAIL)) &&
	    gr_pos(w->g, p) < w->bpos)
		return 0;	/* maybe summarised away */
	return p;
}

static void gw_free(struct gw *w)
{
	struct resp *r, *rt;
	struct useref *u, *ut;

	HASH_ITER(hh, w->byid, r, rt) {
		HASH_DEL(w->byid, r);
		free(r->rows.v);
		free(r->results.v);
		free(r);
	}
	HASH_ITER(hh, w->byuse, u, ut) {
		HASH_DEL(w->byuse, u);
		free(u);
	}
	free(w->tk);
	free(w->tf);
	free(w->nf);
	free(w->nresp);
	free(w->wt.v);
	free(w->path.v);
	free(w->trail.v);
	free(w->out.v);
	free(w->recovered.v);
}

/* ---- T, the new rows' parents ---- */

static int note_code_in_t(struct gw *w, uint8_t code)
{
	uint32_t i;

	for (i = 0; i < w->c->nnotes; i++)
		if (w->c->notes[i].code == code && flag(w, w->c->notes[i].id))
			return 1;
	return 0;
}

/* T's rows and flags; the old walk in T, from L0 up. */
static int tail_set(struct gw *w)
{
	struct rs_chain *c = w->c;
	uint32_t i, nt = c->n - w->m->tb, slots = 16, end = c->n - w->m->ntrail;

	if (w->m->ntrail > c->n || w->m->tb >= end)
		return RS_GROW_NO;
	if (c->window > w->m->tb || (c->window == w->m->tb && gr_is_boundary(w->g, c->ids[c->window])))
		return RS_GROW_NO;
	while (slots < 2 * nt)
		slots <<= 1;
	w->tk = calloc(slots, sizeof(*w->tk));
	w->tf = calloc(slots, 1);
	if (!w->tk || !w->tf)
		return -ENOMEM;
	w->tmask = slots - 1;
	for (i = w->m->tb; i < c->n; i++) {
		uint32_t id = c->ids[i], h = tslot(w, id);
		const struct idx_rec *r = rec(w, id);

		w->tk[h] = id;
		if (i >= end)
			w->tf[h] = F_TRAIL;
		else if (w->m->tail && r->type == IDX_T_ASSISTANT && r->msgid == w->m->tail)
			w->tf[h] = F_UNIT | F_ROW;
		else
			w->tf[h] = F_UNIT;
	}
	if (!w->m->tail && end - w->m->tb != 1)
		return RS_GROW_NO;
	if (!(flag(w, w->l0) & F_UNIT) || note_code_in_t(w, RS_N_CYCLE) ||
	    note_code_in_t(w, RS_N_SUBSTITUTE) || note_code_in_t(w, RS_N_CHAIN_START))
		return RS_GROW_NO;
	for (i = w->l0;;) {	/* the walk up from L0 within T */
		uint32_t p = par(w, i);

		*flags(w, i) |= F_WALK;
		if (rsi_push(&w->wt, i))
			return -ENOMEM;
		if (!p || (flag(w, p) & F_WALK))
			return RS_GROW_NO;
		if (!(flag(w, p) & F_UNIT))
			return 0;
		i = p;
	}
}

/*
 * The new rows: each hangs off a new row or a row of T (a new sidechain
 * row also off an old sidechain row, or off none), and a new turn row
 * is below old rows only through a message or an old trailing row.
 */
static int new_parents(struct gw *w)
{
	uint32_t k;

	for (k = w->m->norder; k < w->norder; k++) {
		uint32_t id = w->order[k], p = par(w, id), x;

		if (!is_new(w, id))
			return RS_GROW_NO;
		if (!p && !gr_main_side(w->g, id) && !gr_parent(w->g, id))
			continue;	/* a sidechain's root: below nothing */
		if (!p)
			return RS_GROW_NO;
		if (!is_new(w, p) && !flag(w, p) &&
		    (gr_main_side(w->g, id) || gr_main_side(w->g, p)))
			return RS_GROW_NO;
		if (!gr_is_message(w->g, id))
			continue;
		for (x = p; is_new(w, x) && !(flag(w, x) & F_BELOW); x = par(w, x))
			*flags(w, x) |= F_BELOW;
		if (x && !is_new(w, x) && !gr_is_message(w->g, x) && !(flag(w, x) & F_TRAIL))
			return RS_GROW_NO;
	}
	return 0;
}

/* Rule 4's substitutes: no new row nor row of T in a window searched. */
static int substitutes(struct gw *w)
{
	const struct rs_chain *c = w->c;
	uint32_t i, k, looked = 0;

	for (i = 0; i < c->nnotes; i++) {
		const struct rs_note *nt = &c->notes[i];
		int64_t t;
		uint32_t side;

		if (nt->code != RS_N_SUBSTITUTE && nt->code != RS_N_CHAIN_START)
			continue;
		if (++looked > 64)
			return RS_GROW_NO;
		t = rec(w, nt->id)->ts;
		side = rec(w, nt->id)->flags & IDX_F_SIDECHAIN;
		if (t == IDX_NO_TS)
			continue;
		for (k = w->m->norder; k < w->norder; k++) {
			const struct idx_rec *r = rec(w, w->order[k]);

			if (r->ts != IDX_NO_TS && r->ts <= t && t - r->ts <= RS_SUBSTITUTE_MS &&
			    (r->flags & IDX_F_SIDECHAIN) == side)
				return RS_GROW_NO;
		}
		for (k = w->m->tb; k < c->n; k++) {
			const struct idx_rec *r = rec(w, c->ids[k]);

			if (r->ts != IDX_NO_TS && r->ts <= t && t - r->ts <= RS_SUBSTITUTE_MS)
				return RS_GROW_NO;
		}
	}
	return 0;
}

/* ---- rules 2-3: the leaf ---- */

/* Whether old row id exists for the chain (not summarised away): -1
 * when the old pick did not know. */
static int old_exists(struct gw *w, uint32_t id)
{
	const struct rs_more *m = w->m;

	if (!gr_is_node(w->g, id))
		return 0;
	if (!w->c->relinked || id == w->l0 || (flag(w, id) & (F_UNIT | F_TRAIL)))
		return 1;
	if (id == m->checkpoint && m->cp_ok)
		return 1;
	if (id == m->last_row)
		return m->lr_ok;
	return -1;
}

static int exists(struct gw *w, uint32_t id)
{
	return is_new(w, id) ? gr_is_node(w->g, id) : old_exists(w, id);
}

/* Whether a descends from b (-1: not known). */
static int descends(struct gw *w, uint32_t a, uint32_t b)
{
	const struct rs_more *m = w->m;

	for (; is_new(w, a); a = par(w, a))
		if (a == b)
			return 1;
	if (a == b)
		return 1;
	if (is_new(w, b))
		return 0;	/* old rows hang off old rows only */
	if (a == m->last_row && b == m->checkpoint && m->cp_ok && m->lr_ok && !m->cp_explicit)
		return m->lr_desc;
	if (a == m->last_row && b == w->l0 && m->cand == m->last_row)
		return 1;	/* L0 is the nearest message above it */
	return -1;
}

/* The newest descendant of top (§5.3 step 4), over new rows. */
static int newest(struct gw *w, uint32_t top, uint32_t *out)
{
	uint32_t best = top, k;

	if (!is_new(w, top)) {
		const struct rs_more *m = w->m;

		if (top != m->last_row || m->cp_ok || !m->lr_ok || m->saw_leaf_key)
			return RS_GROW_NO;	/* not the old pick's */
		for (k = m->norder; k < w->norder; k++)
			if (gr_main_side(w->g, w->order[k]) &&
			    !(rec(w, w->order[k])->type == IDX_T_SYSTEM && w->sc.a_file_snapshot &&
			      rec(w, w->order[k])->sub == w->sc.a_file_snapshot))
				return RS_GROW_NO;
		*out = m->cand;
		return 0;
	}
	/* The build's depth-first visit: children in file order, the last
	 * pushed first; the first of the newest taken. */
	{
		struct ids stack = { 0 };
		uint32_t c;

		if (rsi_push(&stack, top))
			return -ENOMEM;
		while (stack.n) {
			for (c = gr_first_child(w->g, stack.v[--stack.n]); c;
			     c = gr_next_sibling(w->g, c)) {
				const struct idx_rec *r = rec(w, c);

				if (!gr_main_side(w->g, c) ||
				    (r->type == IDX_T_SYSTEM && w->sc.a_file_snapshot &&
				     r->sub == w->sc.a_file_snapshot))
					continue;
				if (r->ts > rec(w, best)->ts)
					best = c;
				if (rsi_push(&stack, c)) {
					free(stack.v);
					return -ENOMEM;
				}
			}
		}
		free(stack.v);
	}
	*out = best;
	return 0;
}

static int candidate(struct gw *w, uint32_t *cand)
{
	const struct rsi_scan *s = &w->sc;
	uint32_t cp = s->checkpoint, lr = s->last_row;
	int e = exists(w, cp), d;

	if (e < 0)
		return RS_GROW_NO;
	w->cp_ok = e && gr_main_side(w->g, cp);
	if ((e = exists(w, lr)) < 0)
		return RS_GROW_NO;
	w->lr_ok = (uint8_t)e;
	w->lr_desc = 0;
	if (w->cp_ok) {
		*cand = cp;
		if (s->cp_explicit || !w->lr_ok)
			return 0;
		if ((d = descends(w, lr, cp)) < 0)
			return RS_GROW_NO;
		w->lr_desc = (uint8_t)d;
		if (d)
			*cand = lr;
		return 0;
	}
	if (w->lr_ok && !s->saw_leaf_key)
		return newest(w, lr, cand);
	*cand = w->lr_ok ? lr : 0;
	return 0;
}

/* The scan over the new records, the candidate and the leaf. */
static int pick(struct gw *w)
{
	uint32_t x;
	int rc;

	w->sc = (struct rsi_scan){ w->m->last_row, w->m->checkpoint, w->c->boundary,
				   w->m->cp_explicit, w->m->saw_leaf_key, w->c->cleared, 0, 0 };
	rsi_scan(w->g, &w->sc, w->m->nrecs, idx_nrecs(gr_idx(w->g)));
	if (w->sc.cleared || w->sc.boundary != w->c->boundary)
		return RS_GROW_NO;
	if ((rc = candidate(w, &w->cand)))
		return rc;
	if (!w->cand)
		return RS_GROW_NO;	/* the terminal scan */
	for (x = w->cand; is_new(w, x); x = par(w, x))
		if (gr_is_message(w->g, x)) {
			w->l1 = x;
			return 0;
		}
	if (x != w->m->cand && x != w->l0)
		return RS_GROW_NO;	/* another old leaf */
	w->l1 = w->l0;
	return 0;
}

/* ---- rule 4: the walk and the trailing rows ---- */

/*
 * The new walk below z, a row of the old walk in T: from L1 up through
 * new rows and rows of T (not side rows: they would leave their block),
 * taking in every old trailing row when L1 is new.
 */
static int walk_down(struct gw *w)
{
	uint32_t x = w->l1, steps = 0, i, j;

	w->z = w->l0;
	if (w->l1 != w->l0) {
		for (; !(flag(w, x) & F_WALK); x = par(w, x)) {
			uint8_t f = flag(w, x);
			const struct idx_rec *r;

			if (!x || ++steps > w->norder + w->c->n || (f & F_PATH))
				return RS_GROW_NO;
			r = rec(w, x);
			if (!is_new(w, x) && (!(f & (F_UNIT | F_TRAIL)) ||
			    ((f & F_UNIT) && r->type != IDX_T_USER && r->type != IDX_T_ASSISTANT)))
				return RS_GROW_NO;
			*flags(w, x) |= F_PATH | F_CHAIN;
			if (rsi_push(&w->path, x))
				return -ENOMEM;
		}
		w->z = x;
		for (i = 0; i < w->path.n / 2; i++) {
			uint32_t t = w->path.v[i];

			w->path.v[i] = w->path.v[w->path.n - 1 - i];
			w->path.v[w->path.n - 1 - i] = t;
		}
	}
	for (i = w->m->tb; i < w->c->n; i++) {
		uint32_t id = w->c->ids[i];
		uint8_t *f = flags(w, id);

		if ((*f & F_TRAIL) && !(*f & F_PATH) && w->l1 != w->l0)
			return RS_GROW_NO;	/* off the chain now */
		if ((*f & F_TRAIL) && w->l1 == w->l0)
			*f |= F_CHAIN;
	}
	for (j = 0; j < w->wt.n && w->wt.v[j] != w->z; j++)
		;
	for (i = j; i < w->wt.n; i++)
		*flags(w, w->wt.v[i]) |= F_CHAIN;
	return j < w->wt.n ? 0 : RS_GROW_NO;
}

/* L1's descendants through non-message rows of the own thread, by time. */
static int trailing(struct gw *w)
{
	uint32_t k, i;
	struct rs_ts *v;

	if (w->l1 == w->l0)
		for (i = w->c->n - w->m->ntrail; i < w->c->n; i++)
			if (rsi_push(&w->trail, w->c->ids[i]))
				return -ENOMEM;
	for (k = w->m->norder; k < w->norder; k++) {
		uint32_t id = w->order[k], p = par(w, id);

		if (gr_is_message(w->g, id) || !gr_main_side(w->g, id))
			continue;
		if (p != w->l1 && !(is_new(w, p) && (flag(w, p) & F_TRAIL)) &&
		    !(w->l1 == w->l0 && !is_new(w, p) && (flag(w, p) & F_TRAIL)))
			continue;
		*flags(w, id) |= F_TRAIL | F_CHAIN;
		if (rsi_push(&w->trail, id))
			return -ENOMEM;
	}
	if (!w->trail.n)
		return 0;
	if (!(v = malloc(w->trail.n * sizeof(*v))))
		return -ENOMEM;
	for (i = 0; i < w->trail.n; i++) {
		int64_t ts = rec(w, w->trail.v[i])->ts;

		v[i] = (struct rs_ts){ ts == IDX_NO_TS ? 0 : ts, gr_pos(w->g, w->trail.v[i]),
				       w->trail.v[i] };
	}
	qsort(v, w->trail.n, sizeof(*v), rsi_cmp_ts);
	for (i = 0; i < w->trail.n; i++)
		w->trail.v[i] = v[i].id;
	free(v);
	return 0;
}

/* ---- rule 6: the blocks of T's response and of new responses ---- */

static struct resp *resp_get(struct gw *w, uint64_t msgid, int add)
{
	struct resp *r = NULL;

	HASH_FIND(hh, w->byid, &msgid, sizeof(msgid), r);
	if (!r && add && (r = calloc(1, sizeof(*r)))) {
		r->msgid = msgid;
		HASH_ADD(hh, w->byid, msgid, sizeof(msgid), r);
	}
	return r;
}

static int use_add(struct gw *w, uint64_t useid, struct resp *r)
{
	struct useref *u = NULL;

	HASH_FIND(hh, w->byuse, &useid, sizeof(useid), u);
	if (u)
		return 0;
	if (!(u = calloc(1, sizeof(*u))))
		return -ENOMEM;
	u->useid = useid;
	u->r = r;
	HASH_ADD(hh, w->byuse, useid, sizeof(u->useid), u);
	return 0;
}

static struct resp *use_find(struct gw *w, uint64_t useid)
{
	struct useref *u = NULL;

	HASH_FIND(hh, w->byuse, &useid, sizeof(useid), u);
	return u ? u->r : NULL;
}

/* The responses on the chain that new rows may join: T's, and those of
 * the new walk's rows; T's rows and calls. */
static int responses(struct gw *w)
{
	uint32_t i;

	if (w->m->tail && !(w->tailr = resp_get(w, w->m->tail, 1)))
		return -ENOMEM;
	for (i = 0; i < w->path.n; i++) {
		const struct idx_rec *r = rec(w, w->path.v[i]);

		if (r->type != IDX_T_ASSISTANT || !r->msgid || r->msgid == w->m->tail)
			continue;
		if (rsi_filter_has(w->m, RS_K_MSG, r->msgid))
			return RS_GROW_NO;	/* maybe an older response */
		if (!resp_get(w, r->msgid, 1))
			return -ENOMEM;
	}
	for (i = w->m->tb; w->tailr && i < w->c->n - w->m->ntrail; i++) {
		uint32_t id = w->c->ids[i];
		const struct idx_rec *r = rec(w, id);

		if (!(flag(w, id) & F_ROW)) {
			if (rsi_push(&w->tailr->results, id))	/* in order */
				return -ENOMEM;
			continue;
		}
		if (rsi_push(&w->tailr->rows, id) ||
		    (r->useid && r->block == IDX_B_TOOL_USE && use_add(w, r->useid, w->tailr)))
			return -ENOMEM;
	}
	return 0;
}

/* The response old row id of T belongs to (gather_results' ofrow), or
 * UNKNOWN. */
static struct resp *old_ofrow(struct gw *w, uint32_t id)
{
	const struct idx_rec *r = rec(w, id);
	uint8_t f = flag(w, id);

	if (f & F_ROW)
		return w->tailr;
	if (f & F_TRAIL)
		return NULL;	/* on the chain: no side row */
	if (!(f & F_UNIT))
		return UNKNOWN;
	if (!w->m->tail)	/* L0 alone */
		return r->type == IDX_T_USER && r->block == IDX_B_TOOL_RESULT ? UNKNOWN : NULL;
	if (r->type == IDX_T_USER && r->useid && rsi_filter_has(w->m, RS_K_CALL, r->useid))
		return UNKNOWN;	/* another call of that id may answer it */
	return w->tailr;
}

static struct resp *ofrow(struct gw *w, uint32_t id)
{
	return is_new(w, id) ? w->nresp[id - w->n0] : old_ofrow(w, id);
}

/* gather_rows() over the new rows. */
static int new_rows(struct gw *w)
{
	uint32_t k;

	for (k = w->m->norder; k < w->norder; k++) {
		uint32_t id = w->order[k];
		const struct idx_rec *r = rec(w, id);
		struct resp *rp;

		if (!gr_main_side(w->g, id) || r->type != IDX_T_ASSISTANT || !r->msgid)
			continue;
		if (r->msgid != w->m->tail && rsi_filter_has(w->m, RS_K_MSG, r->msgid))
			return RS_GROW_NO;
		if (!(rp = resp_get(w, r->msgid, 0)))
			continue;
		if (rsi_push(&rp->rows, id))
			return -ENOMEM;
		w->nresp[id - w->n0] = rp;
		if (!r->useid || r->block != IDX_B_TOOL_USE)
			continue;
		if (rsi_filter_has(w->m, RS_K_CALL, r->useid) ||
		    rsi_filter_has(w->m, RS_K_RES, r->useid))
			return RS_GROW_NO;
		if (use_add(w, r->useid, rp))
			return -ENOMEM;
	}
	return 0;
}

/* gather_results() over the new rows. */
static int new_results(struct gw *w)
{
	uint32_t k;

	for (k = w->m->norder; k < w->norder; k++) {
		uint32_t id = w->order[k];
		const struct idx_rec *r = rec(w, id);
		uint8_t f = flag(w, id);
		struct resp *r1 = NULL, *r2 = NULL;

		if (!gr_main_side(w->g, id) || r->type == IDX_T_ASSISTANT ||
		    (r->type == IDX_T_USER && r->block != IDX_B_TOOL_RESULT))
			continue;
		if (r->type != IDX_T_USER) {
			if (!(f & (F_CHAIN | F_BELOW)) && !gr_is_boundary(w->g, id))
				r1 = ofrow(w, par(w, id));
			if (r1 == UNKNOWN)
				return RS_GROW_NO;
			if (r1 && rsi_push(&r1->results, id))
				return -ENOMEM;
			w->nresp[id - w->n0] = r1;
			continue;
		}
		if ((r1 = ofrow(w, par(w, id))) == UNKNOWN)
			return RS_GROW_NO;
		if (r->useid && rsi_filter_has(w->m, RS_K_CALL, r->useid))
			return RS_GROW_NO;	/* maybe an older call's */
		r2 = r->useid ? use_find(w, r->useid) : NULL;
		if ((r1 && rsi_push(&r1->results, id)) || (r2 && r2 != r1 && rsi_push(&r2->results, id)))
			return -ENOMEM;
		w->nresp[id - w->n0] = r2 ? r2 : r1;
	}
	return 0;
}

/* ---- emitting the tail ---- */

static int emit_one(struct gw *w, uint32_t id)
{
	uint8_t *f = flags(w, id);

	if (*f & F_PLACED)
		return 0;
	*f |= F_PLACED;
	if (rsi_push(&w->out, id) || (!(*f & F_CHAIN) && rsi_push(&w->recovered, id)))
		return -ENOMEM;
	return 0;
}

static int emit_block(struct gw *w, const struct resp *rp)
{
	uint32_t i;
	int rc = 0;

	for (i = 0; !rc && i < rp->rows.n; i++)
		rc = emit_one(w, rp->rows.v[i]);
	for (i = 0; !rc && i < rp->results.n; i++)
		rc = emit_one(w, rp->results.v[i]);
	return rc;
}

/* T's unit's recovered notes come last: how many, to be made again. */
static uint32_t tail_notes(struct gw *w)
{
	const struct rs_chain *c = w->c;
	uint32_t n = c->nnotes;

	while (n && c->notes[n - 1].code == RS_N_RECOVERED && (flag(w, c->notes[n - 1].id) & F_UNIT))
		n--;
	return c->nnotes - n;
}

/* The chain from T on: T's unit, the new walk, the trailing rows. */
static int emit_tail(struct gw *w)
{
	const struct rs_chain *c = w->c;
	uint32_t i;
	int rc = 0;

	w->tb = w->m->tb;
	w->tail = w->m->tail;
	rc = w->tailr ? emit_block(w, w->tailr) : emit_one(w, c->ids[w->m->tb]);
	for (i = 0; !rc && i < w->path.n; i++) {
		uint32_t id = w->path.v[i];
		const struct idx_rec *r = rec(w, id);
		struct resp *rp;

		if (flag(w, id) & F_PLACED)
			continue;
		rp = r->type == IDX_T_ASSISTANT && r->msgid ? resp_get(w, r->msgid, 0) : NULL;
		w->tb = w->m->tb + w->out.n;	/* out holds the chain from tb */
		w->tail = rp ? rp->msgid : 0;
		rc = rp ? emit_block(w, rp) : emit_one(w, id);
	}
	for (i = 0; !rc && i < w->trail.n; i++)
		rc = emit_one(w, w->trail.v[i]);
	w->ntrail = w->trail.n;
	return rc;
}

/* ---- rule 8: the attach point ---- */

static int is_call(const struct idx_rec *r)
{
	return r->type == IDX_T_ASSISTANT && r->block == IDX_B_TOOL_USE && r->useid;
}

static int is_result(const struct idx_rec *r)
{
	return r->type == IDX_T_USER && r->block == IDX_B_TOOL_RESULT && r->useid;
}

/* The id at chain index i of the new chain (prefix, then out). */
static uint32_t at(const struct gw *w, uint32_t i)
{
	return i < w->m->tb ? w->c->ids[i] : w->out.v[i - w->m->tb];
}

/*
 * The first call from index from on that no result from there answers,
 * old calls only if all, and only if no older result may answer it (the
 * filter; else *again). 0 if none.
 */
static uint32_t first_open(struct gw *w, uint32_t from, int old_too, int *again)
{
	struct useref *answered = NULL, *u, *ut;
	uint32_t n = w->m->tb + w->out.n, i, found = 0;

	*again = 0;
	for (i = from; i < n && !*again; i++) {
		const struct idx_rec *r = rec(w, at(w, i));

		if (!is_result(r))
			continue;
		HASH_FIND(hh, answered, &r->useid, sizeof(r->useid), u);
		if (!u && !(u = calloc(1, sizeof(*u))))
			*again = -ENOMEM;
		else if (!u->useid) {
			u->useid = r->useid;
			HASH_ADD(hh, answered, useid, sizeof(u->useid), u);
		}
	}
	for (i = from; i < n && !*again && !found; i++) {
		uint32_t id = at(w, i);
		const struct idx_rec *r = rec(w, id);

		if (!is_call(r) || (!old_too && !is_new(w, id)))
			continue;
		HASH_FIND(hh, answered, &r->useid, sizeof(r->useid), u);
		if (u)
			continue;
		if (!is_new(w, id) && from > w->c->window &&
		    rsi_filter_has(w->m, RS_K_RES, r->useid))
			*again = 1;
		else
			found = id;
	}
	HASH_ITER(hh, answered, u, ut) {
		HASH_DEL(answered, u);
		free(u);
	}
	return found;
}

static int attach(struct gw *w, uint32_t *out, uint8_t *call)
{
	const struct rs_chain *c = w->c;
	uint32_t n = w->m->tb + w->out.n, i, a0 = c->attach, found;
	int again, answered = 0;

	if (w->m->attach_call) {
		const struct idx_rec *r = rec(w, a0);

		for (i = 0; i < w->out.n && !answered; i++)
			answered = is_new(w, w->out.v[i]) && is_result(rec(w, w->out.v[i])) &&
				   rec(w, w->out.v[i])->useid == r->useid;
		if (!answered) {
			*out = a0;
			*call = 1;
			return 0;
		}
		for (i = n; i > c->window && at(w, i - 1) != a0; i--)
			;
		found = first_open(w, i > c->window ? i - 1 : c->window, 1, &again);
		if (again == 1)
			found = first_open(w, c->window, 1, &again);
	} else {
		found = first_open(w, w->m->tb, 0, &again);
	}
	if (again < 0)
		return again;
	*out = found ? found : at(w, n - 1);
	*call = found != 0;
	return 0;
}

/* ---- the whole ---- */

/* The filter with the new rows' keys (and the old tail's, when it is no
 * longer the tail); RS_GROW_NO when it would be too full. */
static int filter_commit(struct gw *w)
{
	struct rs_more *m = w->m;
	uint32_t k, i, add = 0;

	for (k = m->norder; k < w->norder; k++)
		add += rec(w, w->order[k])->type == IDX_T_ASSISTANT ? 2 : 1;
	if (w->tail != m->tail)
		add += 2 * (w->c->n - m->tb);
	if ((uint64_t)(m->nkeys + add) * RSI_BITS_FULL > m->nbits)
		return RS_GROW_NO;
	if (w->tail != m->tail && w->tailr)
		for (i = 0; i < w->tailr->rows.n; i++)
			if (!is_new(w, w->tailr->rows.v[i]))
				rsi_filter_row(m, w->g, w->tailr->rows.v[i], w->tail);
	for (k = m->norder; k < w->norder; k++)
		rsi_filter_row(m, w->g, w->order[k], w->tail);
	return 0;
}

static int commit(struct gw *w)
{
	struct rs_chain *c = w->c;
	struct rs_more *m = w->m;
	uint32_t n = m->tb + w->out.n, nn = c->nnotes - tail_notes(w), i, a;
	uint32_t *ids = realloc(c->ids, (size_t)(n ? n : 1) * sizeof(*ids));
	struct rs_note *notes;
	uint8_t call;
	int rc;

	if (!ids)
		return -ENOMEM;
	c->ids = ids;
	memcpy(ids + m->tb, w->out.v, w->out.n * sizeof(*ids));
	c->n = n;	/* the rest reads the new chain */
	if ((rc = attach(w, &a, &call)) || (rc = filter_commit(w)))
		return rc;
	notes = realloc(c->notes, (size_t)(nn + w->recovered.n + 1) * sizeof(*notes));
	if (!notes)
		return -ENOMEM;
	c->notes = notes;
	for (i = 0; i < w->recovered.n; i++)
		notes[nn + i] = (struct rs_note){ w->recovered.v[i], 0, 0, RS_N_RECOVERED };
	c->nnotes = nn + w->recovered.n;
	c->leaf = w->l1;
	c->attach = a;
	m->attach_call = call;
	m->last_row = w->sc.last_row;
	m->checkpoint = w->sc.checkpoint;
	m->cp_explicit = (uint8_t)w->sc.cp_explicit;
	m->saw_leaf_key = (uint8_t)w->sc.saw_leaf_key;
	m->cand = w->cand;
	m->cp_ok = w->cp_ok;
	m->lr_ok = w->lr_ok;
	m->lr_desc = w->lr_desc;
	m->tb = w->tb;
	m->ntrail = w->ntrail;
	m->tail = w->tail;
	m->nrecs = idx_nrecs(gr_idx(w->g));
	m->nids = w->nids;
	m->norder = w->norder;
	return 0;
}

/* The checks and the tail, in the order each needs the last. */
static int grow(struct gw *w)
{
	int rc;

	if ((rc = tail_set(w)) || (rc = new_parents(w)) || (rc = substitutes(w)) ||
	    (rc = pick(w)) || (rc = walk_down(w)) || (rc = trailing(w)) ||
	    (rc = responses(w)) || (rc = new_rows(w)) || (rc = new_results(w)) ||
	    (rc = emit_tail(w)))
		return rc;
	if (w->c->n && gr_is_boundary(w->g, w->c->ids[w->c->window]) && w->c->window >= w->m->tb)
		return RS_GROW_NO;
	return commit(w);
}

int rs_grow(struct rs_chain *c, const struct graph *g)
{
	struct rs_more *m = c->more;
	struct gw w;
	uint32_t i;
	int rc;

	/* Rule 32 reads the chain's rows back: not for a chain built for an
	 * older release, nor when the log's last release is one now. */
	if (!m || !c->leaf || c->cleared || !m->bits || m->older || rl_older(rl_of_log(gr_idx(g))))
		return RS_GROW_NO;
	for (i = 0; i < c->nnotes; i++)
		if (c->notes[i].code == RS_N_TERMINAL_SCAN ||
		    c->notes[i].code == RS_N_PRESERVED_MISSING)
			return RS_GROW_NO;
	memset(&w, 0, sizeof(w));
	w.c = c;
	w.m = m;
	w.g = g;
	w.order = gr_nodes(g, &w.norder);
	w.nids = idx_nids(gr_idx(g));
	w.n0 = m->nids;
	w.l0 = c->leaf;
	if (idx_nrecs(gr_idx(g)) < m->nrecs || w.nids < m->nids || w.norder < m->norder)
		return RS_GROW_NO;
	if (idx_nrecs(gr_idx(g)) == m->nrecs)
		return 0;
	if (c->relinked)
		w.bpos = gr_pos(g, c->boundary);
	w.nf = calloc((size_t)(w.nids - w.n0) + 1, 1);
	w.nresp = calloc((size_t)(w.nids - w.n0) + 1, sizeof(*w.nresp));
	rc = w.nf && w.nresp ? grow(&w) : -ENOMEM;
	gw_free(&w);
	return rc;
}

/*
 * resume_recover: rule 6 of rs_build() (resume.c): the responses on the
 * chain walked and the rows a resume gathers back to them (a response's
 * other rows, the results that answer its calls), placed as Claude Code
 * places them.
 */
#include "resume.h"
#include "resume_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <uthash.h>

/* ---- rule 6: responses and their results ---- */

struct blocks {
	struct resp *byid;
	struct useref *byuse;
	struct resp **ofrow;	/* per id: the response a row belongs to */
};

static struct resp *resp_get(struct blocks *b, uint64_t msgid, int add)
{
	struct resp *r = NULL;

	HASH_FIND(hh, b->byid, &msgid, sizeof(msgid), r);
	if (!r && add && (r = calloc(1, sizeof(*r)))) {
		r->msgid = msgid;
		HASH_ADD(hh, b->byid, msgid, sizeof(msgid), r);
	}
	return r;
}

static int gather_rows(struct rsi_work *w, struct blocks *b)
{
	uint32_t nn, k;
	const uint32_t *order = gr_nodes(w->g, &nn);

	for (k = 0; k < nn; k++) {
		uint32_t id = order[k];
		const struct idx_rec *r = rsi_rec(w, id);
		struct resp *rp;
		struct useref *u = NULL;

		if (w->del[id] || !gr_main_side(w->g, id) || r->type != IDX_T_ASSISTANT ||
		    !r->msgid || !(rp = resp_get(b, r->msgid, 0)))
			continue;
		if (rsi_push(&rp->rows, id))
			return -ENOMEM;
		b->ofrow[id] = rp;
		if (!r->useid || r->block != IDX_B_TOOL_USE)
			continue;
		HASH_FIND(hh, b->byuse, &r->useid, sizeof(r->useid), u);
		if (u)
			continue;
		if (!(u = calloc(1, sizeof(*u))))
			return -ENOMEM;
		u->useid = r->useid;
		u->r = rp;
		HASH_ADD(hh, b->byuse, useid, sizeof(u->useid), u);
	}
	return 0;
}

/* Which rows have a user or assistant row below them on the relinked
 * parents (each row marked once). */
static uint8_t *turns_below(struct rsi_work *w)
{
	uint8_t *below = calloc(w->n + 1, 1);
	uint32_t nn, k;
	const uint32_t *order = gr_nodes(w->g, &nn);

	for (k = 0; below && k < nn; k++) {
		uint32_t id = order[k];

		if (w->del[id] || !gr_is_message(w->g, id))
			continue;
		for (id = w->par[id]; rsi_exists(w, id) && !below[id]; id = w->par[id])
			below[id] = 1;
	}
	return below;
}

/* A side row of a response (graph.h, blocks), for an attachment or a
 * system row: off the chain, not a boundary, with no user or assistant
 * row below it, hanging off a row, a result or a side row of it. */
static struct resp *side_of(struct rsi_work *w, struct blocks *b, uint32_t id,
			    const uint8_t *below, const uint8_t *on_chain)
{
	uint32_t p = w->par[id];

	if (on_chain[id] || below[id] || gr_is_boundary(w->g, id) || !rsi_exists(w, p))
		return NULL;
	return b->ofrow[p];
}

/* Tool results in file order, each with the side rows that follow it. */
static int gather_results(struct rsi_work *w, struct blocks *b, const uint8_t *on_chain)
{
	uint32_t nn, k;
	const uint32_t *order = gr_nodes(w->g, &nn);
	uint8_t *below = turns_below(w);
	int rc = below ? 0 : -ENOMEM;

	for (k = 0; k < nn && !rc; k++) {
		uint32_t id = order[k], p = w->par[id];
		const struct idx_rec *r = rsi_rec(w, id);
		struct resp *r1 = NULL, *r2 = NULL;
		struct useref *u = NULL;

		if (w->del[id] || !gr_main_side(w->g, id) || r->type == IDX_T_ASSISTANT ||
		    (r->type == IDX_T_USER && r->block != IDX_B_TOOL_RESULT))
			continue;
		if (r->type != IDX_T_USER) {
			r1 = side_of(w, b, id, below, on_chain);
			if (r1 && rsi_push(&r1->results, id))
				rc = -ENOMEM;
			b->ofrow[id] = r1;
			continue;
		}
		if (rsi_exists(w, p))
			r1 = b->ofrow[p];
		if (r->useid)
			HASH_FIND(hh, b->byuse, &r->useid, sizeof(r->useid), u);
		r2 = u ? u->r : NULL;
		if ((r1 && rsi_push(&r1->results, id)) ||
		    (r2 && r2 != r1 && rsi_push(&r2->results, id)))
			rc = -ENOMEM;
		b->ofrow[id] = r2 ? r2 : r1;
	}
	free(below);
	return rc;
}

static int emit_block(struct rsi_work *w, const struct ids *l, uint8_t *placed,
		      const uint8_t *on_chain, struct ids *out)
{
	uint32_t i;

	for (i = 0; i < l->n; i++) {
		uint32_t id = l->v[i];

		if (placed[id])
			continue;
		placed[id] = 1;
		if (rsi_push(out, id) ||
		    (!on_chain[id] && rsi_note(w, RS_N_RECOVERED, id, 0, 0)))
			return -ENOMEM;
	}
	return 0;
}

/* The chain's walk (its first nwalk ids) and trailing rows, each
 * response as its block; the walk's last unit is noted (rs_more). */
static int emit(struct rsi_work *w, const struct ids *chain, uint32_t nwalk,
		struct blocks *b, const uint8_t *on_chain, struct ids *out)
{
	uint8_t *placed = calloc(w->n + 1, 1);
	uint32_t i;
	int rc = placed ? 0 : -ENOMEM;

	for (i = 0; !rc && i < chain->n; i++) {
		uint32_t id = chain->v[i];
		const struct idx_rec *r = rsi_rec(w, id);
		struct resp *rp;

		if (placed[id])
			continue;
		rp = r->type == IDX_T_ASSISTANT && r->msgid ? resp_get(b, r->msgid, 0) : NULL;
		if (i < nwalk) {
			w->c->more->tb = out->n;
			w->c->more->tail = rp ? rp->msgid : 0;
		}
		if (!rp) {
			placed[id] = 1;
			rc = rsi_push(out, id);
			continue;
		}
		rc = emit_block(w, &rp->rows, placed, on_chain, out);
		if (!rc)
			rc = emit_block(w, &rp->results, placed, on_chain, out);
	}
	free(placed);
	return rc;
}

int rsi_recover(struct rsi_work *w, const struct ids *chain, uint32_t nwalk,
		struct ids *out)
{
	struct blocks b = { 0 };
	struct resp *r, *rt;
	struct useref *u, *ut;
	uint8_t *on_chain = calloc(w->n + 1, 1);
	uint32_t i;
	int rc = 0;

	b.ofrow = calloc(w->n + 1, sizeof(*b.ofrow));
	if (!b.ofrow || !on_chain) {
		free(b.ofrow);
		free(on_chain);
		return -ENOMEM;
	}
	for (i = 0; i < chain->n; i++)
		on_chain[chain->v[i]] = 1;
	for (i = 0; i < chain->n && !rc; i++) {
		const struct idx_rec *rr = rsi_rec(w, chain->v[i]);

		if (rr->type == IDX_T_ASSISTANT && rr->msgid &&
		    !resp_get(&b, rr->msgid, 1))
			rc = -ENOMEM;
	}
	if (!rc)
		rc = gather_rows(w, &b);
	if (!rc)
		rc = gather_results(w, &b, on_chain);
	if (!rc)
		rc = emit(w, chain, nwalk, &b, on_chain, out);
	HASH_ITER(hh, b.byid, r, rt) {
		HASH_DEL(b.byid, r);
		free(r->rows.v);
		free(r->results.v);
		free(r);
	}
	HASH_ITER(hh, b.byuse, u, ut) {
		HASH_DEL(b.byuse, u);
		free(u);
	}
	free(b.ofrow);
	free(on_chain);
	return rc;
}

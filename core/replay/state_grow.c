/*
 * state_grow: whether a state built before the log grew is still what a
 * build would give now (st_still(), state.h).
 */
#include <stdlib.h>
#include <string.h>

#include "state_priv.h"

/* ids[0..was) unchanged and every id after it a new record's. */
static int extends(const struct graph *g, const uint32_t *now, uint32_t n,
		   const uint32_t *was, uint32_t nwas, const struct st_was *w)
{
	uint32_t k;

	if (n < nwas || (nwas && memcmp(now, was, nwas * sizeof(*now))))
		return 0;
	for (k = nwas; k < n; k++) {
		uint32_t rec = gr_rec(g, now[k]);

		if (rec == IDX_NONE || rec < w->nrecs)
			return 0;
	}
	return 1;
}

/* No new record is of a kind the state reads, nor has a uuid seen before:
 * not a duplicate, and no snapshot or delta named it before it was written
 * (the index interns every messageId it reads). */
static int new_records_plain(const struct st_state *st, const struct st_was *w)
{
	uint16_t atoms[SM_COUNT];
	uint32_t i, k;

	for (k = 0; k < SM_COUNT; k++)
		atoms[k] = idx_atom_find(st->ix, st_meta_types[k]);
	for (i = w->nrecs; i < idx_nrecs(st->ix); i++) {
		const struct idx_rec *r = idx_rec(st->ix, i);

		if (r->type == IDX_T_FH_SNAPSHOT || r->type == IDX_T_FH_DELTA ||
		    (r->uuid && r->uuid <= w->nids))
			return 0;
		for (k = 0; k < SM_COUNT; k++)
			if (atoms[k] && r->type_atom == atoms[k])
				return 0;
	}
	return 1;
}

/* The read cache's rows (state_read.c) among path[from..n). */
static int reads_none(const struct graph *g, const uint32_t *path, uint32_t from,
		      uint32_t n)
{
	uint32_t k;

	for (k = from; k < n; k++) {
		const struct idx_rec *r = gr_node_rec(g, path[k]);

		if (!r || (r->type == IDX_T_ASSISTANT && r->block == IDX_B_TOOL_USE) ||
		    (r->type == IDX_T_USER && r->block == IDX_B_TOOL_RESULT && r->useid))
			return 0;
	}
	return 1;
}

/* A string member equal to want (both absent counts as equal). */
static int member_is(const struct st_line *l, const char *key, const char *want)
{
	char *v = stj_dup(stj_get(l->p, l->e, key), l->e);
	int same = (!v && !want) || (v && want && !strcmp(v, want));

	free(v);
	return same;
}

/* New user rows of the chain name no permission mode; the leaf (the
 * record whose session the state is) has the same sessionId and cwd. */
static int chain_rows_plain(const struct st_state *st, const struct graph *g,
			    const struct rs_chain *c, uint32_t from)
{
	uint32_t k, rec = c->leaf ? gr_rec(g, c->leaf) : IDX_NONE;
	struct st_line l;
	int ok = 1;

	if (rec == IDX_NONE || !st->sid)
		return 0;
	for (k = from; ok && k < c->n; k++) {
		uint32_t i = gr_rec(g, c->ids[k]);
		const char *v;

		if (idx_rec(st->ix, i)->type != IDX_T_USER)
			continue;
		ok = !stl_read(st, i, &l) &&
		     (!(v = stj_get(l.p, l.e, "permissionMode")) || *v != '"');
		stl_free(&l);
	}
	if (ok) {
		ok = !stl_read(st, rec, &l) && member_is(&l, "sessionId", st->sid) &&
		     member_is(&l, "cwd", st->cwd);
		stl_free(&l);
	}
	return ok;
}

int st_still(const struct st_state *st, const struct graph *g,
	     const struct rs_chain *c, const uint32_t *path, uint32_t npath,
	     const struct st_was *was)
{
	const uint32_t *wpath = was->path ? was->path : was->chain;
	uint32_t wnpath = was->path ? was->npath : was->nchain;

	if (!path) {		/* st_build() reads the chain then */
		path = c->ids;
		npath = c->n;
	}
	return was->chain && gr_idx(g) == st->ix && was->nrecs <= idx_nrecs(st->ix) &&
	       extends(g, c->ids, c->n, was->chain, was->nchain, was) &&
	       extends(g, path, npath, wpath, wnpath, was) &&
	       new_records_plain(st, was) && reads_none(g, path, wnpath, npath) &&
	       chain_rows_plain(st, g, c, was->nchain);
}

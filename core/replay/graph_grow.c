/*
 * graph_grow: gr_grow() (graph.h), the graph extended by the records
 * appended to its index.
 *
 * The extension runs the build's passes over the new records only and
 * returns GR_GROW_NO, the graph untouched, wherever a new record could
 * change what the passes gave an old one. Guarded, an old row keeps its
 * node, parents, dangling parent, block, below-ness and display position,
 * so the build's passes over the old rows give what they gave:
 *   - admission: a new key is a new id (above the old n) not admitted
 *     before, so no old node is a duplicate's first place and no old
 *     dangling or bridged parent becomes a node;
 *   - parents: a new row's parent resolves through new progress rows only
 *     to an old node, an earlier new node, or a missing new id: no cycle
 *     can close, and old rows' parents (which name old ids) do not move;
 *   - file order: new nodes come after every old one;
 *   - children: new nodes end their parents' lists (file order);
 *   - blocks: below-ness changes for old rows only on the way up from a
 *     new turn row to its first old user or assistant row, and only rows
 *     not in a block are crossed there, for which it decides nothing; a
 *     new member of an old block lands at its list's end (file order),
 *     and shifts the display positions of that block's members only,
 *     since no other row hangs off it (guarded);
 *   - errors: the new ones have the new lines, after every old one;
 *   - file-order chaining: none before (more than one row and none named
 *     a parent: GR_GROW_NO) and none after (some row names a parent);
 *   - the own thread: a sidechain only when every row is one, which new
 *     rows decide only when there were none.
 */
#include "graph.h"
#include "graph_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct grow {
	struct graph *g;
	uint32_t n0, norder0, nblocks0, nerrs0;	/* as the graph was */
	uint32_t *bridge;	/* per new id (id - n0 - 1): bridged parent */
	uint8_t *below;		/* per new id: a user/assistant row below it */
	uint32_t touched[GR_GROW_BLOCKS];	/* old blocks new rows join */
	uint32_t ntouched;
	uint16_t boundary;	/* the "compact_boundary" atom now */
	int named;		/* some row, old or new, names a parent */
};

static uint32_t fill_of(int k)
{
	return k < 2 ? IDX_NONE : 0;	/* rec and pos, then the others */
}

/* Room for ids up to n, a half more each time, and ids up to n set to
 * their defaults (past the old n: none is a node yet). */
static int grow_arrays(struct graph *g, uint32_t n)
{
	uint32_t **a[GRI_NARRAYS] = GRI_ARRAYS(g);
	uint32_t cap = g->cap + g->cap / 2 + 16, i;
	int k;

	if (n > g->cap) {
		if (cap < n)
			cap = n;
		for (k = 0; k < GRI_NARRAYS; k++) {
			uint32_t *p = realloc(*a[k], ((size_t)cap + 1) * sizeof(*p));

			if (!p)
				return -ENOMEM;	/* the larger ones are still right */
			*a[k] = p;
		}
		g->cap = cap;
	}
	for (k = 0; k < GRI_NARRAYS - 1; k++)	/* order is not per id */
		for (i = g->filled + 1; i <= n; i++)
			(*a[k])[i] = fill_of(k);
	if (n > g->filled)
		g->filled = n;
	return 0;
}

/* Puts the graph back as it was before the extension began. */
static void undo(struct grow *w, uint32_t n)
{
	struct graph *g = w->g;
	uint32_t **a[GRI_NARRAYS] = GRI_ARRAYS(g), i;
	int k;

	for (k = 0; k < GRI_NARRAYS - 1; k++)	/* order is not per id */
		for (i = w->n0 + 1; i <= n && i <= g->filled; i++)
			(*a[k])[i] = fill_of(k);
	g->norder = w->norder0;
	g->nblocks = w->nblocks0;
	g->nerrs = w->nerrs0;
}

/* Pass 1 over the new records: admission. */
static int admit_new(struct grow *w)
{
	struct graph *g = w->g;
	uint32_t i, nrecs = idx_nrecs(g->ix), key;

	for (i = g->nrecs; i < nrecs; i++) {
		const struct idx_rec *r = idx_rec(g->ix, i);

		if (r->type == IDX_T_PROGRESS) {
			if (!r->uuid || g->rec[r->uuid] != IDX_NONE)
				continue;
			if (r->uuid <= w->n0)
				return GR_GROW_NO;	/* old rows may name it */
			w->bridge[r->uuid - w->n0 - 1] = r->parent;
			continue;
		}
		if (!gri_is_msg_type(r->type))
			continue;
		if (!r->uuid) {
			if (gri_add_err(g, r->line, 0, GR_E_NO_UUID, 0))
				return -ENOMEM;
			continue;
		}
		key = r->drop ? 0 : gri_key_of(g, r);
		if (key <= w->n0 || g->rec[key] != IDX_NONE)
			return GR_GROW_NO;	/* dropped, duplicate, or named */
		g->pos[key] = g->rec[key] = i;
		w->bridge[key - w->n0 - 1] = 0;
		g->order[g->norder++] = key;
	}
	return 0;
}

/* Pass 2: parents through new progress rows; no boundary, no cycle. */
static int link_new(struct grow *w)
{
	struct graph *g = w->g;
	uint32_t k;

	for (k = w->norder0; k < g->norder; k++) {
		uint32_t id = g->order[k], p, miss = 0, steps = 0;
		const struct idx_rec *r = idx_rec(g->ix, g->rec[id]);

		if ((r->type == IDX_T_SYSTEM && r->sub && r->sub == w->boundary) ||
		    (r->type == IDX_T_USER && (r->flags & IDX_F_COMPACT_SUMMARY) && !r->parent))
			return GR_GROW_NO;	/* a compaction: a join in the view */
		for (p = r->parent; p && g->rec[p] == IDX_NONE;) {
			if (p <= w->n0)
				return GR_GROW_NO;	/* bridged or missing before */
			if (!w->bridge[p - w->n0 - 1] || ++steps > GRI_BRIDGE_STEPS) {
				miss = p;
				p = 0;
			} else {
				p = w->bridge[p - w->n0 - 1];
			}
		}
		if (p && (p == id || g->pos[p] > g->pos[id]))
			return GR_GROW_NO;	/* named before written */
		g->parent[id] = g->vparent[id] = p;
		g->dang[id] = miss;
		if (miss && gri_add_err(g, r->line, id, GR_E_DANGLING, miss))
			return -ENOMEM;
	}
	return 0;
}

/*
 * A graph of at most one node that names no parent (the build did not
 * chain it in file order: too few rows) grows into one the build would
 * chain unless a row of it names a parent.
 */
static int named(struct grow *w)
{
	struct graph *g = w->g;
	uint32_t k;

	w->named = g->named;
	for (k = 0; k < g->norder && !w->named; k++)
		w->named = gr_is_message(g, g->order[k]) &&
			   (gr_node_rec(g, g->order[k])->parent || g->vparent[g->order[k]]);
	return w->named || g->norder < 2 ? 0 : GR_GROW_NO;
}

/*
 * Whether below-ness may change for an old row that a new turn row now
 * hangs below, x being its first old ancestor: the rows up to the first
 * user or assistant row gain it, which matters to none of them when none
 * is in a block (a side row in a block is one with none below it).
 */
static int old_flips(const struct graph *g, uint32_t x)
{
	uint32_t steps = 0;

	for (; x && !gr_is_message(g, x); x = g->vparent[x])
		if (g->blk[x] || ++steps > GR_GROW_UP)
			return 1;
	return 0;
}

/* Pass 3: below-ness of the new rows, and the old ones' guard. */
static int mark_below(struct grow *w)
{
	struct graph *g = w->g;
	uint32_t k, x;

	for (k = w->norder0; k < g->norder; k++) {
		if (!gr_is_message(g, g->order[k]))
			continue;
		for (x = g->vparent[g->order[k]]; x > w->n0 && !w->below[x - w->n0 - 1];
		     x = g->vparent[x])
			w->below[x - w->n0 - 1] = 1;
		if (x && x <= w->n0 && old_flips(g, x))
			return GR_GROW_NO;
	}
	return 0;
}

/* No row outside old block b hangs off one of its members. */
static int tip_block(const struct graph *g, uint32_t b)
{
	uint32_t m, c;

	for (m = gr_block_first(g, b); m; m = gr_block_next(g, m))
		for (c = g->child[m]; c; c = g->sib[c])
			if (g->blk[c] != b)
				return 0;
	return 1;
}

static int touch(struct grow *w, uint32_t b)
{
	uint32_t i;

	for (i = 0; i < w->ntouched; i++)
		if (w->touched[i] == b)
			return 0;
	if (w->ntouched == GR_GROW_BLOCKS || !tip_block(w->g, b))
		return GR_GROW_NO;
	w->touched[w->ntouched++] = b;
	return 0;
}

/* Pass 4: the blocks the new rows join (parents come first). */
static int join_blocks(struct grow *w)
{
	struct graph *g = w->g;
	uint32_t k;
	int rc;

	for (k = w->norder0; k < g->norder; k++) {
		uint32_t id = g->order[k], b;
		int is_row;

		b = gri_block_for(g, id, w->below[id - w->n0 - 1], &is_row);
		if (!b && is_row)
			return -ENOMEM;
		g->blk[id] = b;
		if (b && b < w->nblocks0 && (rc = touch(w, b)))
			return rc;
	}
	return 0;
}

/* Appends id to its view parent's children. */
static void add_child(struct graph *g, uint32_t id)
{
	uint32_t p = g->vparent[id], c;

	if (!p)
		return;
	if (!(c = g->child[p])) {
		g->child[p] = id;
		return;
	}
	while (g->sib[c])
		c = g->sib[c];
	g->sib[c] = id;
}

/* What cannot fail: children, block lists, display positions, errors. */
static void commit(struct grow *w, uint32_t n)
{
	struct graph *g = w->g;
	uint32_t k;

	for (k = w->norder0; k < g->norder; k++)
		add_child(g, g->order[k]);
	for (k = w->norder0; k < g->norder; k++) {
		uint32_t id = g->order[k];

		if (g->blk[id])
			gri_block_append(g, g->blk[id], id,
					 gr_node_rec(g, id)->type == IDX_T_ASSISTANT);
	}
	for (k = 0; k < w->ntouched; k++)
		gri_set_dpos(g, g->blocks[w->touched[k]].head);
	for (k = w->norder0; k < g->norder; k++)
		gri_set_dpos(g, g->order[k]);
	if (g->nerrs > w->nerrs0)	/* errs may be NULL */
		gri_sort_errs(g->errs + w->nerrs0, g->nerrs - w->nerrs0);
	g->n = n;
	g->nrecs = idx_nrecs(g->ix);
	g->boundary_atom = w->boundary;
	g->named = w->named;
	for (k = w->norder0 ? g->norder : 0; k < g->norder; k++)	/* none before */
		if (!(g->side_sidechain = !!(gr_node_rec(g, g->order[k])->flags &
					     IDX_F_SIDECHAIN)))
			break;
}

int gr_grow(struct graph *g)
{
	uint32_t n = idx_nids(g->ix);
	struct grow w = { g, g->n, g->norder, g->nblocks, g->nerrs, NULL, NULL,
			  { 0 }, 0, idx_atom_find(g->ix, "compact_boundary"), 0 };
	int rc;

	if (g->part || (!g->named && g->norder > 1) || g->side_sidechain || g->keep)
		return GR_GROW_NO;
	if (idx_nrecs(g->ix) == g->nrecs && n == g->n)
		return 0;
	if ((rc = grow_arrays(g, n)))
		return rc;
	w.bridge = calloc((size_t)(n - w.n0) + 1, sizeof(*w.bridge));
	w.below = calloc((size_t)(n - w.n0) + 1, 1);
	rc = !w.bridge || !w.below ? -ENOMEM : 0;
	if (!rc && !(rc = admit_new(&w)) && !(rc = link_new(&w)) &&
	    !(rc = named(&w)) && !(rc = mark_below(&w)))
		rc = join_blocks(&w);
	if (rc)
		undo(&w, n);
	else
		commit(&w, n);
	free(w.bridge);
	free(w.below);
	return rc;
}

#include "graph.h"
#include "graph_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>


int gri_add_err(struct graph *g, uint32_t line, uint32_t id, uint8_t code,
		uint32_t aux)
{
	if (g->nerrs == g->caperrs) {
		uint32_t cap = g->caperrs ? g->caperrs * 2 : 16;
		struct gr_err *p = realloc(g->errs, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		g->errs = p;
		g->caperrs = cap;
	}
	g->errs[g->nerrs++] = (struct gr_err){ line, id, aux, code };
	return 0;
}

int gri_is_msg_type(uint8_t t)
{
	return t == IDX_T_USER || t == IDX_T_ASSISTANT || t == IDX_T_ATTACHMENT ||
	       t == IDX_T_SYSTEM;
}

uint32_t gri_key_of(const struct graph *g, const struct idx_rec *r)
{
	if (r->type == IDX_T_USER && r->aux && g->rec[r->aux] == IDX_NONE)
		return r->aux;
	return r->uuid;
}

/* Pass 1: admission in file order. */
static int admit(struct graph *g, uint32_t *bridge)
{
	uint32_t i, nrecs = idx_nrecs(g->ix);
	int rc = 0;

	for (i = 0; i < nrecs && !rc; i++) {
		const struct idx_rec *r = idx_rec(g->ix, i);
		int mine = !g->keep || g->keep[i];
		uint32_t key;

		if (r->type == IDX_T_PROGRESS) {
			if (r->uuid && g->rec[r->uuid] == IDX_NONE)
				bridge[r->uuid] = r->parent;
			continue;
		}
		if (!gri_is_msg_type(r->type))
			continue;
		if (!r->uuid) {
			rc = mine ? gri_add_err(g, r->line, 0, GR_E_NO_UUID, 0) : 0;
			continue;
		}
		if (r->drop) {
			if (g->rec[r->uuid] == IDX_NONE)
				bridge[r->uuid] = r->parent;
			rc = mine ? gri_add_err(g, r->line, r->uuid, GR_E_DROPPED, r->drop) : 0;
			continue;
		}
		if (!mine)
			continue;	/* a row of another part of the log */
		key = gri_key_of(g, r);
		if (g->rec[key] != IDX_NONE) {
			rc = gri_add_err(g, r->line, key, GR_E_DUPLICATE,
				     idx_rec(g->ix, g->pos[key])->line);
		} else {
			g->pos[key] = i;
			bridge[key] = 0;
		}
		g->rec[key] = i;
	}
	return rc;
}

/* Follows bridged rows up to the first real node (0 if none). */
static uint32_t resolve(const struct graph *g, const uint32_t *bridge,
			uint32_t p, uint32_t *missing)
{
	int steps = 0;

	*missing = 0;
	while (p && g->rec[p] == IDX_NONE) {
		if (!bridge[p] || ++steps > GRI_BRIDGE_STEPS) {
			*missing = p;
			return 0;
		}
		p = bridge[p];
	}
	return p;
}

/* Pass 2: parents, dangling parents, the view parents of boundaries. */
static int link_parents(struct graph *g, const uint32_t *bridge)
{
	uint32_t id;
	int rc = 0;

	for (id = 1; id <= g->n && !rc; id++) {
		const struct idx_rec *r;
		uint32_t miss;

		if (g->rec[id] == IDX_NONE)
			continue;
		r = idx_rec(g->ix, g->rec[id]);
		g->parent[id] = resolve(g, bridge, r->parent, &miss);
		g->vparent[id] = g->parent[id];
		if (miss) {
			g->dang[id] = miss;
			rc = gri_add_err(g, r->line, id, GR_E_DANGLING, miss);
		}
		if (gr_is_boundary(g, id) && !r->parent && r->aux) {
			g->vparent[id] = resolve(g, bridge, r->aux, &miss);
			if (miss && !rc)
				rc = gri_add_err(g, r->line, id, GR_E_UNLINKED, miss);
		}
	}
	return rc;
}

/* Nodes in file order: a bucket per record index. */
static int make_order(struct graph *g)
{
	uint32_t nrecs = idx_nrecs(g->ix), id, i, *by_pos;

	by_pos = calloc(nrecs ? nrecs : 1, sizeof(*by_pos));
	if (!by_pos)
		return -ENOMEM;
	for (id = 1; id <= g->n; id++)
		if (g->rec[id] != IDX_NONE)
			by_pos[g->pos[id]] = id;
	g->norder = 0;
	for (i = 0; i < nrecs; i++)
		if (by_pos[i])
			g->order[g->norder++] = by_pos[i];
	free(by_pos);
	return 0;
}

/*
 * A log whose user and assistant rows name no parent at all (every
 * parentUuid null or absent: hand-made and very old logs, other tools'
 * exports) reads in file order: each row that names no parent hangs off
 * the row before it on its side (sidechain or not); a row that names one
 * (a hook or system row of such a log) keeps it.
 */
static int chain_unlinked(struct graph *g)
{
	uint32_t k, prev[2] = { 0, 0 }, nmsg = 0;

	for (k = 0; k < g->norder; k++) {
		uint32_t id = g->order[k];

		if (!gr_is_message(g, id))
			continue;
		if (gr_node_rec(g, id)->parent || g->vparent[id]) {
			g->named = 1;
			return 0;
		}
		nmsg++;
	}
	if (nmsg < 2)
		return 0;
	for (k = 0; k < g->norder; k++) {
		uint32_t id = g->order[k];
		int side = !!(gr_node_rec(g, id)->flags & IDX_F_SIDECHAIN);

		if (gr_node_rec(g, id)->parent || g->vparent[id])
			continue;
		g->parent[id] = g->vparent[id] = prev[side];
		prev[side] = id;
	}
	return gri_add_err(g, gr_node_rec(g, g->order[0])->line, g->order[0],
		       GR_E_UNCHAINED, g->norder);
}

/*
 * A compaction that writes no boundary (1.0.x's /compact): its summary is
 * a user row marked isCompactSummary that names no parent. Its view
 * parent is the last user or assistant row written before it on its side,
 * the end of the conversation it summarised, so the terminal reads one
 * path through it (as through a boundary's logicalParentUuid).
 */
static void join_summaries(struct graph *g)
{
	uint32_t k, last[2] = { 0, 0 };

	for (k = 0; k < g->norder; k++) {
		uint32_t id = g->order[k];
		int side = !!(gr_node_rec(g, id)->flags & IDX_F_SIDECHAIN);

		if (gr_is_summary_root(g, id) && !g->vparent[id])
			g->vparent[id] = last[side];
		if (gr_is_message(g, id))
			last[side] = id;
	}
}

/*
 * The node whose upward edge a cycle is cut at: a boundary's join to its
 * logical parent when the cycle holds one (a --fork-session copy of a
 * compacted log writes the kept row after the boundary that names it),
 * else the last node of the walk, where it met the cycle. The cycle is
 * path[k..len-1], path[k] being again, the node the walk met.
 */
static uint32_t logical_edge(const struct graph *g, const uint32_t *path,
			     uint32_t len, uint32_t again)
{
	uint32_t k = len;

	while (k-- > 0) {
		uint32_t id = path[k];

		if (g->vparent[id] != g->parent[id])
			return id;
		if (id == again)
			break;
	}
	return path[len - 1];
}

/*
 * Pass 3: cut cycles of the view relation where the upward walk meets
 * them, at a logical join first (the same guard as the parent walk's).
 * state: 0 new, 1 on the current walk, 2 done.
 */
static int cut_cycles(struct graph *g)
{
	uint8_t *state = calloc(g->n + 1, 1);
	uint32_t *path = malloc((g->n + 1) * sizeof(*path));
	uint32_t k, len;
	int rc = 0;

	if (!state || !path) {
		rc = -ENOMEM;
		goto out;
	}
	for (k = 0; k < g->norder && !rc; k++) {
		uint32_t id = g->order[k], up;

		len = 0;
		while (id && !state[id]) {
			state[id] = 1;
			path[len++] = id;
			id = g->vparent[id];
		}
		if (id && state[id] == 1) {
			uint32_t last = logical_edge(g, path, len, id);
			const struct idx_rec *r = gr_node_rec(g, last);
			uint8_t code = GR_E_LOGICAL_CYCLE;

			up = g->vparent[last];
			if (g->parent[last] == up) {
				code = up == last ? GR_E_SELF_PARENT : GR_E_CYCLE;
				g->parent[last] = 0;
			}
			g->vparent[last] = 0;
			rc = gri_add_err(g, r->line, last, code, up);
		}
		while (len)
			state[path[--len]] = 2;
	}
out:
	free(state);
	free(path);
	return rc;
}

/* Pass 4: children lists in file order. */
static int link_children(struct graph *g)
{
	uint32_t *last = calloc(g->n + 1, sizeof(*last));
	uint32_t k;

	if (!last)
		return -ENOMEM;
	for (k = 0; k < g->norder; k++) {
		uint32_t id = g->order[k], p = g->vparent[id];

		if (!p)
			continue;
		if (last[p])
			g->sib[last[p]] = id;
		else
			g->child[p] = id;
		last[p] = id;
	}
	free(last);
	return 0;
}

static uint32_t new_block(struct graph *g, uint32_t head)
{
	if (g->nblocks == g->capblocks) {
		uint32_t cap = g->capblocks ? g->capblocks * 2 : 64;
		struct gr_blk *p = realloc(g->blocks, cap * sizeof(*p));

		if (!p)
			return 0;
		g->blocks = p;
		g->capblocks = cap;
	}
	if (!g->nblocks) {
		memset(&g->blocks[0], 0, sizeof(g->blocks[0]));
		g->nblocks = 1;		/* block 0 means none: empty */
	}
	memset(&g->blocks[g->nblocks], 0, sizeof(g->blocks[0]));
	g->blocks[g->nblocks].head = head;
	return g->nblocks++;
}

/*
 * Pass 5: which nodes have a user or assistant row below them (walked up
 * from each such row; each node is marked once). A node without one ends
 * in attachments and system rows only: a side path.
 */
static int mark_turns_below(struct graph *g, uint8_t **out)
{
	uint8_t *below = calloc(g->n + 1, 1);
	uint32_t k;

	*out = below;
	if (!below)
		return -ENOMEM;
	for (k = 0; k < g->norder; k++) {
		uint32_t id = g->order[k];

		if (!gr_is_message(g, id))
			continue;
		for (id = g->vparent[id]; id && !below[id]; id = g->vparent[id])
			below[id] = 1;
	}
	return 0;
}

/* The block a node joins: its response's, or a new one (0 = none). An
 * attachment or system row (not a boundary) with no user or assistant row
 * below it joins the block of the row it hangs off: a hook's rows beside a
 * tool call's result, a parallel dead end's hook rows, trailing rows. */
uint32_t gri_block_for(struct graph *g, uint32_t id, int below, int *is_row)
{
	const struct idx_rec *r = gr_node_rec(g, id), *pr;
	uint32_t p = g->vparent[id];

	if (p && g->blk[p] && !below && !gr_is_boundary(g, id) &&
	    (r->type == IDX_T_ATTACHMENT || r->type == IDX_T_SYSTEM)) {
		*is_row = 0;
		return g->blk[p];
	}

	*is_row = r->type == IDX_T_ASSISTANT;
	pr = p ? gr_node_rec(g, p) : NULL;
	if (*is_row) {
		if (pr && pr->type == IDX_T_ASSISTANT && r->msgid &&
		    pr->msgid == r->msgid && g->blk[p])
			return g->blk[p];
		return new_block(g, id);
	}
	if (r->type == IDX_T_USER && r->block == IDX_B_TOOL_RESULT && pr &&
	    pr->type == IDX_T_ASSISTANT)
		return g->blk[p];
	return 0;
}

void gri_block_append(struct graph *g, uint32_t b, uint32_t id, int is_row)
{
	struct gr_blk *bl = &g->blocks[b];
	uint32_t *first = is_row ? &bl->rows : &bl->res;
	uint32_t *last = is_row ? &bl->rows_last : &bl->res_last;

	if (*last)
		g->next[*last] = id;
	else
		*first = id;
	*last = id;
	bl->size++;
}

/* Pass 6: blocks and display positions, parents before children. */
static int place(struct graph *g)
{
	uint32_t *queue = malloc((g->n + 1) * sizeof(*queue));
	uint32_t qh = 0, qt = 0, k;
	uint8_t *below = NULL;

	if (!queue || mark_turns_below(g, &below)) {
		free(queue);
		free(below);
		return -ENOMEM;
	}
	for (k = 0; k < g->norder; k++)
		if (!g->vparent[g->order[k]])
			queue[qt++] = g->order[k];
	while (qh < qt) {
		uint32_t id = queue[qh++], c;
		int is_row;

		g->blk[id] = gri_block_for(g, id, below[id], &is_row);
		if (g->blk[id] == 0 && is_row) {
			free(queue);
			free(below);
			return -ENOMEM;
		}
		for (c = g->child[id]; c; c = g->sib[c])
			queue[qt++] = c;
	}
	free(below);
	/* Members join their blocks in file order. */
	for (k = 0; k < g->norder; k++) {
		uint32_t id = g->order[k];

		if (g->blk[id])
			gri_block_append(g, g->blk[id], id,
				     gr_node_rec(g, id)->type == IDX_T_ASSISTANT);
	}
	for (k = 0; k < qt; k++)
		gri_set_dpos(g, queue[k]);
	free(queue);
	return 0;
}

void gri_set_dpos(struct graph *g, uint32_t id)
{
	uint32_t b = g->blk[id], p = g->vparent[id], end;

	end = !p ? 0 : g->blk[p] ? g->blocks[g->blk[p]].start +
					   g->blocks[g->blk[p]].size - 1
				 : g->dpos[p];
	if (!b) {
		g->dpos[id] = end + 1;
	} else if (g->blocks[b].head == id) {
		uint32_t m, at = end + 1;

		g->blocks[b].start = at;
		for (m = gr_block_first(g, b); m; m = gr_block_next(g, m))
			g->dpos[m] = at++;
	}
}

static void set_side(struct graph *g)
{
	uint32_t k;

	g->side_sidechain = g->norder > 0;
	for (k = 0; k < g->norder; k++)
		if (!(gr_node_rec(g, g->order[k])->flags & IDX_F_SIDECHAIN)) {
			g->side_sidechain = 0;
			return;
		}
}

/* Errors in line order, for errors.txt (the sort keeps no other order). */
static int cmp_err(const void *a, const void *b)
{
	const struct gr_err *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->code < y->code ? -1 : x->code > y->code;
}

void gri_sort_errs(struct gr_err *e, uint32_t n)
{
	if (n)			/* qsort(NULL, 0) is undefined */
		qsort(e, n, sizeof(*e), cmp_err);
}

static uint32_t *id_array(uint32_t n, uint32_t fill)
{
	uint32_t *a = malloc((size_t)(n + 1) * sizeof(*a));
	uint32_t i;

	if (a)
		for (i = 0; i <= n; i++)
			a[i] = fill;
	return a;
}

int gr_build(const struct idx *ix, struct graph **out)
{
	return gr_build_only(ix, NULL, out);
}

int gr_build_only(const struct idx *ix, const uint8_t *keep, struct graph **out)
{
	struct graph *g = calloc(1, sizeof(*g));
	uint32_t *bridge = NULL;
	int rc = -ENOMEM;

	*out = NULL;
	if (!g)
		return -ENOMEM;
	g->ix = ix;
	g->keep = keep;
	g->part = keep != NULL;
	g->n = g->cap = g->filled = idx_nids(ix);
	g->nrecs = idx_nrecs(ix);
	g->boundary_atom = idx_atom_find(ix, "compact_boundary");
	g->rec = id_array(g->n, IDX_NONE);
	g->pos = id_array(g->n, IDX_NONE);
	g->parent = id_array(g->n, 0);
	g->vparent = id_array(g->n, 0);
	g->dang = id_array(g->n, 0);
	g->child = id_array(g->n, 0);
	g->sib = id_array(g->n, 0);
	g->blk = id_array(g->n, 0);
	g->next = id_array(g->n, 0);
	g->dpos = id_array(g->n, 0);
	g->order = id_array(g->n, 0);
	bridge = id_array(g->n, 0);
	if (!g->rec || !g->pos || !g->parent || !g->vparent || !g->dang ||
	    !g->child || !g->sib || !g->blk || !g->next || !g->dpos ||
	    !g->order || !bridge)
		goto fail;
	if ((rc = admit(g, bridge)) || (rc = link_parents(g, bridge)) ||
	    (rc = make_order(g)) || (rc = chain_unlinked(g)) ||
	    (join_summaries(g), (rc = cut_cycles(g))) ||
	    (rc = link_children(g)) || (rc = place(g)))
		goto fail;
	set_side(g);
	g->keep = NULL;		/* borrowed for the build only */
	gri_sort_errs(g->errs, g->nerrs);
	free(bridge);
	*out = g;
	return 0;
fail:
	free(bridge);
	gr_free(g);
	return rc;
}

void gr_free(struct graph *g)
{
	if (!g)
		return;
	free(g->rec);
	free(g->pos);
	free(g->parent);
	free(g->vparent);
	free(g->dang);
	free(g->child);
	free(g->sib);
	free(g->blk);
	free(g->next);
	free(g->dpos);
	free(g->order);
	free(g->blocks);
	free(g->errs);
	free(g);
}

const struct idx *gr_idx(const struct graph *g) { return g->ix; }

const uint32_t *gr_nodes(const struct graph *g, uint32_t *n)
{
	*n = g->norder;
	return g->order;
}

int gr_is_node(const struct graph *g, uint32_t id)
{
	return id && id <= g->n && g->rec[id] != IDX_NONE;
}

uint32_t gr_rec(const struct graph *g, uint32_t id)
{
	return gr_is_node(g, id) ? g->rec[id] : IDX_NONE;
}

const struct idx_rec *gr_node_rec(const struct graph *g, uint32_t id)
{
	return idx_rec(g->ix, g->rec[id]);
}

uint32_t gr_pos(const struct graph *g, uint32_t id) { return g->pos[id]; }
uint32_t gr_parent(const struct graph *g, uint32_t id) { return g->parent[id]; }
uint32_t gr_dangling(const struct graph *g, uint32_t id) { return g->dang[id]; }
uint32_t gr_vparent(const struct graph *g, uint32_t id) { return g->vparent[id]; }
uint32_t gr_first_child(const struct graph *g, uint32_t id) { return g->child[id]; }
uint32_t gr_next_sibling(const struct graph *g, uint32_t id) { return g->sib[id]; }
uint32_t gr_block(const struct graph *g, uint32_t id) { return g->blk[id]; }
uint32_t gr_dpos(const struct graph *g, uint32_t id) { return g->dpos[id]; }
uint32_t gr_nerrs(const struct graph *g) { return g->nerrs; }
const struct gr_err *gr_err(const struct graph *g, uint32_t i) { return &g->errs[i]; }

int gr_side_sidechain(const struct graph *g) { return g->side_sidechain; }

int gr_main_side(const struct graph *g, uint32_t id)
{
	return !!(gr_node_rec(g, id)->flags & IDX_F_SIDECHAIN) == g->side_sidechain;
}

int gr_is_boundary(const struct graph *g, uint32_t id)
{
	const struct idx_rec *r = gr_node_rec(g, id);

	return r->type == IDX_T_SYSTEM && r->sub && r->sub == g->boundary_atom;
}

int gr_is_summary_root(const struct graph *g, uint32_t id)
{
	const struct idx_rec *r = gr_node_rec(g, id);

	return r->type == IDX_T_USER && (r->flags & IDX_F_COMPACT_SUMMARY) && !r->parent &&
	       !g->parent[id] && !g->dang[id];
}

int gr_is_compaction(const struct graph *g, uint32_t id)
{
	return gr_is_boundary(g, id) || gr_is_summary_root(g, id);
}

int gr_is_message(const struct graph *g, uint32_t id)
{
	uint8_t t = gr_node_rec(g, id)->type;

	return t == IDX_T_USER || t == IDX_T_ASSISTANT;
}

/* Block 0 is none: it has no head and no members (and a log without
 * responses has no blocks array at all). */
uint32_t gr_block_head(const struct graph *g, uint32_t blk)
{
	return blk ? g->blocks[blk].head : 0;
}

uint32_t gr_block_first(const struct graph *g, uint32_t blk)
{
	if (!blk)
		return 0;
	return g->blocks[blk].rows ? g->blocks[blk].rows : g->blocks[blk].res;
}

uint32_t gr_block_next(const struct graph *g, uint32_t id)
{
	const struct gr_blk *b;

	if (!g->blk[id])
		return 0;
	b = &g->blocks[g->blk[id]];
	if (g->next[id])
		return g->next[id];
	return id == b->rows_last ? b->res : 0;
}

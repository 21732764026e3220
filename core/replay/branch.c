#include "branch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

#include "arr.h"

struct br_name {
	UT_hash_handle hh;
	uint32_t i;
};

struct br_set {
	struct br_name *names, *byname;
	const struct graph *g;
	uint32_t *mark;		/* per id: 1 + index of the accepted branch */
	uint8_t *turn;		/* per id: a turn row at or below it */
	struct br_info *v;
	uint32_t n, cap;
	struct br_dead *dead;
	uint32_t ndead, capdead;
	uint32_t root;		/* first root of the log's own thread */
	uint32_t lead;		/* the newest terminal (0: none) */
	uint32_t ncap;		/* ids mark and turn hold: 1..ncap */
	uint32_t nset;		/* of which set: 1..nset */
};

/* A row of the conversation: an assistant row, or a user row that is not
 * injected (isMeta), a compaction summary or a local command's text. */
static int is_turn_row(const struct graph *g, uint32_t id)
{
	const struct idx_rec *r = gr_node_rec(g, id);

	if (r->type == IDX_T_ASSISTANT)
		return 1;
	return r->type == IDX_T_USER &&
	       !(r->flags & (IDX_F_META | IDX_F_COMPACT_SUMMARY | IDX_F_LOCAL_CMD));
}

/* turn[id]: a turn row at id or below it (each node marked once). */
static int mark_turns(struct br_set *bs)
{
	const struct graph *g = bs->g;
	uint32_t n, k, id;
	const uint32_t *order = gr_nodes(g, &n);

	bs->turn = calloc((size_t)bs->ncap + 1, 1);
	if (!bs->turn)
		return -ENOMEM;
	for (k = 0; k < n; k++)
		if (gr_main_side(g, order[k]) && is_turn_row(g, order[k]))
			for (id = order[k]; id && !bs->turn[id]; id = gr_vparent(g, id))
				bs->turn[id] = 1;
	return 0;
}

static int add_dead(struct br_set *bs, uint32_t terminal, uint32_t top,
		    uint32_t rows, uint8_t why)
{
	if (arr_grow(&bs->dead, &bs->capdead, bs->ndead + 1, sizeof(*bs->dead), 4))
		return -ENOMEM;
	bs->dead[bs->ndead++] = (struct br_dead){ terminal, top,
		gr_vparent(bs->g, top), rows, why };
	return 0;
}

static int add_branch(struct br_set *bs, uint32_t terminal)
{
	if (arr_grow(&bs->v, &bs->cap, bs->n + 1, sizeof(*bs->v), 8))
		return -ENOMEM;
	memset(&bs->v[bs->n], 0, sizeof(bs->v[0]));
	bs->v[bs->n++].terminal = terminal;
	return 0;
}

static int is_terminal(const struct graph *g, uint32_t id)
{
	uint32_t c;

	for (c = gr_first_child(g, id); c; c = gr_next_sibling(g, c))
		if (gr_main_side(g, c))
			return 0;
	return 1;
}

/*
 * Walks up from terminal t to the first marked node. The terminal is a
 * dead end when every unmarked node on the way lies in the block of the
 * marked node it reaches.
 */
static int covered(const struct br_set *bs, uint32_t t)
{
	const struct graph *g = bs->g;
	uint32_t id = t, b;

	while (id && !bs->mark[id])
		id = gr_vparent(g, id);
	if (!id || !(b = gr_block(g, id)))
		return 0;
	for (id = t; !bs->mark[id]; id = gr_vparent(g, id))
		if (gr_block(g, id) != b)
			return 0;
	return 1;
}

/*
 * A terminal with no turn row on its piece is a dead end when the row its
 * piece hangs off goes on elsewhere: in a turn, or in a piece already
 * accepted (rows a killed /compact left, hook rows off a call). *top is
 * the piece's first row, *rows its length.
 */
static int side_piece(const struct br_set *bs, uint32_t t, uint32_t *top,
		      uint32_t *rows)
{
	const struct graph *g = bs->g;
	uint32_t x = t, p, c;

	*rows = 1;
	if (bs->turn[t])
		return 0;
	while ((p = gr_vparent(g, x)) && !bs->turn[p] && !bs->mark[p]) {
		x = p;
		++*rows;
	}
	*top = x;
	if (!p)
		return 0;
	for (c = gr_first_child(g, p); c; c = gr_next_sibling(g, c))
		if (c != x && gr_main_side(g, c) && (bs->turn[c] || bs->mark[c]))
			return 1;
	return 0;
}

/*
 * A piece that a summary replaced: it hangs off an accepted row that a
 * partial compaction's boundary also joins (logicalParentUuid; its
 * compactMetadata says how many messages it summarised), and every row of
 * it was written before that boundary ("Summarize from here" of the rewind
 * menu). A plain /compact after a rewind joins the rewind point too, but
 * the turns it left are a branch the rewind made.
 */
static int summarised_piece(const struct br_set *bs, uint32_t t, uint32_t *top,
			    uint32_t *rows)
{
	const struct graph *g = bs->g;
	uint32_t id = t, m, c, last = 0;

	*rows = 0;
	for (; id && !bs->mark[id]; id = gr_vparent(g, id)) {
		if (gr_pos(g, id) > last || !*rows)
			last = gr_pos(g, id);
		*top = id;
		++*rows;
	}
	if (!(m = id) || !*rows)
		return 0;
	for (c = gr_first_child(g, m); c; c = gr_next_sibling(g, c))
		if (c != *top && gr_is_boundary(g, c) && !gr_parent(g, c) &&
		    (gr_node_rec(g, c)->flags & IDX_F_PARTIAL) && gr_pos(g, c) > last)
			return 1;
	return 0;
}

static void mark_path(struct br_set *bs, uint32_t t, uint32_t num)
{
	uint32_t id;

	for (id = t; id && !bs->mark[id]; id = gr_vparent(bs->g, id))
		bs->mark[id] = num;
}

/* Terminals newest first; accept those not covered. */
static int accept_terminals(struct br_set *bs)
{
	const struct graph *g = bs->g;
	uint32_t n, k;
	const uint32_t *order = gr_nodes(g, &n);

	for (k = n; k-- > 0;) {
		uint32_t id = order[k], top = 0, rows = 0;

		if (!gr_main_side(g, id) || !is_terminal(g, id))
			continue;
		if (!bs->lead)
			bs->lead = id;	/* the first examined (a branch?) */
		if (covered(bs, id))
			continue;
		if (side_piece(bs, id, &top, &rows)) {
			if (add_dead(bs, id, top, rows, BR_DEAD_SIDE))
				return -ENOMEM;
			continue;
		}
		if (summarised_piece(bs, id, &top, &rows)) {
			if (add_dead(bs, id, top, rows, BR_DEAD_SUMMARISED))
				return -ENOMEM;
			continue;
		}
		if (add_branch(bs, id))
			return -ENOMEM;
		mark_path(bs, id, bs->n);
	}
	for (k = 0; k < n && !bs->root; k++)
		if (gr_main_side(g, order[k]) && !gr_vparent(g, order[k]))
			bs->root = order[k];
	return 0;
}

static uint32_t primary_child(const struct br_set *bs, uint32_t id)
{
	uint32_t c;

	for (c = gr_first_child(bs->g, id); c; c = gr_next_sibling(bs->g, c))
		if (bs->mark[c])
			return c;
	return 0;
}

/* Follows primary children down to a terminal. */
static uint32_t descend(const struct br_set *bs, uint32_t id)
{
	uint32_t c;

	while ((c = primary_child(bs, id)))
		id = c;
	return id;
}

/* The lowest node of the path that is not its parent's primary child. */
static uint32_t first_own(const struct br_set *bs, uint32_t t)
{
	uint32_t id, p;

	for (id = t; id; id = p) {
		p = gr_vparent(bs->g, id);
		if (p ? primary_child(bs, p) != id : id != bs->root)
			return id;
	}
	return 0;
}

static void safe_uuid8(const struct graph *g, uint32_t id, char *out)
{
	char buf[IDX_UUID_MAX + 1];
	size_t i, n = idx_id_buf(gr_idx(g), id, buf);

	for (i = 0; i < 8 && i < n; i++) {
		char c = buf[i];

		out[i] = ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '-' || c == '_') ? c : '_';
	}
	out[i] = '\0';
}

static int cmp_branch(const void *a, const void *b)
{
	const struct br_info *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

/* Hostile uuids can make two names alike: number the later ones. */
static int index_names(struct br_set *bs)
{
	uint32_t i;

	bs->names = calloc(bs->n ? bs->n : 1, sizeof(*bs->names));
	if (!bs->names)
		return -ENOMEM;
	for (i = 0; i < bs->n; i++) {
		struct br_name *hit = NULL, *ent = &bs->names[i];
		char *name = bs->v[i].name;
		size_t l = strlen(name);

		HASH_FIND(hh, bs->byname, name, (unsigned)l, hit);
		if (hit) {
			snprintf(name + l, BR_NAME_MAX - l, "-%u", i);
			l = strlen(name);
		}
		ent->i = i;
		HASH_ADD_KEYPTR(hh, bs->byname, name, (unsigned)l, ent);
	}
	return 0;
}

/* Names every branch, then sorts: main first, then by first own record. */
static int name_branches(struct br_set *bs)
{
	uint32_t i, main_t = bs->root ? descend(bs, bs->root) : 0;

	for (i = 0; i < bs->n; i++) {
		struct br_info *b = &bs->v[i];
		char u8[9];

		if (b->terminal == main_t) {
			snprintf(b->name, sizeof(b->name), "main");
			b->key = 0;
			continue;
		}
		b->first_own = first_own(bs, b->terminal);
		b->key = gr_pos(bs->g, b->first_own) + 1;
		safe_uuid8(bs->g, b->first_own, u8);
		snprintf(b->name, sizeof(b->name), "fork-%06u-%s",
			 gr_dpos(bs->g, b->first_own), u8);
	}
	if (bs->n)		/* qsort(NULL, 0) is undefined */
		qsort(bs->v, bs->n, sizeof(*bs->v), cmp_branch);
	return index_names(bs);
}

int br_build(const struct graph *g, struct br_set **out)
{
	struct br_set *bs = calloc(1, sizeof(*bs));
	uint32_t i;

	*out = NULL;
	if (!bs)
		return -ENOMEM;
	bs->g = g;
	bs->ncap = bs->nset = idx_nids(gr_idx(g));
	bs->mark = calloc((size_t)bs->ncap + 1, sizeof(*bs->mark));
	if (!bs->mark || mark_turns(bs) || accept_terminals(bs) || name_branches(bs)) {
		br_free(bs);
		return -ENOMEM;
	}
	/* Re-number the marks to the sorted order. */
	for (i = 0; i < bs->n; i++)
		bs->mark[bs->v[i].terminal] = i + 1;
	*out = bs;
	return 0;
}

/* Room in mark and turn for ids up to n, a half more each time; the
 * new ids' entries zero (those past them are not touched). */
static int grow_ids(struct br_set *bs, uint32_t n)
{
	uint32_t cap = bs->ncap + bs->ncap / 2 + 16, *mark;
	uint8_t *turn;

	if (n <= bs->nset)
		return 0;
	if (n > bs->ncap) {
		if (cap < n)
			cap = n;
		if (!(mark = realloc(bs->mark, ((size_t)cap + 1) * sizeof(*mark))))
			return -ENOMEM;
		bs->mark = mark;
		if (!(turn = realloc(bs->turn, (size_t)cap + 1)))
			return -ENOMEM;
		bs->turn = turn;
		bs->ncap = cap;
	}
	memset(bs->mark + bs->nset + 1, 0, (size_t)(n - bs->nset) * sizeof(*bs->mark));
	memset(bs->turn + bs->nset + 1, 0, (size_t)(n - bs->nset));
	bs->nset = n;
	return 0;
}

/*
 * The new nodes order[from..n) go on from the lead as one path of the
 * log's own thread, not into an old block (whose members' display
 * positions, which names hold, may move), and no marked row hangs off
 * the lead (a sidechain row a main row hangs off). Then a build takes
 * the path's end first, as it took the lead (nothing marked yet: not
 * covered, not summarised; its piece's walk up meets what the lead's
 * met), marks the lead's path, and goes on as it did.
 */
static int lead_goes_on(const struct br_set *bs, const uint32_t *order,
			uint32_t from, uint32_t n)
{
	const struct graph *g = bs->g;
	uint32_t k, up = bs->lead, first = gr_pos(g, order[from]);

	if (!bs->lead || primary_child(bs, bs->lead))
		return 0;
	for (k = from; k < n; up = order[k++]) {
		uint32_t id = order[k], b = gr_block(g, id);

		if (gr_vparent(g, id) != up || !gr_main_side(g, id) ||
		    (b && gr_pos(g, gr_block_head(g, b)) < first))
			return 0;
	}
	return 1;
}

int br_grow(struct br_set *bs, uint32_t from)
{
	const struct graph *g = bs->g;
	uint32_t n, k, id, i;
	const uint32_t *order = gr_nodes(g, &n);

	if (grow_ids(bs, idx_nids(gr_idx(g))))
		return -ENOMEM;		/* new nodes are read below */
	if (from == n)
		return 0;
	if (from > n || !lead_goes_on(bs, order, from, n))
		return BR_GROW_NO;
	for (i = 0; i < bs->n && bs->v[i].terminal != bs->lead; i++)
		;
	if (i == bs->n)
		return BR_GROW_NO;	/* a dead end: not the first accepted */
	for (k = from; k < n; k++)
		if (is_turn_row(g, order[k]))
			for (id = order[k]; id && !bs->turn[id]; id = gr_vparent(g, id))
				bs->turn[id] = 1;
	bs->mark[bs->lead] = 1;		/* its number when accepted first */
	for (k = from; k < n; k++)
		bs->mark[order[k]] = 1;
	bs->lead = bs->v[i].terminal = order[n - 1];
	bs->mark[bs->lead] = i + 1;
	return 0;
}

void br_free(struct br_set *bs)
{
	if (!bs)
		return;
	HASH_CLEAR(hh, bs->byname);
	free(bs->names);
	free(bs->mark);
	free(bs->turn);
	free(bs->v);
	free(bs->dead);
	free(bs);
}

uint32_t br_ndead(const struct br_set *bs) { return bs->ndead; }

const struct br_dead *br_dead(const struct br_set *bs, uint32_t i)
{
	return &bs->dead[i];
}

const char *br_dead_reason(uint8_t why)
{
	return why == BR_DEAD_SUMMARISED ?
	       "replaced by a summary (its rows were written before the compact boundary that joins the same row)" :
	       "no conversation rows (hook or bookkeeping rows, or what an interrupted /compact left) off a row the branch goes on from";
}

uint32_t br_count(const struct br_set *bs) { return bs->n; }

const struct br_info *br_get(const struct br_set *bs, uint32_t i)
{
	return &bs->v[i];
}

int br_find(const struct br_set *bs, const char *name)
{
	struct br_name *hit = NULL;

	HASH_FIND(hh, bs->byname, name, (unsigned)strlen(name), hit);
	return hit ? (int)hit->i : -1;
}

int br_of_node(const struct br_set *bs, uint32_t id)
{
	if (!gr_is_node(bs->g, id) || !gr_main_side(bs->g, id))
		return -1;
	while (id && !bs->mark[id])
		id = gr_vparent(bs->g, id);
	if (!id)
		return -1;
	return (int)bs->mark[descend(bs, id)] - 1;
}

int br_of_first(const struct br_set *bs, uint32_t id)
{
	int b;

	if (!gr_is_node(bs->g, id) || !bs->mark[id])
		return -1;
	b = (int)bs->mark[descend(bs, id)] - 1;
	return b >= 0 && bs->v[b].first_own == id ? b : -1;
}

/* The raw path from `from` (0: the root) down to `to`, expanded as
 * br_path() lists it: a block's members all where the first of them is
 * met. 0, -ENOMEM, or -ENOENT when `from` is not above `to`. */
static int expand(const struct graph *g, uint32_t from, uint32_t to, uint32_t **ids,
		  uint32_t *n)
{
	uint32_t len = 0, id, k, out = 0, last_blk = 0, *raw, *path;

	for (id = to; id; id = gr_vparent(g, id)) {
		len++;
		if (id == from)
			break;
	}
	if (from && id != from)
		return -ENOENT;
	raw = malloc((len ? len : 1) * sizeof(*raw));
	if (!raw)
		return -ENOMEM;
	k = len;
	for (id = to; k; id = gr_vparent(g, id))
		raw[--k] = id;
	/* Blocks can hold members off this path: count them first. */
	for (k = 0; k < len; k++) {
		uint32_t b = gr_block(g, raw[k]), m;

		if (!b)
			out++;
		else if (b != last_blk)
			for (m = gr_block_first(g, b); m; m = gr_block_next(g, m))
				out++;
		last_blk = b;
	}
	path = malloc((out ? out : 1) * sizeof(*path));
	if (!path) {
		free(raw);
		return -ENOMEM;
	}
	out = 0;
	last_blk = 0;
	for (k = 0; k < len; k++) {
		uint32_t b = gr_block(g, raw[k]), m;

		if (!b)
			path[out++] = raw[k];
		else if (b != last_blk)
			for (m = gr_block_first(g, b); m; m = gr_block_next(g, m))
				path[out++] = m;
		last_blk = b;
	}
	free(raw);
	*ids = path;
	*n = out;
	return 0;
}

int br_path(const struct br_set *bs, uint32_t i, uint32_t **ids, uint32_t *n)
{
	return expand(bs->g, 0, bs->v[i].terminal, ids, n);
}

int br_path_from(const struct br_set *bs, uint32_t i, uint32_t from, uint32_t **ids,
		 uint32_t *n, uint32_t *skip)
{
	const struct graph *g = bs->g;
	uint32_t s = from ? gr_dpos(g, from) : 0;
	int rc;

	/* In no block, `from` is listed where the branch meets it: the
	 * expansion from it on is the whole one's from that point on. */
	if (s && !gr_block(g, from)) {
		rc = expand(g, from, bs->v[i].terminal, ids, n);
		if (rc != -ENOENT) {
			*skip = rc ? 0 : s - 1;
			return rc;
		}
	}
	*skip = 0;
	return br_path(bs, i, ids, n);
}

/* The last member of block b that want() takes, or 0. */
static uint32_t block_last(const struct graph *g, uint32_t b,
			   int (*want)(uint32_t id, void *arg), void *arg)
{
	uint32_t m, found = 0;

	for (m = gr_block_first(g, b); m; m = gr_block_next(g, m))
		if (want(m, arg))
			found = m;
	return found;
}

/* br_path() backwards: each run of rows of one block stands for the
 * block's members, as there (a run is met at its last row here). */
uint32_t br_last(const struct br_set *bs, uint32_t i,
		 int (*want)(uint32_t id, void *arg), void *arg)
{
	const struct graph *g = bs->g;
	uint32_t id, b = 0, prev = 0, found = 0;

	for (id = bs->v[i].terminal; id && !found; id = gr_vparent(g, id), prev = b) {
		b = gr_block(g, id);
		if (!b)
			found = want(id, arg) ? id : 0;
		else if (b != prev)
			found = block_last(g, b, want, arg);
	}
	return found;
}

/*
 * graph_priv: the graph's inside, shared by graph.c (the build) and
 * graph_grow.c (the extension after the index grew). Not for other
 * modules: they read the graph through graph.h.
 *
 * Invariant: every per-id array has cap + 1 entries, of which those past
 * n up to filled hold their defaults (rec and pos IDX_NONE, the others
 * 0); those past filled are not touched (no memory is used for them).
 */
#ifndef SESSFS_GRAPH_PRIV_H
#define SESSFS_GRAPH_PRIV_H

#include "graph.h"

#define GRI_BRIDGE_STEPS 4096	/* longest chain of bridged rows followed */

struct gr_blk {
	uint32_t head;
	uint32_t rows, rows_last;	/* member lists, linked by next[] */
	uint32_t res, res_last;
	uint32_t size, start;
};

struct graph {
	const struct idx *ix;
	uint32_t n;			/* ids: 1..n */
	uint32_t cap;			/* ids the arrays hold: 1..cap */
	uint32_t filled;		/* ids set, to a default past n */
	uint32_t nrecs;			/* records of ix the graph is built from */
	uint32_t *rec, *pos, *parent, *vparent, *dang;
	uint32_t *child, *sib;
	uint32_t *blk, *next, *dpos;
	uint32_t *order, norder;	/* nodes in file order */
	struct gr_blk *blocks;
	uint32_t nblocks, capblocks;
	struct gr_err *errs;
	uint32_t nerrs, caperrs;
	int side_sidechain;		/* the log's own thread is a sidechain */
	int part;			/* built over part of the log (keep) */
	int named;			/* some row names a parent: never unchained */
	const uint8_t *keep;		/* per record: admitted (NULL: all) */
	uint16_t boundary_atom;		/* "compact_boundary" */
};

/* The per-id arrays, each with its default, for growing them. */
#define GRI_ARRAYS(g) { &(g)->rec, &(g)->pos, &(g)->parent, &(g)->vparent, \
	&(g)->dang, &(g)->child, &(g)->sib, &(g)->blk, &(g)->next, &(g)->dpos, \
	&(g)->order }
#define GRI_NARRAYS 11

int gri_add_err(struct graph *g, uint32_t line, uint32_t id, uint8_t code, uint32_t aux);
int gri_is_msg_type(uint8_t t);
/* The id a message record is stored under (sentAsUuid, §5.2 step 1). */
uint32_t gri_key_of(const struct graph *g, const struct idx_rec *r);
/* The block node id joins (0 none; 0 with *is_row set: out of memory),
 * below: a user or assistant row hangs below it. Parents first. */
uint32_t gri_block_for(struct graph *g, uint32_t id, int below, int *is_row);
void gri_block_append(struct graph *g, uint32_t b, uint32_t id, int is_row);
/* The display position of id, from its view parent's; a block's head
 * places every member of its block. Parents first. */
void gri_set_dpos(struct graph *g, uint32_t id);
/* Errors in line order, for errors.txt (from the first, of n). */
void gri_sort_errs(struct gr_err *e, uint32_t n);

#endif

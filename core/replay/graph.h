/*
 * graph: the conversation graph of a session log.
 *
 * Built from an index in a few linear passes. Nodes are the message records
 * (user, assistant, attachment, system) that the loader admits, named by
 * their uuid's id. It applies the loader's rules:
 *   - a duplicate uuid keeps its last value at its first position;
 *   - progress rows and rows the repair drops are bridged: their children
 *     hang off their parent;
 *   - a parent that does not exist leaves the node a root ("dangling"; the
 *     resume walk may still substitute a parent, see resume.h);
 *   - cycles and self-parents are cut where the upward walk meets them;
 *     a cycle through a boundary's join to its logical parent is cut at
 *     that join (a --fork-session copy of a compacted log writes the kept
 *     row the join names after the boundary), never at a parentUuid;
 *   - a log whose message rows name no parent at all (every parentUuid
 *     null or absent: hand-made logs, other tools' exports) is read in
 *     file order, each row the child of the one before on its side, and
 *     says so once (GR_E_UNCHAINED, on the first row's line).
 *
 * Two parent relations: the raw one (parentUuid), and the view one, which
 * adds an edge from each compaction boundary to its logicalParentUuid (and
 * from a boundary-less summary to the row before it) so a branch is the
 * whole path the terminal shows. Children lists follow the
 * view relation, in file order.
 *
 * Blocks: the rows of one assistant response (same message.id, chained)
 * and the tool results that answer them form a block, with the side rows
 * that hang off them: an attachment or system row (not a boundary) with
 * no user or assistant row below it, hanging off a member (a PreToolUse
 * hook's rows beside the call's result, the PostToolUse rows on a parallel
 * call's dead end, rows trailing the last response). A block is shown as
 * its rows in file order, then its results and side rows in file order;
 * that is how parallel tool calls, which fan out in the raw graph, read as
 * one path.
 * Every node has a display position: its 1-based place on any branch that
 * holds it (the same in every branch).
 *
 * The graph borrows the index; after the index grows, gr_grow() extends
 * it (graph_grow.c) or says it cannot, and then it is built again.
 * Read-only after gr_build() and between gr_grow() calls: safe to share
 * between threads while nothing grows it.
 */
#ifndef SESSFS_GRAPH_H
#define SESSFS_GRAPH_H

#include <stdint.h>

#include "idx.h"

enum gr_err_code {
	GR_E_DUPLICATE = 1,	/* aux: the line of the first record */
	GR_E_DROPPED,		/* aux: enum idx_drop */
	GR_E_DANGLING,		/* aux: the missing parent's id */
	GR_E_CYCLE,		/* aux: the parent id that closed it */
	GR_E_SELF_PARENT,
	GR_E_NO_UUID,
	GR_E_UNLINKED,		/* aux: logical parent id not found */
	GR_E_LOGICAL_CYCLE,	/* aux: the logical parent; the join was cut */
	GR_E_UNCHAINED,		/* no row names a parent; aux: rows chained */
};

struct gr_err {
	uint32_t line;
	uint32_t id;		/* the node's id, when it has one */
	uint32_t aux;
	uint8_t code;
};

struct graph;

/* Returns a new graph of ix in *out; free with gr_free(). 0 or -ENOMEM. */
int gr_build(const struct idx *ix, struct graph **out);
/*
 * The same over part of the log: only the message records i with keep[i]
 * set become nodes (progress rows and dropped rows still bridge). keep has
 * idx_nrecs(ix) entries and is read during the call only. An inline
 * sidechain is shown this way (sidechain.h).
 */
int gr_build_only(const struct idx *ix, const uint8_t *keep, struct graph **out);
void gr_free(struct graph *g);

/*
 * Extends g, built by gr_build() from the records its index had then, by
 * the records appended to the index since, to what gr_build() of the
 * index now gives (block numbers aside: gr_block() values name the same
 * sets, not the same numbers). Costs the new records and the blocks they
 * join, not the log. Returns 0 when extended; GR_GROW_NO when the new
 * records touch what it cannot prove it extends as a build would (g is
 * then the graph it was: build a new one); -ENOMEM (g as it was).
 * GR_GROW_NO comes for a graph of part of the log, a log whose rows name
 * no parent (and that has more than one, or that has the new ones too)
 * or whose own thread is a sidechain, and for a new record that is: a duplicate of an old or new uuid, the uuid of a row old rows
 * name, a dropped row, a progress row under such a uuid, a compaction
 * boundary, a row whose parent is an old row that is no node (bridged or
 * missing) or is written after it, a turn row below an old side row (an
 * attachment or system row in a block, or more than GR_GROW_UP of them),
 * and a row that joins an old block that other rows hang off (which
 * would move their display positions), or more than GR_GROW_BLOCKS old
 * blocks at once. Not thread-safe: no reader may use g meanwhile.
 */
#define GR_GROW_NO 1
#define GR_GROW_UP 64
#define GR_GROW_BLOCKS 16
int gr_grow(struct graph *g);

const struct idx *gr_idx(const struct graph *g);

/* Nodes in file order (first position); borrowed. */
const uint32_t *gr_nodes(const struct graph *g, uint32_t *n);
int gr_is_node(const struct graph *g, uint32_t id);
/* The record that holds the node's value (IDX_NONE if not a node). */
uint32_t gr_rec(const struct graph *g, uint32_t id);
const struct idx_rec *gr_node_rec(const struct graph *g, uint32_t id);
/* The node's first position (record index), for file-order comparisons. */
uint32_t gr_pos(const struct graph *g, uint32_t id);
/* Raw parent after bridging; 0 for a root, a boundary, or a dangling one. */
uint32_t gr_parent(const struct graph *g, uint32_t id);
/* The parent id named by the record but not found (0 if none). */
uint32_t gr_dangling(const struct graph *g, uint32_t id);
/* View parent: the raw parent, or a boundary's logical parent. */
uint32_t gr_vparent(const struct graph *g, uint32_t id);
uint32_t gr_first_child(const struct graph *g, uint32_t id);
uint32_t gr_next_sibling(const struct graph *g, uint32_t id);
/* True for nodes of the log's own thread: non-sidechain rows, or, in a
 * subagent log (every row a sidechain), all rows. */
int gr_main_side(const struct graph *g, uint32_t id);
/* True when the log's own thread is a sidechain (a subagent log). */
int gr_side_sidechain(const struct graph *g);
int gr_is_boundary(const struct graph *g, uint32_t id);
/* A compaction summary written without a boundary (1.0.x): a user row
 * marked isCompactSummary that names no parent. */
int gr_is_summary_root(const struct graph *g, uint32_t id);
/* A compaction: a boundary, or a summary root. */
int gr_is_compaction(const struct graph *g, uint32_t id);
/* True for user and assistant rows. */
int gr_is_message(const struct graph *g, uint32_t id);

/* The block holding the node (0 if none), its head row, and members in
 * display order: rows, then results. Block 0 has no head and no members;
 * gr_block_next() of a node in no block is 0. */
uint32_t gr_block(const struct graph *g, uint32_t id);
uint32_t gr_block_head(const struct graph *g, uint32_t blk);
uint32_t gr_block_first(const struct graph *g, uint32_t blk);
uint32_t gr_block_next(const struct graph *g, uint32_t id);
/* 1-based display position of the node on every branch through it. */
uint32_t gr_dpos(const struct graph *g, uint32_t id);

uint32_t gr_nerrs(const struct graph *g);
const struct gr_err *gr_err(const struct graph *g, uint32_t i);

#endif

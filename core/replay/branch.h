/*
 * branch: the branches of a session, as the terminal shows them.
 *
 * A branch is the path from a root to a terminal record of the view graph
 * (graph.h: raw parents plus boundary -> logicalParentUuid edges), one per
 * terminal, except a terminal that lies inside the block of a response on
 * an accepted branch (a parallel tool call's dead end; in a killed batch
 * the terminals cover each other and count once). Terminals are taken
 * newest first, so the newest of such twins is the one kept.
 *
 * Names are stable while the log grows. At every node the "primary" child
 * is its first-written child that lies on an accepted branch; "main" takes
 * the primary child everywhere from the first root. Any other branch is
 * named after its own first message, the lowest node of its path that is
 * not a primary child: "fork-<seq>-<uuid8>", seq being that node's display
 * position (graph.h), zero-padded to 6 digits, and uuid8 the first 8
 * characters of its uuid (made of [A-Za-z0-9._-]).
 *
 * Dead ends that no rewind made are not branches (they are listed, see
 * br_dead()): a terminal whose piece (the rows below the last row it shares
 * with another path) holds no turn row (an assistant row, or a user row
 * that is not isMeta, a compaction summary or a local command's text) when
 * the row it hangs off goes on elsewhere, such as the rows an interrupted
 * /compact leaves or hook rows off a call; and a piece written wholly
 * before a partial compaction's boundary (compactMetadata.
 * messagesSummarized) that joins the same row through its
 * logicalParentUuid (what "Summarize from here" replaced by a summary). A
 * plain /compact made after a rewind also joins the rewind point: the
 * turns the rewind left are a branch.
 *
 * Borrows the graph. Read-only after br_build() and between br_grow()
 * calls: safe to share while nothing grows it.
 */
#ifndef SESSFS_BRANCH_H
#define SESSFS_BRANCH_H

#include <stdint.h>

#include "graph.h"

#define BR_NAME_MAX 48

struct br_info {
	uint32_t terminal;	/* id of the last record */
	uint32_t first_own;	/* id of its first own record (0 for main) */
	uint32_t key;		/* listing order: 0 for main, else 1 + position */
	char name[BR_NAME_MAX];
};

enum br_dead_why {
	BR_DEAD_SIDE = 1,	/* no turn row on it */
	BR_DEAD_SUMMARISED,	/* replaced by a summary */
};

/* A dead end: a piece of the graph that is on no branch. */
struct br_dead {
	uint32_t terminal;	/* its last record */
	uint32_t top;		/* its first record */
	uint32_t from;		/* the record it hangs off (0: a root) */
	uint32_t rows;		/* records on it */
	uint8_t why;		/* enum br_dead_why */
};

struct br_set;

/* Returns the branches of g in *out; free with br_free(). 0 or -ENOMEM. */
int br_build(const struct graph *g, struct br_set **out);
void br_free(struct br_set *bs);
/*
 * After the graph grew by gr_grow() (not built anew), from being the
 * nodes it had (gr_nodes()): extends bs to what br_build() of the graph
 * now gives, at the cost of the new nodes. Returns 0; BR_GROW_NO, bs
 * untouched, when the new nodes are not one path going on from the
 * newest terminal of the log's own thread, which was the first branch
 * accepted (the normal append), or join an old block (build anew then);
 * or -ENOMEM (bs untouched but for room). Not thread-safe.
 */
#define BR_GROW_NO 1
int br_grow(struct br_set *bs, uint32_t from);

/* Branches in listing order: main first, then by first own record. */
uint32_t br_count(const struct br_set *bs);
const struct br_info *br_get(const struct br_set *bs, uint32_t i);
/* Dead ends, newest terminal first; borrowed, i < br_ndead(). */
uint32_t br_ndead(const struct br_set *bs);
const struct br_dead *br_dead(const struct br_set *bs, uint32_t i);
/* Why a dead end is not a branch, in words (a static string). */
const char *br_dead_reason(uint8_t why);
/* Index of the branch named name, or -1. */
int br_find(const struct br_set *bs, const char *name);
/*
 * The branch that holds node id: the branch whose terminal is reached by
 * primary children from it (from its nearest accepted ancestor when the
 * node is a dead end). -1 when id is not on the log's own thread.
 */
int br_of_node(const struct br_set *bs, uint32_t id);
/*
 * The branch whose first own record is id (its key: the node its folder
 * is named by), or -1. Unlike br_of_node(), also a branch that starts off
 * the log's own thread (at a sidechain's root).
 */
int br_of_first(const struct br_set *bs, uint32_t id);
/*
 * The records of branch i in display order (blocks expanded). Returns 0
 * and a new array in *ids (free() it), or -ENOMEM.
 */
int br_path(const struct br_set *bs, uint32_t i, uint32_t **ids, uint32_t *n);
/*
 * The same from record `from` on, without walking what comes before it:
 * ids[0..n) is br_path()'s ids[skip..], skip being from's place on the
 * path (gr_dpos() - 1). Where that cannot be had so (from is 0, in a
 * block, or not on the path) it is the whole path, skip 0.
 */
int br_path_from(const struct br_set *bs, uint32_t i, uint32_t from, uint32_t **ids,
		 uint32_t *n, uint32_t *skip);
/*
 * The last record of br_path(bs, i) for which want(id, arg) is true, or
 * 0: the path walked from its terminal up, so it costs the rows after the
 * one found, not the branch.
 */
uint32_t br_last(const struct br_set *bs, uint32_t i,
		 int (*want)(uint32_t id, void *arg), void *arg);

#endif

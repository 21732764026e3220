/*
 * sidechain: the subagent conversations written inline in a session log.
 *
 * Claude Code 1.0.x wrote a Task subagent's rows into the main log itself,
 * marked isSidechain:true, its first row a root (parentUuid null). Each
 * sidechain conversation (the sidechain rows that hang from one root,
 * following the graph's view parents up through sidechain rows only) is an
 * agent, shown like the subagent log of a later version: a part of the
 * same log, opened with ss_open_part() (session.h), whose graph admits
 * only its rows (gr_build_only(), keep set by sc_keep()).
 *
 * Its id is the id of the Task (or Agent) tool call it answers: the call
 * whose input "prompt" equals the conversation's first user text (the
 * root's, else the first user row's with text). Calls are taken in file
 * order (the order they were written in): each conversation, in the
 * order of its root, takes the first call not taken yet with that prompt
 * written before its root, else the first such call anywhere. A
 * conversation no call matches is "sidechain-<root uuid8>". A log whose
 * rows are all sidechain rows (a subagent's own log) has none.
 *
 * Built from a graph and its log (and extended by sc_grow()); read-only
 * afterwards: safe to share.
 */
#ifndef SESSFS_SIDECHAIN_H
#define SESSFS_SIDECHAIN_H

#include <stddef.h>
#include <stdint.h>

#include "graph.h"
#include "logf.h"

#define SC_ID_MAX 1024		/* bytes of a Task call's id kept */

struct sc_agent {
	uint32_t root;		/* the root row's id */
	uint32_t rows;		/* message rows of the conversation */
	uint32_t call;		/* id of the row holding the Task call, 0 = none */
	uint64_t useid;		/* js_hash() of the call's id, 0 = none */
	size_t idlen;
	char id[SC_ID_MAX + 1];	/* the call's id, or "sidechain-<uuid8>" */
	char uuid[IDX_UUID_MAX + 1];	/* the root's uuid */
};

struct sc_set;

/* The inline sidechains of g. 0 and a new set in *out (free with
 * sc_free()), or -ENOMEM. A log with no sidechain row costs one pass over
 * its nodes. */
int sc_build(const struct graph *g, const struct logf *lf, struct sc_set **out);
void sc_free(struct sc_set *s);
/*
 * After g grew by gr_grow() from the nodes it had (from, gr_nodes()) and
 * ids (n0, idx_nids()): extends s to what sc_build() now gives, at the
 * cost of the new rows (and the walk up their agent's rows). Returns 0;
 * SC_GROW_NO, s untouched, when a new row starts an agent, gives an
 * agent no call names its first text, or a new Task call may name an
 * agent none named; -ENOMEM. Not thread-safe.
 */
#define SC_GROW_NO 1
int sc_grow(struct sc_set *s, const struct graph *g, const struct logf *lf, uint32_t from,
	    uint32_t n0);

/* Conversations in the file order of their roots; borrowed, valid until
 * sc_free(). */
uint32_t sc_count(const struct sc_set *s);
const struct sc_agent *sc_get(const struct sc_set *s, uint32_t i);
/* The conversation whose Task call has id hash useid, or NULL. */
const struct sc_agent *sc_by_use(const struct sc_set *s, uint64_t useid);

/*
 * Which records of g's index belong to the sidechain conversation whose
 * root has the uuid id root (in a whole log, or in a part of one): a new array of idx_nrecs() bytes in *keep
 * (free() it), 1 for each line of a message row of it (every sidechain
 * copy of a duplicate uuid: a main-thread row that reuses one of its
 * uuids is not of it). 0 or -ENOMEM; a root that is not one gives all
 * zero.
 */
int sc_keep(const struct graph *g, uint32_t root, uint8_t **keep);

#endif

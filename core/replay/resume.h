/*
 * resume: the chain that Claude Code loads when it resumes the log.
 *
 * Phase 1 of the replay (session-format.md §5, §13 rules 1-8), on the
 * graph: the preserved segment of the last compaction is relinked, the
 * leaf is picked as the default resume picks it (last-prompt checkpoints,
 * explicit rewinds, lastRow), the chain is walked up from it (cycle guard,
 * 5 s substitute for a missing parent), the leaf's trailing attachments are
 * added, and each response on the chain is replaced by its whole block
 * (rows in file order, then the tool results that answer it, in file
 * order). The attach point is the record a resume appends after.
 *
 * After the graph grew by gr_grow(), rs_grow() extends the chain by the
 * rows appended (resume_grow.c) where it proves the result is what
 * rs_build() gives, else says so and the chain is built again.
 *
 * Read-only after rs_build() and between rs_grow() calls: safe to share
 * while nothing grows it.
 */
#ifndef SESSFS_RESUME_H
#define SESSFS_RESUME_H

#include <stdint.h>

#include "graph.h"
#include "logf.h"

#define RS_SUBSTITUTE_MS 5000	/* how much older a substitute parent may be */

enum rs_note_code {
	RS_N_CYCLE = 1,		/* the walk met a node again at id */
	RS_N_SUBSTITUTE,	/* id's parent aux is missing; continued from aux2 */
	RS_N_CHAIN_START,	/* id's parent aux is missing; the chain starts at id */
	RS_N_PRESERVED_MISSING,	/* the preserved list names a missing record */
	RS_N_RECOVERED,		/* id was off the parent chain, recovered (rule 6) */
	RS_N_TERMINAL_SCAN,	/* no checkpoint or lastRow: leaf by terminal scan */
};

struct rs_note {
	uint32_t id, aux, aux2;
	uint8_t code;
};

struct rs_chain {
	uint32_t leaf;		/* the leaf message (user/assistant), 0 = none */
	uint32_t attach;	/* the record a resume appends after, 0 = none */
	uint32_t *ids;		/* the loaded chain, root first, trailing included */
	uint32_t n;
	uint32_t window;	/* index in ids where the window starts */
	uint32_t boundary;	/* last main-thread compact boundary of the log */
	uint32_t deleted;	/* rows the relinking summarised away */
	int cleared;		/* an explicit rewind emptied the conversation */
	int relinked;		/* the last boundary's preserved segment was relinked */
	struct rs_note *notes;
	uint32_t nnotes;
	struct rs_more *more;	/* what rs_grow() extends from (resume_priv.h) */
};

/* Computes the chain; returns 0 and a new chain in *out (free with
 * rs_free()), or -ENOMEM. lf is read for the last boundary's metadata. */
int rs_build(const struct graph *g, const struct logf *lf, struct rs_chain **out);
void rs_free(struct rs_chain *c);

/*
 * After g (the graph c was built from) grew by gr_grow(), not built anew:
 * extends c to what rs_build() of g now gives, at the cost of the new
 * records and the chain's tail (the last response's block and the leaf's
 * trailing rows), not the log. Returns 0; RS_GROW_NO when it cannot
 * prove the result equal (build the chain again; c is then unusable
 * but for rs_free()); or -ENOMEM (likewise).
 *
 * It extends when the new rows hang off new rows or the chain's tail
 * (the leaf, its response's block, its trailing rows), the leaf found
 * anew is the old one or a new row below it whose path up takes in every
 * old trailing row, no new row has the id of a response, call or tool
 * result of an old row outside the tail's response (a filter of them
 * tells), and the leaf's pick is decided by the new rows: a new
 * last-prompt checkpoint names a new row, the old leaf, lastRow or
 * checkpoint. RS_GROW_NO else: a rewind (a new row off an older row),
 * an explicit checkpoint emptying the chain, a leaf found by the
 * terminal scan, a new row in the time window of a substitute parent,
 * a row joining an older response, a relinked row's neighbourhood,
 * the filter full. It reads no log bytes: what rs_build() read of the
 * last boundary's metadata (rule 5) is kept beside c. Not thread-safe.
 */
#define RS_GROW_NO 1
int rs_grow(struct rs_chain *c, const struct graph *g);

#endif

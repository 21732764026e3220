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
 * The chain is computed once and is read-only afterwards.
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
};

/* Computes the chain; returns 0 and a new chain in *out (free with
 * rs_free()), or -ENOMEM. lf is read for the last boundary's metadata. */
int rs_build(const struct graph *g, const struct logf *lf, struct rs_chain **out);
void rs_free(struct rs_chain *c);

#endif

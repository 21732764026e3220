/*
 * compact: a compaction, the start of a new segment of the log.
 *
 * compact() writes what Claude Code writes when the context is summarized:
 * for a typed /compact (60%) its queue records and latches, a
 * compact_boundary row (a new root: parentUuid null, logicalParentUuid the
 * old leaf; a partial one keeps the last reply verbatim), the summary as a
 * user row, for a typed one the caveat, command and output rows, the files
 * read lately and the preamble's attachments again, a checkpoint, the cost
 * and tools-used. The first one gives the session its slug. It forgets the
 * segment's rewind targets and sets when the next compaction is due.
 *
 * Thread-safety: none.
 */
#ifndef GENLOG_COMPACT_H
#define GENLOG_COMPACT_H

#include "gen.h"

void compact(struct gen *g);

#endif

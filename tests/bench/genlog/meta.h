/*
 * meta: the records outside the conversation chain (no parentUuid).
 *
 * Queue operations, the atis/mode latches, last-prompt checkpoints (the
 * leaf a resume starts from; a rewind marks one explicit), tools-used,
 * cost-state, the file-history snapshot of a prompt and the delta of each
 * file an Edit or Write changes, and the api-request trio: the request
 * shape and message blobs a process sends first, and one api-request per
 * call of the model. Each call writes one record to the output (rec_blobs()
 * two, note_tool() one or none), in the order called.
 *
 * Strings passed in are borrowed for the call. Thread-safety: none.
 */
#ifndef GENLOG_META_H
#define GENLOG_META_H

#include "gen.h"

/* A queue-operation: enqueue of content, or a dequeue when content is NULL. */
void rec_queue(struct gen *g, const char *content);
/* An atis-latch (K_ATIS) or mode (K_MODE) record. */
void rec_latch(struct gen *g, enum kind k);
/* A resume checkpoint at leaf; a rewind marks it explicit. */
void rec_last_prompt(struct gen *g, const char *prompt, const char *leaf, bool rewind);
/* The tools this process has used so far. */
void rec_tools_used(struct gen *g);
/* Note a tool used; its first use in a process writes tools-used. */
void note_tool(struct gen *g, enum tool t);
/* The running cost and token counts (g->cost). */
void rec_cost(struct gen *g);

/* The file-history snapshot of the current prompt: every tracked file. */
void rec_fh_snapshot(struct gen *g);
/* Back up path, which row (an Edit or Write call) is about to change. */
void rec_fh_delta(struct gen *g, const char *path, const char *row);

/* A process's request shape (system prompt, tools): sets g->shape. */
void rec_shape(struct gen *g);
/* The two message blobs of a process's first request. */
void rec_blobs(struct gen *g);
/* One request to the model: a fresh one after a restart, else a delta on
 * the last (g->req). */
void rec_api_request(struct gen *g);

#endif

/*
 * chain: the rows of the conversation chain, but for tool results.
 *
 * Each row names its parent (%p, the newest row: g->parent) and becomes
 * the new g->parent, so the rows written one after the other form the
 * chain; rec_prompt() alone takes its parent, which a rewind sets to the
 * end of an earlier turn. The user side: prompts, attachments (the
 * preamble's, the date, prompt snapshots, a file re-read after a
 * compaction), rows of plain text. The assistant side: one API response
 * (struct response) split one content block per row, thinking or text
 * here, tool_use in tools.c, between asst_open() and asst_close().
 *
 * Pointers passed in are borrowed for the call. Thread-safety: none.
 */
#ifndef GENLOG_CHAIN_H
#define GENLOG_CHAIN_H

#include "gen.h"

/* Make uuid the newest row of the chain. */
void set_parent(struct gen *g, const char *uuid);

/* A user prompt (g->prompt) under parent; sets g->prompt_uuid, g->prompt_id. */
void rec_prompt(struct gen *g, const char *parent);
/* An attachment of the preamble (preamble.h). */
void rec_att(struct gen *g, enum att a);
/* Today's date, from the clock. */
void rec_att_date(struct gen *g);
/* The record of a request: system prompt, and with_tools the tool list. */
void rec_att_snapshot(struct gen *g, bool with_tools);
/* A file re-read after a compaction; rendered as the call and its result. */
void rec_att_file(struct gen *g, const struct pool_file *f);
/* A user row of raw text; flags ("\"isMeta\":true," or "") go before the uuid. */
void rec_user_text(struct gen *g, const struct buf *text, const char *flags);

/* Start one API response; tool_use: it stops to call tools. */
void resp_init(struct gen *g, struct response *rs, bool tool_use);
/* An assistant row is asst_open(), one content block, asst_close(); r is
 * rec_begin()'s. */
void asst_open(struct gen *g, const struct response *rs);
void asst_close(struct gen *g, uint64_t r, struct response *rs, bool tool_use);
/* A thinking block / text of about size bytes, each a row of its own. */
void rec_thinking(struct gen *g, struct response *rs);
void rec_text(struct gen *g, struct response *rs, size_t size);

#endif

/*
 * transcript: one branch as one readable Markdown file
 * (transcripts/<branch>.md).
 *
 * Under the title, the session's tokens and cost. The branch's rows in
 * display order, grouped in turns: a turn starts at each prompt the user
 * typed ("## Turn N · time · usage · cost", the usage of the turn's
 * responses, each once, usage.h). In a turn: the prompt and the
 * replies as written; thinking, quoted; each tool call with its input, a
 * Bash call as its command in a shell block, another tool's input as one
 * line per field (a long or multi-line value in a block of its own), and
 * the call's result in a block; attachments the model gets, quoted; a
 * compaction as a heading of its own with its summary. A row the model
 * never gets (an attachment with no text for it, such as prompt_snapshot;
 * a bookkeeping system row; a row the loader drops) is one line: its kind
 * and line number.
 *
 * A row the harness writes by itself (harness.h) is one line too: its
 * kind, its line and its file in harness/. A branch that leaves another
 * starts where it leaves it, with a link to the other's transcript, so a
 * grep over transcripts/ meets each row once. Code blocks are fenced with
 * more backticks than the text holds.
 *
 * Thread-safety: reads the session as its readers do (session.h).
 */
#ifndef SESSFS_TRANSCRIPT_H
#define SESSFS_TRANSCRIPT_H

#include <stdint.h>

#include "session.h"

/* Appends the transcript of branch b of s, with head (a line, no
 * newline: the session's totals, the same for every branch) under its
 * title; NULL: this log's totals. A branch that leaves branch parent
 * (a name) after its row from (0: none) starts there, with a line that
 * links parent's transcript for the rows before; its turns are numbered
 * as parent's are. 0, -ENOENT (no such branch), -ENOMEM or a read error. */
int tx_render(struct session *s, uint32_t b, const char *head, uint32_t from,
	      const char *parent, struct sbuf *out);
/* The same in pieces (sbuf.h: a sink; NULL: all in out): out never holds
 * much more than SB_PIECE bytes and a row, whatever the branch's length;
 * what is left in out at the end is the caller's to hand over. A sink's
 * error ends the rendering and is returned. */
int tx_render_to(struct session *s, uint32_t b, const char *head, uint32_t from,
		 const char *parent, struct sbuf *out, const struct sb_sink *sink);

#endif

/*
 * usagedir: usage.json, transcripts/ and the usage of message files, over
 * core's report.h and transcript.h.
 *
 *   usage.json               the session's token usage (report.h): in the
 *                            mount's root with its subagents counted in,
 *                            in an agent's folder its own
 *   transcripts/<branch>.md  each branch as one Markdown file (transcript.h)
 *   transcripts/current.md   the current branch's file, under a second
 *                            name (the same inode, like a hard link)
 *   a message file's header  "usage: ..." on a row that records usage
 *                            (tokens, model, price), and the extended
 *                            attributes below
 *   README.md, transcripts   the line "tokens ... · $..." (ud_tokens_line())
 *   errors.txt               the models the price table lacks
 *
 * Inodes are local to a view (tree.h TR_LOCAL); a transcript is TK_TX
 * keyed by its branch's first own record. Callers hold the tree's read
 * lock (tree.h); the functions only read.
 */
#ifndef SESSFS_USAGEDIR_H
#define SESSFS_USAGEDIR_H

#include <stdint.h>

#include "sbuf.h"
#include "tree_priv.h"

/* usage.json of view v (the root's counts the other views as agents). */
int ud_usage_json(struct tree *t, struct view *v, struct sbuf *out);
/* "tokens 1,240 in · 35 out · 0 cache write · 0 cache read · $0.0123":
 * the totals of usage.json's "session" (nothing appended on ENOMEM). */
void ud_tokens_line(struct tree *t, struct view *v, struct sbuf *out);
/* errors.txt's lines about v's log: each model the price table lacks,
 * once (usage.h: us_unpriced_text()). */
void ud_errors_text(struct view *v, struct sbuf *out);

/* transcripts/: entries (current.md first, then one per branch), name
 * (NM_MAX + 1 bytes) and local inode of entry i; -ENOENT past the end. */
uint32_t ud_tx_count(struct view *v);
int ud_tx_entry(struct view *v, uint32_t i, char *name, uint64_t *lino);
/* The local inode of name in transcripts/, or 0. */
uint64_t ud_tx_lookup(struct view *v, const char *name);
/* Whether a TK_TX inode names a branch now. */
int ud_tx_exists(struct view *v, uint64_t lino);
/* A transcript's text (sink: in pieces, as tx_render_to(); NULL: all in
 * out). */
int ud_tx_render(struct tree *t, struct view *v, uint64_t lino, struct sbuf *out,
		 const struct sb_sink *sink);

/* Appends the "usage: ..." header line of record id, if it has usage,
 * from line when it holds the record's whole line; else line holds the
 * line after, when it had to be read (us_read_row_line()), for the
 * renderer to read it no second time. */
void ud_header(struct view *v, uint32_t id, struct sbuf *line, struct sbuf *out);
/* The usage attributes of record id: value of name, or the names:
 * user.sessfs.usage ("input=N output=N cache_creation=N cache_read=N
 * cost_usd=D [cost_usd_logged=D] model=NAME", the model last: it may
 * hold spaces), .input, .output, .cache_creation, .cache_read, .cost_usd. */
int ud_getxattr(struct view *v, uint32_t id, const char *name, struct sbuf *out);
void ud_listxattr(struct view *v, uint32_t id, struct sbuf *out);

#endif

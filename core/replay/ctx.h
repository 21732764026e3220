/*
 * ctx: the context window a resume sends, rebuilt from the resumed chain.
 *
 * Phases 3 and 4 of the replay (session-format.md §7 and §13 rules 9-23,
 * as the verified Python prototype context.py applies them; ctx gives the
 * same messages, byte for byte, and the same notes). Input is the chain of
 * resume.h: the window is its rows from the last compact boundary on
 * (rule 9). Only those rows are read back and parsed; of the rest of the
 * log ctx reads index data, plus the few metadata records the rendering
 * needs (content-replacement, rule 20; the newest api-request with an
 * effort, rule 23) and the last boundary's preserved list (for the notes).
 *
 * Phase 3, cleanup: rows that are never sent are left out (boundaries,
 * system rows, retracted rows, broken or UI-only attachments, attachments
 * without rendered text), text blocks that are not strings go, blank and
 * orphan-thinking assistant rows go (rule 11), each response with tool
 * calls left unanswered gets one synthetic is_error tool_result row (rule
 * 12), and an unanswered user turn gets a synthetic assistant "No response
 * requested." (rule 14).
 *
 * Phase 4, rendering: attachments are hoisted before the prompt they
 * belong to (rule 15), rows become messages (user rows join, with the
 * "\n" seam; rows of one response merge; system-role attachments gather
 * into one role:"system" message per turn; tool results may be replaced
 * and task notifications framed), and effort markers are added (rule 23).
 *
 * The result is the `messages` array of the resume's first request, up to
 * (not including) its new prompt; the window's rows, each with the message
 * it went into; what was left out and why, and what was repaired (for
 * window.md); and the attach point: the record the resume appends after.
 *
 * Whitespace ("blank" text, rules 11 and 19; the rule-14 prefix test) is
 * what JavaScript's trim() removes, as in Claude Code.
 *
 * Thread-safety: ctx_build() only reads the graph, the chain and the log
 * (pread), so it may run beside other readers of them. A ctx is immutable
 * afterwards: every accessor only reads it, so several threads may share
 * one. It owns everything it returns (nothing points into the graph, the
 * chain or the log), so it outlives them; the ids it hands out are ids of
 * the index it was built from.
 */
#ifndef SESSFS_CTX_H
#define SESSFS_CTX_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "cache.h"
#include "graph.h"
#include "logf.h"
#include "resume.h"
#include "sbuf.h"

/* The token estimate: bytes of the compact JSON of the messages, divided
 * by this and rounded up (a rough rule for English text and code). */
#define CTX_BYTES_PER_TOKEN 4

/* What a row of the window is. */
enum ctx_synth {
	CTX_S_LOG,		/* a record of the log */
	CTX_S_INTERRUPTED,	/* rule 12: is_error tool_result for unanswered calls */
	CTX_S_NO_RESPONSE,	/* rule 14: assistant "No response requested." */
};

/* One row of the window, in window order: chain order from the window's
 * first row (the boundary, when there is one), each synthetic row where
 * the resume puts it (rule 12: after its response's block; rule 14: at the
 * end). The sent rows, synthetic ones included, are numbered 1, 2, ... in
 * that order (context/000001-summary.md ...). Hoisting (rule 15) changes
 * the order of messages, not of rows: msg tells where a row went. */
struct ctx_row {
	uint32_t id;		/* the record's id; 0 for a synthetic row */
	uint32_t seq;		/* 1-based number among the sent rows, 0 if not sent */
	int32_t msg;		/* index of the (first) message it went into; -1
				 * when not sent */
	uint8_t type;		/* enum idx_type: USER, ASSISTANT, ATTACHMENT, SYSTEM */
	uint8_t synth;		/* enum ctx_synth; synthetic rows are always sent */
	uint8_t sent;
	const char *why;	/* not sent: the reason (as window.md says it) */
};

enum ctx_note_kind {
	CTX_N_LEFT_OUT = 1,	/* a row of the log that is not sent */
	CTX_N_INFO,		/* a row that is sent but was moved or relinked */
};

/* A row of the log left out, or moved, and why. Sorted by line. */
struct ctx_note {
	uint32_t line;		/* 1-based line of the record */
	uint32_t id;		/* its id (0 when it has none) */
	uint8_t kind;		/* enum ctx_note_kind */
	const char *text;
};

/* Where the window starts. */
struct ctx_window {
	uint32_t start;		/* first row of the window (0: empty chain) */
	uint32_t boundary;	/* that row when it is a compact boundary, else 0 */
	uint32_t dpos;		/* its display position on its branch (gr_dpos) */
	uint32_t before;	/* records of the chain before the window */
	uint32_t before_msgs;	/* ... of which user/assistant rows */
	uint32_t summarised;	/* records the last compaction deleted (rule 5) */
};

struct ctx;

/*
 * Builds the context of chain c (rs_build() on g and lf). Returns 0 and a
 * new ctx in *out (free with ctx_free()), or -ENOMEM. An empty chain (no
 * leaf, or an explicit rewind to nothing) gives an empty context. Rows
 * that cannot be read back are left out with a reason, not an error.
 */
int ctx_build(const struct graph *g, const struct rs_chain *c,
	      const struct logf *lf, struct ctx **out);
void ctx_free(struct ctx *x);
/*
 * The context of chain c after the log grew (ids keep their meaning), built
 * on old, the context of the log before (ctx_grow.c says how): what cannot
 * have changed is kept, so a growth of k records costs about k records'
 * work (and the rows since the window's last cut), not the log's. The
 * result is what ctx_build() gives, byte for byte. old is consumed (freed)
 * whatever happens. Returns 0 and a new ctx in *out, -EAGAIN when old
 * cannot be built on (the chain changed before its end, a record named
 * before appeared, a content-replacement came: build anew with
 * ctx_build()), or -ENOMEM.
 */
int ctx_grow(struct ctx *old, const struct graph *g, const struct rs_chain *c,
	     const struct logf *lf, struct ctx **out);

/* How a ctx was made: for tests and figures. */
enum ctx_origin {
	CTX_BUILT,		/* ctx_build() */
	CTX_GROWN_WINDOW,	/* ctx_grow(): the old notes kept, the window rendered */
	CTX_GROWN_CUT,		/* ctx_grow(): only the rows after the cut rendered */
};
enum ctx_origin ctx_origin(const struct ctx *x);
/* Rows of the window read back and rendered to make x (all of them for
 * a build; those after the cut for a growth at it). */
uint32_t ctx_rendered(const struct ctx *x);

/* ---- the messages ---- */

/* The messages are kept as the text of messages.json (a fraction of a
 * JSON tree's size), not as a tree. */
uint32_t ctx_nmessages(const struct ctx *x);
/* Appends the messages as JSON, 2-space indent, ending with a newline. */
void ctx_messages_json(const struct ctx *x, struct sbuf *out);
/* The same text as a blob, with a reference for the caller (the ctx keeps
 * its own): no copy. */
struct blob *ctx_messages_blob(const struct ctx *x);
/* Appends message i alone, in the same format. */
void ctx_message_json(const struct ctx *x, uint32_t i, struct sbuf *out);
/* Estimated tokens of the messages (see CTX_BYTES_PER_TOKEN). */
uint64_t ctx_tokens(const struct ctx *x);
/* Bytes of the compact JSON the estimate is made from. */
uint64_t ctx_bytes(const struct ctx *x);

/* ---- the rows of the window ---- */

uint32_t ctx_nrows(const struct ctx *x);
/* Borrowed, valid until ctx_free(); i < ctx_nrows(). */
const struct ctx_row *ctx_row(const struct ctx *x, uint32_t i);

/* The sent rows (synthetic ones included), numbered 1..ctx_nsent(). */
uint32_t ctx_nsent(const struct ctx *x);
/* The row sent as number seq; NULL when there is none. Borrowed. */
const struct ctx_row *ctx_sent_row(const struct ctx *x, uint32_t seq);

/* ---- window.md ---- */

const struct ctx_window *ctx_window(const struct ctx *x);
/* The record a resume appends after (rule 8 with rule 12): for a repaired
 * call the row holding its first unanswered call, else the last row of
 * the chain. 0 for an empty chain. */
uint32_t ctx_attach(const struct ctx *x);
uint32_t ctx_nnotes(const struct ctx *x);
/* Borrowed, valid until ctx_free(); i < ctx_nnotes(). */
const struct ctx_note *ctx_note(const struct ctx *x, uint32_t i);
/* The repairs, in the order they were made; borrowed strings. */
uint32_t ctx_nrepairs(const struct ctx *x);
const char *ctx_repair(const struct ctx *x, uint32_t i);
/* Counts of metadata records by type (never sent): borrowed arrays of
 * n type atoms (idx_atom()) and counts, in order of first appearance. */
uint32_t ctx_meta_types(const struct ctx *x, const uint16_t **atoms,
			const uint32_t **counts);
/* Appends the whole window.md text, UTF-8 (what comes from the log, a
 * uuid, a type, a note's values, is made one line of UTF-8 as
 * sb_add_line() does; so are the notes, repairs and reasons above). g is
 * the graph ctx was built from (for uuid strings). */
void ctx_window_md(const struct ctx *x, const struct graph *g, struct sbuf *out);

#endif

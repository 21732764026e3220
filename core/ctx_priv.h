/*
 * ctx_priv: what the four files of the ctx module share. Not part of the
 * API (ctx.h is); included only by ctx.c (the build, the notes, the
 * accessors, window.md), ctx_clean.c (phase 3), ctx_render.c (phase 4)
 * and ctx_json.c (JSON helpers, the messages.json writer).
 */
#ifndef SESSFS_CTX_PRIV_H
#define SESSFS_CTX_PRIV_H

#include <stdint.h>
#include <uthash.h>

#include "cache.h"
#include "ctx.h"
#include "idx.h"

/* Rule 12: the text of a synthetic tool result (is_error: true). */
#define CTX_INTERRUPTED_TEXT                                                   \
	"[Tool call interrupted: the session ended before this call's result " \
	"was recorded, so its outcome is unknown. Check whether it took "      \
	"effect before relying on it or running it again.]"
/* Rule 14: the text of the synthetic assistant row. */
#define CTX_NO_RESPONSE_TEXT "No response requested."

/* One row of the window while it is being cleaned and rendered. */
struct ctx_wrow {
	uint32_t id;		/* 0 for a synthetic row */
	uint32_t line;
	uint8_t type;		/* enum idx_type */
	uint8_t synth;		/* enum ctx_synth */
	uint8_t sent;
	cJSON *rec;		/* the parsed record, owned; NULL if unreadable */
	const char *msgid;	/* assistant: message.id (in rec, or fresh) */
	char fresh[32];		/* §7 step 4: an id made for an id-less row */
	uint32_t why;		/* not sent: 1 + offset of the reason in the pool */
	int32_t msg;		/* message it went into, -1 */
};

/* Rule 20: a tool result's replacement, by tool_use id. */
struct ctx_repl {
	UT_hash_handle hh;
	char *key;
	cJSON *val;
};

/* A note while it is built: its text is static (text), or an offset in
 * the pool (off). */
struct ctx_nrec {
	uint32_t line, id, off, seq;
	uint8_t kind;
	const char *text;
};

struct ctx {
	cJSON *messages;	/* while it is built; NULL once frozen */
	struct blob *mtext;	/* then: messages.json, as it is served */
	size_t *mspan;		/* message i is mtext[mspan[2i], mspan[2i+1]) */
	uint32_t nmessages;
	struct ctx_row *rows;
	uint32_t nrows;
	uint32_t *sent;		/* row index of sent row seq, at [seq - 1] */
	uint32_t nsent;
	struct ctx_nrec *nrec;	/* notes as built; freed once published */
	struct ctx_note *notes;	/* ... and as handed out */
	uint32_t nnotes, capnotes;
	uint32_t *repair_off;
	const char **repairs;
	uint32_t nrepairs, caprepairs;
	struct sbuf pool;	/* every text of notes, reasons, repairs */
	struct ctx_window win;
	uint32_t attach;
	uint64_t bytes, tokens;
	uint16_t *meta_atoms;
	uint32_t *meta_counts;
	uint32_t nmeta, capmeta;
};

/* The state of one ctx_build(). */
struct ctx_work {
	const struct graph *g;
	const struct idx *ix;
	const struct logf *lf;
	const struct rs_chain *c;
	struct ctx *x;
	struct ctx_wrow **rows;	/* window order, synthetic rows included */
	uint32_t nrows, caprows;
	struct ctx_repl *repl;
	cJSON *tail_effort;	/* newest api-request's effort, owned */
	uint32_t holder;	/* rule 8: holder of the first unanswered call */
};

/* ---- ctx.c ---- */

/* Adds a note on a row of the log (printf-style text). 0 or -ENOMEM. */
int ctx_note_add(struct ctx *x, uint32_t line, uint32_t id, uint8_t kind,
		 const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Adds a note whose text is a static string (not copied). */
int ctx_note_static(struct ctx *x, uint32_t line, uint32_t id, uint8_t kind,
		    const char *text);
/* Adds a repair. 0 or -ENOMEM. */
int ctx_repair_add(struct ctx *x, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Marks a row not sent, with the reason, and notes it. 0 or -ENOMEM. */
int ctx_leave_out(struct ctx_work *w, struct ctx_wrow *r, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Inserts r at index at of w->rows (at == nrows appends). 0 or -ENOMEM. */
int ctx_rows_insert(struct ctx_work *w, uint32_t at, struct ctx_wrow *r);

/* ---- small JSON helpers (ctx_json.c) ---- */

const cJSON *ctx_jget(const cJSON *o, const char *key);
/* The string value of o[key], or NULL. */
const char *ctx_jstr(const cJSON *o, const char *key);
/* message.content of a user/assistant record (NULL if none). */
cJSON *ctx_content(const struct ctx_wrow *r);
/* JavaScript truthiness of a JSON value (NULL is undefined). */
int ctx_truthy(const cJSON *v);
/* s past its leading whitespace (what JavaScript's trim() removes:
 * WhiteSpace and LineTerminator, U+FEFF included). */
const char *ctx_skip_blank(const char *s);
/* True when s holds only such whitespace. */
int ctx_blank(const char *s);
/* True for a {"type":"text","text":<blank string>} block. */
int ctx_blank_text_block(const cJSON *b);
/* The string of b["type"] equals t. */
int ctx_is_block(const cJSON *b, const char *t);
/* A new {"type":"text","text":s} block, or NULL. */
cJSON *ctx_text_block(const char *s);
/* Appends v as JSON: indent < 0 compact, else pretty with 2-space steps
 * starting at depth indent. */
void ctx_json_write(const cJSON *v, int indent, struct sbuf *out);

/* ---- rows sent as user text that are not user rows (ctx_render.c) ---- */

/* Rule 24: a system row of subtype local_command (a local command's
 * output, /cost, /context, /clear ...): sent as a user row. */
int ctx_is_local_command(const struct ctx_wrow *r);
/* Rule 27: a queued_command attachment a person typed while a tool ran
 * (origin.kind "human", or humanTurn): sent as a plain text block of the
 * user message it joins, with no <system-reminder> frame. */
int ctx_is_human_queued(const struct ctx_wrow *r);
/* Rule 28: the max_turns_reached attachment that ends a turn stopped by
 * --max-turns. */
int ctx_is_max_turns(const struct ctx_wrow *r);
/* The user content such a row sends, as the row would: a new string or
 * block list owned by the caller; NULL when it has none or on ENOMEM. */
cJSON *ctx_text_row_content(const struct ctx_wrow *r);

/* ---- phases ---- */

/* ctx_clean.c: reads the window's rows back and cleans them (phase 3). */
int ctx_load_window(struct ctx_work *w);
int ctx_clean(struct ctx_work *w);
/* ctx_render.c: renders the sent rows into x->messages (phase 4). */
int ctx_render(struct ctx_work *w);

#endif

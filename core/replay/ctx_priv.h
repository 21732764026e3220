/*
 * ctx_priv: what the files of the ctx module share. Not part of the API
 * (ctx.h is). The files, each using only those listed before it:
 *   ctx_json.c    JSON helpers, the messages.json writer
 *   ctx_work.c    the pool of texts, notes, repairs, the window's rows,
 *                 sets of hashed strings
 *   ctx_rows.c    rows sent as user text that are not user rows
 *   ctx_clean.c   phase 3 (rules 9-14)
 *   ctx_render.c  phase 4 (rules 15-23, 27, 33, 34)
 *   ctx_build.c   the build, the notes, what a build keeps for a growth
 *   ctx.c         the accessors and window.md
 *   ctx_grow.c    a context built on the one before
 */
#ifndef SESSFS_CTX_PRIV_H
#define SESSFS_CTX_PRIV_H

#include <stdint.h>
#include <uthash.h>

#include "cache.h"
#include "ctx.h"
#include "idx.h"
#include "jtree.h"	/* jt_dup(): a copy of a row's tree */

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
	cJSON *m;		/* its "message" member (in rec), or NULL */
	const char *msgid;	/* assistant: message.id (in rec, or fresh) */
	char fresh[32];		/* §7 step 4: an id made for an id-less row */
	uint32_t why;		/* not sent: 1 + offset of the reason in the pool */
	int32_t msg;		/* message it went into, -1 */
	uint32_t kcum;		/* §7 step 4: sent rows counted up to this one */
	uint32_t pos;		/* index in the window's rows, once cleaned */
	uint8_t unanswered;	/* rule 12: holds a call no row answers */
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
	uint8_t phase;		/* enum ctx_phase: the pass that made it */
	const char *text;
};

/* The passes that make notes, in the order a build makes them: the notes
 * of one line are in this order (then in the order made). */
enum ctx_phase {
	CTX_P_RECORDS,		/* progress, uuid-less and dropped records */
	CTX_P_DUPLICATE,	/* the graph's duplicate uuids */
	CTX_P_REPARENT,		/* nodes re-parented past bridged rows */
	CTX_P_CHAIN,		/* the chain's own notes (rs_note) */
	CTX_P_OFF_CHAIN,	/* nodes not on the chain */
	CTX_P_WINDOW,		/* rows of the window (phases 3 and 4) */
};

/* A set of strings by their 64-bit hashes (FNV-1a), sorted once full; a
 * NULL string is kept as a flag. Hashes may collide: a set answers "maybe
 * in it", which is what a growth needs to fall back safely. */
struct ctx_hset {
	uint64_t *v;
	uint32_t n, cap;
	int has_null;
};

/*
 * The cut (ctx_grow.c): rows [0, row) of the window are a prefix whose
 * rendering rows appended after it cannot change, as far as the build
 * that found it can tell; what a growth needs to render only the rest.
 */
struct ctx_cut {
	uint32_t row;		/* rows before the cut; 0: none */
	uint32_t nsent;		/* sent rows among them */
	uint32_t nmsg;		/* messages they went into (markers included) */
	uint32_t kfresh;	/* §7 step 4's count after them */
	uint32_t nrrep;		/* repairs phase 4 made on them */
	size_t text_end;	/* messages.json bytes up to their last message */
	uint64_t bytes;		/* measure() of those bytes */
	int open;		/* their effort levels come from after the cut */
	cJSON *beyond;		/* ... and were this (owned; NULL is None) */
	cJSON *emitted;		/* the last effort marker before the cut (owned) */
	struct ctx_hset msgids;	/* message.ids of their assistant rows */
	struct ctx_hset results;	/* tool_use_ids their results answer */
};

/* What a ctx was built from, for ctx_grow() to build on. */
struct ctx_base {
	uint32_t *chain, nchain;	/* the chain's ids */
	uint32_t window, boundary, deleted;
	int cleared, relinked, side;
	uint32_t nrecs, nids, lastline;	/* of the index then */
	uint32_t nnodes;		/* of the graph then */
	struct gr_err *errs;		/* the graph's problems then */
	uint32_t nerrs;
	uint8_t *phase;			/* of each note, in notes order */
	uint32_t nclean;		/* repairs phase 3 made (the first ones) */
	cJSON *tail_effort;		/* rule 23 (owned) */
	struct ctx_repl *repl;		/* rule 20 (owned) */
	struct ctx_cut cut;
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
	uint8_t phase_now;	/* of the notes being made (enum ctx_phase) */
	uint8_t origin;		/* enum ctx_origin */
	uint32_t rendered;	/* rows rendered to make it */
	struct ctx_base *base;	/* for ctx_grow(); NULL if none */
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
	int older;		/* the log's release resumes as before 2.1 (rule 32) */
	/* Where the rows start (ctx_grow.c: after a cut; all 0 for a build). */
	uint32_t skip;		/* rows of the window before them (not loaded) */
	uint32_t kstart;	/* §7 step 4 counts from this */
	const cJSON *emitted0;	/* the effort marker emitted before them */
	uint32_t nclean;	/* repairs made by phase 3 */
	int retracts;		/* a row retracts others: no cut */
	/* The latest cut found while rendering (see struct ctx_cut). */
	struct ctx_wrow *cut_row;	/* the last row before it, or NULL */
	int32_t cut_msg;		/* its message (before the markers) */
	uint32_t cut_nrrep, cut_nres, cut_nmsg;
	int cut_null, cut_open;
	const cJSON *cut_emitted, *cut_beyond;
	const cJSON *lv0;		/* the effort level of the first message */
	struct ctx_hset res;		/* tool_use_ids answered, in render order */
	uint8_t *phase;			/* a growth's notes' phases (owned) */
};

/* ---- ctx_work.c ---- */

/* Adds a note on a row of the log (printf-style text). 0 or -ENOMEM. */
int ctx_note_add(struct ctx *x, uint32_t line, uint32_t id, uint8_t kind,
		 const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Adds a note whose text is a static string (not copied). */
int ctx_note_static(struct ctx *x, uint32_t line, uint32_t id, uint8_t kind,
		    const char *text);
/* Adds a repair whose text is at offset off of the pool. 0 or -ENOMEM. */
int ctx_repair_push(struct ctx *x, uint32_t off);
/* Adds a repair. 0 or -ENOMEM. */
int ctx_repair_add(struct ctx *x, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Marks a row not sent, with the reason, and notes it. 0 or -ENOMEM. */
int ctx_leave_out(struct ctx_work *w, struct ctx_wrow *r, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Inserts r at index at of w->rows (at == nrows appends). 0 or -ENOMEM. */
int ctx_rows_insert(struct ctx_work *w, uint32_t at, struct ctx_wrow *r);

/* Adds s (NULL: the flag). 0 or -ENOMEM. */
int ctx_hset_add(struct ctx_hset *h, const char *s);
void ctx_hset_free(struct ctx_hset *h);
/* Whether h may hold s (sorts h once it is full). */
int ctx_hset_has(const struct ctx_hset *h, const char *s);
/* Adds the first n of from to to. 0 or -ENOMEM. */
int ctx_hset_join(struct ctx_hset *to, const struct ctx_hset *from, uint32_t n);

/* ---- small JSON helpers (ctx_json.c) ---- */

/* A copy of v (NULL for NULL); *ok cleared when the copy fails. */
cJSON *ctx_dup_or_null(const cJSON *v, int *ok);
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

/* ---- rows sent as user text that are not user rows (ctx_rows.c) ---- */

/* Rule 22: the wrapper of system-role texts. */
#define REMINDER_OPEN "<system-reminder>\n"
#define REMINDER_CLOSE "\n</system-reminder>"
/* The n bytes of text t without its <system-reminder> wrapper, when it has
 * one (*n is set). */
const char *ctx_unwrap(const char *t, size_t *n);

/* Rule 24: a system row of subtype local_command (a local command's
 * output, /cost, /context, /clear ...): sent as a user row. */
int ctx_is_local_command(const struct ctx_wrow *r);
/* Rule 27: a queued_command attachment a person typed while a tool ran
 * (origin.kind "human", humanTurn, or hostsOwnTurn): sent as its rendered
 * text without the <system-reminder> wrapper, joining the user message. */
int ctx_is_human_queued(const struct ctx_wrow *r);
/* Rule 28: the max_turns_reached attachment that ends a turn stopped by
 * --max-turns. */
int ctx_is_max_turns(const struct ctx_wrow *r);
/* The user content such a row sends, as the row would: a new string or
 * block list owned by the caller; NULL when it has none or on ENOMEM. */
cJSON *ctx_text_row_content(const struct ctx_wrow *r);

/* ---- ctx_build.c, for ctx_grow.c ---- */

/* No cut: the whole window is rendered ("[" and no message before). */
extern const struct ctx_cut ctx_no_cut;

/* After a build or a growth: x->base from w (the chain, the cut ...).
 * 0 or -ENOMEM (x keeps no base then: it cannot grow). */
int ctx_base_make(struct ctx_work *w, const struct ctx_cut *prev);

int ctx_count_meta(struct ctx *x, uint16_t atom);
int ctx_is_row_type(uint8_t t);
/* The notes of record i (phase CTX_P_RECORDS), of node id's parent
 * (CTX_P_REPARENT), of the chain (CTX_P_CHAIN), of node id off the
 * chain (CTX_P_OFF_CHAIN; keep as notes_chain() makes it, NULL when id
 * is after the last boundary). */
int ctx_notes_record(struct ctx_work *w, const struct idx_rec *r);
int ctx_notes_duplicate(struct ctx_work *w, const struct gr_err *e);
int ctx_notes_reparent(struct ctx_work *w, uint32_t id);
int ctx_notes_rs(struct ctx_work *w);
int ctx_notes_off_chain(struct ctx_work *w, uint32_t id, const uint8_t *keep);
void ctx_window_info(struct ctx_work *w);
/* Messages.json from text (taken: "[" and pmsg messages whose spans are
 * pspan) and the messages of x->messages after them. */
int ctx_freeze(struct ctx *x, struct sbuf *text, uint32_t pmsg, const size_t *pspan);
/* measure() of text [p, end): bytes of compact JSON. */
uint64_t ctx_measure(const char *p, const char *end);
/* Hands out notes (sorted unless sorted is set; unless x->notes is set
 * already), repairs and rows: old's rows before cut, then w's (old NULL:
 * w's only). */
int ctx_publish(struct ctx_work *w, int sorted, const struct ctx *old,
		const struct ctx_cut *cut);
void ctx_work_free(struct ctx_work *w);

/* ---- phases ---- */

/* ctx_clean.c: reads the window's rows back and cleans them (phase 3). */
int ctx_load_window(struct ctx_work *w);
int ctx_clean(struct ctx_work *w);
/* ctx_render.c: renders the sent rows into x->messages (phase 4). */
int ctx_render(struct ctx_work *w);

#endif

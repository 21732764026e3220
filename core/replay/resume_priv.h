/*
 * resume_priv: what rs_build() (resume.c) keeps beside a chain for
 * rs_grow() (resume_grow.c) to extend it, and one build's work, shared
 * with its rule 6 (resume_recover.c). Not for other modules.
 *
 * A few words per chain and a filter of 1.5 to 3 bytes per response
 * row and tool result, no per-id array: rs_grow() proves from these and
 * the graph that the rows appended leave the chain before its tail as it
 * was, and rebuilds only the tail.
 */
#ifndef SESSFS_RESUME_PRIV_H
#define SESSFS_RESUME_PRIV_H

#include <uthash.h>

#include "resume.h"

/* A growable list of ids; rsi_push() is 0 or -ENOMEM. */
struct ids {
	uint32_t *v;
	uint32_t n, cap;
};
int rsi_push(struct ids *l, uint32_t id);

/* One response (message.id) on the chain, and what answers it (rule 6),
 * and a call's response by the call's id. */
struct resp {
	UT_hash_handle hh;
	uint64_t msgid;
	struct ids rows, results;
};

struct useref {
	UT_hash_handle hh;
	uint64_t useid;
	struct resp *r;
};

/* A row by time then file position (rule 4), and their order. */
struct rs_ts {
	int64_t ts;
	uint32_t pos, id;
};
int rsi_cmp_ts(const void *a, const void *b);

/* One rs_build()'s work (resume.c), shared with rule 6 (resume_recover.c). */
struct rsi_work {
	const struct graph *g;
	const struct idx *ix;
	const struct logf *lf;
	struct rs_chain *c;
	uint32_t n;
	uint32_t *par;		/* the parent each row names, after relinking */
	uint8_t *del;		/* summarised away by the relinking */
	uint32_t *child, *sib;	/* children on par, in file order */
	uint32_t *seen, gen;	/* walk marks */
	uint32_t last_row, checkpoint;
	int cp_explicit, saw_leaf_key;
	uint16_t a_boundary, a_fork_briefing, a_file_snapshot;
	struct rs_ts *by_ts;	/* rows by time, for substitutes (lazy) */
	uint32_t nts;
	uint32_t capnotes;
};

/* Adds a note to the chain: 0 or -ENOMEM. */
int rsi_note(struct rsi_work *w, uint8_t code, uint32_t id, uint32_t aux,
	     uint32_t aux2);

static inline const struct idx_rec *rsi_rec(const struct rsi_work *w, uint32_t id)
{
	return gr_node_rec(w->g, id);
}

/* A row of the graph not summarised away by the relinking. */
static inline int rsi_exists(const struct rsi_work *w, uint32_t id)
{
	return gr_is_node(w->g, id) && !w->del[id];
}

/* Rule 6: the chain walked (its first nwalk ids) with what a resume
 * gathers back to each response, appended to out: 0 or -ENOMEM. */
int rsi_recover(struct rsi_work *w, const struct ids *chain, uint32_t nwalk,
		struct ids *out);

/* Kinds of key in the filter. */
enum rs_key { RS_K_MSG = 1, RS_K_CALL, RS_K_RES };

struct rs_more {
	uint32_t nrecs, nids, norder;	/* the index and graph built over */
	/* The file scan's state after its last record (rules 2, 3). */
	uint32_t last_row, checkpoint;
	uint8_t cp_explicit, saw_leaf_key;
	/* The leaf pick: the candidate, whether the checkpoint and lastRow
	 * were rows, and whether lastRow descends from the checkpoint. */
	uint32_t cand;
	uint8_t cp_ok, lr_ok, lr_desc;
	/* The tail: ids[tb..n - ntrail) is the last unit the walk emitted (a
	 * response's block, msgid tail; or one row, tail 0), ntrail the
	 * leaf's trailing rows after it. */
	uint32_t tb, ntrail;
	uint64_t tail;
	uint8_t attach_call;	/* attach is an unanswered call */
	uint8_t older;		/* built for a release before 2.1 (rule 32) */
	/* Rule 5: the anchor and the preserved list relinked (0, NULL). */
	uint32_t anchor, *list, nlist;
	/*
	 * A filter (no false negatives) of the keys of the main-side rows
	 * outside the tail response: response ids and call ids of assistant
	 * rows, and tool result ids. A key not in it is on no such row.
	 */
	uint64_t *bits;
	uint32_t nbits, nkeys;	/* nbits a power of two */
};

/* The file scan (rules 2, 3) over records [from, to), from state s
 * (resume_scan.c). */
struct rsi_scan {
	uint32_t last_row, checkpoint, boundary;
	int cp_explicit, saw_leaf_key, cleared;
	uint16_t a_fork_briefing, a_file_snapshot;	/* set by rsi_scan() */
};
void rsi_scan(const struct graph *g, struct rsi_scan *s, uint32_t from, uint32_t to);

#define RSI_BITS_PER_KEY 12	/* at least, when built (resume_filter.c) */
#define RSI_BITS_FULL 8		/* at most, when grown */
/* 0 when no row outside the tail response has key of kind. */
int rsi_filter_has(const struct rs_more *m, enum rs_key kind, uint64_t key);
/* Room for nkeys keys (the old filter dropped, the count reset). */
int rsi_filter_init(struct rs_more *m, uint32_t nkeys);
/* Adds the keys of main-side row id, unless it is an assistant row of
 * response tail (0: none); before rsi_filter_init(), counts them. */
void rsi_filter_row(struct rs_more *m, const struct graph *g, uint32_t id, uint64_t tail);

#endif

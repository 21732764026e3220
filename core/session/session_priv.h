/*
 * session_priv: the session's insides, shared by session.c (opening,
 * building), session_follow.c (following the log) and session_facts.c
 * (session.json, window.md, errors.txt). Not for other modules: they use
 * session.h.
 *
 * session_part.c follows a whole log's index into its parts.
 *
 * Locking as session.h says: the lazily built parts (context, usage,
 * state, forkedFrom, the signature) have their own mutexes; the rest
 * changes only in ss_refresh(), which the owner keeps readers out of.
 */
#ifndef SESSFS_SESSION_PRIV_H
#define SESSFS_SESSION_PRIV_H

#include <pthread.h>
#include <sys/stat.h>

#include "session.h"
#include "scrub.h"
#include "sig.h"

/* What session.json sums over the whole log, kept across growth and
 * extended over the records appended since (session_facts.c). */
struct ss_sums {
	uint32_t nrecs;		/* records summed: 0 .. nrecs - 1 */
	uint32_t nids;		/* idx_nids() then */
	int64_t lo, hi;		/* first and last timestamp (IDX_NO_TS: none) */
};

struct session {
	struct logf *lf;
	enum ss_mode mode;
	char *source;		/* absolute path of the log */
	int dirfd;		/* its folder, opened before anything is mounted */
	char *base;		/* its name in that folder */
	uint64_t bytes;		/* size of the log when last indexed */
	struct stat seen;	/* fstat of the log when last indexed */
	char tail[SS_TAIL];	/* the bytes just before idx_end() then */
	size_t ntail;
	struct stat bad;	/* a file at the path that would not open */
	int has_bad;
	int unreadable;		/* the log at its path cannot be read now
				 * (noted once; the file open is still read) */
	struct sbuf notes;	/* errors.txt notes: what made it start over */
	struct idx *ix;
	struct graph *g;
	struct br_set *br;
	struct rs_chain *chain;
	struct sc_set *sc;	/* inline sidechains (none in a part) */
	struct sm_set *sm;	/* summaries (none in a part) */
	char *part;		/* a part: the uuid of its sidechain's root */
	int current;
	pthread_mutex_t ctx_mu;	/* the context is built on first use */
	struct ctx *ctx;
	int ctx_rc;
	struct ctx *ctx_was;	/* the context before the log grew, to build on */
	pthread_mutex_t us_mu;	/* and the usage */
	struct us_set *us;
	int us_rc;
	pthread_mutex_t st_mu;	/* so is the state */
	struct st_state *st;
	int st_rc;
	struct st_was st_was;	/* what st was built from (its arrays owned) */
	char *fh_dir;		/* -o file_history, or NULL */
	pthread_mutex_t fork_mu;	/* forkedFrom is looked for on first use */
	int fork_known;			/* and again once the log has grown,
					   while not found whole */
	uint64_t fork_bytes;		/* s->bytes then */
	char *fork_sid, *fork_uuid;
	int fork_settled;		/* an own record follows fork_uuid */
	char *fork_facts;		/* the head facts it was found from */
	pthread_mutex_t sig_mu;	/* the signature of the bytes indexed, */
	struct sig sig;		/* extended by ss_sign() */
	struct scrub scrub;	/* and checked again by ss_scrub(): */
	struct stat scrub_st;	/* the log when the last pass began */
	int scrub_bad;		/* atomic: a pass found the bytes changed */
	uint32_t resets;	/* times indexed again from scratch */
	struct ss_grow_counts grow;	/* what growths extended, built anew */
	uint32_t nids_built;	/* idx_nids() the graph was built or grown to */
	/* A part (session_part.c): what of its whole it was built from. */
	uint32_t whole_resets;	/* the whole's resets then */
	uint32_t whole_recs;	/* the whole's records then (copied up to) */
	pthread_mutex_t sums_mu;	/* session.json's sums, extended on use; */
	struct ss_sums sums;		/* emptied when indexed anew */
};

/* Forgets the sums (the records are indexed anew). */
static inline void ss_sums_reset(struct session *s)
{
	s->sums = (struct ss_sums){ 0, 0, IDX_NO_TS, IDX_NO_TS };
}

/* A session not opened yet, for a log at path (a part when root is set:
 * it then reads the file lf has open, else path is opened). 0 and *out,
 * or -errno. */
int ss_new_session(const char *path, const struct logf *lf, enum ss_mode mode,
		   const char *root, struct session **out);
/* Indexes what the log holds past s->ix's end, and keeps the log's size,
 * times and the bytes before that end (to notice a rewrite). */
int ss_index_all(struct session *s);
/* Builds the graph and all after it from s->ix anew (the usage too). */
int ss_build_anew(struct session *s);
/* The same after s->ix grew: keeps what is still true (the state). */
int ss_build_grown(struct session *s);
/* Adds a note (a phrase) to errors.txt, with the time. */
void ss_note(struct session *s, const char *what);

#endif

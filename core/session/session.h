/*
 * session: one log and everything the replay core builds from it.
 *
 * Opens the log read-only, indexes it, and builds the graph, the branches
 * and the resumed chain. ss_refresh() indexes what was appended since and
 * rebuilds what depends on it, keeping the state when the new records
 * leave it so (st_still()) and the context to build the next one on
 * (ctx_grow(): the old notes and the messages before the window's cut are
 * kept).
 *
 * Thread-safety: a session is not locked internally, but for the lazily
 * built context (ss_context()) and state (ss_state()). Readers may share it; the owner must keep
 * them out while ss_refresh() runs (fs/ does this with a read-write lock).
 */
#ifndef SESSFS_SESSION_H
#define SESSFS_SESSION_H

#include <stdint.h>
#include <sys/stat.h>

#include "branch.h"
#include "ctx.h"
#include "graph.h"
#include "idx.h"
#include "logf.h"
#include "resume.h"
#include "sbuf.h"
#include "sidechain.h"
#include "sig.h"
#include "state.h"
#include "summary.h"
#include "usage.h"

struct session;

enum ss_mode {
	SS_COMPLETE,		/* the log is final: a torn last line is an error */
	SS_LIVE,		/* the log may grow: a torn last line waits */
};

/*
 * Opens and indexes path. Returns 0 and a new session in *out (free with
 * ss_close()), or -errno: the open's, -EISDIR/-EINVAL for what is not a
 * regular file, -ENOMSG for a file with no session record at all (an
 * empty file is taken, in both modes, as a session with nothing written
 * yet; in SS_LIVE mode so is one whose unfinished first line starts with
 * '{': it may be a log being written).
 */
int ss_open(const char *path, enum ss_mode mode, struct session **out);
/*
 * The same for the log name in the folder open as dirfd (a symbolic link
 * is refused: -ELOOP). The session keeps a descriptor of that folder of
 * its own: what takes the log's path later is looked for there (a rename
 * of the folder's path does not redirect it). source: the log's absolute
 * path, as session.json and README.md show it.
 */
int ss_open_at(int dirfd, const char *name, const char *source, enum ss_mode mode,
	       struct session **out);
void ss_close(struct session *s);
/*
 * Opens the inline sidechain conversation of whole's log whose root has
 * the uuid root (sidechain.h) as a session of its own: a "part". Its
 * graph, branches, chain and context hold only that conversation's rows;
 * the rest of the log is left out (its errors too: they are the whole
 * log's errors.txt). Its index is a copy of whole's records of the
 * conversation (idx_copy_some(): no second reading of the log, memory
 * for its own rows only), and it reads the file whole has open. whole is
 * only read (hold the lock that keeps ss_refresh() out). Returns 0 and a
 * new session in *out (free with ss_close(); whole may be closed first),
 * or -errno; a root the log does not hold gives an empty part.
 *
 * A part never looks at the log itself: ss_changed(), ss_rewritten(),
 * ss_sign() and ss_scrub() are 0 for it, ss_refresh() -EINVAL. It follows
 * its whole (ss_part_follow()), which does, so that the session and its
 * inline sidechains, views of one log, hold the same bytes of it and are
 * indexed again as one, when the whole is.
 */
int ss_open_part(const struct session *whole, const char *root, struct session **out);
/*
 * Brings part up to whole (the session it was opened from, which
 * ss_refresh() brought up to the log): SS_RESET when whole was indexed
 * again from scratch since (the part copies its rows anew, reads the file
 * whole reads now, and its errors.txt gets a note), SS_GREW when whole
 * indexed more (the part takes its new rows: its ids keep their meaning),
 * SS_SAME when whole is where the part is; -errno on error (the part
 * stays as it was). Hold what keeps readers of both out of ss_refresh().
 */
int ss_part_follow(struct session *part, const struct session *whole);
/* Whether ss_part_follow() has anything to do (cheap: readers may ask
 * under a shared lock). 0 for a session that is not a part. */
int ss_part_behind(const struct session *part, const struct session *whole);

#define SS_TAIL 32		/* bytes before the indexed end kept to notice a rewrite */
#define SS_SETTLE_MS 20		/* the longest look again at a log whose times
				 * moved and size did not (ss_refresh()) */

/* What ss_refresh() found. */
enum ss_change {
	SS_SAME = 0,		/* nothing new */
	SS_GREW = 1,		/* appended bytes, or a note: ids keep their meaning */
	SS_RESET = 2,		/* indexed again from scratch: ids mean other records */
};

/*
 * Whether the log looks changed since it was last indexed: another size or
 * mtime, or another file at its path. Cheap: a stat of the path, which
 * shows the open file itself while no other file took the path (an fstat
 * of the open file only then); only reads the session, so readers may
 * call it under a shared lock.
 */
int ss_changed(const struct session *s);
/*
 * Whether the bytes indexed may have changed, as far as the same looks
 * tell: the log shrank, another file took its path, or it kept its
 * size and not its times (rewritten in place, maybe: ss_refresh() looks).
 * Appending never does this. The same cost and locking as ss_changed(),
 * for a watcher that looks now and then while no request asks.
 */
int ss_rewritten(const struct session *s);

/*
 * Brings the session up to the log. Appended bytes are indexed (an
 * unfinished last line waits for its newline) and what depends on them is
 * rebuilt: SS_GREW. A log that shrank, whose indexed bytes changed, that
 * another file replaced at its path (the new file is opened), or whose
 * last line, taken whole without its newline, went on with other bytes
 * (idx_continued()) is indexed again from scratch, and errors.txt gets a
 * note saying so: SS_RESET. SS_SAME when nothing changed; -errno on
 * error.
 */
int ss_refresh(struct session *s);
/* For tests: called between the looks again of ss_refresh() at a log
 * whose times moved and size did not (NULL: none). Not thread-safe. */
extern void (*ss_settle_hook)(void);

/* How the growths since ss_open() made the graph, the branches, the
 * chain, the inline sidechains and the summaries: [0] extended
 * (gr_grow(), br_grow(), rs_grow(), sc_grow(), sm_grow()), [1] built
 * anew since the appended rows touch what no extension covers (all but
 * the graph counted only where the graph was extended). For the bench
 * and the tests. */
struct ss_grow_counts {
	uint32_t graph[2];
	uint32_t branches[2];
	uint32_t chain[2];
	uint32_t sidechains[2];
	uint32_t summaries[2];
};
void ss_grow_counts(const struct session *s, struct ss_grow_counts *out);

/*
 * The signature of the bytes indexed (sig.h): extends it over at most max
 * of the bytes indexed and not signed yet. 1 while some are left, 0 once
 * all are signed. Meant for a thread that works when nothing else does:
 * it reads what indexing read before (from the page cache, mostly), once.
 * Readers may call it under a shared lock (it has a lock of its own).
 *
 * ss_refresh() uses it when the log kept its size but not its times
 * (mtime, ctime): it hashes the bytes indexed again (a read of the log,
 * about 0.2 s per GB from the page cache) and compares. Equal: a touch,
 * nothing changes. Different: rewritten in place; and when not all bytes
 * were signed yet, it cannot tell: both are indexed again from scratch,
 * with a note in errors.txt. Appending never costs this. A rewrite while
 * the log also grows is seen where the old end was (SS_TAIL bytes), and
 * elsewhere by ss_scrub().
 */
int ss_sign(struct session *s, uint64_t max);

/*
 * The background check of the bytes signed (scrub.h): hashes at most max
 * of them again and compares, once all the bytes indexed are signed and
 * only when the log's size or times moved since the last pass began (a
 * log nobody writes costs nothing). Returns the bytes read. When a pass
 * finds them changed (a same-size rewrite in place followed by growth,
 * which the SS_TAIL bytes compared at growth miss), ss_changed() and
 * ss_rewritten() say so, and ss_refresh() indexes the log again from
 * scratch with a note in errors.txt. A rewrite is found by the pass that
 * begins after it, at the latest: within two passes (2 * indexed bytes /
 * max calls). Readers may call it under a shared lock (it takes the
 * signature's lock), as ss_sign().
 */
uint64_t ss_scrub(struct session *s, uint64_t max);

/*
 * What a session leaves of its signature when it is closed, to check its
 * log by when it is opened again (a cache of sessions, live.h lv_mark()):
 * the signature as far as signed, and the log as its bytes were last
 * found the same (when the last check began, or when it was indexed first).
 * ss_resume_signed() gives a new session of the same log (nothing read
 * from it yet but its index) both as its own: ss_sign() goes on from the
 * signature over the bytes now there, and when the log moved since it was
 * last found the same, the background check (ss_scrub()) begins a pass
 * that hashes the bytes signed again: rewritten while the session was
 * closed, they are found as in an open session (ss_changed(), ss_refresh()
 * indexes again with a note), also after closes and reopens that gave the
 * check no time. Bytes not signed before the close are not checked. Both
 * take the signature's lock. (ss_signed() before and after ss_sign() also
 * tells how many bytes it signed: a look's share counts them.)
 */
struct ss_signed {
	struct sig sig;
	struct stat checked;
};
void ss_signed(struct session *s, struct ss_signed *out);
void ss_resume_signed(struct session *s, const struct ss_signed *m);

/* Borrowed; valid until the next ss_refresh() or ss_close(). */
const struct idx *ss_idx(const struct session *s);
const struct graph *ss_graph(const struct session *s);
const struct br_set *ss_branches(const struct session *s);
const struct rs_chain *ss_chain(const struct session *s);
const struct logf *ss_logf(const struct session *s);
/* The log's absolute path (as found at ss_open()). */
const char *ss_source(const struct session *s);
/* The inline sidechains (sidechain.h; empty in a part) and the summaries
 * (summary.h; none in a part: NULL). */
const struct sc_set *ss_sidechains(const struct session *s);
const struct sm_set *ss_summaries(const struct session *s);
/* A part's root uuid, or NULL for a whole log. */
const char *ss_part(const struct session *s);
/* The session's title: the summary of its current branch (summary.h), or
 * NULL. Borrowed; valid until the next ss_refresh() or ss_close(). */
const char *ss_title(const struct session *s);

/* Index of the branch a resume continues, or -1. */
int ss_current_branch(const struct session *s);

/* Why ss_open() failed with rc, as a phrase for a message after the
 * path ("is a directory, not a session log"); static. */
const char *ss_open_error(int rc);

/*
 * The context window a resume sends (ctx.h), built on first use; NULL if
 * it could not be built (out of memory). Thread-safe; valid until the
 * next ss_refresh() or ss_close().
 */
const struct ctx *ss_context(struct session *s);

/*
 * The folder holding the session's file-history backups (state.h), used
 * instead of <log folder>/../../file-history/<sessionId>; NULL for the
 * default. Copied, made absolute against the current folder. Call before
 * the state is first built; 0 or -ENOMEM.
 */
int ss_set_file_history(struct session *s, const char *dir);

/*
 * The work state a resume restores (state.h), built on first use from the
 * resumed chain and the current branch; NULL if it could not be built
 * (out of memory). Thread-safe; valid until the next ss_refresh() or
 * ss_close().
 */
const struct st_state *ss_state(struct session *s);

/*
 * The usage rows of the log (usage.h), read on first use; NULL if they
 * could not be read. Thread-safe; valid until the next ss_refresh() or
 * ss_close().
 */
const struct us_set *ss_usage(struct session *s);
/* The same when read already (someone asked for the totals), else NULL;
 * never reads them. Borrowed like ss_usage(). */
const struct us_set *ss_usage_read(struct session *s);
/*
 * The last response on the current branch that the API answered (not a
 * "<synthetic>" row): its input + cache tokens are what the model last
 * saw, by Claude Code's own count. *out NULL when there is none (no
 * current branch, no usage). 0 or -ENOMEM. Borrowed like ss_usage().
 */
int ss_last_usage(struct session *s, const struct us_row **out);

/* The sessionId and cwd of the record session.json takes them from: new
 * strings in *sid and *cwd (free() them), NULL where there is none. */
void ss_env(const struct session *s, char **sid, char **cwd);

/* Appends the session's facts as one JSON object (session.json). Builds
 * the context if it is not built yet. contextTokens is ctx_tokens(): the
 * compact JSON of the messages in bytes / 4; contextTokensReal is the
 * input of the last response (ss_last_usage()), with its uuid in
 * contextTokensRealAt (both null without one). */
void ss_facts_json(struct session *s, struct sbuf *out);
/* Appends window.md: the context's (ctx_window_md()), then the dead ends
 * of the branches (br_dead()). Builds the context if it is not built. */
void ss_window_md(struct session *s, struct sbuf *out);
/* Appends one line per unusable line or record (errors.txt), then the
 * state's problems (building the state if it is not built yet). */
void ss_errors_text(const struct session *s, struct sbuf *out);
/* Appends what happened to the log while it was followed (deleted,
 * replaced, rewritten, unreadable at its path ...), one "- TIME: what"
 * line each, as errors.txt says them; nothing when nothing did. */
void ss_notes_text(const struct session *s, struct sbuf *out);
/* The notes as kept (appended to out), and notes so kept by another
 * session of the same log put before s's own: what a log went through is
 * said by the next session of it too (live.h: lv_mark). */
void ss_notes_copy(const struct session *s, struct sbuf *out);
void ss_notes_take(struct session *s, const char *kept, size_t n);
/* How many complete lines are not records. A last line without its
 * newline is not one of them, in either mode: see ss_unfinished(). */
uint32_t ss_bad_lines(const struct session *s);
/* Bytes after the last newline that are not a record: in SS_LIVE mode
 * what waits for its newline; in SS_COMPLETE mode a torn last line
 * (incomplete JSON). 0 when the log ends with a newline or a record. */
uint64_t ss_unfinished(const struct session *s);

#endif

/*
 * live: following the logs while Claude Code writes them, and telling the
 * kernel what to forget.
 *
 * How a change is noticed: every lookup, getattr of what can grow and
 * opendir calls lv_refresh() first, which compares a stat of the log's
 * path (and an fstat of the open log when the path shows another file)
 * with what was indexed (ss_changed(): one syscall as a rule, under the
 * shared lock). Only when they differ does it take the
 * write lock and index the new bytes. This works on every filesystem the
 * log may live on (inotify misses writes made over NFS or by another
 * host), needs no thread of its own, and is exact: the request that
 * follows a write sees it. The kernel keeps nothing that grows past the
 * moment it asks again: the FUSE layer gives such nodes no cache time.
 *
 * What the kernel keeps for long (message files and records, their names
 * in branch folders) changes only in rare cases; those are queued here
 * for the one thread of the FUSE layer that tells the kernel (lv_wait()):
 *   - a record replaced by a later duplicate of its uuid: its inodes;
 *   - a branch whose rows were reordered (a tool result written before the
 *     rest of its response): the names from the first row that moved;
 *   - a branch that is gone: its folder's name;
 *   - branches/current naming another branch: its name (kept for long
 *     only by a layer above, pjfs.h, which also forgets it on a close:
 *     lv_closing());
 *   - a Task call's result that names another agent now (a 1.0.x inline
 *     sidechain paired with it only as the log grew): its inode;
 *   - a log indexed again from scratch (it shrank, was rewritten, or
 *     another file took its path; see ss_refresh()): the view's epoch is
 *     bumped, so all its inodes are new (the folders under its root
 *     too), and the names of those folders are dropped from the kernel's
 *     cache. A request on an old inode that comes before the kernel took
 *     that (the very request that noticed the change, often) gets ESTALE,
 *     and the kernel walks its path again, asking for every name;
 *   - a log whose owner, group or mode changed (chmod, chown: the tree's
 *     permissions are the log's, tree.h): the same new epoch, without
 *     indexing again, and the folders that carry no epoch (the view's
 *     root, agents/, transcripts/) forgotten, so that no attribute the
 *     kernel kept gives more than the log does now.
 * The session and its inline sidechains (sidechain.h) are views of one
 * log. Only the session's view looks at the log (its size, times, path,
 * signature); a sidechain's view follows the session's (ss_part_follow()):
 * asked for, it first brings the session's view up to the log when the
 * log changed, then takes what the session's index holds. So they hold the
 * same bytes of the log, and a reset is one event for all of them: the
 * session's view and every sidechain's are indexed again together, under
 * one write lock, and take one new epoch. No view of the log ever
 * re-indexes another that already saw the same bytes.
 * The kernel asks nothing for what it keeps: a file read again from its
 * page cache, a stat of a message. So the thread of lv_wait() also watches
 * each log every LV_POLL_MS while no invalidation is queued, and brings a
 * view up to its log at once when its indexed bytes may have changed
 * (ss_rewritten(): it shrank, was replaced, or kept its size and not its
 * times): a reindex is told to the kernel within about a second, even
 * when nobody asks. Growth is left to the requests, except where the
 * kernel keeps names of a view's context/ (tree.c: tr_name_kept()): a
 * growth may give them to other rows, so it is indexed by the look and
 * the kernel told to forget context/. Each look also extends the
 * signature of what was indexed (ss_sign(), LV_SIGN_STEP bytes at most: a
 * 1 GB log is signed 16 s after it was mounted, in steps of 10-20 ms),
 * which tells a log rewritten in place from one only touched. Once every
 * log is signed, what is left of that share re-checks the signed bytes of
 * the logs that changed since their last check (ss_scrub(): 64 MB a look,
 * a pass over 1 GB in 16 s): a rewrite in place hidden by growth is found
 * within two passes and indexed again like any other.
 *
 * agents/ is a walk of folders, not a stat: it is made by the thread of
 * lv_wait(), never inside a request (the walk may lead into this very
 * mount, whose folders the request holds locked in the kernel). What
 * shows the agents found (agents/ listed, a name in it not found yet,
 * README.md and errors.txt of the session) waits for a fresh look
 * (lv_scan_now()); any other request asks for one at most once per
 * LV_SCAN_MS and does not wait.
 *
 * All functions are thread-safe.
 */
#ifndef SESSFS_LIVE_H
#define SESSFS_LIVE_H

#include <pthread.h>

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "names.h"
#include "session.h"
#include "vfs.h"

#define LV_SCAN_MS 1000		/* how often agents/ is looked at */
#define LV_POLL_MS 1000		/* how often a log's indexed bytes are watched */
#define LV_SIGN_STEP (64u << 20)	/* bytes signed at most per look */
#define LV_SCAN_WAIT_S 2	/* the longest wait for a look at agents/ */
#define LV_QUEUE_MAX 65536	/* invalidations queued at most */

struct tree;
struct vf_inval;

/* What the kernel is to forget, and the looks at agents/ asked for: live's
 * own, held in the tree (tree_priv.h) and touched only by live.c. */
struct lv_queue {
	pthread_mutex_t mu;		/* guards the fields below */
	pthread_cond_t cv;
	struct vf_inval *v;		/* for the kernel to forget */
	size_t n, cap;
	int state;			/* 0 off, 1 queueing, 2 stopped */
	pthread_cond_t scan_cv;		/* a look at agents/ is done */
	uint64_t scans_asked;		/* looks at agents/ asked for, */
	uint64_t scans_started;		/* begun by the notify thread (both
					 * written atomically: lv_asked()), */
	uint64_t scans_done;		/* and done (under mu) */
	/* Called (mu held; it must take no lock of the tree) when a request
	 * asks for a look, for a layer whose thread looks instead of
	 * lv_wait()'s (lv_on_ask()). */
	void (*asked)(void *arg);
	void *asked_arg;
};

/*
 * Brings the view of ino up to its log if the log changed, and asks for a
 * look at agents/ when it is time. 1 if the view changed, 0 if not, -errno
 * on error (the view then stays as it was).
 */
int lv_refresh(struct tree *t, uint64_t ino);

/*
 * Asks the thread of lv_wait() to look at agents/ and waits until it has,
 * at most LV_SCAN_WAIT_S seconds (should the walk lead into a folder of
 * this mount that the waiting request holds). Returns at once when that
 * thread is not running.
 */
void lv_scan_now(struct tree *t);

/* Says agents/ was just looked at (tr_new() does): the next request asks
 * for no look before LV_SCAN_MS. */
void lv_scanned(struct tree *t);

/* What the kernel must forget is a struct vf_inval (vfs.h): the
 * attributes and data of ino (when parent is 0), or the entry name in
 * folder parent. */

/*
 * For the thread that tells the kernel: starts the queue (nothing is
 * queued before the first call), then waits until something is queued or
 * lv_stop() is called, looking at agents/ meanwhile when asked to. Returns
 * a new array in *out (free() it) of *n entries; *n is 0 once stopped.
 */
void lv_wait(struct tree *t, struct vf_inval **out, size_t *n);
/* When a watcher looks next: LV_POLL_MS from now (CLOCK_REALTIME, for
 * pthread_cond_timedwait()). */
void lv_next_poll(struct timespec *until);
/* The look the thread of lv_wait() takes every LV_POLL_MS, taken now on
 * the caller's thread (no lock held): for a reader of the tree that runs
 * no such thread and stands in for it (a test, the fuzzer). */
void lv_look(struct tree *t);
/* Wakes the waiter for good; later changes are no longer queued. */
void lv_stop(struct tree *t);

/*
 * For a layer above that has no thread of lv_wait() per tree (pjfs.h), from
 * a thread of its own, outside every request, now and then: looks at
 * agents/ when agents is set or a request asked for a look since (at most
 * once per LV_SCAN_MS: the walk costs more than the stats), brings every
 * view whose log changed up to it, signs and re-checks what was indexed
 * as lv_look() does with at most *share bytes (the share left is put back:
 * one share serves all the trees of a look, the first ones first), and
 * hands over what was queued since the last call (also by requests; the
 * queue is on from the first call; lv_scan_now() then never waits). A new
 * array in *out (free() it) of *n entries, the tree's own inodes. 1 if the
 * tree changed (agents/, a log), else 0.
 */
int lv_tick(struct tree *t, int agents, uint64_t *share, struct vf_inval **out,
	    size_t *n);
/* Whether a request asked for a look at agents/ that lv_tick() did not
 * begin yet (no lock: the counts are written atomically under q.mu). */
int lv_asked(struct tree *t);
/* fn(arg) is called each time a request asks for a look at agents/ (from
 * the request's thread): a layer above whose own thread makes the looks
 * (lv_tick()) wakes it then. */
void lv_on_ask(struct tree *t, void (*fn)(void *arg), void *arg);

/*
 * For a layer above that lets the kernel keep branches/current for long
 * and tells it when it moves (pjfs.h): what the kernel must forget when t
 * closes, since nobody follows its log then: each view's branches/current.
 * A new array in *out (free() it) of *n entries, the tree's own inodes;
 * *n is 0 on ENOMEM.
 */
void lv_closing(struct tree *t, struct vf_inval **out, size_t *n);

/*
 * Epochs across a close and reopen of one log (a cache of trees, pjfs.h).
 * Inodes are computed: a tree opened again gives record n the same inode,
 * right when the log only grew since, wrong when it was rewritten. So a
 * tree about to close leaves a mark (its views' epochs and names, the
 * log's file, owner, group and mode, and the bytes indexed), and the
 * next tree of that log resumes from it: the same file with the same
 * owner, group and mode, at least those bytes and the same views first,
 * in order: the views keep their epochs (the kernel's inodes
 * still name what they named); anything else: every view takes an epoch
 * no tree of the log gave yet (modulo 16), so inodes handed out before are
 * stale (ESTALE). A rewrite in place that does not shrink the log, between
 * the close and the reopen, is not told from growth there; the mark keeps
 * view 0's signature (session.h ss_signed()), which the new tree takes on,
 * so the background check finds a rewrite of the bytes signed before the
 * close as in an open tree (and the tree is re-indexed with new epochs).
 * The notes of view 0's errors.txt (the log rewritten, replaced...) are
 * kept too: the next tree says them first, whatever changed.
 */
struct lv_mark {
	int set;			/* 0: no tree was marked yet */
	uint8_t next;			/* the first epoch not given yet */
	uint8_t *epochs;		/* per view */
	char **names;			/* per view: its folder under agents/ */
	uint32_t n;
	dev_t dev;			/* view 0's log */
	ino_t ino;
	uid_t uid;			/* ... its owner, group and mode (another
					 * now: the kernel kept the old ones) */
	gid_t gid;
	mode_t mode;
	uint64_t bytes;			/* ... and the bytes indexed of it */
	struct ss_signed sig;		/* ... and its signature */
	struct sbuf notes;		/* view 0's notes (errors.txt) */
};
/* Marks t (m is overwritten). 0, or -ENOMEM (then the next tree starts
 * with new epochs). */
int lv_mark(struct tree *t, struct lv_mark *m);
/* Gives the new tree t (no request uses it yet) the epochs m says. */
void lv_resume(struct tree *t, const struct lv_mark *m);
void lv_mark_free(struct lv_mark *m);

/* For tree.c: the queue's set-up and tear-down. */
void lv_init(struct tree *t);
void lv_fini(struct tree *t);

#endif

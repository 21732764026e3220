/*
 * live: following the logs while Claude Code writes them, and telling the
 * kernel what to forget.
 *
 * How a change is noticed: every lookup, getattr of what can grow and
 * opendir calls lv_refresh() first, which compares an fstat of the open
 * log and a stat of its path with what was indexed (ss_changed(): two
 * syscalls, under the shared lock). Only when they differ does it take the
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
 *   - a log indexed again from scratch (it shrank, was rewritten, or
 *     another file took its path; see ss_refresh()): the view's epoch is
 *     bumped, so all its inodes are new, and the folders that hold them
 *     are dropped from the kernel's cache.
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

#include <stddef.h>
#include <stdint.h>

#include "names.h"

#define LV_SCAN_MS 1000		/* how often agents/ is looked at */
#define LV_SCAN_WAIT_S 2	/* the longest wait for a look at agents/ */
#define LV_QUEUE_MAX 65536	/* invalidations queued at most */

struct tree;

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

/* What the kernel must forget: the attributes and data of ino (when
 * parent is 0), or the entry name in folder parent. */
struct lv_inval {
	uint64_t parent;
	uint64_t ino;
	char name[NM_MAX + 1];
};

/*
 * For the thread that tells the kernel: starts the queue (nothing is
 * queued before the first call), then waits until something is queued or
 * lv_stop() is called, looking at agents/ meanwhile when asked to. Returns
 * a new array in *out (free() it) of *n entries; *n is 0 once stopped.
 */
void lv_wait(struct tree *t, struct lv_inval **out, size_t *n);
/* Wakes the waiter for good; later changes are no longer queued. */
void lv_stop(struct tree *t);

/* For tree.c: the queue's set-up and tear-down. */
void lv_init(struct tree *t);
void lv_fini(struct tree *t);

#endif

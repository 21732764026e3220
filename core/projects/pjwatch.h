/*
 * pjwatch: change notices for a projects folder (plat.h: inotify), so
 * that a mount nobody reads costs nothing: the notifier (pjlive.h) looks
 * at the folder again only after a notice, and at an open session only
 * after a notice about its log (or while it has work left: signing).
 *
 * Watched: DIR itself, each folder in it (the projects: a folder made
 * later is watched as its notice comes), and the log of each session the
 * cache holds open (pw_log_add(), dropped by pw_log_rm()). A project
 * folder's notices (a log made, removed, renamed, grown or touched) say
 * the folder changed; a log's say that session changed.
 *
 * Where notices cannot be had, the folder falls back to the look of old,
 * once a second (and every open session is looked at every time), and
 * pw_why() says why for errors.txt: notices are off (SESSFS_NO_INOTIFY
 * set in the environment, as the tests do to exercise this path), DIR is
 * on a filesystem whose changes another host or process may make
 * unseen (NFS, SMB, FUSE...: pl_fs_remote()), the user's limit of
 * watches or watchers was reached, or the kernel has no inotify. Lost
 * notices (the kernel's queue overflowed) count as a change of all.
 *
 * Thread-safety: every call takes the watcher's own lock (a leaf: nothing
 * is taken while it is held); pw_wait() is the notifier thread's alone.
 * The keys due are kept in a list, so a look costs nothing for the open
 * sessions that are not.
 */
#ifndef SESSFS_PJWATCH_H
#define SESSFS_PJWATCH_H

#include <stdint.h>

#define PW_ENV_OFF "SESSFS_NO_INOTIFY"	/* set: no notices, the fallback */
#define PW_SETTLE_MS 20	/* after a notice, before the look: the rest of
			 * a burst of changes comes in the same look */
#define PW_GAP_MS 100	/* between two looks, at least (a log written in
			 * many small appends is looked at ten times a second
			 * at most) */

struct pjwatch;

/* Starts watching dir and the folders in it. NULL only on ENOMEM. */
struct pjwatch *pw_new(const char *dir);
void pw_free(struct pjwatch *w);

/* NULL while notices follow everything; else why not (a line of
 * errors.txt, without its newline; borrowed, valid until pw_free()). */
const char *pw_why(struct pjwatch *w);

/* Waits until a notice comes, pw_wake() or pw_poke() is called or ms
 * passed (ms < 0: no bound), and reads the notices; when the last call ended on notices, first lets gap_ms pass
 * since it returned (only pw_wake() ends that sooner). 1 when the folder
 * may have changed since the last call that said so (always, in the
 * fallback), else 0. */
int pw_wait(struct pjwatch *w, int gap_ms, int ms);
/* Ends a pw_wait() now, and every later one at once (the end). */
void pw_wake(struct pjwatch *w);
/* Ends the pw_wait() under way now, or the next one at once: something
 * is to be looked at or told (any thread). */
void pw_poke(struct pjwatch *w);
/* 1 when notices follow everything and no open session is due: the
 * notifier may wait for a notice or a poke alone. */
int pw_idle(struct pjwatch *w);

/* The log of session key (path: absolute) is open: watched from now. */
void pw_log_add(struct pjwatch *w, uint32_t key, const char *path);
/* ... and closed: no longer watched. */
void pw_log_rm(struct pjwatch *w, uint32_t key);
/* The open sessions to be looked at now (a new array, free() it, of *n
 * keys; NULL on ENOMEM): a notice about its log came since the last call,
 * its log is not watched, or its last look was not quiet (pw_settled()). */
uint32_t *pw_due_keys(struct pjwatch *w, uint32_t *n);
/* What a look at session key found: quiet (it changed nothing, queued
 * nothing and had nothing left to sign or check), or not. */
void pw_settled(struct pjwatch *w, uint32_t key, int quiet);

#endif

/*
 * pjahead: sessions of a projects folder (pjfs.h) indexed ahead of a walk,
 * on threads of their own.
 *
 * A grep -r over sessions/<all>/branches/current/, a find over projects/
 * or a shell glob such as sessions/<all>/branches goes through the
 * sessions one after the other, and each one's first use waits for its
 * index (ss_open(): most of a glob's time). While the walk uses one
 * session, the next ones are indexed on the machine's other cores.
 *
 * pa_used() is told the session each request uses. When it follows the
 * session used before by 1 to PA_WINDOW places in one of the orders a
 * walk takes (sessions/ by name, as a shell's glob sorts it; sessions/ as
 * listed, by start time; projects/ by project, then session name), the
 * PA_WINDOW sessions after it in that order are the window, and the
 * threads open them in order (pa_open_fn: the cache of open sessions
 * decides whether there is room). When the walk lists a folder
 * of each session (grep -r over each one's branches/current), the threads
 * list the same folder of the sessions ahead, which renders its files
 * while the walk reads the one before. A use that follows none of
 * them empties the window: the walk stopped or jumped, and nothing more
 * is opened for it than what a thread had already started.
 *
 * Memory: what is opened ahead lives in the cache of open sessions like
 * the rest, within its bound (pjfs.c: at most PA_WINDOW sessions opened
 * ahead and not used yet, and none when they would take more than half
 * of the bound). The walk orders are copied from the set once per
 * generation: a few words per session.
 *
 * Threads: the workers (online CPUs, at most PA_THREADS_MAX) start with
 * the first window (after any fork: threads do not survive one) and are
 * joined by pa_free(). A step of the walk wakes as many of them as it
 * left sessions to open (one, as a rule), not all. All functions are
 * thread-safe; pa->mu guards the orders and the window and is never held
 * while a session is opened.
 *
 * Work ahead is background work: it must not keep the walk (and the
 * threads answering it) from a CPU. The scheduler lets a running thread
 * finish its time slice before a woken one gets its CPU, and the walk
 * wakes after each round trip: so a worker offers its CPU after each
 * chunk of a log it indexes and each file it renders (pl_offer_cpu(): a
 * sched_yield(), at most once per PL_OFFER_GAP_US: plat.h has what that
 * gains on an idle machine and costs on a busy one), until a request
 * waits for the session it opens (then it goes at full speed). Not
 * SCHED_IDLE: a thread in that class can wait without bound on a busy
 * machine while it holds a lock a request needs (malloc's, a tree's).
 * What else was tried, and the figures: tests/bench/README.md, "A
 * projects folder".
 */
#ifndef SESSFS_PJAHEAD_H
#define SESSFS_PJAHEAD_H

#include <stdint.h>

#define PA_WINDOW 8		/* sessions opened ahead of a walk */
#define PA_THREADS_MAX 4

struct pj_set;
struct pjahead;

/* A folder of a session that a walk lists (pa_listed()): its current
 * branch, whichever that is; else its inode in the session's tree. */
#define PA_CURRENT UINT64_MAX

/*
 * What a worker calls to open the session of key ahead of a walk (the
 * cache of open sessions' pf_open_ahead(), handed down by pjfs.c) and,
 * when folder is not 0 and nothing of the session was listed yet, list
 * that folder of it (which renders its files: the walk's own listing then
 * finds them rendered); with deep, every folder under it too (once, even
 * when the folder alone was listed before). 0 when it is open now, 1 when
 * the cache has no room for it, -errno when it cannot be opened.
 */
typedef int (*pa_open_fn)(void *arg, uint32_t key, uint64_t folder, int deep);

/* A new window-less state (no thread yet) whose workers open sessions by
 * calling open(arg, ...), or NULL on ENOMEM. */
struct pjahead *pa_new(pa_open_fn open, void *arg);
/* Stops the workers (each finishes the session it opens) and frees a. */
void pa_free(struct pjahead *a);

/* A request uses session key of set s (generation gen): moves, sets or
 * empties the window. Cheap when key is the session used last. */
void pa_used(struct pjahead *a, const struct pj_set *s, uint64_t gen, uint32_t key);
/* A request lists folder (PA_CURRENT, or an inode of its tree) of session
 * key: when that is the walk's session, the sessions opened ahead from
 * now on have the same folder listed too. The first folder the walk lists
 * in a session is the one listed ahead; when it goes on to list another
 * one of that session, it walks a tree (grep -r from the mount's root,
 * find, ls -R), and the sessions ahead have the whole tree of that first
 * folder listed. */
void pa_listed(struct pjahead *a, uint32_t key, uint64_t folder);
/* 1 when nothing is left in the window and no worker is opening a session
 * (what a test waits for), else 0. */
int pa_idle(struct pjahead *a);

#endif

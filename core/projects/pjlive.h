/*
 * pjlive: the projects layer (pjfs.h) followed while mounted, for the
 * notifier thread (fs/notify.h), as live.h follows a single session.
 *
 * With inotify (pjwatch.h), that thread looks when a notice comes
 * (PW_GAP_MS at least apart), at the folder only after a notice about it,
 * and at an open session only after a notice about its log, a request's
 * ask for agents/ (lv_on_ask() pokes the thread), or while it has signing
 * left (a second apart); a session opened or closed pokes it too. With
 * nothing due it sleeps until one of these: an idle mount does nothing. Without (the fallback: pjwatch.h says when),
 * once per LV_POLL_MS (a second), from that thread (outside every request):
 *   - the folder is looked at again (the rescan pjfs.c makes, as bounded
 *     there: PF_RESCAN_SHARE); when the set changed, the kernel forgets
 *     this layer's folders and files (the root, projects/, each project,
 *     sessions/, latest, README.md, sessions.json, errors.txt), the names
 *     of sessions gone or renamed (their links, their folders) and the
 *     attributes of the sessions that changed;
 *   - the branches/current of every session closed since the last look is
 *     forgotten (lv_closing(): nobody follows its log any more);
 *   - every session open in the cache, and only those, is looked at as the
 *     thread of a single mount does (lv_tick(): the log grown or
 *     rewritten; agents/ for the PV_RECENT most recently used, and for
 *     the others when a request asked), signed and re-checked with one
 *     share of LV_SIGN_STEP bytes a look for all of them (the most
 *     recently used first; while a walk goes through the sessions, its
 *     requests moving to another session more than PV_BUSY_STEPS times
 *     since the last look, a share PV_BUSY_DIV times smaller: signing is
 *     work for when nothing else runs, and a grep over every session
 *     needs the cores), and what its tree queued is told under its key. A rewrite in place is found in a session while it is open; one
 *     closed is indexed anew when next opened, and one that kept its size
 *     and times between is not told from growth then (live.h: lv_mark).
 * A session opened again after its tree was closed resumes the epochs it
 * had (lv_resume()), so inodes handed out before cannot name other files.
 *
 * All functions are thread-safe.
 */
#ifndef SESSFS_PJLIVE_H
#define SESSFS_PJLIVE_H

#include <stddef.h>
#include <sys/types.h>

#include "live.h"

#define PV_BUSY_STEPS 8	/* moves to another session between two looks:
			 * a walk (busy) */
#define PV_BUSY_DIV 8		/* ... and the signing share divided by this */
#define PV_CLOSED_MAX 4096	/* names of closed sessions kept for the next
				 * look (no notifier, as in an export: none
				 * is taken; past it the kernel's keep time
				 * bounds what it holds) */
#define PV_RECENT 16	/* the open sessions whose agents/ is looked at
			 * every time (the others' when a request asks) */

struct pjfs;
struct pj_session;
struct pjlive;
struct pset;
struct slot;
struct tree;

struct pjlive *pv_new(void);
/* pjfs.c, once pf->cur and pf->live are made (nothing else runs yet):
 * the first set is what the kernel is served from the start, so the
 * first look compares with it (a change within the first second is told
 * too). */
void pv_start(struct pjfs *pf);
/* Frees pf->live (the notifier stopped), with the set it holds. */
void pv_free(struct pjfs *pf);

/* pjfs.c: whether set p differs from o in anything this layer shows
 * (sessions, their names, sizes and times, projects, errors). */
int pv_set_changed(const struct pset *o, const struct pset *p);

/* pjfs.c: tree t was opened for slot sl (no request uses it yet). */
void pv_opened(struct pjfs *pf, struct slot *sl, struct tree *t);

/* pjfs_cache.c (pf->mu held): slot key's tree closes; e (n entries of
 * lv_closing(), taken) is told to the kernel at the next look. */
void pv_closed(struct pjfs *pf, uint32_t key, struct vf_inval *e, size_t n);

/* The title sessions.json shows for x (pf->mu held): a session read in
 * full since its log last changed, its index's (lh_index_title(): one
 * written in the middle of a long log too), else its head's and tail's. */
const char *pv_title(struct pjfs *pf, const struct pj_session *x);
/* The same for its count of user and assistant rows: 1 and *rows when an
 * open tree counted them over the whole log, else 0 (loghead's count). */
int pv_rows(struct pjfs *pf, const struct pj_session *x, uint32_t *rows);

/* pjfs_files.c: errors.txt's line about the notices (pjwatch.h: why the
 * folder is looked at once a second), if any. */
struct sbuf;
void pv_errors_text(struct pjfs *pf, struct sbuf *out);

/* The notifier's calls (vfs.h; fs is a struct pjfs): waits until the
 * kernel must forget something (*n is 0 once stopped), stops, and the
 * mount's own device (never walked into when looking for agents). */
void pv_wait(void *fs, struct vf_inval **out, size_t *n);
/* One look now, without waiting (a fuzzer's or a test's watcher): what the
 * kernel must forget, as pv_wait(). */
void pv_look(void *fs, struct vf_inval **out, size_t *n);
void pv_stop(void *fs);
void pv_own_device(void *fs, dev_t dev);

#endif

/*
 * pjfs_priv: the insides of the projects layer's file system, shared by
 * its files. Their order, each using only those before it (a lower one
 * asks the higher ones through pf->hooks): pjset.c (the scan set) <
 * pjfs_cache.c (the cache of open sessions) < pjlive.c (the notifier's
 * look at the folder and the open sessions) < pjfs_files.c (the root's
 * files) < pjfs_stub.c (a session that cannot be opened) < pjfs.c (the
 * calls, and set-up).
 *
 * Locking: pf->mu guards the current set, the slots' fields and the LRU
 * list; it is never held while pjahead.h's lock is, nor the other way
 * round. A set is immutable once made (readers hold a reference); a
 * slot's tree stays open while its refs are above 0.
 */
#ifndef SESSFS_PJFS_PRIV_H
#define SESSFS_PJFS_PRIV_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "cache.h"
#include "live.h"
#include "pjfs.h"
#include "projects.h"
#include "tree.h"

/* This layer's own inodes (key 0): a type above 32 bits, an index below. */
enum pf_type {
	PT_FIXED = 0, PT_PROJECT = 1, PT_LINK = 2, PT_FORK = 3, PT_CONT = 4,
	PT_CONT_BY = 5,		/* a session's continued-by/ (index: its key) */
	PT_FORKS = 6,		/* a session's forks/ (index: its key) */
	PT_TO = 7,		/* a link in them to a session (index: its key) */
};
enum pf_fixed {
	PI_ROOT = 1, PI_README, PI_SESSIONS_JSON, PI_ERRORS, PI_PROJECTS, PI_SESSIONS,
	PI_LATEST, PI_USAGE_JSON, PI_USAGE_TXT,
};
enum { PF_NFILES = 5 };		/* README.md, sessions.json, errors.txt, usage.json, usage.txt */

#define PF_INO(type, i) (((uint64_t)(type) << 32) | (uint64_t)(i))
#define PF_TYPE(ino) ((unsigned)((ino) >> 32))
#define PF_IDX(ino) ((uint32_t)(ino))
/* A session's inodes: its key above TR_SLOT_SHIFT, the tree's inode below
 * with its TR_KEY bits mixed with the key. The kernel hashes an inode number
 * by its low bits only, and sessions share their trees' inode numbers (the
 * n-th message of each): unmixed, every session's n-th message fell in one
 * bucket and a lookup walked them all (tests/bench/README.md, "Inode
 * numbers"). */
#define PF_MIX(key) (((uint64_t)(key) * UINT64_C(0x9E3779B1)) & TR_KEY_MASK)
#define PF_KEY(ino) ((uint32_t)((ino) >> TR_SLOT_SHIFT))
#define PF_INNER(ino) (((ino) & ((UINT64_C(1) << TR_SLOT_SHIFT) - 1)) ^ PF_MIX(PF_KEY(ino)))
#define PF_OUTER(key, inner) (((uint64_t)(key) << TR_SLOT_SHIFT) | ((inner) ^ PF_MIX(key)))

/* One scan of the folder, shared by the requests that use it. */
struct pset {
	struct pj_set *s;
	int refs;			/* under pf->mu */
	uint64_t gen;
	uint32_t *pno;			/* per project: its stable number */
	struct blob *files[PF_NFILES];	/* rendered on first use */
	uint64_t json_gen;		/* sessions.json's: pu_gen() + pc_gen() */
	uint64_t errors_gen;		/* errors.txt's: pu_gen() */
	struct timespec time;		/* when it was scanned */
	uid_t uid;			/* this layer's own nodes: the folder's */
	gid_t gid;			/* owner and group, and its read bits,
					 * the group's and others' only where */
	mode_t mode;			/* every log has them too */
};

/* A session that is, was or may be open. */
struct slot {
	uint32_t key;
	struct tree *t;			/* NULL: not open */
	int refs;			/* requests and folders using t */
	int opening;
	int wanted;			/* atomic: a request waits for its opening
					 * (one ahead then goes at full speed) */
	int ahead;			/* opened ahead of a walk, not used yet */
	int listed;			/* a folder of its tree was listed (1),
					 * a tree of folders ahead (2) */
	int open_rc;			/* why its last opening failed (0: it
					 * did not) */
	uint32_t opens;			/* times opened (listing generations) */
	uint64_t base;			/* the index's estimate */
	uint64_t cost;			/* base and the rendered text kept */
	struct slot *prev, *next;	/* the LRU list, while open */
	struct lv_mark mark;		/* its last tree's epochs (live.h) */
	char *title;			/* its title from the index (pjlive.h), */
	uint32_t rows;			/* ... its user and assistant rows, */
	uint64_t title_end;		/* ... of the log up to here; NULL: none */
};

/*
 * What the lower files of the layer ask of the higher ones (pjfs.c sets
 * them to pjlive.c's and its own): whether a new scan changed anything
 * (pjset.c), closing what a new set no longer holds (pjset.c, mu held),
 * a session opened and one closing (pjfs_cache.c; closed takes e).
 */
struct pf_hooks {
	int (*set_changed)(const struct pset *o, const struct pset *p);
	void (*set_taken)(struct pjfs *pf, const struct pj_set *s);
	void (*opened)(struct pjfs *pf, struct slot *sl, struct tree *t);
	void (*closed)(struct pjfs *pf, uint32_t key, struct vf_inval *e, size_t n);
};

struct pjfs {
	pthread_mutex_t mu;
	pthread_cond_t cv;		/* a slot finished opening */
	char *dir;			/* the folder's path at the mount */
	int rootfd;			/* the folder: every scan goes through it */
	struct pset *cur;
	int scanning;
	int64_t scanned_ms;
	int64_t scan_ms;		/* how long the last scan took */
	uint64_t gen;
	struct slot **slots;		/* by key, PJ_KEY_MAX + 1 */
	struct slot lru;		/* sentinel: next is the newest */
	uint64_t used, budget;
	uint32_t nopen;
	uint32_t nahead;		/* slots opened (or opening) ahead, unused */
	uint64_t nopened;		/* sessions opened in all */
	uint64_t nsteps;		/* requests that used another session than
					 * the one before (a walk's steps) */
	struct pjahead *ahead;		/* the walk's next sessions (pjahead.h) */
	char **pfolders;		/* project numbers: folder names */
	uint32_t npfolders;
	struct pu_cache *pu;		/* token totals (pjusage.h) */
	struct pc_table *pc;		/* continuations (pjcont.h) */
	struct pjlive *live;		/* the notifier's state (pjlive.h) */
	int root_gone;			/* under mu: the folder was deleted (the
					 * set before stays, said in README.md
					 * and errors.txt) */
	struct pf_hooks hooks;
};

/* pjset.c: the scan set. The current set with a reference (looked at
 * again first when rescan is set and it is time: rescan 2 when a notice
 * said the folder changed, pjwatch.h); release with pf_set_put(). */
struct pset *pf_set_get(struct pjfs *pf, int rescan);
void pf_set_put(struct pjfs *pf, struct pset *p);
/* A new set of s (taken; freed on ENOMEM: NULL), one reference (mu held). */
struct pset *pf_set_new(struct pjfs *pf, struct pj_set *s);
/* Drops a reference (mu held). */
void pf_set_unref(struct pset *p);
/* The monotonic clock in ms. */
int64_t pf_now_ms(void);

/* pjfs_cache.c: the cache of open sessions. */
/* Opens the session of key ahead of a walk, and lists its folder (see
 * pjahead.h: pa_open_fn). 0, 1 (no room) or -errno. */
int pf_open_ahead(struct pjfs *pf, uint32_t key, uint64_t folder, int deep);
/* The open session of key in set p, with a reference (release with
 * pf_slot_put()), or NULL when p holds no such session or it cannot be
 * opened. walk: a reader's lookup, listing or link uses it (pa_used();
 * not so a file's content, which the pushes that follow a listing ask
 * for after the reader may have moved on to the next session). */
struct slot *pf_slot_get(struct pjfs *pf, const struct pset *p, uint32_t key, int walk);
/* Why session key could not be opened the last time it was tried, while
 * it is not open (pf_slot_get() gave NULL): -errno, or 0. */
int pf_open_error(struct pjfs *pf, uint32_t key);
/* Releases a reference (also one taken under pf->mu): the slot's cost
 * is brought up to what its tree keeps rendered now. */
void pf_slot_put(struct pjfs *pf, struct slot *sl);
/* Closes sl, which is open and unused (mu held). */
void pf_slot_close(struct pjfs *pf, struct slot *sl);
/* Folder inner of tree t as a walk's folder for pa_listed(). */
uint64_t pf_walk_folder(struct tree *t, uint64_t inner);

/* pjfs_files.c: the layer's own file of index i (0 README.md, 1
 * sessions.json, 2 errors.txt, 3 usage.json, 4 usage.txt) for set p,
 * rendered once (sessions.json and errors.txt again when totals were
 * counted since) and returned with a reference (blob_unref() it); 0 or
 * -errno. Takes pf->mu itself; usage.json and usage.txt are rendered
 * outside it (they may read every log). */
int pf_own_file(struct pjfs *pf, struct pset *p, int i, struct blob **out);
/* The index of inode ino among those files, or -1. */
int pf_file_index(uint64_t ino);

/* pjfs_stub.c: the folder of a session that cannot be opened now (rc:
 * why, pf_open_error()): README.md and errors.txt (PF_STUB_N files),
 * saying why, with what the last scan found; their inner inodes are a
 * tree's (TI_README, TI_ERRORS). */
#define PF_STUB_N 2
#define PF_AHEAD_DEPTH 8	/* folders under the one a walk lists, at most,
				 * listed ahead of it (pjfs_cache.c) */
/* The stub file of inner inode inner, or of name name: its index, or -1. */
int pf_stub_index(uint64_t inner);
int pf_stub_lookup(const char *name);
const char *pf_stub_name(int i);
uint64_t pf_stub_inner(int i);
/* Its attributes, or its content with a reference; 0 or -errno. */
int pf_stub_attr(struct pjfs *pf, const struct pset *p, const struct pj_session *x, int rc,
		 int i, struct vf_attr *a);
int pf_stub_content(struct pjfs *pf, const struct pset *p, const struct pj_session *x, int rc,
		    int i, struct blob **out);

#endif

/*
 * tree_priv: the tree's insides, shared by the tree layer's files. Their
 * order, each using only those before it: view.c (the registry of views)
 * < tree_line.c < agentdir.c < live.c (which owns the queue of what the
 * kernel is to forget) < tree_readme.c, usagedir.c, ctxdir.c, statedir.c
 * < tree.c (the dispatcher) < tree_dir.c, tree_xattr.c < vfs.c, export.c.
 *
 * Locking: views are added only under the tree's write lock (and the
 * agentdir's scan lock), and never removed; a view's fields are set before
 * it is added and change after only under the write lock (live.c, when
 * its log changed; meta, set once).
 */
#ifndef SESSFS_TREE_PRIV_H
#define SESSFS_TREE_PRIV_H

#include <pthread.h>
#include <sys/stat.h>
#include <time.h>

#include "names.h"
#include "live.h"
#include "tree.h"

struct agentdir;

/* A branch's display path, built when first asked for. */
struct tpath {
	uint32_t *ids;
	uint32_t n;
	uint32_t key;			/* the branch's first own record */
	char name[NM_MAX + 1];		/* the branch's folder */
};

/* What of a record has been handed to the kernel (view.pushed). */
#define TR_PUSHED_MSG 1u	/* its message file */
#define TR_PUSHED_REC 2u	/* its file in records/ */

/* One session shown in the tree, with its own tables. */
struct view {
	struct session *s;
	uint32_t no;			/* its number in inodes */
	uint8_t epoch;			/* bumped when its log is indexed anew */
	uint32_t *msize;		/* per record id: rendered size + 1 */
	uint8_t *pushed;		/* per record id: TR_PUSHED_MSG, _REC once
					 * claimed for the kernel (tr_claim_push()) */
	uint32_t nsize;
	struct tpath *paths;		/* per branch index, built on demand */
	uint32_t npaths;
	/* Where each record's file is (vw_home()), and harness/'s rows by
	 * line; built on demand, once per log state. */
	uint32_t *home;			/* atomic pointer; per record id */
	uint32_t nhome;			/* ids it covers */
	uint32_t *hkeys;		/* per branch index then: its key */
	uint32_t *hids;
	uint32_t nh;
	struct timespec mtime;		/* the log's when it last changed, made
					 * to grow at every change */
	uid_t uid;			/* the log's owner, group and mode: */
	gid_t gid;			/* every node's (TR_FILE_PERM(), */
	mode_t mode;			/* TR_DIR_PERM()) */
	/* An agent's view (agents/<name>/); all unset in view 0. */
	char *aid;			/* the agent id as found */
	size_t aidlen;
	char *log;			/* its log's path */
	char *root;			/* an inline sidechain: its root's uuid
					 * (its log is the session's), or NULL */
	char *meta;			/* its meta.json's path, or NULL */
	char *desc;			/* what the call that ran it says it does */
	uint32_t call;			/* that call's node in view call_view, 0 */
	uint32_t call_view;
	struct stat meta_st;		/* meta.json when last looked at (scan only) */
	uint8_t first_prompt;		/* named by its first prompt: no call or
					 * meta.json said more when it showed up;
					 * renamed once one does (scan only) */
	uint64_t labelled;		/* tree gen when last labelled (scan only) */
	char name[NM_MAX + 1];		/* its folder under agents/ */
	/* atomic: a name in its context/ was handed to the kernel since the
	 * log last changed (tr_name_kept()): the kernel keeps it until told
	 * (live.c forgets context/ at the next change, and looks for one
	 * every LV_POLL_MS meanwhile). */
	int ctx_named;
};

struct tree {
	pthread_rwlock_t lock;
	pthread_mutex_t mu;		/* paths */
	struct cache *cache;
	struct view **views;		/* [0]: the mounted session; 1..: agents */
	uint32_t nviews;
	int64_t scanned_ms;		/* agents/ last looked at */
	uint64_t gen;			/* atomic: bumped after each change
					 * (tr_dir_gen()) */
	uint64_t serial;		/* no other tree of the process has it */
	struct agentdir *ad;		/* what agents/ was found to hold */
	struct lv_queue q;		/* live.c's: what the kernel is to forget */
	uint8_t epoch_next;		/* the epoch a reindex gives next */
	uint8_t epoch_new;		/* the epoch of a view added (write lock) */
	uint8_t epoch_spare;		/* epoch_new given to no view yet (a tree
					 * resumed unchanged, lv_resume()) */
};

/* ---- view.c: the registry of views ---- */

/* A new view of s numbered no (takes ownership of s), or NULL (s closed). */
struct view *vw_new(struct session *s, uint32_t no);
void vw_free(struct view *v);
/* Takes the owner, group and mode of v's log as they are now (write lock
 * held, or v not shared yet): 1 if they changed (live.c then has the
 * kernel forget what it keeps of v), else 0. */
int vw_perm(struct view *v);
/* Appends v to the tree's views (write lock held, or not shared yet). */
int vw_add(struct tree *t, struct view *v);
/* Whether ino is of an earlier epoch of its view (its log was indexed
 * again since); call under the tree's lock. */
int vw_stale(struct tree *t, uint64_t ino);
/* The view ino belongs to, or NULL (also for a stale inode); call under
 * the tree's lock. */
struct view *vw_of(struct tree *t, uint64_t ino);
/* The index of the branch of v whose first own record is key, or -1. */
int vw_branch_of_key(struct view *v, uint32_t key);
/* The display path of branch b of v, built once per log state; NULL on
 * ENOMEM. Lock held, read or write. */
const struct tpath *vw_branch_path(struct tree *t, struct view *v, int b);
/* Grows v's per-record tables to the index's ids. 0 or -ENOMEM. */
int vw_size_table(struct view *v);
void vw_free_paths(struct tpath *p, uint32_t n);
/*
 * One home for every file: a record on several branches has its file in
 * one of them (the first in listing order that holds it: main, then the
 * oldest fork), the others list a link to it; a harness row (harness.h)
 * has its file in harness/, and every branch that holds it links there.
 * vw_home() says where record id's file is: VW_HOME_HARNESS, 1 + the
 * index of the branch that holds it (br_get()), or VW_HOME_NONE
 * (on no branch: its file is where it is listed). Built once per log
 * state, under t->mu; lock held, read or write. ENOMEM: every record
 * NONE (files everywhere, as before there were homes).
 */
#define VW_HOME_NONE 0u
#define VW_HOME_HARNESS UINT32_MAX
uint32_t vw_home(struct tree *t, struct view *v, uint32_t id);
/* The harness rows of v that lie on a branch, by line (*n of them). */
const uint32_t *vw_harness(struct tree *t, struct view *v, uint32_t *n);
/* Where record id's file is in v, from the view's root:
 * "branches/<branch>/<file>" or "harness/<file>" (NM_MAX + 1 bytes);
 * -ENOENT when it has no home. */
int vw_home_path(struct tree *t, struct view *v, uint32_t id, char *out);
/* Frees v's homes (the log changed; write lock held). */
void vw_free_homes(struct view *v);
/* The local inode of branches/current (one per branch it may name). */
uint64_t vw_current_lino(struct view *v);

/* The inode of a local inode of view v. */
static inline uint64_t tr_vino(const struct view *v, uint64_t lino)
{
	return TR_IN_VIEW(lino, v->no, v->epoch);
}

/* ---- tree_readme.c ---- */

/* Appends view v's README.md; call under the tree's lock. */
void tr_readme(struct tree *t, struct view *v, struct sbuf *out);

/* ---- tree.c ---- */

/* For tree_dir.c (tree's lock held): */
/* The error for an inode vw_of() does not know: -ESTALE for a stale
 * one, else -ENOENT. */
int tr_gone(struct tree *t, uint64_t ino);
/* Root entry i of view v: its name ("" when v has none there) and local
 * inode in *lino; NULL past the last. */
const char *tr_root_entry(const struct view *v, size_t i, uint64_t *lino);
/* The inode of branch b's folder in v. */
uint64_t tr_branch_ino(const struct view *v, const struct br_info *b);
/* The file name of record id's message in v (NM_MAX + 1 bytes). */
void tr_rec_name(struct view *v, uint32_t id, char *out);
/* The local inode of record id as the branch of v whose key is key lists
 * it: its file (TK_MSG) where that branch is its home, or it has none;
 * else a link to its home (TK_LINK). */
uint64_t tr_row_lino(struct tree *t, struct view *v, uint32_t key, uint32_t id);
/* The same for a local inode of context/ (ctxdir.h): a row's file is a
 * link there (TK_CTXLINK) when it has a home. */
uint64_t tr_ctx_lino(struct tree *t, struct view *v, uint64_t lino);
/* Fills what every entry of v shares (owner, times, inode). */
void tr_fill_common(struct tree *t, struct view *v, uint64_t ino, struct vf_attr *a);
/* A folder's attributes, in view v. */
void tr_set_dir(const struct view *v, struct vf_attr *a);
/* ino's attributes; 0 or -errno. */
int tr_attr_locked(struct tree *t, uint64_t ino, struct vf_attr *a);
/* Whether the kernel may keep the name in parent that leads to ino of
 * view v: one that keeps naming it while the log grows, or one of
 * context/, kept until the log changes (then live.c makes the kernel
 * forget context/ as a whole); the latter is noted in v->ctx_named. */
int tr_name_kept(struct view *v, uint64_t parent, uint64_t ino);

/* For tree.c (tree's lock held), tree_line.c: record r's whole line of
 * lf into line from this thread's window of the log, when the lines
 * asked for go forward (1); else 0 and line empty: read it alone. */
int tr_read_line(struct tree *t, const struct logf *lf, const struct idx_rec *r,
		 struct sbuf *line);

#endif

/*
 * tree_priv: the tree's insides, shared by tree.c, agentdir.c and live.c.
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

/* One session shown in the tree, with its own tables. */
struct view {
	struct session *s;
	uint32_t no;			/* its number in inodes */
	uint8_t epoch;			/* bumped when its log is indexed anew */
	uint32_t *msize;		/* per record id: rendered size + 1 */
	uint8_t *pushed;		/* per record id: 1 once claimed for the
					 * kernel (tr_claim_push()) */
	uint32_t nsize;
	struct tpath *paths;		/* per branch index, built on demand */
	uint32_t npaths;
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
	struct stat meta_st;		/* meta.json when last looked at (scan only) */
	char name[NM_MAX + 1];		/* its folder under agents/ */
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
	pthread_mutex_t q_mu;		/* guards the queue below (live.c) */
	pthread_cond_t q_cv;
	struct lv_inval *q;		/* for the kernel to forget */
	size_t nq, capq;
	int q_state;			/* 0 off, 1 queueing, 2 stopped */
	pthread_cond_t scan_cv;		/* a look at agents/ is done */
	uint64_t scans_asked;		/* looks at agents/ asked for, */
	uint64_t scans_started;		/* begun by the notify thread, */
	uint64_t scans_done;		/* and done (under q_mu) */
	uint8_t epoch_next;		/* the epoch a reindex gives next */
	uint8_t epoch_new;		/* the epoch of a view added (write lock) */
	uint8_t epoch_spare;		/* epoch_new given to no view yet (a tree
					 * resumed unchanged, lv_resume()) */
};

/* A new view of s numbered no (takes ownership of s), or NULL (s closed). */
/* Whether ino is of an earlier epoch of its view (its log was indexed
 * again since); call under the tree's lock. */
int tr_stale(struct tree *t, uint64_t ino);
/* The view ino belongs to, or NULL (also for a stale inode); call under
 * the tree's lock. */
struct view *tr_view_of(struct tree *t, uint64_t ino);

/* Appends view v's README.md (tree_readme.c); call under the tree's lock. */
void tr_readme(struct tree *t, struct view *v, struct sbuf *out);

struct view *tr_view_new(struct session *s, uint32_t no);
void tr_view_free(struct view *v);
/* Appends v to the tree's views (write lock held, or not shared yet). */
int tr_view_add(struct tree *t, struct view *v);

/* The inode of a local inode of view v. */
static inline uint64_t tr_vino(const struct view *v, uint64_t lino)
{
	return TR_IN_VIEW(lino, v->no, v->epoch);
}

/* For live.c (lock held, read or write): */
/* The index of the branch of v whose first own record is key, or -1. */
int tr_branch_of_key(struct view *v, uint32_t key);
/* The display path of branch b of v, built once per log state; NULL on
 * ENOMEM. */
const struct tpath *tr_branch_path(struct tree *t, struct view *v, int b);
/* Grows v's per-record tables to the index's ids. 0 or -ENOMEM. */
int tr_size_table(struct view *v);
void tr_free_paths(struct tpath *p, uint32_t n);

/* For tree_dir.c (tree's lock held): */
/* The error for an inode tr_view_of() does not know: -ESTALE for a stale
 * one, else -ENOENT. */
int tr_gone(struct tree *t, uint64_t ino);
/* Root entry i of view v: its name ("" when v has none there) and local
 * inode in *lino; NULL past the last. */
const char *tr_root_entry(const struct view *v, size_t i, uint64_t *lino);
/* The inode of branch b's folder in v. */
uint64_t tr_branch_ino(const struct view *v, const struct br_info *b);
/* The file name of record id's message in v (NM_MAX + 1 bytes). */
void tr_rec_name(struct view *v, uint32_t id, char *out);
/* The local inode of branches/current (one per branch it may name). */
uint64_t tr_current_lino(struct view *v);
/* Fills what every entry of v shares (owner, times, inode). */
void tr_fill_common(struct tree *t, struct view *v, uint64_t ino, struct tr_attr *a);
/* A folder's attributes, in view v. */
void tr_set_dir(const struct view *v, struct tr_attr *a);
/* Takes the owner, group and mode of v's log as they are now (write lock
 * held, or v not shared yet): 1 if they changed (live.c then has the
 * kernel forget what it keeps of v), else 0. */
int tr_view_perm(struct view *v);
/* ino's attributes; 0 or -errno. */
int tr_attr_locked(struct tree *t, uint64_t ino, struct tr_attr *a);
/* Whether a name in parent keeps naming ino while the log grows. */
int tr_name_fixed(uint64_t parent, uint64_t ino);

/* For tree.c (tree's lock held), tree_line.c: record r's whole line of
 * lf into line from this thread's window of the log, when the lines
 * asked for go forward (1); else 0 and line empty: read it alone. */
int tr_read_line(struct tree *t, const struct logf *lf, const struct idx_rec *r,
		 struct sbuf *line);

#endif

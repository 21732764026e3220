/*
 * tree_priv: the tree's insides, shared by tree.c and agentdir.c only.
 *
 * Locking: views are added only under the tree's write lock (and the
 * agentdir's scan lock); a view's fields are set before it is added and,
 * but for meta (set once, under the write lock), never change after.
 */
#ifndef SESSFS_TREE_PRIV_H
#define SESSFS_TREE_PRIV_H

#include <pthread.h>
#include <sys/stat.h>
#include <time.h>

#include "../core/names.h"
#include "tree.h"

struct agentdir;

struct tpath {
	uint32_t *ids;
	uint32_t n;
};

/* One session shown in the tree, with its own tables. */
struct view {
	struct session *s;
	uint32_t no;			/* its number in inodes */
	uint32_t *msize;		/* per record id: rendered size + 1 */
	uint8_t *pushed;		/* per record id: handed to the kernel */
	uint32_t nsize;
	struct tpath *paths;		/* per branch index, built on demand */
	uint32_t npaths;
	struct timespec mtime;		/* the log's, when last looked at */
	/* An agent's view (agents/<name>/); all unset in view 0. */
	char *aid;			/* the agent id as found */
	size_t aidlen;
	char *log;			/* its log's path */
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
	uid_t uid;
	gid_t gid;
	int64_t checked_ms;
	struct agentdir *ad;		/* what agents/ was found to hold */
};

/* A new view of s numbered no (takes ownership of s), or NULL (s closed). */
struct view *tr_view_new(struct session *s, uint32_t no);
void tr_view_free(struct view *v);
/* Appends v to the tree's views (write lock held, or not shared yet). */
int tr_view_add(struct tree *t, struct view *v);

#endif

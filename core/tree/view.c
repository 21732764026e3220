/*
 * view: the tree's registry of views (tree_priv.h): a view of a session
 * made, freed and added, found by an inode (and whether that inode is of
 * an earlier epoch), its per-record tables, and its branches' paths. The
 * tree layer's lowest file: agentdir.c, live.c and the tree's own files
 * sit on it.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "names.h"
#include "tree_priv.h"
#include "plat.h"

int vw_size_table(struct view *v)
{
	uint32_t n = idx_nids(ss_idx(v->s)) + 1;
	uint32_t *p;
	uint8_t *q;

	if (n <= v->nsize)
		return 0;
	p = realloc(v->msize, n * sizeof(*p));
	if (!p)
		return -ENOMEM;
	v->msize = p;
	q = realloc(v->pushed, n);
	if (!q)
		return -ENOMEM;
	v->pushed = q;
	memset(p + v->nsize, 0, (n - v->nsize) * sizeof(*p));
	memset(q + v->nsize, 0, n - v->nsize);
	v->nsize = n;
	return 0;
}

void vw_free_paths(struct tpath *p, uint32_t n)
{
	uint32_t i;

	for (i = 0; p && i < n; i++)
		free(p[i].ids);
	free(p);
}

void vw_free(struct view *v)
{
	if (!v)
		return;
	vw_free_paths(v->paths, v->npaths);
	vw_free_homes(v);
	free(v->msize);
	free(v->pushed);
	ss_close(v->s);
	free(v->aid);
	free(v->log);
	free(v->root);
	free(v->meta);
	free(v->desc);
	free(v);
}

struct view *vw_new(struct session *s, uint32_t no)
{
	struct view *v = calloc(1, sizeof(*v));
	struct stat st;

	if (!v) {
		ss_close(s);
		return NULL;
	}
	v->s = s;
	v->no = no;
	if (vw_size_table(v)) {
		vw_free(v);
		return NULL;
	}
	if (!lf_stat(ss_logf(s), &st))
		v->mtime = PL_MTIM(st);
	vw_perm(v);
	return v;
}

int vw_perm(struct view *v)
{
	struct stat st;

	if (lf_stat(ss_logf(v->s), &st) ||
	    (st.st_uid == v->uid && st.st_gid == v->gid && (st.st_mode & 0777) == v->mode))
		return 0;
	v->uid = st.st_uid;
	v->gid = st.st_gid;
	v->mode = st.st_mode & 0777;
	return 1;
}

int vw_add(struct tree *t, struct view *v)
{
	struct view **p = realloc(t->views, (t->nviews + 1) * sizeof(*p));

	if (!p)
		return -ENOMEM;
	t->views = p;
	v->epoch = t->epoch_new;
	t->epoch_spare = 0;
	t->views[t->nviews++] = v;
	return 0;
}

/* Whether ino is of an earlier epoch of its view: its log was indexed
 * again since. */
int vw_stale(struct tree *t, uint64_t ino)
{
	uint32_t k = TR_VIEW(ino);

	return k < t->nviews && TR_HAS_EPOCH(TR_LOCAL(ino)) &&
	       TR_EPOCH(ino) != t->views[k]->epoch;
}

/* The view ino belongs to, or NULL (also for a stale inode, and for one
 * no node has: epoch bits on a kind that carries none, a layer's bits). */
struct view *vw_of(struct tree *t, uint64_t ino)
{
	uint32_t k = TR_VIEW(ino);

	if (ino >> TR_SLOT_SHIFT || (TR_EPOCH(ino) && !TR_HAS_EPOCH(TR_LOCAL(ino))))
		return NULL;
	return k < t->nviews && !vw_stale(t, ino) ? t->views[k] : NULL;
}

/* The error for an inode vw_of() does not know: -ESTALE for a stale one
 * (the kernel walks the path again, asking for every name, and so finds
 * the new inodes), else -ENOENT. */
int vw_branch_of_key(struct view *v, uint32_t key)
{
	const struct br_set *bs = ss_branches(v->s);

	return key ? br_of_first(bs, key) : br_find(bs, "main");
}

const struct tpath *vw_branch_path(struct tree *t, struct view *v, int b)
{
	const struct br_set *bs = ss_branches(v->s);
	const struct tpath *p = NULL;

	pthread_mutex_lock(&t->mu);
	if (!v->paths && br_count(bs)) {
		v->paths = calloc(br_count(bs), sizeof(*v->paths));
		v->npaths = v->paths ? br_count(bs) : 0;
	}
	if ((uint32_t)b < v->npaths) {
		struct tpath *tp = &v->paths[b];
		const struct br_info *bi = br_get(bs, (uint32_t)b);

		if (tp->ids || !br_path(bs, (uint32_t)b, &tp->ids, &tp->n))
			p = tp;
		tp->key = bi->first_own;
		snprintf(tp->name, sizeof(tp->name), "%s", bi->name);
	}
	pthread_mutex_unlock(&t->mu);
	return p;
}

/* The local inode of branches/current: one per branch it may name, so a
 * kernel that kept where it pointed never follows it to the wrong one. */
uint64_t vw_current_lino(struct view *v)
{
	int cur = ss_current_branch(v->s);

	if (cur < 0)
		return 0;
	return TR_INO(TK_CURRENT, br_get(ss_branches(v->s), (uint32_t)cur)->first_own);
}


/* ---- homes ---- */

void vw_free_homes(struct view *v)
{
	free(v->home);
	free(v->hids);
	free(v->hkeys);
	v->home = v->hids = v->hkeys = NULL;
	v->nhome = v->nh = 0;
}

/* Branch i's path from its first own record on (the whole path for one
 * that starts at a root): the rows it is the first in listing order to
 * hold, as the branches before it hold the rest. */
static uint32_t own_start(const struct graph *g, uint32_t key, const uint32_t *ids,
			  uint32_t n)
{
	uint32_t s = key ? gr_dpos(g, key) : 0;

	return s && s <= n && ids[s - 1] == key ? s - 1 : 0;
}

/* Harness rows sorted: line in the high half, id in the low. */
static int by_line(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Builds v's homes (t->mu held): 0 or -ENOMEM. */
static int build_homes(struct view *v)
{
	const struct br_set *bs = ss_branches(v->s);
	const struct graph *g = ss_graph(v->s);
	uint32_t nids = idx_nids(ss_idx(v->s)) + 1, i, j, n, *ids, *home;
	uint32_t nh = 0, *hids, *hkeys;
	uint64_t *sorted;

	home = calloc(nids, sizeof(*home));
	hkeys = malloc((br_count(bs) + 1) * sizeof(*hkeys));
	if (!home || !hkeys) {
		free(home);
		free(hkeys);
		return -ENOMEM;
	}
	for (i = 0; i < br_count(bs); i++) {
		uint32_t key = hkeys[i] = br_get(bs, i)->first_own, skip;

		/* from its first own record: a log of many forks walks each
		 * fork's own rows, not its whole path again */
		if (br_path_from(bs, i, key, &ids, &n, &skip)) {
			free(home);
			free(hkeys);
			return -ENOMEM;
		}
		for (j = skip ? 0 : own_start(g, key, ids, n); j < n; j++) {
			if (ids[j] >= nids || home[ids[j]])
				continue;
			if (hn_is_harness(ss_idx(v->s), gr_node_rec(g, ids[j]))) {
				home[ids[j]] = VW_HOME_HARNESS;
				nh++;
			} else
				home[ids[j]] = i + 1;
		}
		free(ids);
	}
	hids = malloc((nh ? nh : 1) * sizeof(*hids));
	sorted = malloc((nh ? nh : 1) * sizeof(*sorted));
	if (!hids || !sorted) {
		free(home);
		free(hkeys);
		free(hids);
		free(sorted);
		return -ENOMEM;
	}
	for (i = 0, j = 0; i < nids && j < nh; i++)
		if (home[i] == VW_HOME_HARNESS)
			sorted[j++] = (uint64_t)gr_node_rec(g, i)->line << 32 | i;
	qsort(sorted, nh, sizeof(*sorted), by_line);
	for (j = 0; j < nh; j++)
		hids[j] = (uint32_t)sorted[j];
	free(sorted);
	v->hids = hids;
	v->hkeys = hkeys;
	v->nh = nh;
	v->nhome = nids;
	__atomic_store_n(&v->home, home, __ATOMIC_RELEASE);
	return 0;
}

static const uint32_t *homes(struct tree *t, struct view *v)
{
	const uint32_t *h = __atomic_load_n(&v->home, __ATOMIC_ACQUIRE);

	if (h)
		return h;
	pthread_mutex_lock(&t->mu);
	if (!v->home)
		build_homes(v);
	h = v->home;
	pthread_mutex_unlock(&t->mu);
	return h;
}

uint32_t vw_home(struct tree *t, struct view *v, uint32_t id)
{
	const uint32_t *h = homes(t, v);

	return h && id < v->nhome ? h[id] : VW_HOME_NONE;
}

const uint32_t *vw_harness(struct tree *t, struct view *v, uint32_t *n)
{
	*n = homes(t, v) ? v->nh : 0;
	return v->hids;
}

int vw_home_path(struct tree *t, struct view *v, uint32_t id, char *out)
{
	const struct graph *g = ss_graph(v->s);
	uint32_t h = gr_is_node(g, id) ? vw_home(t, v, id) : VW_HOME_NONE;
	const struct br_set *bs = ss_branches(v->s);
	char name[NM_MAX + 1], dir[NM_MAX + 1];

	if (h == VW_HOME_NONE || (h != VW_HOME_HARNESS && h - 1 >= br_count(bs)))
		return -ENOENT;
	if (h == VW_HOME_HARNESS) {
		nm_harness_file(g, id, name);
		return nm_join(out, "harness/", name, "");
	}
	nm_message_file(g, id, gr_dpos(g, id), name);
	if (nm_join(dir, "branches/", br_get(bs, h - 1)->name, "/"))
		return -ENAMETOOLONG;
	return nm_join(out, dir, name, "");
}

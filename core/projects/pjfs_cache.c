#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "idx.h"
#include "pjahead.h"
#include "pjcont.h"
#include "pjfs_priv.h"
#include "pjusage.h"
#include "plat.h"

/*
 * The cache of open sessions (pjfs_priv.h): the LRU list, opening a
 * session when a request uses it or ahead of a walk (pjahead.h), and
 * closing the least recently used ones to keep within the budget.
 */

static void lru_unlink(struct slot *sl)
{
	sl->prev->next = sl->next;
	sl->next->prev = sl->prev;
	sl->prev = sl->next = NULL;
}

static void lru_front(struct pjfs *pf, struct slot *sl)
{
	if (sl->next)
		lru_unlink(sl);
	sl->next = pf->lru.next;
	sl->prev = &pf->lru;
	pf->lru.next->prev = sl;
	pf->lru.next = sl;
}

/* mu held: sl, if opened ahead, no longer counts as such. */
static void not_ahead(struct pjfs *pf, struct slot *sl)
{
	if (sl->ahead) {
		sl->ahead = 0;
		pf->nahead--;
	}
}

/* mu held; sl is open and unused. */
void pf_slot_close(struct pjfs *pf, struct slot *sl)
{
	struct vf_inval *e;
	size_t n;

	lru_unlink(sl);
	not_ahead(pf, sl);
	lv_closing(sl->t, &e, &n);
	pf->hooks.closed(pf, sl->key, e, n);
	lv_mark(sl->t, &sl->mark);
	tr_free(sl->t);
	sl->t = NULL;
	pf->used -= sl->cost;
	pf->nopen--;
}

/* Closes the least recently used sessions nobody uses until the cache
 * fits its budget (mu held). */
static void evict(struct pjfs *pf)
{
	struct slot *sl, *prev;

	for (sl = pf->lru.prev; sl != &pf->lru && pf->used > pf->budget; sl = prev) {
		prev = sl->prev;
		if (!sl->refs)
			pf_slot_close(pf, sl);
	}
}

/* Opens x's tree and estimates its memory into *cost; counts its tokens
 * (pjusage.h) and looks for the session it continues (pjcont.h). NULL,
 * and why in *rc, when it cannot be opened. */
static struct tree *open_tree(struct pjfs *pf, const struct pj_set *s,
			      const struct pj_session *x, uint64_t *cost, int *rc)
{
	char *path = pj_log_path(s, x);
	const char *name = strrchr(x->path, '/') + 1;
	struct session *ss;
	struct tree *t = NULL;
	struct stat st;
	int dfd = pj_project_fd(s, x->project), have;

	have = dfd >= 0 && !fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW);
	*rc = !path ? -ENOMEM : dfd < 0 ? dfd : ss_open_at(dfd, name, path, SS_LIVE, &ss);
	if (!*rc && !(t = tr_new(ss)))
		*rc = -ENOMEM;
	if (t) {
		*cost = PF_COST_FIXED + PF_COST_IDX * idx_mem(ss_idx(ss));
		pl_offer_cpu();
		pu_count(pf->pu, s, x, ss, have ? &st : NULL);
		pc_look(pf->pc, s, x, ss);
	}
	if (dfd >= 0)
		close(dfd);
	free(path);
	return t;
}

/* The slot of key, made when there is none (mu held), or NULL. */
static struct slot *slot_of(struct pjfs *pf, uint32_t key)
{
	struct slot *sl = pf->slots[key];

	if (!sl && (sl = calloc(1, sizeof(*sl)))) {
		sl->key = key;
		pf->slots[key] = sl;
	}
	while (sl && sl->opening) {
		__atomic_store_n(&sl->wanted, 1, __ATOMIC_RELAXED);
		pthread_cond_wait(&pf->cv, &pf->mu);
	}
	return sl;
}

/* Opens x's tree into sl, which is not open (mu held, let go meanwhile);
 * puts it first in the LRU list. */
static void slot_open(struct pjfs *pf, const struct pj_set *s, const struct pj_session *x,
		      struct slot *sl)
{
	struct tree *t;
	uint64_t cost = 0;
	int rc;

	sl->opening = 1;
	__atomic_store_n(&sl->wanted, 0, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&pf->mu);
	t = open_tree(pf, s, x, &cost, &rc);
	if (t)
		pf->hooks.opened(pf, sl, t);
	pthread_mutex_lock(&pf->mu);
	sl->opening = 0;
	sl->open_rc = rc;
	pthread_cond_broadcast(&pf->cv);
	if (!t)
		return;
	sl->t = t;
	sl->opens++;
	sl->base = cost;
	sl->cost = sl->base;
	pf->used += sl->cost;
	pf->nopen++;
	pf->nopened++;
	lru_front(pf, sl);
}

struct slot *pf_slot_get(struct pjfs *pf, const struct pset *p, uint32_t key, int walk)
{
	const struct pj_session *x = pj_by_key(p->s, key);
	struct slot *sl;

	if (!x)
		return NULL;
	if (walk) {
		/* A session opened ahead is the walk's now, before the window
		 * moves past it: its place goes to the next one. */
		pthread_mutex_lock(&pf->mu);
		if ((sl = slot_of(pf, key)) && sl->t)
			not_ahead(pf, sl);
		pthread_mutex_unlock(&pf->mu);
		pa_used(pf->ahead, p->s, p->gen, key);
	}
	pthread_mutex_lock(&pf->mu);
	sl = slot_of(pf, key);
	if (sl && !sl->t)
		slot_open(pf, p->s, x, sl);
	if (sl && sl->t) {
		not_ahead(pf, sl);
		sl->refs++;
		if (walk && pf->lru.next != sl)
			pf->nsteps++;
		lru_front(pf, sl);
		evict(pf);
	} else {
		sl = NULL;
	}
	pthread_mutex_unlock(&pf->mu);
	return sl;
}

/* Whether one more session opened ahead fits (mu held): at most PA_WINDOW
 * of them unused, taking at most half the cache by the open sessions'
 * mean cost. */
static int ahead_fits(const struct pjfs *pf)
{
	uint64_t mean = pf->nopen ? pf->used / pf->nopen : PF_COST_FIXED;

	return pf->nahead < PA_WINDOW && (pf->nahead + 1) * mean <= pf->budget / 2;
}

/* The inode of t's current branch folder into *ino; 0 or -errno. */
static int current_branch(struct tree *t, uint64_t epoch, uint64_t *ino)
{
	uint64_t branches = TR_IN_VIEW((uint64_t)TI_BRANCHES, 0, epoch);
	char name[NM_MAX + 1];
	struct vf_attr a;
	int rc = tr_lookup(t, branches, "current", &a);

	if (!rc)
		rc = tr_readlink(t, a.st.st_ino, name);
	if (!rc)
		rc = tr_lookup(t, branches, name, &a);
	if (!rc)
		*ino = a.st.st_ino;
	return rc;
}

uint64_t pf_walk_folder(struct tree *t, uint64_t inner)
{
	uint64_t cur;

	if (TR_KIND(inner) == TK_BRANCH && TR_VIEW(inner) == 0 &&
	    !current_branch(t, TR_EPOCH(inner), &cur) && cur == inner)
		return PA_CURRENT;
	return inner;
}

/* Lists folder of t, which renders its files into t's cache, while they
 * take at most half of it, and with deep the folders under it, depth
 * first, as a walk goes: not through links, and not agents/, which a look
 * by the notifier thread makes (a request for it may wait for one). */
static void list_tree(struct tree *t, uint64_t folder, int deep, int depth)
{
	char name[NM_MAX + 1];
	struct vf_attr a;
	struct tr_dir *d;
	uint64_t i, *sub = NULL, *more;
	size_t n = 0, cap = 0, j;
	int rc = 1;

	if (tr_opendir(t, folder, &d))
		return;
	for (i = 2; rc && tr_cached_bytes(t) < TR_CACHE_BYTES / 2; i++) {
		rc = tr_dir_entry(t, d, i, name, &a);
		pl_offer_cpu();
		if (rc <= 0 || !deep || depth >= PF_AHEAD_DEPTH || !S_ISDIR(a.st.st_mode) ||
		    TR_LOCAL(a.st.st_ino) == TI_AGENTS)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			if (!(more = realloc(sub, cap * sizeof(*sub))))
				break;
			sub = more;
		}
		sub[n++] = a.st.st_ino;
	}
	tr_closedir(d);
	for (j = 0; j < n && tr_cached_bytes(t) < TR_CACHE_BYTES / 2; j++)
		list_tree(t, sub[j], deep, depth + 1);
	free(sub);
}

/* Lists folder of t (pa_listed()) and with deep its tree (list_tree()).
 * After each file the worker offers its CPU to any thread waiting for one
 * (pjahead.h): nobody waits for these files (a request renders what it
 * needs), and no lock is held then. */
static void list_ahead(struct tree *t, uint64_t folder, int deep)
{
	static const int unwanted;

	if (folder == PA_CURRENT && current_branch(t, 0, &folder))
		return;
	pl_ahead_work(&unwanted);
	list_tree(t, folder, deep, 0);
	pl_ahead_work(NULL);
}

int pf_open_ahead(struct pjfs *pf, uint32_t key, uint64_t folder, int deep)
{
	struct pset *p = pf_set_get(pf, 0);
	const struct pj_session *x = pj_by_key(p->s, key);
	struct slot *sl;
	int rc = 0;

	pthread_mutex_lock(&pf->mu);
	sl = x ? slot_of(pf, key) : NULL;
	if (!sl) {
		rc = -ENOENT;
	} else if (!sl->t && !ahead_fits(pf)) {
		rc = 1;
	} else if (!sl->t) {
		pf->nahead++;
		/* gives its CPU away while no request waits for it (slot_of()) */
		pl_ahead_work(&sl->wanted);
		slot_open(pf, p->s, x, sl);
		pl_ahead_work(NULL);
		if (sl->t) {
			sl->ahead = 1;
			evict(pf);
		} else {
			pf->nahead--;
			rc = -EIO;
		}
	}
	if (!rc && folder && sl->t && sl->listed < (deep ? 2 : 1)) {	/* (evict() may close it) */
		sl->listed = deep ? 2 : 1;
		sl->refs++;
	} else {
		folder = 0;
	}
	pthread_mutex_unlock(&pf->mu);
	if (folder) {
		list_ahead(sl->t, folder, deep);
		pf_slot_put(pf, sl);
	}
	pf_set_put(pf, p);
	return rc;
}

/* The slot's cost brought up to what its tree keeps rendered now. */
void pf_slot_put(struct pjfs *pf, struct slot *sl)
{
	uint64_t cost = sl->base + tr_cached_bytes(sl->t);

	pthread_mutex_lock(&pf->mu);
	pf->used = pf->used - sl->cost + cost;
	sl->cost = cost;
	sl->refs--;
	if (!sl->refs)
		evict(pf);
	pthread_mutex_unlock(&pf->mu);
}

int pf_open_error(struct pjfs *pf, uint32_t key)
{
	int rc;

	pthread_mutex_lock(&pf->mu);
	rc = pf->slots[key] && !pf->slots[key]->t ? pf->slots[key]->open_rc : 0;
	pthread_mutex_unlock(&pf->mu);
	return rc;
}

void pf_cache_stats(struct pjfs *pf, uint32_t *open, uint64_t *bytes, uint64_t *opened)
{
	pthread_mutex_lock(&pf->mu);
	*open = pf->nopen;
	*bytes = pf->used;
	*opened = pf->nopened;
	pthread_mutex_unlock(&pf->mu);
}

#include "pjlive.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "idx.h"
#include "loghead.h"
#include "pjfs_priv.h"
#include "pjwatch.h"
#include "plat.h"
#include "session.h"
#include "tree_priv.h"

enum { V_OFF, V_ON, V_STOPPED };

/* What the kernel must forget, collected by one look. */
struct queue {
	struct vf_inval *e;
	size_t n, cap;
};

struct pjlive {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int state;
	struct pset *last;		/* the set the kernel was told of */
	dev_t dev;
	int has_dev;
	int titles;			/* under pf->mu: sessions.json changed */
	int gone_told;			/* the kernel was told the folder is gone */
	uint64_t steps;			/* under pf->mu: pf->nsteps at the last look */
	struct queue *closed;		/* under pf->mu: of sessions closed since */
	struct pjwatch *w;		/* atomic: the notices, from the first wait */
	int64_t dirty_ms;		/* the notifier's: a change not scanned yet,
					 * noticed then (0: none) */
	int why_told;			/* the notifier's: errors.txt says pw_why() */
};

struct pjlive *pv_new(void)
{
	struct pjlive *lv = calloc(1, sizeof(*lv));

	if (lv) {
		pthread_mutex_init(&lv->mu, NULL);
		pthread_cond_init(&lv->cv, NULL);
	}
	return lv;
}

void pv_start(struct pjfs *pf)
{
	pf->cur->refs++;
	pf->live->last = pf->cur;
}

void pv_free(struct pjfs *pf)
{
	struct pjlive *lv = pf->live;

	if (!lv)
		return;
	if (lv->last)
		pf_set_put(pf, lv->last);
	if (lv->closed)
		free(lv->closed->e);
	free(lv->closed);
	pw_free(lv->w);
	pthread_cond_destroy(&lv->cv);
	pthread_mutex_destroy(&lv->mu);
	free(lv);
}

/* ---- titles ---- */

const char *pv_title(struct pjfs *pf, const struct pj_session *x)
{
	const struct slot *sl = pf->slots[x->key];

	return sl && sl->title && sl->title_end >= x->f.bytes ? sl->title : x->f.title;
}

int pv_rows(struct pjfs *pf, const struct pj_session *x, uint32_t *rows)
{
	const struct slot *sl = pf->slots[x->key];

	if (!sl || !sl->title_end || sl->title_end < x->f.bytes)
		return 0;
	*rows = sl->rows;
	return 1;
}

/* The user and assistant rows of ix, as loghead.h counts them. */
static uint32_t count_rows(const struct idx *ix)
{
	uint32_t i, n = 0;

	for (i = 0; i < idx_nrecs(ix); i++)
		n += idx_rec(ix, i)->type == IDX_T_USER || idx_rec(ix, i)->type == IDX_T_ASSISTANT;
	return n;
}

static int same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Takes the title of sl's open tree t from its index; when sessions.json
 * shows another now, it is rendered again and the kernel told. */
static void learn_title(struct pjfs *pf, struct slot *sl, struct tree *t)
{
	const struct pj_session *x;
	const struct idx *ix;
	enum lh_title_kind kind;
	char *title = NULL, *old;
	const char *before;
	uint64_t end;
	uint32_t rows, was = 0;
	int rc, had;

	pthread_rwlock_rdlock(&t->lock);
	ix = ss_idx(t->views[0]->s);
	end = idx_end(ix) + idx_pending(ix);
	rows = count_rows(ix);
	rc = lh_index_title(ix, ss_logf(t->views[0]->s), &title, &kind);
	pthread_rwlock_unlock(&t->lock);
	if (rc)
		return;
	pthread_mutex_lock(&pf->mu);
	x = pj_by_key(pf->cur->s, sl->key);
	before = x ? pv_title(pf, x) : NULL;
	had = x && pv_rows(pf, x, &was);
	old = sl->title;
	sl->title = title;
	sl->title_end = end;
	sl->rows = rows;
	/* sessions.json shows the title and the count, exact now */
	if (x && (!same_str(before, pv_title(pf, x)) || !had || was != rows)) {
		pf->live->titles = 1;
		if (pf->cur->files[1]) {	/* sessions.json */
			blob_unref(pf->cur->files[1]);
			pf->cur->files[1] = NULL;
		}
	}
	free(old);
	pthread_mutex_unlock(&pf->mu);
}

static struct pjwatch *watcher(struct pjlive *lv)
{
	return __atomic_load_n(&lv->w, __ATOMIC_ACQUIRE);
}

/* Wakes the notifier: something is to be looked at or told. */
static void poke(void *arg)
{
	struct pjfs *pf = arg;
	struct pjwatch *w = watcher(pf->live);

	if (w)
		pw_poke(w);
}

void pv_opened(struct pjfs *pf, struct slot *sl, struct tree *t)
{
	struct pjlive *lv = pf->live;

	if (watcher(lv))
		pw_log_add(watcher(lv), sl->key, ss_source(t->views[0]->s));
	lv_scanned(t);		/* tr_new() looked at agents/ */
	lv_resume(t, &sl->mark);
	lv_on_ask(t, poke, pf);	/* a request's ask wakes the notifier */
	learn_title(pf, sl, t);
	pthread_mutex_lock(&lv->mu);
	if (lv->has_dev)
		tr_own_device(t, lv->dev);
	pthread_mutex_unlock(&lv->mu);
	poke(pf);		/* sessions.json may show another title */
}

void pv_own_device(void *fs, dev_t dev)
{
	struct pjfs *pf = fs;

	pthread_mutex_lock(&pf->live->mu);
	pf->live->dev = dev;
	pf->live->has_dev = 1;
	pthread_mutex_unlock(&pf->live->mu);
}

void pv_stop(void *fs)
{
	struct pjfs *pf = fs;

	pthread_mutex_lock(&pf->live->mu);
	pf->live->state = V_STOPPED;
	pthread_cond_broadcast(&pf->live->cv);
	if (watcher(pf->live))
		pw_wake(watcher(pf->live));
	pthread_mutex_unlock(&pf->live->mu);
}

/* ---- the queue ---- */

static void add(struct queue *q, uint64_t parent, uint64_t ino, const char *name)
{
	struct vf_inval *e;

	if (!q)
		return;		/* only asked whether something changed */
	if (q->n == q->cap) {
		size_t cap = q->cap ? q->cap * 2 : 64;

		if (q->cap >= LV_QUEUE_MAX || !(e = realloc(q->e, cap * sizeof(*e))))
			return;		/* the kernel keeps it for its time out */
		q->e = e;
		q->cap = cap;
	}
	e = &q->e[q->n++];
	e->parent = parent;
	e->ino = ino;
	snprintf(e->name, sizeof(e->name), "%s", name ? name : "");
}

/* ---- this layer's nodes ---- */

/* Whether session y (of the new set) is x (of the old) unchanged. */
static int same_session(const struct pset *o, const struct pj_session *x,
			const struct pset *p, const struct pj_session *y)
{
	return y && !strcmp(x->name, y->name) && !strcmp(x->link, y->link) &&
	       o->pno[x->project] == p->pno[y->project] &&
	       !strcmp(o->s->projects[x->project].name, p->s->projects[y->project].name) &&
	       x->f.bytes == y->f.bytes && pl_same_time(&x->mtime, &y->mtime) &&
	       x->copy_of == y->copy_of && x->copied_by == y->copied_by &&
	       x->uid == y->uid && x->gid == y->gid && x->mode == y->mode && x->rc == y->rc;
}

/* The names and attributes of sessions that changed from o to p; 1 if
 * any did (or one was added). */
static int session_changes(const struct pset *o, const struct pset *p, struct queue *q)
{
	const struct pj_set *os = o->s;
	int changed = os->nsessions != p->s->nsessions;
	uint32_t i;

	for (i = 0; i < os->nsessions; i++) {
		const struct pj_session *x = &os->sessions[i], *y = pj_by_key(p->s, x->key);

		if (same_session(o, x, p, y))
			continue;
		changed = 1;
		if (!y || strcmp(x->link, y->link) || x->copied_by != y->copied_by)
			add(q, PI_SESSIONS, 0, x->link);
		if (!y || strcmp(x->name, y->name) || o->pno[x->project] != p->pno[y->project])
			add(q, PF_INO(PT_PROJECT, o->pno[x->project]), 0, x->name);
		add(q, 0, PF_INO(PT_LINK, x->key), NULL);
		add(q, 0, PF_INO(PT_FORK, x->key), NULL);
		add(q, 0, PF_INO(PT_CONT, x->key), NULL);
		add(q, 0, PF_INO(PT_CONT_BY, x->key), NULL);
		add(q, 0, PF_INO(PT_FORKS, x->key), NULL);
		add(q, 0, PF_OUTER(x->key, TI_ROOT), NULL);
	}
	return changed;
}

/* Everything the kernel keeps of this layer that the change from set o
 * to set p moved (q NULL: nothing queued); 1 if anything did. */
static int own_changes(const struct pset *o, const struct pset *p, struct queue *q)
{
	static const uint64_t fixed[] = {
		PI_ROOT, PI_README, PI_SESSIONS_JSON, PI_ERRORS, PI_PROJECTS, PI_SESSIONS,
		PI_LATEST, PI_USAGE_JSON, PI_USAGE_TXT,
	};
	uint32_t i;
	int k, changed = session_changes(o, p, q);

	changed |= o->s->nprojects != p->s->nprojects || o->mode != p->mode ||
		   o->uid != p->uid || o->gid != p->gid ||
		   strcmp(o->s->errors.buf ? o->s->errors.buf : "",
			  p->s->errors.buf ? p->s->errors.buf : "");
	for (i = 0; i < o->s->nprojects; i++) {
		k = pj_project(p->s, o->s->projects[i].name);
		if (k < 0 || p->pno[k] != o->pno[i]) {
			changed = 1;
			add(q, PI_PROJECTS, 0, o->s->projects[i].name);
		}
	}
	if (!changed || !q)
		return changed;
	if (o->s->latest >= 0 && p->s->latest < 0)
		add(q, PI_ROOT, 0, "latest");
	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		add(q, 0, fixed[i], NULL);
	for (i = 0; i < o->s->nprojects; i++)
		add(q, 0, PF_INO(PT_PROJECT, o->pno[i]), NULL);
	for (i = 0; i < p->s->nprojects; i++)
		add(q, 0, PF_INO(PT_PROJECT, p->pno[i]), NULL);
	return 1;
}

int pv_set_changed(const struct pset *o, const struct pset *p)
{
	return own_changes(o, p, NULL);
}

/* ---- the open sessions ---- */

/* The keys of the open sessions, the most recently used first; with
 * notices (w), only those due a look: pw_due_keys(), and those of the
 * PV_RECENT most recently used for which a request asked for a look at
 * agents/ (a request uses a session, so it comes first). An idle mount
 * looks at none. *recent: how many keys are of those PV_RECENT. */
static uint32_t *open_keys(struct pjfs *pf, struct pjwatch *w, uint32_t *n, uint32_t *recent)
{
	struct slot *sl;
	uint32_t *v, *due = NULL, ndue = 0, i = 0, k;

	*n = *recent = 0;
	if (w && !(due = pw_due_keys(w, &ndue)))
		return NULL;
	pthread_mutex_lock(&pf->mu);
	v = calloc((w ? PV_RECENT + ndue : pf->nopen) + 1, sizeof(*v));
	for (sl = pf->lru.next; v && sl != &pf->lru && *n < pf->nopen; sl = sl->next, i++) {
		if (w && i >= PV_RECENT)
			break;
		if (w && (!sl->t || sl->opening || !lv_asked(sl->t)))
			continue;
		v[(*n)++] = sl->key;
	}
	*recent = w || *n < PV_RECENT ? *n : PV_RECENT;
	for (k = 0; v && k < ndue; k++) {
		for (i = 0; i < *recent && v[i] != due[k]; i++)
			;
		if (i == *recent)
			v[(*n)++] = due[k];
	}
	pthread_mutex_unlock(&pf->mu);
	free(due);
	return v;
}

/* The slot of key with a reference while it is open (not to be opened
 * again here), or NULL. */
static struct slot *still_open(struct pjfs *pf, uint32_t key)
{
	struct slot *sl;

	pthread_mutex_lock(&pf->mu);
	sl = pf->slots[key];
	if (sl && sl->t && !sl->opening)
		sl->refs++;
	else
		sl = NULL;
	pthread_mutex_unlock(&pf->mu);
	return sl;
}

/* This look's share of signing: smaller while a walk goes through the
 * sessions. */
static uint64_t sign_share(struct pjfs *pf)
{
	struct pjlive *lv = pf->live;
	int busy;

	pthread_mutex_lock(&pf->mu);
	busy = pf->nsteps - lv->steps > PV_BUSY_STEPS;
	lv->steps = pf->nsteps;
	pthread_mutex_unlock(&pf->mu);
	return busy ? LV_SIGN_STEP / PV_BUSY_DIV : LV_SIGN_STEP;
}

/* Each open session, one at a time (the others stay free to close);
 * with notices (w), only those a notice or a request asks a look of, or
 * that had work left at their last. 1 if one changed. */
static int session_ticks(struct pjfs *pf, struct pjwatch *w, struct queue *q)
{
	struct vf_inval *e;
	struct slot *sl;
	uint32_t *keys, i, n, recent;
	uint64_t share = sign_share(pf), before;
	size_t k, ne;
	int changed, any = 0;

	keys = open_keys(pf, w, &n, &recent);
	for (i = 0; i < n; i++) {
		if (!(sl = still_open(pf, keys[i])))
			continue;
		before = share;
		/* agents/ of the most recent each time; with notices, when
		 * its log changed (a subagent starts with a call in it) */
		changed = lv_tick(sl->t, w ? 1 : i < recent, &share, &e, &ne);
		if (w)
			pw_settled(w, sl->key, !changed && !ne && share == before && share);
		any |= changed;
		if (changed)
			learn_title(pf, sl, sl->t);
		for (k = 0; k < ne; k++)
			add(q, e[k].parent ? PF_OUTER(sl->key, e[k].parent) : 0,
			    e[k].parent ? 0 : PF_OUTER(sl->key, e[k].ino), e[k].name);
		free(e);
		pf_slot_put(pf, sl);
	}
	free(keys);
	return any;
}

void pv_closed(struct pjfs *pf, uint32_t key, struct vf_inval *e, size_t n)
{
	struct pjlive *lv = pf->live;
	size_t k;

	if (lv && !lv->closed)
		lv->closed = calloc(1, sizeof(*lv->closed));
	for (k = 0; lv && lv->closed && k < n && lv->closed->n < PV_CLOSED_MAX; k++)
		add(lv->closed, PF_OUTER(key, e[k].parent), 0, e[k].name);
	free(e);
	if (lv && watcher(lv)) {
		pw_log_rm(watcher(lv), key);
		pw_poke(watcher(lv));	/* the kernel is to forget them */
	}
}

/* Hands what the sessions closed since the last look left over to q. */
static void take_closed(struct pjfs *pf, struct queue *q)
{
	struct queue *c;
	size_t k;

	pthread_mutex_lock(&pf->mu);
	c = pf->live->closed;
	pf->live->closed = NULL;
	pthread_mutex_unlock(&pf->mu);
	for (k = 0; c && k < c->n; k++)
		add(q, c->e[k].parent, 0, c->e[k].name);
	if (c)
		free(c->e);
	free(c);
}

/* Whether a scan of the folder began since dirty_ms (one that began
 * before may have missed the change). */
static int scanned_since(struct pjfs *pf, int64_t dirty_ms)
{
	int done;

	pthread_mutex_lock(&pf->mu);
	done = !pf->scanning && pf->scanned_ms - pf->scan_ms >= dirty_ms;
	pthread_mutex_unlock(&pf->mu);
	return done;
}

/* One look: the folder (with notices w, only when they said it changed),
 * then the open sessions. */
static void look(struct pjfs *pf, struct pjwatch *w, int dirty, struct queue *q)
{
	struct pjlive *lv = pf->live;
	struct pset *p;

	take_closed(pf, q);
	if (dirty && !lv->dirty_ms)
		lv->dirty_ms = pf_now_ms();
	if (!w || lv->dirty_ms || !lv->last) {
		p = pf_set_get(pf, lv->dirty_ms ? 2 : 1);
		if (lv->dirty_ms && scanned_since(pf, lv->dirty_ms))
			lv->dirty_ms = 0;
		if (lv->last && lv->last->gen != p->gen)
			own_changes(lv->last, p, q);
		if (lv->last)
			pf_set_put(pf, lv->last);
		lv->last = p;
	}
	/* A session that changed changes what the folder's scan shows (its
	 * size, times, title, link): scanned again when it is due. */
	if (session_ticks(pf, w, q) && w && !lv->dirty_ms)
		lv->dirty_ms = pf_now_ms();
	pthread_mutex_lock(&pf->mu);
	if (lv->titles)
		add(q, 0, PI_SESSIONS_JSON, NULL);
	lv->titles = 0;
	if (pf->root_gone && !lv->gone_told) {	/* they say so now */
		add(q, 0, PI_README, NULL);
		add(q, 0, PI_ERRORS, NULL);
		lv->gone_told = 1;
	}
	pthread_mutex_unlock(&pf->mu);
}

void pv_look(void *fs, struct vf_inval **out, size_t *n)
{
	struct pjfs *pf = fs;
	struct queue q = { NULL, 0, 0 };

	look(pf, NULL, 1, &q);
	*out = q.e;
	*n = q.n;
}

/* The notices, made on the notifier's first wait; the logs open already
 * are watched (pf->mu taken). NULL on ENOMEM. */
static struct pjwatch *start_watch(struct pjfs *pf)
{
	struct pset *p = pf_set_get(pf, 0);
	struct pjwatch *w = pw_new(p->s->root);	/* absolute */
	struct slot *sl;

	pf_set_put(pf, p);
	pthread_mutex_lock(&pf->mu);
	for (sl = pf->lru.next; w && sl != &pf->lru; sl = sl->next)
		pw_log_add(w, sl->key, ss_source(sl->t->views[0]->s));
	pthread_mutex_unlock(&pf->mu);
	return w;
}

/* When notices are not to be had (or stopped being), errors.txt says so,
 * once. */
static void tell_why(struct pjfs *pf, struct pjwatch *w, struct queue *q)
{
	struct pjlive *lv = pf->live;

	if (lv->why_told || !w || !pw_why(w))
		return;
	lv->why_told = 1;
	pthread_mutex_lock(&pf->mu);
	if (pf->cur->files[2]) {	/* errors.txt */
		blob_unref(pf->cur->files[2]);
		pf->cur->files[2] = NULL;
	}
	pthread_mutex_unlock(&pf->mu);
	add(q, 0, PI_ERRORS, NULL);
}

void pv_errors_text(struct pjfs *pf, struct sbuf *out)
{
	struct pjwatch *w = watcher(pf->live);
	const char *why = w ? pw_why(w) : NULL;

	if (why)
		sb_addf(out, "%s\n", why);
}

void pv_wait(void *fs, struct vf_inval **out, size_t *n)
{
	struct pjfs *pf = fs;
	struct pjlive *lv = pf->live;
	struct queue q = { NULL, 0, 0 };
	struct pjwatch *w;
	struct timespec until;
	int state, dirty, fallback;

	if (!lv->w) {
		w = start_watch(pf);
		pthread_mutex_lock(&lv->mu);
		__atomic_store_n(&lv->w, w, __ATOMIC_RELEASE);
		if (w && lv->state == V_STOPPED)
			pw_wake(w);
		pthread_mutex_unlock(&lv->mu);
	}
	w = watcher(lv);
	fallback = !w || pw_why(w);
	do {
		pthread_mutex_lock(&lv->mu);
		if (lv->state == V_OFF)
			lv->state = V_ON;
		lv_next_poll(&until);	/* a second, as a single mount */
		while (!w && lv->state == V_ON &&
		       pthread_cond_timedwait(&lv->cv, &lv->mu, &until) != ETIMEDOUT)
			;
		state = lv->state;
		pthread_mutex_unlock(&lv->mu);
		/* With notices: a look when they come or a request or the
		 * cache pokes (an ask for agents/, a session opened or
		 * closed), LV_POLL_MS at most apart while a session has work
		 * left (signing), and every PW_GAP_MS while a change waits
		 * for its scan (a scan just made puts the next off by
		 * PF_RESCAN_MS); an idle mount sleeps until then. */
		dirty = w && state != V_STOPPED ?
			pw_wait(w, fallback ? 0 : PW_GAP_MS,
				lv->dirty_ms ? PW_GAP_MS :
				!fallback && pw_idle(w) ? -1 : LV_POLL_MS) : 1;
		pthread_mutex_lock(&lv->mu);
		state = lv->state;
		pthread_mutex_unlock(&lv->mu);
		if (state == V_STOPPED)
			break;
		tell_why(pf, w, &q);
		fallback = !w || pw_why(w);	/* a limit may be reached later */
		look(pf, fallback ? NULL : w, dirty, &q);
	} while (!q.n);
	if (state == V_STOPPED) {
		free(q.e);
		q.e = NULL;
		q.n = 0;
	}
	*out = q.e;
	*n = q.n;
}

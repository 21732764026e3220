#include "live.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agentdir.h"
#include "plat.h"
#include "tree_priv.h"

/* ---- the queue ---- */

/* Q_POLLED: no thread of lv_wait(); lv_tick() takes the queue now and then. */
enum { Q_OFF, Q_ON, Q_STOPPED, Q_POLLED };

void lv_init(struct tree *t)
{
	pthread_mutex_init(&t->q.mu, NULL);
	pthread_cond_init(&t->q.cv, NULL);
	pthread_cond_init(&t->q.scan_cv, NULL);
}

void lv_fini(struct tree *t)
{
	free(t->q.v);
	pthread_cond_destroy(&t->q.scan_cv);
	pthread_cond_destroy(&t->q.cv);
	pthread_mutex_destroy(&t->q.mu);
}

static int keep_immutable(uint64_t ino)
{
	return TR_KIND(ino) == TK_MSG || TR_KIND(ino) == TK_REC;
}

/* The last look asked for, made outside every request (q.mu held): the
 * walk may lead into this very mount, whose folders a request holds. */
static void scan(struct tree *t)
{
	uint64_t n = t->q.scans_asked;

	__atomic_store_n(&t->q.scans_started, n, __ATOMIC_RELAXED);	/* lv_asked() */
	pthread_mutex_unlock(&t->q.mu);
	if (ad_scan(t)) {
		cache_prune(t->cache, keep_immutable);	/* README, errors.txt */
		__atomic_add_fetch(&t->gen, 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_lock(&t->q.mu);
	t->q.scans_done = n;
	pthread_cond_broadcast(&t->q.scan_cv);
}

/* Queues one invalidation, when someone will send it. */
static void queue(struct tree *t, uint64_t parent, uint64_t ino, const char *name)
{
	struct vf_inval *e;

	pthread_mutex_lock(&t->q.mu);
	if ((t->q.state == Q_ON || t->q.state == Q_POLLED) && t->q.n < LV_QUEUE_MAX) {
		if (t->q.n == t->q.cap) {
			size_t cap = t->q.cap ? t->q.cap * 2 : 64;

			e = realloc(t->q.v, cap * sizeof(*e));
			if (e) {
				t->q.v = e;
				t->q.cap = cap;
			}
		}
		if (t->q.n < t->q.cap) {
			e = &t->q.v[t->q.n++];
			e->parent = parent;
			e->ino = ino;
			snprintf(e->name, sizeof(e->name), "%s", name ? name : "");
			pthread_cond_signal(&t->q.cv);
		}
	}
	pthread_mutex_unlock(&t->q.mu);
}

static void watch(struct tree *t);

void lv_next_poll(struct timespec *until)
{
	clock_gettime(CLOCK_REALTIME, until);
	until->tv_sec += LV_POLL_MS / 1000;
	until->tv_nsec += (LV_POLL_MS % 1000) * 1000000L;
	if (until->tv_nsec >= 1000000000L) {
		until->tv_sec++;
		until->tv_nsec -= 1000000000L;
	}
}

void lv_wait(struct tree *t, struct vf_inval **out, size_t *n)
{
	struct timespec until;

	pthread_mutex_lock(&t->q.mu);
	if (t->q.state == Q_OFF)
		t->q.state = Q_ON;
	lv_next_poll(&until);
	while (t->q.state == Q_ON && !t->q.n) {
		if (t->q.scans_asked != t->q.scans_started) {
			scan(t);
		} else if (pthread_cond_timedwait(&t->q.cv, &t->q.mu, &until) == ETIMEDOUT) {
			pthread_mutex_unlock(&t->q.mu);
			watch(t);
			pthread_mutex_lock(&t->q.mu);
			lv_next_poll(&until);
		}
	}
	*out = t->q.v;
	*n = t->q.n;
	if (t->q.state == Q_STOPPED) {
		free(t->q.v);
		*out = NULL;
		*n = 0;
	}
	t->q.v = NULL;
	t->q.n = t->q.cap = 0;
	pthread_mutex_unlock(&t->q.mu);
}

void lv_stop(struct tree *t)
{
	pthread_mutex_lock(&t->q.mu);
	t->q.state = Q_STOPPED;
	pthread_cond_broadcast(&t->q.cv);
	pthread_cond_broadcast(&t->q.scan_cv);
	pthread_mutex_unlock(&t->q.mu);
}

/* ---- what changed ---- */

static int keep_none(uint64_t ino)
{
	(void)ino;
	return 0;
}

/* The view's time moves on at every change, even within the log's mtime
 * granularity: the kernel drops a file's pages when its mtime changes. */
static void bump_mtime(struct view *v)
{
	struct stat st;
	struct timespec m = v->mtime;

	if (!lf_stat(ss_logf(v->s), &st) &&
	    (PL_MTIM(st).tv_sec > m.tv_sec ||
	     (PL_MTIM(st).tv_sec == m.tv_sec && PL_MTIM(st).tv_nsec > m.tv_nsec))) {
		v->mtime = PL_MTIM(st);
		return;
	}
	if (++m.tv_nsec >= 1000000000L) {
		m.tv_sec++;
		m.tv_nsec = 0;
	}
	v->mtime = m;
}

/* Message id of v is rendered again when next asked for (other bytes). */
static void drop_msg(struct tree *t, struct view *v, uint32_t id)
{
	uint64_t msg = tr_vino(v, TR_INO(TK_MSG, id));

	if (id >= v->nsize)
		return;
	v->msize[id] = 0;
	v->pushed[id] &= (uint8_t)~TR_PUSHED_MSG;	/* its record is the same */
	cache_drop(t->cache, msg);
	queue(t, 0, msg, NULL);
}

/* A record whose uuid came again after line lines holds other bytes now. */
static void replaced_records(struct tree *t, struct view *v, uint32_t lines)
{
	const struct graph *g = ss_graph(v->s);
	uint32_t i;

	for (i = gr_nerrs(g); i-- > 0;) {
		const struct gr_err *e = gr_err(g, i);
		uint64_t msg = tr_vino(v, TR_INO(TK_MSG, e->id));
		uint64_t rec = tr_vino(v, TR_INO(TK_REC, e->id));

		if (e->line <= lines)
			break;
		if (e->code != GR_E_DUPLICATE || e->id >= v->nsize)
			continue;
		v->msize[e->id] = 0;
		v->pushed[e->id] = 0;
		cache_drop(t->cache, msg);
		cache_drop(t->cache, rec);
		queue(t, 0, msg, NULL);
		queue(t, 0, rec, NULL);
	}
}

/*
 * Names in branch folders that lead elsewhere now: for each path built
 * before (the kernel may know its names), the rows from where the old and
 * the new path part; a branch that is gone, its folder.
 */
static void moved_names(struct tree *t, struct view *v, const struct tpath *old,
			uint32_t nold)
{
	const struct graph *g = ss_graph(v->s);
	char name[NM_MAX + 1];
	uint32_t i, k, j;

	for (i = 0; i < nold; i++) {
		const struct tpath *o = &old[i], *p;
		int b = o->ids ? vw_branch_of_key(v, o->key) : -2;

		if (b == -1)
			queue(t, tr_vino(v, TI_BRANCHES), 0, o->name);
		if (b < 0 || !(p = vw_branch_path(t, v, b)))
			continue;
		for (k = 0; k < o->n && k < p->n && o->ids[k] == p->ids[k]; k++)
			;
		for (j = k; j < o->n; j++) {
			if (!gr_is_node(g, o->ids[j]))
				continue;
			nm_message_file(g, o->ids[j], j + 1, name);
			queue(t, tr_vino(v, TR_INO(TK_BRANCH, o->key)), 0, name);
		}
	}
}

/* Record id's home as a branch key + 1 (VW_HOME_NONE, VW_HOME_HARNESS
 * as they are), from a home table and its keys. */
static uint32_t home_key(uint32_t h, const uint32_t *keys)
{
	return h == VW_HOME_NONE || h == VW_HOME_HARNESS ? h : keys[h - 1] + 1;
}

/*
 * Files whose home moved (a dead end that became a branch older than the
 * one that held its rows): the link inodes of each, and its name in the
 * folders it left and came to, which are a file in one and a link in the
 * other now. old and keys: the homes before (nold ids), as vw_home().
 */
static void moved_homes(struct tree *t, struct view *v, const uint32_t *old,
			const uint32_t *keys, uint32_t nold)
{
	const struct graph *g = ss_graph(v->s);
	char name[NM_MAX + 1];
	uint32_t id, was, now;

	for (id = 1; old && id < nold; id++) {
		if (!old[id] || !gr_is_node(g, id))
			continue;
		was = home_key(old[id], keys);
		now = vw_home(t, v, id);	/* builds v->hkeys: first */
		now = home_key(now, v->hkeys);
		if (now == was)
			continue;
		queue(t, 0, tr_vino(v, TR_INO(TK_LINK, id)), NULL);
		queue(t, 0, tr_vino(v, TR_INO(TK_CTXLINK, id)), NULL);
		nm_message_file(g, id, gr_dpos(g, id), name);
		if (was != VW_HOME_HARNESS)
			queue(t, tr_vino(v, TR_INO(TK_BRANCH, was - 1)), 0, name);
		if (now != VW_HOME_HARNESS && now != VW_HOME_NONE)
			queue(t, tr_vino(v, TR_INO(TK_BRANCH, now - 1)), 0, name);
	}
}

/* An epoch no view of the tree was given yet (modulo 16): one count for
 * the tree, not the view, also across a close and reopen (lv_resume()). */
static uint8_t new_epoch(struct tree *t)
{
	uint8_t e = t->epoch_next;

	t->epoch_next = (uint8_t)((e + 1) & TR_EPOCH_MAX);
	return e;
}

/*
 * Everything of the view is new: its inodes (epoch), the folders under
 * its root among them (tree.h), whose names the kernel must forget: it
 * then drops all it holds below them, and a walk of a path it knew asks
 * again. (A folder of the same inode would not do: the kernel would
 * revive the old entry, with the names it held below it, when the folder
 * is looked up.)
 */
static void reset_view(struct tree *t, struct view *v, uint8_t epoch)
{
	static const char *const folders[] = { "branches", "records", "context", "state",
						"harness" };
	size_t i;

	v->epoch = epoch;
	memset(v->msize, 0, v->nsize * sizeof(*v->msize));
	memset(v->pushed, 0, v->nsize);
	cache_prune(t->cache, keep_none);
	for (i = 0; i < sizeof(folders) / sizeof(folders[0]); i++)
		if (v->no == 0 || strcmp(folders[i], "state"))
			queue(t, tr_vino(v, TI_ROOT), 0, folders[i]);
}

/* What v held before its session was brought up to its log. */
struct was {
	uint32_t lines;
	struct tpath *paths;
	uint32_t npaths;
	uint64_t current;	/* the local inode of branches/current */
};

static struct was take_was(struct view *v)
{
	struct was w = { idx_lines(ss_idx(v->s)), v->paths, v->npaths, vw_current_lino(v) };

	v->paths = NULL;
	v->npaths = 0;
	return w;
}

/*
 * The tree follows what v's session found (rc: enum ss_change or -errno;
 * write lock held): 1 if v changed. A reset gives v the epoch epoch, a
 * new one when it is -1.
 */
static int settle(struct tree *t, struct view *v, int rc, struct was *w, int epoch)
{
	if (rc <= 0) {
		v->paths = w->paths;	/* still the paths of this graph */
		v->npaths = w->npaths;
		return rc;
	}
	vw_size_table(v);
	bump_mtime(v);
	cache_prune(t->cache, keep_immutable);
	if (rc == SS_RESET) {
		vw_free_homes(v);
		reset_view(t, v, epoch < 0 ? new_epoch(t) : (uint8_t)epoch);
	} else {
		uint32_t *home = v->home, *keys = v->hkeys, nold = v->nhome;

		v->home = v->hkeys = NULL;
		vw_free_homes(v);	/* built again for the grown log */
		replaced_records(t, v, w->lines);
		moved_names(t, v, w->paths, w->npaths);
		if (home)
			moved_homes(t, v, home, keys, nold);
		free(home);
		free(keys);
		/* A layer above may let the kernel keep it (pjfs.h). */
		if (vw_current_lino(v) != w->current)
			queue(t, tr_vino(v, TI_BRANCHES), 0, "current");
		/* The window may hold other rows under its names now: the
		 * kernel forgets every name it kept in context/ (tree.c:
		 * tr_name_kept()), with the folder's own. */
		if (__atomic_exchange_n(&v->ctx_named, 0, __ATOMIC_RELAXED))
			queue(t, tr_vino(v, TI_ROOT), 0, "context");
	}
	vw_free_paths(w->paths, w->npaths);
	__atomic_add_fetch(&t->gen, 1, __ATOMIC_RELEASE);
	return 1;
}

/* Brings the inline sidechain's view v (a part of the session's log) up
 * to the session's view, as far as it is (write lock held). */
static int follow_part(struct tree *t, struct view *v, int epoch)
{
	struct was w = take_was(v);

	return settle(t, v, ss_part_follow(v->s, t->views[0]->s), &w, epoch);
}

/*
 * v's log has another owner, group or mode now (vw_perm()), and the
 * kernel keeps the old ones for long (folders, messages): the view takes
 * a new epoch, as when its log is indexed again (all its inodes are new,
 * the names of the folders under its root are dropped), and the folders
 * that carry no epoch (its root, agents/, transcripts/) are forgotten.
 * Write lock held.
 */
static void new_perm(struct tree *t, struct view *v)
{
	static const uint64_t fixed[] = { TI_ROOT, TI_AGENTS, TI_TRANSCRIPTS };
	size_t i;

	reset_view(t, v, new_epoch(t));
	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		queue(t, 0, tr_vino(v, fixed[i]), NULL);
	__atomic_add_fetch(&t->gen, 1, __ATOMIC_RELEASE);
}

/* Brings view v, not a part, up to its log (write lock held): 1 if it
 * changed. The session's inline sidechains read its log: when it was
 * indexed again, so are they, at once and as one (the same new epoch);
 * growth they take when next asked (follow_part()). */
static int refresh_log(struct tree *t, struct view *v)
{
	struct ad_pairs *pairs = v->no ? NULL : ad_pairs_now(t);
	struct was w = take_was(v);
	int rc = ss_refresh(v->s), epoch = rc == SS_RESET ? new_epoch(t) : -1;
	uint32_t k;

	rc = settle(t, v, rc, &w, epoch);
	for (k = 1; epoch >= 0 && !v->no && k < t->nviews; k++)
		if (t->views[k]->root)
			follow_part(t, t->views[k], epoch);
	/* A Task result names the inline sidechain it ran, which growth may
	 * pair with it only now: its message file then holds other bytes. */
	if (rc > 0 && epoch < 0 && !v->no)
		ad_pairs_changed(t, pairs, drop_msg);
	ad_pairs_free(pairs);
	/* A chmod or chown of the log: the view's permissions follow, and
	 * those of the inline sidechains, views of the same file. */
	if (rc >= 0 && vw_perm(v)) {
		new_perm(t, v);
		for (k = 1; !v->no && k < t->nviews; k++)
			if (t->views[k]->root && vw_perm(t->views[k]))
				new_perm(t, t->views[k]);
		rc = 1;
	}
	return rc;
}

/*
 * Brings view v up to its log (write lock held): 1 if it changed. An
 * inline sidechain's view never looks at the log itself: the session's
 * view does, and the part follows it (session.h), so that no view of the
 * log re-indexes another that has seen the same bytes.
 */
static int refresh_view(struct tree *t, struct view *v)
{
	int rc = 0;

	if (v->root && ss_changed(t->views[0]->s))
		rc = refresh_log(t, t->views[0]) > 0;
	if (v->root)
		rc |= follow_part(t, v, -1) > 0;
	else
		rc = refresh_log(t, v);
	/* No pl_trim_heap() here: what a growth frees (the old chain, the
	 * rebuild's work arrays) the next growth takes again from the heap's
	 * free lists, where a trim would have it fault in page by page (a
	 * third of a growth's time at 1 GB). With one arena (main.c), RSS
	 * stays where it was after the first growth. */
	return rc;
}

/* Whether view v may be behind its log (read lock held): for an inline
 * sidechain's, the session's log changed or the session's view is ahead. */
static int behind(struct tree *t, struct view *v)
{
	if (!v->root)
		return ss_changed(v->s);
	return ss_changed(t->views[0]->s) || ss_part_behind(v->s, t->views[0]->s);
}

/* Brings view v up to its log now (no lock held). */
static void refresh_now(struct tree *t, struct view *v)
{
	pthread_rwlock_wrlock(&t->lock);
	refresh_view(t, v);
	pthread_rwlock_unlock(&t->lock);
}

/*
 * What is left of a look's share re-checks the bytes signed (ss_scrub():
 * only of a log that moved since its last pass; an inline sidechain's is
 * the session's). A view found rewritten is brought up to its log now.
 * Returns the share left.
 */
static uint64_t scrub(struct tree *t, uint64_t budget)
{
	struct view *v;
	uint32_t k;
	int due;

	for (k = 0; budget; k++) {
		pthread_rwlock_rdlock(&t->lock);
		v = k < t->nviews ? t->views[k] : NULL;
		due = 0;
		if (v && !v->root) {
			budget -= ss_scrub(v->s, budget);
			due = ss_rewritten(v->s);
		}
		pthread_rwlock_unlock(&t->lock);
		if (!v)
			break;
		if (due)
			refresh_now(t, v);
	}
	return budget;
}

/*
 * Signs up to budget bytes of what was indexed (ss_sign()) and, once all
 * is signed, checks the signed bytes again with what is left of that
 * share (scrub()). Returns the share left.
 */
static uint64_t sign(struct tree *t, uint64_t budget)
{
	struct ss_signed before, after;
	struct view *v;
	uint32_t k;

	for (k = 0; budget; k++) {
		pthread_rwlock_rdlock(&t->lock);
		v = k < t->nviews ? t->views[k] : NULL;
		if (v) {
			ss_signed(v->s, &before);
			if (ss_sign(v->s, budget))
				budget = 0;	/* this look's share is used */
			ss_signed(v->s, &after);
			if (after.sig.len > before.sig.len) {	/* the bytes signed count */
				uint64_t n = after.sig.len - before.sig.len;

				budget -= n < budget ? n : budget;
			}
		}
		pthread_rwlock_unlock(&t->lock);
		if (!v)
			break;
	}
	return scrub(t, budget);
}

/*
 * The watcher's look (no lock held): each view whose indexed bytes may
 * have changed (ss_rewritten()) is brought up to its log now, so that what
 * the kernel keeps for long is invalidated even when no request comes;
 * growth waits for a request, unless the kernel keeps names of the view's
 * context/ (a growth may move them). Then the signature and its re-check
 * (sign()).
 */
static void watch(struct tree *t)
{
	struct view *v;
	uint32_t k;
	int due;

	for (k = 0;; k++) {
		pthread_rwlock_rdlock(&t->lock);
		v = k < t->nviews ? t->views[k] : NULL;
		due = v && (ss_rewritten(v->s) ||
			    (__atomic_load_n(&v->ctx_named, __ATOMIC_RELAXED) && behind(t, v)));
		pthread_rwlock_unlock(&t->lock);
		if (!v)
			break;
		if (due)
			refresh_now(t, v);
	}
	sign(t, LV_SIGN_STEP);
}

void lv_look(struct tree *t)
{
	watch(t);
}

/* ---- refresh ---- */

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Asks the thread of lv_wait() to look at agents/, when LV_SCAN_MS
 * passed since it was last asked. */
static void want_scan(struct tree *t)
{
	int64_t now = now_ms();
	int64_t last = __atomic_load_n(&t->scanned_ms, __ATOMIC_RELAXED);

	if (now - last < LV_SCAN_MS ||
	    !__atomic_compare_exchange_n(&t->scanned_ms, &last, now, 0,
					 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&t->q.mu);
	__atomic_add_fetch(&t->q.scans_asked, 1, __ATOMIC_RELAXED);
	pthread_cond_signal(&t->q.cv);
	if (t->q.asked)
		t->q.asked(t->q.asked_arg);
	pthread_mutex_unlock(&t->q.mu);
}

void lv_on_ask(struct tree *t, void (*fn)(void *arg), void *arg)
{
	pthread_mutex_lock(&t->q.mu);
	t->q.asked = fn;
	t->q.asked_arg = arg;
	pthread_mutex_unlock(&t->q.mu);
}

void lv_scanned(struct tree *t)
{
	__atomic_store_n(&t->scanned_ms, now_ms(), __ATOMIC_RELAXED);
}

void lv_scan_now(struct tree *t)
{
	struct timespec until;
	uint64_t want;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += LV_SCAN_WAIT_S;
	pthread_mutex_lock(&t->q.mu);
	want = __atomic_add_fetch(&t->q.scans_asked, 1, __ATOMIC_RELAXED);
	pthread_cond_signal(&t->q.cv);
	if (t->q.asked)
		t->q.asked(t->q.asked_arg);
	while (t->q.state == Q_ON && t->q.scans_done < want &&
	       !pthread_cond_timedwait(&t->q.scan_cv, &t->q.mu, &until))
		;
	pthread_mutex_unlock(&t->q.mu);
}

int lv_refresh(struct tree *t, uint64_t ino)
{
	uint32_t k = TR_VIEW(ino);
	struct view *v;
	int changed, rc;

	want_scan(t);
	pthread_rwlock_rdlock(&t->lock);
	v = k < t->nviews ? t->views[k] : NULL;
	changed = v && behind(t, v);
	pthread_rwlock_unlock(&t->lock);
	if (!changed)
		return 0;
	pthread_rwlock_wrlock(&t->lock);
	rc = refresh_view(t, v);	/* views are never removed */
	pthread_rwlock_unlock(&t->lock);
	return rc;
}

/* ---- without a thread of its own (a layer above polls: pjfs) ---- */

int lv_tick(struct tree *t, int agents, uint64_t *share, struct vf_inval **out,
	    size_t *n)
{
	struct view *v;
	uint32_t k;
	int changed, any = 0;

	pthread_mutex_lock(&t->q.mu);
	if (t->q.state == Q_OFF)
		t->q.state = Q_POLLED;
	agents |= t->q.scans_asked != t->q.scans_started;
	__atomic_store_n(&t->q.scans_started, t->q.scans_asked, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&t->q.mu);
	if (agents && ad_scan(t)) {
		cache_prune(t->cache, keep_immutable);	/* README, errors.txt */
		__atomic_add_fetch(&t->gen, 1, __ATOMIC_RELEASE);
		any = 1;
	}
	for (k = 0;; k++) {
		pthread_rwlock_rdlock(&t->lock);
		v = k < t->nviews ? t->views[k] : NULL;
		changed = v && behind(t, v);
		pthread_rwlock_unlock(&t->lock);
		if (!v)
			break;
		if (!changed)
			continue;
		pthread_rwlock_wrlock(&t->lock);
		any |= refresh_view(t, v) > 0;
		pthread_rwlock_unlock(&t->lock);
	}
	*share = sign(t, *share);
	pthread_mutex_lock(&t->q.mu);
	*out = t->q.v;
	*n = t->q.n;
	t->q.v = NULL;
	t->q.n = t->q.cap = 0;
	pthread_mutex_unlock(&t->q.mu);
	return any;
}

int lv_asked(struct tree *t)
{
	return __atomic_load_n(&t->q.scans_asked, __ATOMIC_RELAXED) !=
	       __atomic_load_n(&t->q.scans_started, __ATOMIC_RELAXED);
}

void lv_closing(struct tree *t, struct vf_inval **out, size_t *n)
{
	uint32_t k;

	*n = 0;
	pthread_rwlock_rdlock(&t->lock);
	*out = calloc(t->nviews, sizeof(**out));
	for (k = 0; *out && k < t->nviews; k++) {
		(*out)[k].parent = tr_vino(t->views[k], TI_BRANCHES);
		strcpy((*out)[k].name, "current");
	}
	if (*out)
		*n = t->nviews;
	pthread_rwlock_unlock(&t->lock);
}

/* ---- epochs across a close and reopen ---- */

void lv_mark_free(struct lv_mark *m)
{
	uint32_t i;

	for (i = 0; i < m->n; i++)
		free(m->names[i]);
	free(m->names);
	free(m->epochs);
	sb_free(&m->notes);
	memset(m, 0, sizeof(*m));
}

/* The log's file and the bytes indexed of view 0 (lock held). */
static void log_id(struct tree *t, dev_t *dev, ino_t *ino, uint64_t *bytes)
{
	struct stat st;

	*dev = 0;
	*ino = 0;
	if (!lf_stat(ss_logf(t->views[0]->s), &st)) {
		*dev = st.st_dev;
		*ino = st.st_ino;
	}
	*bytes = idx_end(ss_idx(t->views[0]->s));
}

int lv_mark(struct tree *t, struct lv_mark *m)
{
	uint32_t i;
	int rc = 0;

	lv_mark_free(m);
	pthread_rwlock_rdlock(&t->lock);
	m->next = t->epoch_spare && t->epoch_next == ((t->epoch_new + 1) & TR_EPOCH_MAX)
			  ? t->epoch_new : t->epoch_next;
	log_id(t, &m->dev, &m->ino, &m->bytes);
	m->uid = t->views[0]->uid;
	m->gid = t->views[0]->gid;
	m->mode = t->views[0]->mode;
	ss_signed(t->views[0]->s, &m->sig);
	sb_init(&m->notes);
	ss_notes_copy(t->views[0]->s, &m->notes);
	m->epochs = calloc(t->nviews, sizeof(*m->epochs));
	m->names = calloc(t->nviews, sizeof(*m->names));
	for (i = 0; m->epochs && m->names && i < t->nviews; i++) {
		m->epochs[i] = t->views[i]->epoch;
		if (!(m->names[i] = strdup(t->views[i]->name)))
			break;
		m->n = i + 1;
	}
	if (m->n < t->nviews)
		rc = -ENOMEM;
	pthread_rwlock_unlock(&t->lock);
	if (rc) {
		lv_mark_free(m);	/* reopened as changed */
		m->next = t->epoch_next;
	}
	m->set = 1;
	return rc;
}

/* Whether the tree is the one m describes, grown: the same log file, at
 * least the bytes indexed, the same owner, group and mode (the kernel may
 * keep the attributes it was given for long), and m's views first, in
 * order (lock held). */
static int same_tree(struct tree *t, const struct lv_mark *m)
{
	dev_t dev;
	ino_t ino;
	uint64_t bytes;
	uint32_t i;

	log_id(t, &dev, &ino, &bytes);
	if (!m->n || dev != m->dev || ino != m->ino || bytes < m->bytes || t->nviews < m->n ||
	    m->uid != t->views[0]->uid || m->gid != t->views[0]->gid ||
	    m->mode != t->views[0]->mode)
		return 0;
	for (i = 1; i < m->n; i++)
		if (strcmp(t->views[i]->name, m->names[i]))
			return 0;
	return 1;
}

void lv_resume(struct tree *t, const struct lv_mark *m)
{
	uint32_t i;
	int same;

	if (!m->set)
		return;			/* never marked: the tree's first open */
	pthread_rwlock_wrlock(&t->lock);
	ss_notes_take(t->views[0]->s, m->notes.buf, m->notes.len);
	same = same_tree(t, m);
	if (same)
		ss_resume_signed(t->views[0]->s, &m->sig);
	for (i = 0; i < t->nviews; i++)
		t->views[i]->epoch = same && i < m->n ? m->epochs[i] : m->next;
	t->epoch_new = m->next;
	t->epoch_next = (uint8_t)((m->next + 1) & TR_EPOCH_MAX);
	/* Resumed unchanged, the tree gave m->next to no view: the next mark
	 * hands it on, so closes and reopens of a log that did not change
	 * (a walk through a small cache reopens sessions again and again)
	 * use up no epoch. Else, after 16 of them, a log replaced got the
	 * epoch its old inodes carry, and a file held from before read
	 * another record. */
	t->epoch_spare = same && t->nviews <= m->n;
	pthread_rwlock_unlock(&t->lock);
}

#include "pjfs.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "idx.h"
#include "pjahead.h"
#include "pjcont.h"
#include "pjfs_priv.h"
#include "pjlive.h"
#include "pjusage.h"
#include "projects.h"
#include "plat.h"

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- sets ---- */

static void pset_unref(struct pset *p)
{
	int i;

	if (!p || --p->refs > 0)
		return;
	for (i = 0; i < PF_NFILES; i++)
		if (p->files[i])
			blob_unref(p->files[i]);
	pj_free(p->s);
	free(p->pno);
	free(p);
}

/* A project folder's stable number (mu held), or 0 on ENOMEM. */
static uint32_t project_no(struct pjfs *pf, const char *folder)
{
	uint32_t i;
	char **p;

	for (i = 0; i < pf->npfolders; i++)
		if (!strcmp(pf->pfolders[i], folder))
			return i + 1;
	p = realloc(pf->pfolders, (pf->npfolders + 1) * sizeof(*p));
	if (!p)
		return 0;
	pf->pfolders = p;
	if (!(p[pf->npfolders] = strdup(folder)))
		return 0;
	return ++pf->npfolders;
}

static struct pset *pset_new(struct pjfs *pf, struct pj_set *s)
{
	struct pset *p = calloc(1, sizeof(*p));
	uint32_t i;

	if (!p || !(p->pno = calloc(s->nprojects + 1, sizeof(*p->pno)))) {
		free(p);
		pj_free(s);
		return NULL;
	}
	p->s = s;
	p->refs = 1;
	p->gen = ++pf->gen;
	clock_gettime(CLOCK_REALTIME, &p->time);
	/* What lists sessions (their titles, cwds, names) gives the group
	 * and others no more than every log does: the folder's read bits,
	 * its owner's (who can list the logs anyway) and the group's and
	 * others' that every log has too. */
	p->uid = s->root_st.st_uid;
	p->gid = s->root_st.st_gid;
	p->mode = s->root_st.st_mode & 0444;
	for (i = 0; i < s->nsessions; i++)
		p->mode &= s->sessions[i].mode | 0400;
	for (i = 0; i < s->nprojects; i++)
		p->pno[i] = project_no(pf, s->projects[i].folder);
	return p;
}

/* Closes what the new set no longer holds (mu held). */
static void drop_gone(struct pjfs *pf, const struct pj_set *s)
{
	struct slot *sl, *next;

	for (sl = pf->lru.next; sl != &pf->lru; sl = next) {
		next = sl->next;
		if (!sl->refs && !pj_by_key(s, sl->key))
			pf_slot_close(pf, sl);
	}
}

/* Whether it is time to look at the folder again (mu held): once per
 * PF_RESCAN_MS, or PF_RESCAN_SHARE times the last scan's time when that
 * is longer (a big folder is not scanned most of the time). */
static int rescan_due(const struct pjfs *pf)
{
	int64_t gap = pf->scan_ms * PF_RESCAN_SHARE;

	return now_ms() - pf->scanned_ms >= (gap > PF_RESCAN_MS ? gap : PF_RESCAN_MS);
}

/* The folder was found deleted (mu held): README.md and errors.txt are
 * rendered again with a note, and the notifier tells the kernel
 * (pjlive.c). */
static void folder_gone(struct pjfs *pf)
{
	static const int files[] = { 0, 2 };	/* README.md, errors.txt */
	size_t i;

	pf->root_gone = 1;
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (pf->cur->files[files[i]]) {
			blob_unref(pf->cur->files[files[i]]);
			pf->cur->files[files[i]] = NULL;
		}
}

/* The current set with a reference; looks at the folder again first when
 * rescan is set and it is time. */
static struct pset *get_set(struct pjfs *pf, int rescan)
{
	struct pset *p = NULL, *old;
	struct pj_set *s;
	int64_t t0;

	pthread_mutex_lock(&pf->mu);
	if (rescan && !pf->scanning && rescan_due(pf)) {
		pf->scanning = 1;
		old = pf->cur;
		old->refs++;
		pthread_mutex_unlock(&pf->mu);
		s = NULL;
		t0 = now_ms();
		pj_scan_at(pf->rootfd, pf->dir, old->s, &s);
		pthread_mutex_lock(&pf->mu);
		pset_unref(old);
		/* A folder deleted: the set before stays (what can still be
		 * shown is), and README.md and errors.txt say so. */
		if (s && s->root_gone) {
			pj_free(s);
			s = NULL;
			if (!pf->root_gone)
				folder_gone(pf);
		}
		/* A folder that did not change keeps its set: the same times
		 * and generation, so what the kernel keeps of this layer stays
		 * valid (a link's new time would drop its cached target). */
		if (s && (p = pset_new(pf, s)) && !pv_set_changed(pf->cur, p)) {
			pset_unref(p);
		} else if (s && p) {
			pset_unref(pf->cur);
			pf->cur = p;
			drop_gone(pf, s);
		}
		pf->scanned_ms = now_ms();
		pf->scan_ms = pf->scanned_ms - t0;
		pf->scanning = 0;
	}
	p = pf->cur;
	p->refs++;
	pthread_mutex_unlock(&pf->mu);
	return p;
}

static void put_set(struct pjfs *pf, struct pset *p)
{
	pthread_mutex_lock(&pf->mu);
	pset_unref(p);
	pthread_mutex_unlock(&pf->mu);
}

/* ---- set-up ---- */

/* The first scan of dir, held open in *fd; -ENOMSG when it is no
 * projects folder (pj_is_projects()). */
static int first_scan(const char *dir, char **root, int *fd, struct pj_set **out)
{
	int rc = pj_open_root(dir, root, fd);

	*out = NULL;
	if (rc)
		return rc;
	rc = pj_scan_at(*fd, *root, NULL, out);
	if (!rc && !pj_is_projects(*out))
		rc = -ENOMSG;
	if (rc) {
		pj_free(*out);
		*out = NULL;
		close(*fd);
		*fd = -1;
		free(*root);
		*root = NULL;
	}
	return rc;
}

int pf_new(const char *dir, uint64_t cache_bytes, struct pjfs **out)
{
	struct pjfs *pf = calloc(1, sizeof(*pf));
	struct pj_set *s;
	int rc;

	*out = NULL;
	if (!pf)
		return -ENOMEM;
	rc = first_scan(dir, &pf->dir, &pf->rootfd, &s);
	if (rc) {
		free(pf);
		return rc;
	}
	pthread_mutex_init(&pf->mu, NULL);
	pthread_cond_init(&pf->cv, NULL);
	pf->lru.next = pf->lru.prev = &pf->lru;
	pf->budget = cache_bytes;
	pf->scanned_ms = now_ms();
	pf->slots = calloc(PJ_KEY_MAX + 1, sizeof(*pf->slots));
	pf->cur = pset_new(pf, s);
	pf->live = pv_new();
	pf->ahead = pa_new(pf);
	if (!pf->dir || !pf->slots || !pf->cur || !pf->live || !pf->ahead ||
	    pu_new(&pf->pu) || pc_new(&pf->pc)) {
		pf_free(pf);
		return -ENOMEM;
	}
	pv_start(pf);
	*out = pf;
	return 0;
}

void pf_free(struct pjfs *pf)
{
	uint32_t i;

	if (!pf)
		return;
	pa_free(pf->ahead);	/* its threads open sessions: first */
	while (pf->lru.next != &pf->lru)
		pf_slot_close(pf, pf->lru.next);
	for (i = 0; pf->slots && i <= PJ_KEY_MAX; i++)
		if (pf->slots[i]) {
			lv_mark_free(&pf->slots[i]->mark);
			free(pf->slots[i]->title);
			free(pf->slots[i]);
		}
	pv_free(pf);
	free(pf->slots);
	for (i = 0; i < pf->npfolders; i++)
		free(pf->pfolders[i]);
	free(pf->pfolders);
	pset_unref(pf->cur);
	pu_free(pf->pu);
	pc_free(pf->pc);
	free(pf->dir);
	if (pf->rootfd >= 0)
		close(pf->rootfd);
	pthread_mutex_destroy(&pf->mu);
	pthread_cond_destroy(&pf->cv);
	free(pf);
}

const char *pf_error(int rc)
{
	return rc == -ENOMSG ? PF_NOT_PROJECTS : strerror(-rc);
}

int pf_check(const char *dir)
{
	struct pj_set *s;
	struct sbuf out;
	char *root;
	int fd, rc = first_scan(dir, &root, &fd, &s);

	if (rc) {
		fprintf(stderr, "sessfs: %s: %s\n", dir, pf_error(rc));
		return 1;
	}
	close(fd);
	free(root);
	sb_init(&out);
	pj_facts_json(s, &out);
	fwrite(out.buf, 1, out.len, stdout);
	sb_free(&out);
	pj_free(s);
	return 0;
}

/* ---- this layer's nodes ---- */

static int project_index(const struct pset *p, uint32_t no)
{
	uint32_t i;

	for (i = 0; i < p->s->nprojects; i++)
		if (p->pno[i] == no)
			return (int)i;
	return -1;
}

/* The session a fork was copied from, or NULL. */
static const struct pj_session *origin(const struct pj_set *s, const struct pj_session *x)
{
	uint32_t i;

	if (!x->fork_sid)
		return NULL;
	for (i = 0; i < s->nsessions; i++)
		if (s->sessions[i].f.sid && !strcmp(s->sessions[i].f.sid, x->fork_sid) &&
		    &s->sessions[i] != x)
			return &s->sessions[i];
	return NULL;
}

/* The target of one of this layer's links; 0 or -ENOENT. */
static int link_target(struct pjfs *pf, const struct pj_set *s, uint64_t ino, char *out)
{
	const struct pj_session *x, *o;

	if (ino == PI_LATEST) {
		if (s->latest < 0)
			return -ENOENT;
		snprintf(out, NM_MAX + 1, "sessions/%.200s", s->sessions[s->latest].link);
		return 0;
	}
	x = pj_by_key(s, PF_IDX(ino));
	if (!x)
		return -ENOENT;
	if (PF_TYPE(ino) == PT_LINK) {
		snprintf(out, NM_MAX + 1, "../projects/%.115s/%.115s", s->projects[x->project].name,
			 x->name);
		return 0;
	}
	o = PF_TYPE(ino) == PT_FORK ? origin(s, x) :
	    PF_TYPE(ino) == PT_CONT ? pc_target(pf->pc, s, x->key) : NULL;
	if (!o)
		return -ENOENT;
	snprintf(out, NM_MAX + 1, "../../%.115s/%.115s", s->projects[o->project].name, o->name);
	return 0;
}

static void fill(struct pjfs *pf, const struct pset *p, uint64_t ino, struct tr_attr *a)
{
	(void)pf;
	memset(a, 0, sizeof(*a));
	a->st.st_ino = ino;
	a->st.st_uid = p->uid;
	a->st.st_gid = p->gid;
	PL_MTIM(a->st) = PL_CTIM(a->st) = PL_ATIM(a->st) = p->time;
	a->st.st_blksize = 4096;
}

/* This layer's folders change only when the folder is looked at again,
 * and the look tells the kernel (pjlive.h): it may keep them PF_KEEP_MS
 * (a path through sessions/ then costs no round trip per step, also for
 * a walk that comes back to a session more than a second later). */
static void set_dir(const struct pset *p, struct tr_attr *a)
{
	a->st.st_mode = S_IFDIR | TR_DIR_PERM(p->mode);
	a->st.st_nlink = 2;
	a->keep_ms = PF_KEEP_MS;
}

/* A link in sessions/ has its session's times, and the look tells the
 * kernel when it changes: kept as long as the folders. The others
 * (latest, forked-from, continued-from) name another session, and are
 * kept PF_RESCAN_MS. */
static int set_link(struct pjfs *pf, const struct pj_set *s, uint64_t ino, struct tr_attr *a)
{
	const struct pj_session *x;
	char target[NM_MAX + 1];

	if (link_target(pf, s, ino, target))
		return -ENOENT;
	a->st.st_mode = S_IFLNK | 0777;
	a->st.st_nlink = 1;
	a->st.st_size = (off_t)strlen(target);
	a->keep_ms = PF_RESCAN_MS;
	if (PF_TYPE(ino) == PT_LINK && (x = pj_by_key(s, PF_IDX(ino)))) {
		PL_MTIM(a->st) = PL_CTIM(a->st) = PL_ATIM(a->st) = x->mtime;
		a->keep_ms = PF_KEEP_MS;
	}
	return 0;
}

/* A session folder's attributes, without opening it. */
static int session_dir_attr(struct pjfs *pf, const struct pset *p, uint32_t key,
			    struct tr_attr *a)
{
	const struct pj_session *x = pj_by_key(p->s, key);

	if (!x)
		return -ENOENT;
	fill(pf, p, PF_OUTER(key, TI_ROOT), a);
	set_dir(p, a);
	/* as its log gives (tree.h) */
	a->st.st_uid = x->uid;
	a->st.st_gid = x->gid;
	a->st.st_mode = S_IFDIR | TR_DIR_PERM(x->mode);
	PL_MTIM(a->st) = PL_CTIM(a->st) = PL_ATIM(a->st) = x->mtime;
	return 0;
}

/* Attributes of one of this layer's nodes (a session folder included). */
static int own_attr(struct pjfs *pf, struct pset *p, uint64_t ino, struct tr_attr *a)
{
	struct blob *b;
	int i = pf_file_index(ino);

	if (PF_KEY(ino))
		return PF_INNER(ino) == TI_ROOT ? session_dir_attr(pf, p, PF_KEY(ino), a) : -ENOENT;
	fill(pf, p, ino, a);
	switch (PF_TYPE(ino)) {
	case PT_PROJECT:
		if (project_index(p, PF_IDX(ino)) < 0)
			return -ENOENT;
		set_dir(p, a);
		return 0;
	case PT_LINK:
	case PT_FORK:
	case PT_CONT:
		return set_link(pf, p->s, ino, a);
	}
	if (ino == PI_ROOT || ino == PI_PROJECTS || ino == PI_SESSIONS) {
		set_dir(p, a);
		return 0;
	}
	if (ino == PI_LATEST)
		return set_link(pf, p->s, ino, a);
	if (i < 0 || pf_own_file(pf, p, i, &b))
		return -ENOENT;
	a->st.st_mode = S_IFREG | TR_FILE_PERM(p->mode);
	a->st.st_nlink = 1;
	a->st.st_size = (off_t)b->len;
	a->st.st_blocks = (blkcnt_t)((b->len + 511) / 512);
	blob_unref(b);
	return 0;
}

static const struct {
	const char *name;
	uint64_t ino;
} root_entries[] = {
	{ "README.md", PI_README }, { "sessions.json", PI_SESSIONS_JSON },
	{ "errors.txt", PI_ERRORS }, { "usage.json", PI_USAGE_JSON }, { "projects", PI_PROJECTS },
	{ "sessions", PI_SESSIONS }, { "latest", PI_LATEST },
};

#define NROOT (sizeof(root_entries) / sizeof(root_entries[0]))

/* The inode of name in one of this layer's folders, or 0. */
static uint64_t own_lookup(const struct pset *p, uint64_t parent, const char *name)
{
	const struct pj_session *x;
	size_t i;
	int k;

	if (parent == PI_ROOT) {
		for (i = 0; i < NROOT; i++)
			if (!strcmp(name, root_entries[i].name))
				return root_entries[i].ino;
		return 0;
	}
	if (parent == PI_PROJECTS) {
		k = pj_project(p->s, name);
		return k < 0 ? 0 : PF_INO(PT_PROJECT, p->pno[k]);
	}
	if (parent == PI_SESSIONS) {
		x = pj_find_link(p->s, name);
		return x ? PF_INO(PT_LINK, x->key) : 0;
	}
	if (PF_TYPE(parent) == PT_PROJECT && (k = project_index(p, PF_IDX(parent))) >= 0) {
		x = pj_find(p->s, (uint32_t)k, name);
		return x ? PF_OUTER(x->key, TI_ROOT) : 0;
	}
	return 0;
}

/* Whether a request for ino should look at the folder again first. */
static int wants_rescan(uint64_t ino)
{
	return !PF_KEY(ino) || PF_INNER(ino) == TI_ROOT;
}

/* ---- the calls ---- */

/* An open folder: one of this layer's (names from its set), or a
 * session's (its tree's listing, after forked-from and continued-from
 * when it has them). */
struct pf_dir {
	struct pset *p;
	uint64_t ino;
	uint32_t n;
	const char **names;
	uint64_t *inos;
	struct slot *sl;
	struct tr_dir *td;
	uint32_t key;
	int stub;			/* a session that cannot be opened: its
					 * stub files (names, inos) */
	uint32_t nlinks;		/* forked-from, continued-from */
	uint64_t link_ino[2];
	const char *link_name[2];
	uint64_t gen;
};

/* Stub file i (pjfs_stub.c) of session key, which could not be opened
 * just now; -ENOENT when it is none or the session opened since. */
static int stub_attr(struct pjfs *pf, struct pset *p, uint32_t key, int i, struct tr_attr *a)
{
	const struct pj_session *x = pj_by_key(p->s, key);
	int rc = x && i >= 0 ? pf_open_error(pf, key) : 0;

	return rc ? pf_stub_attr(pf, p, x, rc, i, a) : -ENOENT;
}

static int getattr_in(struct pjfs *pf, struct pset *p, uint64_t ino, struct tr_attr *a)
{
	uint32_t key = PF_KEY(ino);
	struct slot *sl;
	int rc;

	if (!key || PF_INNER(ino) == TI_ROOT)
		return own_attr(pf, p, ino, a);
	sl = pf_slot_get(pf, p, key, 1);
	if (!sl)
		return stub_attr(pf, p, key, pf_stub_index(PF_INNER(ino)), a);
	rc = tr_getattr(sl->t, PF_INNER(ino), a);
	if (!rc)
		a->st.st_ino = ino;
	pf_slot_put(pf, sl);
	return rc;
}

static int pf_getattr(void *fs, uint64_t ino, struct tr_attr *a)
{
	struct pjfs *pf = fs;
	struct pset *p = get_set(pf, wants_rescan(ino));
	int rc = getattr_in(pf, p, ino, a);

	put_set(pf, p);
	return rc;
}

/*
 * A session's branches/current, reached by its name: the kernel may keep
 * it as long as this layer's own links (a path through sessions/ walks it
 * on every use: a grep -r over every session's current branch looked it up
 * eight times per session, and once a session again after a second). Its
 * inode is the branch's it names (tree.h), so what the kernel kept never
 * leads to another branch; when current moves, the look tells the kernel
 * (live.h), and a session closed has it forgotten (pjlive.h): a new
 * current branch shows within about a second.
 */
static void keep_current(struct tr_attr *a, uint64_t inner)
{
	if (TR_KIND(inner) == TK_CURRENT && !a->fixed_name && a->keep_ms < PF_KEEP_MS)
		a->keep_ms = PF_KEEP_MS;
}

static int lookup_in(struct pjfs *pf, struct pset *p, uint64_t parent, const char *name,
		     struct tr_attr *a)
{
	uint32_t key = PF_KEY(parent);
	const struct pj_session *x;
	struct slot *sl;
	uint64_t ino;
	int rc;

	if (!key) {
		ino = own_lookup(p, parent, name);
		return ino ? own_attr(pf, p, ino, a) : -ENOENT;
	}
	if (PF_INNER(parent) == TI_ROOT && !strcmp(name, "continued-from")) {
		if (!(sl = pf_slot_get(pf, p, key, 1)))
			return -ENOENT;
		pf_slot_put(pf, sl);
		return pc_target(pf->pc, p->s, key) ? own_attr(pf, p, PF_INO(PT_CONT, key), a) : -ENOENT;
	}
	if (PF_INNER(parent) == TI_ROOT && !strcmp(name, "forked-from")) {
		x = pj_by_key(p->s, key);
		return x && origin(p->s, x) ? own_attr(pf, p, PF_INO(PT_FORK, key), a) : -ENOENT;
	}
	sl = pf_slot_get(pf, p, key, 1);
	if (!sl)
		return stub_attr(pf, p, key, PF_INNER(parent) == TI_ROOT ? pf_stub_lookup(name) : -1, a);
	rc = tr_lookup(sl->t, PF_INNER(parent), name, a);
	if (!rc) {
		keep_current(a, a->st.st_ino);
		a->st.st_ino = PF_OUTER(key, a->st.st_ino);
	}
	pf_slot_put(pf, sl);
	return rc;
}

static int pf_lookup(void *fs, uint64_t parent, const char *name, struct tr_attr *a)
{
	struct pjfs *pf = fs;
	struct pset *p = get_set(pf, !PF_KEY(parent));
	int rc = lookup_in(pf, p, parent, name, a);

	put_set(pf, p);
	return rc;
}

static int own_names(struct pf_dir *d, uint32_t n)
{
	d->names = calloc(n + 1, sizeof(*d->names));
	d->inos = calloc(n + 1, sizeof(*d->inos));
	return d->names && d->inos ? 0 : -ENOMEM;
}

static void add_name(struct pf_dir *d, const char *name, uint64_t ino)
{
	d->names[d->n] = name;
	d->inos[d->n++] = ino;
}

/* The listing of one of this layer's folders. */
static int own_listing(struct pf_dir *d)
{
	const struct pj_set *s = d->p->s;
	const struct pj_session *x;
	uint32_t i;
	int k;

	if (d->ino == PI_ROOT) {
		if (own_names(d, NROOT))
			return -ENOMEM;
		for (i = 0; i < NROOT; i++)
			if (root_entries[i].ino != PI_LATEST || s->latest >= 0)
				add_name(d, root_entries[i].name, root_entries[i].ino);
	} else if (d->ino == PI_PROJECTS) {
		if (own_names(d, s->nprojects))
			return -ENOMEM;
		for (i = 0; i < s->nprojects; i++)
			add_name(d, s->projects[i].name, PF_INO(PT_PROJECT, d->p->pno[i]));
	} else if (d->ino == PI_SESSIONS) {
		if (own_names(d, s->nsessions))
			return -ENOMEM;
		for (i = 0; i < s->nsessions; i++)
			add_name(d, s->sessions[i].link, PF_INO(PT_LINK, s->sessions[i].key));
	} else if (PF_TYPE(d->ino) == PT_PROJECT && (k = project_index(d->p, PF_IDX(d->ino))) >= 0) {
		const struct pj_project *pr = &s->projects[k];

		if (own_names(d, pr->nsessions))
			return -ENOMEM;
		for (i = 0; i < pr->nsessions; i++) {
			x = &s->sessions[pr->sessions[i]];
			add_name(d, x->name, PF_OUTER(x->key, TI_ROOT));
		}
	} else {
		return PF_TYPE(d->ino) == PT_PROJECT ? -ENOENT : -ENOTDIR;
	}
	d->gen = d->p->gen;
	return 0;
}

/* The listing of a session's folder that cannot be opened: its stub
 * files (pjfs_stub.c); -ENOENT when it is no such session. */
static int stub_listing(struct pjfs *pf, struct pf_dir *d)
{
	int i;

	if (PF_INNER(d->ino) != TI_ROOT || !pf_open_error(pf, d->key))
		return -ENOENT;
	if (own_names(d, PF_STUB_N))
		return -ENOMEM;
	for (i = 0; i < PF_STUB_N; i++)
		add_name(d, pf_stub_name(i), PF_OUTER(d->key, pf_stub_inner(i)));
	d->stub = 1;
	d->gen = d->p->gen | (UINT64_C(1) << 63);
	return 0;
}

static int session_listing(struct pjfs *pf, struct pf_dir *d)
{
	const struct pj_session *x = pj_by_key(d->p->s, d->key);
	int rc;

	d->sl = x ? pf_slot_get(pf, d->p, d->key, 1) : NULL;
	if (!d->sl)
		return x ? stub_listing(pf, d) : -ENOENT;
	rc = tr_opendir(d->sl->t, PF_INNER(d->ino), &d->td);
	if (rc)
		return rc;
	pthread_mutex_lock(&pf->mu);
	d->sl->listed = 1;
	pthread_mutex_unlock(&pf->mu);
	pa_listed(pf->ahead, d->key, pf_walk_folder(d->sl->t, PF_INNER(d->ino)));
	if (PF_INNER(d->ino) == TI_ROOT && origin(d->p->s, x)) {
		d->link_name[d->nlinks] = "forked-from";
		d->link_ino[d->nlinks++] = PF_INO(PT_FORK, d->key);
	}
	if (PF_INNER(d->ino) == TI_ROOT && pc_target(pf->pc, d->p->s, d->key)) {
		d->link_name[d->nlinks] = "continued-from";
		d->link_ino[d->nlinks++] = PF_INO(PT_CONT, d->key);
	}
	d->gen = tr_dir_gen(d->td) + ((uint64_t)d->sl->opens << 40);
	return 0;
}

static void pf_closedir(void *fs, struct vf_dir *vd)
{
	struct pjfs *pf = fs;
	struct pf_dir *d = (struct pf_dir *)vd;

	if (!d)
		return;
	tr_closedir(d->td);
	if (d->sl)
		pf_slot_put(pf, d->sl);
	if (d->p)
		put_set(pf, d->p);
	free(d->names);
	free(d->inos);
	free(d);
}

static int pf_opendir(void *fs, uint64_t ino, struct vf_dir **out)
{
	struct pjfs *pf = fs;
	struct pf_dir *d = calloc(1, sizeof(*d));
	int rc;

	*out = NULL;
	if (!d)
		return -ENOMEM;
	d->ino = ino;
	d->key = PF_KEY(ino);
	d->p = get_set(pf, wants_rescan(ino));
	rc = d->key ? session_listing(pf, d) : own_listing(d);
	if (rc) {
		pf_closedir(pf, (struct vf_dir *)d);
		return rc;
	}
	*out = (struct vf_dir *)d;
	return 0;
}

static int own_entry(struct pjfs *pf, struct pf_dir *d, uint64_t i, char *name,
		     struct tr_attr *a)
{
	if (i >= (uint64_t)d->n + 2)
		return 0;
	if (i < 2) {
		strcpy(name, i ? ".." : ".");
		fill(pf, d->p, i ? PI_ROOT : d->ino, a);
		set_dir(d->p, a);
		return 1;
	}
	snprintf(name, NM_MAX + 1, "%s", d->names[i - 2]);
	if (d->stub)
		return stub_attr(pf, d->p, d->key, (int)(i - 2), a) ? -ENOENT : 1;
	if (d->inos[i - 2] == PI_USAGE_JSON) {	/* its size would count every log */
		fill(pf, d->p, PI_USAGE_JSON, a);
		a->st.st_mode = S_IFREG | TR_FILE_PERM(d->p->mode);
		a->lazy = 1;
		return 1;
	}
	return own_attr(pf, d->p, d->inos[i - 2], a) ? -ENOENT : 1;
}

static int pf_dir_entry(void *fs, struct vf_dir *vd, uint64_t i, char *name,
			struct tr_attr *a)
{
	struct pjfs *pf = fs;
	struct pf_dir *d = (struct pf_dir *)vd;
	int rc;

	if (!d->key || d->stub)
		return own_entry(pf, d, i, name, a);
	if (i >= 2 && i < 2 + (uint64_t)d->nlinks) {
		strcpy(name, d->link_name[i - 2]);
		return own_attr(pf, d->p, d->link_ino[i - 2], a) ? -ENOENT : 1;
	}
	rc = tr_dir_entry(d->sl->t, d->td, i >= 2 ? i - d->nlinks : i, name, a);
	if (rc > 0) {
		keep_current(a, a->st.st_ino);
		a->st.st_ino = PF_OUTER(d->key, a->st.st_ino);
	}
	return rc;
}

static uint64_t pf_dir_gen(const struct vf_dir *vd)
{
	return ((const struct pf_dir *)vd)->gen;
}

static int stub_content(struct pjfs *pf, struct pset *p, uint32_t key, int i,
			struct blob **out)
{
	const struct pj_session *x = pj_by_key(p->s, key);
	int rc = x && i >= 0 ? pf_open_error(pf, key) : 0;

	return rc ? pf_stub_content(pf, p, x, rc, i, out) : -ENOENT;
}

static int pf_content(void *fs, uint64_t ino, struct blob **out)
{
	struct pjfs *pf = fs;
	struct pset *p = get_set(pf, 0);
	struct slot *sl;
	int rc = -EISDIR;

	if (!PF_KEY(ino)) {
		if (pf_file_index(ino) >= 0)
			rc = pf_own_file(pf, p, pf_file_index(ino), out);
	} else if (!(sl = pf_slot_get(pf, p, PF_KEY(ino), 0))) {	/* reads, pushes */
		rc = stub_content(pf, p, PF_KEY(ino), pf_stub_index(PF_INNER(ino)), out);
	} else {
		rc = tr_content(sl->t, PF_INNER(ino), out);
		pf_slot_put(pf, sl);
	}
	put_set(pf, p);
	return rc;
}

/* Calls fn on the open tree of a session's inode; own: rc_own. walk: the
 * call is a reader's (pjahead.h), not the pushes' that follow a listing. */
static int in_tree(struct pjfs *pf, uint64_t ino, int rc_own, int rc_stub, int walk,
		   int (*fn)(struct tree *t, uint64_t ino, void *arg), void *arg)
{
	struct pset *p;
	struct slot *sl;
	int rc;

	if (!PF_KEY(ino))
		return rc_own;
	p = get_set(pf, 0);
	sl = pf_slot_get(pf, p, PF_KEY(ino), walk);
	if (sl)
		rc = fn(sl->t, PF_INNER(ino), arg);
	else	/* a stub's folder or file (pjfs_stub.c), or nothing */
		rc = pj_by_key(p->s, PF_KEY(ino)) && pf_open_error(pf, PF_KEY(ino)) &&
		     (PF_INNER(ino) == TI_ROOT || pf_stub_index(PF_INNER(ino)) >= 0) ? rc_stub : -ENOENT;
	if (sl)
		pf_slot_put(pf, sl);
	put_set(pf, p);
	return rc;
}

static int do_readlink(struct tree *t, uint64_t ino, void *arg)
{
	return tr_readlink(t, ino, arg);
}

static int pf_readlink(void *fs, uint64_t ino, char *out)
{
	struct pjfs *pf = fs;
	struct pset *p;
	int rc;

	if (PF_KEY(ino))
		return in_tree(pf, ino, 0, -EINVAL, 1, do_readlink, out);
	p = get_set(pf, 0);
	rc = link_target(pf, p->s, ino, out);
	put_set(pf, p);
	return rc == -ENOENT && !PF_TYPE(ino) && ino != PI_LATEST ? -EINVAL : rc;
}

struct xattr_arg {
	const char *name;
	struct sbuf *out;
};

static int do_getxattr(struct tree *t, uint64_t ino, void *arg)
{
	struct xattr_arg *x = arg;

	return tr_getxattr(t, ino, x->name, x->out);
}

static int pf_getxattr(void *fs, uint64_t ino, const char *name, struct sbuf *out)
{
	struct xattr_arg x = { name, out };

	return in_tree(fs, ino, -ENODATA, -ENODATA, 1, do_getxattr, &x);
}

static int do_listxattr(struct tree *t, uint64_t ino, void *arg)
{
	return tr_listxattr(t, ino, arg);
}

static int pf_listxattr(void *fs, uint64_t ino, struct sbuf *out)
{
	return in_tree(fs, ino, 0, 0, 1, do_listxattr, out);
}

static int do_claim(struct tree *t, uint64_t ino, void *arg)
{
	(void)arg;
	return tr_claim_push(t, ino);
}

static int pf_claim_push(void *fs, uint64_t ino)
{
	int rc = in_tree(fs, ino, 0, 0, 0, do_claim, NULL);

	return rc > 0;
}

static int do_pushed(struct tree *t, uint64_t ino, void *arg)
{
	(void)arg;
	tr_pushed(t, ino);
	return 0;
}

static void pf_pushed(void *fs, uint64_t ino)
{
	in_tree(fs, ino, 0, 0, 0, do_pushed, NULL);
}

const struct vf_ops pf_ops = {
	pf_getattr, pf_lookup, pf_opendir, pf_dir_entry, pf_closedir, pf_dir_gen,
	pf_content, pf_readlink, pf_getxattr, pf_listxattr, pf_claim_push,
	pf_pushed, pv_wait, pv_stop, pv_own_device,
};

/* ---- for pjlive.c ---- */

struct pset *pf_set_get(struct pjfs *pf, int rescan)
{
	return get_set(pf, rescan);
}

void pf_set_put(struct pjfs *pf, struct pset *p)
{
	put_set(pf, p);
}

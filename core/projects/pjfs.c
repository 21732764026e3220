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

/* ---- set-up ---- */

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

/* Opens a session ahead of a walk (pjahead.h's pa_open_fn). */
static int open_ahead(void *arg, uint32_t key, uint64_t folder, int deep)
{
	return pf_open_ahead(arg, key, folder, deep);
}

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
	pf->scanned_ms = pf_now_ms();
	pf->slots = calloc(PJ_KEY_MAX + 1, sizeof(*pf->slots));
	pf->hooks = (struct pf_hooks){ pv_set_changed, drop_gone, pv_opened, pv_closed };
	pf->cur = pf_set_new(pf, s);
	pf->live = pv_new();
	pf->ahead = pa_new(open_ahead, pf);
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
	pf_set_unref(pf->cur);
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

int pf_scan_first(const char *dir, struct pj_set **out)
{
	char *root;
	int fd, rc = first_scan(dir, &root, &fd, out);

	if (rc)
		return rc;
	close(fd);
	free(root);
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
/* The session x continues: the log it copies (known from the listing),
 * else the one its summaries name (known once x was opened). */
static const struct pj_session *continued(struct pjfs *pf, const struct pj_set *s,
					  const struct pj_session *x)
{
	return x->copy_of ? pj_by_key(s, x->copy_of) : pc_target(pf->pc, s, x->key);
}

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
	if (PF_TYPE(ino) == PT_TO) {	/* from projects/<p>/<s>/forks/ */
		snprintf(out, NM_MAX + 1, "../../../%.115s/%.115s", s->projects[x->project].name,
			 x->name);
		return 0;
	}
	o = PF_TYPE(ino) == PT_FORK ? origin(s, x) :
	    PF_TYPE(ino) == PT_CONT ? continued(pf, s, x) : NULL;
	if (!o)
		return -ENOENT;
	snprintf(out, NM_MAX + 1, "../../%.115s/%.115s", s->projects[o->project].name, o->name);
	return 0;
}

/*
 * Whether session y is one that forks/ (type PT_FORKS) or continued-by/
 * (PT_CONT_BY) of session x lists: y was forked from x (forked-from), or
 * continues it (continued-from: it copies x's chain, or its summaries
 * name x's rows).
 */
static int related(struct pjfs *pf, const struct pj_set *s, unsigned type,
		   const struct pj_session *x, const struct pj_session *y)
{
	if (y == x)
		return 0;
	if (type == PT_FORKS)
		return y->fork_sid && x->f.sid && !strcmp(y->fork_sid, x->f.sid) &&
		       origin(s, y) == x;
	return continued(pf, s, y) == x;
}

/* How many sessions x's folder of type lists. */
static uint32_t nrelated(struct pjfs *pf, const struct pj_set *s, unsigned type,
			 const struct pj_session *x)
{
	uint32_t i, n = 0;

	for (i = 0; x && i < s->nsessions; i++)
		n += related(pf, s, type, x, &s->sessions[i]);
	return n;
}

static void fill(struct pjfs *pf, const struct pset *p, uint64_t ino, struct vf_attr *a)
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
static void set_dir(const struct pset *p, struct vf_attr *a)
{
	a->st.st_mode = S_IFDIR | TR_DIR_PERM(p->mode);
	a->st.st_nlink = 2;
	a->keep_ms = PF_KEEP_MS;
}

/* A link in sessions/ has its session's times, and the look tells the
 * kernel when it changes: kept as long as the folders. The others
 * (latest, forked-from, continued-from) name another session, and are
 * kept PF_RESCAN_MS. */
static int set_link(struct pjfs *pf, const struct pj_set *s, uint64_t ino, struct vf_attr *a)
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
			    struct vf_attr *a)
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
static int own_attr(struct pjfs *pf, struct pset *p, uint64_t ino, struct vf_attr *a)
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
	case PT_TO:
		return set_link(pf, p->s, ino, a);
	case PT_FORKS:
	case PT_CONT_BY:
		if (!nrelated(pf, p->s, PF_TYPE(ino), pj_by_key(p->s, PF_IDX(ino))))
			return -ENOENT;
		set_dir(p, a);
		return 0;
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
	{ "errors.txt", PI_ERRORS }, { "usage.json", PI_USAGE_JSON }, { "usage.txt", PI_USAGE_TXT },
	{ "projects", PI_PROJECTS },
	{ "sessions", PI_SESSIONS }, { "latest", PI_LATEST },
};

#define NROOT (sizeof(root_entries) / sizeof(root_entries[0]))

/* The inode of name in one of this layer's folders, or 0. */
static uint64_t own_lookup(struct pjfs *pf, const struct pset *p, uint64_t parent,
			   const char *name)
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
		return x && !x->copied_by ? PF_INO(PT_LINK, x->key) : 0;
	}
	if (PF_TYPE(parent) == PT_PROJECT && (k = project_index(p, PF_IDX(parent))) >= 0) {
		x = pj_find(p->s, (uint32_t)k, name);
		return x ? PF_OUTER(x->key, TI_ROOT) : 0;
	}
	if (PF_TYPE(parent) == PT_FORKS || PF_TYPE(parent) == PT_CONT_BY) {
		const struct pj_session *of = pj_by_key(p->s, PF_IDX(parent));

		x = pj_find_link(p->s, name);
		return of && x && related(pf, p->s, PF_TYPE(parent), of, x) ? PF_INO(PT_TO, x->key)
									 : 0;
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
	uint32_t nlinks;		/* forked-from, continued-from, continued-by/,
					 * forks/ */
	uint64_t link_ino[4];
	const char *link_name[4];
	uint64_t gen;
};

/* Stub file i (pjfs_stub.c) of session key, which could not be opened
 * just now; -ENOENT when it is none or the session opened since. */
static int stub_attr(struct pjfs *pf, struct pset *p, uint32_t key, int i, struct vf_attr *a)
{
	const struct pj_session *x = pj_by_key(p->s, key);
	int rc = x && i >= 0 ? pf_open_error(pf, key) : 0;

	return rc ? pf_stub_attr(pf, p, x, rc, i, a) : -ENOENT;
}

static int getattr_in(struct pjfs *pf, struct pset *p, uint64_t ino, struct vf_attr *a)
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

static int pf_getattr(void *fs, uint64_t ino, struct vf_attr *a)
{
	struct pjfs *pf = fs;
	struct pset *p = pf_set_get(pf, wants_rescan(ino));
	int rc = getattr_in(pf, p, ino, a);

	pf_set_put(pf, p);
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
static void keep_current(struct vf_attr *a, uint64_t inner)
{
	if (TR_KIND(inner) == TK_CURRENT && !a->fixed_name && a->keep_ms < PF_KEEP_MS)
		a->keep_ms = PF_KEEP_MS;
}

static int lookup_in(struct pjfs *pf, struct pset *p, uint64_t parent, const char *name,
		     struct vf_attr *a)
{
	uint32_t key = PF_KEY(parent);
	const struct pj_session *x;
	struct slot *sl;
	uint64_t ino;
	int rc;

	if (!key) {
		ino = own_lookup(pf, p, parent, name);
		return ino ? own_attr(pf, p, ino, a) : -ENOENT;
	}
	if (PF_INNER(parent) == TI_ROOT && !strcmp(name, "continued-from")) {
		/* what its summaries name is looked for when it is opened */
		x = pj_by_key(p->s, key);
		if (!x)
			return -ENOENT;
		if (!x->copy_of) {
			if (!(sl = pf_slot_get(pf, p, key, 1)))
				return -ENOENT;
			pf_slot_put(pf, sl);
		}
		return continued(pf, p->s, x) ? own_attr(pf, p, PF_INO(PT_CONT, key), a) : -ENOENT;
	}
	if (PF_INNER(parent) == TI_ROOT && !strcmp(name, "continued-by"))
		return own_attr(pf, p, PF_INO(PT_CONT_BY, key), a);
	if (PF_INNER(parent) == TI_ROOT && !strcmp(name, "forks"))
		return own_attr(pf, p, PF_INO(PT_FORKS, key), a);
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

static int pf_lookup(void *fs, uint64_t parent, const char *name, struct vf_attr *a)
{
	struct pjfs *pf = fs;
	struct pset *p = pf_set_get(pf, !PF_KEY(parent));
	int rc = lookup_in(pf, p, parent, name, a);

	pf_set_put(pf, p);
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
static int own_listing(struct pjfs *pf, struct pf_dir *d)
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
		for (i = 0; i < s->nsessions; i++)	/* a conversation once (pj_link_copies()) */
			if (!s->sessions[i].copied_by)
				add_name(d, s->sessions[i].link, PF_INO(PT_LINK, s->sessions[i].key));
	} else if (PF_TYPE(d->ino) == PT_FORKS || PF_TYPE(d->ino) == PT_CONT_BY) {
		const struct pj_session *of = pj_by_key(s, PF_IDX(d->ino));

		if (!of)
			return -ENOENT;
		if (own_names(d, nrelated(pf, s, PF_TYPE(d->ino), of)))
			return -ENOMEM;
		for (i = 0; i < s->nsessions; i++)
			if (related(pf, s, PF_TYPE(d->ino), of, &s->sessions[i]))
				add_name(d, s->sessions[i].link, PF_INO(PT_TO, s->sessions[i].key));
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
	if (!d->sl->listed)
		d->sl->listed = 1;
	pthread_mutex_unlock(&pf->mu);
	pa_listed(pf->ahead, d->key, pf_walk_folder(d->sl->t, PF_INNER(d->ino)));
	if (PF_INNER(d->ino) == TI_ROOT && origin(d->p->s, x)) {
		d->link_name[d->nlinks] = "forked-from";
		d->link_ino[d->nlinks++] = PF_INO(PT_FORK, d->key);
	}
	if (PF_INNER(d->ino) == TI_ROOT && continued(pf, d->p->s, x)) {
		d->link_name[d->nlinks] = "continued-from";
		d->link_ino[d->nlinks++] = PF_INO(PT_CONT, d->key);
	}
	if (PF_INNER(d->ino) == TI_ROOT && nrelated(pf, d->p->s, PT_CONT_BY, x)) {
		d->link_name[d->nlinks] = "continued-by";
		d->link_ino[d->nlinks++] = PF_INO(PT_CONT_BY, d->key);
	}
	if (PF_INNER(d->ino) == TI_ROOT && nrelated(pf, d->p->s, PT_FORKS, x)) {
		d->link_name[d->nlinks] = "forks";
		d->link_ino[d->nlinks++] = PF_INO(PT_FORKS, d->key);
	}
	/* the folder's own entries change with the set (a new fork) */
	d->gen = tr_dir_gen(d->td) + ((uint64_t)d->sl->opens << 40) +
		 (PF_INNER(d->ino) == TI_ROOT ? d->p->gen << 52 : 0);
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
		pf_set_put(pf, d->p);
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
	d->p = pf_set_get(pf, wants_rescan(ino));
	rc = d->key ? session_listing(pf, d) : own_listing(pf, d);
	if (rc) {
		pf_closedir(pf, (struct vf_dir *)d);
		return rc;
	}
	*out = (struct vf_dir *)d;
	return 0;
}

static int own_entry(struct pjfs *pf, struct pf_dir *d, uint64_t i, char *name,
		     struct vf_attr *a)
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
	if (d->inos[i - 2] == PI_USAGE_JSON || d->inos[i - 2] == PI_USAGE_TXT) {
		/* their size would count every log */
		fill(pf, d->p, d->inos[i - 2], a);
		a->st.st_mode = S_IFREG | TR_FILE_PERM(d->p->mode);
		a->lazy = 1;
		return 1;
	}
	return own_attr(pf, d->p, d->inos[i - 2], a) ? -ENOENT : 1;
}

static int pf_dir_entry(void *fs, struct vf_dir *vd, uint64_t i, char *name,
			struct vf_attr *a)
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
	struct pset *p = pf_set_get(pf, 0);
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
	pf_set_put(pf, p);
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
	p = pf_set_get(pf, 0);
	sl = pf_slot_get(pf, p, PF_KEY(ino), walk);
	if (sl)
		rc = fn(sl->t, PF_INNER(ino), arg);
	else	/* a stub's folder or file (pjfs_stub.c), or nothing */
		rc = pj_by_key(p->s, PF_KEY(ino)) && pf_open_error(pf, PF_KEY(ino)) &&
		     (PF_INNER(ino) == TI_ROOT || pf_stub_index(PF_INNER(ino)) >= 0) ? rc_stub : -ENOENT;
	if (sl)
		pf_slot_put(pf, sl);
	pf_set_put(pf, p);
	return rc;
}

static int do_stream(struct tree *t, uint64_t ino, void *arg)
{
	return tr_stream(t, ino, arg);
}

static int pf_stream(void *fs, uint64_t ino, const struct vf_sink *sink)
{
	struct blob *b;
	int rc;

	/* a stub's file (-EAGAIN from in_tree()) is the layer's own */
	if (PF_KEY(ino) && (rc = in_tree(fs, ino, 0, -EAGAIN, 1, do_stream, (void *)sink)) != -EAGAIN)
		return rc;
	if ((rc = pf_content(fs, ino, &b)))
		return rc;
	rc = vf_sink_blob(sink, b);
	blob_unref(b);
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
	p = pf_set_get(pf, 0);
	rc = link_target(pf, p->s, ino, out);
	pf_set_put(pf, p);
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

_Static_assert(VF_ROOT == PI_ROOT, "the folder's root is the vfs root");

/* A session's file: its tree's answer; this layer's own files change. */
static int pf_fixed_content(void *fs, uint64_t ino)
{
	(void)fs;
	return PF_KEY(ino) && tr_fixed_content(PF_INNER(ino));
}

const struct vf_ops pf_vfs_ops = {
	pf_getattr, pf_lookup, pf_opendir, pf_dir_entry, pf_closedir, pf_dir_gen,
	pf_content, pf_stream, pf_fixed_content, pf_readlink, pf_getxattr, pf_listxattr, pf_claim_push,
	pf_pushed, pv_wait, pv_stop, pv_own_device,
};

/* ---- for pjlive.c ---- */



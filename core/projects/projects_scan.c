/* projects: the scan of a projects folder into a set (projects_priv.h). */
#include "projects_priv.h"
#include "lineage.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plat.h"

#define PJ_THREADS 2		/* threads reading heads and tails */
#define PJ_THREADED 64		/* logs from which a second one helps */

/* ---- building a set ---- */

/*
 * The folders are listed on the calling thread (their names and types, no
 * stat); everything that touches a log (a stat, the open, the reads of
 * head and tail) is done on PJ_THREADS threads, by the descriptor of its
 * folder. At most PJ_OPEN_DIRS folders are open at once: the folders are
 * listed and their logs read in runs of that many.
 */
#define PJ_OPEN_DIRS 256

/* A log found by the scan, until its facts are read. */
struct pend {
	int dfd;			/* its folder, open while its run is read */
	int rc;				/* why it cannot be used */
};

/* A folder's entries (pj_list_typed()). */
struct ent {
	char *name;
	unsigned char type;		/* DT_*, DT_UNKNOWN when not told */
};

struct build {
	struct pj_set *s;
	const struct pj_set *prev;
	struct pj_seen *prev_by_path;	/* prev's sessions */
	size_t capsess;
	struct pend *pend;		/* per session, while building */
	uint32_t next, end;		/* next: atomic, the next log of the run */
	int dfd[PJ_OPEN_DIRS];		/* the run's folders */
};

static int ent_cmp(const void *a, const void *b)
{
	return strcmp(((const struct ent *)a)->name, ((const struct ent *)b)->name);
}

static void free_ents(struct ent *v, size_t n)
{
	while (n)
		free(v[--n].name);
	free(v);
}

/* The entries of an open folder with their types, sorted by name. */
static int list_typed(int fd, struct ent **out, size_t *n)
{
	int dfd = dup(fd);
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	struct dirent *de;
	struct ent *v = NULL, *p;
	size_t cap = 0;

	*n = 0;
	*out = NULL;
	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return -errno;
	}
	rewinddir(d);	/* a descriptor held and listed before: from the start */
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 64;
			if (!(p = realloc(v, cap * sizeof(*v))))
				break;
			v = p;
		}
		if (!(v[*n].name = strdup(de->d_name)))
			break;
		v[(*n)++].type = de->d_type;
	}
	closedir(d);
	if (*n)
		qsort(v, *n, sizeof(*v), ent_cmp);
	*out = v;
	return 0;
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

static void facts_copy(struct lh_facts *d, const struct lh_facts *s)
{
	*d = *s;
	d->sid = dup_or_null(s->sid);
	d->cwd = dup_or_null(s->cwd);
	d->version = dup_or_null(s->version);
	d->branch = dup_or_null(s->branch);
	d->title = dup_or_null(s->title);
	d->copy_uuid = dup_or_null(s->copy_uuid);
	d->copy_sid = dup_or_null(s->copy_sid);
	d->last_uuid = dup_or_null(s->last_uuid);
	d->leaves = dup_or_null(s->leaves);
}

/* Room for n more sessions: 0 or -ENOMEM. */
static int reserve(struct build *b, size_t n)
{
	struct pj_set *s = b->s;
	size_t cap = b->capsess;
	struct pj_session *p;
	struct pend *q;

	if (s->nsessions + n <= cap)
		return 0;
	cap = s->nsessions + n;
	if (!(p = realloc(s->sessions, cap * sizeof(*p))))
		return -ENOMEM;
	s->sessions = p;
	if (!(q = realloc(b->pend, cap * sizeof(*q))))
		return -ENOMEM;
	b->pend = q;
	b->capsess = cap;
	return 0;
}

/* Whether prev's old is log x as it is now (st): its facts hold. */
static int unchanged(const struct pj_session *old, const struct stat *st)
{
	return old->f.bytes == (uint64_t)st->st_size && old->ino == st->st_ino &&
	       old->mtime.tv_sec == PL_MTIM(*st).tv_sec &&
	       old->mtime.tv_nsec == PL_MTIM(*st).tv_nsec;
}

/* A log found in project p's folder (open as dfd, room reserved): its
 * path; what its type already tells (a symbolic link, not a file). */
static void take_log(struct build *b, uint32_t p, int dfd, const struct ent *e)
{
	struct pj_set *s = b->s;
	struct pj_session *x = &s->sessions[s->nsessions];
	struct pend *q = &b->pend[s->nsessions];

	memset(x, 0, sizeof(*x));
	if (asprintf(&x->path, "%s/%s", s->projects[p].folder, e->name) < 0)
		return;
	s->nsessions++;
	x->project = p;
	q->dfd = dfd;
	q->rc = e->type == DT_LNK ? -ELOOP :
		e->type != DT_REG && e->type != DT_UNKNOWN ? -EINVAL : 0;
}

/* The type of what st describes as a log's error: 0 for a file. */
static int file_rc(const struct stat *st)
{
	return S_ISREG(st->st_mode) ? 0 : S_ISLNK(st->st_mode) ? -ELOOP : -EINVAL;
}

/* The log's owner, group and mode (the tree's permissions follow them). */
static void take_owner(struct pj_session *x, const struct stat *st)
{
	x->uid = st->st_uid;
	x->gid = st->st_gid;
	x->mode = st->st_mode;
}

static void copy_prev(struct pj_session *x, const struct pj_session *old)
{
	facts_copy(&x->f, &old->f);
	x->fork_known = old->fork_known;
	x->fork_sid = dup_or_null(old->fork_sid);
	x->fork_uuid = dup_or_null(old->fork_uuid);
}

/* Its facts from prev when the log did not change, or when it cannot be
 * read now (x->rc says why: it stays listed as it was): 1, else 0 (to be
 * read), or -errno. */
static int take_prev(struct build *b, struct pj_session *x, int dfd, const char *name)
{
	const struct pj_session *old = pj_seen_get(b->prev_by_path, x->path);
	struct stat st;
	int rc;

	if (!old)
		return 0;
	x->key = old->key;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if ((rc = file_rc(&st)))
		return rc;
	take_owner(x, &st);
	if (faccessat(dfd, name, R_OK, AT_EACCESS) < 0) {
		x->rc = -errno;
		copy_prev(x, old);
		x->mtime = old->mtime;
		x->ino = old->ino;
		return 1;
	}
	if (!unchanged(old, &st))
		return 0;
	copy_prev(x, old);
	x->mtime = PL_MTIM(st);
	x->ino = st.st_ino;
	return 1;
}

/* The facts of log i, from prev or from its head and tail (any thread;
 * buf: the thread's LH_BUF bytes, or NULL). */
static void read_one(struct build *b, uint32_t i, char *buf)
{
	struct pj_session *x = &b->s->sessions[i];
	struct pend *q = &b->pend[i];
	const char *name = strrchr(x->path, '/') + 1;
	char stem[LH_STEM_MAX + 1];
	struct stat st;
	int rc;

	if (q->rc || (rc = take_prev(b, x, q->dfd, name)) == 1)
		return;
	if (!rc) {
		lh_stem(name, stem);
		rc = lh_read_stat(q->dfd, name, stem, buf, &x->f, &st);
	}
	q->rc = rc == -EISDIR ? -EINVAL : rc;
	if (rc)
		return;
	take_owner(x, &st);
	x->mtime = PL_MTIM(st);
	x->ino = st.st_ino;
}

static void *read_worker(void *arg)
{
	struct build *b = arg;
	char *buf = malloc(LH_BUF);
	uint32_t i;

	while ((i = __atomic_fetch_add(&b->next, 1, __ATOMIC_RELAXED)) < b->end)
		read_one(b, i, buf);
	free(buf);
	return NULL;
}

/* Logs from..end, on PJ_THREADS threads when there are many. */
static void read_logs(struct build *b, uint32_t from)
{
	pthread_t th[PJ_THREADS];
	int i, n = 0;

	b->next = from;
	b->end = b->s->nsessions;
	for (i = 1; b->end - from >= PJ_THREADED && i < PJ_THREADS; i++)
		if (!pthread_create(&th[n], NULL, read_worker, b))
			n++;
	read_worker(b);
	while (n)
		pthread_join(th[--n], NULL);
}

static const char *log_error(int rc)
{
	return rc == -ELOOP ? "a symbolic link, not followed" :
	       rc == -EINVAL ? "not a regular file" :
	       rc == -ENOMSG ? "not a session log (no record with a type and a sessionId)" :
	       rc == -ENODATA ? "empty (0 bytes): no session (yet); Claude Code 2.0.x leaves "
				"an empty log beside the one it resumes" :
	       rc == -ENOSPC ? "too many sessions in one mount" : strerror(-rc);
}

/* Keys and times of the logs read; the others are lines of errors.txt. */
static void keep_logs(struct build *b)
{
	struct pj_set *s = b->s;
	uint32_t i, n = 0;

	for (i = 0; i < s->nsessions; i++) {
		struct pj_session *x = &s->sessions[i];
		int rc = b->pend[i].rc;

		if (!rc && !x->key && s->next_key > PJ_KEY_MAX)
			rc = -ENOSPC;
		if (rc) {
			pj_err_line(s, x->path, log_error(rc));
			free(x->path);
			lh_free(&x->f);
			free(x->fork_sid);
			free(x->fork_uuid);
			continue;
		}
		if (x->rc) {
			char why[160];

			snprintf(why, sizeof(why), "cannot be read now (%s); listed as it was "
				 "last read", strerror(-x->rc));
			pj_err_line(s, x->path, why);
		}
		if (!x->key)
			x->key = s->next_key++;
		x->start_ms = x->f.first_ms != LH_NO_TS ? x->f.first_ms :
			      (int64_t)x->mtime.tv_sec * 1000 + x->mtime.tv_nsec / 1000000;
		s->sessions[n++] = *x;
	}
	s->nsessions = n;
}

/* Project p's folder, open (its descriptor in *dfd, else -1) and listed:
 * the session logs in it. */
static size_t list_project(struct build *b, int rootfd, uint32_t p, int *dfd,
			   struct ent **ents, size_t *n)
{
	struct pj_project *pr = &b->s->projects[p];
	size_t i, logs = 0;
	int rc;

	*n = 0;
	*ents = NULL;
	*dfd = openat(rootfd, pr->folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	rc = *dfd < 0 ? -errno : list_typed(*dfd, ents, n);
	if (rc) {
		pj_err_line(b->s, pr->folder, rc == -EACCES ? "cannot read the folder (permission denied)" :
			 strerror(-rc));
		if (*dfd >= 0)
			close(*dfd);
		*dfd = -1;
		return 0;
	}
	for (i = 0; i < *n; i++) {
		const char *name = (*ents)[i].name;
		char *path;

		logs += ln_is_session_file(name);
		/* a name of its suffix alone: said, not taken quietly */
		if (!strcmp(name, ".jsonl") && asprintf(&path, "%s/%s", pr->folder, name) >= 0) {
			pj_err_line(b->s, path, "no name before .jsonl (no session id): "
				    "not taken as a session");
			free(path);
		}
	}
	return logs;
}

/* Projects first..last: their folders listed, their logs read. */
static int scan_run(struct build *b, int rootfd, uint32_t first, uint32_t last)
{
	struct ent *ents[PJ_OPEN_DIRS];
	size_t n[PJ_OPEN_DIRS], logs = 0, i;
	uint32_t p, from = b->s->nsessions;
	int rc;

	for (p = first; p < last; p++)
		logs += list_project(b, rootfd, p, &b->dfd[p - first], &ents[p - first],
				     &n[p - first]);
	rc = reserve(b, logs);
	for (p = first; p < last; p++) {
		for (i = 0; !rc && i < n[p - first]; i++)
			if (ln_is_session_file(ents[p - first][i].name))
				take_log(b, p, b->dfd[p - first], &ents[p - first][i]);
		free_ents(ents[p - first], n[p - first]);
	}
	if (!rc)
		read_logs(b, from);
	for (p = first; p < last; p++)
		if (b->dfd[p - first] >= 0)
			close(b->dfd[p - first]);
	return rc;
}

static int add_project(struct pj_set *s, const char *folder)
{
	struct pj_project *p = realloc(s->projects, (s->nprojects + 1) * sizeof(*p));

	if (!p)
		return -ENOMEM;
	s->projects = p;
	p = &s->projects[s->nprojects];
	memset(p, 0, sizeof(*p));
	if (!(p->folder = strdup(folder)))
		return -ENOMEM;
	s->nprojects++;
	return 0;
}

/* An entry of the root: a project folder, or a symbolic link (a line). */
static int take_folder(struct build *b, int rootfd, const struct ent *e)
{
	struct stat st;
	unsigned char type = e->type;

	if (type == DT_UNKNOWN) {
		if (fstatat(rootfd, e->name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return 0;
		type = S_ISLNK(st.st_mode) ? DT_LNK : S_ISDIR(st.st_mode) ? DT_DIR : DT_REG;
	}
	if (type == DT_LNK)
		pj_err_line(b->s, e->name, "a symbolic link, not followed");
	else if (type == DT_DIR)
		return add_project(b->s, e->name);
	return 0;
}

/* The project folders under root, then their logs. */
static int scan_root(struct build *b, int rootfd)
{
	struct ent *ents;
	size_t n, i;
	int rc = list_typed(rootfd, &ents, &n);
	uint32_t p, last;

	if (rc)
		return rc;
	for (i = 0; i < n && !rc; i++)
		rc = take_folder(b, rootfd, &ents[i]);
	free_ents(ents, n);
	for (p = 0; !rc && p < b->s->nprojects; p = last) {
		last = b->s->nprojects - p > PJ_OPEN_DIRS ? p + PJ_OPEN_DIRS : b->s->nprojects;
		rc = scan_run(b, rootfd, p, last);
	}
	if (!rc)
		keep_logs(b);
	return rc;
}

/* ---- the scan ---- */

static void index_prev(struct build *b)
{
	uint32_t i;

	if (!b->prev)
		return;
	b->s->next_key = b->prev->next_key;
	for (i = 0; i < b->prev->nsessions; i++)
		pj_seen_add(&b->prev_by_path, b->prev->sessions[i].path, &b->prev->sessions[i]);
}

int pj_scan(const char *dir, const struct pj_set *prev, struct pj_set **out)
{
	char *root;
	int fd, rc = pj_open_root(dir, &root, &fd);

	*out = NULL;
	if (rc)
		return rc;
	rc = pj_scan_at(fd, root, prev, out);
	close(fd);
	free(root);
	return rc;
}

int pj_scan_at(int rootfd, const char *root, const struct pj_set *prev, struct pj_set **out)
{
	struct pj_set *s = calloc(1, sizeof(*s));
	struct build b = { .s = s, .prev = prev };
	int rc = 0;

	*out = NULL;
	if (!s)
		return -ENOMEM;
	sb_init(&s->errors);
	s->next_key = 1;
	s->latest = -1;
	s->rootfd = fcntl(rootfd, F_DUPFD_CLOEXEC, 3);
	if (s->rootfd < 0 || fstat(s->rootfd, &s->root_st) < 0)
		rc = -errno;
	else if (!(s->root = pl_fd_path(s->rootfd)) && !(s->root = strdup(root)))
		rc = -ENOMEM;
	if (rc)
		goto out;
	/* Deleted: listed, it would be empty; the caller says so. */
	s->root_gone = s->root_st.st_nlink == 0;
	index_prev(&b);
	if (!s->root_gone)
		rc = scan_root(&b, s->rootfd);
	pj_seen_free(&b.prev_by_path);
	free(b.pend);
	if (rc)
		goto out;
	pj_name_projects(s);
	rc = pj_name_sessions(s);
	if (!rc)
		rc = pj_index_sessions(s);
	if (!rc) {
		pj_link_copies(s);
		pj_find_forks(s);
	}
out:
	pj_seen_free(&b.prev_by_path);
	if (rc) {
		pj_free(s);
		return rc;
	}
	*out = s;
	return 0;
}


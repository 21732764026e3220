/* projects: the scan of a projects folder into a set (projects_priv.h). */
#include "projects_priv.h"

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

/* A log found by the scan, until its facts are read. */
struct pend {
	struct stat st;
	int rc;				/* why it cannot be used */
	int read;			/* its head and tail are to be read */
};

struct build {
	struct pj_set *s;
	const struct pj_set *prev;
	struct pj_seen *prev_by_path;	/* prev's sessions */
	size_t capsess;
	struct pend *pend;		/* per session, while building */
	uint32_t next;			/* atomic: the next log to read */
};

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entries of an open folder, sorted (the names are malloc'd). */
int pj_list_dir(int fd, char ***out, size_t *n)
{
	int dfd = dup(fd);
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	struct dirent *de;
	char **v = NULL, **p;
	size_t cap = 0;

	*n = 0;
	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return -errno;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 64;
			if (!(p = realloc(v, cap * sizeof(*v))))
				break;
			v = p;
		}
		if (!(v[*n] = strdup(de->d_name)))
			break;
		(*n)++;
	}
	closedir(d);
	if (*n)
		qsort(v, *n, sizeof(*v), name_cmp);
	*out = v;
	return 0;
}

void pj_free_names(char **v, size_t n)
{
	while (n)
		free(v[--n]);
	free(v);
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
}

static struct pj_session *new_session(struct build *b)
{
	struct pj_set *s = b->s;

	if (s->nsessions == b->capsess) {
		size_t cap = b->capsess ? b->capsess * 2 : 64;
		struct pj_session *p = realloc(s->sessions, cap * sizeof(*p));
		struct pend *q;

		if (!p)
			return NULL;
		s->sessions = p;
		if (!(q = realloc(b->pend, cap * sizeof(*q))))
			return NULL;
		b->pend = q;
		b->capsess = cap;
	}
	memset(&s->sessions[s->nsessions], 0, sizeof(s->sessions[0]));
	memset(&b->pend[s->nsessions], 0, sizeof(b->pend[0]));
	return &s->sessions[s->nsessions];
}

/* Whether prev's old is log x as it is now (st): its facts hold. */
static int unchanged(const struct pj_session *old, const struct stat *st)
{
	return old->f.bytes == (uint64_t)st->st_size && old->ino == st->st_ino &&
	       old->mtime.tv_sec == PL_MTIM(*st).tv_sec &&
	       old->mtime.tv_nsec == PL_MTIM(*st).tv_nsec;
}

/* A log found: its path and stat, its facts from prev when unchanged;
 * else it is read by read_logs(). */
static void take_log(struct build *b, uint32_t p, int dfd, const char *name)
{
	struct pj_set *s = b->s;
	struct pj_session *x = new_session(b);
	const struct pj_session *old;
	struct pend *q;
	int rc = 0;

	if (!x || asprintf(&x->path, "%s/%s", s->projects[p].folder, name) < 0)
		return;
	q = &b->pend[s->nsessions++];
	x->project = p;
	if (fstatat(dfd, name, &q->st, AT_SYMLINK_NOFOLLOW) < 0)
		rc = -errno;
	else if (S_ISLNK(q->st.st_mode))
		rc = -ELOOP;
	else if (!S_ISREG(q->st.st_mode))
		rc = -EINVAL;
	q->rc = rc;
	if (rc)
		return;
	old = pj_seen_get(b->prev_by_path, x->path);
	if (old)
		x->key = old->key;
	if (!old || !unchanged(old, &q->st)) {
		q->read = 1;
		return;
	}
	facts_copy(&x->f, &old->f);
	x->fork_known = old->fork_known;
	x->fork_sid = dup_or_null(old->fork_sid);
	x->fork_uuid = dup_or_null(old->fork_uuid);
}

/* Reads the head and tail of log i (any thread). */
static void read_one(struct build *b, uint32_t i)
{
	struct pj_session *x = &b->s->sessions[i];
	const char *name = strrchr(x->path, '/') + 1;
	char stem[NM_MAX + 1], *abs;

	if (b->pend[i].rc || !b->pend[i].read)
		return;
	snprintf(stem, sizeof(stem), "%.*s", (int)(strlen(name) - 6), name);
	if (asprintf(&abs, "%s/%s", b->s->root, x->path) < 0) {
		b->pend[i].rc = -ENOMEM;
		return;
	}
	b->pend[i].rc = lh_read(AT_FDCWD, abs, stem, &x->f);
	free(abs);
}

static void *read_worker(void *arg)
{
	struct build *b = arg;
	uint32_t i;

	while ((i = __atomic_fetch_add(&b->next, 1, __ATOMIC_RELAXED)) < b->s->nsessions)
		read_one(b, i);
	return NULL;
}

/* The logs to read, on PJ_THREADS threads when there are many. */
static void read_logs(struct build *b)
{
	pthread_t th[PJ_THREADS];
	int i, n = 0;

	b->next = 0;
	for (i = 1; b->s->nsessions >= PJ_THREADED && i < PJ_THREADS; i++)
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
	       rc == -ENOSPC ? "too many sessions in one mount" : strerror(-rc);
}

/* Keys and times of the logs read; the others are lines of errors.txt. */
static void keep_logs(struct build *b)
{
	struct pj_set *s = b->s;
	uint32_t i, n = 0;

	for (i = 0; i < s->nsessions; i++) {
		struct pj_session *x = &s->sessions[i];
		const struct stat *st = &b->pend[i].st;
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
		if (!x->key)
			x->key = s->next_key++;
		x->mtime = PL_MTIM(*st);
		x->ino = st->st_ino;
		x->start_ms = x->f.first_ms != LH_NO_TS ? x->f.first_ms :
			      (int64_t)PL_MTIM(*st).tv_sec * 1000 + PL_MTIM(*st).tv_nsec / 1000000;
		s->sessions[n++] = *x;
	}
	s->nsessions = n;
}

int pj_is_session_file(const char *name)
{
	size_t n = strlen(name);

	return n > 6 && !strcmp(name + n - 6, ".jsonl") && strncmp(name, "agent-", 6);
}

static void scan_project(struct build *b, int rootfd, uint32_t p)
{
	struct pj_project *pr = &b->s->projects[p];
	int dfd = openat(rootfd, pr->folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	char **names = NULL;
	size_t n = 0, i;
	int rc = dfd < 0 ? -errno : pj_list_dir(dfd, &names, &n);

	if (rc) {
		pj_err_line(b->s, pr->folder, rc == -EACCES ? "cannot read the folder (permission denied)" :
			 strerror(-rc));
		if (dfd >= 0)
			close(dfd);
		return;
	}
	for (i = 0; i < n; i++)
		if (pj_is_session_file(names[i]))
			take_log(b, p, dfd, names[i]);
	pj_free_names(names, n);
	close(dfd);
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

/* The project folders under root, then their logs. */
static int scan_root(struct build *b, int rootfd)
{
	char **names;
	size_t n, i;
	struct stat st;
	int rc = pj_list_dir(rootfd, &names, &n);
	uint32_t p;

	if (rc)
		return rc;
	for (i = 0; i < n && !rc; i++) {
		if (fstatat(rootfd, names[i], &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISLNK(st.st_mode))
			pj_err_line(b->s, names[i], "a symbolic link, not followed");
		else if (S_ISDIR(st.st_mode))
			rc = add_project(b->s, names[i]);
	}
	pj_free_names(names, n);
	for (p = 0; !rc && p < b->s->nprojects; p++)
		scan_project(b, rootfd, p);
	if (!rc) {
		read_logs(b);
		keep_logs(b);
	}
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
	struct pj_set *s = calloc(1, sizeof(*s));
	struct build b = { s, prev, NULL, 0, NULL, 0 };
	int rootfd = -1, rc;

	*out = NULL;
	if (!s)
		return -ENOMEM;
	sb_init(&s->errors);
	s->next_key = 1;
	s->latest = -1;
	s->root = pj_resolve_dir(dir);
	if (!s->root) {
		rc = errno ? -errno : -ENOMEM;
		goto out;
	}
	rootfd = open(s->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0) {
		rc = -errno;
		goto out;
	}
	index_prev(&b);
	rc = scan_root(&b, rootfd);
	close(rootfd);
	pj_seen_free(&b.prev_by_path);
	free(b.pend);
	if (rc)
		goto out;
	pj_name_projects(s);
	pj_name_sessions(s);
	rc = pj_index_sessions(s);
	if (!rc)
		pj_find_forks(s);
out:
	pj_seen_free(&b.prev_by_path);
	if (rc) {
		pj_free(s);
		return rc;
	}
	*out = s;
	return 0;
}


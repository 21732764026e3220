#include "projects.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uthash.h>

#include "jscan.h"
#include "plat.h"

#define PATH_NAME_MAX PJ_NAME_MAX
#define PJ_THREADS 2		/* threads reading heads and tails */
#define PJ_THREADED 64		/* logs from which a second one helps */

/* A name taken, for clash suffixes; or a path, for keys and facts. */
struct seen {
	UT_hash_handle hh;
	const void *ptr;	/* what it names */
	char key[];
};

static int seen_add(struct seen **set, const char *key, const void *ptr)
{
	size_t n = strlen(key);
	struct seen *e;

	HASH_FIND(hh, *set, key, n, e);
	if (e)
		return 1;
	e = malloc(sizeof(*e) + n + 1);
	if (!e)
		return -ENOMEM;
	memcpy(e->key, key, n + 1);
	e->ptr = ptr;
	HASH_ADD_KEYPTR(hh, *set, e->key, n, e);
	return 0;
}

static const void *seen_get(struct seen *set, const char *key)
{
	struct seen *e;

	HASH_FIND(hh, set, key, strlen(key), e);
	return e ? e->ptr : NULL;
}

static void seen_free(struct seen **set)
{
	struct seen *e, *t;

	HASH_ITER(hh, *set, e, t) {
		HASH_DEL(*set, e);
		free(e);
	}
}

/* name, or name plus sep and 2, 3… until it is not taken; then taken. */
static void unique_name(struct seen **taken, char *name, const char *sep, const void *ptr)
{
	char base[NM_MAX - 12];
	unsigned i;

	if (!seen_add(taken, name, ptr))
		return;
	snprintf(base, sizeof(base), "%s", name);
	for (i = 2; i < 1000000000u; i++) {
		snprintf(name, NM_MAX + 1, "%s%.1s%u", base, sep, i);
		if (seen_add(taken, name, ptr) <= 0)
			return;
	}
}

/* ---- pure names ---- */

void pj_path_name(const char *path, char *out)
{
	size_t n = 0;
	int dash = 0;

	for (; *path && n < PATH_NAME_MAX; path++) {
		unsigned char c = (unsigned char)*path;
		int keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			   (c >= '0' && c <= '9') || c == '.' || c == '_';

		if (!keep) {
			dash = n > 0;
			continue;
		}
		if (dash)
			out[n++] = '-';
		dash = 0;
		if (n < PATH_NAME_MAX)
			out[n++] = (char)c;
	}
	out[n] = '\0';
	if (!n || !strcmp(out, ".") || !strcmp(out, "..")) {
		memmove(out + 1, out, n + 1);
		out[0] = '_';
	}
}

void pj_slug(const char *title, char *out)
{
	size_t n = 0;
	int dash = 0;

	for (; title && *title && n < PJ_SLUG_MAX; title++) {
		unsigned char c = (unsigned char)*title;

		if (c >= 'A' && c <= 'Z')
			c = (unsigned char)(c - 'A' + 'a');
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) {
			dash = n > 0;
			continue;
		}
		if (dash && n + 1 < PJ_SLUG_MAX)
			out[n++] = '-';
		else if (dash)
			break;
		dash = 0;
		out[n++] = (char)c;
	}
	out[n] = '\0';
	if (!n)
		strcpy(out, "untitled");
}

char *pj_resolve_dir(const char *dir)
{
	char *sub, *r;
	struct stat st;

	if (asprintf(&sub, "%s/projects", dir) < 0)
		return NULL;
	if (stat(sub, &st) == 0 && S_ISDIR(st.st_mode))
		r = realpath(sub, NULL);
	else
		r = realpath(dir, NULL);
	free(sub);
	return r;
}

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
	struct seen *prev_by_path;	/* prev's sessions */
	size_t capsess;
	struct pend *pend;		/* per session, while building */
	uint32_t next;			/* atomic: the next log to read */
};

static void err_line(struct pj_set *s, const char *path, const char *why)
{
	sb_add_lines(&s->errors, path[0] ? path : ".");
	sb_adds(&s->errors, ": ");
	sb_add_lines(&s->errors, why);
	sb_addc(&s->errors, '\n');
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entries of an open folder, sorted (the names are malloc'd). */
static int list_dir(int fd, char ***out, size_t *n)
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

static void free_names(char **v, size_t n)
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
	old = seen_get(b->prev_by_path, x->path);
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
			err_line(s, x->path, log_error(rc));
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

static int is_session_file(const char *name)
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
	int rc = dfd < 0 ? -errno : list_dir(dfd, &names, &n);

	if (rc) {
		err_line(b->s, pr->folder, rc == -EACCES ? "cannot read the folder (permission denied)" :
			 strerror(-rc));
		if (dfd >= 0)
			close(dfd);
		return;
	}
	for (i = 0; i < n; i++)
		if (is_session_file(names[i]))
			take_log(b, p, dfd, names[i]);
	free_names(names, n);
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
	int rc = list_dir(rootfd, &names, &n);
	uint32_t p;

	if (rc)
		return rc;
	for (i = 0; i < n && !rc; i++) {
		if (fstatat(rootfd, names[i], &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISLNK(st.st_mode))
			err_line(b->s, names[i], "a symbolic link, not followed");
		else if (S_ISDIR(st.st_mode))
			rc = add_project(b->s, names[i]);
	}
	free_names(names, n);
	for (p = 0; !rc && p < b->s->nprojects; p++)
		scan_project(b, rootfd, p);
	if (!rc) {
		read_logs(b);
		keep_logs(b);
	}
	return rc;
}

/* ---- names ---- */

/* qsort() of what may be empty (and NULL). */
static void sort(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n)
		qsort(v, n, size, cmp);
}

static int project_cmp(const void *a, const void *b)
{
	const struct pj_project *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : strcmp(x->folder, y->folder);
}

/* Each project's cwd (its newest session's that says one) and name;
 * sorted by name, sessions pointed at the new places. */
static void name_projects(struct pj_set *s)
{
	struct seen *taken = NULL;
	int64_t *best = calloc(s->nprojects ? s->nprojects : 1, sizeof(*best));
	uint32_t i, *map;

	for (i = 0; best && i < s->nsessions; i++) {
		struct pj_session *x = &s->sessions[i];
		struct pj_project *p = &s->projects[x->project];

		if (x->f.cwd && (!p->cwd || x->start_ms >= best[x->project])) {
			p->cwd = x->f.cwd;	/* borrowed until copied below */
			best[x->project] = x->start_ms;
		}
	}
	free(best);
	for (i = 0; i < s->nprojects; i++) {
		struct pj_project *p = &s->projects[i];

		if (p->cwd && (p->cwd = strdup(p->cwd)))
			pj_path_name(p->cwd, p->name);
		else
			nm_safe(p->folder, strlen(p->folder), p->name, PJ_NAME_MAX + 1);
		p->nsessions = i;	/* its index before the sorts */
	}
	sort(s->projects, s->nprojects, sizeof(*s->projects), project_cmp);
	for (i = 0; i < s->nprojects; i++)
		unique_name(&taken, s->projects[i].name, "-", NULL);
	seen_free(&taken);
	sort(s->projects, s->nprojects, sizeof(*s->projects), project_cmp);
	map = malloc((s->nprojects ? s->nprojects : 1) * sizeof(*map));
	for (i = 0; i < s->nprojects; i++) {
		if (map)
			map[s->projects[i].nsessions] = i;
		s->projects[i].nsessions = 0;
	}
	for (i = 0; map && i < s->nsessions; i++)
		s->sessions[i].project = map[s->sessions[i].project];
	free(map);
}

static int path_cmp(const void *a, const void *b)
{
	return strcmp(((const struct pj_session *)a)->path, ((const struct pj_session *)b)->path);
}

static int time_cmp(const void *a, const void *b)
{
	const struct pj_session *x = a, *y = b;

	if (x->start_ms != y->start_ms)
		return x->start_ms < y->start_ms ? -1 : 1;
	return strcmp(x->path, y->path);
}

static void link_name(const struct pj_session *x, char *out)
{
	char slug[PJ_SLUG_MAX + 1];
	time_t t = (time_t)(x->start_ms / 1000 - (x->start_ms % 1000 < 0));
	struct tm tm;

	pj_slug(x->f.title, slug);
	if (!gmtime_r(&t, &tm))
		memset(&tm, 0, sizeof(tm));
	snprintf(out, NM_MAX + 1, "%04d-%02d-%02dT%02d%02d-%s-%.8s", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, slug, x->name);
}

/* Session folder names (path order: the first log of an id keeps it),
 * then sessions/ links (time order). */
static void name_sessions(struct pj_set *s)
{
	struct seen *ids = NULL, *links = NULL, **taken;
	uint32_t i;
	char why[2 * NM_MAX + 64];

	taken = calloc(s->nprojects ? s->nprojects : 1, sizeof(*taken));
	sort(s->sessions, s->nsessions, sizeof(*s->sessions), path_cmp);
	for (i = 0; taken && i < s->nsessions; i++) {
		struct pj_session *x = &s->sessions[i];
		const char *id = x->f.sid ? x->f.sid : "";
		const struct pj_session *first = seen_get(ids, id);

		nm_safe(id, strlen(id), x->name, PJ_NAME_MAX + 1);
		unique_name(&taken[x->project], x->name, ".", NULL);
		if (first) {
			snprintf(why, sizeof(why), "session id already used by %s; shown as %s",
				 first->path, x->name);
			err_line(s, x->path, why);
		} else {
			seen_add(&ids, id, x);
		}
	}
	for (i = 0; taken && i < s->nprojects; i++)
		seen_free(&taken[i]);
	free(taken);
	seen_free(&ids);
	sort(s->sessions, s->nsessions, sizeof(*s->sessions), time_cmp);
	for (i = 0; i < s->nsessions; i++) {
		link_name(&s->sessions[i], s->sessions[i].link);
		unique_name(&links, s->sessions[i].link, ".", NULL);
	}
	seen_free(&links);
}

static int session_name_cmp(const void *a, const void *b, void *arg)
{
	const struct pj_set *s = arg;

	return strcmp(s->sessions[*(const uint32_t *)a].name,
		      s->sessions[*(const uint32_t *)b].name);
}

static int link_cmp(const void *a, const void *b, void *arg)
{
	const struct pj_set *s = arg;

	return strcmp(s->sessions[*(const uint32_t *)a].link,
		      s->sessions[*(const uint32_t *)b].link);
}

/* Each project's sessions by name; the one written last; the look-up
 * tables by key and by link. */
static int index_sessions(struct pj_set *s)
{
	uint32_t i, p;

	s->latest = -1;
	for (p = 0; p < s->nprojects; p++) {
		s->projects[p].sessions = malloc((s->nsessions + 1) * sizeof(uint32_t));
		if (!s->projects[p].sessions)
			return -ENOMEM;
	}
	for (i = 0; i < s->nsessions; i++) {
		const struct pj_session *x = &s->sessions[i], *l;
		struct pj_project *pr = &s->projects[x->project];

		pr->sessions[pr->nsessions++] = i;
		l = s->latest >= 0 ? &s->sessions[s->latest] : NULL;
		if (!l || x->mtime.tv_sec > l->mtime.tv_sec ||
		    (x->mtime.tv_sec == l->mtime.tv_sec && x->mtime.tv_nsec >= l->mtime.tv_nsec))
			s->latest = (int32_t)i;
	}
	for (p = 0; p < s->nprojects; p++)
		qsort_r(s->projects[p].sessions, s->projects[p].nsessions, sizeof(uint32_t),
			session_name_cmp, s);
	s->by_key = malloc((s->next_key + 1) * sizeof(*s->by_key));
	s->by_link = malloc((s->nsessions + 1) * sizeof(*s->by_link));
	if (!s->by_key || !s->by_link)
		return -ENOMEM;
	for (i = 0; i <= s->next_key; i++)
		s->by_key[i] = -1;
	for (i = 0; i < s->nsessions; i++) {
		s->by_key[s->sessions[i].key] = (int32_t)i;
		s->by_link[i] = i;
	}
	qsort_r(s->by_link, s->nsessions, sizeof(uint32_t), link_cmp, s);
	return 0;
}

/* ---- forks ---- */

/* Where fork f (log name in dfd) left its origin: the last copied record. */
static int fork_point(int dfd, const char *name, const struct lh_facts *f, char **uuid)
{
	int rc = lh_fork_point(dfd, name, f, uuid);

	if (rc == -ENOENT) {	/* nothing of its own yet: it ends at a copy */
		*uuid = strdup(f->copy_uuid);
		rc = *uuid ? 0 : -ENOMEM;
	}
	return rc;
}

/* Whether log name (of id sid, in dfd) is fork f's origin: the session
 * its copies name, or the log that holds its fork point. */
static int is_origin(int dfd, const char *name, const char *sid, const struct lh_facts *f,
		     const char *uuid)
{
	if (f->copy_sid)
		return sid && !strcmp(sid, f->copy_sid);
	return lh_has_uuid(dfd, name, uuid) == 1;
}

/* Sets *sid to the origin's id (or the copies' sessionId, or NULL). */
static void origin_id(const char *found, const struct lh_facts *f, char **sid)
{
	*sid = found ? strdup(found) : f->copy_sid ? strdup(f->copy_sid) : NULL;
}

int pj_find_fork(struct pj_set *s, struct pj_session *x)
{
	const struct pj_project *pr = &s->projects[x->project];
	char *dir = NULL, *uuid = NULL;
	const struct pj_session *best = NULL;
	int dfd, rc;
	uint32_t i;

	x->fork_known = 1;
	if (!x->f.copy_uuid)
		return 0;
	if (asprintf(&dir, "%s/%s", s->root, pr->folder) < 0)
		return -ENOMEM;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (dfd < 0)
		return -errno;
	rc = fork_point(dfd, strrchr(x->path, '/') + 1, &x->f, &uuid);
	for (i = 0; !rc && i < s->nsessions; i++) {	/* newest first */
		const struct pj_session *y = &s->sessions[s->nsessions - 1 - i];

		if (y != x && y->project == x->project && y->start_ms <= x->start_ms &&
		    is_origin(dfd, strrchr(y->path, '/') + 1, y->f.sid, &x->f, uuid)) {
			best = y;
			break;
		}
	}
	close(dfd);
	if (rc)
		return rc;
	x->fork_uuid = uuid;
	origin_id(best ? best->f.sid : NULL, &x->f, &x->fork_sid);
	return 0;
}

/* A log beside a fork: its name, its facts' start and id. */
struct sibling {
	char *name;
	int64_t start;
	char *sid;
};

static int sibling_cmp(const void *a, const void *b)
{
	const struct sibling *x = a, *y = b;

	if (x->start != y->start)
		return x->start > y->start ? -1 : 1;	/* newest first */
	return strcmp(y->name, x->name);
}

/* The sessions beside name in dfd that started no later than start. */
static void siblings(int dfd, const char *name, int64_t start, struct sibling **out,
		     size_t *n)
{
	char **names = NULL, stem[NM_MAX + 1];
	size_t k = 0, i;
	struct lh_facts f;
	int lfd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);	/* dfd may be O_PATH */

	*out = NULL;
	*n = 0;
	if (lfd < 0)
		return;
	if (list_dir(lfd, &names, &k))
		k = 0;
	close(lfd);
	if (!k) {
		free(names);
		return;
	}
	*out = calloc(k + 1, sizeof(**out));
	for (i = 0; *out && i < k; i++) {
		if (!is_session_file(names[i]) || !strcmp(names[i], name))
			continue;
		snprintf(stem, sizeof(stem), "%.*s", (int)(strlen(names[i]) - 6), names[i]);
		if (lh_read(dfd, names[i], stem, &f))
			continue;
		if (f.first_ms != LH_NO_TS && f.first_ms <= start) {
			(*out)[*n] = (struct sibling){ names[i], f.first_ms, f.sid };
			names[i] = NULL;
			f.sid = NULL;
			(*n)++;
		}
		lh_free(&f);
	}
	free_names(names, k);
	if (*n)
		qsort(*out, *n, sizeof(**out), sibling_cmp);
}

int pj_fork_of(int dirfd, const char *name, char **sid, char **uuid)
{
	char stem[NM_MAX + 1];
	struct lh_facts f;
	struct sibling *sib;
	const char *found = NULL;
	size_t n, i;
	int rc;

	*sid = *uuid = NULL;
	snprintf(stem, sizeof(stem), "%.*s", strlen(name) > 6 ? (int)(strlen(name) - 6) : 0,
		 name);
	rc = lh_read(dirfd, name, stem, &f);
	if (!rc && !f.copy_uuid)
		rc = -ENOENT;
	if (!rc)
		rc = fork_point(dirfd, name, &f, uuid);
	if (rc) {
		lh_free(&f);
		return rc;
	}
	siblings(dirfd, name, f.first_ms, &sib, &n);
	for (i = 0; i < n && !found; i++)
		if (is_origin(dirfd, sib[i].name, sib[i].sid, &f, *uuid))
			found = sib[i].sid;
	origin_id(found, &f, sid);
	for (i = 0; i < n; i++) {
		free(sib[i].name);
		free(sib[i].sid);
	}
	free(sib);
	lh_free(&f);
	return 0;
}

static void find_forks(struct pj_set *s)
{
	uint32_t i;

	for (i = 0; i < s->nsessions; i++)
		if (!s->sessions[i].fork_known)
			pj_find_fork(s, &s->sessions[i]);
}

/* ---- the set ---- */

static void index_prev(struct build *b)
{
	uint32_t i;

	if (!b->prev)
		return;
	b->s->next_key = b->prev->next_key;
	for (i = 0; i < b->prev->nsessions; i++)
		seen_add(&b->prev_by_path, b->prev->sessions[i].path, &b->prev->sessions[i]);
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
	seen_free(&b.prev_by_path);
	free(b.pend);
	if (rc)
		goto out;
	name_projects(s);
	name_sessions(s);
	rc = index_sessions(s);
	if (!rc)
		find_forks(s);
out:
	seen_free(&b.prev_by_path);
	if (rc) {
		pj_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

void pj_free(struct pj_set *s)
{
	uint32_t i;

	if (!s)
		return;
	for (i = 0; i < s->nsessions; i++) {
		free(s->sessions[i].path);
		lh_free(&s->sessions[i].f);
		free(s->sessions[i].fork_sid);
		free(s->sessions[i].fork_uuid);
	}
	for (i = 0; i < s->nprojects; i++) {
		free(s->projects[i].folder);
		free(s->projects[i].cwd);
		free(s->projects[i].sessions);
	}
	free(s->sessions);
	free(s->projects);
	free(s->by_key);
	free(s->by_link);
	free(s->root);
	sb_free(&s->errors);
	free(s);
}

/* ---- look-ups ---- */

const struct pj_session *pj_by_key(const struct pj_set *s, uint32_t key)
{
	if (key > s->next_key || !s->by_key || s->by_key[key] < 0)
		return NULL;
	return &s->sessions[s->by_key[key]];
}

/* The session named name among idx[0..n) (sorted by that name: its
 * folder's, or its link's when link is set), or NULL. */
static const struct pj_session *find_sorted(const struct pj_set *s, const uint32_t *idx,
					    uint32_t n, const char *name, int link)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi && idx) {
		uint32_t mid = lo + (hi - lo) / 2;
		const struct pj_session *x = &s->sessions[idx[mid]];
		int c = strcmp(name, link ? x->link : x->name);

		if (!c)
			return x;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

const struct pj_session *pj_find(const struct pj_set *s, uint32_t p, const char *name)
{
	return find_sorted(s, s->projects[p].sessions, s->projects[p].nsessions, name, 0);
}

const struct pj_session *pj_find_link(const struct pj_set *s, const char *name)
{
	return find_sorted(s, s->by_link, s->nsessions, name, 1);
}

int pj_project(const struct pj_set *s, const char *name)
{
	uint32_t lo = 0, hi = s->nprojects;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int c = strcmp(name, s->projects[mid].name);

		if (!c)
			return (int)mid;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return -1;
}

char *pj_log_path(const struct pj_set *s, const struct pj_session *x)
{
	char *p;

	return asprintf(&p, "%s/%s", s->root, x->path) < 0 ? NULL : p;
}

char *pj_file_history(const struct pj_set *s)
{
	char *p, *slash;

	if (asprintf(&p, "%s/file-history", s->root) < 0)
		return NULL;
	slash = strrchr(p, '/');
	*slash = '\0';
	slash = strrchr(p, '/');
	if (!slash) {
		free(p);
		return NULL;
	}
	memmove(slash + 1, "file-history", sizeof("file-history"));
	return p;
}

/* ---- JSON and text ---- */

static void json_str_or_null(struct sbuf *out, const char *s)
{
	if (s)
		sb_add_json_str(out, s, strlen(s));
	else
		sb_adds(out, "null");
}

static void json_time(struct sbuf *out, int64_t ms)
{
	char ts[32];

	if (ms == LH_NO_TS) {
		sb_adds(out, "null");
		return;
	}
	js_time_fmt(ms, ts);
	sb_add_json_str(out, ts, strlen(ts));
}

void pj_session_json(const struct pj_set *s, const struct pj_session *x, struct sbuf *out)
{
	const struct pj_project *p = &s->projects[x->project];

	sb_adds(out, "{\"sessionId\":");
	json_str_or_null(out, x->f.sid);
	sb_adds(out, ",\"project\":");
	json_str_or_null(out, p->name);
	sb_adds(out, ",\"cwd\":");
	json_str_or_null(out, x->f.cwd);
	sb_adds(out, ",\"title\":");
	json_str_or_null(out, x->f.title);
	sb_adds(out, ",\"firstTimestamp\":");
	json_time(out, x->f.first_ms);
	sb_adds(out, ",\"lastTimestamp\":");
	json_time(out, x->f.last_ms);
	sb_addf(out, ",\"messages\":%u,\"messagesExact\":%s,\"bytes\":%llu,\"version\":",
		x->f.rows, x->f.exact ? "true" : "false", (unsigned long long)x->f.bytes);
	json_str_or_null(out, x->f.version);
	sb_adds(out, ",\"gitBranch\":");
	json_str_or_null(out, x->f.branch);
	sb_adds(out, ",\"path\":");
	json_str_or_null(out, x->path);
	sb_adds(out, ",\"folder\":");
	sb_addc(out, '"');
	sb_add_json_chars(out, "projects/", 9);
	sb_add_json_chars(out, p->name, strlen(p->name));
	sb_addc(out, '/');
	sb_add_json_chars(out, x->name, strlen(x->name));
	sb_adds(out, "\",\"link\":\"sessions/");
	sb_add_json_chars(out, x->link, strlen(x->link));
	sb_adds(out, "\",\"forkedFrom\":");
	if (x->fork_uuid) {
		sb_adds(out, "{\"sessionId\":");
		json_str_or_null(out, x->fork_sid);
		sb_adds(out, ",\"uuid\":");
		json_str_or_null(out, x->fork_uuid);
		sb_addc(out, '}');
	} else {
		sb_adds(out, "null");
	}
	sb_addc(out, '}');
}

void pj_sessions_json(const struct pj_set *s, struct sbuf *out)
{
	uint32_t i;

	sb_adds(out, "[\n");
	for (i = 0; i < s->nsessions; i++) {
		pj_session_json(s, &s->sessions[i], out);
		sb_adds(out, i + 1 < s->nsessions ? ",\n" : "\n");
	}
	sb_adds(out, "]\n");
}

void pj_facts_json(const struct pj_set *s, struct sbuf *out)
{
	uint32_t i;

	sb_adds(out, "{\"root\":");
	json_str_or_null(out, s->root);
	sb_addf(out, ",\"projectCount\":%u,\"sessionCount\":%u,\"latest\":", s->nprojects,
		s->nsessions);
	if (s->latest >= 0) {
		sb_addc(out, '"');
		sb_adds(out, "sessions/");
		sb_add_json_chars(out, s->sessions[s->latest].link,
				  strlen(s->sessions[s->latest].link));
		sb_addc(out, '"');
	} else {
		sb_adds(out, "null");
	}
	sb_adds(out, ",\n\"projects\":[");
	for (i = 0; i < s->nprojects; i++) {
		sb_adds(out, i ? ",\n" : "\n");
		sb_adds(out, "{\"name\":");
		json_str_or_null(out, s->projects[i].name);
		sb_adds(out, ",\"folder\":");
		json_str_or_null(out, s->projects[i].folder);
		sb_adds(out, ",\"cwd\":");
		json_str_or_null(out, s->projects[i].cwd);
		sb_addf(out, ",\"sessions\":%u}", s->projects[i].nsessions);
	}
	sb_adds(out, "],\n\"sessions\":");
	pj_sessions_json(s, out);
	sb_adds(out, ",\"errors\":");
	sb_add_json_str(out, s->errors.buf, s->errors.len);
	sb_adds(out, "}\n");
}

void pj_errors_text(const struct pj_set *s, struct sbuf *out)
{
	sb_add(out, s->errors.buf, s->errors.len);
}

#include "projects_priv.h"

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

#define PJ_THREADS 2		/* threads reading heads and tails */
#define PJ_THREADED 64		/* logs from which a second one helps */

/* A name taken, for clash suffixes; or a path, for keys and facts. */
struct pj_seen {
	UT_hash_handle hh;
	const void *ptr;	/* what it names */
	unsigned next;		/* as a base name: its suffixes below are taken */
	char key[];
};

int pj_seen_add(struct pj_seen **set, const char *key, const void *ptr)
{
	size_t n = strlen(key);
	struct pj_seen *e;

	HASH_FIND(hh, *set, key, n, e);
	if (e)
		return 1;
	e = malloc(sizeof(*e) + n + 1);
	if (!e)
		return -ENOMEM;
	memcpy(e->key, key, n + 1);
	e->ptr = ptr;
	e->next = 2;
	HASH_ADD_KEYPTR(hh, *set, e->key, n, e);
	return 0;
}

const void *pj_seen_get(struct pj_seen *set, const char *key)
{
	struct pj_seen *e;

	HASH_FIND(hh, set, key, strlen(key), e);
	return e ? e->ptr : NULL;
}

void pj_seen_free(struct pj_seen **set)
{
	struct pj_seen *e, *t;

	HASH_ITER(hh, *set, e, t) {
		HASH_DEL(*set, e);
		free(e);
	}
}

/* name, or name plus sep and 2, 3… until it is not taken; then taken.
 * The base name's entry remembers where its suffixes go on (sets only
 * grow): n names that clash cost n tries, not n * n / 2. */
void pj_unique_name(struct pj_seen **taken, char *name, const char *sep, const void *ptr)
{
	char base[NM_MAX - 12];
	struct pj_seen *b;
	unsigned i;

	if (!pj_seen_add(taken, name, ptr))
		return;
	HASH_FIND(hh, *taken, name, strlen(name), b);
	snprintf(base, sizeof(base), "%s", name);
	for (i = b ? b->next : 2; i < 1000000000u; i++) {
		snprintf(name, NM_MAX + 1, "%s%.1s%u", base, sep, i);
		if (pj_seen_add(taken, name, ptr) <= 0)
			break;
	}
	if (b)
		b->next = i + 1;
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
	struct pj_seen *prev_by_path;	/* prev's sessions */
	size_t capsess;
	struct pend *pend;		/* per session, while building */
	uint32_t next;			/* atomic: the next log to read */
};

void pj_err_line(struct pj_set *s, const char *path, const char *why)
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

/* ---- the set ---- */

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
	sb_addc(out, '{');
	pj_session_members(s, x, out);
	sb_addc(out, '}');
}

void pj_session_members(const struct pj_set *s, const struct pj_session *x, struct sbuf *out)
{
	const struct pj_project *p = &s->projects[x->project];

	sb_adds(out, "\"sessionId\":");
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

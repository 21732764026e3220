#include "projects_priv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uthash.h>

#include "jscan.h"
#include "release.h"

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
	int e;

	if (asprintf(&sub, "%s/projects", dir) < 0) {
		errno = ENOMEM;
		return NULL;
	}
	if (stat(sub, &st) == 0 && S_ISDIR(st.st_mode))
		r = realpath(sub, NULL);
	else
		r = realpath(dir, NULL);
	e = errno;
	free(sub);
	errno = e;
	return r;
}

int pj_open_root(const char *dir, char **root, int *fd)
{
	int rc;

	*fd = -1;
	*root = pj_resolve_dir(dir);
	if (!*root)
		return errno ? -errno : -ENOMEM;
	*fd = open(*root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (*fd >= 0)
		return 0;
	rc = -errno;
	free(*root);
	*root = NULL;
	return rc;
}

int pj_project_fd(const struct pj_set *s, uint32_t p)
{
	int fd = openat(s->rootfd, s->projects[p].folder,
			O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/* A folder name as Claude Code makes one of a project's working folder:
 * its absolute path with '/' (and other bytes) as '-', "-home-u-app";
 * on Windows "C--Users-u-app". */
static int project_shaped(const char *name)
{
	return name[0] == '-' ||
	       (((name[0] | 0x20) >= 'a' && (name[0] | 0x20) <= 'z') && name[1] == '-' &&
		name[2] == '-');
}

int pj_is_projects(const struct pj_set *s)
{
	const char *base = strrchr(s->root, '/');
	uint32_t i;

	if (s->nsessions || !strcmp(base ? base + 1 : s->root, "projects"))
		return 1;
	for (i = 0; i < s->nprojects; i++)
		if (!project_shaped(s->projects[i].folder))
			return 0;
	return s->nprojects > 0;
}

void pj_err_line(struct pj_set *s, const char *path, const char *why)
{
	sb_add_lines(&s->errors, path[0] ? path : ".");
	sb_adds(&s->errors, ": ");
	sb_add_lines(&s->errors, why);
	sb_addc(&s->errors, '\n');
}

/* ---- the set ---- */

void pj_free(struct pj_set *s)
{
	uint32_t i;

	if (!s)
		return;
	for (i = 0; i < s->nsessions; i++) {
		free(s->sessions[i].path);
		free(s->sessions[i].name);
		free(s->sessions[i].link);
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
	if (s->rootfd >= 0)
		close(s->rootfd);
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

/* The command that resumes x (loghead.h), or null. */
static void resume_json(const struct pj_session *x, struct sbuf *out)
{
	struct sbuf cmd;

	sb_init(&cmd);
	lh_resume_command(x->path, x->f.cwd, x->f.sid, &cmd);
	json_str_or_null(out, cmd.len ? cmd.buf : NULL);
	sb_free(&cmd);
}

/* Appends one session's object (no newline). */
static void pj_session_json(const struct pj_set *s, const struct pj_session *x, struct sbuf *out)
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
	sb_adds(out, ",\"release\":");	/* the same: the release that wrote it last */
	json_str_or_null(out, x->f.version);
	sb_addf(out, ",\"releaseNewerThanChecked\":%s", rl_newer(x->f.version) ? "true" : "false");
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
	sb_adds(out, "\",\"resume\":");
	resume_json(x, out);
	sb_adds(out, ",\"forkedFrom\":");
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

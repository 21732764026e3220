#include "agents.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <uthash.h>

#include "arr.h"
#include "dirnames.h"
#include "jscan.h"

#define PREFIX "agent-"
#define LOG_SUFFIX ".jsonl"
#define META_SUFFIX ".meta.json"
#define SID_SCAN_BYTES (256u << 10)	/* read to find a log's sessionId */
#define SID_MAX 256

struct ag_list {
	struct ag_entry *v;
	uint32_t n, cap;
	char **errs;
	uint32_t nerrs, ecap;
	int full;			/* AG_MAX_AGENTS reached */
	const struct ag_seen *seen;	/* for the device to avoid */
};

struct seen_file {
	UT_hash_handle hh;
	off_t size;		/* when judged, if undecided */
	int verdict;		/* 1 this session's, 0 another's, -1 no sessionId yet */
	char path[];
};

struct ag_seen {
	struct seen_file *files;
	char sid[SID_MAX];	/* the session log's, once read */
	dev_t avoid;		/* a device never looked into */
	int avoiding;
};

/* True for a folder of the device to avoid. */
static int avoided(const struct ag_list *l, const struct stat *st)
{
	return l->seen && l->seen->avoiding && st->st_dev == l->seen->avoid;
}

/* ---- the list ---- */

static int add_err(struct ag_list *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int add_err(struct ag_list *l, const char *fmt, ...)
{
	va_list ap;
	char *line;
	int rc;

	if (arr_grow(&l->errs, &l->ecap, l->nerrs + 1, sizeof(*l->errs), 8))
		return -ENOMEM;
	va_start(ap, fmt);
	rc = vasprintf(&line, fmt, ap);
	va_end(ap);
	if (rc < 0)
		return -ENOMEM;
	l->errs[l->nerrs++] = line;
	return 0;
}

void ag_quote(const char *s, size_t n, struct sbuf *out)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x20 && c < 0x7f && c != '\\' && c != '"')
			sb_addc(out, (char)c);
		else
			sb_addf(out, "\\x%02x", c);
	}
}

/* "agents: <path>: <what>", the path quoted. */
static int add_path_err(struct ag_list *l, const char *path, const char *what)
{
	struct sbuf sb;
	int rc;

	sb_init(&sb);
	ag_quote(path, strlen(path), &sb);
	rc = add_err(l, "agents: %s: %s", sb.buf ? sb.buf : "", what);
	sb_free(&sb);
	return rc;
}

void ag_free(struct ag_list *l)
{
	uint32_t i;

	if (!l)
		return;
	for (i = 0; i < l->n; i++) {
		free(l->v[i].id);
		free(l->v[i].log);
		free(l->v[i].meta);
	}
	for (i = 0; i < l->nerrs; i++)
		free(l->errs[i]);
	free(l->v);
	free(l->errs);
	free(l);
}

uint32_t ag_count(const struct ag_list *l) { return l->n; }
const struct ag_entry *ag_get(const struct ag_list *l, uint32_t i) { return &l->v[i]; }

const struct ag_entry *ag_by_id(const struct ag_list *l, const char *id, size_t n)
{
	uint32_t i;

	for (i = 0; i < l->n; i++)
		if (l->v[i].idlen == n && !memcmp(l->v[i].id, id, n))
			return &l->v[i];
	return NULL;
}

const struct ag_entry *ag_by_name(const struct ag_list *l, const char *name)
{
	uint32_t i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].name, name))
			return &l->v[i];
	return NULL;
}

void ag_errors_text(const struct ag_list *l, struct sbuf *out)
{
	uint32_t i;

	for (i = 0; i < l->nerrs; i++)
		sb_addf(out, "%s\n", l->errs[i]);
}

/* ---- names ---- */

static uint32_t fnv1a(const char *s, size_t n)
{
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

void ag_name(const char *id, size_t n, char *out)
{
	char safe[AG_NAME_KEEP + 1];
	size_t len = nm_safe(id, n, safe, sizeof(safe));

	if (n <= AG_NAME_KEEP && len == n && !memcmp(safe, id, n)) {
		memcpy(out, safe, len + 1);
		return;
	}
	snprintf(out, NM_MAX + 1, "%.*s.%08x", AG_NAME_KEEP, safe, fnv1a(id, n));
}

/* Gives e a folder name no earlier entry has. */
static int unique_name(struct ag_list *l, struct ag_entry *e)
{
	char base[NM_MAX + 1];
	unsigned k;

	ag_name(e->id, e->idlen, e->name);
	if (!ag_by_name(l, e->name))
		return 0;
	strcpy(base, e->name);
	for (k = 2; ag_by_name(l, e->name); k++)
		snprintf(e->name, sizeof(e->name), "%.*s.%u", AG_NAME_KEEP + 9,
			 base, k & 0xffffu);
	return 1;
}

static int report_name(struct ag_list *l, const struct ag_entry *e, int dup)
{
	struct sbuf id, log;
	int rc;

	if (!dup && e->idlen == strlen(e->name) && !memcmp(e->id, e->name, e->idlen))
		return 0;
	sb_init(&id);
	sb_init(&log);
	ag_quote(e->id, e->idlen, &id);
	ag_quote(e->log, strlen(e->log), &log);
	rc = add_err(l, "agents: agent id \"%s\" (%s) is shown as agents/%s: %s",
		     id.buf ? id.buf : "", log.buf ? log.buf : "", e->name,
		     dup ? "another agent has its name" : "not usable as a file name");
	sb_free(&id);
	sb_free(&log);
	return rc;
}

/* ---- files ---- */

/* The id in an "agent-<id>.jsonl" name, or NULL. */
static const char *log_id(const char *name, size_t *n)
{
	size_t len = strlen(name), p = strlen(PREFIX), s = strlen(LOG_SUFFIX);

	if (len < p + s || strncmp(name, PREFIX, p) || strcmp(name + len - s, LOG_SUFFIX))
		return NULL;
	*n = len - p - s;
	return name + p;
}

static int is_agent_log(const char *name)
{
	size_t n;

	return log_id(name, &n) != NULL;
}

/* Whether path resolves to a regular file inside the folder base (a
 * resolved path). */
static int inside(const char *path, const char *base)
{
	char *real = realpath(path, NULL);
	size_t n = strlen(base);
	struct stat st;
	int ok;

	ok = real && !strncmp(real, base, n) && real[n] == '/' &&
	     !stat(real, &st) && S_ISREG(st.st_mode);
	free(real);
	return ok;
}

/* The meta file beside log (whose id is id), or NULL. */
static char *meta_of(const char *dir, const char *id, size_t n, const char *base)
{
	char *p;
	struct stat st;

	if (asprintf(&p, "%s/" PREFIX "%.*s" META_SUFFIX, dir, (int)n, id) < 0)
		return NULL;
	if (!lstat(p, &st) && (S_ISREG(st.st_mode) || (S_ISLNK(st.st_mode) && inside(p, base))))
		return p;
	free(p);
	return NULL;
}

static int add_entry(struct ag_list *l, const char *dir, const char *file,
		     const char *id, size_t n, const char *base)
{
	struct ag_entry e;
	int dup;

	if (l->n >= AG_MAX_AGENTS) {
		if (!l->full)
			add_err(l, "agents: more than %u subagent logs; the rest are not shown",
				AG_MAX_AGENTS);
		l->full = 1;
		return 0;
	}
	if (arr_grow(&l->v, &l->cap, l->n + 1, sizeof(*l->v), 8))
		return -ENOMEM;
	memset(&e, 0, sizeof(e));
	e.id = strndup(id, n);
	e.idlen = n;
	if (asprintf(&e.log, "%s/%s", dir, file) < 0)
		e.log = NULL;
	e.meta = meta_of(dir, id, n, base);
	if (!e.id || !e.log) {
		free(e.id);
		free(e.log);
		free(e.meta);
		return -ENOMEM;
	}
	dup = unique_name(l, &e);
	l->v[l->n++] = e;
	return report_name(l, &l->v[l->n - 1], dup);
}

/* ---- the subagents/ folder ---- */

static int walk(struct ag_list *l, const char *dir, const char *base, int depth);

static int walk_one(struct ag_list *l, const char *dir, const char *name,
		    const char *base, int depth)
{
	struct stat st;
	const char *id;
	char *path;
	size_t n;
	int rc = 0;

	if (asprintf(&path, "%s/%s", dir, name) < 0)
		return -ENOMEM;
	if (lstat(path, &st)) {
		rc = add_path_err(l, path, strerror(errno));
	} else if (S_ISDIR(st.st_mode)) {
		if (avoided(l, &st))
			rc = 0;		/* the mount that is looking */
		else if (depth >= AG_MAX_DEPTH)
			rc = add_path_err(l, path, "too deep below subagents/, not read");
		else
			rc = walk(l, path, base, depth + 1);
	} else if (!(id = log_id(name, &n))) {
		/* meta files and anything else: not a log */
	} else if (S_ISREG(st.st_mode) || (S_ISLNK(st.st_mode) && inside(path, base))) {
		rc = add_entry(l, dir, name, id, n, base);
	} else {
		rc = add_path_err(l, path, S_ISLNK(st.st_mode)
			? "a link that leads outside the subagents folder, not read"
			: "not a regular file, not read");
	}
	free(path);
	return rc;
}

static int walk(struct ag_list *l, const char *dir, const char *base, int depth)
{
	char **names;
	size_t n, i;
	int rc = dn_read(dir, NULL, &names, &n);

	if (rc == -ENOMEM) {
		dn_free(names, n);
		return rc;
	}
	if (rc) {
		dn_free(names, n);
		return depth == 0 && rc == -ENOENT ? 0
			: add_path_err(l, dir, strerror(-rc));
	}
	for (i = 0; !rc && i < n; i++)
		rc = walk_one(l, dir, names[i], base, depth);
	dn_free(names, n);
	return rc;
}

/* ---- the older layout ---- */

/*
 * The first sessionId in the first SID_SCAN_BYTES of path, or "". With
 * want (not NULL): whether any of them is want instead (out then holds
 * the first): a 2.0.x agent log started before a resume took over the
 * session (a "Warmup") names the new id first, the resumed one after.
 */
static int scan_sids(const char *path, char *out, const char *want)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), found = 0;
	char *buf = fd >= 0 ? malloc(SID_SCAN_BYTES + 1) : NULL;
	ssize_t got = buf ? pread(fd, buf, SID_SCAN_BYTES, 0) : -1;
	char *line, *nl;

	out[0] = '\0';
	for (line = buf; got > 0 && !found && (want || !out[0]) && line < buf + got;
	     line = nl + 1) {
		cJSON *j, *v;

		nl = memchr(line, '\n', (size_t)(buf + got - line));
		if (!nl)
			break;
		j = cJSON_ParseWithLength(line, (size_t)(nl - line));
		v = cJSON_GetObjectItemCaseSensitive(j, "sessionId");
		if (cJSON_IsString(v) && !out[0])
			snprintf(out, SID_MAX, "%s", v->valuestring);
		found = want && cJSON_IsString(v) && !strcmp(v->valuestring, want);
		cJSON_Delete(j);
	}
	free(buf);
	if (fd >= 0)
		close(fd);
	return found;
}

static void first_sid(const char *path, char *out)
{
	scan_sids(path, out, NULL);
}

struct ag_seen *ag_seen_new(void)
{
	return calloc(1, sizeof(struct ag_seen));
}

void ag_seen_avoid(struct ag_seen *seen, dev_t dev)
{
	seen->avoid = dev;
	seen->avoiding = 1;
}

void ag_seen_free(struct ag_seen *seen)
{
	struct seen_file *f, *tmp;

	if (!seen)
		return;
	HASH_ITER(hh, seen->files, f, tmp) {
		HASH_DEL(seen->files, f);
		free(f);
	}
	free(seen);
}

/* Whether the log at path (of size size) belongs to session sid. */
static int is_mine(struct ag_seen *seen, const char *path, off_t size, const char *sid)
{
	char other[SID_MAX];
	int mine;
	struct seen_file *f = NULL;
	size_t n = strlen(path);

	if (seen)
		HASH_FIND(hh, seen->files, path, n, f);
	if (f && (f->verdict >= 0 || f->size == size))
		return f->verdict == 1;
	mine = scan_sids(path, other, sid);
	if (seen && !f && (f = malloc(sizeof(*f) + n + 1))) {
		memcpy(f->path, path, n + 1);
		HASH_ADD(hh, seen->files, path[0], n, f);
	}
	if (f) {
		f->size = size;
		f->verdict = !other[0] ? -1 : mine;
	}
	return mine;
}

/* The session's id, read from its log only when first needed: most
 * folders hold no agent-<id>.jsonl at all. */
struct lazy_sid {
	const char *log;	/* the session log */
	const char *sid;	/* given, or own once read */
	struct ag_seen *seen;	/* keeps what was read, or NULL */
	char own[SID_MAX];
};

static const char *sid_get(struct lazy_sid *ls)
{
	if (ls->sid)
		return ls->sid;
	if (ls->seen && ls->seen->sid[0])
		return ls->sid = ls->seen->sid;
	first_sid(ls->log, ls->own);
	if (ls->seen)
		memcpy(ls->seen->sid, ls->own, SID_MAX);
	return ls->sid = ls->own;
}

static int old_layout(struct ag_list *l, const char *dir, struct lazy_sid *ls)
{
	struct ag_seen *seen = ls->seen;
	char **names, *path;
	const char *id, *sid;
	size_t n, i, idn = 0;
	struct stat st;
	int rc = dn_names(dir, is_agent_log, &names, &n);

	for (i = 0; !rc && i < n; i++) {
		id = log_id(names[i], &idn);
		if (!*(sid = sid_get(ls)))
			break;	/* a log without a sessionId has none of these */
		if (asprintf(&path, "%s/%s", dir, names[i]) < 0) {
			rc = -ENOMEM;
			break;
		}
		/* Links are not followed here: the folder is shared. */
		if (!lstat(path, &st) && S_ISREG(st.st_mode) &&
		    is_mine(seen, path, st.st_size, sid))
			rc = add_entry(l, dir, names[i], id, idn, dir);
		free(path);
	}
	dn_free(names, n);
	return rc == -ENOMEM ? rc : 0;
}

/* ---- finding ---- */

/* 1 if the folder sub and the one above it are real folders, not links
 * (a link is reported), 0 if not, -ENOMEM. */
static int walkable(struct ag_list *l, const char *sub)
{
	char *up = strndup(sub, strlen(sub) - strlen("/subagents"));
	const char *p[2] = { up, sub };
	struct stat st;
	int i, rc = 1;

	if (!up)
		return -ENOMEM;
	for (i = 0; rc == 1 && i < 2; i++) {
		if (lstat(p[i], &st))
			rc = 0;			/* no such folder: no agents */
		else if (S_ISLNK(st.st_mode))
			rc = add_path_err(l, p[i], "a link, not followed") ? -ENOMEM : 0;
		else if (!S_ISDIR(st.st_mode) || avoided(l, &st))
			rc = 0;
	}
	free(up);
	return rc;
}

int ag_find(const char *path, const char *sid, struct ag_seen *seen,
	    struct ag_list **out)
{
	struct ag_list *l = calloc(1, sizeof(*l));
	const char *slash = strrchr(path, '/');
	char *dir, *sub = NULL, *base = NULL;
	size_t stem, idn;
	int rc = -ENOMEM;

	*out = NULL;
	if (!l)
		return -ENOMEM;
	l->seen = seen;
	dir = slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
	if (slash && slash == path) {
		free(dir);
		dir = strdup("/");
	}
	stem = strlen(slash ? slash + 1 : path);
	if (stem > strlen(LOG_SUFFIX) &&
	    !strcmp(path + strlen(path) - strlen(LOG_SUFFIX), LOG_SUFFIX))
		stem -= strlen(LOG_SUFFIX);
	if (!dir || asprintf(&sub, "%s/%.*s/subagents", dir, (int)stem,
			     slash ? slash + 1 : path) < 0) {
		sub = NULL;
		goto out;
	}
	rc = walkable(l, sub);
	base = rc > 0 ? realpath(sub, NULL) : NULL;
	rc = rc < 0 ? rc : base ? walk(l, sub, base, 0) : 0;
	/* A subagent's own log: the agent logs beside it are its siblings. */
	if (!rc && !log_id(slash ? slash + 1 : path, &idn)) {
		struct lazy_sid ls = { path, sid, seen, "" };

		rc = old_layout(l, dir, &ls);
	}
out:
	free(dir);
	free(sub);
	free(base);
	if (rc) {
		ag_free(l);
		return rc;
	}
	*out = l;
	return 0;
}

/* ---- the link from the main thread ---- */

static int is_agent_tool(const char *kind)
{
	return !strcmp(kind, "tool_result-Agent") || !strcmp(kind, "tool_result-Task");
}

/* The first member key of the object at [p, e), or NULL. */
static const char *member(const char *p, const char *e, const char *key)
{
	struct js_iter it;
	struct js_str k;
	const char *v;

	if (!p || js_obj_begin(&it, js_ws(p, e), e))
		return NULL;
	while (js_obj_next(&it, &k, &v) == 1) {
		if (js_eq(&k, key))
			return v;
		if (!(it.p = js_value(v, e)))
			return NULL;
	}
	return NULL;
}

size_t ag_result_agent(const struct graph *g, const struct logf *lf, uint32_t id,
		       char *out, size_t outsz)
{
	char kind[NM_KIND_MAX + 1];
	struct sbuf line, val;
	struct js_str str;
	const char *v, *e;
	size_t n = 0;

	out[0] = '\0';
	if (!gr_is_node(g, id) || gr_node_rec(g, id)->block != IDX_B_TOOL_RESULT)
		return 0;
	nm_kind(g, id, kind);
	if (!is_agent_tool(kind))
		return 0;
	sb_init(&line);
	sb_init(&val);
	if (!lf_read(lf, gr_node_rec(g, id), &line) && line.len) {
		e = line.buf + line.len;
		v = member(member(line.buf, e, "toolUseResult"), e, "agentId");
		if (v && *v == '"' && js_string(v, e, &str)) {
			js_unescape(&str, &val);
			n = val.len < outsz - 1 ? val.len : outsz - 1;
			if (n)
				memcpy(out, val.buf, n);
			out[n] = '\0';
		}
	}
	sb_free(&line);
	sb_free(&val);
	return n;
}

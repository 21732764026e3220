/* projects: the names of projects, sessions and their links, and the
 * set's look-up tables (projects_priv.h). */
#include "projects_priv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PATH_NAME_MAX PJ_NAME_MAX

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
void pj_name_projects(struct pj_set *s)
{
	struct pj_seen *taken = NULL;
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
		pj_unique_name(&taken, s->projects[i].name, "-", NULL);
	pj_seen_free(&taken);
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
int pj_name_sessions(struct pj_set *s)
{
	struct pj_seen *ids = NULL, *links = NULL, **taken;
	uint32_t i;
	char why[2 * NM_MAX + 64], name[NM_MAX + 1];
	int rc = 0;

	taken = calloc(s->nprojects ? s->nprojects : 1, sizeof(*taken));
	if (!taken)
		return -ENOMEM;
	sort(s->sessions, s->nsessions, sizeof(*s->sessions), path_cmp);
	for (i = 0; !rc && i < s->nsessions; i++) {
		struct pj_session *x = &s->sessions[i];
		const char *id = x->f.sid ? x->f.sid : "";
		const struct pj_session *first = pj_seen_get(ids, id);

		nm_safe(id, strlen(id), name, PJ_NAME_MAX + 1);
		pj_unique_name(&taken[x->project], name, ".", NULL);
		if (!(x->name = strdup(name)))
			rc = -ENOMEM;
		else if (first) {
			snprintf(why, sizeof(why), "session id already used by %s; shown as %s",
				 first->path, x->name);
			pj_err_line(s, x->path, why);
		} else {
			pj_seen_add(&ids, id, x);
		}
	}
	for (i = 0; i < s->nprojects; i++)
		pj_seen_free(&taken[i]);
	free(taken);
	pj_seen_free(&ids);
	if (rc)
		return rc;
	sort(s->sessions, s->nsessions, sizeof(*s->sessions), time_cmp);
	for (i = 0; !rc && i < s->nsessions; i++) {
		link_name(&s->sessions[i], name);
		pj_unique_name(&links, name, ".", NULL);
		if (!(s->sessions[i].link = strdup(name)))
			rc = -ENOMEM;
	}
	pj_seen_free(&links);
	return rc;
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
int pj_index_sessions(struct pj_set *s)
{
	uint32_t i, p;

	s->latest = -1;
	for (i = 0; i < s->nsessions; i++)
		s->projects[s->sessions[i].project].nsessions++;
	for (p = 0; p < s->nprojects; p++) {
		s->projects[p].sessions = malloc((s->projects[p].nsessions + 1) * sizeof(uint32_t));
		if (!s->projects[p].sessions)
			return -ENOMEM;
		s->projects[p].nsessions = 0;
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

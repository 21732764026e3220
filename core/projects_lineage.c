/* projects: where a --fork-session copy came from (projects_priv.h). */
#include "projects_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- forks ---- */

/* Where fork f (log name in dfd) left its origin: the last copied record. */
static int fork_point(int dfd, const char *name, const struct lh_facts *f, char **uuid,
		      int *settled)
{
	int rc = lh_fork_point(dfd, name, f, uuid, settled);

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
	char *uuid = NULL;
	const struct pj_session *best = NULL;
	int dfd, rc;
	uint32_t i;

	x->fork_known = 1;
	if (!x->f.copy_uuid)
		return 0;
	if ((dfd = pj_project_fd(s, x->project)) < 0)
		return dfd;
	rc = fork_point(dfd, strrchr(x->path, '/') + 1, &x->f, &uuid, NULL);
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
	if (pj_list_dir(lfd, &names, &k))
		k = 0;
	close(lfd);
	if (!k) {
		free(names);
		return;
	}
	*out = calloc(k + 1, sizeof(**out));
	for (i = 0; *out && i < k; i++) {
		if (!pj_is_session_file(names[i]) || !strcmp(names[i], name))
			continue;
		nm_stem(names[i], stem);
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
	pj_free_names(names, k);
	if (*n)
		qsort(*out, *n, sizeof(**out), sibling_cmp);
}

int pj_fork_of(int dirfd, const char *name, char **sid, char **uuid, int *settled)
{
	char stem[NM_MAX + 1];
	struct lh_facts f;
	struct sibling *sib;
	const char *found = NULL;
	size_t n, i;
	int rc;

	*sid = *uuid = NULL;
	nm_stem(name, stem);
	rc = lh_read(dirfd, name, stem, &f);
	if (!rc && !f.copy_uuid)
		rc = -ENOENT;
	if (!rc)
		rc = fork_point(dirfd, name, &f, uuid, settled);
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

void pj_find_forks(struct pj_set *s)
{
	uint32_t i;

	for (i = 0; i < s->nsessions; i++)
		if (!s->sessions[i].fork_known)
			pj_find_fork(s, &s->sessions[i]);
}

/* ---- continuations ---- */

/* Whether y may hold x's leaf: another log of x's project that started
 * no later than x (pass 0), or later (pass 1). */
static int may_hold(const struct pj_session *x, const struct pj_session *y, int pass)
{
	if (y == x || y->project != x->project)
		return 0;
	return (y->start_ms <= x->start_ms) == !pass;
}

int pj_find_continued(const struct pj_set *s, const struct pj_session *x, const char *leaf,
		      uint32_t *key)
{
	int dfd, pass;
	uint32_t i;

	*key = 0;
	if ((dfd = pj_project_fd(s, x->project)) < 0)
		return dfd;
	for (pass = 0; pass < 2 && !*key; pass++) {
		for (i = s->nsessions; i-- > 0 && !*key;) {	/* newest first */
			const struct pj_session *y = &s->sessions[i];

			if (may_hold(x, y, pass) &&
			    lh_has_uuid(dfd, strrchr(y->path, '/') + 1, leaf) == 1)
				*key = y->key;
		}
	}
	close(dfd);
	return 0;
}

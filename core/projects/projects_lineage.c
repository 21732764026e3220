/* projects: where a --fork-session copy came from (projects_priv.h). */
#include "projects_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uthash.h>

#include "lineage.h"
#include "release.h"

/* ---- forks ---- */

/*
 * Finds where fork x came from (its origin session and the last copied
 * record), reading the fork's copied part and, by the uuid, the logs of
 * its project that could hold it; sets x's fork fields (x must belong to
 * s and not be shared yet with other threads: call on a set being built,
 * or under the owner's lock). 0 or -errno.
 */
static int pj_find_fork(struct pj_set *s, struct pj_session *x)
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
	rc = ln_fork_point(dfd, strrchr(x->path, '/') + 1, &x->f, &uuid, NULL);
	for (i = 0; !rc && i < s->nsessions; i++) {	/* newest first */
		const struct pj_session *y = &s->sessions[s->nsessions - 1 - i];

		if (y != x && y->project == x->project && y->start_ms <= x->start_ms &&
		    ln_is_origin(dfd, strrchr(y->path, '/') + 1, y->f.sid, &x->f, uuid)) {
			best = y;
			break;
		}
	}
	close(dfd);
	if (rc)
		return rc;
	x->fork_uuid = uuid;
	x->fork_sid = ln_origin_id(best ? best->f.sid : NULL, &x->f);
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

/* A session by its last row's uuid (several may share one). */
struct by_last {
	UT_hash_handle hh;
	const char *uuid;
	uint32_t i;
	struct by_last *next;
};

/* The newest y of x's project, started before x, whose last row is leaf. */
static struct pj_session *copied_log(struct pj_set *s, const struct pj_session *x,
				     struct by_last *map, const char *leaf, size_t n)
{
	struct by_last *e = NULL;
	struct pj_session *best = NULL;

	HASH_FIND(hh, map, leaf, (unsigned)n, e);
	for (; e; e = e->next) {
		struct pj_session *y = &s->sessions[e->i];

		if (y != x && y->project == x->project && y->start_ms < x->start_ms &&
		    (!best || y->start_ms > best->start_ms))
			best = y;
	}
	return best;
}

void pj_link_copies(struct pj_set *s)
{
	struct by_last *map = NULL, *v = calloc(s->nsessions + 1, sizeof(*v)), *e, *t;
	uint32_t i;

	if (!v)
		return;		/* no links: each log is listed on its own */
	for (i = 0; i < s->nsessions; i++) {
		const char *u = s->sessions[i].f.last_uuid;

		if (!u)
			continue;
		v[i].uuid = u;
		v[i].i = i;
		HASH_FIND(hh, map, u, (unsigned)strlen(u), e);
		if (e) {
			v[i].next = e->next;
			e->next = &v[i];
		} else {
			HASH_ADD_KEYPTR(hh, map, u, (unsigned)strlen(u), &v[i]);
		}
	}
	for (i = 0; i < s->nsessions; i++) {
		struct pj_session *x = &s->sessions[i], *y = NULL;
		const char *l = x->f.leaves;

		if (!l || !rl_copies_on_resume(x->f.version))
			continue;
		while (*l && !y) {
			size_t n = strcspn(l, "\n");

			y = copied_log(s, x, map, l, n);
			l += n + (l[n] == '\n');
		}
		if (!y)
			continue;
		x->copy_of = y->key;
		if (!y->copied_by || pj_by_key(s, y->copied_by)->start_ms < x->start_ms)
			y->copied_by = x->key;
	}
	HASH_ITER(hh, map, e, t)
		HASH_DEL(map, e);
	free(v);
}

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

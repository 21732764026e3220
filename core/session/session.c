#include "session.h"
#include "session_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "jscan.h"
#include "plat.h"


static void drop_was(struct st_was *w)
{
	free((void *)w->chain);
	free((void *)w->path);
	memset(w, 0, sizeof(*w));
}

/* The context and the state (built again when next asked for). */
static void drop_state(struct session *s)
{
	ctx_free(s->ctx);
	s->ctx = NULL;
	s->ctx_rc = 0;
	ctx_free(s->ctx_was);
	s->ctx_was = NULL;
	st_free(s->st);
	s->st = NULL;
	s->st_rc = 0;
	drop_was(&s->st_was);
}

static void drop_built(struct session *s)
{
	drop_state(s);
	rs_free(s->chain);
	sc_free(s->sc);
	sm_free(s->sm);
	s->sc = NULL;
	s->sm = NULL;
	br_free(s->br);
	gr_free(s->g);
	s->chain = NULL;
	s->br = NULL;
	s->g = NULL;
}

/* A part's graph: the rows of its sidechain, found in the whole log's. */
static int build_part(struct session *s)
{
	struct graph *all;
	uint8_t *keep = NULL;
	int rc = gr_build(s->ix, &all);

	if (rc)
		return rc;
	rc = sc_keep(all, idx_id_find(s->ix, s->part, strlen(s->part)), &keep);
	gr_free(all);
	if (!rc)
		rc = gr_build_only(s->ix, keep, &s->g);
	free(keep);
	return rc;
}

static void drop_usage(struct session *s)
{
	us_free(s->us);
	s->us = NULL;
	s->us_rc = 0;
}

/* Records what the state is built from, for keep_state(): the chain now
 * and path (taken: freed here on failure). 0 or -ENOMEM. */
static int set_was(struct session *s, uint32_t *path, uint32_t n)
{
	uint32_t *chain = malloc((s->chain->n ? s->chain->n : 1) * sizeof(*chain));

	drop_was(&s->st_was);
	if (!chain) {
		free(path);
		return -ENOMEM;
	}
	if (s->chain->n)
		memcpy(chain, s->chain->ids, s->chain->n * sizeof(*chain));
	s->st_was = (struct st_was){ chain, path, s->chain->n, n,
				     idx_nrecs(s->ix), idx_nids(s->ix) };
	return 0;
}

/*
 * After growth: puts back the state built before (st, was) when it is
 * still what a build would give (st_still()), with what it is built from
 * now; else frees it, to be built again when asked for.
 */
static void keep_state(struct session *s, struct st_state *st, struct st_was *was)
{
	uint32_t *path = NULL, n = 0;

	if (!st || (s->current >= 0 && br_path(s->br, (uint32_t)s->current, &path, &n)))
		goto drop;
	if (!st_still(st, s->g, s->chain, path, n, was)) {
		free(path);
		goto drop;
	}
	if (set_was(s, path, n))	/* takes path */
		goto drop;
	s->st = st;
	drop_was(was);
	return;
drop:
	st_free(st);
	drop_was(was);
}

static int build(struct session *s);
static int extend(struct session *s);

/* build() after the log grew: keeps what is still true, and the context
 * to build the next one on (the older one if none was built since); the
 * graph and the branches extended where they can be (extend()). */
static int build_grown(struct session *s)
{
	struct st_state *st = s->st;
	struct st_was was = s->st_was;
	struct ctx *x = s->ctx ? s->ctx : s->ctx_was;
	int rc;

	s->st = NULL;
	memset(&s->st_was, 0, sizeof(s->st_was));
	if (x == s->ctx)
		s->ctx = NULL;
	else
		s->ctx_was = NULL;
	rc = extend(s);
	if (rc) {
		ctx_free(x);
		st_free(st);
		drop_was(&was);
		return rc;
	}
	s->ctx_was = x;
	keep_state(s, st, &was);
	return 0;
}

/* The current branch: the one holding the chain's attach point. */
static void set_current(struct session *s)
{
	s->current = s->chain->attach ? br_of_node(s->br, s->chain->attach) : -1;
	if (s->current < 0 && s->chain->leaf)
		s->current = br_of_node(s->br, s->chain->leaf);
}

/* What is built on the graph and the branches. */
static int build_rest(struct session *s)
{
	int rc = rs_build(s->g, s->lf, &s->chain);

	if (!rc && !s->part)
		rc = sc_build(s->g, s->lf, &s->sc);
	if (!rc && !s->part)
		rc = sm_build(s->g, s->br, s->lf, &s->sm);
	if (rc)
		return rc;
	set_current(s);
	return 0;
}

/*
 * build_rest() after the graph grew (gr_grow()): the chain extended
 * (rs_grow()) where it proves equal to a build, else built again, and
 * the same for the sidechains and the summaries; counted in s->grow.
 * anew_br: the branches were built anew (the summaries follow them).
 */
static int grow_rest(struct session *s, uint32_t from, uint32_t n0, int anew_br)
{
	int rc = s->chain ? rs_grow(s->chain, s->g) : RS_GROW_NO;

	s->grow.chain[!!rc]++;
	if (rc) {
		rs_free(s->chain);
		s->chain = NULL;
		if ((rc = rs_build(s->g, s->lf, &s->chain)))
			return rc;
	}
	rc = s->sc ? sc_grow(s->sc, s->g, s->lf, from, n0) : SC_GROW_NO;
	s->grow.sidechains[!!rc]++;
	if (rc) {
		sc_free(s->sc);
		s->sc = NULL;
		if ((rc = sc_build(s->g, s->lf, &s->sc)))
			return rc;
	}
	rc = s->sm && !anew_br ? sm_grow(s->sm, s->g, s->br, n0) : SM_GROW_NO;
	s->grow.summaries[!!rc]++;
	if (rc) {
		sm_free(s->sm);
		s->sm = NULL;
		if ((rc = sm_build(s->g, s->br, s->lf, &s->sm)))
			return rc;
	}
	set_current(s);
	return 0;
}

/* Usage rows are per record, which growth keeps: read the new ones. */
static void extend_usage(struct session *s)
{
	if (!s->us || us_extend(s->us, s->ix, s->lf))
		drop_usage(s);		/* read again when next asked for */
}

static int build(struct session *s)
{
	int rc;

	drop_built(s);
	extend_usage(s);
	s->nids_built = idx_nids(s->ix);
	rc = s->part ? build_part(s) : gr_build(s->ix, &s->g);
	if (!rc)
		rc = br_build(s->g, &s->br);
	return rc ? rc : build_rest(s);
}

/*
 * build() after the index grew: the graph and the branches extended
 * (gr_grow(), br_grow()) where they prove equal to a build, else built
 * anew (counted in s->grow), and the rest built again.
 */
static int extend(struct session *s)
{
	uint32_t from, n0;
	int rc, anew;

	if (s->part || !s->g || !s->br)
		return build(s);
	gr_nodes(s->g, &from);
	n0 = s->nids_built;
	rc = gr_grow(s->g);
	s->grow.graph[!!rc]++;
	if (rc)
		return build(s);
	s->nids_built = idx_nids(s->ix);
	drop_state(s);
	extend_usage(s);
	rc = br_grow(s->br, from);
	s->grow.branches[!!rc]++;
	anew = rc != 0;
	if (rc) {
		br_free(s->br);
		s->br = NULL;
		if ((rc = br_build(s->g, &s->br)))
			return rc;
	}
	return grow_rest(s, from, n0, anew);
}

void ss_grow_counts(const struct session *s, struct ss_grow_counts *out)
{
	*out = s->grow;
}

/* Keeps the bytes before the indexed end, to notice a rewrite later. */
static void keep_tail(struct session *s)
{
	uint64_t end = idx_end(s->ix);
	size_t n = end < SS_TAIL ? (size_t)end : SS_TAIL;
	ssize_t got = pread(lf_fd(s->lf), s->tail, n, (off_t)(end - n));

	s->ntail = got == (ssize_t)n ? n : 0;
}

/* Indexes what the log holds past the index's end. */
int ss_index_all(struct session *s)
{
	struct stat st;
	int rc = lf_stat(s->lf, &st);

	if (rc)
		return rc;
	rc = idx_feed2(s->ix, lf_fd(s->lf), IDX_PAR_MIN);
	if (!rc && s->mode == SS_COMPLETE)
		rc = idx_finish(s->ix, lf_fd(s->lf));
	s->bytes = (uint64_t)st.st_size;
	s->seen = st;
	keep_tail(s);
	return rc;
}

/* A log holds at least one record of a kind Claude Code writes. */
static int has_session_record(const struct idx *ix)
{
	uint32_t i, n = idx_nrecs(ix);

	for (i = 0; i < n; i++) {
		const struct idx_rec *r = idx_rec(ix, i);

		if (r->type != IDX_T_OTHER || (r->flags & IDX_F_SESSION))
			return 1;
	}
	return 0;
}

/*
 * A log with no record yet may still be one being written: accept an
 * empty file (in SS_COMPLETE mode no line means no byte), and in SS_LIVE
 * mode one whose first line, unfinished, starts like JSON.
 */
static int may_become_log(const struct session *s)
{
	char c = 0;
	uint64_t at = 0;

	if (idx_lines(s->ix) > 0)
		return 0;
	if (s->mode != SS_LIVE)
		return 1;
	while (pread(lf_fd(s->lf), &c, 1, (off_t)at) == 1 && c == '\0')
		at++;
	return !idx_pending(s->ix) || c == '{';
}

/* Opens the folder of path, to look at the path later (path_moved()). */
static int open_folder(struct session *s, const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? strndup(path, (size_t)(slash - path + 1)) : strdup(".");

	s->base = strdup(slash ? slash + 1 : path);
	if (!dir || !s->base) {
		free(dir);
		return -ENOMEM;
	}
	s->dirfd = open(dir, PL_O_PATH | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	return 0;		/* without it, the file open is all there is */
}

/* A session with nothing open yet (ss_close() frees it). */
static struct session *session_new(enum ss_mode mode)
{
	struct session *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->mode = mode;
	s->current = -1;
	s->dirfd = -1;
	sb_init(&s->notes);
	pthread_mutex_init(&s->ctx_mu, NULL);
	pthread_mutex_init(&s->st_mu, NULL);
	pthread_mutex_init(&s->fork_mu, NULL);
	pthread_mutex_init(&s->sig_mu, NULL);
	sig_init(&s->sig);
	scr_init(&s->scrub);
	pthread_mutex_init(&s->us_mu, NULL);
	pthread_mutex_init(&s->sums_mu, NULL);
	ss_sums_reset(s);
	return s;
}

/* A session not opened yet, for a log at path (a part when root is set:
 * then it reads the file lf has open). */
int ss_new_session(const char *path, const struct logf *lf, enum ss_mode mode,
		   const char *root, struct session **out)
{
	struct session *s = session_new(mode);
	char abs[PATH_MAX];
	int rc;

	*out = NULL;
	if (!s)
		return -ENOMEM;
	rc = lf ? lf_dup(lf, &s->lf) : lf_open(path, &s->lf);
	if (!rc) {
		s->source = strdup(realpath(path, abs) ? abs : path);
		s->part = root ? strdup(root) : NULL;
		if (!s->source || (root && !s->part) || open_folder(s, path))
			rc = -ENOMEM;
	}
	if (rc) {
		ss_close(s);
		return rc;
	}
	*out = s;
	return 0;
}

/* Indexes and builds the session whose log s has open. */
static int open_indexed(struct session *s, struct session **out)
{
	int rc = (s->ix = idx_new()) ? ss_index_all(s) : -ENOMEM;

	s->scrub_st = s->seen;
	if (!rc && !has_session_record(s->ix) && !may_become_log(s))
		rc = -ENOMSG;
	if (!rc)
		rc = build(s);
	if (rc) {
		ss_close(s);
		return rc;
	}
	*out = s;
	return 0;
}

int ss_open(const char *path, enum ss_mode mode, struct session **out)
{
	struct session *s;
	int rc = ss_new_session(path, NULL, mode, NULL, &s);

	*out = NULL;
	return rc ? rc : open_indexed(s, out);
}

int ss_open_at(int dirfd, const char *name, const char *source, enum ss_mode mode,
	       struct session **out)
{
	struct session *s = session_new(mode);
	struct stat st;
	int rc = 0;

	*out = NULL;
	if (!s)
		return -ENOMEM;
	/* Not followed, as the scan that found it followed none. */
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		rc = -errno;
	else if (S_ISLNK(st.st_mode))
		rc = -ELOOP;
	if (!rc)
		rc = lf_openat(dirfd, name, &s->lf);
	if (!rc && !(s->source = strdup(source)))
		rc = -ENOMEM;
	if (!rc && !(s->base = strdup(name)))
		rc = -ENOMEM;
	if (!rc && (s->dirfd = fcntl(dirfd, F_DUPFD_CLOEXEC, 3)) < 0)
		rc = -errno;
	if (rc) {
		ss_close(s);
		return rc;
	}
	return open_indexed(s, out);
}

void ss_close(struct session *s)
{
	if (!s)
		return;
	drop_built(s);
	drop_usage(s);
	idx_free(s->ix);
	lf_close(s->lf);
	if (s->dirfd >= 0)
		close(s->dirfd);
	free(s->base);
	free(s->source);
	free(s->fh_dir);
	free(s->part);
	sb_free(&s->notes);
	pthread_mutex_destroy(&s->ctx_mu);
	pthread_mutex_destroy(&s->st_mu);
	pthread_mutex_destroy(&s->fork_mu);
	free(s->fork_sid);
	free(s->fork_uuid);
	free(s->fork_facts);
	pthread_mutex_destroy(&s->sig_mu);
	pthread_mutex_destroy(&s->us_mu);
	pthread_mutex_destroy(&s->sums_mu);
	free(s);
}

const struct idx *ss_idx(const struct session *s) { return s->ix; }
const struct graph *ss_graph(const struct session *s) { return s->g; }
const struct br_set *ss_branches(const struct session *s) { return s->br; }
const struct rs_chain *ss_chain(const struct session *s) { return s->chain; }
const struct logf *ss_logf(const struct session *s) { return s->lf; }
const char *ss_source(const struct session *s) { return s->source; }
const struct sc_set *ss_sidechains(const struct session *s) { return s->sc; }
const struct sm_set *ss_summaries(const struct session *s) { return s->sm; }
const char *ss_part(const struct session *s) { return s->part; }

const char *ss_title(const struct session *s)
{
	return s->current >= 0 ? sm_branch_title(s->sm, (uint32_t)s->current) : NULL;
}
int ss_current_branch(const struct session *s) { return s->current; }

const struct ctx *ss_context(struct session *s)
{
	pthread_mutex_lock(&s->ctx_mu);
	if (!s->ctx && !s->ctx_rc && s->ctx_was) {
		s->ctx_rc = ctx_grow(s->ctx_was, s->g, s->chain, s->lf, &s->ctx);
		s->ctx_was = NULL;	/* consumed */
		if (s->ctx_rc == -EAGAIN)
			s->ctx_rc = 0;
	}
	if (!s->ctx && !s->ctx_rc)
		s->ctx_rc = ctx_build(s->g, s->chain, s->lf, &s->ctx);
	pthread_mutex_unlock(&s->ctx_mu);
	return s->ctx;
}

const struct us_set *ss_usage(struct session *s)
{
	pthread_mutex_lock(&s->us_mu);
	if (!s->us && !s->us_rc)
		s->us_rc = us_build(s->ix, s->lf, &s->us);
	pthread_mutex_unlock(&s->us_mu);
	return s->us;
}

const struct us_set *ss_usage_read(struct session *s)
{
	const struct us_set *u;

	pthread_mutex_lock(&s->us_mu);
	u = s->us;
	pthread_mutex_unlock(&s->us_mu);
	return u;
}

struct answered {
	const struct us_set *u;
	const struct graph *g;
	const struct us_row *row;
};

/* A row the API answered (not "<synthetic>"): keeps it in a->row. */
static int answered(uint32_t id, void *arg)
{
	struct answered *a = arg;
	const struct us_row *r = us_of_rec(a->u, gr_rec(a->g, id));

	if (!r || !strcmp(us_model(a->u, r->model), US_SYNTHETIC))
		return 0;
	a->row = r;
	return 1;
}

/* Walks the current branch up from its terminal (br_last()): the cost is
 * the rows after the last answer, not the branch. */
int ss_last_usage(struct session *s, const struct us_row **out)
{
	struct answered a = { ss_usage(s), s->g, NULL };

	*out = NULL;
	if (!a.u || s->current < 0)
		return a.u ? 0 : -ENOMEM;
	if (br_last(s->br, (uint32_t)s->current, answered, &a))
		*out = a.row;
	return 0;
}

/* dir made absolute now: the daemon later changes to "/". */
static char *absolute(const char *dir)
{
	char cwd[PATH_MAX], *real = realpath(dir, NULL), *p;

	if (real || dir[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		return real ? real : strdup(dir);
	return asprintf(&p, "%s/%s", cwd, dir) < 0 ? NULL : p;
}

int ss_set_file_history(struct session *s, const char *dir)
{
	char *copy = dir ? absolute(dir) : NULL;

	if (dir && !copy)
		return -ENOMEM;
	pthread_mutex_lock(&s->st_mu);
	free(s->fh_dir);
	s->fh_dir = copy;
	pthread_mutex_unlock(&s->st_mu);
	return 0;
}

const char *ss_open_error(int rc)
{
	switch (rc) {
	case -EISDIR:
		return "is a directory, not a session log";
	case -EINVAL:
		return "not a regular file, not a session log";
	case -ENOMSG:
		return "not a Claude Code session log (no session record in it)";
	}
	return strerror(-rc);
}

static int build_state(struct session *s)
{
	struct st_opts o = { s->source, s->fh_dir };
	uint32_t *path = NULL, n = 0;
	int rc;

	if (s->current >= 0 && br_path(s->br, (uint32_t)s->current, &path, &n))
		return -ENOMEM;
	rc = st_build(s->g, s->chain, path, n, s->lf, &o, &s->st);
	if (rc)
		free(path);
	else
		set_was(s, path, n);	/* takes path; without it, no keeping */
	return rc;
}

const struct st_state *ss_state(struct session *s)
{
	pthread_mutex_lock(&s->st_mu);
	if (!s->st && !s->st_rc)
		s->st_rc = build_state(s);
	pthread_mutex_unlock(&s->st_mu);
	return s->st;
}

uint32_t ss_bad_lines(const struct session *s)
{
	uint32_t i, n = 0;

	for (i = 0; i < idx_nerrs(s->ix); i++)
		n += idx_err(s->ix, i)->code != IDX_E_BAD_UUID &&
		     idx_err(s->ix, i)->code != IDX_E_TORN;
	return n;
}

uint64_t ss_unfinished(const struct session *s)
{
	uint32_t n = idx_nerrs(s->ix);
	const struct idx_err *e = n ? idx_err(s->ix, n - 1) : NULL;

	if (s->mode == SS_LIVE)
		return idx_pending(s->ix);
	return e && e->code == IDX_E_TORN ? idx_end(s->ix) - e->off : 0;
}

/* ---- for session_part.c (session_priv.h) ---- */

int ss_build_anew(struct session *s)
{
	drop_usage(s);
	return build(s);
}

int ss_build_grown(struct session *s)
{
	return build_grown(s);
}

void ss_note(struct session *s, const char *what)
{
	char ts[32];
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	js_time_fmt((int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000, ts);
	sb_addf(&s->notes, "note: %s: %s\n", ts, what);
}

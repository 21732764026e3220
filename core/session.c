#include "session.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "projects.h"
#include "jscan.h"
#include "sig.h"
#include "plat.h"

struct session {
	struct logf *lf;
	enum ss_mode mode;
	char *source;		/* absolute path of the log */
	int dirfd;		/* its folder, opened before anything is mounted */
	char *base;		/* its name in that folder */
	uint64_t bytes;		/* size of the log when last indexed */
	struct stat seen;	/* fstat of the log when last indexed */
	char tail[SS_TAIL];	/* the bytes just before idx_end() then */
	size_t ntail;
	dev_t bad_dev;		/* a file at the path that would not open */
	ino_t bad_ino;
	struct sbuf notes;	/* errors.txt notes: what made it start over */
	struct idx *ix;
	struct graph *g;
	struct br_set *br;
	struct rs_chain *chain;
	struct sc_set *sc;	/* inline sidechains (none in a part) */
	struct sm_set *sm;	/* summaries (none in a part) */
	char *part;		/* a part: the uuid of its sidechain's root */
	int current;
	pthread_mutex_t ctx_mu;	/* the context is built on first use */
	struct ctx *ctx;
	int ctx_rc;
	pthread_mutex_t us_mu;	/* and the usage */
	struct us_set *us;
	int us_rc;
	pthread_mutex_t st_mu;	/* so is the state */
	struct st_state *st;
	int st_rc;
	char *fh_dir;		/* -o file_history, or NULL */
	pthread_mutex_t fork_mu;	/* forkedFrom is looked for on first use */
	int fork_known;			/* and again once the log has grown */
	uint64_t fork_bytes;		/* s->bytes then */
	char *fork_sid, *fork_uuid;
	pthread_mutex_t sig_mu;	/* the signature of the bytes indexed, */
	struct sig sig;		/* extended by ss_sign() */
};

static void drop_built(struct session *s)
{
	ctx_free(s->ctx);
	s->ctx = NULL;
	s->ctx_rc = 0;
	st_free(s->st);
	s->st = NULL;
	s->st_rc = 0;
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

static int build(struct session *s)
{
	int rc;

	drop_built(s);
	/* Usage rows are per record, which growth keeps: read the new ones. */
	if (!s->us || us_extend(s->us, s->ix, s->lf))
		drop_usage(s);		/* read again when next asked for */
	rc = s->part ? build_part(s) : gr_build(s->ix, &s->g);
	if (!rc)
		rc = br_build(s->g, &s->br);
	if (!rc)
		rc = rs_build(s->g, s->lf, &s->chain);
	if (!rc && !s->part)
		rc = sc_build(s->g, s->lf, &s->sc);
	if (!rc && !s->part)
		rc = sm_build(s->g, s->br, s->lf, &s->sm);
	if (rc)
		return rc;
	s->current = s->chain->attach ? br_of_node(s->br, s->chain->attach) : -1;
	if (s->current < 0 && s->chain->leaf)
		s->current = br_of_node(s->br, s->chain->leaf);
	return 0;
}

/* Keeps the bytes before the indexed end, to notice a rewrite later. */
static void keep_tail(struct session *s)
{
	uint64_t end = idx_end(s->ix);
	size_t n = end < SS_TAIL ? (size_t)end : SS_TAIL;
	ssize_t got = pread(lf_fd(s->lf), s->tail, n, (off_t)(end - n));

	s->ntail = got == (ssize_t)n ? n : 0;
}

static int tail_same(const struct session *s)
{
	char now[SS_TAIL];
	uint64_t end = idx_end(s->ix);

	return pread(lf_fd(s->lf), now, s->ntail, (off_t)(end - s->ntail)) ==
		       (ssize_t)s->ntail && !memcmp(now, s->tail, s->ntail);
}

/* Indexes what the log holds past the index's end. */
static int index_all(struct session *s)
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

/* A session not opened yet, for a log at path (a part when root is set). */
static int new_session(const char *path, enum ss_mode mode, const char *root,
		       struct session **out)
{
	struct session *s = calloc(1, sizeof(*s));
	char abs[PATH_MAX];
	int rc;

	*out = NULL;
	if (!s)
		return -ENOMEM;
	s->mode = mode;
	s->current = -1;
	s->dirfd = -1;
	sb_init(&s->notes);
	pthread_mutex_init(&s->ctx_mu, NULL);
	pthread_mutex_init(&s->st_mu, NULL);
	pthread_mutex_init(&s->fork_mu, NULL);
	pthread_mutex_init(&s->sig_mu, NULL);
	sig_init(&s->sig);
	pthread_mutex_init(&s->us_mu, NULL);
	rc = lf_open(path, &s->lf);
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

int ss_open(const char *path, enum ss_mode mode, struct session **out)
{
	struct session *s;
	int rc = new_session(path, mode, NULL, &s);

	*out = NULL;
	if (rc)
		return rc;
	rc = (s->ix = idx_new()) ? index_all(s) : -ENOMEM;
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

/* The records a part of whole starts with: its conversation's rows, and
 * the rows that may bridge (progress rows, rows the repair drops). */
static int part_rows(const struct session *whole, const char *root, uint8_t **keep)
{
	uint32_t i, n = idx_nrecs(whole->ix);
	int rc = sc_keep(whole->g, idx_id_find(whole->ix, root, strlen(root)), keep);

	for (i = 0; !rc && i < n; i++) {
		const struct idx_rec *r = idx_rec(whole->ix, i);

		if (r->type == IDX_T_PROGRESS || r->drop)
			(*keep)[i] = 1;
	}
	return rc;
}

int ss_open_part(const struct session *whole, const char *root, struct session **out)
{
	struct session *s;
	uint8_t *keep = NULL;
	int rc = new_session(whole->source, whole->mode, root, &s);

	*out = NULL;
	if (rc)
		return rc;
	rc = part_rows(whole, root, &keep);
	if (!rc)
		rc = idx_copy_some(whole->ix, keep, &s->ix);
	free(keep);
	if (!rc) {
		s->bytes = whole->bytes;
		s->seen = whole->seen;
		keep_tail(s);
		rc = build(s);
	}
	if (rc) {
		ss_close(s);
		return rc;
	}
	*out = s;
	return 0;
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
	pthread_mutex_destroy(&s->sig_mu);
	pthread_mutex_destroy(&s->us_mu);
	free(s);
}

static int same_time(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

/* The same times: a write moves both, a touch -r or a chmod the second. */
static int same_times(const struct stat *a, const struct stat *b)
{
	return same_time(&PL_MTIM(*a), &PL_MTIM(*b)) && same_time(&PL_CTIM(*a), &PL_CTIM(*b));
}

/*
 * Another file (one not refused before) is at the log's path now. The
 * path is looked up from the folder opened at ss_open(): a mount over that
 * folder (even this very one) does not hide it, and no lookup of the log's
 * path can wait for the mount that is asking.
 */
static int path_moved(const struct session *s, const struct stat *fd_st,
		      struct stat *path_st)
{
	if (s->dirfd < 0 || fstatat(s->dirfd, s->base, path_st, 0) < 0)
		return 0;	/* gone or hidden: keep following the file */
	if (path_st->st_dev == fd_st->st_dev && path_st->st_ino == fd_st->st_ino)
		return 0;
	return path_st->st_dev != s->bad_dev || path_st->st_ino != s->bad_ino;
}

int ss_changed(const struct session *s)
{
	struct stat st, pst;

	if (lf_stat(s->lf, &st))
		return 0;
	return st.st_size != s->seen.st_size || !same_times(&st, &s->seen) ||
	       path_moved(s, &st, &pst);
}

int ss_rewritten(const struct session *s)
{
	struct stat st, pst;

	if (lf_stat(s->lf, &st))
		return 0;
	return st.st_size < s->seen.st_size ||
	       (st.st_size == s->seen.st_size && !same_times(&st, &s->seen)) ||
	       path_moved(s, &st, &pst);
}

static void note(struct session *s, const char *what)
{
	char ts[32];
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	js_time_fmt((int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000, ts);
	sb_addf(&s->notes, "note: %s: %s\n", ts, what);
}

/*
 * Follows the file now at the log's path: 1 if it does, 0 if the same
 * file stays because the path holds no other, -1 if it stays because the
 * other will not open (noted once; the file already open is kept).
 */
static int follow_path(struct session *s)
{
	struct stat st, pst;
	struct logf *lf;
	int rc;

	if (lf_stat(s->lf, &st) || !path_moved(s, &st, &pst))
		return 0;
	rc = lf_openat(s->dirfd, s->base, &lf);
	if (rc) {
		s->bad_dev = pst.st_dev;
		s->bad_ino = pst.st_ino;
		note(s, rc == -EISDIR ? "a directory took the log's path; the log as it was is still shown" :
			rc == -EINVAL ? "something not a regular file took the log's path; the log as it was is still shown" :
			"another file at the log's path cannot be read; the log as it was is still shown");
		return -1;
	}
	lf_close(s->lf);
	s->lf = lf;
	note(s, "another file replaced the log at its path; it was indexed again from scratch");
	return 1;
}

/* Indexes the log again from its first byte. */
static int reindex(struct session *s)
{
	struct idx *ix = idx_new(), *old = s->ix;
	int rc;

	if (!ix)
		return -ENOMEM;
	drop_usage(s);
	s->ix = ix;
	pthread_mutex_lock(&s->sig_mu);
	sig_init(&s->sig);
	pthread_mutex_unlock(&s->sig_mu);
	rc = index_all(s);
	if (!rc)
		rc = build(s);
	if (rc) {
		s->ix = old;
		idx_free(ix);
		build(s);
		return rc;
	}
	idx_free(old);
	return SS_RESET;
}

int ss_sign(struct session *s, uint64_t max)
{
	uint64_t end = idx_end(s->ix);
	int more;

	pthread_mutex_lock(&s->sig_mu);
	if (s->sig.len < end && sig_file(&s->sig, lf_fd(s->lf), end, max))
		sig_init(&s->sig);	/* shorter than indexed: ss_refresh() sees it */
	more = s->sig.len < end;
	pthread_mutex_unlock(&s->sig_mu);
	return more;
}

/*
 * Whether the bytes indexed are still those signed: 1 yes, 0 no, -1 not
 * known (not all are signed yet, or they could not be read again).
 */
static int still_signed(struct session *s)
{
	struct sig now;
	int rc;

	pthread_mutex_lock(&s->sig_mu);
	if (s->sig.len != idx_end(s->ix)) {
		pthread_mutex_unlock(&s->sig_mu);
		return -1;
	}
	sig_init(&now);
	rc = sig_file(&now, lf_fd(s->lf), s->sig.len, UINT64_MAX);
	rc = rc ? -1 : sig_value(&now) == sig_value(&s->sig);
	pthread_mutex_unlock(&s->sig_mu);
	return rc;
}

/* The log kept its size and not its times: rewritten in place, or only
 * touched? The signature tells; when it cannot, index again. */
static int same_size(struct session *s, const struct stat *st)
{
	int same = still_signed(s);

	if (same > 0) {
		s->seen = *st;
		return SS_SAME;
	}
	note(s, same == 0 ? "the log was rewritten in place (the same size, other bytes); it was indexed again from scratch" :
		"the log changed in place (the same size, new times) before its bytes were signed; it was indexed again from scratch");
	return reindex(s);
}

int ss_refresh(struct session *s)
{
	uint32_t lines = idx_lines(s->ix), errs = idx_nerrs(s->ix);
	uint64_t pending = idx_pending(s->ix), had = idx_end(s->ix) + pending;
	struct stat st;
	int rc, moved = follow_path(s);

	if (moved > 0)
		return reindex(s);
	if ((rc = lf_stat(s->lf, &st)))
		return rc;
	if (st.st_size == s->seen.st_size && same_times(&st, &s->seen))
		return moved ? SS_GREW : SS_SAME;	/* a note is new */
	if (st.st_size == s->seen.st_size) {
		rc = same_size(s, &st);
		return rc == SS_SAME && moved ? SS_GREW : rc;
	}
	if ((uint64_t)st.st_size < had || !tail_same(s)) {
		char what[200];

		snprintf(what, sizeof(what), (uint64_t)st.st_size < had ?
			 "the log shrank from %llu to %llu bytes; it was indexed again from scratch" :
			 "the log was rewritten (bytes before %llu changed, now %llu bytes); it was indexed again from scratch",
			 (unsigned long long)had, (unsigned long long)st.st_size);
		note(s, what);
		return reindex(s);
	}
	if ((rc = index_all(s)))
		return rc;
	if (idx_lines(s->ix) == lines && idx_nerrs(s->ix) == errs)
		return idx_pending(s->ix) == pending ? SS_SAME : SS_GREW;
	rc = build(s);
	return rc ? rc : SS_GREW;
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

int ss_last_usage(struct session *s, const struct us_row **out)
{
	const struct us_set *u = ss_usage(s);
	uint32_t *ids, n, i;
	int rc;

	*out = NULL;
	if (!u || s->current < 0)
		return u ? 0 : -ENOMEM;
	rc = br_path(s->br, (uint32_t)s->current, &ids, &n);
	if (rc)
		return rc;
	for (i = n; i-- > 0 && !*out;) {
		const struct us_row *r = us_of_rec(u, gr_rec(s->g, ids[i]));

		if (r && strcmp(us_model(u, r->model), US_SYNTHETIC))
			*out = r;
	}
	free(ids);
	return 0;
}

/* dir made absolute now: the daemon later changes to "/". */
static char *absolute(const char *dir)
{
	char cwd[PATH_MAX], *real = realpath(dir, NULL), *p;
	size_t n;

	if (real || dir[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		return real ? real : strdup(dir);
	n = strlen(cwd) + strlen(dir) + 2;
	if ((p = malloc(n)))
		snprintf(p, n, "%s/%s", cwd, dir);
	return p;
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
	free(path);
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

/* ---- facts ---- */

static void add_key(struct sbuf *out, const char *key, int *first)
{
	sb_adds(out, *first ? "{\n  " : ",\n  ");
	*first = 0;
	sb_add_json_str(out, key, strlen(key));
	sb_adds(out, ": ");
}

static void add_str(struct sbuf *out, const char *key, const char *v, int *first)
{
	add_key(out, key, first);
	if (v)
		sb_add_json_str(out, v, strlen(v));
	else
		sb_adds(out, "null");
}

static void add_num(struct sbuf *out, const char *key, uint64_t v, int *first)
{
	add_key(out, key, first);
	sb_addf(out, "%llu", (unsigned long long)v);
}

static void add_uuid(struct sbuf *out, const struct idx *ix, const char *key,
		     uint32_t id, int *first)
{
	char buf[IDX_UUID_MAX + 1];

	add_str(out, key, id ? (idx_id_buf(ix, id, buf), buf) : NULL, first);
}

/* The record whose environment describes the session: the leaf, else the
 * last message, else the last record with a sessionId. */
static const struct idx_rec *env_record(const struct session *s)
{
	uint32_t n, i;
	const uint32_t *order = gr_nodes(s->g, &n);

	if (s->chain->leaf)
		return gr_node_rec(s->g, s->chain->leaf);
	if (n)
		return gr_node_rec(s->g, order[n - 1]);
	for (i = idx_nrecs(s->ix); i-- > 0;)
		if (idx_rec(s->ix, i)->flags & IDX_F_SESSION)
			return idx_rec(s->ix, i);
	return NULL;
}

static void add_env(const struct session *s, struct sbuf *out, int *first)
{
	static const char *const keys[] = { "sessionId", "cwd", "gitBranch", "version" };
	const struct idx_rec *r = env_record(s);
	cJSON *j = r ? lf_parse(s->lf, r) : NULL;
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, keys[i]);

		add_str(out, keys[i], cJSON_IsString(v) ? v->valuestring : NULL, first);
	}
	cJSON_Delete(j);
}

static void add_times(const struct session *s, struct sbuf *out, int *first)
{
	int64_t lo = IDX_NO_TS, hi = IDX_NO_TS;
	uint32_t i;
	char buf[32];

	for (i = 0; i < idx_nrecs(s->ix); i++) {
		int64_t t = idx_rec(s->ix, i)->ts;

		if (t == IDX_NO_TS)
			continue;
		if (lo == IDX_NO_TS || t < lo)
			lo = t;
		if (hi == IDX_NO_TS || t > hi)
			hi = t;
	}
	js_time_fmt(lo, buf);
	add_str(out, "firstTimestamp", lo == IDX_NO_TS ? NULL : buf, first);
	js_time_fmt(hi, buf);
	add_str(out, "lastTimestamp", hi == IDX_NO_TS ? NULL : buf, first);
}

/* forkedFrom: the session a --fork-session copy came from (projects.h),
 * looked for again only when the log has grown since. */
static void add_fork(struct session *s, struct sbuf *out, int *first)
{
	pthread_mutex_lock(&s->fork_mu);
	if (!s->fork_known || s->fork_bytes != s->bytes) {
		s->fork_known = 1;
		s->fork_bytes = s->bytes;
		free(s->fork_sid);
		free(s->fork_uuid);
		pj_fork_of(s->dirfd, s->base, &s->fork_sid, &s->fork_uuid);
	}
	pthread_mutex_unlock(&s->fork_mu);
	add_key(out, "forkedFrom", first);
	if (!s->fork_uuid) {
		sb_adds(out, "null");
		return;
	}
	sb_adds(out, "{\"sessionId\": ");
	if (s->fork_sid)
		sb_add_json_str(out, s->fork_sid, strlen(s->fork_sid));
	else
		sb_adds(out, "null");
	sb_adds(out, ", \"uuid\": ");
	sb_add_json_str(out, s->fork_uuid, strlen(s->fork_uuid));
	sb_addc(out, '}');
}

static uint32_t count_compactions(const struct session *s)
{
	uint32_t n, k, c = 0;
	const uint32_t *order = gr_nodes(s->g, &n);

	for (k = 0; k < n; k++)
		c += gr_is_boundary(s->g, order[k]) && gr_main_side(s->g, order[k]);
	return c;
}

/* sessionTitle: the session's title by the rule of a projects folder
 * (loghead.h), over the whole log. */
static void add_session_title(const struct session *s, struct sbuf *out, int *first)
{
	enum lh_title_kind kind;
	char *t = NULL;

	lh_index_title(s->ix, s->lf, &t, &kind);
	add_str(out, "sessionTitle", t, first);
	free(t);
}

/* title, branchTitles (only the titled branches), continuedFrom. */
static void add_titles(const struct session *s, struct sbuf *out, int *first)
{
	uint32_t i, titled = 0;

	add_str(out, "title", ss_title(s), first);
	add_session_title(s, out, first);
	add_key(out, "branchTitles", first);
	for (i = 0; i < br_count(s->br); i++) {
		const char *t = sm_branch_title(s->sm, i);

		if (!t)
			continue;
		sb_adds(out, titled++ ? ", " : "{");
		sb_add_json_str(out, br_get(s->br, i)->name, strlen(br_get(s->br, i)->name));
		sb_adds(out, ": ");
		sb_add_json_str(out, t, strlen(t));
	}
	sb_adds(out, titled ? "}" : "{}");
	add_key(out, "continuedFrom", first);
	sb_adds(out, sm_ncont(s->sm) ? "[" : "[]");
	for (i = 0; i < sm_ncont(s->sm); i++) {
		const struct sm_cont *c = sm_cont(s->sm, i);

		sb_adds(out, i ? ", {\"leafUuid\": " : "{\"leafUuid\": ");
		sb_add_json_str(out, c->leaf, strlen(c->leaf));
		sb_adds(out, ", \"summary\": ");
		sb_add_json_str(out, c->summary, strlen(c->summary));
		sb_addc(out, '}');
	}
	if (sm_ncont(s->sm))
		sb_addc(out, ']');
	add_num(out, "inlineSidechains", sc_count(s->sc), first);
	if (s->part)
		add_str(out, "sidechainRoot", s->part, first);
}

/* The last response's own count of its input: what the model last saw. */
static void add_real(struct session *s, struct sbuf *out, int *first)
{
	const struct us_row *r;

	if (ss_last_usage(s, &r) || !r) {
		add_str(out, "contextTokensReal", NULL, first);
		add_str(out, "contextTokensRealAt", NULL, first);
		return;
	}
	add_num(out, "contextTokensReal", us_context(&r->t), first);
	add_uuid(out, s->ix, "contextTokensRealAt", idx_rec(s->ix, r->rec)->uuid, first);
}

static void add_context(struct session *s, struct sbuf *out, int *first)
{
	const struct ctx *x = ss_context(s);
	const struct ctx_window *w = x ? ctx_window(x) : NULL;

	add_num(out, "contextMessages", x ? ctx_nmessages(x) : 0, first);
	add_uuid(out, s->ix, "contextStart", w ? w->start : 0, first);
	add_num(out, "contextStartPosition", w ? w->dpos : 0, first);
	add_num(out, "contextTokens", x ? ctx_tokens(x) : 0, first);
	add_real(s, out, first);
}

static void add_state(struct session *s, struct sbuf *out, int *first)
{
	const struct st_state *st = ss_state(s);
	struct st_counts n = { 0, 0, 0, 0 };

	if (st)
		st_counts(st, &n);
	add_num(out, "stateReadCache", n.reads, first);
	add_num(out, "stateSnapshots", n.snapshots, first);
	add_num(out, "stateBackups", n.backups, first);
	add_num(out, "stateMissingBackups", n.missing, first);
	add_str(out, "fileHistoryFolder", st ? st_fh_dir(st) : NULL, first);
}

/* deadEnds: the pieces of the graph that are on no branch (branch.h). */
static void add_dead_ends(struct session *s, struct sbuf *out, int *first)
{
	uint32_t i, n = br_ndead(s->br);

	add_key(out, "deadEnds", first);
	sb_adds(out, n ? "[" : "[]");
	for (i = 0; i < n; i++) {
		const struct br_dead *d = br_dead(s->br, i);
		char buf[IDX_UUID_MAX + 1];

		sb_adds(out, i ? ",\n    {\"first\": " : "\n    {\"first\": ");
		sb_add_json_str(out, buf, idx_id_buf(s->ix, d->top, buf));
		sb_adds(out, ", \"last\": ");
		sb_add_json_str(out, buf, idx_id_buf(s->ix, d->terminal, buf));
		sb_adds(out, ", \"from\": ");
		if (d->from)
			sb_add_json_str(out, buf, idx_id_buf(s->ix, d->from, buf));
		else
			sb_adds(out, "null");
		sb_addf(out, ", \"line\": %u, \"rows\": %u, \"reason\": \"%s\"}",
			gr_node_rec(s->g, d->top)->line, d->rows,
			d->why == BR_DEAD_SUMMARISED ? "summarised" : "side");
	}
	if (n)
		sb_adds(out, "\n  ]");
}

void ss_window_md(struct session *s, struct sbuf *out)
{
	const struct ctx *x = ss_context(s);
	uint32_t i, n = br_ndead(s->br);

	if (x)
		ctx_window_md(x, s->g, out);
	if (n)
		sb_adds(out, "\n## Dead ends (on no branch)\n\n");
	for (i = 0; i < n; i++) {
		const struct br_dead *d = br_dead(s->br, i);

		sb_addf(out, "- line %u, ", gr_node_rec(s->g, d->top)->line);
		idx_id_text(s->ix, d->top, out);
		sb_addf(out, ", %u row%s", d->rows, d->rows == 1 ? "" : "s");
		if (d->from) {
			sb_adds(out, " off ");
			idx_id_text(s->ix, d->from, out);
		}
		sb_addf(out, ": %s\n", br_dead_reason(d->why));
	}
}

void ss_facts_json(struct session *s, struct sbuf *out)
{
	const struct rs_chain *c = s->chain;
	const struct ctx *x = ss_context(s);
	uint32_t nodes;
	int first = 1;

	gr_nodes(s->g, &nodes);
	add_env(s, out, &first);
	add_str(out, "source", s->source, &first);
	add_num(out, "bytes", s->bytes, &first);
	add_num(out, "lines", idx_lines(s->ix), &first);
	add_num(out, "records", s->part ? nodes : idx_nrecs(s->ix), &first);
	add_num(out, "badLines", ss_bad_lines(s), &first);
	add_num(out, "unfinishedLastLine", ss_unfinished(s), &first);
	add_num(out, "messages", nodes, &first);
	add_num(out, "branches", br_count(s->br), &first);
	add_dead_ends(s, out, &first);
	add_str(out, "currentBranch",
		s->current >= 0 ? br_get(s->br, (uint32_t)s->current)->name : NULL, &first);
	add_uuid(out, s->ix, "currentLeaf", x ? ctx_attach(x) : c->attach, &first);
	add_uuid(out, s->ix, "leafMessage", c->leaf, &first);
	add_num(out, "compactions", count_compactions(s), &first);
	add_titles(s, out, &first);
	add_context(s, out, &first);
	add_state(s, out, &first);
	add_times(s, out, &first);
	add_fork(s, out, &first);
	sb_adds(out, "\n}\n");
}

/* ---- errors.txt ---- */

static void add_uuid_text(const struct session *s, struct sbuf *out, uint32_t id)
{
	idx_id_text(s->ix, id, out);
}

static void graph_error(const struct session *s, const struct gr_err *e,
			struct sbuf *out)
{
	static const char *const drops[] = {
		"", "no message object", "content neither string nor list",
		"blank assistant text", "no content block with a type",
	};

	sb_addf(out, "line %u: ", e->line);
	switch (e->code) {
	case GR_E_DUPLICATE:
		sb_adds(out, "duplicate uuid ");
		add_uuid_text(s, out, e->id);
		sb_addf(out, ": this copy replaces the one at line %u, which keeps its place\n",
			e->aux);
		return;
	case GR_E_DROPPED:
		sb_addf(out, "record dropped by the loader's repair (%s); its children hang off its parent\n",
			e->aux < 5 ? drops[e->aux] : "?");
		return;
	case GR_E_DANGLING:
		sb_adds(out, "parent ");
		add_uuid_text(s, out, e->aux);
		sb_adds(out, " not found; the record starts a path of its own\n");
		return;
	case GR_E_CYCLE:
		sb_adds(out, "cycle in parentUuid links; cut above this record\n");
		return;
	case GR_E_SELF_PARENT:
		sb_adds(out, "record names itself as parent; treated as a root\n");
		return;
	case GR_E_NO_UUID:
		sb_adds(out, "message record without a uuid; ignored\n");
		return;
	case GR_E_LOGICAL_CYCLE:
		sb_adds(out, "compact boundary's logicalParentUuid ");
		add_uuid_text(s, out, e->aux);
		sb_adds(out, " leads back to the boundary (a fork of a compacted session); the boundary starts its own piece\n");
		return;
	case GR_E_UNLINKED:
		sb_adds(out, "compact boundary's logicalParentUuid ");
		add_uuid_text(s, out, e->aux);
		sb_adds(out, " not found\n");
		return;
	case GR_E_UNCHAINED:
		sb_addf(out, "no message row names a parent (every parentUuid null or absent): the %u rows are read in file order as one branch\n",
			e->aux);
		return;
	}
}

void ss_errors_text(const struct session *s, struct sbuf *out)
{
	/* A part leaves the log's bad lines to the whole log's errors.txt. */
	uint32_t i, j = 0, ni = s->part ? 0 : idx_nerrs(s->ix), ng = gr_nerrs(s->g);
	const struct st_state *st;

	/* Both lists are in line order: merge them. */
	for (i = 0; i < ni || j < ng;) {
		const struct idx_err *ie = i < ni ? idx_err(s->ix, i) : NULL;
		const struct gr_err *ge = j < ng ? gr_err(s->g, j) : NULL;

		if (ie && (!ge || ie->line <= ge->line)) {
			sb_addf(out, "line %u: %s", ie->line, idx_err_text(ie->code));
			if (ie->code == IDX_E_NOT_JSON || ie->code == IDX_E_TORN)
				sb_addf(out, " (at byte %u)", ie->col);
			sb_addc(out, '\n');
			i++;
		} else {
			graph_error(s, ge, out);
			j++;
		}
	}
	if (idx_pending(s->ix))
		sb_addf(out, "note: %llu bytes after line %u wait for a newline (the log is being written)\n",
			(unsigned long long)idx_pending(s->ix), idx_lines(s->ix));
	sb_add(out, s->notes.buf, s->notes.len);
	/* The state is built lazily under its own lock; the session itself
	 * is never a const object, so this cast only hides the laziness. */
	st = ss_state((struct session *)s);
	if (st)
		st_errors_text(st, out);
}

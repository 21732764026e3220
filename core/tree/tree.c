#include "tree.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents.h"
#include "jscan.h"
#include "names.h"
#include "render.h"
#include "agentdir.h"
#include "ctxdir.h"
#include "statedir.h"
#include "usagedir.h"
#include "tree_priv.h"
#include "plat.h"

#define REC_NAME_KEEP 200	/* bytes of an unsafe uuid kept in its name */

enum { IN_ALL, IN_MAIN, IN_AGENT };	/* which roots hold an entry */

static const struct {
	const char *name;
	uint64_t ino;
	int in;
} root_entries[] = {
	{ "README.md", TI_README, IN_ALL },
	{ "session.json", TI_SESSION, IN_ALL },
	{ "errors.txt", TI_ERRORS, IN_ALL },
	{ "usage.json", TI_USAGE, IN_ALL },
	{ "transcripts", TI_TRANSCRIPTS, IN_ALL },
	{ "branches", TI_BRANCHES, IN_ALL },
	{ "context", TI_CONTEXT, IN_ALL },
	{ "state", TI_STATE, IN_MAIN },
	{ "records", TI_RECORDS, IN_ALL },
	{ "harness", TI_HARNESS, IN_ALL },
	{ "agents", TI_AGENTS, IN_MAIN },
	{ "meta.json", TI_META, IN_AGENT },
};

#define NROOT (sizeof(root_entries) / sizeof(root_entries[0]))

int tr_gone(struct tree *t, uint64_t ino)
{
	return vw_stale(t, ino) ? -ESTALE : -ENOENT;
}

static uint64_t serials;	/* atomic: the last tree's serial */

struct tree *tr_new(struct session *s)
{
	struct tree *t = calloc(1, sizeof(*t));
	struct view *v;

	if (t)
		t->ad = ad_new(ss_source(s));
	v = vw_new(s, 0);
	if (!t || !v || !t->ad || !(t->cache = cache_new(TR_CACHE_BYTES)) ||
	    vw_add(t, v)) {
		if (t) {
			cache_free(t->cache);
			ad_free(t->ad);
		}
		free(t);
		vw_free(v);
		return NULL;
	}
	pthread_rwlock_init(&t->lock, NULL);
	pthread_mutex_init(&t->mu, NULL);
	t->serial = __atomic_add_fetch(&serials, 1, __ATOMIC_RELAXED);
	lv_init(t);
	t->epoch_next = 1;
	ad_scan(t);
	return t;
}

void tr_free(struct tree *t)
{
	uint32_t i;

	if (!t)
		return;
	for (i = 0; i < t->nviews; i++)
		vw_free(t->views[i]);
	free(t->views);
	cache_free(t->cache);
	ad_free(t->ad);
	lv_fini(t);
	pthread_rwlock_destroy(&t->lock);
	pthread_mutex_destroy(&t->mu);
	free(t);
}

size_t tr_cached_bytes(struct tree *t)
{
	return cache_bytes(t->cache);
}

/* Whether root entry i is in view v's root. */
static int root_has(const struct view *v, size_t i)
{
	if (root_entries[i].in == IN_MAIN)
		return v->no == 0;
	if (root_entries[i].in == IN_AGENT)
		return v->no != 0 && (root_entries[i].ino != TI_META || v->meta);
	return 1;
}

const char *tr_root_entry(const struct view *v, size_t i, uint64_t *lino)
{
	if (i >= NROOT)
		return NULL;
	*lino = root_entries[i].ino;
	return root_has(v, i) ? root_entries[i].name : "";
}

/* ---- branches ---- */

uint64_t tr_branch_ino(const struct view *v, const struct br_info *b)
{
	return tr_vino(v, TR_INO(TK_BRANCH, b->first_own));
}

/* ---- names ---- */

void tr_rec_name(struct view *v, uint32_t id, char *out)
{
	char uuid[IDX_UUID_MAX + 1], safe[NM_MAX + 1];
	size_t n = idx_id_buf(ss_idx(v->s), id, uuid);

	nm_safe(uuid, n, safe, sizeof(safe));
	if (!strcmp(safe, uuid) && n <= REC_NAME_KEEP)
		snprintf(out, NM_MAX + 1, "%.*s.json", REC_NAME_KEEP, uuid);
	else
		snprintf(out, NM_MAX + 1, "%.*s.%u.json", REC_NAME_KEEP, safe, id);
}

static uint32_t rec_lookup(struct view *v, const char *name)
{
	size_t n = strlen(name);
	const char *dot;
	char check[NM_MAX + 1];
	uint32_t id;

	if (n < 6 || strcmp(name + n - 5, ".json"))
		return 0;
	id = idx_id_find(ss_idx(v->s), name, n - 5);
	if (!gr_is_node(ss_graph(v->s), id)) {
		/* An unsafe uuid's name: "<safe>.<id>.json". */
		for (dot = name + n - 6; dot > name && *dot != '.'; dot--)
			;
		id = (uint32_t)strtoul(dot + 1, NULL, 10);
		if (!gr_is_node(ss_graph(v->s), id))
			return 0;
	}
	tr_rec_name(v, id, check);
	return strcmp(check, name) ? 0 : id;
}

/* ---- content ---- */

static int render_message(struct tree *t, struct view *v, uint32_t id, struct sbuf *out)
{
	char folder[NM_MAX + 1];
	struct sbuf extra, line;
	int rc;

	sb_init(&extra);
	sb_init(&line);
	tr_read_line(t, ss_logf(v->s), gr_node_rec(ss_graph(v->s), id), &line);
	ud_header(v, id, &line, &extra);	/* reads the line of a row with usage */
	if (ad_folder(t, v, id, folder))
		sb_addf(&extra, "agent: agents/%s\n", folder);
	rc = rd_message_line(ss_graph(v->s), ss_logf(v->s), id, extra.len ? extra.buf : NULL,
			     &line, out);
	sb_free(&extra);
	sb_free(&line);
	return rc;
}

static void errors_text(struct tree *t, struct view *v, struct sbuf *out)
{
	ss_errors_text(v->s, out);
	ad_errors_text(t, v, out);
	ud_errors_text(v, out);
}

static int render(struct tree *t, struct view *v, uint64_t lino, struct sbuf *out)
{
	const struct graph *g = ss_graph(v->s);
	uint32_t key = TR_KEY(lino);
	int rc;

	switch (TR_KIND(lino)) {
	case TK_MSG:
		return gr_is_node(g, key) ? render_message(t, v, key, out) : -ENOENT;
	case TK_REC:
		if (!gr_is_node(g, key))
			return -ENOENT;
		rc = lf_read(ss_logf(v->s), gr_node_rec(g, key), out);
		if (!rc)
			sb_addc(out, '\n');
		return rc;
	case TK_CTX:
		return cd_render(v->s, lino, out);
	case TK_STATE:
		return v->no ? -ENOENT : sd_render(v->s, lino, out);
	case TK_TX:
		return ud_tx_render(t, v, lino, out, NULL);
	case TK_FIXED:
		if (lino == TI_CTX_MESSAGES || lino == TI_CTX_WINDOW)
			return cd_render(v->s, lino, out);
		if (lino == TI_README)
			tr_readme(t, v, out);
		else if (lino == TI_SESSION)
			ss_facts_json(v->s, out);
		else if (lino == TI_USAGE)
			return ud_usage_json(t, v, out);
		else if (lino == TI_ERRORS)
			errors_text(t, v, out);
		else if (lino == TI_META && v->no)
			return ad_read_meta(v, out);
		else
			return -EISDIR;
		return 0;
	}
	return -ENOENT;
}

static int content_locked(struct tree *t, uint64_t ino, struct blob **out)
{
	struct blob *b = cache_get(t->cache, ino);
	struct view *v = vw_of(t, ino);
	struct sbuf sb;
	int rc;

	if (b) {
		*out = b;
		return 0;
	}
	if (!v)
		return tr_gone(t, ino);
	if (TR_LOCAL(ino) == TI_CTX_MESSAGES) {	/* the context's own text */
		*out = cd_messages(v->s);
		return *out ? 0 : -ENOMEM;
	}
	sb_init(&sb);
	rc = render(t, v, TR_LOCAL(ino), &sb);
	if (!rc && !(b = blob_take(&sb)))	/* no copy */
		rc = -ENOMEM;
	sb_free(&sb);
	if (rc)
		return rc;
	if (TR_KIND(ino) == TK_MSG && TR_KEY(ino) < v->nsize)
		__atomic_store_n(&v->msize[TR_KEY(ino)], (uint32_t)(b->len + 1),
				 __ATOMIC_RELAXED);
	cache_put(t->cache, ino, b);
	*out = b;
	return 0;
}

int tr_fixed_content(uint64_t ino)
{
	return TR_KIND(ino) == TK_MSG || TR_KIND(ino) == TK_REC;
}

int tr_content(struct tree *t, uint64_t ino, struct blob **out)
{
	int rc;

	pthread_rwlock_rdlock(&t->lock);
	rc = content_locked(t, ino, out);
	pthread_rwlock_unlock(&t->lock);
	return rc;
}

/* ---- in pieces ---- */

static int count_piece(void *arg, const char *p, size_t n)
{
	(void)p;
	*(uint64_t *)arg += n;
	return 0;
}

static int data_piece(void *arg, const char *p, size_t n)
{
	const struct vf_sink *sink = arg;

	return sink->data(sink->arg, p, n);
}

/* A transcript in pieces, its size first when the sink wants it (read
 * lock held). */
static int stream_tx(struct tree *t, struct view *v, uint64_t lino, const struct vf_sink *sink)
{
	struct sb_sink pieces = { count_piece, NULL };
	uint64_t size = 0;
	struct sbuf sb;
	int rc = 0;

	sb_init(&sb);
	if (sink->size) {
		pieces.arg = &size;
		rc = ud_tx_render(t, v, lino, &sb, &pieces);
		if (!rc)
			rc = sb_spill_all(&sb, &pieces);
		if (!rc)
			rc = sink->size(sink->arg, size);
	}
	pieces = (struct sb_sink){ data_piece, (void *)sink };
	if (!rc)
		rc = ud_tx_render(t, v, lino, &sb, &pieces);
	if (!rc)
		rc = sb_spill_all(&sb, &pieces);
	sb_free(&sb);
	return rc;
}

int tr_stream(struct tree *t, uint64_t ino, const struct vf_sink *sink)
{
	struct view *v;
	struct blob *b;
	int rc;

	pthread_rwlock_rdlock(&t->lock);
	v = vw_of(t, ino);
	b = cache_get(t->cache, ino);	/* a transcript read whole already */
	if (!b && v && TR_KIND(ino) == TK_TX) {
		rc = ud_tx_exists(v, ino) ? stream_tx(t, v, TR_LOCAL(ino), sink) : -ENOENT;
	} else if (b || !(rc = content_locked(t, ino, &b))) {
		rc = vf_sink_blob(sink, b);
		blob_unref(b);
	}
	pthread_rwlock_unlock(&t->lock);
	return rc;
}

static int file_size(struct tree *t, struct view *v, uint64_t ino, uint64_t *size)
{
	struct blob *b;
	uint32_t known = 0;
	int rc;

	if (TR_KIND(ino) == TK_MSG && TR_KEY(ino) < v->nsize)
		known = __atomic_load_n(&v->msize[TR_KEY(ino)], __ATOMIC_RELAXED);
	if (known) {
		*size = known - 1;
		return 0;
	}
	if (TR_KIND(ino) == TK_REC && gr_is_node(ss_graph(v->s), TR_KEY(ino))) {
		*size = gr_node_rec(ss_graph(v->s), TR_KEY(ino))->len + 1u;
		return 0;
	}
	rc = content_locked(t, ino, &b);
	if (rc)
		return rc;
	*size = b->len;
	blob_unref(b);
	return 0;
}

/* ---- attributes ---- */

/* The target of link ino of v: a file homed elsewhere, or current (while
 * it still names the branch its inode does). */
static int link_target(struct tree *t, struct view *v, uint64_t ino, char *out)
{
	char home[NM_MAX + 1];
	const char *bname;
	int rc, cur;

	switch (TR_KIND(ino)) {
	case TK_LINK:		/* from branches/<b>/ */
	case TK_CTXLINK:	/* from context/ */
		if ((rc = vw_home_path(t, v, TR_KEY(ino), home)))
			return rc;
		return nm_join(out, TR_KIND(ino) == TK_LINK ? "../../" : "../", home, "");
	case TK_CURRENT:
	case TK_TXCUR:
		cur = ss_current_branch(v->s);
		if (cur < 0 || TR_LOCAL(ino) != TR_INO(TR_KIND(ino), br_get(ss_branches(v->s),
					(uint32_t)cur)->first_own))
			return -ENOENT;
		bname = br_get(ss_branches(v->s), (uint32_t)cur)->name;
		return nm_join(out, bname, TR_KIND(ino) == TK_TXCUR ? ".md" : "", "");
	}
	return -EINVAL;
}

void tr_fill_common(struct tree *t, struct view *v, uint64_t ino, struct vf_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->st.st_ino = ino;
	(void)t;
	a->st.st_uid = v->uid;
	a->st.st_gid = v->gid;
	PL_MTIM(a->st) = PL_CTIM(a->st) = PL_ATIM(a->st) = v->mtime;
	a->st.st_blksize = 4096;
}

/* A folder's attributes never change; what it lists is read at opendir. */
void tr_set_dir(const struct view *v, struct vf_attr *a)
{
	a->st.st_mode = S_IFDIR | TR_DIR_PERM(v->mode);
	a->st.st_nlink = 2;
	a->immutable = 1;
}

static int set_file(struct tree *t, struct view *v, uint64_t ino, struct vf_attr *a)
{
	uint64_t size;
	int rc = file_size(t, v, ino, &size);

	if (rc)
		return rc;
	a->st.st_mode = S_IFREG | TR_FILE_PERM(v->mode);
	a->st.st_nlink = 1;
	a->st.st_size = (off_t)size;
	a->st.st_blocks = (blkcnt_t)((size + 511) / 512);
	return 0;
}

static int attr_fixed(struct tree *t, struct view *v, uint64_t ino, struct vf_attr *a)
{
	switch (TR_LOCAL(ino)) {
	case TI_ROOT: case TI_BRANCHES: case TI_CONTEXT: case TI_RECORDS:
	case TI_TRANSCRIPTS: case TI_HARNESS:
		tr_set_dir(v, a);
		return 0;
	case TI_STATE: case TI_AGENTS:
		if (v->no)
			return -ENOENT;
		tr_set_dir(v, a);
		return 0;
	case TI_META:
		if (!v->no || !v->meta)
			return -ENOENT;
		return set_file(t, v, ino, a);
	case TI_README: case TI_SESSION: case TI_ERRORS: case TI_USAGE:
	case TI_CTX_MESSAGES: case TI_CTX_WINDOW:
		return set_file(t, v, ino, a);
	}
	return -ENOENT;
}

/* A message's time: its record's, where it has one. */
static void rec_time(const struct graph *g, uint32_t id, struct vf_attr *a)
{
	int64_t ms = gr_node_rec(g, id)->ts;

	if (ms == IDX_NO_TS)
		return;
	PL_MTIM(a->st).tv_sec = (time_t)(ms / 1000);
	PL_MTIM(a->st).tv_nsec = (long)(ms % 1000) * 1000000;
}

static int attr_link(struct tree *t, struct view *v, uint64_t ino, struct vf_attr *a)
{
	char target[NM_MAX + 1];

	if (link_target(t, v, ino, target))
		return -ENOENT;
	a->st.st_mode = S_IFLNK | 0777;
	a->st.st_nlink = 1;
	a->st.st_size = (off_t)strlen(target);
	a->immutable = 1;
	return 0;
}

int tr_attr_locked(struct tree *t, uint64_t ino, struct vf_attr *a)
{
	struct view *v = vw_of(t, ino);
	const struct graph *g;
	uint32_t key = TR_KEY(ino);
	int rc;

	if (!v)
		return tr_gone(t, ino);
	g = ss_graph(v->s);
	tr_fill_common(t, v, ino, a);
	switch (TR_KIND(ino)) {
	case TK_FIXED:
		return attr_fixed(t, v, ino, a);
	case TK_BRANCH:
		if (vw_branch_of_key(v, key) < 0)
			return -ENOENT;
		tr_set_dir(v, a);
		return 0;
	case TK_CTX:
		return set_file(t, v, ino, a);
	case TK_TX:
		return ud_tx_exists(v, ino) ? set_file(t, v, ino, a) : -ENOENT;
	case TK_LINK:
	case TK_CTXLINK:
		if (gr_is_node(g, key))
			rec_time(g, key, a);	/* its file's */
		/* fall through */
	case TK_CURRENT:
	case TK_TXCUR:
		return attr_link(t, v, ino, a);
	case TK_STATE:
		if (v->no)
			return -ENOENT;
		if (sd_is_dir(v->s, TR_LOCAL(ino))) {
			tr_set_dir(v, a);
			return 0;
		}
		return sd_is_file(v->s, TR_LOCAL(ino)) ? set_file(t, v, ino, a) : -ENOENT;
	case TK_MSG:
	case TK_REC:
		if (!gr_is_node(g, key))
			return -ENOENT;
		rc = set_file(t, v, ino, a);
		if (!rc)
			rec_time(g, key, a);
		a->immutable = 1;
		return rc;
	}
	return -ENOENT;
}

/* The session's usage.json adds up every agent's log, and so do the
 * tokens line of its README.md and its transcripts: each is brought up to
 * date first, as the session's own log is. */
static void refresh_agents(struct tree *t)
{
	uint32_t k, n;

	pthread_rwlock_rdlock(&t->lock);
	n = t->nviews;
	pthread_rwlock_unlock(&t->lock);
	for (k = 1; k < n; k++)
		lv_refresh(t, TR_IN_VIEW((uint64_t)TI_ROOT, k, 0));
}

int tr_getattr(struct tree *t, uint64_t ino, struct vf_attr *out)
{
	int rc;

	if (TR_KIND(ino) != TK_MSG && TR_KIND(ino) != TK_REC)
		lv_refresh(t, ino);
	if (ino == TI_README || ino == TI_ERRORS || ino == TI_USAGE)	/* they name agents */
		lv_scan_now(t);
	if (ino == TI_USAGE || ino == TI_README || (TR_KIND(ino) == TK_TX && !TR_VIEW(ino)))
		refresh_agents(t);
	pthread_rwlock_rdlock(&t->lock);
	rc = tr_attr_locked(t, ino, out);
	pthread_rwlock_unlock(&t->lock);
	return rc;
}

/* ---- lookup ---- */

uint64_t tr_row_lino(struct tree *t, struct view *v, uint32_t key, uint32_t id)
{
	const struct br_set *bs = ss_branches(v->s);
	uint32_t h = vw_home(t, v, id);

	if (h == VW_HOME_NONE ||
	    (h != VW_HOME_HARNESS && h - 1 < br_count(bs) && br_get(bs, h - 1)->first_own == key))
		return TR_INO(TK_MSG, id);
	return TR_INO(TK_LINK, id);
}

uint64_t tr_ctx_lino(struct tree *t, struct view *v, uint64_t lino)
{
	if (TR_KIND(lino) != TK_MSG || vw_home(t, v, TR_KEY(lino)) == VW_HOME_NONE)
		return lino;
	return TR_INO(TK_CTXLINK, TR_KEY(lino));
}

static uint64_t lookup_branch_msg(struct tree *t, struct view *v, uint32_t key,
				  const char *name)
{
	int b = vw_branch_of_key(v, key);
	const struct tpath *p;
	char check[NM_MAX + 1];
	uint32_t seq = nm_message_seq(name), id;

	if (b < 0 || !seq || !(p = vw_branch_path(t, v, b)) || seq > p->n)
		return 0;
	id = p->ids[seq - 1];
	nm_message_file(ss_graph(v->s), id, seq, check);
	return strcmp(check, name) ? 0 : tr_row_lino(t, v, key, id);
}

/* harness/'s file name, found by its line. */
static uint64_t lookup_harness(struct tree *t, struct view *v, const char *name)
{
	const struct graph *g = ss_graph(v->s);
	uint32_t n, lo = 0, hi, line = nm_message_seq(name);
	const uint32_t *h = vw_harness(t, v, &n);
	char check[NM_MAX + 1];

	for (hi = n; lo < hi;) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (gr_node_rec(g, h[mid])->line < line)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == n || gr_node_rec(g, h[lo])->line != line)
		return 0;
	nm_harness_file(g, h[lo], check);
	return strcmp(check, name) ? 0 : TR_INO(TK_MSG, h[lo]);
}

/* The local inode of name in the local folder lparent of v, or 0. */
static uint64_t lookup_view(struct tree *t, struct view *v, uint64_t lparent,
			    const char *name)
{
	const struct br_set *bs = ss_branches(v->s);
	size_t i;
	int b;

	if (lparent == TI_ROOT) {
		for (i = 0; i < NROOT; i++)
			if (!strcmp(name, root_entries[i].name) && root_has(v, i))
				return root_entries[i].ino;
		return 0;
	}
	if (lparent == TI_BRANCHES) {
		if (!strcmp(name, "current"))
			return vw_current_lino(v);
		b = br_find(bs, name);
		return b < 0 ? 0 : TR_LOCAL(tr_branch_ino(v, br_get(bs, (uint32_t)b)));
	}
	if (lparent == TI_RECORDS) {
		uint32_t id = rec_lookup(v, name);

		return id ? TR_INO(TK_REC, id) : 0;
	}
	if (lparent == TI_CONTEXT)
		return tr_ctx_lino(t, v, cd_lookup(v->s, name));
	if (lparent == TI_TRANSCRIPTS)
		return ud_tx_lookup(v, name);
	if (lparent == TI_HARNESS)
		return lookup_harness(t, v, name);
	return 0;
}

static uint64_t lookup_locked(struct tree *t, uint64_t parent, const char *name)
{
	struct view *v = vw_of(t, parent);
	uint64_t lino;

	if (!v)
		return 0;
	if (parent == TI_AGENTS) {
		struct view *a = ad_view_by_name(t, name);

		return a ? tr_vino(a, TI_ROOT) : 0;
	}
	if (TR_LOCAL(parent) == TI_STATE || TR_KIND(parent) == TK_STATE)
		lino = v->no ? 0 : sd_lookup(v->s, TR_LOCAL(parent), name);
	else if (TR_KIND(parent) == TK_BRANCH)
		lino = lookup_branch_msg(t, v, TR_KEY(parent), name);
	else
		lino = lookup_view(t, v, TR_LOCAL(parent), name);
	return lino ? tr_vino(v, lino) : 0;
}

/* Whether the kernel may keep a name in folder parent that leads to
 * inode ino: one that keeps naming it while the log grows (not in state/
 * and transcripts/, which are rebuilt, nor current); or one of context/,
 * whose names (200,000 of them in a long window, each of which ls -l
 * would look up again) hold until the log changes: live.c then has the
 * kernel forget context/ as a whole. */
int tr_name_kept(struct view *v, uint64_t parent, uint64_t ino)
{
	uint64_t lp = TR_LOCAL(parent);

	if (lp == TI_CONTEXT) {
		if (!__atomic_load_n(&v->ctx_named, __ATOMIC_RELAXED))
			__atomic_store_n(&v->ctx_named, 1, __ATOMIC_RELAXED);
		return 1;
	}
	return TR_KIND(ino) != TK_CURRENT && TR_KIND(ino) != TK_TXCUR && lp != TI_STATE &&
	       lp != TI_TRANSCRIPTS && TR_KIND(parent) != TK_STATE;
}

static int lookup_once(struct tree *t, uint64_t parent, const char *name,
		       struct vf_attr *out)
{
	uint64_t ino;
	int rc = -ENOENT;

	pthread_rwlock_rdlock(&t->lock);
	ino = lookup_locked(t, parent, name);
	if (ino)
		rc = tr_attr_locked(t, ino, out);
	else if (vw_stale(t, parent))
		rc = -ESTALE;
	if (!rc)
		out->fixed_name = tr_name_kept(vw_of(t, ino), parent, ino);
	pthread_rwlock_unlock(&t->lock);
	return rc;
}

int tr_lookup(struct tree *t, uint64_t parent, const char *name, struct vf_attr *out)
{
	int rc;

	lv_refresh(t, parent);
	rc = lookup_once(t, parent, name, out);
	if (rc == -ENOENT && parent == TI_AGENTS) {
		lv_scan_now(t);		/* an agent that appeared since */
		rc = lookup_once(t, parent, name, out);
	}
	return rc;
}

/* ---- links (extended attributes: tree_xattr.c) ---- */

int tr_readlink(struct tree *t, uint64_t ino, char *out)
{
	struct view *v;
	int rc = -EINVAL;

	lv_refresh(t, ino);	/* as tr_getattr(): the target and its size agree */
	pthread_rwlock_rdlock(&t->lock);
	v = vw_of(t, ino);
	if (v)
		rc = link_target(t, v, ino, out);
	else if (vw_stale(t, ino))
		rc = -ESTALE;
	pthread_rwlock_unlock(&t->lock);
	return rc;
}

void tr_own_device(struct tree *t, dev_t dev)
{
	ad_avoid(t, dev);
}

void tr_pushed(struct tree *t, uint64_t ino)
{
	cache_drop(t->cache, ino);
}

int tr_claim_push(struct tree *t, uint64_t ino)
{
	struct view *v;
	uint32_t id = TR_KEY(ino);
	uint8_t bit = TR_KIND(ino) == TK_MSG ? TR_PUSHED_MSG :
		      TR_KIND(ino) == TK_REC ? TR_PUSHED_REC : 0;
	int first = 0;

	if (!bit)
		return 0;
	pthread_rwlock_rdlock(&t->lock);
	v = vw_of(t, ino);
	if (v && id < v->nsize)
		first = !(__atomic_fetch_or(&v->pushed[id], bit, __ATOMIC_RELAXED) & bit);
	pthread_rwlock_unlock(&t->lock);
	return first;
}

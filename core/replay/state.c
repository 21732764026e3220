#include "state_priv.h"

#include <errno.h>
#include <float.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "names.h"
#include "render.h"


/* ---- the leaf's session and its metadata ---- */

const char *const st_meta_types[SM_COUNT] = {
	"worktree-state", "agent-setting", "agent-name", "agent-color",
	"custom-title", "mode", "permission-mode", "cost-state",
};

static const char *const meta_keys[SM_COUNT] = {
	"worktreeSession", "agentSetting", "agentName", "agentColor",
	"customTitle", "mode", "permissionMode", NULL,
};

/* The record whose session is the state's: the leaf, else the attach
 * point, else the last record with a sessionId. */
static uint32_t session_record(const struct st_state *st, const struct graph *g,
			       const struct rs_chain *c)
{
	uint32_t i;

	if (c->leaf && gr_is_node(g, c->leaf))
		return gr_rec(g, c->leaf);
	if (c->attach && gr_is_node(g, c->attach))
		return gr_rec(g, c->attach);
	for (i = idx_nrecs(st->ix); i-- > 0;)
		if (idx_rec(st->ix, i)->flags & IDX_F_SESSION)
			return i;
	return IDX_NONE;
}

static int read_session(struct st_state *st, const struct graph *g,
			const struct rs_chain *c)
{
	uint32_t i = session_record(st, g, c);
	struct st_line l;

	if (i == IDX_NONE)
		return 0;
	if (!stl_read(st, i, &l)) {
		st->sid = stj_dup(stj_get(l.p, l.e, "sessionId"), l.e);
		st->cwd = stj_dup(stj_get(l.p, l.e, "cwd"), l.e);
	}
	stl_free(&l);
	return 0;
}

/* True when record i belongs to the state's session (any, if unknown). */
static int of_session(const struct st_state *st, uint32_t i)
{
	struct st_line l;
	struct sbuf sb;
	int ok;

	if (!st->sid)
		return 1;
	if (stl_read(st, i, &l)) {
		stl_free(&l);
		return 0;
	}
	sb_init(&sb);
	ok = !stj_str(stj_get(l.p, l.e, "sessionId"), l.e, &sb) && !strcmp(sb.buf, st->sid);
	sb_free(&sb);
	stl_free(&l);
	return ok;
}

/* The last record of each kind, of the session. */
static void find_meta(struct st_state *st)
{
	uint16_t atoms[SM_COUNT];
	uint32_t i, k, left = 0;

	for (k = 0; k < SM_COUNT; k++) {
		atoms[k] = idx_atom_find(st->ix, st_meta_types[k]);
		st->meta[k] = IDX_NONE;
		left += atoms[k] != 0;
	}
	for (i = idx_nrecs(st->ix); left && i-- > 0;) {
		uint16_t a = idx_rec(st->ix, i)->type_atom;

		for (k = 0; k < SM_COUNT; k++)
			if (atoms[k] && a == atoms[k] && st->meta[k] == IDX_NONE &&
			    of_session(st, i)) {
				st->meta[k] = i;
				left--;
			}
	}
}

/* The newest user row of the chain that names a permission mode (the
 * index marks each record with a string permissionMode member). */
static void find_permission_row(struct st_state *st, const struct graph *g,
				const struct rs_chain *c)
{
	uint32_t k;

	st->perm_row = IDX_NONE;
	for (k = c->n; k-- > 0;) {
		uint32_t i = gr_rec(g, c->ids[k]);
		const struct idx_rec *r;

		if (i == IDX_NONE)
			continue;
		r = idx_rec(st->ix, i);
		if (r->type == IDX_T_USER && (r->flags & IDX_F_PERM_MODE)) {
			st->perm_row = i;
			return;
		}
	}
}

static int has_agent(const struct st_state *st)
{
	int k;

	for (k = SM_AGENT_SETTING; k <= SM_PERMISSION; k++)
		if (st->meta[k] != IDX_NONE)
			return 1;
	return st->perm_row != IDX_NONE;
}

/* ---- rendering of the small files ---- */

static void key(struct sbuf *out, const char *k, int *first)
{
	sb_adds(out, *first ? "{\n  " : ",\n  ");
	*first = 0;
	sb_add_json_str(out, k, strlen(k));
	sb_adds(out, ": ");
}

static void add_cstr(struct sbuf *out, const char *k, const char *v, int *first)
{
	key(out, k, first);
	if (v)
		sb_add_json_str(out, v, strlen(v));
	else
		sb_adds(out, "null");
}

/* Member name of record i, as JSON indented one level; null if absent. */
static void add_member(const struct st_state *st, struct sbuf *out, const char *k,
		       uint32_t i, const char *member, int *first)
{
	cJSON *j = i == IDX_NONE ? NULL : lf_parse(st->lf, idx_rec(st->ix, i));
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, member);

	key(out, k, first);
	if (v)
		rd_json(v, 1, out);
	else
		sb_adds(out, "null");
	cJSON_Delete(j);
}

static void add_line(const struct st_state *st, struct sbuf *out, uint32_t i, int *first)
{
	key(out, "line", first);
	if (i == IDX_NONE)
		sb_adds(out, "null");
	else
		sb_addf(out, "%u", idx_rec(st->ix, i)->line);
}

static void render_worktree(const struct st_state *st, struct sbuf *out)
{
	cJSON *j = lf_parse(st->lf, idx_rec(st->ix, st->meta[SM_WORKTREE]));
	const cJSON *ws = cJSON_GetObjectItemCaseSensitive(j, "worktreeSession");
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(ws, "worktreePath");
	struct stat sb;
	int first = 1;

	add_cstr(out, "sessionId", st->sid, &first);
	add_line(st, out, st->meta[SM_WORKTREE], &first);
	key(out, "worktreeSession", &first);
	if (ws)
		rd_json(ws, 1, out);
	else
		sb_adds(out, "null");
	key(out, "worktreePathExists", &first);
	if (cJSON_IsString(p) && p->valuestring[0] == '/')
		sb_adds(out, !stat(p->valuestring, &sb) && S_ISDIR(sb.st_mode) ? "true" : "false");
	else
		sb_adds(out, "null");
	sb_adds(out, "\n}\n");
	cJSON_Delete(j);
}

/* The permission mode: the newer of the last permission-mode record and
 * the newest user row that names one. */
static void add_permission(const struct st_state *st, struct sbuf *out, int *first)
{
	uint32_t rec = st->meta[SM_PERMISSION], row = st->perm_row;
	int use_row = row != IDX_NONE && (rec == IDX_NONE || row > rec);
	char buf[IDX_UUID_MAX + 1];

	add_member(st, out, "permissionMode", use_row ? row : rec, "permissionMode", first);
	key(out, "permissionModeFrom", first);
	if (use_row) {
		char from[IDX_UUID_MAX + 16];

		idx_id_buf(st->ix, idx_rec(st->ix, row)->uuid, buf);
		snprintf(from, sizeof(from), "user row %s", buf);
		sb_add_json_str(out, from, strlen(from));
	} else if (rec != IDX_NONE) {
		sb_addf(out, "\"permission-mode record, line %u\"", idx_rec(st->ix, rec)->line);
	} else {
		sb_adds(out, "null");
	}
}

static void render_agent(const struct st_state *st, struct sbuf *out)
{
	int first = 1, k;

	add_cstr(out, "sessionId", st->sid, &first);
	for (k = SM_AGENT_SETTING; k <= SM_MODE; k++)
		add_member(st, out, meta_keys[k], st->meta[k], meta_keys[k], &first);
	add_permission(st, out, &first);
	sb_adds(out, "\n}\n");
}

static void render_cost(const struct st_state *st, struct sbuf *out)
{
	cJSON *j = lf_parse(st->lf, idx_rec(st->ix, st->meta[SM_COST]));

	if (j)
		rd_json(j, 0, out);
	else
		sb_adds(out, "null");
	sb_addc(out, '\n');
	cJSON_Delete(j);
}

/* ---- building ---- */

static int add_top(struct st_state *st)
{
	static const struct {
		const char *name;
		uint8_t what;
		int meta;
	} files[] = {
		{ "worktree.json", SW_WORKTREE, SM_WORKTREE },
		{ "agent.json", SW_AGENT, -1 },
		{ "cost.json", SW_COST, SM_COST },
	};
	size_t k;

	for (k = 0; k < sizeof(files) / sizeof(files[0]); k++) {
		int want = files[k].meta < 0 ? has_agent(st) : st->meta[files[k].meta] != IDX_NONE;

		if (want && st_add(st, 0, files[k].name, strlen(files[k].name), 0,
				   files[k].what, 0) == ST_NONE)
			return -ENOMEM;
	}
	return 0;
}

int st_build(const struct graph *g, const struct rs_chain *c,
	     const uint32_t *path, uint32_t npath, const struct logf *lf,
	     const struct st_opts *o, struct st_state **out)
{
	struct st_state *st = calloc(1, sizeof(*st));
	static const struct st_opts none;
	int rc;

	*out = NULL;
	if (!st)
		return -ENOMEM;
	st->ix = gr_idx(g);
	st->lf = lf;
	sb_init(&st->errs);
	if (st_add(st, ST_NONE, "state", 5, 1, SW_DIR, 0) != 0) {
		st_free(st);
		return -ENOMEM;
	}
	rc = read_session(st, g, c);
	find_meta(st);
	find_permission_row(st, g, c);
	if (!rc)
		rc = add_top(st);
	if (!rc)
		rc = path ? st_read_build(st, g, path, npath) : st_read_build(st, g, c->ids, c->n);
	if (!rc)
		rc = st_fh_build(st, g, c, o ? o : &none);
	if (rc) {
		st_free(st);
		return rc;
	}
	*out = st;
	return 0;
}

void st_free(struct st_state *st)
{
	uint32_t i;

	if (!st)
		return;
	st_read_free(st);
	st_fh_free(st);
	for (i = 0; i < st->nnodes; i++)
		free(st->nodes[i].name);
	free(st->nodes);
	sth_free(&st->names);
	free(st->sid);
	free(st->cwd);
	free(st->fh_dir);
	free(st->fh_looked);
	sb_free(&st->errs);
	free(st);
}

/* ---- accessors ---- */

uint32_t st_count(const struct st_state *st) { return st->nnodes; }

int st_is_dir(const struct st_state *st, uint32_t node)
{
	return node < st->nnodes && st->nodes[node].dir;
}

const char *st_name(const struct st_state *st, uint32_t node)
{
	return node && node < st->nnodes ? st->nodes[node].name : "";
}

uint32_t st_parent(const struct st_state *st, uint32_t node)
{
	return node < st->nnodes ? st->nodes[node].parent : ST_NONE;
}

uint32_t st_first(const struct st_state *st, uint32_t dir)
{
	return dir < st->nnodes ? st->nodes[dir].first : ST_NONE;
}

uint32_t st_next(const struct st_state *st, uint32_t node)
{
	return node < st->nnodes ? st->nodes[node].next : ST_NONE;
}

uint32_t st_nkids(const struct st_state *st, uint32_t dir)
{
	return dir < st->nnodes ? st->nodes[dir].nkids : 0;
}

int st_render(const struct st_state *st, uint32_t node, struct sbuf *out)
{
	const struct st_node *nd;

	if (node >= st->nnodes)
		return -ENOENT;
	nd = &st->nodes[node];
	switch (nd->what) {
	case SW_DIR:
		return -EISDIR;
	case SW_WORKTREE:
		render_worktree(st, out);
		return 0;
	case SW_AGENT:
		render_agent(st, out);
		return 0;
	case SW_COST:
		render_cost(st, out);
		return 0;
	case SW_RC_INDEX:
		st_read_index(st, out);
		return 0;
	case SW_FH_INDEX:
		st_fh_index(st, out);
		return 0;
	case SW_READ:
		return nd->ref < st->nreads ? st_read_render(st, &st->reads[nd->ref], out)
					    : -ENOENT;
	case SW_BACKUP:
		return st_fh_render(st, nd->ref, out);
	}
	return -ENOENT;
}

static const char xattr_partial[] = "user.sessfs.partial";
static const char xattr_uuid[] = "user.sessfs.uuid";

int st_getxattr(const struct st_state *st, uint32_t node, const char *name,
		struct sbuf *out)
{
	const struct st_read *r;

	if (node >= st->nnodes || st->nodes[node].what != SW_READ ||
	    st->nodes[node].ref >= st->nreads)
		return -ENODATA;
	r = &st->reads[st->nodes[node].ref];
	if (!strcmp(name, xattr_uuid)) {
		idx_id_str(st->ix, r->use_id, out);
		return 0;
	}
	if (!strcmp(name, xattr_partial) && r->partial) {
		if (r->offset >= 0)
			sb_addf(out, "offset=%lld", (long long)r->offset);
		else
			sb_adds(out, "offset=none");
		if (r->limit >= 0)
			sb_addf(out, " limit=%lld", (long long)r->limit);
		else
			sb_adds(out, " limit=none");
		return 0;
	}
	return -ENODATA;
}

void st_listxattr(const struct st_state *st, uint32_t node, struct sbuf *out)
{
	if (node >= st->nnodes || st->nodes[node].what != SW_READ ||
	    st->nodes[node].ref >= st->nreads)
		return;
	sb_add(out, xattr_uuid, sizeof(xattr_uuid));
	if (st->reads[st->nodes[node].ref].partial)
		sb_add(out, xattr_partial, sizeof(xattr_partial));
}

void st_errors_text(const struct st_state *st, struct sbuf *out)
{
	sb_add(out, st->errs.buf, st->errs.len);
}

uint32_t st_nerrors(const struct st_state *st) { return st->nerrs; }

void st_counts(const struct st_state *st, struct st_counts *out)
{
	uint32_t i, j;

	memset(out, 0, sizeof(*out));
	out->reads = st->nreads;
	out->snapshots = st->nsnaps;
	for (i = 0; i < st->nsnaps; i++)
		for (j = 0; j < st->snaps[i].nfiles; j++) {
			out->backups += st->snaps[i].files[j].status == FF_OK;
			out->missing += st->snaps[i].files[j].status == FF_MISSING;
		}
}

const char *st_fh_dir(const struct st_state *st) { return st->fh_dir; }

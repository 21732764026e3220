#include "usagedir.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "transcript.h"

/* The agents view v counts in (the root view: every other one; an
 * agent's: none). 0 and a new array in *out (free() it), or -ENOMEM. */
static int agents_of(struct tree *t, struct view *v, struct rp_agent **out, uint32_t *n)
{
	uint32_t i;

	*n = v->no ? 0 : t->nviews - 1;
	*out = NULL;
	if (*n && !(*out = calloc(*n, sizeof(**out))))
		return -ENOMEM;
	for (i = 0; i < *n; i++) {
		(*out)[i].name = t->views[i + 1]->name;
		(*out)[i].s = t->views[i + 1]->s;
	}
	return 0;
}

int ud_usage_json(struct tree *t, struct view *v, struct sbuf *out)
{
	struct rp_agent *a;
	uint32_t n;
	int rc = agents_of(t, v, &a, &n);

	if (!rc)
		rc = rp_usage_json(v->s, a, n, out);
	free(a);
	return rc;
}

void ud_tokens_line(struct tree *t, struct view *v, struct sbuf *out)
{
	struct rp_agent *a;
	struct us_total tot;
	uint32_t n;

	if (agents_of(t, v, &a, &n) || rp_session_total(v->s, a, n, &tot)) {
		free(a);
		return;
	}
	free(a);
	sb_adds(out, "tokens ");
	us_total_text(&tot, out);
}

void ud_errors_text(struct view *v, struct sbuf *out)
{
	const struct us_set *u = ss_usage(v->s);

	if (u)
		us_unpriced_text(u, ss_idx(v->s), out);
}

/* ---- transcripts/ ---- */

#define CURRENT_MD "current.md"

static uint64_t tx_lino(const struct br_info *b)
{
	return TR_INO(TK_TX, b->first_own);
}

uint32_t ud_tx_count(struct view *v)
{
	return br_count(ss_branches(v->s)) + (ss_current_branch(v->s) >= 0);
}

int ud_tx_entry(struct view *v, uint32_t i, char *name, uint64_t *lino)
{
	const struct br_set *bs = ss_branches(v->s);
	int cur = ss_current_branch(v->s);

	if (cur >= 0) {
		if (!i) {
			strcpy(name, CURRENT_MD);
			*lino = TR_INO(TK_TXCUR, br_get(bs, (uint32_t)cur)->first_own);
			return 0;
		}
		i--;
	}
	if (i >= br_count(bs))
		return -ENOENT;
	snprintf(name, NM_MAX + 1, "%s.md", br_get(bs, i)->name);
	*lino = tx_lino(br_get(bs, i));
	return 0;
}

uint64_t ud_tx_lookup(struct view *v, const char *name)
{
	const struct br_set *bs = ss_branches(v->s);
	size_t n = strlen(name);
	char branch[NM_MAX + 1];
	int b;

	if (!strcmp(name, CURRENT_MD)) {
		b = ss_current_branch(v->s);
		return b < 0 ? 0 : TR_INO(TK_TXCUR, br_get(bs, (uint32_t)b)->first_own);
	}
	if (n < 4 || n > NM_MAX || strcmp(name + n - 3, ".md"))
		return 0;
	memcpy(branch, name, n - 3);
	branch[n - 3] = '\0';
	b = br_find(bs, branch);
	return b < 0 ? 0 : tx_lino(br_get(bs, (uint32_t)b));
}

int ud_tx_exists(struct view *v, uint64_t lino)
{
	return vw_branch_of_key(v, TR_KEY(lino)) >= 0;
}

/*
 * Where branch b's transcript starts: at its first own record, when the
 * rows before it are another branch's (*parent: the branch that holds the
 * last of them, found past rows homed in harness/). 0 (and -1) for a
 * branch that holds its rows from the first.
 */
static uint32_t tx_from(struct tree *t, struct view *v, int b, int *parent)
{
	const struct br_set *bs = ss_branches(v->s);
	uint32_t key = br_get(bs, (uint32_t)b)->first_own, s, i, h = VW_HOME_NONE;
	const struct tpath *p = vw_branch_path(t, v, b);

	*parent = -1;
	s = key ? gr_dpos(ss_graph(v->s), key) : 0;
	if (!p || !s || s > p->n || p->ids[s - 1] != key)
		return 0;
	for (i = s - 1; i > 0 && (h == VW_HOME_NONE || h == VW_HOME_HARNESS);)
		h = vw_home(t, v, p->ids[--i]);
	if (h == VW_HOME_NONE || h == VW_HOME_HARNESS || h - 1 >= br_count(bs) ||
	    h - 1 == (uint32_t)b)
		return 0;
	*parent = (int)(h - 1);
	return s - 1;
}

int ud_tx_render(struct tree *t, struct view *v, uint64_t lino, struct sbuf *out,
		 const struct sb_sink *sink)
{
	int b = vw_branch_of_key(v, TR_KEY(lino)), parent;
	struct sbuf head;
	uint32_t from;
	int rc;

	if (b < 0)
		return -ENOENT;
	sb_init(&head);
	ud_tokens_line(t, v, &head);
	from = tx_from(t, v, b, &parent);
	rc = tx_render_to(v->s, (uint32_t)b, head.len ? head.buf : NULL, from,
			  parent < 0 ? NULL : br_get(ss_branches(v->s), (uint32_t)parent)->name,
			  out, sink);
	sb_free(&head);
	return rc;
}

/* ---- message files ---- */

/*
 * A message file's usage is read from its record's line when the file is
 * rendered or its attributes asked for, not from the set of all rows:
 * that set (ss_usage()) is built only for the totals, so a grep -r neither
 * waits for it nor keeps it. Once it is built (usage.json was read; the
 * projects layer counts each session it opens), the row comes from it:
 * what the line gives (usage.h: us_read_row()), without reading the line;
 * else from the line the renderer read (us_read_row_line()), read once.
 */
static int row_line_of(struct view *v, uint32_t id, struct us_row *row,
		       struct sbuf *model, struct sbuf *line)
{
	uint32_t rec = gr_rec(ss_graph(v->s), id);
	const struct us_set *u = ss_usage_read(v->s);
	const struct us_row *r;

	if (rec == IDX_NONE)
		return 0;
	if (!u)
		return us_read_row_line(ss_idx(v->s), ss_logf(v->s), rec, row, model, line) > 0;
	sb_reset(model);
	if (!(r = us_of_rec(u, rec)))
		return 0;
	*row = *r;
	row->model = 0;
	sb_adds(model, us_model(u, r->model));
	return 1;
}

static int row_of(struct view *v, uint32_t id, struct us_row *row, struct sbuf *model)
{
	struct sbuf line;
	int rc;

	sb_init(&line);
	rc = row_line_of(v, id, row, model, &line);
	sb_free(&line);
	return rc;
}

/* " · $0.0123", what the row says it cost and why it is nothing. */
static void cost_text(const struct us_row *r, struct sbuf *out)
{
	sb_adds(out, " · ");
	us_cost_text(r->cost, out);
	if (r->has_logged) {
		sb_adds(out, " (logged ");
		us_cost_text(r->logged, out);
		sb_addc(out, ')');
	} else if (r->unpriced) {
		sb_adds(out, " (not in the price table)");
	}
}

void ud_header(struct view *v, uint32_t id, struct sbuf *line, struct sbuf *out)
{
	struct us_row r;
	struct sbuf model;

	sb_init(&model);
	if (row_line_of(v, id, &r, &model, line)) {
		sb_adds(out, "usage: ");
		us_tokens_text(&r.t, out);
		if (*model.buf) {
			sb_adds(out, " · ");
			sb_add_lines(out, model.buf);
		}
		cost_text(&r, out);
		sb_addc(out, '\n');
	}
	sb_free(&model);
}

static const char *const xattrs[] = {
	"user.sessfs.usage", "user.sessfs.usage.input", "user.sessfs.usage.output",
	"user.sessfs.usage.cache_creation", "user.sessfs.usage.cache_read",
	"user.sessfs.usage.cost_usd",
};

static int xattr_no(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(xattrs) / sizeof(xattrs[0]); i++)
		if (!strcmp(name, xattrs[i]))
			return (int)i;
	return -1;
}

int ud_getxattr(struct view *v, uint32_t id, const char *name, struct sbuf *out)
{
	int i = xattr_no(name);
	struct us_row r;
	struct sbuf model;
	const uint64_t *f;

	sb_init(&model);
	if (i < 0 || !row_of(v, id, &r, &model)) {
		sb_free(&model);
		return -ENODATA;
	}
	f = (const uint64_t[]){ r.t.input, r.t.output, r.t.cache_create, r.t.cache_read };
	if (!i) {
		sb_addf(out, "input=%llu output=%llu cache_creation=%llu cache_read=%llu cost_usd=",
			(unsigned long long)f[0], (unsigned long long)f[1],
			(unsigned long long)f[2], (unsigned long long)f[3]);
		us_cost_json(r.cost, out);
		if (r.has_logged) {
			sb_adds(out, " cost_usd_logged=");
			us_cost_json(r.logged, out);
		}
		sb_adds(out, " model=");
		sb_add_lines(out, model.buf);
	} else if (i == 5) {
		us_cost_json(r.cost, out);
	} else {
		sb_addf(out, "%llu", (unsigned long long)f[i - 1]);
	}
	sb_free(&model);
	return 0;
}

void ud_listxattr(struct view *v, uint32_t id, struct sbuf *out)
{
	struct us_row r;
	struct sbuf model;
	size_t i;

	sb_init(&model);
	if (row_of(v, id, &r, &model))
		for (i = 0; i < sizeof(xattrs) / sizeof(xattrs[0]); i++)
			sb_add(out, xattrs[i], strlen(xattrs[i]) + 1);
	sb_free(&model);
}

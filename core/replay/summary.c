#include "summary.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct sm_set {
	char **title;		/* per branch, or NULL */
	uint32_t *terminal;	/* per branch: its terminal then */
	uint32_t nbranches;
	uint32_t nrecs;		/* records read */
	struct sm_cont *cont;
	uint32_t ncont, nsum;
};

/* The summary text of record r, cut to SM_TEXT_MAX bytes on a character
 * boundary; NULL when it has none. */
static char *summary_text(const struct logf *lf, const struct idx_rec *r)
{
	cJSON *j = lf_parse(lf, r);
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, "summary");
	char *text = NULL;

	if (cJSON_IsString(v)) {
		size_t n = strlen(v->valuestring);

		if (n > SM_TEXT_MAX) {
			n = SM_TEXT_MAX;
			while (n && ((unsigned char)v->valuestring[n] & 0xc0) == 0x80)
				n--;
		}
		text = strndup(v->valuestring, n);
	}
	cJSON_Delete(j);
	return text;
}

/* Takes text for a leaf outside the log (ownership passes). */
static int add_cont(struct sm_set *s, const struct idx *ix, uint32_t leaf,
		    uint32_t line, char *text)
{
	char buf[IDX_UUID_MAX + 1];
	struct sm_cont *p;
	uint32_t i;

	idx_id_buf(ix, leaf, buf);
	for (i = 0; i < s->ncont; i++) {
		if (!strcmp(s->cont[i].leaf, buf)) {
			free(s->cont[i].summary);
			s->cont[i].summary = text;
			s->cont[i].line = line;
			return 0;
		}
	}
	p = realloc(s->cont, (s->ncont + 1) * sizeof(*p));
	if (!p) {
		free(text);
		return -ENOMEM;
	}
	s->cont = p;
	memcpy(p[s->ncont].leaf, buf, sizeof(buf));
	p[s->ncont].summary = text;
	p[s->ncont++].line = line;
	return 0;
}

/* The leaf the picker takes for terminal t: t, or its nearest
 * user/assistant ancestor when t has no summary of its own. */
static const char *title_of(const struct graph *g, char **by_leaf, uint32_t t)
{
	uint32_t id = t, steps = 0, n;

	gr_nodes(g, &n);
	if (by_leaf[t])
		return by_leaf[t];
	while (id && !gr_is_message(g, id) && steps++ < n)
		id = gr_vparent(g, id);
	return id ? by_leaf[id] : NULL;
}

static int read_summaries(struct sm_set *s, const struct graph *g,
			  const struct logf *lf, char **by_leaf)
{
	const struct idx *ix = gr_idx(g);
	uint32_t i;
	int rc = 0;

	for (i = 0; i < idx_nrecs(ix) && !rc; i++) {
		const struct idx_rec *r = idx_rec(ix, i);
		char *text;

		if (r->type != IDX_T_SUMMARY)
			continue;
		s->nsum++;
		if (!r->aux || !(text = summary_text(lf, r)))
			continue;
		if (gr_is_node(g, r->aux)) {
			free(by_leaf[r->aux]);
			by_leaf[r->aux] = text;
		} else {
			rc = add_cont(s, ix, r->aux, r->line, text);
		}
	}
	return rc;
}

static int has_summary(const struct idx *ix)
{
	uint32_t i;

	for (i = 0; i < idx_nrecs(ix); i++)
		if (idx_rec(ix, i)->type == IDX_T_SUMMARY)
			return 1;
	return 0;
}

int sm_build(const struct graph *g, const struct br_set *bs, const struct logf *lf,
	     struct sm_set **out)
{
	struct sm_set *s = calloc(1, sizeof(*s));
	uint32_t i, nid = idx_nids(gr_idx(g));
	char **by_leaf = NULL;
	int rc = 0;

	*out = NULL;
	if (!s)
		return -ENOMEM;
	if (has_summary(gr_idx(g))) {
		by_leaf = calloc((size_t)nid + 1, sizeof(*by_leaf));
		s->title = calloc(br_count(bs) ? br_count(bs) : 1, sizeof(*s->title));
		s->terminal = calloc(br_count(bs) ? br_count(bs) : 1, sizeof(*s->terminal));
		s->nbranches = br_count(bs);
		rc = by_leaf && s->title && s->terminal ? read_summaries(s, g, lf, by_leaf) :
		     -ENOMEM;
	}
	s->nrecs = idx_nrecs(gr_idx(g));
	for (i = 0; !rc && by_leaf && i < s->nbranches; i++) {
		const char *t = title_of(g, by_leaf, br_get(bs, i)->terminal);

		s->terminal[i] = br_get(bs, i)->terminal;
		if (t && !(s->title[i] = strdup(t)))
			rc = -ENOMEM;
	}
	for (i = 0; by_leaf && i <= nid; i++)
		free(by_leaf[i]);
	free(by_leaf);
	if (rc) {
		sm_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

void sm_free(struct sm_set *s)
{
	uint32_t i;

	if (!s)
		return;
	for (i = 0; s->title && i < s->nbranches; i++)
		free(s->title[i]);
	for (i = 0; i < s->ncont; i++)
		free(s->cont[i].summary);
	free(s->title);
	free(s->terminal);
	free(s->cont);
	free(s);
}

const char *sm_branch_title(const struct sm_set *s, uint32_t i)
{
	return s && s->title && i < s->nbranches ? s->title[i] : NULL;
}

uint32_t sm_ncont(const struct sm_set *s) { return s ? s->ncont : 0; }
const struct sm_cont *sm_cont(const struct sm_set *s, uint32_t i) { return &s->cont[i]; }
uint32_t sm_nsummaries(const struct sm_set *s) { return s ? s->nsum : 0; }

void sm_branches_text(const struct sm_set *s, const struct br_set *bs, int cur,
		      struct sbuf *out)
{
	const char *title = cur >= 0 ? sm_branch_title(s, (uint32_t)cur) : NULL;
	uint32_t i;

	if (title) {
		sb_adds(out, "- title: ");
		sb_add_lines(out, title);
		sb_addc(out, '\n');
	}
	sb_addf(out, "- branches: %u\n", br_count(bs));
	for (i = 0; i < br_count(bs); i++) {
		sb_addf(out, "  - %s%s", br_get(bs, i)->name, (int)i == cur ? " (current)" : "");
		if ((title = sm_branch_title(s, i))) {
			sb_adds(out, ": ");
			sb_add_lines(out, title);
		}
		sb_addc(out, '\n');
	}
	for (i = 0; i < sm_ncont(s); i++) {
		sb_adds(out, "- continues the session whose record ");
		sb_add_lines(out, s->cont[i].leaf);
		sb_adds(out, " is summarised as: ");
		sb_add_lines(out, s->cont[i].summary);
		sb_addc(out, '\n');
	}
}

/* The title of new terminal t: none when its nearest message is new (no
 * summary of an older record names a newer one); -1 when it is old. */
static int new_title_none(const struct graph *g, uint32_t t, uint32_t n0)
{
	uint32_t id = t, steps = 0, n;

	gr_nodes(g, &n);
	while (id > n0 && !gr_is_message(g, id) && steps++ < n)
		id = gr_vparent(g, id);
	return id > n0 || !id ? 0 : -1;
}

int sm_grow(struct sm_set *s, const struct graph *g, const struct br_set *bs, uint32_t n0)
{
	const struct idx *ix = gr_idx(g);
	uint32_t i;

	for (i = s->nrecs; i < idx_nrecs(ix); i++)
		if (idx_rec(ix, i)->type == IDX_T_SUMMARY)
			return SM_GROW_NO;
	if (s->title) {
		if (s->nbranches != br_count(bs))
			return SM_GROW_NO;
		for (i = 0; i < s->nbranches; i++)
			if (br_get(bs, i)->terminal != s->terminal[i] &&
			    (br_get(bs, i)->terminal <= n0 ||
			     new_title_none(g, br_get(bs, i)->terminal, n0)))
				return SM_GROW_NO;
		for (i = 0; i < s->nbranches; i++) {
			if (br_get(bs, i)->terminal == s->terminal[i])
				continue;
			free(s->title[i]);
			s->title[i] = NULL;
			s->terminal[i] = br_get(bs, i)->terminal;
		}
	}
	s->nrecs = idx_nrecs(ix);
	return 0;
}

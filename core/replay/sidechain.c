#include "sidechain.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jscan.h"

struct sc_set {
	struct sc_agent *v;
	uint32_t n;
};

/* A Task (or Agent) call of the log. */
struct call {
	char *id, *prompt;
	uint32_t row, pos;
	int taken;
};

static int is_side(const struct graph *g, uint32_t id)
{
	return gr_is_node(g, id) && (gr_node_rec(g, id)->flags & IDX_F_SIDECHAIN);
}

/* Whether g holds sidechain rows beside rows of its own thread (a log
 * of sidechain rows only is a subagent's own log, or a part). */
static int any_side(const struct graph *g)
{
	uint32_t n, k;
	const uint32_t *order = gr_nodes(g, &n);

	for (k = 0; k < n; k++)
		if (!gr_main_side(g, order[k]))
			return 1;
	return 0;
}

/*
 * The root of each sidechain row (0 for the others): its highest ancestor
 * reached through sidechain rows. The view relation has no cycle left
 * (graph.h), so every walk ends; each row is walked once.
 */
static int tops(const struct graph *g, uint32_t **out)
{
	uint32_t nid = idx_nids(gr_idx(g)), n, k;
	const uint32_t *order = gr_nodes(g, &n);
	uint32_t *top = calloc((size_t)nid + 1, sizeof(*top));
	uint32_t *path = malloc(((size_t)nid + 1) * sizeof(*path));

	if (!top || !path) {
		free(top);
		free(path);
		return -ENOMEM;
	}
	for (k = 0; k < n; k++) {
		uint32_t x = order[k], len = 0, p, t;

		if (!is_side(g, x) || top[x])
			continue;
		while (!top[x]) {
			path[len++] = x;
			p = gr_vparent(g, x);
			if (!p || !is_side(g, p))
				break;
			x = p;
		}
		t = top[x] ? top[x] : x;
		while (len)
			top[path[--len]] = t;
	}
	free(path);
	*out = top;
	return 0;
}

/* The first text of a user row: its string content or first text block. */
static char *first_text(const struct logf *lf, const struct idx_rec *r)
{
	cJSON *j = lf_parse(lf, r), *b;
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(j, "message"), "content");
	char *text = NULL;

	if (cJSON_IsString(c))
		text = strdup(c->valuestring);
	cJSON_ArrayForEach(b, (cJSON_IsArray(c) ? (cJSON *)c : NULL)) {
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(b, "text");
		const cJSON *ty = cJSON_GetObjectItemCaseSensitive(b, "type");

		if (cJSON_IsString(ty) && !strcmp(ty->valuestring, "text") &&
		    cJSON_IsString(t)) {
			text = strdup(t->valuestring);
			break;
		}
	}
	cJSON_Delete(j);
	return text;
}

static int add_call(struct call **v, uint32_t *n, const char *id,
		    const char *prompt, uint32_t row, uint32_t pos)
{
	struct call *p = realloc(*v, (*n + 1) * sizeof(*p));

	if (!p)
		return -ENOMEM;
	*v = p;
	p[*n] = (struct call){ strdup(id), strdup(prompt), row, pos, 0 };
	if (!p[*n].id || !p[*n].prompt) {
		free(p[*n].id);
		free(p[*n].prompt);
		return -ENOMEM;
	}
	(*n)++;
	return 0;
}

static int is_task(const cJSON *b)
{
	const cJSON *ty = cJSON_GetObjectItemCaseSensitive(b, "type");
	const cJSON *nm = cJSON_GetObjectItemCaseSensitive(b, "name");

	return cJSON_IsString(ty) && !strcmp(ty->valuestring, "tool_use") &&
	       cJSON_IsString(nm) && (!strcmp(nm->valuestring, "Task") ||
				      !strcmp(nm->valuestring, "Agent"));
}

/* The Task calls of one assistant row. */
static int row_calls(const struct graph *g, const struct logf *lf, uint32_t id,
		     struct call **v, uint32_t *n)
{
	const struct idx_rec *r = gr_node_rec(g, id);
	struct sbuf line;
	cJSON *j = NULL, *b;
	int rc = 0;

	sb_init(&line);
	if (!lf_read(lf, r, &line) && (strstr(line.buf, "\"Task\"") ||
				       strstr(line.buf, "\"Agent\"")))
		j = lf_parse_mem(line.buf, line.len);
	sb_free(&line);
	b = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(j, "message"), "content");
	cJSON_ArrayForEach(b, (cJSON_IsArray(b) ? b : NULL)) {
		const cJSON *cid = cJSON_GetObjectItemCaseSensitive(b, "id");
		const cJSON *pr = cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(b, "input"), "prompt");

		if (!rc && is_task(b) && cJSON_IsString(cid) && cid->valuestring[0] &&
		    cJSON_IsString(pr))
			rc = add_call(v, n, cid->valuestring, pr->valuestring, id,
				      gr_pos(g, id));
	}
	cJSON_Delete(j);
	return rc;
}

/* The call conversation a takes (first text text), or NULL. */
static struct call *match(struct call *calls, uint32_t ncalls, const char *text,
			  uint32_t root_pos)
{
	struct call *any = NULL;
	uint32_t i;

	for (i = 0; text && i < ncalls; i++) {
		if (calls[i].taken || strcmp(calls[i].prompt, text))
			continue;
		if (calls[i].pos < root_pos)
			return &calls[i];
		if (!any)
			any = &calls[i];
	}
	return any;
}

static void name_agent(const struct graph *g, struct sc_agent *a, struct call *c)
{
	struct js_str s;

	idx_id_buf(gr_idx(g), a->root, a->uuid);
	if (!c) {
		snprintf(a->id, sizeof(a->id), "sidechain-%.8s", a->uuid);
		a->idlen = strlen(a->id);
		return;
	}
	c->taken = 1;
	a->idlen = strlen(c->id) < SC_ID_MAX ? strlen(c->id) : SC_ID_MAX;
	memcpy(a->id, c->id, a->idlen);
	a->id[a->idlen] = '\0';
	a->call = c->row;
	s = (struct js_str){ c->id, strlen(c->id), 0 };
	a->useid = js_hash(&s);
}

/* The conversations' first texts, then their calls and names. */
static int name_all(const struct graph *g, const struct logf *lf, struct sc_set *s,
		    const uint32_t *top, const uint32_t *aidx)
{
	uint32_t n, k, ncalls = 0;
	const uint32_t *order = gr_nodes(g, &n);
	char **text = calloc(s->n, sizeof(*text));
	struct call *calls = NULL;
	int rc = text ? 0 : -ENOMEM;

	for (k = 0; k < n && !rc; k++) {
		uint32_t id = order[k];
		const struct idx_rec *r = gr_node_rec(g, id);
		uint32_t a = is_side(g, id) ? aidx[top[id]] - 1 : 0;

		if (r->type == IDX_T_ASSISTANT)
			rc = row_calls(g, lf, id, &calls, &ncalls);
		else if (r->type == IDX_T_USER && is_side(g, id) && !text[a])
			text[a] = first_text(lf, r);
	}
	for (k = 0; k < s->n && !rc; k++)
		name_agent(g, &s->v[k], match(calls, ncalls, text[k],
					      gr_pos(g, s->v[k].root)));
	for (k = 0; k < ncalls; k++) {
		free(calls[k].id);
		free(calls[k].prompt);
	}
	for (k = 0; text && k < s->n; k++)
		free(text[k]);
	free(calls);
	free(text);
	return rc;
}

/* The conversations, in the order of their roots, and their sizes. */
static int collect(const struct graph *g, struct sc_set *s, const uint32_t *top,
		   uint32_t *aidx)
{
	uint32_t n, k;
	const uint32_t *order = gr_nodes(g, &n);

	for (k = 0; k < n; k++)
		s->n += is_side(g, order[k]) && top[order[k]] == order[k];
	s->v = calloc(s->n ? s->n : 1, sizeof(*s->v));
	if (!s->v)
		return -ENOMEM;
	s->n = 0;
	for (k = 0; k < n; k++) {
		uint32_t id = order[k];

		if (!is_side(g, id) || top[id] != id)
			continue;
		s->v[s->n].root = id;
		aidx[id] = ++s->n;
	}
	for (k = 0; k < n; k++)
		if (is_side(g, order[k]))
			s->v[aidx[top[order[k]]] - 1].rows++;
	return 0;
}

int sc_build(const struct graph *g, const struct logf *lf, struct sc_set **out)
{
	struct sc_set *s = calloc(1, sizeof(*s));
	uint32_t *top = NULL, *aidx = NULL;
	int rc = 0;

	*out = NULL;
	if (!s)
		return -ENOMEM;
	if (any_side(g)) {
		rc = tops(g, &top);
		aidx = rc ? NULL : calloc((size_t)idx_nids(gr_idx(g)) + 1, sizeof(*aidx));
		if (!rc && !aidx)
			rc = -ENOMEM;
		if (!rc)
			rc = collect(g, s, top, aidx);
		if (!rc)
			rc = name_all(g, lf, s, top, aidx);
	}
	free(top);
	free(aidx);
	if (rc) {
		sc_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

void sc_free(struct sc_set *s)
{
	if (!s)
		return;
	free(s->v);
	free(s);
}

uint32_t sc_count(const struct sc_set *s) { return s ? s->n : 0; }

const struct sc_agent *sc_get(const struct sc_set *s, uint32_t i)
{
	return &s->v[i];
}

const struct sc_agent *sc_by_use(const struct sc_set *s, uint64_t useid)
{
	uint32_t i;

	for (i = 0; s && useid && i < s->n; i++)
		if (s->v[i].useid == useid)
			return &s->v[i];
	return NULL;
}

static int mine(const uint32_t *top, uint32_t nid, uint32_t id, uint32_t root)
{
	return id && id <= nid && top[id] == root;
}

int sc_keep(const struct graph *g, uint32_t root, uint8_t **keep)
{
	const struct idx *ix = gr_idx(g);
	uint32_t i, nrecs = idx_nrecs(ix), nid = idx_nids(ix), *top = NULL;
	uint8_t *k = calloc(nrecs ? nrecs : 1, 1);

	*keep = NULL;
	if (!k || (is_side(g, root) && tops(g, &top))) {
		free(k);
		return -ENOMEM;
	}
	for (i = 0; top && i < nrecs; i++) {
		const struct idx_rec *r = idx_rec(ix, i);

		if (r->type != IDX_T_USER && r->type != IDX_T_ASSISTANT &&
		    r->type != IDX_T_ATTACHMENT && r->type != IDX_T_SYSTEM)
			continue;
		k[i] = ((r->flags & IDX_F_SIDECHAIN) && mine(top, nid, r->uuid, root)) ||
		       (r->type == IDX_T_USER && mine(top, nid, r->aux, root));
	}
	free(top);
	*keep = k;
	return 0;
}

/* The root of sidechain row id (its highest ancestor through sidechain
 * rows); top[] caches new rows' (per id - n0). */
static uint32_t top_of(const struct graph *g, uint32_t id, uint32_t n0, uint32_t *top)
{
	uint32_t x = id, p, t;

	while (!(x > n0 && top[x - n0]) && (p = gr_vparent(g, x)) && is_side(g, p))
		x = p;
	t = x > n0 && top[x - n0] ? top[x - n0] : x;
	for (x = id; x > n0 && !top[x - n0]; x = gr_vparent(g, x))
		top[x - n0] = t;
	return t;
}

/* Whether a new row written from record nrecs0 on holds a Task call. */
static int new_calls(const struct graph *g, const struct logf *lf, uint32_t from, int *any)
{
	uint32_t n, k, ncalls = 0;
	const uint32_t *order = gr_nodes(g, &n);
	struct call *calls = NULL;
	int rc = 0;

	for (k = from; k < n && !rc; k++)
		if (gr_node_rec(g, order[k])->type == IDX_T_ASSISTANT)
			rc = row_calls(g, lf, order[k], &calls, &ncalls);
	for (k = 0; k < ncalls; k++) {
		free(calls[k].id);
		free(calls[k].prompt);
	}
	free(calls);
	*any = ncalls > 0;
	return rc;
}

int sc_grow(struct sc_set *s, const struct graph *g, const struct logf *lf, uint32_t from,
	    uint32_t n0)
{
	uint32_t n, k, i, *top, unnamed = 0;
	const uint32_t *order = gr_nodes(g, &n);
	int any = 0, rc;

	if (!from || from > n)
		return SC_GROW_NO;
	for (i = 0; i < s->n; i++)
		unnamed += !s->v[i].call;
	top = calloc((size_t)(idx_nids(gr_idx(g)) - n0) + 1, sizeof(*top));
	if (!top)
		return -ENOMEM;
	for (k = from; k < n; k++) {	/* first the checks: s is kept on NO */
		uint32_t id = order[k], t;

		if (id <= n0) {
			free(top);
			return SC_GROW_NO;
		}
		if (!is_side(g, id))
			continue;
		t = top_of(g, id, n0, top);
		for (i = 0; i < s->n && s->v[i].root != t; i++)
			;
		if (i == s->n || (!s->v[i].call && gr_node_rec(g, id)->type == IDX_T_USER)) {
			free(top);
			return SC_GROW_NO;	/* a new agent, or its first text */
		}
	}
	if (unnamed && (rc = new_calls(g, lf, from, &any))) {
		free(top);
		return rc;
	}
	for (k = from; !any && k < n; k++)
		if (is_side(g, order[k]))
			for (i = 0; i < s->n; i++)
				if (s->v[i].root == top[order[k] - n0])
					s->v[i].rows++;
	free(top);
	return any ? SC_GROW_NO : 0;
}

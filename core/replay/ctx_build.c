/*
 * ctx_build: the build of a context (ctx_build()), the notes on what was
 * left out, the freezing of messages.json, the hand-out of notes and rows,
 * and what a build keeps for a growth (struct ctx_base). Part of the ctx
 * module (ctx.h; see ctx_priv.h): below ctx.c (accessors, window.md) and
 * ctx_grow.c, above the phases (ctx_clean.c, ctx_render.c).
 */
#include "ctx.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctx_priv.h"
#include "release.h"
#include "plat.h"

static void ctx_base_free(struct ctx_base *b);

/* ---- metadata: record counts, replacements (rule 20), effort (rule 23) ---- */

int ctx_count_meta(struct ctx *x, uint16_t atom)
{
	uint32_t i;

	for (i = x->nmeta; i-- > 0;)
		if (x->meta_atoms[i] == atom) {
			x->meta_counts[i]++;
			return 0;
		}
	if (x->nmeta == x->capmeta) {
		uint32_t cap = x->capmeta ? x->capmeta * 2 : 16;
		uint16_t *a = realloc(x->meta_atoms, cap * sizeof(*a));
		uint32_t *c;

		if (!a)
			return -ENOMEM;
		x->meta_atoms = a;
		if (!(c = realloc(x->meta_counts, cap * sizeof(*c))))
			return -ENOMEM;
		x->meta_counts = c;
		x->capmeta = cap;
	}
	x->meta_atoms[x->nmeta] = atom;
	x->meta_counts[x->nmeta++] = 1;
	return 0;
}

static int set_repl(struct ctx_work *w, const char *key, const cJSON *val)
{
	struct ctx_repl *rp;
	cJSON *dup = jt_dup(val);

	if (!dup)
		return -ENOMEM;
	HASH_FIND_STR(w->repl, key, rp);
	if (rp) {
		cJSON_Delete(rp->val);
		rp->val = dup;
		return 0;
	}
	rp = calloc(1, sizeof(*rp));
	if (!rp || !(rp->key = strdup(key))) {
		free(rp);
		cJSON_Delete(dup);
		return -ENOMEM;
	}
	rp->val = dup;
	HASH_ADD_KEYPTR(hh, w->repl, rp->key, strlen(rp->key), rp);
	return 0;
}

/* Rule 20: a content-replacement record of the main thread. */
static int ctx_fold_replacements(struct ctx_work *w, const struct idx_rec *r)
{
	cJSON *j = lf_parse(w->lf, r);
	const cJSON *e;
	int rc = 0;

	if (!j || ctx_truthy(ctx_jget(j, "agentId"))) {
		cJSON_Delete(j);
		return 0;
	}
	cJSON_ArrayForEach(e, ctx_jget(j, "replacements")) {
		const cJSON *kind = ctx_jget(e, "kind");
		const char *id = ctx_jstr(e, "toolUseId");
		const cJSON *val = ctx_jget(e, "replacement");

		if (rc || !id || !val ||
		    (kind && !(cJSON_IsString(kind) && !strcmp(kind->valuestring, "tool-result"))))
			continue;
		rc = set_repl(w, id, val);
	}
	cJSON_Delete(j);
	return rc;
}

/* Rule 23: params.output_config.effort of the newest api-request with one. */
static int tail_effort(struct ctx_work *w)
{
	uint16_t atom = idx_atom_find(w->ix, "api-request");
	uint32_t i = idx_nrecs(w->ix);

	while (atom && i-- > 0) {
		const struct idx_rec *r = idx_rec(w->ix, i);
		const cJSON *e;
		cJSON *j;

		if (r->type != IDX_T_META || r->type_atom != atom)
			continue;
		j = lf_parse(w->lf, r);
		e = ctx_jget(ctx_jget(ctx_jget(j, "params"), "output_config"), "effort");
		if (ctx_truthy(e)) {
			w->tail_effort = jt_dup(e);
			cJSON_Delete(j);
			return w->tail_effort ? 0 : -ENOMEM;
		}
		cJSON_Delete(j);
	}
	return 0;
}

int ctx_is_row_type(uint8_t t)
{
	return t == IDX_T_USER || t == IDX_T_ASSISTANT || t == IDX_T_ATTACHMENT ||
	       t == IDX_T_SYSTEM;
}

static int scan_meta(struct ctx_work *w)
{
	uint32_t i, n = idx_nrecs(w->ix);
	int rc = 0;

	for (i = 0; i < n && !rc; i++) {
		const struct idx_rec *r = idx_rec(w->ix, i);

		if (ctx_is_row_type(r->type) || r->type == IDX_T_PROGRESS)
			continue;
		rc = ctx_count_meta(w->x, r->type_atom);
		if (!rc && r->type == IDX_T_CONTENT_REPL)
			rc = ctx_fold_replacements(w, r);
	}
	return rc ? rc : tail_effort(w);
}

/* ---- notes on the rows outside the window ---- */

static const char *drop_reason(uint8_t drop)
{
	switch (drop) {
	case IDX_D_NO_MESSAGE: return "row without a message object";
	case IDX_D_NO_CONTENT: return "row without content";
	case IDX_D_BLANK: return "row with blank string content";
	default: return "row with no valid content block";
	}
}

/* A progress row, a row the loader drops, a message record without uuid. */
int ctx_notes_record(struct ctx_work *w, const struct idx_rec *r)
{
	w->x->phase_now = CTX_P_RECORDS;
	if (r->type == IDX_T_PROGRESS && r->uuid)
		return ctx_note_static(w->x, r->line, r->uuid, CTX_N_LEFT_OUT,
				       "progress row: not part of the conversation, its children hang off its parent");
	if (ctx_is_row_type(r->type) && !r->uuid)
		return ctx_note_add(w->x, r->line, 0, CTX_N_LEFT_OUT,
				    "%s record without a uuid: not loaded",
				    idx_atom(w->ix, r->type_atom));
	if ((r->type == IDX_T_USER || r->type == IDX_T_ASSISTANT) && r->drop)
		return ctx_note_add(w->x, r->line, r->uuid, CTX_N_LEFT_OUT, "dropped: %s %s",
				    r->type == IDX_T_USER ? "user" : "assistant",
				    drop_reason(r->drop));
	return 0;
}

static int notes_records(struct ctx_work *w)
{
	uint32_t i, n = idx_nrecs(w->ix);
	int rc = 0;

	for (i = 0; i < n && !rc; i++)
		rc = ctx_notes_record(w, idx_rec(w->ix, i));
	return rc;
}

static void uuid8(const struct idx *ix, uint32_t id, char *buf)
{
	if (!id)
		strcpy(buf, "?");
	else if (idx_id_buf(ix, id, buf) > 8)
		buf[8] = '\0';
}

/* Duplicates (from the graph) and rows re-parented past bridged rows. */
static int notes_graph(struct ctx_work *w)
{
	uint32_t i, nn;
	const uint32_t *order = gr_nodes(w->g, &nn);
	int rc = 0;

	for (i = 0; i < gr_nerrs(w->g) && !rc; i++)
		rc = ctx_notes_duplicate(w, gr_err(w->g, i));
	for (i = 0; i < nn && !rc; i++)
		rc = ctx_notes_reparent(w, order[i]);
	return rc;
}

/* A duplicate uuid (the graph's problem e, if it is one). */
int ctx_notes_duplicate(struct ctx_work *w, const struct gr_err *e)
{
	w->x->phase_now = CTX_P_DUPLICATE;
	if (e->code != GR_E_DUPLICATE)
		return 0;
	return ctx_note_add(w->x, e->line, e->id, CTX_N_INFO,
			    "duplicate uuid: this copy replaces line %u (position of the first copy kept)",
			    e->aux);
}

/* Node id re-parented past bridged rows. */
int ctx_notes_reparent(struct ctx_work *w, uint32_t id)
{
	char u[IDX_UUID_MAX + 1];
	const struct idx_rec *r = gr_node_rec(w->g, id);
	uint32_t to;

	w->x->phase_now = CTX_P_REPARENT;
	if (!r->parent || gr_is_node(w->g, r->parent))
		return 0;
	to = gr_parent(w->g, id) ? gr_parent(w->g, id) : gr_dangling(w->g, id);
	if (!to || to == r->parent)
		return 0;
	uuid8(w->ix, to, u);
	return ctx_note_add(w->x, r->line, id, CTX_N_INFO,
			    "re-parented past a progress/dropped row to %s", u);
}

static int chain_note(struct ctx_work *w, const struct rs_note *n)
{
	char a[IDX_UUID_MAX + 1], b[IDX_UUID_MAX + 1];
	uint32_t line = gr_is_node(w->g, n->id) ? gr_node_rec(w->g, n->id)->line : 0;
	uint8_t k = CTX_N_INFO;

	uuid8(w->ix, n->aux, a);
	uuid8(w->ix, n->aux2, b);
	switch (n->code) {
	case RS_N_CYCLE:
		return ctx_note_add(w->x, line, n->id, k, "cycle in parentUuid chain: walk stopped");
	case RS_N_SUBSTITUTE:
		return ctx_note_add(w->x, line, n->id, k,
				    "parent %s missing: continued from %s (nearest earlier record within 5 s)",
				    a, b);
	case RS_N_CHAIN_START:
		return ctx_note_add(w->x, line, n->id, k, "parent %s missing: the chain starts here", a);
	case RS_N_PRESERVED_MISSING:
		return ctx_note_add(w->x, line, n->id, k,
				    "preserved segment names a missing record: relinking skipped");
	case RS_N_RECOVERED:
		return ctx_note_add(w->x, line, n->id, k,
				    "parallel tool call row off the parent chain: recovered into its response");
	case RS_N_TERMINAL_SCAN:
		return ctx_note_add(w->x, line, n->id, k,
				    "no usable checkpoint or last row: the leaf is the newest end of a path");
	}
	return 0;
}

static void keep_id(struct ctx_work *w, const cJSON *s, uint8_t *keep)
{
	uint32_t id = cJSON_IsString(s) ? idx_id_find(w->ix, s->valuestring,
						       strlen(s->valuestring)) : 0;

	if (id)
		keep[id] = 1;
}

/* Rule 5: the rows the last boundary's preserved list keeps (uuids and
 * allUuids, or the preservedSegment path from its tail up to its head). */
static void preserved_set(struct ctx_work *w, uint8_t *keep)
{
	cJSON *j = lf_parse(w->lf, gr_node_rec(w->g, w->c->boundary));
	const cJSON *meta = ctx_jget(j, "compactMetadata"), *u;
	const cJSON *pm = ctx_jget(meta, "preservedMessages");
	const cJSON *ps = ctx_jget(meta, "preservedSegment");

	if (cJSON_IsArray(ctx_jget(pm, "uuids"))) {
		cJSON_ArrayForEach(u, ctx_jget(pm, "uuids"))
			keep_id(w, u, keep);
		cJSON_ArrayForEach(u, ctx_jget(pm, "allUuids"))
			keep_id(w, u, keep);
	} else if (ctx_jstr(ps, "headUuid") && ctx_jstr(ps, "tailUuid")) {
		const char *h = ctx_jstr(ps, "headUuid"), *t = ctx_jstr(ps, "tailUuid");
		uint32_t head = idx_id_find(w->ix, h, strlen(h));
		uint32_t id = idx_id_find(w->ix, t, strlen(t)), steps = 0, nn;

		gr_nodes(w->g, &nn);
		for (; id && gr_is_node(w->g, id) && steps++ <= nn; id = gr_parent(w->g, id)) {
			keep[id] = 1;
			if (id == head)
				break;
		}
	}
	cJSON_Delete(j);
}

static const char *off_chain_reason(struct ctx_work *w, uint32_t id, const uint8_t *keep)
{
	uint32_t b = w->c->boundary;
	int before = b && keep && gr_pos(w->g, id) < gr_pos(w->g, b);

	if (w->c->cleared)
		return "an explicit rewind emptied the conversation: nothing is resumed";
	if (w->c->relinked && before && !keep[id])
		return "before the last compact boundary and not preserved: summarised away";
	if (!gr_main_side(w->g, id))
		return "sidechain (subagent) row: not part of the main conversation";
	if (before)
		return "before the last compact boundary: summarised away";
	return "not on the resumed branch (abandoned fork or dead end)";
}

/* Rows that are not on the chain, and the chain's own notes. */
static int notes_chain(struct ctx_work *w)
{
	uint32_t n = idx_nids(w->ix), i, nn;
	const uint32_t *order = gr_nodes(w->g, &nn);
	uint8_t *on = calloc(n + 1, 1), *keep = calloc(n + 1, 1);
	int rc = on && keep ? 0 : -ENOMEM;

	if (!rc)
		rc = ctx_notes_rs(w);
	for (i = 0; !rc && i < w->c->n; i++)
		on[w->c->ids[i]] = 1;
	if (!rc && w->c->relinked && w->c->boundary)
		preserved_set(w, keep);
	for (i = 0; !rc && i < nn; i++)
		if (!on[order[i]])
			rc = ctx_notes_off_chain(w, order[i], keep);
	free(on);
	free(keep);
	return rc;
}

int ctx_notes_rs(struct ctx_work *w)
{
	uint32_t i;
	int rc = 0;

	w->x->phase_now = CTX_P_CHAIN;
	for (i = 0; !rc && i < w->c->nnotes; i++)
		rc = chain_note(w, &w->c->notes[i]);
	return rc;
}

int ctx_notes_off_chain(struct ctx_work *w, uint32_t id, const uint8_t *keep)
{
	w->x->phase_now = CTX_P_OFF_CHAIN;
	return ctx_note_static(w->x, gr_node_rec(w->g, id)->line, id, CTX_N_LEFT_OUT,
			       off_chain_reason(w, id, keep));
}

/* ---- the build ---- */

void ctx_window_info(struct ctx_work *w)
{
	struct ctx_window *win = &w->x->win;
	const struct rs_chain *c = w->c;
	uint32_t i;

	win->summarised = c->deleted;
	if (!c->n)
		return;
	win->start = c->ids[c->window];
	win->boundary = gr_is_compaction(w->g, win->start) ? win->start : 0;
	win->dpos = gr_dpos(w->g, win->start);
	win->before = c->window;
	for (i = 0; i < c->window; i++)
		win->before_msgs += gr_is_message(w->g, c->ids[i]);
}

static int cmp_note(const void *a, const void *b)
{
	const struct ctx_nrec *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Hands out the notes, repairs and rows (the pool no longer moves). */
/* The rows before the cut, as old has them (its pool's texts are at the
 * same offsets in x's). */
static void publish_prefix(struct ctx *x, const struct ctx *old, const struct ctx_cut *cut)
{
	uint32_t i;

	for (i = 0; i < cut->row; i++) {
		x->rows[i] = old->rows[i];
		if (old->rows[i].why)
			x->rows[i].why = x->pool.buf + (old->rows[i].why - old->pool.buf);
	}
	for (i = 0; i < cut->nsent; i++)
		x->sent[i] = old->sent[i];
	x->nsent = cut->nsent;
}

int ctx_publish(struct ctx_work *w, int sorted, const struct ctx *old,
		const struct ctx_cut *cut)
{
	struct ctx *x = w->x;
	uint32_t i, np = old ? cut->row : 0, seq = old ? cut->nsent : 0;
	int32_t m0 = old ? (int32_t)cut->nmsg : 0;

	if (x->nnotes && !sorted)
		qsort(x->nrec, x->nnotes, sizeof(*x->nrec), cmp_note);
	if (!x->notes)		/* a growth hands them out already */
		x->notes = calloc(x->nnotes + 1, sizeof(*x->notes));
	x->repairs = calloc(x->nrepairs + 1, sizeof(*x->repairs));
	x->rows = calloc(np + w->nrows + 1, sizeof(*x->rows));
	x->sent = calloc(np + w->nrows + 1, sizeof(*x->sent));
	if (!x->notes || !x->repairs || !x->rows || !x->sent)
		return -ENOMEM;
	for (i = 0; x->nrec && i < x->nnotes; i++) {
		const struct ctx_nrec *n = &x->nrec[i];

		x->notes[i] = (struct ctx_note){ n->line, n->id, n->kind,
						 n->text ? n->text : x->pool.buf + n->off };
	}
	for (i = 0; i < x->nrepairs; i++)
		x->repairs[i] = x->pool.buf + x->repair_off[i];
	if (old)
		publish_prefix(x, old, cut);
	for (i = 0; i < w->nrows; i++) {
		const struct ctx_wrow *r = w->rows[i];

		x->rows[np + i] = (struct ctx_row){ r->id, r->sent ? ++seq : 0,
						    r->sent ? r->msg + m0 : -1,
						    r->type, r->synth, r->sent,
						    r->why ? x->pool.buf + r->why - 1 : NULL };
		if (r->sent)
			x->sent[x->nsent++] = np + i;
	}
	x->nrows = np + w->nrows;
	return 0;
}

/* The size of the compact JSON of the messages, from their text: all of
 * it less the layout, the newlines and spaces outside strings (numbers
 * and literals hold none). */
/* The bytes of word w equal to the byte b times ONES (exact: no carry
 * crosses a byte). */
#define ONES 0x0101010101010101ull
static unsigned bytes_equal(uint64_t w, uint64_t b)
{
	uint64_t x = w ^ b, hi = ~(((x & (ONES * 0x7f)) + ONES * 0x7f) | x) & (ONES * 0x80);

	return (unsigned)(((hi >> 7) * ONES) >> 56);
}

/* The spaces and newlines of [p, e), eight bytes at a time: the layout of
 * a long window is millions of them. */
static uint64_t blanks(const char *p, const char *e)
{
	uint64_t n = 0, w;

	for (; e - p >= 8; p += 8) {
		memcpy(&w, p, 8);
		n += bytes_equal(w, ONES * ' ') + bytes_equal(w, ONES * '\n');
	}
	for (; p < e; p++)
		n += (*p == ' ') + (*p == '\n');
	return n;
}

uint64_t ctx_measure(const char *p, const char *end)
{
	uint64_t blank = 0;	/* spaces and newlines outside strings */
	const char *q = p;

	while (q < end) {
		const char *s, *c, *b;

		/* up to the next string: the layout and what it holds */
		s = memchr(q, '"', (size_t)(end - q));
		blank += blanks(q, s ? s : end);
		if (!s)
			break;
		/* Every byte of a string counts: find its closing quote, the
		 * first one after an even run of backslashes. */
		for (s++;; s = c + 1) {
			c = memchr(s, '"', (size_t)(end - s));
			if (!c)
				return (uint64_t)(end - p) - blank;
			for (b = c; b > s && b[-1] == '\\'; b--)
				;
			if (!((c - b) & 1))
				break;
		}
		q = c + 1;
	}
	return (uint64_t)(end - p) - blank;
}

static void measure(struct ctx *x)
{
	x->bytes = ctx_measure(x->mtext->data, x->mtext->data + x->mtext->len - 1);
	x->tokens = (x->bytes + CTX_BYTES_PER_TOKEN - 1) / CTX_BYTES_PER_TOKEN;
}

/* Writes the messages out as messages.json lays them out and drops the
 * tree: the text is a fraction of the tree's size, and all that is ever
 * read of the messages once built. The array as ctx_json_write() writes
 * it at depth 0: "[", each message on a new line at depth 1, "," between
 * them, and "\n]" (or "[]" when there is none). */
int ctx_freeze(struct ctx *x, struct sbuf *text, uint32_t pmsg, const size_t *pspan)
{
	const cJSON *m;
	struct sbuf sb = *text;
	uint32_t i = pmsg;

	sb_init(text);
	x->mspan = calloc(2 * (size_t)x->nmessages + 1, sizeof(*x->mspan));
	if (!x->mspan) {
		sb_free(&sb);
		return -ENOMEM;
	}
	if (pmsg)
		memcpy(x->mspan, pspan, 2 * (size_t)pmsg * sizeof(*x->mspan));
	for (m = x->messages->child; m && i < x->nmessages; m = m->next, i++) {
		sb_adds(&sb, i ? ",\n  " : "\n  ");
		x->mspan[2 * i] = sb.len;
		ctx_json_write(m, 1, &sb);
		x->mspan[2 * i + 1] = sb.len;
	}
	sb_adds(&sb, x->nmessages ? "\n]\n" : "]\n");
	x->mtext = blob_take(&sb);	/* no slack kept */
	sb_free(&sb);
	if (!x->mtext)
		return -ENOMEM;
	cJSON_Delete(x->messages);
	x->messages = NULL;
	return 0;
}

static int ctx_build_window(struct ctx_work *w)
{
	int rc;

	w->x->phase_now = CTX_P_WINDOW;
	ctx_window_info(w);
	if (!w->c->leaf || !w->c->n)
		return 0;
	rc = ctx_load_window(w);
	if (!rc)
		rc = ctx_clean(w);
	if (!rc) {
		/* rule 32: an older release's attach point is the chain's */
		w->x->attach = w->older ? w->c->attach :
			       w->holder ? w->holder : w->c->ids[w->c->n - 1];
		rc = ctx_render(w);
	}
	return rc;
}

static void ctx_repl_free(struct ctx_repl **set)
{
	struct ctx_repl *rp, *t;

	HASH_ITER(hh, *set, rp, t) {
		HASH_DEL(*set, rp);
		cJSON_Delete(rp->val);
		free(rp->key);
		free(rp);
	}
}

void ctx_work_free(struct ctx_work *w)
{
	uint32_t i;

	for (i = 0; i < w->nrows; i++) {
		cJSON_Delete(w->rows[i]->rec);
		free(w->rows[i]);
	}
	free(w->rows);
	ctx_repl_free(&w->repl);
	free(w->phase);
	cJSON_Delete(w->tail_effort);
	ctx_hset_free(&w->res);
}

int ctx_build(const struct graph *g, const struct rs_chain *c,
	      const struct logf *lf, struct ctx **out)
{
	struct ctx *x = calloc(1, sizeof(*x));
	struct ctx_work w = { .g = g, .ix = gr_idx(g), .lf = lf, .c = c, .x = x };
	int rc;

	*out = NULL;
	if (!x)
		return -ENOMEM;
	w.older = rl_older(rl_of_log(w.ix));
	sb_init(&x->pool);
	x->messages = cJSON_CreateArray();
	rc = x->messages ? scan_meta(&w) : -ENOMEM;
	if (!rc)
		rc = notes_records(&w);
	if (!rc)
		rc = notes_graph(&w);
	if (!rc)
		rc = notes_chain(&w);
	if (!rc)
		rc = ctx_build_window(&w);
	if (!rc) {
		struct sbuf text;

		sb_init(&text);
		sb_addc(&text, '[');
		rc = ctx_freeze(x, &text, 0, NULL);
	}
	if (!rc)
		measure(x);
	if (!rc)
		rc = ctx_publish(&w, 0, NULL, NULL);
	x->rendered = w.nrows;
	/* Without a base, a growth builds anew: so for an older release's
	 * window (rule 32 looks at the whole window), also when a later
	 * record says a newer release wrote the log. */
	if (!rc && !w.older)
		ctx_base_make(&w, NULL);
	ctx_work_free(&w);
	pl_trim_heap();		/* what the rows and the tree held */
	if (rc) {
		ctx_free(x);
		return rc;
	}
	*out = x;
	return 0;
}

void ctx_free(struct ctx *x)
{
	if (!x)
		return;
	cJSON_Delete(x->messages);
	blob_unref(x->mtext);
	free(x->mspan);
	free(x->rows);
	free(x->sent);
	free(x->nrec);
	free(x->notes);
	free(x->repair_off);
	free(x->repairs);
	free(x->meta_atoms);
	free(x->meta_counts);
	sb_free(&x->pool);
	ctx_base_free(x->base);
	free(x);
}

/* ---- the base ---- */

static void cut_free(struct ctx_cut *c)
{
	cJSON_Delete(c->beyond);
	cJSON_Delete(c->emitted);
	ctx_hset_free(&c->msgids);
	ctx_hset_free(&c->results);
	memset(c, 0, sizeof(*c));
}

static void ctx_base_free(struct ctx_base *b)
{
	if (!b)
		return;
	free(b->chain);
	free(b->errs);
	free(b->phase);
	cJSON_Delete(b->tail_effort);
	ctx_repl_free(&b->repl);
	cut_free(&b->cut);
	free(b);
}

/* A copy of v (NULL stays NULL); *ok cleared when out of memory. */
const struct ctx_cut ctx_no_cut = { .text_end = 1, .bytes = 1 };

/* The cut of w's window (after prev, the cut its rows start after). */
static int make_cut(struct ctx_work *w, const struct ctx_cut *prev, struct ctx_cut *out)
{
	const struct ctx *x = w->x;
	uint32_t i, s;
	int ok = 1;

	*out = *prev;
	out->beyond = ctx_dup_or_null(prev->beyond, &ok);
	out->emitted = ctx_dup_or_null(prev->emitted, &ok);
	memset(&out->msgids, 0, sizeof(out->msgids));
	memset(&out->results, 0, sizeof(out->results));
	out->msgids.has_null = prev->msgids.has_null;
	out->results.has_null = prev->results.has_null;
	if (!ok || ctx_hset_join(&out->msgids, &prev->msgids, prev->msgids.n) ||
	    ctx_hset_join(&out->results, &prev->results, prev->results.n))
		return -ENOMEM;
	if (!w->cut_row)
		return 0;
	s = w->cut_row->pos + 1;
	out->row = prev->row + s;
	for (i = 0; i < s; i++) {
		const struct ctx_wrow *r = w->rows[i];

		out->nsent += r->sent;
		if (r->type == IDX_T_ASSISTANT && r->msgid &&
		    ctx_hset_add(&out->msgids, r->msgid))
			return -ENOMEM;
	}
	out->nmsg = prev->nmsg + w->cut_nmsg;
	out->kfresh = w->cut_row->kcum;
	out->nrrep = w->cut_nrrep;
	out->text_end = x->mspan[2 * (out->nmsg - 1) + 1];
	out->bytes = prev->bytes + ctx_measure(x->mtext->data + prev->text_end,
					       x->mtext->data + out->text_end);
	out->open = w->cut_open;
	cJSON_Delete(out->beyond);
	cJSON_Delete(out->emitted);
	out->beyond = ctx_dup_or_null(w->cut_beyond, &ok);
	out->emitted = ctx_dup_or_null(w->cut_emitted, &ok);
	out->results.has_null |= w->cut_null;
	if (!ok || ctx_hset_join(&out->results, &w->res, w->cut_nres))
		return -ENOMEM;
	return ctx_hset_join(&out->msgids, &out->msgids, 0);	/* sorts it */
}

static int copy_errs(struct ctx_base *b, const struct graph *g)
{
	uint32_t i;

	b->nerrs = gr_nerrs(g);
	b->errs = malloc((b->nerrs + 1) * sizeof(*b->errs));
	if (!b->errs)
		return -ENOMEM;
	for (i = 0; i < b->nerrs; i++)
		b->errs[i] = *gr_err(g, i);
	return 0;
}

static int make_base(struct ctx_work *w, const struct ctx_cut *prev, struct ctx_base *b)
{
	const struct rs_chain *c = w->c;
	struct ctx *x = w->x;
	uint32_t i, nr = idx_nrecs(w->ix);

	b->nchain = c->n;
	b->window = c->window;
	b->boundary = c->boundary;
	b->deleted = c->deleted;
	b->cleared = c->cleared;
	b->relinked = c->relinked;
	b->side = gr_side_sidechain(w->g);
	b->nrecs = nr;
	b->nids = idx_nids(w->ix);
	b->lastline = nr ? idx_rec(w->ix, nr - 1)->line : 0;
	gr_nodes(w->g, &b->nnodes);
	b->nclean = w->nclean;
	b->chain = malloc((c->n + 1) * sizeof(*b->chain));
	b->phase = w->phase ? w->phase : malloc(x->nnotes + 1);
	w->phase = NULL;
	if (!b->chain || !b->phase || copy_errs(b, w->g))
		return -ENOMEM;
	if (c->n)
		memcpy(b->chain, c->ids, c->n * sizeof(*b->chain));
	for (i = 0; x->nrec && i < x->nnotes; i++)
		b->phase[i] = x->nrec[i].phase;
	if (make_cut(w, prev ? prev : &ctx_no_cut, &b->cut))
		return -ENOMEM;
	b->tail_effort = w->tail_effort;
	w->tail_effort = NULL;
	b->repl = w->repl;
	w->repl = NULL;
	return 0;
}

int ctx_base_make(struct ctx_work *w, const struct ctx_cut *prev)
{
	struct ctx *x = w->x;
	struct ctx_base *b = calloc(1, sizeof(*b));
	int rc = b ? make_base(w, prev, b) : -ENOMEM;

	free(x->nrec);
	x->nrec = NULL;
	if (rc) {
		ctx_base_free(b);
		return rc;
	}
	x->base = b;
	return 0;
}


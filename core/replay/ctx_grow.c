/*
 * ctx_grow: the context built on the one before, after the log grew. Part
 * of the ctx module (ctx.h; see ctx_priv.h).
 *
 * A build keeps what it was built from (struct ctx_base): the chain, the
 * index's counts, the graph's problems, the pass that made each note, the
 * replacements and the tail's effort, and the cut: the longest prefix of
 * the window's rows that renders the same whatever follows it. A growth
 * whose chain is the old one with new records after it (no record of the
 * log changed its meaning: every new record has an id never seen before)
 * keeps the notes of the old records, adds those of the new ones, and
 * renders only the rows after the cut; the messages before it are kept as
 * text. Anything else is built anew (-EAGAIN).
 *
 * The cut is after a response row of the log that ends the messages, with
 * no system text waiting, no synthetic row up to it, and no row of the
 * window retracting others. The rows after it are rendered alone, and
 * that is what a whole build gives when none of them shares a message.id
 * with a response row before the cut (rule 11, merging), none calls a
 * tool_use id a result before the cut answers (rule 12), none retracts a
 * row, and the effort levels the prefix took from after the cut (rule 23)
 * are still those. Otherwise the whole window is rendered again (its
 * notes outside the window still kept).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ctx_priv.h"
#include "release.h"
#include "plat.h"

/* ---- what a growth may build on ---- */

/* The chain is b's with new nodes after it, the window where it was. */
static int same_chain(const struct ctx_base *b, const struct rs_chain *c)
{
	uint32_t i;

	if (!b->nchain || !c->leaf || c->n < b->nchain || c->cleared || b->cleared ||
	    c->window != b->window || c->boundary != b->boundary ||
	    c->deleted != b->deleted || c->relinked != b->relinked ||
	    memcmp(c->ids, b->chain, b->nchain * sizeof(*c->ids)))
		return 0;
	for (i = b->nchain; i < c->n; i++)
		if (c->ids[i] <= b->nids)
			return 0;
	return 1;
}

/* Index in gr_nodes() of the first node of a record after the first
 * nrecs (nodes are in file order). */
static uint32_t first_new_node(const struct graph *g, uint32_t nrecs)
{
	uint32_t nn;
	const uint32_t *order = gr_nodes(g, &nn);

	while (nn > 0 && gr_pos(g, order[nn - 1]) >= nrecs)
		nn--;
	return nn;
}

/* The graph's problems on old lines are those of before; none unchains. */
static int same_errs(const struct ctx_base *b, const struct graph *g)
{
	uint32_t i, k = 0;

	for (i = 0; i < gr_nerrs(g); i++) {
		const struct gr_err *e = gr_err(g, i);

		if (e->code == GR_E_UNCHAINED)
			return 0;
		if (e->line > b->lastline)
			continue;
		if (k >= b->nerrs || memcmp(e, &b->errs[k], sizeof(*e)))
			return 0;
		k++;
	}
	return k == b->nerrs;
}

/* The new records name nothing named before and replace no result. */
static int new_records_apart(const struct ctx_base *b, const struct idx *ix)
{
	uint32_t i, n = idx_nrecs(ix);

	if (n < b->nrecs || idx_nids(ix) < b->nids)
		return 0;
	for (i = b->nrecs; i < n; i++) {
		const struct idx_rec *r = idx_rec(ix, i);

		if ((r->uuid && r->uuid <= b->nids) || r->type == IDX_T_CONTENT_REPL)
			return 0;
	}
	return 1;
}

static int may_grow(const struct ctx_base *b, const struct graph *g,
		    const struct rs_chain *c)
{
	return b && gr_side_sidechain(g) == b->side && same_chain(b, c) &&
	       new_records_apart(b, gr_idx(g)) && same_errs(b, g) &&
	       first_new_node(g, b->nrecs) == b->nnodes;
}

/* ---- the growth ---- */

/* Metadata counts and the tail's effort (rule 23), with the new records. */
static int grow_meta(struct ctx_work *w, const struct ctx *old)
{
	const struct ctx_base *b = old->base;
	struct ctx *x = w->x;
	uint16_t atom = idx_atom_find(w->ix, "api-request");
	uint32_t i, n = idx_nrecs(w->ix);
	int rc = 0, ok = 1;

	x->meta_atoms = malloc((old->capmeta + 1) * sizeof(*x->meta_atoms));
	x->meta_counts = malloc((old->capmeta + 1) * sizeof(*x->meta_counts));
	if (!x->meta_atoms || !x->meta_counts)
		return -ENOMEM;
	x->capmeta = old->capmeta + 1;
	x->nmeta = old->nmeta;
	if (old->nmeta) {
		memcpy(x->meta_atoms, old->meta_atoms, old->nmeta * sizeof(*x->meta_atoms));
		memcpy(x->meta_counts, old->meta_counts, old->nmeta * sizeof(*x->meta_counts));
	}
	for (i = b->nrecs; i < n && !rc; i++) {
		const struct idx_rec *r = idx_rec(w->ix, i);

		if (!ctx_is_row_type(r->type) && r->type != IDX_T_PROGRESS)
			rc = ctx_count_meta(x, r->type_atom);
	}
	for (i = n; !rc && atom && i-- > b->nrecs && !w->tail_effort;) {
		const struct idx_rec *r = idx_rec(w->ix, i);
		cJSON *j;
		const cJSON *e;

		if (r->type != IDX_T_META || r->type_atom != atom)
			continue;
		j = lf_parse(w->lf, r);
		e = ctx_jget(ctx_jget(ctx_jget(j, "params"), "output_config"), "effort");
		if (ctx_truthy(e))
			w->tail_effort = ctx_dup_or_null(e, &ok);
		cJSON_Delete(j);
	}
	if (!rc && !w->tail_effort)
		w->tail_effort = ctx_dup_or_null(b->tail_effort, &ok);
	return rc ? rc : ok ? 0 : -ENOMEM;
}

/* The notes of the new records and nodes, and the chain's. */
static int grow_notes(struct ctx_work *w, const struct ctx_base *b)
{
	uint32_t i, nn, n = idx_nrecs(w->ix), first;
	const uint32_t *order = gr_nodes(w->g, &nn);
	uint8_t *on = calloc(idx_nids(w->ix) - b->nids + 1, 1);
	int rc = on ? 0 : -ENOMEM;

	for (i = b->nrecs; i < n && !rc; i++)
		rc = ctx_notes_record(w, idx_rec(w->ix, i));
	for (i = 0; i < gr_nerrs(w->g) && !rc; i++)	/* among the new records */
		if (gr_err(w->g, i)->line > b->lastline)
			rc = ctx_notes_duplicate(w, gr_err(w->g, i));
	first = b->nnodes;
	for (i = first; i < nn && !rc; i++)
		rc = ctx_notes_reparent(w, order[i]);
	if (!rc)
		rc = ctx_notes_rs(w);
	for (i = b->nchain; on && i < w->c->n; i++)
		on[w->c->ids[i] - b->nids] = 1;
	for (i = first; i < nn && !rc; i++)
		if (order[i] <= b->nids || !on[order[i] - b->nids])
			rc = ctx_notes_off_chain(w, order[i], NULL);
	free(on);
	return rc;
}

/* The rows after the cut are rendered as after the rows before it. */
static int suffix_apart(const struct ctx_work *w, const struct ctx_cut *cut)
{
	uint32_t i;

	if (!cut->row)
		return 1;
	if (w->retracts)
		return 0;
	for (i = 0; i < w->nrows; i++) {
		const struct ctx_wrow *r = w->rows[i];
		const cJSON *blk;

		if (r->type != IDX_T_ASSISTANT || !r->rec)
			continue;
		if (r->msgid && ctx_hset_has(&cut->msgids, r->msgid))
			return 0;
		cJSON_ArrayForEach(blk, ctx_content(r))
			if (ctx_is_block(blk, "tool_use") &&
			    ctx_hset_has(&cut->results, ctx_jstr(blk, "id")))
				return 0;
	}
	return 1;
}

static int same_level(const cJSON *a, const cJSON *b)
{
	return (!a && !b) || (a && b && cJSON_Compare(a, b, 1));
}

/* Phases 3 and 4 on the rows after the cut. */
static int grow_window(struct ctx_work *w, const struct ctx *old,
		       const struct ctx_cut *cut)
{
	struct ctx *x = w->x;
	uint32_t i;
	int rc;

	x->phase_now = CTX_P_WINDOW;
	ctx_window_info(w);
	rc = ctx_load_window(w);
	if (!rc)
		rc = ctx_clean(w);
	if (!rc && !suffix_apart(w, cut))
		return -EAGAIN;
	for (i = 0; !rc && i < cut->nrrep; i++)	/* phase 4's, before the cut */
		rc = ctx_repair_push(x, (uint32_t)(old->repairs[old->base->nclean + i] -
					       old->pool.buf));
	if (rc)
		return rc;
	x->attach = w->holder ? w->holder : w->c->ids[w->c->n - 1];
	rc = ctx_render(w);
	if (!rc && cut->open && !same_level(w->lv0, cut->beyond))
		return -EAGAIN;
	return rc;
}

static int cmp_nrec(const void *a, const void *b)
{
	const struct ctx_nrec *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->phase != y->phase)
		return x->phase < y->phase ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* An old note that still holds: not the chain's, and not on a row of the
 * window after the cut (gone: sorted ids of those rows). */
static int note_kept(const struct ctx_note *n, uint8_t ph, const uint32_t *gone,
		     uint32_t ngone)
{
	if (ph == CTX_P_CHAIN)
		return 0;
	return ph != CTX_P_WINDOW || !bsearch(&n->id, gone, ngone, sizeof(n->id), cmp_u32);
}

/* Keeps the old notes that hold, in place (old's arrays, taken: old is
 * being dropped), their texts moved from old's pool to x's (a copy at the
 * same offsets). Returns how many. */
static uint32_t keep_old_notes(struct ctx *x, struct ctx *old, const uint32_t *gone,
			       uint32_t ngone)
{
	struct ctx_note *v = old->notes;
	uint8_t *ph = old->base->phase;
	const char *pb = old->pool.buf;
	uint32_t i, k = 0;

	for (i = 0; i < old->nnotes; i++) {
		if (!note_kept(&v[i], ph[i], gone, ngone))
			continue;
		v[k] = v[i];
		ph[k] = ph[i];
		if (pb && v[k].text >= pb && v[k].text < pb + old->pool.len)
			v[k].text = x->pool.buf + (v[k].text - pb);
		k++;
	}
	return k;
}

/* The rows' ids of old's window after the cut, sorted (*n of them). */
static uint32_t *gone_rows(const struct ctx *old, const struct ctx_cut *cut, uint32_t *n)
{
	uint32_t *gone = malloc((old->nrows + 1) * sizeof(*gone)), i;

	*n = 0;
	for (i = cut->row; gone && i < old->nrows; i++)
		if (old->rows[i].id)
			gone[(*n)++] = old->rows[i].id;
	if (gone && *n)
		qsort(gone, *n, sizeof(*gone), cmp_u32);
	return gone;
}

/* A new note (b) goes after an old one (text, line, phase)? */
static int new_after(const struct ctx_note *a, uint8_t pha, const struct ctx_nrec *b)
{
	return b->line != a->line ? b->line > a->line : b->phase >= pha;
}

/*
 * The notes: the old ones that hold, merged with the new ones (x->nrec),
 * sorted; made in old's arrays (taken), handed out as x->notes, their
 * phases in w->phase. No new array of a note per record per growth.
 */
static int merge_notes(struct ctx_work *w, struct ctx *old, const struct ctx_cut *cut)
{
	struct ctx *x = w->x;
	struct ctx_nrec *b = x->nrec;
	uint32_t ngone, nb = x->nnotes, k, total, i, j, o;
	uint32_t *gone = gone_rows(old, cut, &ngone);
	struct ctx_note *v;
	uint8_t *ph;

	if (!gone)
		return -ENOMEM;
	k = keep_old_notes(x, old, gone, ngone);
	free(gone);
	total = k + nb;
	v = realloc(old->notes, (total + 1) * sizeof(*v));
	if (v)
		old->notes = v;
	ph = v ? realloc(old->base->phase, total + 1) : NULL;
	if (ph)
		old->base->phase = ph;
	if (!v || !ph)
		return -ENOMEM;
	if (nb)
		qsort(b, nb, sizeof(*b), cmp_nrec);
	for (i = k, j = nb, o = total; j > 0; o--) {	/* from the back */
		const struct ctx_nrec *n = &b[j - 1];

		if (i > 0 && !new_after(&v[i - 1], ph[i - 1], n)) {
			v[o - 1] = v[i - 1];
			ph[o - 1] = ph[--i];
			continue;
		}
		v[o - 1] = (struct ctx_note){ n->line, n->id, n->kind,
					      n->text ? n->text : x->pool.buf + n->off };
		ph[o - 1] = n->phase;
		j--;
	}
	old->notes = NULL;
	old->base->phase = NULL;
	free(b);
	x->nrec = NULL;
	x->notes = v;
	x->nnotes = x->capnotes = total;
	w->phase = ph;
	return 0;
}

/* The old text up to the cut in text: the old buffer itself when no
 * reader holds it (old is being dropped and no reader can reach it), so
 * a growth neither copies nor faults in the window's text again. */
static void text_before(struct ctx *old, size_t keep, struct sbuf *text)
{
	struct blob *b = old->mtext;

	sb_init(text);
	if (__atomic_load_n(&b->refs, __ATOMIC_ACQUIRE) != 1 || !b->data) {
		sb_add(text, b->data, keep);
		return;
	}
	text->buf = b->data;
	text->len = keep;
	text->cap = b->len + 1;
	text->buf[keep] = '\0';
	b->data = NULL;
	b->len = 0;
}

/* The messages: the old text up to the cut, then the new messages. */
static int grow_text(struct ctx *x, struct ctx *old, const struct ctx_cut *cut)
{
	struct sbuf text;
	int rc;

	x->nmessages += cut->nmsg;
	text_before(old, cut->text_end, &text);
	rc = ctx_freeze(x, &text, cut->nmsg, old->mspan);
	if (rc)
		return rc;
	x->bytes = cut->bytes + ctx_measure(x->mtext->data + cut->text_end,
					    x->mtext->data + x->mtext->len - 1);
	x->tokens = (x->bytes + CTX_BYTES_PER_TOKEN - 1) / CTX_BYTES_PER_TOKEN;
	return 0;
}

/* One try: at the cut (or, with none, the whole window). */
static int grow_at(struct ctx *old, const struct ctx_cut *cut, struct ctx_work *w)
{
	struct ctx *x = w->x;
	int rc;

	w->skip = cut->row;
	w->kstart = cut->kfresh;
	w->emitted0 = cut->emitted;
	w->repl = old->base->repl;
	sb_init(&x->pool);
	if (old->pool.len)
		sb_add(&x->pool, old->pool.buf, old->pool.len);
	x->messages = cJSON_CreateArray();
	rc = x->messages ? grow_meta(w, old) : -ENOMEM;
	if (!rc)
		rc = grow_notes(w, old->base);
	if (!rc)
		rc = grow_window(w, old, cut);
	if (!rc)
		rc = grow_text(x, old, cut);
	if (!rc)
		rc = merge_notes(w, old, cut);
	if (!rc)
		rc = ctx_publish(w, 1, old, cut);
	if (!rc)
		rc = ctx_base_make(w, cut);
	w->repl = NULL;			/* the old base's, or moved to x's */
	return rc;
}

static int try_grow(struct ctx *old, const struct ctx_cut *cut, const struct graph *g,
		    const struct rs_chain *c, const struct logf *lf, struct ctx **out)
{
	struct ctx *x = calloc(1, sizeof(*x));
	struct ctx_work w = { .g = g, .ix = gr_idx(g), .lf = lf, .c = c, .x = x };
	int rc = x ? grow_at(old, cut, &w) : -ENOMEM;

	if (!rc) {
		old->base->repl = NULL;	/* x's base has it */
		x->origin = cut->row ? CTX_GROWN_CUT : CTX_GROWN_WINDOW;
		x->rendered = w.nrows;
	}
	ctx_work_free(&w);
	if (rc) {
		ctx_free(x);
		return rc;
	}
	*out = x;
	return 0;
}

int ctx_grow(struct ctx *old, const struct graph *g, const struct rs_chain *c,
	     const struct logf *lf, struct ctx **out)
{
	int rc = -EAGAIN;

	*out = NULL;
	/* rule 32: an older release's repair looks at the whole window (a
	 * window built under it has no base) */
	if (old && !rl_older(rl_of_log(gr_idx(g))) && may_grow(old->base, g, c)) {
		rc = try_grow(old, &old->base->cut, g, c, lf, out);
		if (rc == -EAGAIN && old->base->cut.row)
			rc = try_grow(old, &ctx_no_cut, g, c, lf, out);
	}
	ctx_free(old);
	if (rc || !*out || (*out)->origin != CTX_GROWN_CUT)
		pl_trim_heap();	/* what rendering the window held */
	return rc;
}

enum ctx_origin ctx_origin(const struct ctx *x) { return (enum ctx_origin)x->origin; }
uint32_t ctx_rendered(const struct ctx *x) { return x->rendered; }

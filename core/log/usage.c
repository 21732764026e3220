#include "usage_priv.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "arr.h"
#include "jscan.h"
#include "price.h"

/* ---- model names, interned ---- */

static void models_free(struct models *m)
{
	struct model *e, *tmp;
	uint32_t i;

	HASH_ITER(hh, m->by_name, e, tmp) {
		HASH_DEL(m->by_name, e);
		free(e);
	}
	for (i = 1; i < m->n; i++)
		free(m->names[i]);
	free(m->names);
}

/* The number of name (1..), added when new; 0 on ENOMEM. */
static uint32_t models_intern(struct models *m, const char *name)
{
	struct model *e;
	size_t len = strlen(name);

	HASH_FIND(hh, m->by_name, name, len, e);
	if (e)
		return e->no;
	if (arr_grow(&m->names, &m->cap, m->n + 1, sizeof(*m->names), 8))
		return 0;
	if (!m->n)
		m->names[m->n++] = NULL;
	e = calloc(1, sizeof(*e));
	if (!e || !(e->name = strdup(name))) {
		free(e);
		return 0;
	}
	e->no = m->n;
	m->names[m->n++] = e->name;
	HASH_ADD_KEYPTR(hh, m->by_name, e->name, len, e);
	return e->no;
}

const char *us_models_name(const struct models *m, uint32_t no)
{
	return no && no < m->n ? m->names[no] : "";
}

uint64_t us_sum(const struct us_tokens *t)
{
	return t->input + t->output + t->cache_create + t->cache_read;
}

uint64_t us_context(const struct us_tokens *t)
{
	return t->input + t->cache_create + t->cache_read;
}

/* ---- reading a row ---- */

struct us_set {
	struct us_row *rows;
	uint32_t n, cap;
	uint32_t seen;		/* records of the index read so far */
	struct models models;
	const struct pr_model **prices;	/* by model number (npriced of them) */
	uint32_t npriced;
};

/* A non-negative JSON integer at v (no sign, fraction or exponent). 0, or
 * -1 when it is none; null gives 0 when null_ok. */
static int read_count(const char *v, const char *e, int null_ok, uint64_t *out)
{
	uint64_t n = 0;
	const char *p = v;

	if (null_ok && e - v >= 4 && !memcmp(v, "null", 4)) {
		*out = 0;
		return 0;
	}
	for (; p < e && *p >= '0' && *p <= '9'; p++) {
		if (n > (UINT64_MAX - 9) / 10)
			return -1;
		n = n * 10 + (uint64_t)(*p - '0');
	}
	if (p == v || (p < e && (*p == '.' || *p == 'e' || *p == 'E')))
		return -1;
	*out = n;
	return 0;
}

/* What the price reads beyond the four counts. */
struct split {
	uint64_t w5m, w1h;	/* message.usage.cache_creation, when has */
	int has, fast;
};

/* message.usage.cache_creation: the writes by how long they last, which
 * are then the row's cache writes (ccusage counts these). null is as if
 * missing, [] as an object without counts; another value, or a count that
 * is no non-negative integer, makes the row unusable (*bad). Returns the
 * end of the value, or NULL (the caller skips it). */
static const char *read_split(const char *v, const char *e, struct split *sp, int *bad)
{
	struct js_iter it;
	struct js_str k;
	const char *val, *p = v + 1;
	int r;

	if (e - v >= 4 && !memcmp(v, "null", 4))
		return NULL;
	while (*v == '[' && p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	if (*v == '[' && p < e && *p == ']') {
		sp->has = 1;
		return p + 1;
	}
	if (js_obj_begin(&it, v, e)) {
		*bad = 1;
		return NULL;
	}
	sp->has = 1;
	while ((r = js_obj_next(&it, &k, &val)) == 1) {
		if ((js_eq(&k, "ephemeral_5m_input_tokens") && read_count(val, e, 0, &sp->w5m)) ||
		    (js_eq(&k, "ephemeral_1h_input_tokens") && read_count(val, e, 0, &sp->w1h)))
			*bad = 1;
		if (!(it.p = js_value(val, e)))
			return NULL;
	}
	return r ? NULL : it.p;
}

/* message.usage: 1 when its counts are usable, else 0. */
static int read_usage(const char *v, const char *e, struct us_tokens *t, struct split *sp)
{
	struct js_iter it;
	struct js_str k, str;
	const char *val, *end;
	int r, have = 0, bad = 0;

	if (js_obj_begin(&it, v, e))
		return 0;
	while ((r = js_obj_next(&it, &k, &val)) == 1) {
		end = NULL;
		if (js_eq(&k, "input_tokens"))
			have |= read_count(val, e, 0, &t->input) ? 4 : 1;
		else if (js_eq(&k, "output_tokens"))
			have |= read_count(val, e, 0, &t->output) ? 4 : 2;
		else if (js_eq(&k, "cache_creation_input_tokens"))
			have |= read_count(val, e, 1, &t->cache_create) ? 4 : 0;
		else if (js_eq(&k, "cache_read_input_tokens"))
			have |= read_count(val, e, 1, &t->cache_read) ? 4 : 0;
		else if (js_eq(&k, "cache_creation"))
			end = read_split(val, e, sp, &bad);
		else if (js_eq(&k, "speed") && *val == '"' && (end = js_string(val, e, &str)))
			sp->fast = js_eq(&str, "fast");
		if (!(it.p = end ? end : js_value(val, e)))
			return 0;
	}
	if (sp->has)		/* the writes are those the split says */
		t->cache_create = sp->w5m + sp->w1h;
	return r == 0 && have == 3 && !bad;
}

/* What one line yields. */
struct line {
	struct js_str id, rid, model;
	int has_id, has_rid, has_model, ok;
	struct split sp;
};

static const char *read_message(const char *v, const char *e, struct line *l,
				struct us_row *row)
{
	struct js_iter it;
	struct js_str k;
	const char *val;
	int r;

	if (js_obj_begin(&it, v, e))
		return js_value(v, e);
	while ((r = js_obj_next(&it, &k, &val)) == 1) {
		if (js_eq(&k, "id") && *val == '"')
			l->has_id = !!js_string(val, e, &l->id);
		else if (js_eq(&k, "model") && *val == '"')
			l->has_model = !!js_string(val, e, &l->model);
		else if (js_eq(&k, "usage")) {
			l->sp = (struct split){ 0, 0, 0, 0 };
			l->ok = read_usage(val, e, &row->t, &l->sp);
		}
		if (!(it.p = js_value(val, e)))
			return NULL;
	}
	return r < 0 ? NULL : it.p;
}

static int read_line(const char *p, size_t n, struct line *l, struct us_row *row)
{
	const char *e = p + n, *val;
	struct js_iter it;
	struct js_str k;
	int r;

	if (js_obj_begin(&it, p, e))
		return 0;
	while ((r = js_obj_next(&it, &k, &val)) == 1) {
		const char *end;

		if (js_eq(&k, "message"))
			end = read_message(val, e, l, row);
		else if (js_eq(&k, "requestId") && *val == '"') {
			end = js_string(val, e, &l->rid);
			l->has_rid = !!end;
		} else if (js_eq(&k, "costUSD") && (*val == '-' || (*val >= '0' && *val <= '9'))) {
			row->logged = strtod(val, NULL);
			row->has_logged = isfinite(row->logged);	/* "1e999": no figure */
			end = js_value(val, e);
		} else
			end = js_value(val, e);
		if (!end)
			return 0;
		it.p = end;
	}
	return r == 0 && l->ok;
}

/* The pair's hash: message.id, then a separator and requestId if any. */
static uint64_t pair_key(const struct line *l)
{
	uint64_t h = js_hash(&l->id);
	size_t i;

	if (l->has_rid) {
		h ^= 0xff;
		h *= 0x100000001b3ULL;
		for (i = 0; i < l->rid.n; i++) {
			h ^= (unsigned char)l->rid.p[i];
			h *= 0x100000001b3ULL;
		}
	}
	return h ? h : 1;
}

/* The model's name as a row gives it: unescaped, cut at US_MODEL_MAX. */
static void model_name(const struct line *l, struct sbuf *name)
{
	js_unescape(&l->model, name);
	if (name->len > US_MODEL_MAX) {
		name->len = US_MODEL_MAX;
		name->buf[US_MODEL_MAX] = '\0';
	}
}

/* The row's price at m's rates (m NULL: the table lacks its model, or
 * it names none). */
static void price_row(struct us_row *row, const struct line *l, const char *name,
		      const struct pr_model *m)
{
	struct pr_usage pu = {
		row->t.input, row->t.output,
		l->sp.has ? l->sp.w5m : row->t.cache_create, l->sp.has ? l->sp.w1h : 0,
		row->t.cache_read, l->sp.fast,
	};

	row->cost = pr_cost(m, &pu);
	row->unpriced = !m && *name;
}

/* The price table's line of model number no of u (new), looked up once. */
static int set_price(struct us_set *u, uint32_t no, const char *name)
{
	if (no >= u->npriced) {
		uint32_t n = no + 16, i;
		const struct pr_model **p = realloc(u->prices, n * sizeof(*p));

		if (!p)
			return -ENOMEM;
		for (i = u->npriced; i < n; i++)
			p[i] = NULL;
		u->prices = p;
		u->npriced = n;
	}
	u->prices[no] = pr_find(pr_default(), name);
	return 0;
}

static int set_model(struct us_set *u, const struct line *l, struct us_row *row)
{
	struct sbuf name;
	uint32_t was = u->models.n;
	int rc = 0;

	if (!l->has_model) {
		price_row(row, l, "", NULL);
		return 0;
	}
	sb_init(&name);
	model_name(l, &name);
	row->model = models_intern(&u->models, name.buf);
	if (!row->model)
		rc = -ENOMEM;
	else if (u->models.n != was)	/* new: looked up now */
		rc = set_price(u, row->model, name.buf);
	if (!rc)
		price_row(row, l, name.buf, u->prices[row->model]);
	sb_free(&name);
	return rc;
}

static int add_row(struct us_set *u, const struct us_row *row)
{
	if (arr_grow(&u->rows, &u->cap, u->n + 1, sizeof(*u->rows), 64))
		return -ENOMEM;
	u->rows[u->n++] = *row;
	return 0;
}

/* Record i's line into buf (unless have: buf holds it), and what it
 * gives: 1 (row and l set, but for the model), 0 when it has no row, or
 * -errno. */
static int line_row(const struct logf *lf, uint32_t i, const struct idx_rec *r,
		    struct sbuf *buf, int have, struct line *l, struct us_row *row)
{
	int rc;

	*row = (struct us_row){ .rec = i, .ts = r->ts };
	*l = (struct line){ 0 };
	if (!(r->flags & IDX_F_USAGE) || r->ts == IDX_NO_TS)
		return 0;
	if (!have) {
		sb_reset(buf);
		rc = lf_read(lf, r, buf);
		if (rc)
			return rc;
	}
	if (!read_line(buf->buf, buf->len, l, row))
		return 0;
	row->key = l->has_id ? pair_key(l) : 0;
	return 1;
}

/*
 * The lines of a pass over the log (us_extend()), read through a window:
 * a log's assistant rows follow one another, so one pread() of US_WINDOW
 * bytes serves many, where each took a system call of its own (half the
 * time of a session's first count). Longer lines are read alone. The
 * window is on the stack of us_extend(): a malloc() of it for each count
 * cost the glob over a projects folder 2.5% of its time.
 */
#define US_WINDOW (64u << 10)

struct window {
	char *buf;		/* US_WINDOW bytes */
	uint64_t off;		/* of buf[0] in the log */
	size_t len;		/* bytes held */
};

static int window_read(struct window *w, const struct logf *lf, const struct idx_rec *r,
		       struct sbuf *out)
{
	ssize_t n;

	sb_reset(out);
	if (r->off < w->off || r->off + r->len > w->off + w->len) {
		w->len = 0;
		if (r->len > US_WINDOW / 4)
			return lf_read(lf, r, out);
		n = idx_pread(lf_fd(lf), w->buf, US_WINDOW, r->off);
		if (n < 0 || (uint64_t)n < r->len)	/* lf_read() tells why */
			return lf_read(lf, r, out);
		w->off = r->off;
		w->len = (size_t)n;
	}
	sb_add(out, w->buf + (r->off - w->off), r->len);
	return 0;
}

static int read_rec(struct us_set *u, const struct logf *lf, uint32_t i,
		    const struct idx_rec *r, struct window *w, struct sbuf *buf)
{
	struct us_row row;
	struct line l;
	int rc;

	if (!(r->flags & IDX_F_USAGE) || r->ts == IDX_NO_TS)
		return 0;
	rc = window_read(w, lf, r, buf);
	if (!rc)
		rc = line_row(lf, i, r, buf, 1, &l, &row);
	if (rc <= 0)
		return rc;
	rc = set_model(u, &l, &row);
	return rc ? rc : add_row(u, &row);
}

int us_read_row_line(const struct idx *ix, const struct logf *lf, uint32_t rec,
		     struct us_row *row, struct sbuf *model, struct sbuf *line)
{
	struct line l;
	int rc, have;

	sb_reset(model);
	have = rec < idx_nrecs(ix) && line->len == idx_rec(ix, rec)->len;
	if (!have)
		sb_reset(line);
	if (rec >= idx_nrecs(ix))
		return 0;
	rc = line_row(lf, rec, idx_rec(ix, rec), line, have, &l, row);
	if (rc > 0 && l.has_model)
		model_name(&l, model);
	if (rc > 0)
		price_row(row, &l, model->buf, *model->buf ? pr_find(pr_default(), model->buf) : NULL);
	return rc;
}

int us_read_row(const struct idx *ix, const struct logf *lf, uint32_t rec,
		struct us_row *row, struct sbuf *model)
{
	struct sbuf buf;
	int rc;

	sb_init(&buf);
	rc = us_read_row_line(ix, lf, rec, row, model, &buf);
	sb_free(&buf);
	return rc;
}

int us_extend(struct us_set *u, const struct idx *ix, const struct logf *lf)
{
	char window[US_WINDOW];
	struct window w = { window, 0, 0 };
	struct sbuf buf;
	uint32_t i, n = idx_nrecs(ix);
	int rc = 0;

	sb_init(&buf);
	for (i = u->seen; i < n && !rc; i++)
		rc = read_rec(u, lf, i, idx_rec(ix, i), &w, &buf);
	sb_free(&buf);
	if (!rc)
		u->seen = n;
	return rc;
}

int us_build(const struct idx *ix, const struct logf *lf, struct us_set **out)
{
	struct us_set *u = calloc(1, sizeof(*u));
	int rc;

	*out = NULL;
	if (!u)
		return -ENOMEM;
	rc = us_extend(u, ix, lf);
	if (rc) {
		us_free(u);
		return rc;
	}
	*out = u;
	return 0;
}

void us_free(struct us_set *u)
{
	if (!u)
		return;
	free(u->rows);
	free(u->prices);
	models_free(&u->models);
	free(u);
}

uint32_t us_nrows(const struct us_set *u)
{
	return u->n;
}

const struct us_row *us_row(const struct us_set *u, uint32_t i)
{
	return i < u->n ? &u->rows[i] : NULL;
}

const struct us_row *us_of_rec(const struct us_set *u, uint32_t rec)
{
	uint32_t lo = 0, hi = u ? u->n : 0;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (u->rows[mid].rec < rec)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < (u ? u->n : 0) && u->rows[lo].rec == rec ? &u->rows[lo] : NULL;
}

const char *us_model(const struct us_set *u, uint32_t m)
{
	return us_models_name(&u->models, m);
}

void us_unpriced_text(const struct us_set *u, const struct idx *ix, struct sbuf *out)
{
	uint8_t *told = calloc(u->models.n + 1, 1);
	uint32_t i;

	for (i = 0; told && i < u->n; i++) {
		const struct us_row *r = &u->rows[i];

		if (!r->unpriced || told[r->model] || !us_sum(&r->t))
			continue;
		told[r->model] = 1;
		sb_addf(out, "line %u: model \"", idx_rec(ix, r->rec)->line);
		sb_add_lines(out, us_model(u, r->model));
		sb_adds(out, "\" is not in the price table (");
		sb_add_lines(out, pr_source(pr_default()));
		sb_adds(out, "): its responses are priced at $0\n");
	}
	free(told);
}

/* ---- tallies ---- */

struct us_tally *us_tally_new(void)
{
	return calloc(1, sizeof(struct us_tally));
}

void us_tally_free(struct us_tally *y)
{
	if (!y)
		return;
	free(y->e);
	free(y->slots);
	models_free(&y->models);
	free(y);
}

static uint32_t *slot_of(const struct us_tally *y, uint64_t key)
{
	uint32_t mask = y->nslots - 1, i = (uint32_t)(key ^ (key >> 32)) & mask;

	while (y->slots[i] && y->e[y->slots[i] - 1].key != key)
		i = (i + 1) & mask;
	return &y->slots[i];
}

/* Keeps the table under half full. */
static int grow_slots(struct us_tally *y)
{
	uint32_t i, old = y->nslots, *prev = y->slots;

	if ((uint64_t)(y->n + 1) * 2 <= y->nslots)
		return 0;
	y->nslots = old ? old * 2 : 256;
	y->slots = calloc(y->nslots, sizeof(*y->slots));
	if (!y->slots) {
		y->slots = prev;
		y->nslots = old;
		return -ENOMEM;
	}
	for (i = 0; i < old; i++)
		if (prev[i])
			*slot_of(y, y->e[prev[i] - 1].key) = prev[i];
	free(prev);
	return 0;
}

static void fill(struct entry *en, const struct us_row *r, uint32_t model)
{
	en->key = r->key;
	en->t = r->t;
	en->model = model;
	en->ts = r->ts;
	en->cost = r->cost;
	en->logged = r->logged;
	en->has_logged = r->has_logged;
	en->unpriced = r->unpriced;
}

int us_tally_add(struct us_tally *y, const struct us_set *u, const struct us_row *r)
{
	uint32_t model = 0, *slot = NULL;

	if (r->model && !(model = models_intern(&y->models, us_model(u, r->model))))
		return -ENOMEM;
	if (r->key) {
		if (grow_slots(y))
			return -ENOMEM;
		slot = slot_of(y, r->key);
		if (*slot) {
			struct entry *en = &y->e[*slot - 1];

			if (us_sum(&r->t) > us_sum(&en->t))
				fill(en, r, model);
			return 0;
		}
	}
	if (arr_grow(&y->e, &y->cap, y->n + 1, sizeof(*y->e), 64))
		return -ENOMEM;
	fill(&y->e[y->n++], r, model);
	if (slot)
		*slot = y->n;
	return 0;
}

int us_tally_set(struct us_tally *y, const struct us_set *u)
{
	uint32_t i;
	int rc = 0;

	for (i = 0; i < u->n && !rc; i++)
		rc = us_tally_add(y, u, &u->rows[i]);
	return rc;
}

static void add_tokens(struct us_tokens *a, const struct us_tokens *b)
{
	a->input += b->input;
	a->output += b->output;
	a->cache_create += b->cache_create;
	a->cache_read += b->cache_read;
}

void us_add_entry(struct us_total *t, const struct entry *en)
{
	add_tokens(&t->t, &en->t);
	t->responses++;
	t->unpriced += en->unpriced && us_sum(&en->t);
	t->cost += en->cost;
	if (en->has_logged) {
		t->logged += en->logged;
		t->has_logged = 1;
	}
}

void us_tally_total(const struct us_tally *y, struct us_total *out)
{
	uint32_t i;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < y->n; i++)
		us_add_entry(out, &y->e[i]);
	if (!out->has_logged && y->has_state) {
		out->logged = y->state;
		out->has_logged = 1;
	}
}

void us_tally_set_state(struct us_tally *y, double cost)
{
	y->state = cost;
	y->has_state = 1;
}

/* The totals of each model, in one pass: a new array by model number. */
struct us_total *us_model_totals(const struct us_tally *y)
{
	struct us_total *per = calloc(y->models.n + 1, sizeof(*per));
	uint32_t i;

	for (i = 0; per && i < y->n; i++)
		us_add_entry(&per[y->e[i].model], &y->e[i]);
	return per;
}

/* Models in order of their first counted entry; n of them in *order. */
uint32_t *us_model_order(const struct us_tally *y, uint32_t *n)
{
	uint32_t *order = malloc((y->models.n + 1) * sizeof(*order));
	uint8_t *seen = calloc(y->models.n + 1, 1);
	uint32_t i;

	*n = 0;
	for (i = 0; order && seen && i < y->n; i++) {
		uint32_t m = y->e[i].model;

		if (m && !seen[m]) {
			seen[m] = 1;
			order[(*n)++] = m;
		}
	}
	free(seen);
	return order;
}

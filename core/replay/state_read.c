/*
 * state_read: read-cache/, the files the model read or wrote on the
 * current branch (session-format.md §8.4), newest successful call first.
 */
#include "state_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arr.h"
#include "names.h"

/* A tool-result row of the path, by the hash of the call it answers. */
struct res {
	uint64_t useid;
	uint32_t rec, id, order;
};

struct rbuild {
	struct res *res;
	uint32_t nres;
	struct st_hent *by_path;	/* path -> index in reads */
	uint32_t cap;
	struct sbuf path, tmp;
};

static int res_cmp(const void *a, const void *b)
{
	const struct res *x = a, *y = b;

	if (x->useid != y->useid)
		return x->useid < y->useid ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int collect_results(struct rbuild *b, const struct graph *g,
			   const uint32_t *path, uint32_t n)
{
	uint32_t k;

	b->res = malloc((n ? n : 1) * sizeof(*b->res));
	if (!b->res)
		return -ENOMEM;
	for (k = 0; k < n; k++) {
		const struct idx_rec *r = gr_node_rec(g, path[k]);

		if (r && r->type == IDX_T_USER && r->block == IDX_B_TOOL_RESULT && r->useid)
			b->res[b->nres++] = (struct res){ r->useid, gr_rec(g, path[k]),
							  path[k], k };
	}
	qsort(b->res, b->nres, sizeof(*b->res), res_cmp);
	return 0;
}

/* The first of the results whose hash is h, or NULL. */
static const struct res *first_result(const struct rbuild *b, uint64_t h)
{
	uint32_t lo = 0, hi = b->nres;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (b->res[mid].useid < h)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < b->nres && b->res[lo].useid == h ? &b->res[lo] : NULL;
}

/*
 * The block of message.content with the given "type" whose idkey member
 * is the raw string id; *count gets the number of blocks of that type.
 */
static const char *find_block(const struct st_line *l, const char *type,
			      const char *idkey, const char *id, size_t idn, int *count)
{
	const char *content = stj_get(stj_get(l->p, l->e, "message"), l->e, "content");
	const char *v, *found = NULL;
	struct js_iter it;
	struct js_str s;

	*count = 0;
	if (!content || js_arr_begin(&it, content, l->e))
		return NULL;
	while (js_arr_next(&it, &v) == 1) {
		const char *t = stj_get(v, l->e, "type"), *k = stj_get(v, l->e, idkey);

		if (t && *t == '"' && js_string(t, l->e, &s) && !s.escaped && js_eq(&s, type)) {
			++*count;
			if (!found && k && *k == '"' && js_string(k, l->e, &s) &&
			    s.n == idn && !memcmp(s.p, id, idn))
				found = v;
		}
		if (!(it.p = js_value(v, l->e)))
			break;
	}
	return found;
}

/* Appends the decoded string at v; 0, or -1 if it is not a string. */
static int add_str(const char *v, const char *e, struct sbuf *out)
{
	struct js_str s;

	if (!v || *v != '"' || !js_string(v, e, &s))
		return -1;
	js_unescape(&s, out);
	return 0;
}

static int b64_value(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* Appends the bytes of the base64 string at v (padding and whitespace
 * allowed); 0, or -1 if it is not base64. */
static int add_base64(const char *v, const char *e, struct sbuf *out)
{
	struct sbuf txt;
	unsigned acc = 0;
	int bits = 0, rc = 0;
	size_t i;

	sb_init(&txt);
	if (add_str(v, e, &txt)) {
		sb_free(&txt);
		return -1;
	}
	sb_grow(out, txt.len / 4 * 3 + 3);
	for (i = 0; i < txt.len && txt.buf[i] != '='; i++) {
		int d = b64_value((unsigned char)txt.buf[i]);

		if (d < 0) {
			if (txt.buf[i] == '\n' || txt.buf[i] == '\r' || txt.buf[i] == ' ')
				continue;
			rc = -1;
			break;
		}
		acc = (acc << 6 | (unsigned)d) & 0xffffff;
		if ((bits += 6) >= 8) {
			bits -= 8;
			sb_addc(out, (char)(acc >> bits & 0xff));
		}
	}
	sb_free(&txt);
	return rc;
}

/* A tool result's content as the model saw it: the string, or the text
 * of its text blocks, one after the other, joined by newlines. */
static int add_result_text(const char *block, const char *e, struct sbuf *out)
{
	const char *c = stj_get(block, e, "content"), *v;
	struct js_iter it;
	int n = 0;

	if (!add_str(c, e, out))
		return 0;
	if (!c || js_arr_begin(&it, c, e))
		return -1;
	while (js_arr_next(&it, &v) == 1) {
		const char *t = stj_get(v, e, "text");

		if (t && *t == '"') {
			if (n++)
				sb_addc(out, '\n');
			add_str(t, e, out);
		}
		if (!(it.p = js_value(v, e)))
			break;
	}
	return 0;
}

/* ---- one call ---- */

struct call {
	uint32_t use_rec, use_id;
	const struct st_line *use;
	const char *id, *input;
	size_t idn;
	int write, edit;
	struct sbuf fp;		/* file_path, decoded */
};

/* The result row answering the call, read into l (free it in any case);
 * its block in *block, the row in *which. 1 if found and the row holds
 * only that result, 2 if it holds others too, 0 if not found. */
static int find_result(const struct st_state *st, const struct rbuild *b,
		       const struct call *c, struct st_line *l, const char **block,
		       const struct res **which)
{
	struct js_str raw = { c->id, c->idn, 0 };
	uint64_t h = js_hash(&raw);
	const struct res *r = first_result(b, h);
	int count;

	for (; r && r < b->res + b->nres && r->useid == h; r++) {
		if (!stl_read(st, r->rec, l) &&
		    (*block = find_block(l, "tool_result", "tool_use_id", c->id, c->idn, &count))) {
			*which = r;
			return count == 1 ? 1 : 2;
		}
		stl_free(l);
	}
	sb_init(&l->sb);
	return 0;
}

/* The slot of path in reads, new or reused; NULL when out of memory. */
static struct st_read *slot(struct st_state *st, struct rbuild *b, const char *path,
			    size_t n)
{
	struct st_hent *h = sth_find(b->by_path, path, n);
	struct st_read *r;

	if (h) {
		r = &st->reads[h->val];
		free(r->tool_id);
		r->tool_id = NULL;
		return r;
	}
	if (arr_grow(&st->reads, &b->cap, st->nreads + 1, sizeof(*st->reads), 16))
		return NULL;
	r = &st->reads[st->nreads];
	memset(r, 0, sizeof(*r));
	if (!(r->path = strndup(path, n)) || sth_add(&b->by_path, path, n, st->nreads)) {
		free(r->path);
		return NULL;
	}
	st->nreads++;
	return r;
}

/* A line number (d >= 0) as int64_t, INT64_MAX past it (a conversion out
 * of range is undefined). */
static int64_t line_no(double d)
{
	return d < 9.2e18 ? (int64_t)d : INT64_MAX;
}

/* Partial view of a Read: from its input (in the call's line, which ends
 * at ie), then from the structured file (in the result's, ending at fe). */
static void read_view(struct st_read *r, const char *input, const char *ie,
		      const char *file, const char *fe)
{
	double off = -1, lim = -1, start = -1, lines = -1, total = -1;
	int given = !stj_num(stj_get(input, ie, "offset"), ie, &off);

	given |= !stj_num(stj_get(input, ie, "limit"), ie, &lim);
	stj_num(stj_get(file, fe, "startLine"), fe, &start);
	stj_num(stj_get(file, fe, "numLines"), fe, &lines);
	stj_num(stj_get(file, fe, "totalLines"), fe, &total);
	if (file && lines >= 0 && total >= 0)
		r->partial = start > 1 || lines < total;
	else
		r->partial = (uint8_t)given;
	r->offset = off >= 0 ? line_no(off) : start >= 0 ? line_no(start) : -1;
	r->limit = lim >= 0 ? line_no(lim) : r->partial && lines >= 0 ? line_no(lines) : -1;
}

/* Where a successful Read's content is; -1 when it adds nothing (the
 * file was unchanged since the model's last read, or no text at all). */
static int read_source(const struct st_line *res, int single, const char **file)
{
	const char *tur = single ? stj_get(res->p, res->e, "toolUseResult") : NULL;
	const char *t = stj_get(tur, res->e, "type");
	struct js_str s;

	*file = NULL;
	if (!tur || *tur != '{' || !t || *t != '"' || !js_string(t, res->e, &s))
		return SRC_RESULT;
	if (js_eq(&s, "file_unchanged"))
		return -1;
	*file = stj_get(tur, res->e, "file");
	if (js_eq(&s, "text") && *file && **file == '{') {
		const char *c = stj_get(*file, res->e, "content");

		if (c && *c == '"')
			return SRC_FILE;
	}
	if (js_eq(&s, "image") && *file && **file == '{') {
		const char *c = stj_get(*file, res->e, "base64");

		*file = NULL;	/* no lines: never partial */
		if (c && *c == '"')
			return SRC_IMAGE;
	}
	return SRC_RESULT;
}

static const char *tool_name(const struct call *c)
{
	return c->write ? "Write" : c->edit ? "Edit" : "Read";
}

static void report_path(struct st_state *st, const struct call *c, const char *why)
{
	struct sbuf q;

	sb_init(&q);
	st_quote(&q, c->fp.buf, c->fp.len);
	st_err(st, idx_rec(st->ix, c->use_rec)->line, "read-cache: %s file_path %s left out: %s",
	       tool_name(c), q.buf, why);
	sb_free(&q);
}

/* The call's path, normalised against the row's cwd, into b->path. */
static int call_path(struct st_state *st, struct rbuild *b, const struct call *c)
{
	const char *why;

	stj_str(stj_get(c->use->p, c->use->e, "cwd"), c->use->e, &b->tmp);
	if (nm_path(c->fp.buf, c->fp.len, b->tmp.buf, b->tmp.len, &b->path, &why)) {
		report_path(st, c, why);
		return -1;
	}
	return 0;
}

/* One Read, Write or Edit call; 0 or -ENOMEM. */
static int take_call(struct st_state *st, struct rbuild *b, struct call *c)
{
	struct st_line res;
	const char *block, *file = NULL;
	const struct res *which = NULL;
	struct st_read *r;
	int found, src = SRC_WRITE;

	if (stj_str(stj_get(c->input, c->use->e, "file_path"), c->use->e, &c->fp))
		return 0;
	found = find_result(st, b, c, &res, &block, &which);
	if (!found || stj_true(stj_get(block, res.e, "is_error"), res.e))
		goto out;
	if (c->write && !(stj_get(c->input, c->use->e, "content") &&
			  *stj_get(c->input, c->use->e, "content") == '"'))
		goto out;
	if (!c->write && !c->edit && (src = read_source(&res, found == 1, &file)) < 0)
		goto out;
	if (call_path(st, b, c))
		goto out;
	if (c->edit) {
		struct st_hent *h = sth_find(b->by_path, b->path.buf, b->path.len);

		if (h)
			st->reads[h->val].edit_id = which->id;
		goto out;
	}
	if (!(r = slot(st, b, b->path.buf, b->path.len))) {
		stl_free(&res);
		return -ENOMEM;
	}
	if (!(r->tool_id = strndup(c->id, c->idn))) {
		stl_free(&res);
		return -ENOMEM;
	}
	r->tool_id_len = c->idn;
	r->use_rec = c->use_rec;
	r->use_id = c->use_id;
	r->res_rec = which->rec;
	r->res_id = which->id;
	r->edit_id = 0;
	r->write = (uint8_t)c->write;
	r->src = (uint8_t)src;
	r->partial = 0;
	r->offset = r->limit = -1;
	if (!c->write)
		read_view(r, c->input, c->use->e, file, res.e);
out:
	stl_free(&res);
	return 0;
}

/* The calls of Read, Write and Edit in one assistant row. */
static int take_row(struct st_state *st, struct rbuild *b, uint32_t rec, uint32_t id)
{
	struct st_line l;
	const char *content, *v;
	struct js_iter it;
	struct js_str t, name, tid;
	int rc = 0;

	if (stl_read(st, rec, &l))
		goto out;
	content = stj_get(stj_get(l.p, l.e, "message"), l.e, "content");
	if (!content || js_arr_begin(&it, content, l.e))
		goto out;
	while (!rc && js_arr_next(&it, &v) == 1) {
		const char *tv = stj_get(v, l.e, "type"), *nv = stj_get(v, l.e, "name");
		const char *iv = stj_get(v, l.e, "id"), *in = stj_get(v, l.e, "input");

		if (tv && *tv == '"' && js_string(tv, l.e, &t) && js_eq(&t, "tool_use") &&
		    nv && *nv == '"' && js_string(nv, l.e, &name) && iv && *iv == '"' &&
		    js_string(iv, l.e, &tid) && in && *in == '{' &&
		    (js_eq(&name, "Read") || js_eq(&name, "Write") || js_eq(&name, "Edit"))) {
			struct call c = { rec, id, &l, tid.p, in, tid.n, js_eq(&name, "Write"),
					  js_eq(&name, "Edit"), { 0 } };

			sb_init(&c.fp);
			rc = take_call(st, b, &c);
			sb_free(&c.fp);
		}
		if (!(it.p = js_value(v, l.e)))
			break;
	}
out:
	stl_free(&l);
	return rc;
}

/* read-cache/ and read-cache.json, for the entries found. */
static int add_nodes(struct st_state *st)
{
	uint32_t dir, i;
	const char *why;

	if (!st->nreads)
		return 0;
	if (st_add(st, 0, "read-cache.json", 15, 0, SW_RC_INDEX, 0) == ST_NONE ||
	    (dir = st_add(st, 0, "read-cache", 10, 1, SW_DIR, 0)) == ST_NONE)
		return -ENOMEM;
	for (i = 0; i < st->nreads; i++) {
		struct st_read *r = &st->reads[i];

		r->node = st_add_path(st, dir, r->path, SW_READ, i, &why);
		if (r->node == ST_NONE) {
			struct sbuf q;

			sb_init(&q);
			st_quote(&q, r->path, strlen(r->path));
			st_err(st, idx_rec(st->ix, r->use_rec)->line,
			       "read-cache: %s left out: %s", q.buf, why);
			sb_free(&q);
		}
	}
	return 0;
}

int st_read_build(struct st_state *st, const struct graph *g,
		  const uint32_t *path, uint32_t n)
{
	struct rbuild b;
	uint32_t k;
	int rc;

	memset(&b, 0, sizeof(b));
	sb_init(&b.path);
	sb_init(&b.tmp);
	rc = collect_results(&b, g, path, n);
	for (k = 0; !rc && k < n; k++) {
		const struct idx_rec *r = gr_node_rec(g, path[k]);

		if (r && r->type == IDX_T_ASSISTANT && r->block == IDX_B_TOOL_USE)
			rc = take_row(st, &b, gr_rec(g, path[k]), path[k]);
	}
	if (!rc)
		rc = add_nodes(st);
	free(b.res);
	sth_free(&b.by_path);
	sb_free(&b.path);
	sb_free(&b.tmp);
	return rc;
}

void st_read_free(struct st_state *st)
{
	uint32_t i;

	for (i = 0; i < st->nreads; i++) {
		free(st->reads[i].path);
		free(st->reads[i].tool_id);
	}
	free(st->reads);
	st->reads = NULL;
	st->nreads = 0;
}

/* ---- rendering ---- */

int st_read_render(const struct st_state *st, const struct st_read *r,
		   struct sbuf *out)
{
	struct st_line l;
	const char *block;
	int count, rc = -EIO;

	if (stl_read(st, r->src == SRC_WRITE ? r->use_rec : r->res_rec, &l))
		goto out;
	switch (r->src) {
	case SRC_FILE:
		rc = add_str(stj_get(stj_get(stj_get(l.p, l.e, "toolUseResult"), l.e, "file"),
				     l.e, "content"), l.e, out);
		break;
	case SRC_RESULT:
		block = find_block(&l, "tool_result", "tool_use_id", r->tool_id,
				   r->tool_id_len, &count);
		rc = block ? add_result_text(block, l.e, out) : -1;
		break;
	case SRC_IMAGE:
		rc = add_base64(stj_get(stj_get(stj_get(l.p, l.e, "toolUseResult"), l.e, "file"),
					l.e, "base64"), l.e, out);
		break;
	case SRC_WRITE:
		block = find_block(&l, "tool_use", "id", r->tool_id, r->tool_id_len, &count);
		rc = add_str(stj_get(stj_get(block, l.e, "input"), l.e, "content"), l.e, out);
		break;
	}
	rc = rc ? -EIO : 0;
out:
	stl_free(&l);
	return rc;
}

/* "<dir><path>" as a JSON string. */
static void add_file_name(struct sbuf *out, const char *dir, const char *path)
{
	struct sbuf f;

	sb_init(&f);
	sb_adds(&f, dir);
	sb_adds(&f, path);
	sb_add_json_str(out, f.buf, f.len);
	sb_free(&f);
}

static void json_uuid(const struct st_state *st, struct sbuf *out, uint32_t id)
{
	char buf[IDX_UUID_MAX + 1];

	if (!id) {
		sb_adds(out, "null");
		return;
	}
	idx_id_buf(st->ix, id, buf);
	sb_add_json_str(out, buf, strlen(buf));
}

static void json_num(struct sbuf *out, int64_t v)
{
	if (v < 0)
		sb_adds(out, "null");
	else
		sb_addf(out, "%lld", (long long)v);
}

static void index_entry(const struct st_state *st, const struct st_read *r,
			struct sbuf *out)
{
	const struct idx_rec *u = idx_rec(st->ix, r->use_rec);
	char ts[32];

	sb_adds(out, "{\"path\": ");
	sb_add_json_str(out, r->path, strlen(r->path));
	sb_adds(out, ", \"file\": ");
	add_file_name(out, "read-cache", r->path);
	sb_addf(out, ", \"tool\": \"%s\", \"uuid\": ", r->write ? "Write" : "Read");
	json_uuid(st, out, r->use_id);
	sb_adds(out, ", \"resultUuid\": ");
	json_uuid(st, out, r->res_id);
	sb_adds(out, ", \"timestamp\": ");
	if (u->ts != IDX_NO_TS) {
		js_time_fmt(u->ts, ts);
		sb_add_json_str(out, ts, strlen(ts));
	} else {
		sb_adds(out, "null");
	}
	sb_addf(out, ", \"line\": %u, \"partial\": %s, \"offset\": ", u->line,
		r->partial ? "true" : "false");
	json_num(out, r->partial ? r->offset : -1);
	sb_adds(out, ", \"limit\": ");
	json_num(out, r->partial ? r->limit : -1);
	sb_adds(out, ", \"editedAfter\": ");
	json_uuid(st, out, r->edit_id);
	sb_adds(out, "}");
}

void st_read_index(const struct st_state *st, struct sbuf *out)
{
	uint32_t i, n = 0;

	sb_adds(out, "[");
	for (i = 0; i < st->nreads; i++) {
		if (st->reads[i].node == ST_NONE)
			continue;
		sb_adds(out, n++ ? ",\n  " : "\n  ");
		index_entry(st, &st->reads[i], out);
	}
	sb_adds(out, n ? "\n]\n" : "]\n");
}

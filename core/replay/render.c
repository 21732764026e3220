#include "render.h"

#include <string.h>
#include <sys/stat.h>

#include "jscan.h"
#include "jv.h"

/* ---- the cJSON tree printer (state/ files) ---- */

static void pad(struct sbuf *out, int indent)
{
	int i;

	for (i = 0; i < indent; i++)
		sb_adds(out, "  ");
}

void rd_json(const cJSON *v, int indent, struct sbuf *out)
{
	const cJSON *c;
	char *num;

	if (cJSON_IsObject(v) || cJSON_IsArray(v)) {
		int obj = cJSON_IsObject(v);

		if (!v->child) {
			sb_adds(out, obj ? "{}" : "[]");
			return;
		}
		sb_adds(out, obj ? "{\n" : "[\n");
		for (c = v->child; c; c = c->next) {
			pad(out, indent + 1);
			if (obj) {
				sb_add_json_str(out, c->string, strlen(c->string));
				sb_adds(out, ": ");
			}
			rd_json(c, indent + 1, out);
			sb_adds(out, c->next ? ",\n" : "\n");
		}
		pad(out, indent);
		sb_addc(out, obj ? '}' : ']');
	} else if (cJSON_IsString(v)) {
		sb_add_json_str(out, v->valuestring, strlen(v->valuestring));
	} else if ((num = cJSON_PrintUnformatted(v))) {
		sb_adds(out, num);
		cJSON_free(num);
	}
}

/* ---- a record's line, read once ---- */

/* The top-level members the content comes from. */
enum rk { RK_TYPE, RK_MESSAGE, RK_ATTACHMENT, RK_RENDERED, RK_CONTENT, RK_META, RK_N };

static const char *const rk_names[RK_N] = IDX_RENDER_KEYS;

/* A value in the line: its first byte (NULL when absent), the end of the
 * top-level member holding it (every walk stays inside), and the doc that
 * checked it. */
struct val {
	const char *v, *e;
	const struct jv_doc *d;
};

struct rec {
	struct sbuf line;
	int have;		/* line was given, not read */
	struct jv_doc doc;
	struct val m[RK_N];	/* each member's first occurrence */
};

static struct val at(struct val in, const char *v)
{
	struct val r = { v, v ? in.e : NULL, in.d };

	return r;
}

static struct val get(struct val o, const char *key)
{
	return at(o, jv_get(o.d, o.v, o.e, key));
}

static int is_str(struct val v)
{
	return v.v && *v.v == '"';
}

/* get(o, key) when it is a string; v NULL otherwise. */
static struct val str(struct val o, const char *key)
{
	struct val v = get(o, key);

	return is_str(v) ? v : at(v, NULL);
}

static int str_is(struct val v, const char *lit)
{
	return is_str(v) && jv_str_eq(v.v, v.e, lit);
}

static int wanted(const struct js_str *k)
{
	int i;

	for (i = 0; i < RK_N; i++)
		if (js_eq(k, rk_names[i]))
			return i;
	return -1;
}

/* A line's tail after its last wanted member read with it, rather than
 * an fstat() to tell whether all of the line is still in the file. */
#define TAIL_READ 4096

/*
 * The line's part up to its last wanted member into line: 0, or -1 when
 * it cannot be read or the whole line is no longer in the file. A short
 * tail (the usual assistant record's) is read too: a short read tells
 * what fstat() told, for one system call less per file.
 */
static int rec_read(struct sbuf *line, const struct logf *lf, const struct idx_rec *r)
{
	struct stat st;

	if (r->len - r->rlen <= TAIL_READ) {
		if (lf_read_part(lf, r, r->len, line))
			return -1;
		line->len = r->rlen;
		line->buf[line->len] = '\0';
		return 0;
	}
	if (lf_stat(lf, &st) || (uint64_t)st.st_size < r->off + r->len ||
	    lf_read_part(lf, r, r->rlen, line))
		return -1;
	return 0;
}

/*
 * Reads the record's members as the tree renderer did: the line must be
 * an object jscan can walk, and each wanted member a value cJSON accepts
 * (the first of a repeated one counts). Only the line's part up to the
 * last wanted member is read (idx_rec.rlen): the index walked the rest,
 * which holds none (a tool result's second copy of its output, mostly).
 * 0, or -1 when the record cannot be shown (its line is gone, a wanted
 * member nested too deeply ...).
 */
static int rec_load(struct rec *rc, const struct logf *lf, const struct idx_rec *r)
{
	const char *p, *e, *v, *end;
	struct js_iter it;
	struct js_str k;
	int n, i;

	memset(rc->m, 0, sizeof(rc->m));
	for (i = 0; i < RK_N; i++)
		rc->m[i].d = &rc->doc;
	if (!rc->have && rec_read(&rc->line, lf, r))
		return -1;
	p = rc->line.buf;
	e = p + rc->line.len;
	while (p < e && *p == '\0')
		p++;
	lf_fix_surrogates((char *)p, (size_t)(e - p));
	if (!r->rlen || js_obj_begin(&it, js_ws(p, e), e))
		return r->rlen ? -1 : 0;
	while ((n = js_obj_next(&it, &k, &v)) == 1) {
		i = wanted(&k);
		/* A string or container cJSON takes ends where jscan says: one
		 * pass does both. */
		if (i >= 0 && (*v == '"' || *v == '{' || *v == '[')) {
			if (!(end = jv_check(v, e, &rc->doc)))
				return -1;
		} else if (!(end = js_value(v, e)) ||
			   (i >= 0 && !jv_check(v, end, &rc->doc))) {
			return -1;
		}
		if (i >= 0 && !rc->m[i].v)
			rc->m[i] = (struct val){ v, end, &rc->doc };
		if (end == e)
			return 0;	/* the last wanted member */
		it.p = end;
	}
	return -1;
}

/* ---- strings out ---- */

/* A value within one line (a header field): see sb_add_line(). */
static void emit_line(void *arg, const char *p, size_t n)
{
	sb_add_line(arg, p, n);
}

/* A string's text, then a newline unless it ends with one (or is empty). */
static void add_text(struct sbuf *out, struct val s)
{
	char last;

	if (s.v && jv_text(s.v, s.e, out, &last) && last != '\n')
		sb_addc(out, '\n');
}

/* A string as a value fit for one line (sb_add_line()), or none. */
static void add_line(struct sbuf *out, struct val s, const char *none)
{
	if (s.v)
		jv_str(s.v, s.e, emit_line, out);
	else
		sb_adds(out, none);
}

/* ---- JSON out, indented by two spaces per level ---- */

static void json_value(struct sbuf *out, struct val v, int indent);

static void json_container(struct sbuf *out, struct val v, int indent)
{
	struct jv_iter it;
	struct js_str k;
	const char *c;
	int obj = *v.v == '{';

	jv_begin(&it, v.d, v.v, v.e);
	if (!jv_next(&it, &k, &c)) {
		sb_adds(out, obj ? "{}" : "[]");
		return;
	}
	sb_adds(out, obj ? "{\n" : "[\n");
	do {
		pad(out, indent + 1);
		if (obj) {
			sb_addc(out, '"');
			jv_key_json(&k, out);
			sb_adds(out, "\": ");
		}
		json_value(out, at(v, c), indent + 1);
		sb_adds(out, *it.p == ',' ? ",\n" : "\n");
	} while (jv_next(&it, &k, &c));
	pad(out, indent);
	sb_addc(out, obj ? '}' : ']');
}

static void json_value(struct sbuf *out, struct val v, int indent)
{
	switch (*v.v) {
	case '{': case '[':
		json_container(out, v, indent);
		break;
	case '"':
		sb_addc(out, '"');
		jv_json(v.v, v.e, out);
		sb_addc(out, '"');
		break;
	case 't':
		sb_adds(out, "true");
		break;
	case 'f':
		sb_adds(out, "false");
		break;
	case 'n':
		sb_adds(out, "null");
		break;
	default:
		jv_number(v.v, v.e, out);
	}
}

/* A value as indented JSON and a newline (just the newline if absent). */
static void add_pretty(struct sbuf *out, struct val v)
{
	if (v.v)
		json_value(out, v, 0);
	sb_addc(out, '\n');
}

/* ---- content ---- */

static void add_result_content(struct sbuf *out, struct val content)
{
	struct jv_iter it;
	const char *c;

	if (is_str(content)) {
		add_text(out, content);
		return;
	}
	if (!jv_begin(&it, content.d, content.v, content.e))
		return;
	while (jv_next(&it, NULL, &c)) {
		struct val b = at(content, c), type = str(b, "type");

		if (str_is(type, "text") && str(b, "text").v)
			add_text(out, str(b, "text"));
		else if (str_is(type, "image"))
			sb_adds(out, "[image]\n");
		else
			add_pretty(out, b);
	}
}

static void add_tool_use(struct sbuf *out, struct val b)
{
	sb_adds(out, "--- tool_use ");
	add_line(out, str(b, "name"), "?");
	sb_adds(out, " (");
	add_line(out, str(b, "id"), "no id");
	sb_adds(out, ") ---\n");
	add_pretty(out, get(b, "input"));
}

static void add_tool_result(struct sbuf *out, struct val b)
{
	struct val err = get(b, "is_error");

	sb_adds(out, "--- tool_result (");
	add_line(out, str(b, "tool_use_id"), "no id");
	sb_adds(out, err.v && *err.v == 't' ? ") [error] ---\n" : ") ---\n");
	add_result_content(out, get(b, "content"));
}

static void add_block(struct sbuf *out, struct val b, int alone)
{
	struct val type = str(b, "type");

	if (str_is(type, "text") && str(b, "text").v) {
		if (!alone)
			sb_adds(out, "--- text ---\n");
		add_text(out, str(b, "text"));
	} else if (str_is(type, "thinking")) {
		sb_adds(out, "--- thinking ---\n");
		add_text(out, str(b, "thinking"));
	} else if (str_is(type, "redacted_thinking")) {
		sb_adds(out, "--- thinking (redacted) ---\n");
	} else if (str_is(type, "tool_use")) {
		add_tool_use(out, b);
	} else if (str_is(type, "tool_result")) {
		add_tool_result(out, b);
	} else if (str_is(type, "image")) {
		sb_adds(out, "--- image ---\n");
	} else {
		sb_adds(out, "--- ");
		add_line(out, type, "");
		sb_adds(out, " ---\n");
		add_pretty(out, b);
	}
}

/* A message's content: a string, or blocks (an object's member values
 * count as blocks, as cJSON walks them). */
static void add_message(struct sbuf *out, struct val msg)
{
	struct val content = get(msg, "content");
	struct jv_iter it;
	const char *c;
	int alone;

	if (is_str(content)) {
		add_text(out, content);
		return;
	}
	alone = jv_count(content.d, content.v, content.e) == 1;
	if (jv_begin(&it, content.d, content.v, content.e))
		while (jv_next(&it, NULL, &c))
			add_block(out, at(content, c), alone);
}

static void add_attachment(struct sbuf *out, const struct rec *rc)
{
	struct val parts = rc->m[RK_RENDERED];
	struct jv_iter it;
	const char *c;
	int any = 0;

	if (jv_begin(&it, parts.d, parts.v, parts.e)) {
		while (jv_next(&it, NULL, &c)) {
			struct val s = str(at(parts, c), "content");

			if (s.v) {
				add_text(out, s);
				any = 1;
			}
		}
	}
	if (!any && rc->m[RK_ATTACHMENT].v)
		add_pretty(out, rc->m[RK_ATTACHMENT]);
}

static void add_system(struct sbuf *out, const struct rec *rc)
{
	struct val meta = rc->m[RK_META];

	if (meta.v && *meta.v == '{') {
		struct val tok = get(meta, "preTokens");

		sb_adds(out, "trigger: ");
		add_line(out, str(meta, "trigger"), "?");
		sb_addc(out, '\n');
		if (tok.v && (*tok.v == '-' || (*tok.v >= '0' && *tok.v <= '9')))
			sb_addf(out, "preTokens: %.0f\n", jv_double(tok.v, tok.e));
		sb_addc(out, '\n');
	}
	if (is_str(rc->m[RK_CONTENT]))
		add_text(out, rc->m[RK_CONTENT]);
}

static void add_content(struct sbuf *out, const struct rec *rc)
{
	struct val type = rc->m[RK_TYPE];

	if (str_is(type, "user") || str_is(type, "assistant"))
		add_message(out, rc->m[RK_MESSAGE]);
	else if (str_is(type, "attachment"))
		add_attachment(out, rc);
	else if (str_is(type, "system"))
		add_system(out, rc);
}

/* ---- the file ---- */

static void header_uuid(const struct graph *g, struct sbuf *out, const char *key,
			uint32_t id)
{
	sb_adds(out, key);
	if (id)
		idx_id_text(gr_idx(g), id, out);
	else
		sb_adds(out, "-");
	sb_addc(out, '\n');
}

static void add_line_no(struct sbuf *out, uint32_t line)
{
	char b[16], *p = b + sizeof(b);

	*--p = '\n';
	do
		*--p = (char)('0' + line % 10);
	while ((line /= 10));
	sb_adds(out, "line: ");
	sb_add(out, p, (size_t)(b + sizeof(b) - p));
}

/* msg: the record's message member (v NULL when absent or unreadable). */
static void header(const struct graph *g, uint32_t id, struct val msg,
		   const char *extra, struct sbuf *out)
{
	const struct idx_rec *r = gr_node_rec(g, id);
	const struct idx *ix = gr_idx(g);
	char ts[32];

	header_uuid(g, out, "uuid: ", id);
	header_uuid(g, out, "parent: ", r->parent);
	if (gr_is_boundary(g, id))
		header_uuid(g, out, "logical-parent: ", r->aux);
	sb_adds(out, "time: ");
	if (r->ts == IDX_NO_TS) {
		sb_adds(out, "-");
	} else {
		js_time_fmt(r->ts, ts);
		sb_adds(out, ts);
	}
	sb_adds(out, "\ntype: ");
	sb_add_lines(out, idx_atom(ix, r->type_atom));
	if (r->sub) {
		sb_addc(out, '/');
		sb_add_lines(out, idx_atom(ix, r->sub));
	}
	sb_addc(out, '\n');
	if (r->type == IDX_T_ASSISTANT && str(msg, "model").v) {
		sb_adds(out, "model: ");
		add_line(out, str(msg, "model"), "");
		sb_addc(out, '\n');
	}
	if (r->type == IDX_T_ASSISTANT && str(msg, "id").v) {
		sb_adds(out, "message-id: ");
		add_line(out, str(msg, "id"), "");
		sb_addc(out, '\n');
	}
	if (r->flags & IDX_F_SIDECHAIN)
		sb_adds(out, "sidechain: true\n");
	add_line_no(out, r->line);
	if (extra)
		sb_adds(out, extra);
	sb_addc(out, '\n');
}

int rd_message(const struct graph *g, const struct logf *lf, uint32_t id,
	       struct sbuf *out)
{
	return rd_message_ex(g, lf, id, NULL, out);
}

int rd_message_ex(const struct graph *g, const struct logf *lf, uint32_t id,
		  const char *extra, struct sbuf *out)
{
	return rd_message_line(g, lf, id, extra, NULL, out);
}

/* Takes line when it is the record's whole line: its part up to the last
 * wanted member is what rec_read() would read. */
static void rec_take(struct rec *rc, struct sbuf *line, const struct idx_rec *r)
{
	sb_init(&rc->line);
	rc->have = line && line->len == r->len && r->rlen <= r->len;
	if (!rc->have)
		return;
	rc->line = *line;
	sb_init(line);
	rc->line.len = r->rlen;
	rc->line.buf[rc->line.len] = '\0';
}

int rd_message_line(const struct graph *g, const struct logf *lf, uint32_t id,
		    const char *extra, struct sbuf *line, struct sbuf *out)
{
	const struct idx_rec *r = gr_node_rec(g, id);
	struct rec rc;
	int ok;

	rec_take(&rc, line, r);
	jv_doc_init(&rc.doc);
	/* The text is about as long as the line or shorter: one allocation
	 * (pages not written to cost nothing). */
	sb_grow(out, r->len + 512u);
	ok = rec_load(&rc, lf, r) == 0;
	header(g, id, ok ? rc.m[RK_MESSAGE] : at(rc.m[RK_MESSAGE], NULL), extra, out);
	if (ok)
		add_content(out, &rc);
	else
		sb_adds(out, "(this record cannot be shown as text: it is nested too deeply "
			     "to parse; records/ holds its bytes)\n");
	if (out->len && out->buf[out->len - 1] != '\n')
		sb_addc(out, '\n');
	sb_free(&rc.line);
	jv_doc_free(&rc.doc);
	return 0;
}

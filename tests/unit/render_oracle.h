/*
 * render_oracle: the message renderer as it was before it read the line's
 * bytes itself: the line's wanted members parsed into cJSON trees, then
 * walked. Kept word for word (but for names) as the reference the renderer
 * in core/render.c must equal byte for byte (test_render.c, and
 * tests/bench/render_diff.c over whole logs). Not a model of style.
 */
#ifndef SESSFS_RENDER_ORACLE_H
#define SESSFS_RENDER_ORACLE_H

#include <string.h>

#include <cjson/cJSON.h>

#include "graph.h"
#include "jscan.h"
#include "logf.h"
#include "sbuf.h"

static int ref_hex4(const char *p, const char *e, unsigned *v)
{
	int i;

	if (e - p < 4)
		return -1;
	*v = 0;
	for (i = 0; i < 4; i++) {
		char c = p[i];

		*v <<= 4;
		if (c >= '0' && c <= '9')
			*v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			*v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			*v |= (unsigned)(c - 'A' + 10);
		else
			return -1;
	}
	return 0;
}

/*
 * Rewrites lone surrogate escapes as \ufffd, in place (same length).
 * Only escapes matter, so every backslash pair is stepped over as a unit.
 */
static void ref_fix_surrogates(char *p, size_t n)
{
	char *e = p + n;

	while ((p = memchr(p, '\\', (size_t)(e - p))) && p + 1 < e) {
		unsigned hi, lo;

		if (p[1] != 'u' || ref_hex4(p + 2, e, &hi)) {
			p += 2;
			continue;
		}
		if (hi >= 0xd800 && hi <= 0xdbff && e - p >= 12 && p[6] == '\\' &&
		    p[7] == 'u' && !ref_hex4(p + 8, e, &lo) && lo >= 0xdc00 && lo <= 0xdfff) {
			p += 12;
			continue;
		}
		if (hi >= 0xd800 && hi <= 0xdfff)
			memcpy(p + 2, "fffd", 4);
		p += 6;
	}
}

static int ref_wanted(const struct js_str *k, const char *const *keys)
{
	for (; *keys; keys++)
		if (js_eq(k, *keys))
			return 1;
	return 0;
}

/* Adds the member at [v, end) named k to obj, parsed alone. */
static int ref_add_member(cJSON *obj, const struct js_str *k, const char *v,
		      const char *end)
{
	char name[64];
	cJSON *item;

	if (k->escaped || k->n >= sizeof(name))
		return 0;
	memcpy(name, k->p, k->n);
	name[k->n] = '\0';
	item = cJSON_ParseWithLength(v, (size_t)(end - v));
	if (!item)
		return -1;
	cJSON_AddItemToObject(obj, name, item);
	return 0;
}

static cJSON *ref_parse_keys(const struct logf *lf, const struct idx_rec *r,
		     const char *const *keys)
{
	struct sbuf sb;
	struct js_iter it;
	struct js_str k;
	const char *v, *p, *e;
	cJSON *obj = NULL;
	int rc;

	sb_init(&sb);
	if (lf_read(lf, r, &sb))
		goto out;
	p = sb.buf;
	e = sb.buf + sb.len;
	while (p < e && *p == '\0')
		p++;
	ref_fix_surrogates((char *)p, (size_t)(e - p));
	if (js_obj_begin(&it, js_ws(p, e), e) || !(obj = cJSON_CreateObject()))
		goto out;
	while ((rc = js_obj_next(&it, &k, &v)) == 1) {
		const char *end = js_value(v, e);

		if (!end || (ref_wanted(&k, keys) && ref_add_member(obj, &k, v, end)))
			break;
		it.p = end;
	}
	if (rc != 0) {
		cJSON_Delete(obj);
		obj = NULL;
	}
out:
	sb_free(&sb);
	return obj;
}

static const cJSON *ref_get(const cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

static const char *ref_str(const cJSON *o, const char *key)
{
	const cJSON *v = ref_get(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void ref_add_text(struct sbuf *out, const char *s)
{
	size_t n = strlen(s);

	sb_add_utf8(out, s, n);
	if (n && s[n - 1] != '\n')
		sb_addc(out, '\n');
}

static void ref_pad(struct sbuf *out, int indent)
{
	int i;

	for (i = 0; i < indent; i++)
		sb_adds(out, "  ");
}

static void ref_rd_json(const cJSON *v, int indent, struct sbuf *out)
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
			ref_pad(out, indent + 1);
			if (obj) {
				sb_add_json_str(out, c->string, strlen(c->string));
				sb_adds(out, ": ");
			}
			ref_rd_json(c, indent + 1, out);
			sb_adds(out, c->next ? ",\n" : "\n");
		}
		ref_pad(out, indent);
		sb_addc(out, obj ? '}' : ']');
	} else if (cJSON_IsString(v)) {
		sb_add_json_str(out, v->valuestring, strlen(v->valuestring));
	} else if ((num = cJSON_PrintUnformatted(v))) {
		sb_adds(out, num);
		cJSON_free(num);
	}
}

static void ref_add_pretty(struct sbuf *out, const cJSON *v)
{
	ref_rd_json(v, 0, out);
	sb_addc(out, '\n');
}

static void ref_add_result_content(struct sbuf *out, const cJSON *content)
{
	const cJSON *b;

	if (cJSON_IsString(content)) {
		ref_add_text(out, content->valuestring);
		return;
	}
	cJSON_ArrayForEach(b, content) {
		const char *type = ref_str(b, "type");

		if (type && !strcmp(type, "text") && ref_str(b, "text"))
			ref_add_text(out, ref_str(b, "text"));
		else if (type && !strcmp(type, "image"))
			sb_adds(out, "[image]\n");
		else
			ref_add_pretty(out, b);
	}
}

static void ref_add_block(struct sbuf *out, const cJSON *b, int alone)
{
	const char *type = ref_str(b, "type");

	if (!type)
		type = "";
	if (!strcmp(type, "text") && ref_str(b, "text")) {
		if (!alone)
			sb_adds(out, "--- text ---\n");
		ref_add_text(out, ref_str(b, "text"));
	} else if (!strcmp(type, "thinking")) {
		sb_adds(out, "--- thinking ---\n");
		ref_add_text(out, ref_str(b, "thinking") ? ref_str(b, "thinking") : "");
	} else if (!strcmp(type, "redacted_thinking")) {
		sb_adds(out, "--- thinking (redacted) ---\n");
	} else if (!strcmp(type, "tool_use")) {
		sb_adds(out, "--- tool_use ");
		sb_add_lines(out, ref_str(b, "name") ? ref_str(b, "name") : "?");
		sb_adds(out, " (");
		sb_add_lines(out, ref_str(b, "id") ? ref_str(b, "id") : "no id");
		sb_adds(out, ") ---\n");
		ref_add_pretty(out, ref_get(b, "input"));
	} else if (!strcmp(type, "tool_result")) {
		sb_adds(out, "--- tool_result (");
		sb_add_lines(out, ref_str(b, "tool_use_id") ? ref_str(b, "tool_use_id") : "no id");
		sb_addf(out, ")%s ---\n", cJSON_IsTrue(ref_get(b, "is_error")) ? " [error]" : "");
		ref_add_result_content(out, ref_get(b, "content"));
	} else if (!strcmp(type, "image")) {
		sb_adds(out, "--- image ---\n");
	} else {
		sb_adds(out, "--- ");
		sb_add_lines(out, type);
		sb_adds(out, " ---\n");
		ref_add_pretty(out, b);
	}
}

static void ref_add_message(struct sbuf *out, const cJSON *msg)
{
	const cJSON *content = ref_get(msg, "content"), *b;

	if (cJSON_IsString(content)) {
		ref_add_text(out, content->valuestring);
		return;
	}
	cJSON_ArrayForEach(b, content)
		ref_add_block(out, b, cJSON_GetArraySize(content) == 1);
}

static void ref_add_attachment(struct sbuf *out, const cJSON *rec)
{
	const cJSON *parts = ref_get(rec, "rendered"), *p;
	int any = 0;

	cJSON_ArrayForEach(p, parts) {
		if (ref_str(p, "content")) {
			ref_add_text(out, ref_str(p, "content"));
			any = 1;
		}
	}
	if (!any && ref_get(rec, "attachment"))
		ref_add_pretty(out, ref_get(rec, "attachment"));
}

static void ref_add_system(struct sbuf *out, const cJSON *rec)
{
	const cJSON *meta = ref_get(rec, "compactMetadata");

	if (cJSON_IsObject(meta)) {
		const cJSON *tok = ref_get(meta, "preTokens");

		sb_adds(out, "trigger: ");
		sb_add_lines(out, ref_str(meta, "trigger") ? ref_str(meta, "trigger") : "?");
		sb_addc(out, '\n');
		if (cJSON_IsNumber(tok))
			sb_addf(out, "preTokens: %.0f\n", tok->valuedouble);
		sb_addc(out, '\n');
	}
	if (ref_str(rec, "content"))
		ref_add_text(out, ref_str(rec, "content"));
}

static void ref_rd_content(const cJSON *rec, struct sbuf *out)
{
	const char *type = ref_str(rec, "type");

	if (!type)
		return;
	if (!strcmp(type, "user") || !strcmp(type, "assistant"))
		ref_add_message(out, ref_get(rec, "message"));
	else if (!strcmp(type, "attachment"))
		ref_add_attachment(out, rec);
	else if (!strcmp(type, "system"))
		ref_add_system(out, rec);
}

static void ref_header_uuid(const struct graph *g, struct sbuf *out, const char *key,
			uint32_t id)
{
	sb_adds(out, key);
	if (id)
		idx_id_text(gr_idx(g), id, out);
	else
		sb_adds(out, "-");
	sb_addc(out, '\n');
}

/* "key: value" (no newline), the value fit for one line. */
static void ref_header_field(struct sbuf *out, const char *key, const char *v)
{
	sb_adds(out, key);
	sb_add_lines(out, v);
}

static void ref_header(const struct graph *g, uint32_t id, const cJSON *rec,
		   const char *extra, struct sbuf *out)
{
	const struct idx_rec *r = gr_node_rec(g, id);
	const struct idx *ix = gr_idx(g);
	const cJSON *msg = ref_get(rec, "message");
	char ts[32];

	ref_header_uuid(g, out, "uuid: ", id);
	ref_header_uuid(g, out, "parent: ", r->parent);
	if (gr_is_boundary(g, id))
		ref_header_uuid(g, out, "logical-parent: ", r->aux);
	js_time_fmt(r->ts, ts);
	sb_addf(out, "time: %s\n", r->ts == IDX_NO_TS ? "-" : ts);
	ref_header_field(out, "type: ", idx_atom(ix, r->type_atom));
	if (r->sub) {
		sb_addc(out, '/');
		sb_add_lines(out, idx_atom(ix, r->sub));
	}
	sb_addc(out, '\n');
	if (r->type == IDX_T_ASSISTANT && ref_str(msg, "model")) {
		ref_header_field(out, "model: ", ref_str(msg, "model"));
		sb_addc(out, '\n');
	}
	if (r->type == IDX_T_ASSISTANT && ref_str(msg, "id")) {
		ref_header_field(out, "message-id: ", ref_str(msg, "id"));
		sb_addc(out, '\n');
	}
	if (r->flags & IDX_F_SIDECHAIN)
		sb_adds(out, "sidechain: true\n");
	sb_addf(out, "line: %u\n", r->line);
	if (extra)
		sb_adds(out, extra);
	sb_addc(out, '\n');
}

static int ref_rd_message_ex(const struct graph *g, const struct logf *lf, uint32_t id,
		  const char *extra, struct sbuf *out)
{
	cJSON *rec;

	static const char *const keys[] = {
		"type", "message", "attachment", "rendered", "content",
		"compactMetadata", NULL,
	};

	rec = ref_parse_keys(lf, gr_node_rec(g, id), keys);
	ref_header(g, id, rec, extra, out);
	if (rec)
		ref_rd_content(rec, out);
	else
		sb_adds(out, "(this record cannot be shown as text: it is nested too deeply "
			     "to parse; records/ holds its bytes)\n");
	if (out->len && out->buf[out->len - 1] != '\n')
		sb_addc(out, '\n');
	cJSON_Delete(rec);
	return 0;
}

#endif

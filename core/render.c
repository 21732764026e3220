#include "render.h"

#include <string.h>

#include "jarena.h"
#include "jscan.h"

static const cJSON *get(const cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

static const char *str(const cJSON *o, const char *key)
{
	const cJSON *v = get(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void add_text(struct sbuf *out, const char *s)
{
	size_t n = strlen(s);

	sb_add_utf8(out, s, n);
	if (n && s[n - 1] != '\n')
		sb_addc(out, '\n');
}

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

static void add_pretty(struct sbuf *out, const cJSON *v)
{
	rd_json(v, 0, out);
	sb_addc(out, '\n');
}

static void add_result_content(struct sbuf *out, const cJSON *content)
{
	const cJSON *b;

	if (cJSON_IsString(content)) {
		add_text(out, content->valuestring);
		return;
	}
	cJSON_ArrayForEach(b, content) {
		const char *type = str(b, "type");

		if (type && !strcmp(type, "text") && str(b, "text"))
			add_text(out, str(b, "text"));
		else if (type && !strcmp(type, "image"))
			sb_adds(out, "[image]\n");
		else
			add_pretty(out, b);
	}
}

static void add_block(struct sbuf *out, const cJSON *b, int alone)
{
	const char *type = str(b, "type");

	if (!type)
		type = "";
	if (!strcmp(type, "text") && str(b, "text")) {
		if (!alone)
			sb_adds(out, "--- text ---\n");
		add_text(out, str(b, "text"));
	} else if (!strcmp(type, "thinking")) {
		sb_adds(out, "--- thinking ---\n");
		add_text(out, str(b, "thinking") ? str(b, "thinking") : "");
	} else if (!strcmp(type, "redacted_thinking")) {
		sb_adds(out, "--- thinking (redacted) ---\n");
	} else if (!strcmp(type, "tool_use")) {
		sb_adds(out, "--- tool_use ");
		sb_add_lines(out, str(b, "name") ? str(b, "name") : "?");
		sb_adds(out, " (");
		sb_add_lines(out, str(b, "id") ? str(b, "id") : "no id");
		sb_adds(out, ") ---\n");
		add_pretty(out, get(b, "input"));
	} else if (!strcmp(type, "tool_result")) {
		sb_adds(out, "--- tool_result (");
		sb_add_lines(out, str(b, "tool_use_id") ? str(b, "tool_use_id") : "no id");
		sb_addf(out, ")%s ---\n", cJSON_IsTrue(get(b, "is_error")) ? " [error]" : "");
		add_result_content(out, get(b, "content"));
	} else if (!strcmp(type, "image")) {
		sb_adds(out, "--- image ---\n");
	} else {
		sb_adds(out, "--- ");
		sb_add_lines(out, type);
		sb_adds(out, " ---\n");
		add_pretty(out, b);
	}
}

static void add_message(struct sbuf *out, const cJSON *msg)
{
	const cJSON *content = get(msg, "content"), *b;

	if (cJSON_IsString(content)) {
		add_text(out, content->valuestring);
		return;
	}
	cJSON_ArrayForEach(b, content)
		add_block(out, b, cJSON_GetArraySize(content) == 1);
}

static void add_attachment(struct sbuf *out, const cJSON *rec)
{
	const cJSON *parts = get(rec, "rendered"), *p;
	int any = 0;

	cJSON_ArrayForEach(p, parts) {
		if (str(p, "content")) {
			add_text(out, str(p, "content"));
			any = 1;
		}
	}
	if (!any && get(rec, "attachment"))
		add_pretty(out, get(rec, "attachment"));
}

static void add_system(struct sbuf *out, const cJSON *rec)
{
	const cJSON *meta = get(rec, "compactMetadata");

	if (cJSON_IsObject(meta)) {
		const cJSON *tok = get(meta, "preTokens");

		sb_adds(out, "trigger: ");
		sb_add_lines(out, str(meta, "trigger") ? str(meta, "trigger") : "?");
		sb_addc(out, '\n');
		if (cJSON_IsNumber(tok))
			sb_addf(out, "preTokens: %.0f\n", tok->valuedouble);
		sb_addc(out, '\n');
	}
	if (str(rec, "content"))
		add_text(out, str(rec, "content"));
}

void rd_content(const cJSON *rec, struct sbuf *out)
{
	const char *type = str(rec, "type");

	if (!type)
		return;
	if (!strcmp(type, "user") || !strcmp(type, "assistant"))
		add_message(out, get(rec, "message"));
	else if (!strcmp(type, "attachment"))
		add_attachment(out, rec);
	else if (!strcmp(type, "system"))
		add_system(out, rec);
}

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

/* "key: value" (no newline), the value fit for one line. */
static void header_field(struct sbuf *out, const char *key, const char *v)
{
	sb_adds(out, key);
	sb_add_lines(out, v);
}

static void header(const struct graph *g, uint32_t id, const cJSON *rec,
		   const char *extra, struct sbuf *out)
{
	const struct idx_rec *r = gr_node_rec(g, id);
	const struct idx *ix = gr_idx(g);
	const cJSON *msg = get(rec, "message");
	char ts[32];

	header_uuid(g, out, "uuid: ", id);
	header_uuid(g, out, "parent: ", r->parent);
	if (gr_is_boundary(g, id))
		header_uuid(g, out, "logical-parent: ", r->aux);
	js_time_fmt(r->ts, ts);
	sb_addf(out, "time: %s\n", r->ts == IDX_NO_TS ? "-" : ts);
	header_field(out, "type: ", idx_atom(ix, r->type_atom));
	if (r->sub) {
		sb_addc(out, '/');
		sb_add_lines(out, idx_atom(ix, r->sub));
	}
	sb_addc(out, '\n');
	if (r->type == IDX_T_ASSISTANT && str(msg, "model")) {
		header_field(out, "model: ", str(msg, "model"));
		sb_addc(out, '\n');
	}
	if (r->type == IDX_T_ASSISTANT && str(msg, "id")) {
		header_field(out, "message-id: ", str(msg, "id"));
		sb_addc(out, '\n');
	}
	if (r->flags & IDX_F_SIDECHAIN)
		sb_adds(out, "sidechain: true\n");
	sb_addf(out, "line: %u\n", r->line);
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
	struct jarena arena;
	cJSON *rec;

	static const char *const keys[] = {
		"type", "message", "attachment", "rendered", "content",
		"compactMetadata", NULL,
	};

	ja_install();
	ja_begin(&arena);
	rec = lf_parse_keys(lf, gr_node_rec(g, id), keys);
	header(g, id, rec, extra, out);
	if (rec)
		rd_content(rec, out);
	else
		sb_adds(out, "(this record cannot be shown as text: it is nested too deeply "
			     "to parse; records/ holds its bytes)\n");
	if (out->len && out->buf[out->len - 1] != '\n')
		sb_addc(out, '\n');
	ja_end(&arena);		/* frees the tree */
	return 0;
}

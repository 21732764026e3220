#include "transcript.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "jscan.h"
#include "names.h"
#include "render.h"
#include "report.h"

#define TX_FIELD_INLINE 120	/* longer field values get a block */

/* What a row is, for the transcript. */
enum row_kind {
	RK_FOLD,		/* never sent: one line */
	RK_HARNESS,		/* written by the harness by itself, never sent */
	RK_HARNESS_SENT,	/* the same, sent to the model: one line each */
	RK_PROMPT,		/* a prompt the user typed (or a command): starts a turn */
	RK_USER,		/* other user text (meta, command output) */
	RK_SUMMARY,		/* a compaction's summary */
	RK_BOUNDARY,		/* a compaction */
	RK_REPLY,		/* assistant text */
	RK_THINKING,
	RK_CALL,		/* assistant row with a tool call */
	RK_RESULT,		/* tool result */
	RK_ATTACHMENT,		/* attachment the model gets */
	RK_SYSTEM,		/* a system row that is sent (command output) */
};

/* What the row is to the model: folded when never sent. */
static enum row_kind sent_kind(const struct idx *ix, const struct idx_rec *r)
{
	if (r->drop != IDX_D_KEEP)
		return RK_FOLD;
	switch (r->type) {
	case IDX_T_USER:
		if (r->block == IDX_B_TOOL_RESULT)
			return RK_RESULT;
		if (r->flags & IDX_F_COMPACT_SUMMARY)
			return RK_SUMMARY;
		return r->flags & IDX_F_META ? RK_USER : RK_PROMPT;
	case IDX_T_ASSISTANT:
		if (r->block == IDX_B_TOOL_USE)
			return RK_CALL;
		if (r->block == IDX_B_THINKING || r->block == IDX_B_REDACTED)
			return RK_THINKING;
		return RK_REPLY;
	case IDX_T_ATTACHMENT:
		return r->flags & IDX_F_RENDERED ? RK_ATTACHMENT : RK_FOLD;
	case IDX_T_SYSTEM:
		if (!strcmp(idx_atom(ix, r->sub), "compact_boundary"))
			return RK_BOUNDARY;
		return strcmp(idx_atom(ix, r->sub), "local_command") ? RK_FOLD : RK_SYSTEM;
	}
	return RK_FOLD;
}

static enum row_kind kind_of(const struct idx *ix, const struct idx_rec *r)
{
	enum row_kind k = sent_kind(ix, r);

	if (hn_is_harness(ix, r))
		return k == RK_FOLD ? RK_HARNESS : RK_HARNESS_SENT;
	return k;
}

/* ---- text helpers ---- */

/* A fence longer than any run of backticks in s. */
static size_t fence_len(const char *s, size_t n)
{
	size_t i, run = 0, most = 0;

	for (i = 0; i < n; i++) {
		run = s[i] == '`' ? run + 1 : 0;
		if (run > most)
			most = run;
	}
	return most < 3 ? 3 : most + 1;
}

static void add_block(const char *lang, const char *s, size_t n, struct sbuf *out)
{
	size_t f = fence_len(s, n), i;

	for (i = 0; i < f; i++)
		sb_addc(out, '`');
	sb_adds(out, lang);
	sb_addc(out, '\n');
	sb_add_utf8(out, s, n);
	if (n && s[n - 1] != '\n')
		sb_addc(out, '\n');
	for (i = 0; i < f; i++)
		sb_addc(out, '`');
	sb_adds(out, "\n\n");
}

/* Each line of s with "> " before it. */
static void add_quoted(const char *s, size_t n, struct sbuf *out)
{
	size_t i = 0;

	while (i < n) {
		const char *nl = memchr(s + i, '\n', n - i);
		size_t len = nl ? (size_t)(nl - (s + i)) : n - i;

		sb_adds(out, len ? "> " : ">");
		sb_add_utf8(out, s + i, len);
		sb_addc(out, '\n');
		i += len + 1;
	}
	sb_addc(out, '\n');
}

/* s without the lines that start with "--- " (the block markers of a
 * message file) and trailing newlines, into out. */
static void strip_markers(const char *s, size_t n, struct sbuf *out)
{
	size_t i = 0;

	while (i < n) {
		const char *nl = memchr(s + i, '\n', n - i);
		size_t len = nl ? (size_t)(nl - (s + i)) + 1 : n - i;

		if (!(len >= 4 && !memcmp(s + i, "--- ", 4)))
			sb_add(out, s + i, len);
		i += len;
	}
	while (out->len && out->buf[out->len - 1] == '\n')
		out->buf[--out->len] = '\0';
}

/* ---- tool calls ---- */

static void add_field(const char *key, const cJSON *v, struct sbuf *out)
{
	sb_adds(out, "- ");
	sb_add_line(out, key, strlen(key));
	sb_adds(out, ":");
	if (cJSON_IsString(v) && !strchr(v->valuestring, '\n') &&
	    strlen(v->valuestring) <= TX_FIELD_INLINE) {
		sb_adds(out, " ");
		sb_add_line(out, v->valuestring, strlen(v->valuestring));
		sb_addc(out, '\n');
	} else if (cJSON_IsString(v)) {
		sb_adds(out, "\n\n");
		add_block("", v->valuestring, strlen(v->valuestring), out);
	} else {
		char *j = cJSON_PrintUnformatted(v);

		sb_adds(out, " ");
		if (j && strlen(j) <= TX_FIELD_INLINE)
			sb_add_line(out, j, strlen(j));
		else if (j) {
			sb_adds(out, "\n\n");
			add_block("json", j, strlen(j), out);
		}
		sb_adds(out, j && strlen(j) <= TX_FIELD_INLINE ? "\n" : "");
		free(j);
	}
}

static void add_call(const cJSON *b, struct sbuf *out)
{
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(b, "name");
	const cJSON *in = cJSON_GetObjectItemCaseSensitive(b, "input");
	const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(in, "command");
	const cJSON *desc = cJSON_GetObjectItemCaseSensitive(in, "description");
	const char *n = cJSON_IsString(name) ? name->valuestring : "?";
	const cJSON *f;

	sb_adds(out, "**Tool call: ");
	sb_add_line(out, n, strlen(n));
	sb_adds(out, "**");
	if (!strcmp(n, "Bash") && cJSON_IsString(cmd)) {
		if (cJSON_IsString(desc)) {
			sb_adds(out, " — ");
			sb_add_line(out, desc->valuestring, strlen(desc->valuestring));
		}
		sb_adds(out, "\n\n");
		add_block("sh", cmd->valuestring, strlen(cmd->valuestring), out);
		cJSON_ArrayForEach(f, in)
			if (f != cmd && f != desc)
				add_field(f->string, f, out);
		return;
	}
	sb_adds(out, "\n\n");
	cJSON_ArrayForEach(f, in)
		add_field(f->string ? f->string : "", f, out);
	sb_addc(out, '\n');
}

/* An assistant row holding tool calls: each block, from the parsed line.
 * 1 when cJSON cannot take the line (the caller shows its message file's
 * text instead). */
static int add_call_row(struct session *s, const struct idx_rec *r, struct sbuf *out)
{
	cJSON *j = lf_parse(ss_logf(s), r);
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(j, "message");
	const cJSON *b, *c = cJSON_GetObjectItemCaseSensitive(m, "content");

	if (!j)
		return 1;
	cJSON_ArrayForEach(b, c) {
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(b, "type");
		const cJSON *txt = cJSON_GetObjectItemCaseSensitive(b, "text");

		if (cJSON_IsString(t) && !strcmp(t->valuestring, "tool_use"))
			add_call(b, out);
		else if (cJSON_IsString(txt)) {
			sb_add_utf8(out, txt->valuestring, strlen(txt->valuestring));
			sb_adds(out, "\n\n");
		}
	}
	cJSON_Delete(j);
	return 0;
}

/* ---- rows ---- */

static int body_of(struct session *s, uint32_t id, struct sbuf *tmp, struct sbuf *body);

static void add_fold(struct session *s, uint32_t id, const struct idx_rec *r,
		     struct sbuf *out)
{
	char kind[NM_KIND_MAX + 1];

	nm_kind(ss_graph(s), id, kind);
	sb_addf(out, "· %s (line %u): never sent to the model\n\n", kind, r->line);
}

/* The row's text as its message file has it, without the header. */
static int body_of(struct session *s, uint32_t id, struct sbuf *tmp, struct sbuf *body)
{
	const char *p;
	int rc;

	sb_reset(tmp);
	sb_reset(body);
	rc = rd_message(ss_graph(s), ss_logf(s), id, tmp);
	if (rc)
		return rc;
	p = strstr(tmp->buf, "\n\n");
	p = p ? p + 2 : tmp->buf + tmp->len;
	strip_markers(p, tmp->len - (size_t)(p - tmp->buf), body);
	return 0;
}

static void add_labelled(const char *label, const struct sbuf *body, struct sbuf *out)
{
	sb_adds(out, label);
	sb_add(out, body->buf, body->len);
	sb_adds(out, "\n\n");
}

static int add_row(struct session *s, uint32_t id, enum row_kind k,
		   struct sbuf *tmp, struct sbuf *body, struct sbuf *out)
{
	const struct idx_rec *r = gr_node_rec(ss_graph(s), id);
	char kind[NM_KIND_MAX + 1];
	int rc;

	if (k == RK_FOLD) {
		add_fold(s, id, r, out);
		return 0;
	}
	if (k == RK_HARNESS || k == RK_HARNESS_SENT) {
		char file[NM_MAX + 1];

		nm_kind(ss_graph(s), id, kind);
		nm_harness_file(ss_graph(s), id, file);
		sb_addf(out, "· %s (line %u): Claude Code's own text, %s: ../harness/%s\n\n",
			kind, r->line, k == RK_HARNESS ? "never sent to the model" :
			"sent to the model", file);
		return 0;
	}
	if (k == RK_CALL && (rc = add_call_row(s, r, out)) <= 0)
		return rc;
	rc = body_of(s, id, tmp, body);
	if (rc)
		return rc;
	switch (k) {
	case RK_CALL:
		add_labelled("**Tool call:**\n\n", body, out);
		break;
	case RK_PROMPT:
		add_labelled("**User:**\n\n", body, out);
		break;
	case RK_REPLY:
		add_labelled("**Assistant:**\n\n", body, out);
		break;
	case RK_THINKING:
		sb_adds(out, "*Thinking:*\n\n");
		add_quoted(body->buf, body->len, out);
		break;
	case RK_RESULT:
		nm_kind(ss_graph(s), id, kind);
		sb_addf(out, "*Result (%s):*\n\n", kind + (strncmp(kind, "tool_result-", 12) ? 0 : 12));
		add_block("", body->buf, body->len, out);
		break;
	case RK_SUMMARY:
		add_labelled("**Summary of the conversation before:**\n\n", body, out);
		break;
	default:		/* meta user text, attachments, command output */
		nm_kind(ss_graph(s), id, kind);
		sb_addf(out, "*%s, sent to the model:*\n\n", kind);
		add_quoted(body->buf, body->len, out);
		break;
	}
	return 0;
}

/* ---- turns ---- */

static void add_time(const struct idx_rec *r, struct sbuf *out)
{
	char ts[32];

	if (r->ts == IDX_NO_TS) {
		sb_adds(out, "no time");
		return;
	}
	js_time_fmt(r->ts, ts);
	sb_adds(out, ts);
}

/* The usage of rows ids[from..to), each response once. */
static int range_usage(struct session *s, const uint32_t *ids, uint32_t from,
		       uint32_t to, struct us_total *t)
{
	struct us_tally *y = rp_tally_nodes(s, ids + from, to - from);

	if (!y)
		return -ENOMEM;
	us_tally_total(y, t);
	us_tally_free(y);
	return 0;
}

/* The heading of the turn (or compaction) that starts at row i, or goes
 * on there (continued). */
static int add_heading(struct session *s, const uint32_t *ids, uint32_t i,
		       uint32_t end, uint32_t turn, int continued, struct sbuf *out)
{
	const struct idx_rec *r = gr_node_rec(ss_graph(s), ids[i]);
	struct us_total t;
	int rc = range_usage(s, ids, i, end, &t);

	if (rc)
		return rc;
	if (turn)
		sb_addf(out, "## Turn %u%s · ", turn, continued ? ", continued" : "");
	else
		sb_adds(out, "## Compaction · ");
	add_time(r, out);
	if (t.responses) {
		sb_adds(out, " · ");
		us_total_text(&t, out);
	}
	sb_adds(out, "\n\n");
	return 0;
}

/* A command's output (<local-command-stdout> ...) is no prompt; a typed
 * command (<command-name>) is one. Asked only of rows the index flagged
 * as starting with such a tag. */
static int command_output(struct session *s, uint32_t id)
{
	static const char tag[] = "<local-command-std";
	struct sbuf tmp, body;
	int yes;

	sb_init(&tmp);
	sb_init(&body);
	yes = !body_of(s, id, &tmp, &body) && !strncmp(body.buf, tag, sizeof(tag) - 1);
	sb_free(&tmp);
	sb_free(&body);
	return yes;
}

static enum row_kind kind_at(struct session *s, const uint32_t *ids, uint32_t i)
{
	const struct idx_rec *r = gr_node_rec(ss_graph(s), ids[i]);
	enum row_kind k = kind_of(ss_idx(s), r);

	if (k == RK_PROMPT && (r->flags & IDX_F_LOCAL_CMD) && command_output(s, ids[i]))
		return RK_USER;
	return k;
}

static int starts_part(enum row_kind k)
{
	return k == RK_PROMPT || k == RK_BOUNDARY;
}

/* The rows ids[from..n), numbered in turns from the first row. */
static int add_rows(struct session *s, const uint32_t *ids, uint32_t n, uint32_t from,
		    struct sbuf *out, const struct sb_sink *sink)
{
	uint8_t *kinds = malloc(n ? n : 1);
	struct sbuf tmp, body;
	uint32_t i, end, turn = 0;
	int rc = 0;

	if (!kinds)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		kinds[i] = (uint8_t)kind_at(s, ids, i);
	sb_init(&tmp);
	sb_init(&body);
	for (i = 0; i < n && !rc; i++) {
		enum row_kind k = kinds[i];

		turn += k == RK_PROMPT;
		if (i < from)
			continue;
		if (starts_part(k) || (i == from && turn)) {
			for (end = i + 1; end < n && !starts_part(kinds[end]); end++)
				;
			rc = add_heading(s, ids, i, end, k == RK_BOUNDARY ? 0 : turn,
					 !starts_part(k), out);
		}
		if (!rc && k == RK_BOUNDARY) {
			rc = body_of(s, ids[i], &tmp, &body);
			if (!rc)
				add_quoted(body.buf, body.len, out);
		} else if (!rc)
			rc = add_row(s, ids[i], k, &tmp, &body, out);
		if (!rc)
			rc = sb_spill(out, sink);
	}
	sb_free(&tmp);
	sb_free(&body);
	free(kinds);
	return rc;
}

/* "tokens ..." of the whole log, for a transcript without a head. */
static int log_line(struct session *s, struct sbuf *out)
{
	struct us_total t;
	int rc = rp_session_total(s, NULL, 0, &t);

	if (!rc) {
		sb_adds(out, "tokens ");
		us_total_text(&t, out);
	}
	return rc;
}

int tx_render(struct session *s, uint32_t b, const char *head, uint32_t from,
	      const char *parent, struct sbuf *out)
{
	return tx_render_to(s, b, head, from, parent, out, NULL);
}

int tx_render_to(struct session *s, uint32_t b, const char *head, uint32_t from,
		 const char *parent, struct sbuf *out, const struct sb_sink *sink)
{
	const struct br_set *bs = ss_branches(s);
	uint32_t *ids, n;
	struct us_total t;
	int rc;

	if (b >= br_count(bs))
		return -ENOENT;
	rc = br_path(bs, b, &ids, &n);
	if (rc)
		return rc;
	sb_adds(out, "# Transcript\n\n");
	if (head)
		sb_adds(out, head);
	else
		rc = log_line(s, out);
	sb_adds(out, "\n\n");
	if (from > n)
		from = n;
	if (from && parent) {
		const struct idx_rec *r = gr_node_rec(ss_graph(s), ids[from - 1]);

		sb_adds(out, "Rows 1 to ");
		sb_addf(out, "%u are the same as on branch ", from);
		sb_adds(out, parent);
		sb_adds(out, ": read them in [");
		sb_adds(out, parent);
		sb_adds(out, ".md](");
		sb_adds(out, parent);
		sb_addf(out, ".md). This branch leaves it after line %u of the log.\n\n", r->line);
	} else
		from = 0;
	if (!rc)
		rc = add_rows(s, ids, n, from, out, sink);
	if (!rc)
		rc = range_usage(s, ids, 0, n, &t);
	free(ids);
	if (rc)
		return rc;
	sb_adds(out, "---\n\nBranch ");
	sb_adds(out, br_get(bs, b)->name);
	sb_addf(out, "%s: rows %u, responses %llu, ",
		(int)b == ss_current_branch(s) ? " (current)" : "", n,
		(unsigned long long)t.responses);
	us_total_text(&t, out);
	sb_adds(out, ".\n");
	return 0;
}

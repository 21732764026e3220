/* chain: prompts, attachments and assistant rows; see chain.h. */
#include <string.h>

#include "chain.h"
#include "emit.h"
#include "rnd.h"
#include "text.h"

/* ----------------------------------------------------------- user rows */

/* The role each attachment is rendered as. */
static const char *const ATT_ROLE[A_COUNT] = {
	[A_ENV] = "system", [A_MODEL] = "system", [A_DEFERRED] = "system",
	[A_AGENTS] = "system", [A_SKILLS] = "system", [A_AUTO] = "system",
	[A_CONTEXT] = "user", [A_REMOTE] = "user",
};

void set_parent(struct gen *g, const char *uuid)
{
	memcpy(g->parent, uuid, sizeof(g->parent));
}

void rec_prompt(struct gen *g, const char *parent)
{
	uint64_t r = rec_begin(g);

	rnd_uuid(g, g->prompt_uuid);
	rnd_uuid(g, g->prompt_id);
	emit(g, HEAD "\"promptId\":%q,\"type\":\"user\",\"message\":{\"role\":\"user\","
	     "\"content\":%e},\"uuid\":%q,\"timestamp\":%t,\"permissionMode\":%q,"
	     "\"promptSource\":\"sdk\",\"turnOrigin\":\"sdk\",\"turnPosition\":"
	     "{\"promptIndex\":0,\"turnIndex\":%u},%T", parent, g->prompt_id, g->prompt,
	     g->prompt_uuid, g->perm, ++g->turn_in_process);
	rec_end(g, K_USER, r);
	set_parent(g, g->prompt_uuid);
	g->st.prompts++;
	g->ctx_msgs++;
}

/* An attachment row; rendered (escaped text) is NULL for a prompt_snapshot. */
static void rec_attachment(struct gen *g, const struct buf *body, const struct buf *rendered,
			   const char *role, bool beside)
{
	uint64_t r = rec_begin(g);
	char uuid[UUID_LEN + 1];

	rnd_uuid(g, uuid);
	emit(g, HEAD "\"attachment\":%b,\"type\":\"attachment\",\"uuid\":%q,\"timestamp\":%t,",
	     g->parent, body, uuid);
	if (rendered)
		emit(g, "\"rendered\":[{\"content\":%Q}],\"renderedRole\":%q,%s", rendered, role,
		     beside ? "\"renderedBesideToolResult\":true," : "");
	emit(g, "%T");
	rec_end(g, K_ATTACHMENT, r);
	set_parent(g, uuid);
}

void rec_att(struct gen *g, enum att a)
{
	rec_attachment(g, &g->att_body[a], &g->att_text[a], ATT_ROLE[a], a == A_REMOTE);
}

void rec_att_date(struct gen *g)
{
	char day[TS_LEN + 1];

	fmt_ts(g->now, day);
	day[10] = '\0';
	g->body.len = 0;
	bemit(g, &g->body, "{\"type\":\"date\",\"date\":%q}", day);
	g->tmp.len = 0;
	bemit(g, &g->tmp, "<system-reminder>\\nToday's date is %s.\\n</system-reminder>", day);
	rec_attachment(g, &g->body, &g->tmp, "system", false);
}

void rec_att_snapshot(struct gen *g, bool with_tools)
{
	g->body.len = 0;
	bemit(g, &g->body, "{\"type\":\"prompt_snapshot\",\"systemPrompt\":[%b]", &g->sys_parts);
	if (with_tools)
		bemit(g, &g->body, ",\"tools\":%b,\"cliPrefix\":\"" CLI_PREFIX "\","
		      "\"systemTurns\":true,\"toolChangeHeader\":true,\"inlineTools\":false,"
		      "\"keptReminders\":false", &g->tools_json);
	buf_lit(&g->body, ",\"reminderFold\":false,\"echoWireToolInputs\":false,"
		"\"contextRendering\":\"announced\"}");
	rec_attachment(g, &g->body, NULL, NULL, false);
}

void rec_att_file(struct gen *g, const struct pool_file *f)
{
	g->body.len = 0;
	bemit(g, &g->body, "{\"type\":\"file\",\"filename\":" ABS ",\"content\":{\"type\":"
	      "\"text\",\"file\":{\"filePath\":" ABS ",\"content\":%Q,\"numLines\":%u,"
	      "\"startLine\":1,\"totalLines\":%u}},\"displayPath\":%q,\"savedCopyFraming\":"
	      "{\"enveloped\":false}}", f->path, f->path, &f->esc, f->lines, f->lines, f->path);
	g->tmp.len = 0;
	bemit(g, &g->tmp, "<system-reminder>\\nCalled the Read tool with the following input: "
	      "{\\\"file_path\\\":\\\"" PROJECT_DIR "/%s\\\"}\\n</system-reminder>\"},"
	      "{\"content\":\"<system-reminder>\\nResult of calling the Read tool:\\n%b"
	      "\\n</system-reminder>", f->path, &f->numbered);
	rec_attachment(g, &g->body, &g->tmp, "user", false);
}

/* A user row with string content (compaction summary, local-command rows). */
void rec_user_text(struct gen *g, const struct buf *text, const char *flags)
{
	uint64_t r = rec_begin(g);
	char uuid[UUID_LEN + 1];

	rnd_uuid(g, uuid);
	emit(g, HEAD "\"promptId\":%q,\"type\":\"user\",\"message\":{\"role\":\"user\","
	     "\"content\":%E},%s\"uuid\":%q,\"timestamp\":%t,%T", g->parent, g->prompt_id,
	     text, flags, uuid);
	rec_end(g, K_USER, r);
	set_parent(g, uuid);
}

/* ------------------------------------------------------ assistant rows */

/* One API response; its content blocks go to rows of their own. */
void resp_init(struct gen *g, struct response *rs, bool tool_use)
{
	unsigned api_ms = rnd_range(g, 800, 12000);

	rnd_id(g, "msg_01", rs->msg_id);
	rs->stop = tool_use ? "tool_use" : "end_turn";
	rs->block = 0;
	rs->out_tokens = rnd_range(g, 20, 900);
	rs->think_tokens = 0;
	rs->in_tokens = rnd_range(g, 2, 40);
	rs->created = rnd_range(g, 200, 4000);
	rs->cache_read = 20000 + g->ctx_msgs * 900;
	g->now += api_ms;
	g->cost.api_ms += api_ms;
	g->cost.usd5 += rnd_range(g, 100, 900);
	g->cost.in_tok += rs->in_tokens;
	g->cost.cache_tok += rs->cache_read;
	g->cost.out_tok += rs->out_tokens;
	g->ctx_msgs++;
}

void asst_open(struct gen *g, const struct response *rs)
{
	emit(g, HEAD "\"message\":{\"id\":%q,\"type\":\"message\",\"role\":\"assistant\","
	     "\"model\":\"" MODEL_ID "\",\"content\":[", g->parent, rs->msg_id);
}

void asst_close(struct gen *g, uint64_t r, struct response *rs, bool tool_use)
{
	char uuid[UUID_LEN + 1];

	rnd_uuid(g, uuid);
	emit(g, "],\"stop_reason\":%q,\"stop_sequence\":null,\"usage\":{\"input_tokens\":%u,"
	     "\"cache_creation_input_tokens\":%u,\"cache_read_input_tokens\":%u,"
	     "\"output_tokens\":%u,\"output_tokens_details\":{\"thinking_tokens\":0},"
	     "\"server_tool_use\":{\"web_search_requests\":0,\"web_fetch_requests\":0},"
	     "\"service_tier\":\"standard\",\"cache_creation\":{\"ephemeral_1h_input_tokens\":0,"
	     "\"ephemeral_5m_input_tokens\":%u},\"inference_geo\":\"\",\"iterations\":[],"
	     "\"speed\":\"standard\",\"fallback_credit\":null},\"stop_details\":null},",
	     rs->stop, rs->in_tokens, rs->created, rs->cache_read,
	     rs->out_tokens, rs->created);
	if (tool_use)
		emit(g, "\"toolInputStreamMs\":%u,", rnd_range(g, 1, 60));
	emit(g, "\"apiBlockIndex\":%u,\"requestRef\":%q,\"requestedModel\":\"" MODEL_ID "\","
	     "\"promptCacheRequested\":\"5m\",\"type\":\"assistant\",\"uuid\":%q,\"timestamp\":%t,"
	     "\"effort\":\"medium\",\"perTurnEffort\":\"medium\",\"madeBy\":\"model\",%T",
	     rs->block++, g->req, uuid);
	rec_end(g, K_ASSISTANT, r);
	set_parent(g, uuid);
}

void rec_thinking(struct gen *g, struct response *rs)
{
	static const char b64[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	unsigned sig = rnd_range(g, 200, 800);
	uint64_t r = rec_begin(g);

	g->raw.len = 0;
	text_thoughts(g, &g->raw, rnd_size(g, 100, 6));
	rs->think_tokens = (unsigned)(g->raw.len / 4);
	g->cost.think_tok += rs->think_tokens;
	asst_open(g, rs);
	emit(g, "{\"type\":\"thinking\",\"thinking\":%E,\"signature\":\"Eq", &g->raw);
	buf_need(&g->out, sig);
	for (unsigned i = 0; i < sig; i++)
		g->out.p[g->out.len++] = b64[rnd_below(g, 64)];
	emit(g, "\"}");
	asst_close(g, r, rs, false);
}

/* Prose of about size bytes; long answers may quote a few lines of code. */
void rec_text(struct gen *g, struct response *rs, size_t size)
{
	const struct pool_file *f = &g->pool[rnd_below(g, POOL_FILES)];
	uint64_t r = rec_begin(g);

	g->raw.len = 0;
	text_prose(g, &g->raw, size);
	if (size > 1000 && rnd_chance(g, 50)) {
		unsigned n = f->lines < 7 ? f->lines : 7;

		buf_lit(&g->raw, "\n\n```\n");
		buf_mem(&g->raw, f->raw.p, n < f->lines ? f->line_off[n] : f->raw.len);
		buf_lit(&g->raw, "```");
	}
	asst_open(g, rs);
	emit(g, "{\"type\":\"text\",\"text\":%E}", &g->raw);
	asst_close(g, r, rs, false);
}

#include "ctxdir.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "names.h"
#include "report.h"
#include "tree.h"

static const char *const fixed_names[] = { "messages.json", "window.md" };
static const uint64_t fixed_inos[] = { TI_CTX_MESSAGES, TI_CTX_WINDOW };

static void row_name(struct session *s, const struct ctx_row *r, char *out)
{
	if (r->synth == CTX_S_LOG)
		nm_message_file(ss_graph(s), r->id, r->seq, out);
	else
		nm_seq_file(r->seq, r->synth == CTX_S_INTERRUPTED ? "tool_result-interrupted"
								 : "assistant-no_response", out);
}

static uint64_t row_ino(const struct ctx_row *r)
{
	return r->synth == CTX_S_LOG ? TR_INO(TK_MSG, r->id) : TR_INO(TK_CTX, r->seq);
}

uint32_t cd_count(struct session *s)
{
	const struct ctx *x = ss_context(s);

	return (x ? ctx_nsent(x) : 0) + 2;
}

int cd_entry(struct session *s, uint32_t i, char *name, uint64_t *ino)
{
	const struct ctx *x = ss_context(s);
	uint32_t n = x ? ctx_nsent(x) : 0;

	if (i < n) {
		const struct ctx_row *r = ctx_sent_row(x, i + 1);

		row_name(s, r, name);
		*ino = row_ino(r);
		return 0;
	}
	if (i - n >= 2)
		return -ENOENT;
	strcpy(name, fixed_names[i - n]);
	*ino = fixed_inos[i - n];
	return 0;
}

uint64_t cd_lookup(struct session *s, const char *name)
{
	const struct ctx *x = ss_context(s);
	const struct ctx_row *r;
	char check[NM_MAX + 1];
	size_t i;

	for (i = 0; i < 2; i++)
		if (!strcmp(name, fixed_names[i]))
			return fixed_inos[i];
	r = x ? ctx_sent_row(x, nm_message_seq(name)) : NULL;
	if (!r)
		return 0;
	row_name(s, r, check);
	return strcmp(check, name) ? 0 : row_ino(r);
}

/* A row the log does not hold: what it is, then its message. */
static void render_synthetic(const struct ctx *x, const struct ctx_row *r,
			     struct sbuf *out)
{
	sb_adds(out, "uuid: - (not in the log: the resume adds this row)\n");
	if (r->synth == CTX_S_INTERRUPTED)
		sb_adds(out, "type: user (tool_result)\n"
			     "why: a tool call without a result; the resume answers it as interrupted\n");
	else
		sb_adds(out, "type: assistant\n"
			     "why: the last turn is a prompt without a reply; the resume closes it\n");
	sb_addf(out, "message: %d of messages.json (0-based)\n\n", r->msg);
	if (r->msg >= 0)
		ctx_message_json(x, (uint32_t)r->msg, out);
}

struct blob *cd_messages(struct session *s)
{
	const struct ctx *x = ss_context(s);

	return x ? ctx_messages_blob(x) : NULL;
}

int cd_render(struct session *s, uint64_t ino, struct sbuf *out)
{
	const struct ctx *x = ss_context(s);
	const struct ctx_row *r;

	if (!x)
		return -ENOMEM;
	if (ino == TI_CTX_MESSAGES) {
		ctx_messages_json(x, out);
		return 0;
	}
	if (ino == TI_CTX_WINDOW) {
		ss_window_md(s, out);
		rp_window_md(s, out);
		return 0;
	}
	if (TR_KIND(ino) != TK_CTX || !(r = ctx_sent_row(x, TR_KEY(ino))) ||
	    r->synth == CTX_S_LOG)
		return -ENOENT;
	render_synthetic(x, r, out);
	return 0;
}

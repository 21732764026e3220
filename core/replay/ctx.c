/*
 * ctx: the accessors and window.md. The build is ctx_build.c, phase 3
 * ctx_clean.c, phase 4 ctx_render.c, a growth ctx_grow.c (ctx_priv.h
 * gives the order of the module's files).
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

/* ---- accessors ---- */

uint32_t ctx_nmessages(const struct ctx *x) { return x->nmessages; }
uint64_t ctx_tokens(const struct ctx *x) { return x->tokens; }
uint64_t ctx_bytes(const struct ctx *x) { return x->bytes; }
uint32_t ctx_nrows(const struct ctx *x) { return x->nrows; }
const struct ctx_row *ctx_row(const struct ctx *x, uint32_t i) { return &x->rows[i]; }
uint32_t ctx_nsent(const struct ctx *x) { return x->nsent; }

const struct ctx_row *ctx_sent_row(const struct ctx *x, uint32_t seq)
{
	return seq && seq <= x->nsent ? &x->rows[x->sent[seq - 1]] : NULL;
}
const struct ctx_window *ctx_window(const struct ctx *x) { return &x->win; }
uint32_t ctx_attach(const struct ctx *x) { return x->attach; }
uint32_t ctx_nnotes(const struct ctx *x) { return x->nnotes; }
const struct ctx_note *ctx_note(const struct ctx *x, uint32_t i) { return &x->notes[i]; }
uint32_t ctx_nrepairs(const struct ctx *x) { return x->nrepairs; }
const char *ctx_repair(const struct ctx *x, uint32_t i) { return x->repairs[i]; }

uint32_t ctx_meta_types(const struct ctx *x, const uint16_t **atoms,
			const uint32_t **counts)
{
	*atoms = x->meta_atoms;
	*counts = x->meta_counts;
	return x->nmeta;
}

void ctx_messages_json(const struct ctx *x, struct sbuf *out)
{
	sb_add(out, x->mtext->data, x->mtext->len);
}

struct blob *ctx_messages_blob(const struct ctx *x)
{
	blob_ref(x->mtext);
	return x->mtext;
}

/* Message i at depth 0: its text in the array less one step of indent on
 * each of its lines (JSON strings hold no raw newline). */
void ctx_message_json(const struct ctx *x, uint32_t i, struct sbuf *out)
{
	const char *p = x->mtext->data + x->mspan[2 * i];
	const char *end = x->mtext->data + x->mspan[2 * i + 1], *nl;

	while ((nl = memchr(p, '\n', (size_t)(end - p)))) {
		sb_add(out, p, (size_t)(nl + 1 - p));
		p = nl + 1 + 2;
	}
	sb_add(out, p, (size_t)(end - p));
	sb_addc(out, '\n');
}

/* ---- window.md ---- */

static void md_uuid(const struct graph *g, uint32_t id, struct sbuf *out)
{
	if (id)
		idx_id_text(gr_idx(g), id, out);
	else
		sb_adds(out, "(synthetic)");
}

/* The release that wrote the log, and what it means for the window. */
static void md_release(const struct graph *g, struct sbuf *out)
{
	const char *rel = rl_of_log(gr_idx(g));

	if (!*rel)
		return;
	sb_adds(out, "- Written last by Claude Code ");
	sb_add_lines(out, rel);
	sb_adds(out, "\n");
	if (rl_newer(rel))
		sb_adds(out, "- Note: that release is newer than any sessfs was checked against ("
			RL_NEWEST_CHECKED "): the window it sends may differ from this one\n");
	if (rl_older(rel))
		sb_adds(out, "- A release before 2.1 resumes its own way: a tool call killed before its result "
			"is dropped, not repaired (rule 32), and user rows join without the \"\\n\" seam (rule 34)\n");
	if (rl_disk_reminder(rel))
		sb_adds(out, "- Not shown: a 1.0.x request begins with a <system-reminder> block that Claude Code "
			"reads from disk when it sends it (its important-instruction-reminders, and CLAUDE.md "
			"where there is one); the log does not hold it (rule 35)\n");
}

static void md_head(const struct ctx *x, const struct graph *g, struct sbuf *out)
{
	const struct ctx_window *win = &x->win;
	uint32_t i, sent = 0, synth = 0;

	for (i = 0; i < x->nrows; i++) {
		sent += x->rows[i].sent;
		synth += x->rows[i].synth != CTX_S_LOG;
	}
	sb_adds(out, "# Context window\n\n"
		"What Claude Code sends the model when it resumes this session: the\n"
		"`messages` of its first request, before the new prompt.\n\n");
	if (!win->start) {
		sb_adds(out, "The resumed conversation is empty: nothing is sent.\n");
		return;
	}
	sb_adds(out, "- Window starts at: ");
	md_uuid(g, win->start, out);
	sb_addf(out, !win->boundary ? " (first record of the chain, no compaction; record %u of its branch)\n" :
		gr_is_boundary(g, win->boundary) ? " (compact boundary; record %u of its branch)\n" :
		" (compaction summary, written without a boundary as 1.0.x does; record %u of its branch)\n",
		win->dpos);
	sb_addf(out, "- Before it: %u records of its branch; %u records (%u messages) of the resumed chain; %u records summarised away by the last compaction\n",
		win->dpos ? win->dpos - 1 : 0, win->before, win->before_msgs, win->summarised);
	sb_addf(out, "- Sent: %u of the %u rows of the window (%u synthetic), as %u messages\n",
		sent, x->nrows, synth, x->nmessages);
	sb_addf(out, "- Size: about %llu tokens (%llu bytes of JSON / %d)\n",
		(unsigned long long)x->tokens, (unsigned long long)x->bytes,
		CTX_BYTES_PER_TOKEN);
	sb_adds(out, "- A resume appends after: ");
	md_uuid(g, x->attach, out);
	sb_addc(out, '\n');
	md_release(g, out);
}

static const char *type_word(uint8_t t)
{
	switch (t) {
	case IDX_T_USER: return "user";
	case IDX_T_ASSISTANT: return "assistant";
	case IDX_T_ATTACHMENT: return "attachment";
	default: return "system";
	}
}

static void md_rows(const struct ctx *x, const struct graph *g, struct sbuf *out)
{
	static const char *const synth[] = { "", " (interrupted tool result)",
					     " (\"No response requested.\")" };
	uint32_t i;

	if (!x->nrows)
		return;
	sb_adds(out, "\n## Rows of the window\n\n");
	for (i = 0; i < x->nrows; i++) {
		const struct ctx_row *r = &x->rows[i];

		/* 300,000 rows: no format to parse for each */
		if (r->sent) {
			sb_adds(out, "- ");
			sb_add_dec(out, r->seq, 6);
			sb_addc(out, ' ');
		} else {
			sb_adds(out, "-   --   ");
		}
		md_uuid(g, r->id, out);
		sb_addc(out, ' ');
		sb_adds(out, type_word(r->type));
		sb_adds(out, synth[r->synth]);
		sb_adds(out, ": ");
		if (r->sent && r->msg >= 0) {
			sb_adds(out, "message ");
			sb_add_dec(out, (uint64_t)r->msg, 0);
			sb_addc(out, '\n');
		} else if (r->sent) {
			sb_addf(out, "message %d\n", r->msg);
		} else {
			sb_adds(out, "not sent: ");
			sb_adds(out, r->why ? r->why : "(null)");
			sb_addc(out, '\n');
		}
	}
}

static void md_notes(const struct ctx *x, const struct graph *g, uint8_t kind,
		     const char *title, struct sbuf *out)
{
	uint32_t i;
	int any = 0;

	for (i = 0; i < x->nnotes; i++) {
		const struct ctx_note *n = &x->notes[i];

		if (n->kind != kind)
			continue;
		if (!any++)
			sb_addf(out, "\n## %s\n\n", title);
		sb_addf(out, "- line %u, ", n->line);
		if (n->id)
			idx_id_text(gr_idx(g), n->id, out);
		else
			sb_adds(out, "no uuid");
		sb_addf(out, ": %s\n", n->text);
	}
}

void ctx_window_md(const struct ctx *x, const struct graph *g, struct sbuf *out)
{
	uint32_t i;

	md_head(x, g, out);
	md_rows(x, g, out);
	if (x->nrepairs)
		sb_adds(out, "\n## Repairs\n\n");
	for (i = 0; i < x->nrepairs; i++)
		sb_addf(out, "- %s\n", x->repairs[i]);
	md_notes(x, g, CTX_N_LEFT_OUT, "Left out", out);
	md_notes(x, g, CTX_N_INFO, "Moved or relinked", out);
	if (x->nmeta)
		sb_adds(out, "\n## Metadata records (never sent)\n\n");
	for (i = 0; i < x->nmeta; i++) {
		sb_adds(out, "- ");
		sb_add_lines(out, idx_atom(gr_idx(g), x->meta_atoms[i]));
		sb_addf(out, ": %u\n", x->meta_counts[i]);
	}
}

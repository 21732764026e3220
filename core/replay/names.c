#include "names.h"

#include <errno.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int safe_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

size_t nm_safe(const char *s, size_t n, char *out, size_t outsz)
{
	size_t i, len = n < outsz - 1 ? n : outsz - 1;

	for (i = 0; i < len; i++)
		out[i] = safe_char(s[i]) ? s[i] : '_';
	out[len] = '\0';
	if (len == 0 || !strcmp(out, ".") || !strcmp(out, "..")) {
		size_t m = len + 1 < outsz - 1 ? len : outsz - 2;

		memmove(out + 1, out, m);
		out[0] = '_';
		out[m + 1] = '\0';
		len = m + 1;
	}
	return len;
}

/* The tool_use member of block b whose call is useid (0 if none). */
static uint16_t call_in_block(const struct graph *g, uint32_t b, uint64_t useid)
{
	uint32_t m;

	for (m = b ? gr_block_first(g, b) : 0; m; m = gr_block_next(g, m)) {
		const struct idx_rec *mr = gr_node_rec(g, m);

		if (mr->block == IDX_B_TOOL_USE && mr->useid == useid)
			return mr->name;
	}
	return 0;
}

/*
 * The tool a result answers: the tool_use row it hangs off, or in its
 * block. A 1.0.x log chains a parallel batch's results one after the
 * other (each the child of the result before it, the first the child of
 * the last call), so a result outside any block looks up through the
 * results above it for the response whose call it answers.
 */
static uint16_t result_tool(const struct graph *g, uint32_t id)
{
	const struct idx_rec *r = gr_node_rec(g, id);
	uint32_t p = gr_parent(g, id), up = p, steps = 0;
	uint16_t name;

	if (p) {
		const struct idx_rec *pr = gr_node_rec(g, p);

		if (pr->block == IDX_B_TOOL_USE && (!r->useid || pr->useid == r->useid))
			return pr->name;
	}
	if ((name = call_in_block(g, gr_block(g, id), r->useid)) || !r->useid)
		return name;
	while (up && steps++ < NM_RESULTS_UP) {
		const struct idx_rec *ur = gr_node_rec(g, up);

		if (ur->type == IDX_T_ASSISTANT)
			return call_in_block(g, gr_block(g, up), r->useid);
		if (ur->type != IDX_T_USER || ur->block != IDX_B_TOOL_RESULT)
			return 0;
		up = gr_parent(g, up);
	}
	return 0;
}

static void kind_with(const char *prefix, const char *name, char *out)
{
	size_t n = strlen(prefix);

	memcpy(out, prefix, n);
	if (!name || !*name) {
		out[n - 1] = '\0';	/* drop the '-' */
		return;
	}
	nm_safe(name, strlen(name), out + n, NM_KIND_MAX + 1 - n);
}

void nm_kind(const struct graph *g, uint32_t id, char *out)
{
	const struct idx_rec *r = gr_node_rec(g, id);
	const struct idx *ix = gr_idx(g);

	switch (r->type) {
	case IDX_T_USER:
		if (r->flags & IDX_F_COMPACT_SUMMARY)
			strcpy(out, "summary");
		else if (r->block == IDX_B_TOOL_RESULT)
			kind_with("tool_result-", idx_atom(ix, result_tool(g, id)), out);
		else
			strcpy(out, "user");
		return;
	case IDX_T_ASSISTANT:
		if (r->block == IDX_B_TOOL_USE)
			kind_with("tool_use-", idx_atom(ix, r->name), out);
		else if (r->block == IDX_B_THINKING || r->block == IDX_B_REDACTED)
			strcpy(out, "thinking");
		else
			strcpy(out, "assistant");
		return;
	case IDX_T_ATTACHMENT:
		kind_with("attachment-", idx_atom(ix, r->sub), out);
		return;
	case IDX_T_SYSTEM:
		if (gr_is_boundary(g, id))
			strcpy(out, "compact_boundary");
		else
			kind_with("system-", idx_atom(ix, r->sub), out);
		return;
	default:
		strcpy(out, "record");
	}
}

/* Without snprintf(): a listing of a long window names every row twice
 * (its entry, its link's target), and the format's parsing took most of
 * that time. */
void nm_seq_file(uint32_t seq, const char *kind, char *out)
{
	char digits[10];
	size_t nd = 0, n = 0, nk;

	do {
		digits[nd++] = (char)('0' + seq % 10);
		seq /= 10;
	} while (seq);
	while (n + nd < NM_SEQ_DIGITS)
		out[n++] = '0';
	while (nd)
		out[n++] = digits[--nd];
	out[n++] = '-';
	nk = strlen(kind);
	if (nk > NM_MAX - n)
		nk = NM_MAX - n;
	memcpy(out + n, kind, nk);
	n += nk;
	nk = NM_MAX - n < 3 ? NM_MAX - n : 3;
	memcpy(out + n, ".md", nk);
	out[n + nk] = '\0';
}

void nm_message_file(const struct graph *g, uint32_t id, uint32_t seq, char *out)
{
	char kind[NM_KIND_MAX + 1];

	nm_kind(g, id, kind);
	nm_seq_file(seq, kind, out);
}

void nm_harness_file(const struct graph *g, uint32_t id, char *out)
{
	nm_message_file(g, id, gr_node_rec(g, id)->line, out);
}

void nm_slug(const char *title, char *out)
{
	size_t n = 0, word = 0;	/* word: where the last word began */
	int dash = 0, cut = 0;

	for (; title && *title; title++) {
		unsigned char c = (unsigned char)*title;

		if (c >= 'A' && c <= 'Z')
			c = (unsigned char)(c - 'A' + 'a');
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) {
			dash = n > 0;
			continue;
		}
		if (n + (size_t)dash >= NM_SLUG_MAX) {
			cut = !dash;	/* a word goes on past the end */
			break;
		}
		if (dash) {
			out[n++] = '-';
			word = n;
		}
		dash = 0;
		out[n++] = (char)c;
	}
	/* A word the end cuts is left out, when words before it say enough. */
	if (cut && word >= NM_SLUG_MAX / 2)
		n = word - 1;
	out[n] = '\0';
	if (!n)
		strcpy(out, "untitled");
}

uint32_t nm_message_seq(const char *name)
{
	unsigned long v;
	char *end;

	if (name[0] < '0' || name[0] > '9')
		return 0;
	v = strtoul(name, &end, 10);
	if (*end != '-' || end - name < NM_SEQ_DIGITS || v == 0 || v > UINT32_MAX)
		return 0;
	return (uint32_t)v;
}

/* Appends the parts of p[0..n) to out as "/part"...; 0 or a reason. */
static const char *add_parts(const char *p, size_t n, struct sbuf *out)
{
	const char *e = p + n;

	if (memchr(p, '\0', n))
		return "a NUL byte";
	while (p < e) {
		const char *q = memchr(p, '/', (size_t)(e - p));
		size_t len = (size_t)((q ? q : e) - p);

		if (len == 2 && p[0] == '.' && p[1] == '.')
			return "a '..' part";
		if (len > NM_MAX)
			return "a part longer than 255 bytes";
		if (len && !(len == 1 && p[0] == '.')) {
			sb_addc(out, '/');
			sb_add(out, p, len);
			if (out->len > NM_PATH_MAX)
				return "longer than 4096 bytes";
		}
		p = q ? q + 1 : e;
	}
	return NULL;
}

int nm_path(const char *path, size_t n, const char *base, size_t bn,
	    struct sbuf *out, const char **why)
{
	const char *w = NULL;

	sb_reset(out);
	if (!n)
		w = "empty";
	else if (path[0] != '/') {
		if (!base || !bn || base[0] != '/')
			w = "relative, with no folder to resolve it against";
		else
			w = add_parts(base, bn, out);
	}
	if (!w)
		w = add_parts(path, n, out);
	if (!w && !out->len)
		w = "no file name in it";
	*why = w;
	if (w)
		sb_reset(out);
	return w ? -EINVAL : 0;
}

int nm_join(char *out, const char *a, const char *b, const char *c)
{
	size_t na = strlen(a), nb = strlen(b), nc = strlen(c);

	if (na + nb + nc > NM_MAX) {
		*out = '\0';
		return -ENAMETOOLONG;
	}
	memcpy(out, a, na);
	memcpy(out + na, b, nb);
	memcpy(out + na + nb, c, nc + 1);
	return 0;
}

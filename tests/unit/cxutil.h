/*
 * The ctx tests' own helpers: rows written in single-quoted JSON, the
 * fixture that builds a window, and views of its rows, notes and
 * messages. Shared by test_ctx.c (rules 9-23) and test_ctx_hooks.c
 * (rules 24-31). Header-only, like testutil.h; not thread-safe (the
 * views return static buffers).
 */
#ifndef SESSFS_CXUTIL_H
#define SESSFS_CXUTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "tu_fixture.h"
#include "ctx.h"

#define ID(n) tu_id(&t.f, (n))

/* ---- log helpers beyond testutil.h ---- */

/* s with ' turned into "; borrowed until the next call. */
static inline const char *dq(const char *s)
{
	static struct sbuf sb;
	size_t i;

	sb_reset(&sb);
	for (i = 0; s[i]; i++)
		sb_addc(&sb, s[i] == '\'' ? '"' : s[i]);
	return sb.buf;
}

/* A user row with content (JSON) and extra members (both single-quoted). */
static inline void cx_user(struct tu_log *l, int n, int parent, const char *content,
		    const char *extra)
{
	struct sbuf x;

	sb_init(&x);
	sb_addf(&x, "\"message\":{\"role\":\"user\",\"content\":%s}", dq(content));
	if (extra && *extra)
		sb_addf(&x, ",%s", dq(extra));
	tu_row(l, "user", n, parent, x.buf);
	sb_free(&x);
}

/* An assistant row of response msgid with content (JSON), and extra. */
static inline void cx_asst(struct tu_log *l, int n, int parent, const char *msgid,
		    const char *content, const char *extra)
{
	struct sbuf x;

	sb_init(&x);
	sb_addf(&x, "\"message\":{\"id\":\"%s\",\"type\":\"message\",\"role\":\"assistant\","
		"\"model\":\"claude-opus-5-5\",\"content\":%s}", msgid, dq(content));
	if (extra && *extra)
		sb_addf(&x, ",%s", dq(extra));
	tu_row(l, "assistant", n, parent, x.buf);
	sb_free(&x);
}

/* An attachment of type atype, rendered as parts (a JSON array), for
 * role ("user", "system", or NULL for none). A file gets its payload. */
static inline void cx_att(struct tu_log *l, int n, int parent, const char *role,
		   const char *atype, const char *parts)
{
	struct sbuf x;

	sb_init(&x);
	sb_addf(&x, "\"attachment\":{\"type\":\"%s\"%s},\"rendered\":%s", atype,
		strcmp(atype, "file") ? "" : ",\"filename\":\"a.py\",\"content\":{\"type\":\"text\"}",
		dq(parts));
	if (role)
		sb_addf(&x, ",\"renderedRole\":\"%s\"", role);
	tu_row(l, "attachment", n, parent, x.buf);
	sb_free(&x);
}

/* An api-request record with the effort (rule 23). */
static inline void cx_effort(struct tu_log *l, const char *effort)
{
	sb_addf(&l->sb, "{\"type\":\"api-request\",\"params\":{\"model\":\"claude-opus-5-5\","
		"\"output_config\":{\"effort\":\"%s\"}},\"sessionId\":\"" TU_SID "\"}\n", effort);
}

/* ---- fixture ---- */

struct cx {
	struct tu_fx f;
	struct ctx *x;
	cJSON *msgs;
};

static inline void cx_load(struct cx *t, const struct tu_log *l)
{
	struct sbuf sb;

	tu_load_log(&t->f, l);
	assert_int_equal(ctx_build(t->f.g, t->f.c, t->f.lf, &t->x), 0);
	sb_init(&sb);
	ctx_messages_json(t->x, &sb);
	t->msgs = cJSON_Parse(sb.buf);
	assert_non_null(t->msgs);
	assert_int_equal(cJSON_GetArraySize(t->msgs), ctx_nmessages(t->x));
	sb_free(&sb);
}

static inline void cx_unload(struct cx *t)
{
	cJSON_Delete(t->msgs);
	ctx_free(t->x);
	tu_unload(&t->f);
}

/* The messages equal want (single-quoted JSON). */
static inline void expect_messages(struct cx *t, const char *want)
{
	cJSON *w = cJSON_Parse(dq(want));
	int same;

	assert_non_null(w);
	same = cJSON_Compare(w, t->msgs, 1);
	if (!same) {
		char *a = cJSON_PrintUnformatted(w), *b = cJSON_PrintUnformatted(t->msgs);

		printf("expected %s\n     got %s\n", a, b);
		free(a);
		free(b);
	}
	cJSON_Delete(w);
	assert_true(same);
}

/* The rows of the window as "n:seq:msg" (n the row number, s for a
 * synthetic row; seq and msg "-" when not sent), space-separated. */
static inline const char *rows(struct cx *t)
{
	static struct sbuf sb;
	uint32_t i;

	sb_reset(&sb);
	for (i = 0; i < ctx_nrows(t->x); i++) {
		const struct ctx_row *r = ctx_row(t->x, i);

		if (i)
			sb_addc(&sb, ' ');
		if (r->synth)
			sb_adds(&sb, r->synth == CTX_S_INTERRUPTED ? "i" : "n");
		else
			sb_addf(&sb, "%d", tu_num(&t->f, r->id));
		if (r->sent)
			sb_addf(&sb, ":%u:%d", r->seq, r->msg);
		else
			sb_adds(&sb, ":-:-");
	}
	return sb.buf;
}

/* The reason row n of the window is not sent (NULL if sent or absent). */
static inline const char *why(struct cx *t, int n)
{
	uint32_t i;

	for (i = 0; i < ctx_nrows(t->x); i++)
		if (ctx_row(t->x, i)->id == tu_id(&t->f, n))
			return ctx_row(t->x, i)->why;
	return NULL;
}

/* The text of the note on row n (kind), or NULL. */
static inline const char *note(struct cx *t, int n, uint8_t kind)
{
	uint32_t i;

	for (i = 0; i < ctx_nnotes(t->x); i++)
		if (ctx_note(t->x, i)->id == tu_id(&t->f, n) && ctx_note(t->x, i)->kind == kind)
			return ctx_note(t->x, i)->text;
	return NULL;
}

static inline int has_repair(struct cx *t, const char *part)
{
	uint32_t i;

	for (i = 0; i < ctx_nrepairs(t->x); i++)
		if (strstr(ctx_repair(t->x, i), part))
			return 1;
	return 0;
}

#define TOOL_USE(id) "{'type':'tool_use','id':'" id "','name':'Bash','input':{'command':'ls'}}"
#define RESULT(id) "{'tool_use_id':'" id "','type':'tool_result','content':'ok','is_error':false}"
#define INTERRUPTED(id)                                                                   \
	"{'type':'tool_result','content':'[Tool call interrupted: the session ended before " \
	"this call\\u0027s result was recorded, so its outcome is unknown. Check whether it " \
	"took effect before relying on it or running it again.]','is_error':true,"           \
	"'tool_use_id':'" id "'}"
#define NO_RESPONSE "{'role':'assistant','content':[{'type':'text','text':'No response requested.'}]}"

#endif

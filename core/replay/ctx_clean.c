/*
 * ctx_clean: phase 3 of the context (rules 9-14, §7 steps 1, 3-6). Part of
 * the ctx module (ctx.h); see ctx_priv.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctx_priv.h"
#include "arr.h"
#include "jscan.h"

/* §7 step 5: attachment types that only the UI shows. */
static const char *const ui_only[] = {
	"compaction_reminder", "companion_intro", "echo_activities",
	"pen_mode_enter", "pen_mode_exit", "verify_plan_reminder", "fold_nudge",
	"context_tip", "audio_transcript", "new_file", "new_directory",
};

/* Rule 14: a user row starting with one of these is local-command output. */
static const char *const local_cmd[] = {
	"<local-command-stdout>", "<local-command-stderr>", "<command-name>",
	"<local-command-caveat>",
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static int is_msg(const struct ctx_wrow *r)
{
	return r->type == IDX_T_USER || r->type == IDX_T_ASSISTANT;
}

static const char *type_name(uint8_t t)
{
	return t == IDX_T_USER ? "user" : "assistant";
}

/* ---- reading the window back ---- */

static int starts_with(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

static int in_list(const char *s, const char *const *l, size_t n)
{
	size_t i;

	for (i = 0; s && i < n; i++)	/* most keys differ in their first byte */
		if (*s == *l[i] && !strcmp(s, l[i]))
			return 1;
	return 0;
}

/* §5.2 step 3: the loader's repair of a user/assistant row, on the parsed
 * record (the index made the same decision from the raw line). */
static int repair_row(struct ctx_work *w, struct ctx_wrow *r)
{
	cJSON *msg = r->m;
	cJSON *c = (cJSON *)ctx_jget(msg, "content"), *b, *next;
	const char *t = type_name(r->type);

	if (!cJSON_IsObject(msg))
		return ctx_leave_out(w, r, "dropped: %s row without a message object", t);
	if (cJSON_IsString(c)) {
		if (r->type == IDX_T_USER)
			return 0;
		if (ctx_blank(c->valuestring))
			return ctx_leave_out(w, r, "dropped: assistant row with blank string content");
		b = cJSON_CreateArray();
		if (!b || !cJSON_AddItemToArray(b, ctx_text_block(c->valuestring)) ||
		    !cJSON_ReplaceItemInObjectCaseSensitive(msg, "content", b)) {
			cJSON_Delete(b);
			return -ENOMEM;
		}
		return 0;
	}
	if (!cJSON_IsArray(c))
		return ctx_leave_out(w, r, "dropped: %s row without content", t);
	for (b = c->child; b; b = next) {
		next = b->next;
		if (!cJSON_IsObject(b) || !ctx_jstr(b, "type"))
			cJSON_Delete(cJSON_DetachItemViaPointer(c, b));
	}
	if (!c->child)
		return ctx_leave_out(w, r, "dropped: %s row with no valid content block", t);
	return 0;
}

/* The top-level fields of a record that phases 3 and 4 read: the rest
 * (uuids, times, cwd, version ...) goes as soon as it is parsed, so a
 * window of many rows holds only what it renders. */
static const char *const kept_fields[] = {
	"type", "subtype", "message", "attachment", "rendered", "renderedRole",
	"retractedMessageUuids", "origin", "humanTurn", "effort", "perTurnEffort",
	"content", "hookText", "hookTextLead", "ownNote", "hostsOwnTurn",
};

/* ... and of its message object (usage, model, stop_reason ... go). */
static const char *const kept_message_fields[] = { "id", "content" };

static void prune(cJSON *o, const char *const *keep, size_t n)
{
	cJSON *f, *next;

	for (f = o->child; f; f = next) {
		next = f->next;
		if (!in_list(f->string, keep, n))
			cJSON_Delete(cJSON_DetachItemViaPointer(o, f));
	}
}

/* Whether a member is copied for parsing: a kept key, or one written with
 * escapes (prune() decides those, on the decoded key). */
static int copied(const struct js_str *k, const char *const *keep, size_t n)
{
	size_t i;

	if (k->escaped)
		return 1;
	if (!k->n)
		return 0;	/* no kept key is empty */
	for (i = 0; i < n; i++)
		if (keep[i][0] == k->p[0] && strlen(keep[i]) == k->n &&
		    !memcmp(k->p, keep[i], k->n))
			return 1;
	return 0;
}

/*
 * Appends the object at p (its members in keep only, the message's in
 * kept_message_fields) to out, so that cJSON builds no tree for what
 * prune() would drop (a tool result's copy in toolUseResult, uuids,
 * times ...). Returns the end of the object, or NULL when the text is not
 * an object the scanner can walk (the row is then parsed whole).
 */
static const char *copy_kept(const char *p, const char *e, const char *const *keep, size_t n,
			     struct sbuf *out)
{
	struct js_iter it;
	struct js_str k;
	const char *v, *end;
	int rc, first = 1;

	if (js_obj_begin(&it, p, e))
		return NULL;
	sb_addc(out, '{');
	while ((rc = js_obj_next(&it, &k, &v)) == 1) {
		int message = keep == kept_fields && !k.escaped && k.n == 7 &&
			      !memcmp(k.p, "message", 7) && *v == '{';

		if (!copied(&k, keep, n)) {
			end = js_value(v, e);
		} else {
			if (!first)
				sb_addc(out, ',');
			first = 0;
			sb_addc(out, '"');
			sb_add(out, k.p, k.n);
			sb_adds(out, "\":");
			end = message ? copy_kept(v, e, kept_message_fields,
						  NELEM(kept_message_fields), out)
				      : js_value(v, e);
			if (end && !message)
				sb_add(out, v, (size_t)(end - v));
		}
		if (!end)
			return NULL;
		it.p = end;
	}
	if (rc < 0)
		return NULL;
	sb_addc(out, '}');
	return it.p;
}

/* A window row read back and parsed, with only what phases 3 and 4 read
 * (NULL when it cannot be read or parsed). tmp is scratch. */
static cJSON *parse_row(const struct ctx_work *w, struct lf_ahead *a, uint32_t id,
			struct sbuf *tmp)
{
	const struct idx_rec *ir = gr_node_rec(w->g, id);
	char *p = lf_ahead_get(w->lf, a, ir), *e = p ? p + ir->len : NULL;
	const char *q;
	cJSON *rec;

	if (!p)
		return NULL;
	while (p < e && *p == '\0')
		p++;
	q = js_ws(p, e);
	sb_reset(tmp);
	if (q < e && *q == '{' && copy_kept(q, e, kept_fields, NELEM(kept_fields), tmp))
		rec = lf_parse_in_place(tmp->buf, tmp->len);
	else
		rec = lf_parse_in_place(p, (size_t)(e - p));
	if (!cJSON_IsObject(rec))
		return rec;
	prune(rec, kept_fields, NELEM(kept_fields));
	if (cJSON_IsObject(ctx_jget(rec, "message")))
		prune((cJSON *)ctx_jget(rec, "message"), kept_message_fields,
		      NELEM(kept_message_fields));
	return rec;
}

/* Takes the row's parsed record (rec, owned; parse_row()). */
static int load_row(struct ctx_work *w, uint32_t id, cJSON *rec)
{
	const struct idx_rec *ir = gr_node_rec(w->g, id);
	struct ctx_wrow *r = calloc(1, sizeof(*r));
	const char *mid;

	if (!r || ctx_rows_insert(w, w->nrows, r)) {
		free(r);
		cJSON_Delete(rec);
		return -ENOMEM;
	}
	r->id = id;
	r->line = ir->line;
	r->type = ir->type;
	r->sent = 1;
	r->msg = -1;
	r->rec = rec;
	r->m = (cJSON *)ctx_jget(rec, "message");
	if (!cJSON_IsObject(r->rec))
		return ctx_leave_out(w, r, "record could not be read back (changed on disk, or nested too deep)");
	if (!is_msg(r))
		return 0;
	if (repair_row(w, r))
		return -ENOMEM;
	mid = ctx_jstr(r->m, "id");
	if (r->type == IDX_T_ASSISTANT && mid && *mid)
		r->msgid = mid;
	return 0;
}

int ctx_load_window(struct ctx_work *w)
{
	struct lf_ahead a = { 0 };
	struct sbuf tmp;
	uint32_t i;
	int rc = 0;

	sb_init(&tmp);
	for (i = w->c->window + w->skip; i < w->c->n && !rc; i++)
		rc = load_row(w, w->c->ids[i], parse_row(w, &a, w->c->ids[i], &tmp));
	sb_free(&tmp);
	lf_ahead_free(&a);
	return rc;
}

/* ---- rules 9-10: rows that are not sent ---- */

/* §7 step 1: the payload check of an attachment. */
static int attachment_valid(const cJSON *a)
{
	const char *t = ctx_jstr(a, "type");
	const cJSON *c = ctx_jget(a, "content");

	if (!cJSON_IsObject(a))
		return 0;
	if (t && (!strcmp(t, "file") || !strcmp(t, "already_read_file")) &&
	    !cJSON_IsObject(c))
		return 0;
	if (t && !strcmp(t, "hook_success") && !cJSON_IsString(c))
		return 0;
	return 1;
}

/* The attachment has a rendered text for the model (rule 16/22). */
static int has_rendered(const cJSON *rec)
{
	const cJSON *p;

	cJSON_ArrayForEach(p, ctx_jget(rec, "rendered"))
		if (cJSON_IsString(p) || cJSON_IsString(ctx_jget(p, "content")))
			return 1;
	return 0;
}

static int attachment_reason(struct ctx_work *w, struct ctx_wrow *r)
{
	const cJSON *a = ctx_jget(r->rec, "attachment");
	const char *at = ctx_jstr(a, "type"), *role = ctx_jstr(r->rec, "renderedRole");

	if (!attachment_valid(a))
		return ctx_leave_out(w, r, "attachment with an invalid payload (transcript partially corrupt)");
	if (ctx_is_human_queued(r)) {
		cJSON *c = ctx_text_row_content(r);

		cJSON_Delete(c);
		return c ? 0 : ctx_leave_out(w, r, "queued prompt without text");
	}
	if (in_list(at, ui_only, NELEM(ui_only)))
		return ctx_leave_out(w, r, "attachment %s: shown in the UI only", at);
	if (!role || (strcmp(role, "user") && strcmp(role, "system")) ||
	    !has_rendered(r->rec))
		return ctx_leave_out(w, r, "attachment %s: has no rendered text for the model",
				     at ? at : "?");
	return 0;
}

/* §7 step 3: the prefixes named by retractedMessageUuids. */
struct prefixes {
	const char **v;
	uint32_t n, cap;
};

static int collect_retracted(struct ctx_work *w, struct prefixes *p)
{
	uint32_t i;

	for (i = 0; i < w->nrows; i++) {
		const struct ctx_wrow *r = w->rows[i];
		const char *sub = ctx_jstr(r->rec, "subtype");
		const cJSON *u;

		if (!r->rec || !(is_msg(r) || (r->type == IDX_T_SYSTEM && sub &&
					       !strcmp(sub, "model_refusal_fallback"))))
			continue;
		cJSON_ArrayForEach(u, ctx_jget(r->rec, "retractedMessageUuids")) {
			if (!cJSON_IsString(u) || !*u->valuestring)
				continue;
			if (arr_grow(&p->v, &p->cap, p->n + 1, sizeof(*p->v), 4))
				return -ENOMEM;
			p->v[p->n++] = u->valuestring;
		}
	}
	return 0;
}

static int retracted(struct ctx_work *w, const struct ctx_wrow *r,
		     const struct prefixes *p)
{
	char buf[IDX_UUID_MAX + 1];
	uint32_t i;

	if (!p->n)
		return 0;
	idx_id_buf(w->ix, r->id, buf);
	for (i = 0; i < p->n; i++)
		if (starts_with(buf, p->v[i]))
			return 1;
	return 0;
}

static int unsent_reason(struct ctx_work *w, struct ctx_wrow *r,
			 const struct prefixes *p)
{
	const char *sub = ctx_jstr(r->rec, "subtype");

	if (gr_is_boundary(w->g, r->id))
		return ctx_leave_out(w, r, "compact boundary: marks where the window starts, not sent");
	if (r->type == IDX_T_SYSTEM && !ctx_is_local_command(r))
		return ctx_leave_out(w, r, "system row (%s): shown in the terminal only",
				     sub ? sub : "?");
	if (retracted(w, r, p))
		return ctx_leave_out(w, r, "retracted by a later row (retractedMessageUuids)");
	if (r->type == IDX_T_ATTACHMENT)
		return attachment_reason(w, r);
	return 0;
}

static int drop_unsent(struct ctx_work *w)
{
	struct prefixes p = { 0 };
	uint32_t i;
	int rc = collect_retracted(w, &p);

	w->retracts = p.n > 0;
	for (i = 0; i < w->nrows && !rc; i++)
		if (w->rows[i]->sent)
			rc = unsent_reason(w, w->rows[i], &p);
	free(p.v);
	return rc;
}

/* ---- §7 steps 4, 6 and rule 11: row repairs ---- */

/* §7 step 6: text blocks whose text is not a string go. */
static int drop_bad_text_blocks(struct ctx_work *w)
{
	uint32_t i;

	for (i = 0; i < w->nrows; i++) {
		struct ctx_wrow *r = w->rows[i];
		cJSON *c = ctx_content(r), *b, *next;
		int removed = 0;

		if (!r->sent || !is_msg(r) || !cJSON_IsArray(c))
			continue;
		for (b = c->child; b; b = next) {
			next = b->next;
			if (ctx_is_block(b, "text") && !cJSON_IsString(ctx_jget(b, "text"))) {
				cJSON_Delete(cJSON_DetachItemViaPointer(c, b));
				removed = 1;
			}
		}
		if (removed && !c->child &&
		    ctx_leave_out(w, r, "only broken text blocks: dropped"))
			return -ENOMEM;
	}
	return 0;
}

/* §7 step 4: an assistant row without message.id is never merged. */
static void give_fresh_ids(struct ctx_work *w)
{
	uint32_t i, k = w->kstart;

	for (i = 0; i < w->nrows; i++) {
		struct ctx_wrow *r = w->rows[i];

		r->kcum = k + r->sent;
		if (!r->sent)
			continue;
		if (r->type == IDX_T_ASSISTANT && !r->msgid) {
			snprintf(r->fresh, sizeof(r->fresh), "sessfs-fresh-id-%u", k);
			r->msgid = r->fresh;
		}
		k++;
	}
}

static int all_blank(const cJSON *c)
{
	const cJSON *b;

	cJSON_ArrayForEach(b, c)
		if (!ctx_blank_text_block(b))
			return 0;
	return 1;
}

static int thinking_only(const cJSON *c)
{
	const cJSON *b;

	cJSON_ArrayForEach(b, c)
		if (!ctx_is_block(b, "thinking") && !ctx_is_block(b, "redacted_thinking"))
			return 0;
	return 1;
}

/* A response (message.id) with a row that is not thinking-only. */
struct resp_mark {
	UT_hash_handle hh;
	const char *msgid;
};

static void marks_free(struct resp_mark **set)
{
	struct resp_mark *m, *t;

	HASH_ITER(hh, *set, m, t) {
		HASH_DEL(*set, m);
		free(m);
	}
}

static int mark_contentful(struct ctx_work *w, struct resp_mark **set)
{
	uint32_t i;

	for (i = 0; i < w->nrows; i++) {
		const struct ctx_wrow *r = w->rows[i];
		struct resp_mark *m;

		if (!r->sent || r->type != IDX_T_ASSISTANT || thinking_only(ctx_content(r)))
			continue;
		HASH_FIND_STR(*set, r->msgid, m);
		if (m)
			continue;
		if (!(m = calloc(1, sizeof(*m))))
			return -ENOMEM;
		m->msgid = r->msgid;
		HASH_ADD_KEYPTR(hh, *set, m->msgid, strlen(m->msgid), m);
	}
	return 0;
}

/* One pass of rule 11, judged on the rows as they were before it.
 * Returns 1 if a row went, 0 if none, or -ENOMEM. */
static int blank_pass(struct ctx_work *w)
{
	struct resp_mark *set = NULL, *m;
	uint8_t *drop = calloc(w->nrows + 1, 1);
	uint32_t i;
	int rc = drop ? mark_contentful(w, &set) : -ENOMEM, changed = 0;

	for (i = 0; i < w->nrows && !rc; i++) {
		const struct ctx_wrow *r = w->rows[i];
		const cJSON *c = ctx_content(r);

		if (!r->sent || r->type != IDX_T_ASSISTANT)
			continue;
		if (all_blank(c)) {
			drop[i] = 1;
		} else if (thinking_only(c)) {
			HASH_FIND_STR(set, r->msgid, m);
			drop[i] = !m ? 2 : 0;
		}
	}
	for (i = 0; i < w->nrows && !rc; i++) {
		if (!drop[i])
			continue;
		changed = 1;
		rc = ctx_leave_out(w, w->rows[i], drop[i] == 1 ?
				   "assistant row with whitespace-only text" :
				   "thinking-only row without content");
	}
	marks_free(&set);
	free(drop);
	return rc ? rc : changed;
}

/* Rule 11, repeated until nothing changes. */
static int drop_blank_rows(struct ctx_work *w)
{
	int rc;

	while ((rc = blank_pass(w)) == 1)
		;
	return rc;
}

/* ---- rule 12: interrupted tool calls ---- */

/* A set of tool_use ids (a NULL id is kept as a flag). */
struct idset {
	struct resp_mark *set;
	int has_null;
};

static int idset_add(struct idset *s, const char *id)
{
	struct resp_mark *m;

	if (!id) {
		s->has_null = 1;
		return 0;
	}
	HASH_FIND_STR(s->set, id, m);
	if (m)
		return 0;
	if (!(m = calloc(1, sizeof(*m))))
		return -ENOMEM;
	m->msgid = id;
	HASH_ADD_KEYPTR(hh, s->set, m->msgid, strlen(m->msgid), m);
	return 0;
}

static int idset_has(const struct idset *s, const char *id)
{
	struct resp_mark *m;

	if (!id)
		return s->has_null;
	HASH_FIND_STR(s->set, id, m);
	return m != NULL;
}

/* The tool_use_id of a tool_result block / id of a tool_use block. */
static const char *block_ref(const cJSON *b, const char *kind)
{
	return ctx_jstr(b, !strcmp(kind, "tool_use") ? "id" : "tool_use_id");
}

/* Adds the ids of r's blocks of the kind (tool_use for an assistant row,
 * tool_result for a user row with list content). */
static int add_refs(struct idset *s, const struct ctx_wrow *r, const char *kind)
{
	const cJSON *b;
	int rc = 0;

	if (!r->sent || (r->type == IDX_T_USER) != !strcmp(kind, "tool_result") ||
	    !is_msg(r) || !cJSON_IsArray(ctx_content(r)))
		return 0;
	cJSON_ArrayForEach(b, ctx_content(r))
		if (!rc && ctx_is_block(b, kind))
			rc = idset_add(s, block_ref(b, kind));
	return rc;
}

static int refs_meet(const struct ctx_wrow *r, const char *kind, const struct idset *s)
{
	const cJSON *b;

	if (!r->sent || (r->type == IDX_T_USER) != !strcmp(kind, "tool_result") ||
	    !is_msg(r) || !cJSON_IsArray(ctx_content(r)))
		return 0;
	cJSON_ArrayForEach(b, ctx_content(r))
		if (ctx_is_block(b, kind) && idset_has(s, block_ref(b, kind)))
			return 1;
	return 0;
}

static void idset_free(struct idset *s)
{
	marks_free(&s->set);
	s->has_null = 0;
}

/* Index in w->rows of the last row of the response's block: its rows and
 * the rows answering any of its calls (-1 if none). */
static int64_t block_end(struct ctx_work *w, const char *mid, int *err)
{
	struct idset calls = { 0 };
	int64_t last = -1;
	uint32_t i;

	for (i = 0; i < w->nrows && !*err; i++)
		if (w->rows[i]->type == IDX_T_ASSISTANT && w->rows[i]->sent &&
		    !strcmp(w->rows[i]->msgid, mid))
			*err = add_refs(&calls, w->rows[i], "tool_use");
	for (i = 0; i < w->nrows && !*err; i++) {
		const struct ctx_wrow *r = w->rows[i];

		if (!r->sent)
			continue;
		if ((r->type == IDX_T_ASSISTANT && !strcmp(r->msgid, mid)) ||
		    refs_meet(r, "tool_result", &calls))
			last = i;
	}
	idset_free(&calls);
	return last;
}

/* A new synthetic row of the type whose message holds content; takes
 * ownership of content (freed on failure). */
static struct ctx_wrow *synthetic_row(uint8_t type, uint8_t synth, cJSON *content)
{
	const char *role = type == IDX_T_USER ? "user" : "assistant";
	struct ctx_wrow *r = calloc(1, sizeof(*r));
	cJSON *rec = cJSON_CreateObject(), *msg = cJSON_CreateObject();
	int ok = r && rec && msg && cJSON_AddStringToObject(rec, "type", role) &&
		 cJSON_AddStringToObject(msg, "role", role) &&
		 cJSON_AddItemToObject(msg, "content", content);

	if (!ok)
		cJSON_Delete(content);	/* msg does not hold it */
	if (!ok || !cJSON_AddItemToObject(rec, "message", msg)) {
		cJSON_Delete(msg);
		cJSON_Delete(rec);
		free(r);
		return NULL;
	}
	r->rec = rec;
	r->m = msg;
	r->type = type;
	r->synth = synth;
	r->sent = 1;
	r->msg = -1;
	return r;
}

/* One unanswered call: its id (may be NULL) and the row holding it. */
struct call {
	const char *id;
	struct ctx_wrow *row;
};

static cJSON *interrupted_blocks(const struct call *calls, uint32_t n)
{
	cJSON *arr = cJSON_CreateArray(), *b;
	uint32_t i;

	for (i = 0; arr && i < n; i++) {
		b = cJSON_CreateObject();
		if (!b || !cJSON_AddItemToArray(arr, b) ||
		    !cJSON_AddStringToObject(b, "type", "tool_result") ||
		    !cJSON_AddStringToObject(b, "content", CTX_INTERRUPTED_TEXT) ||
		    !cJSON_AddTrueToObject(b, "is_error") ||
		    !(calls[i].id ? cJSON_AddStringToObject(b, "tool_use_id", calls[i].id)
				  : cJSON_AddNullToObject(b, "tool_use_id"))) {
			cJSON_Delete(arr);
			return NULL;
		}
	}
	return arr;
}

static int note_interrupted(struct ctx_work *w, const struct call *calls, uint32_t n)
{
	struct sbuf ids;
	char buf[IDX_UUID_MAX + 1];
	uint32_t i;
	int rc;

	sb_init(&ids);
	for (i = 0; i < n; i++) {
		if (i)
			sb_adds(&ids, ", ");
		sb_adds(&ids, calls[i].id ? calls[i].id : "None");
	}
	idx_id_buf(w->ix, calls[0].row->id, buf);
	rc = ctx_repair_add(w->x, "synthetic tool_result (is_error) for unanswered call(s) %s of assistant row %.8s",
			    ids.buf, buf);
	sb_free(&ids);
	return rc;
}

/* Puts one synthetic result row for the n unanswered calls of response
 * mid after the end of its block. */
static int add_interrupted(struct ctx_work *w, const char *mid,
			   const struct call *calls, uint32_t n)
{
	struct ctx_wrow *r;
	cJSON *blocks = interrupted_blocks(calls, n);
	int err = 0;
	int64_t end;

	if (!blocks || !(r = synthetic_row(IDX_T_USER, CTX_S_INTERRUPTED, blocks)))
		return -ENOMEM;
	end = block_end(w, mid, &err);
	if (err || ctx_rows_insert(w, (uint32_t)(end + 1), r)) {
		cJSON_Delete(r->rec);
		free(r);
		return -ENOMEM;
	}
	if (!w->holder)
		w->holder = calls[0].row->id;
	return note_interrupted(w, calls, n);
}

/* The unanswered calls, in row order, with the response of each. */
static int unanswered(struct ctx_work *w, struct call **out, uint32_t *nout)
{
	struct idset answered = { 0 };
	uint32_t i, cap = 0;
	int rc = 0;

	*out = NULL;
	*nout = 0;
	for (i = 0; i < w->nrows && !rc; i++)
		rc = add_refs(&answered, w->rows[i], "tool_result");
	for (i = 0; i < w->nrows && !rc; i++) {
		struct ctx_wrow *r = w->rows[i];
		const cJSON *b;

		if (!r->sent || r->type != IDX_T_ASSISTANT)
			continue;
		cJSON_ArrayForEach(b, ctx_content(r)) {
			if (!ctx_is_block(b, "tool_use") || idset_has(&answered, ctx_jstr(b, "id")))
				continue;
			if (arr_grow(out, &cap, *nout + 1, sizeof(**out), 4)) {
				rc = -ENOMEM;
				break;
			}
			(*out)[(*nout)++] = (struct call){ ctx_jstr(b, "id"), r };
		}
	}
	idset_free(&answered);
	return rc;
}

/* Rule 12: each response with unanswered calls gets one synthetic row of
 * is_error results, in call order, after its real results. */
static int add_interrupted_results(struct ctx_work *w)
{
	struct call *calls, *group = NULL;
	uint32_t n, i, j, k;
	uint8_t *done;
	int rc = unanswered(w, &calls, &n);

	done = rc || !n ? NULL : calloc(n, 1);
	group = rc || !n ? NULL : malloc(n * sizeof(*group));
	if (!rc && n && (!done || !group))
		rc = -ENOMEM;
	for (i = 0; i < n && !rc; i++) {
		const char *mid = calls[i].row->msgid;

		calls[i].row->unanswered = 1;
		if (done[i])
			continue;
		for (j = i, k = 0; j < n; j++)
			if (!done[j] && !strcmp(calls[j].row->msgid, mid)) {
				done[j] = 1;
				group[k++] = calls[j];
			}
		rc = add_interrupted(w, mid, group, k);
	}
	free(group);
	free(done);
	free(calls);
	return rc;
}

/*
 * Rule 32: releases before 2.1 drop the calls no result answers instead:
 * each such tool_use block goes, and a row left with no block is not
 * sent (the resume continues from the last row it keeps).
 */
static int drop_unanswered_calls(struct ctx_work *w)
{
	struct call *calls;
	uint32_t n, i;
	int rc = unanswered(w, &calls, &n);

	for (i = 0; i < n && !rc; i++) {
		struct ctx_wrow *r = calls[i].row;
		cJSON *c = ctx_content(r), *b;
		char buf[IDX_UUID_MAX + 1];

		if (idx_id_buf(w->ix, r->id, buf) > 8)
			buf[8] = '\0';
		rc = ctx_repair_add(w->x, "tool call %s of assistant row %s dropped: no result answers it (releases before 2.1 drop such calls on resume)",
				    calls[i].id ? calls[i].id : "None", buf);
		for (b = c ? c->child : NULL; b; b = b->next)
			if (ctx_is_block(b, "tool_use") && ctx_jstr(b, "id") == calls[i].id) {
				cJSON_Delete(cJSON_DetachItemViaPointer(c, b));
				break;
			}
		if (!rc && c && !c->child && r->sent)
			rc = ctx_leave_out(w, r, "dropped: it held only tool calls no result answers (a release before 2.1 resumes without them)");
	}
	free(calls);
	return rc;
}

/* ---- rule 14: an unanswered user turn ---- */

static const char *first_text(const cJSON *c)
{
	const cJSON *b;

	if (cJSON_IsString(c))
		return c->valuestring;
	cJSON_ArrayForEach(b, c)
		if (ctx_is_block(b, "text") && ctx_jstr(b, "text"))
			return ctx_jstr(b, "text");
	return NULL;
}

static int local_command_output(const struct ctx_wrow *r)
{
	const char *t = first_text(ctx_content(r));
	size_t i;

	if (ctx_is_local_command(r))
		return 1;

	if (!t)
		return 0;
	t = ctx_skip_blank(t);
	for (i = 0; i < NELEM(local_cmd); i++)
		if (starts_with(t, local_cmd[i]))
			return 1;
	return 0;
}

static int add_no_response(struct ctx_work *w)
{
	struct ctx_wrow *last = NULL, *r;
	cJSON *content, *msg;
	char buf[IDX_UUID_MAX + 1] = "(synthetic)";
	uint32_t i;

	uint32_t at = 0;

	for (i = 0; i < w->nrows; i++)
		if (w->rows[i]->sent && (is_msg(w->rows[i]) || ctx_is_local_command(w->rows[i]) ||
					 ctx_is_human_queued(w->rows[i]))) {
			last = w->rows[i];
			at = i;
		}
	if (!last || last->type == IDX_T_ASSISTANT || local_command_output(last))
		return 0;
	for (i = at + 1; i < w->nrows; i++)	/* rule 28 */
		if (ctx_is_max_turns(w->rows[i]))
			return ctx_note_add(w->x, w->rows[i]->line, w->rows[i]->id, CTX_N_INFO,
					    "the turn stopped at --max-turns: no synthetic reply after it");
	content = cJSON_CreateArray();
	if (!content || !cJSON_AddItemToArray(content, ctx_text_block(CTX_NO_RESPONSE_TEXT))) {
		cJSON_Delete(content);
		return -ENOMEM;
	}
	if (!(r = synthetic_row(IDX_T_ASSISTANT, CTX_S_NO_RESPONSE, content)))
		return -ENOMEM;
	msg = r->m;
	strcpy(r->fresh, "synthetic");
	r->msgid = r->fresh;
	if (!cJSON_AddStringToObject(msg, "model", "<synthetic>") ||
	    !cJSON_AddStringToObject(msg, "id", "synthetic") ||
	    ctx_rows_insert(w, w->nrows, r)) {
		cJSON_Delete(r->rec);
		free(r);
		return -ENOMEM;
	}
	if (last->id && idx_id_buf(w->ix, last->id, buf) > 8)
		buf[8] = '\0';
	return ctx_repair_add(w->x, "synthetic assistant \"%s\" after the unanswered user row %s",
			      CTX_NO_RESPONSE_TEXT, buf);
}

int ctx_clean(struct ctx_work *w)
{
	int rc = drop_unsent(w);

	if (!rc)
		rc = drop_bad_text_blocks(w);
	if (!rc) {
		give_fresh_ids(w);
		rc = drop_blank_rows(w);
	}
	if (!rc)
		rc = w->older ? drop_unanswered_calls(w) : add_interrupted_results(w);
	if (!rc)
		rc = add_no_response(w);
	w->nclean = w->x->nrepairs;
	return rc;
}

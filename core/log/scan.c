#include "scan.h"

#include <string.h>

#include "jscan.h"


/* What one line yields besides the record fields. */
struct scan {
	struct intern *in;
	struct idx_rec *r;
	uint32_t logical, leaf, msg_id, snap_id, sent_as;
	int bad_uuid;
	int has_message;
	int has_perm_mode;	/* a permissionMode member was met */
};

/* A name and its length, for tables compared against raw strings. */
#define NAME(s) s, sizeof(s) - 1

static const struct {
	const char *name;
	size_t n;
	uint8_t type;
} type_names[] = {
	{ NAME("user"), IDX_T_USER },
	{ NAME("assistant"), IDX_T_ASSISTANT },
	{ NAME("attachment"), IDX_T_ATTACHMENT },
	{ NAME("system"), IDX_T_SYSTEM },
	{ NAME("progress"), IDX_T_PROGRESS },
	{ NAME("last-prompt"), IDX_T_LAST_PROMPT },
	{ NAME("summary"), IDX_T_SUMMARY },
	{ NAME("file-history-snapshot"), IDX_T_FH_SNAPSHOT },
	{ NAME("file-history-delta"), IDX_T_FH_DELTA },
	{ NAME("content-replacement"), IDX_T_CONTENT_REPL },
	{ NAME("custom-title"), IDX_T_META },
	{ NAME("ai-title"), IDX_T_META },
	{ NAME("tag"), IDX_T_META },
	{ NAME("agent-name"), IDX_T_META },
	{ NAME("agent-color"), IDX_T_META },
	{ NAME("agent-setting"), IDX_T_META },
	{ NAME("worktree-state"), IDX_T_META },
	{ NAME("mode"), IDX_T_META },
	{ NAME("permission-mode"), IDX_T_META },
	{ NAME("cost-state"), IDX_T_META },
	{ NAME("queue-operation"), IDX_T_META },
	{ NAME("api-request"), IDX_T_META },
	{ NAME("api-request-shape"), IDX_T_META },
	{ NAME("api-request-blob"), IDX_T_META },
	{ NAME("atis-latch"), IDX_T_META },
	{ NAME("tools-used"), IDX_T_META },
};

static const struct {
	const char *name;
	size_t n;
	uint8_t block;
} block_names[] = {
	{ NAME("text"), IDX_B_TEXT },
	{ NAME("thinking"), IDX_B_THINKING },
	{ NAME("redacted_thinking"), IDX_B_REDACTED },
	{ NAME("tool_use"), IDX_B_TOOL_USE },
	{ NAME("tool_result"), IDX_B_TOOL_RESULT },
	{ NAME("image"), IDX_B_IMAGE },
	{ NAME("document"), IDX_B_DOCUMENT },
};

static uint8_t type_of(const struct js_str *s)
{
	size_t i;

	for (i = 0; i < sizeof(type_names) / sizeof(type_names[0]); i++)
		if (s->n == type_names[i].n && !memcmp(s->p, type_names[i].name, s->n))
			return type_names[i].type;
	return IDX_T_OTHER;
}

static uint8_t block_of(const struct js_str *s)
{
	size_t i;

	for (i = 0; i < sizeof(block_names) / sizeof(block_names[0]); i++)
		if (s->n == block_names[i].n && !memcmp(s->p, block_names[i].name, s->n))
			return block_names[i].block;
	return IDX_B_OTHER;
}

/* A string or null value that names a uuid: its id, or 0 for null. */
static const char *scan_uuid(struct scan *sc, const char *v, const char *e,
			     uint32_t *out)
{
	struct js_str s;
	const char *end;

	*out = 0;
	if (*v != '"')
		return js_value(v, e);
	end = js_string(v, e, &s);
	if (!end)
		return NULL;
	if (s.escaped || s.n == 0 || s.n > IDX_UUID_MAX || memchr(s.p, 0, s.n)) {
		struct sbuf dec;

		sb_init(&dec);
		js_unescape(&s, &dec);
		if (dec.len && dec.len <= IDX_UUID_MAX && !memchr(dec.buf, 0, dec.len))
			*out = in_id(sc->in, dec.buf, dec.len);
		else
			sc->bad_uuid = 1;
		sb_free(&dec);
		return end;
	}
	*out = in_id(sc->in, s.p, s.n);
	return end;
}

static const char *scan_bool(const char *v, const char *e, int *out)
{
	*out = (e - v >= 4 && !memcmp(v, "true", 4));
	return js_value(v, e);
}

static const char *scan_str(const char *v, const char *e, struct js_str *s)
{
	if (*v != '"') {
		s->p = NULL;
		s->n = 0;
		s->escaped = 0;
		return js_value(v, e);
	}
	return js_string(v, e, s);
}

/* One content block: its type, and the tool name / ids it carries. */
static const char *scan_block(struct scan *sc, const char *v, const char *e,
			      int *typed, int first)
{
	struct js_iter it;
	struct js_str k, s, type = { 0 }, name = { 0 }, id = { 0 }, useid = { 0 };
	const char *val;
	int r;

	*typed = 0;
	if (js_obj_begin(&it, v, e))
		return js_value(v, e);
	while ((r = js_obj_next(&it, &k, &val)) == 1) {
		const char *end;

		if (*val == '"' && (js_eq(&k, "type") || js_eq(&k, "name") ||
				    js_eq(&k, "id") || js_eq(&k, "tool_use_id"))) {
			end = js_string(val, e, &s);
			if (js_eq(&k, "type"))
				type = s;
			else if (js_eq(&k, "name"))
				name = s;
			else if (js_eq(&k, "id"))
				id = s;
			else
				useid = s;
		} else {
			end = js_value(val, e);
		}
		if (!end)
			return NULL;
		it.p = end;
	}
	if (r < 0)
		return NULL;
	if (!type.p)
		return it.p;
	*typed = 1;
	if (first) {
		sc->r->block = block_of(&type);
		if (sc->r->block == IDX_B_TOOL_USE) {
			if (name.p)
				sc->r->name = in_atom(sc->in, &name);
			if (id.p)
				sc->r->useid = js_hash(&id);
		} else if (sc->r->block == IDX_B_TOOL_RESULT && useid.p) {
			sc->r->useid = js_hash(&useid);
		}
	}
	return it.p;
}

/* A local command's row: the text starts with one of its tags. */
static int local_command_text(const struct js_str *s)
{
	static const char *const tags[] = { "<command-name>", "<local-command-" };
	size_t i;

	for (i = 0; i < sizeof(tags) / sizeof(tags[0]); i++)
		if (s->n >= strlen(tags[i]) && !memcmp(s->p, tags[i], strlen(tags[i])))
			return 1;
	return 0;
}

static const char *scan_content(struct scan *sc, const char *v, const char *e,
				int *has_content)
{
	struct js_iter it;
	const char *val;
	int r, ntyped = 0;

	if (*v == '"') {
		struct js_str s;
		const char *end = js_string(v, e, &s);

		*has_content = 1;
		sc->r->block = IDX_B_STRING;
		if (end && js_blank(&s))
			sc->r->flags |= IDX_F_BLANK_STR;
		if (end && local_command_text(&s))
			sc->r->flags |= IDX_F_LOCAL_CMD;
		return end;
	}
	if (js_arr_begin(&it, v, e))
		return js_value(v, e);
	*has_content = 1;
	while ((r = js_arr_next(&it, &val)) == 1) {
		int typed;
		const char *end = scan_block(sc, val, e, &typed, ntyped == 0);

		if (!end)
			return NULL;
		ntyped += typed;
		it.p = end;
	}
	if (r < 0)
		return NULL;
	if (!ntyped)
		sc->r->drop = IDX_D_NO_BLOCKS;
	return it.p;
}

static const char *scan_message(struct scan *sc, const char *v, const char *e)
{
	struct js_iter it;
	struct js_str k, s;
	const char *val;
	int r, has_content = 0;

	if (js_obj_begin(&it, v, e)) {
		sc->r->drop = IDX_D_NO_MESSAGE;
		return js_value(v, e);
	}
	while ((r = js_obj_next(&it, &k, &val)) == 1) {
		const char *end;

		if (js_eq(&k, "id") && *val == '"') {
			end = js_string(val, e, &s);
			if (end)
				sc->r->msgid = js_hash(&s);
		} else if (js_eq(&k, "content")) {
			end = scan_content(sc, val, e, &has_content);
		} else {
			if (*val == '{' && js_eq(&k, "usage"))
				sc->r->flags |= IDX_F_USAGE;
			end = js_value(val, e);
		}
		if (!end)
			return NULL;
		it.p = end;
	}
	if (r < 0)
		return NULL;
	if (!has_content && !sc->r->drop)
		sc->r->drop = IDX_D_NO_CONTENT;
	return it.p;
}

/* attachment: {type, ...} and compactMetadata: {preservedMessages, ...} */
static const char *scan_inner(struct scan *sc, const char *v, const char *e,
			      int attachment)
{
	struct js_iter it;
	struct js_str k, s;
	const char *val;
	int r;

	if (js_obj_begin(&it, v, e))
		return js_value(v, e);
	while ((r = js_obj_next(&it, &k, &val)) == 1) {
		const char *end;

		if (attachment && js_eq(&k, "type") && *val == '"') {
			end = js_string(val, e, &s);
			if (end)
				sc->r->sub = in_atom(sc->in, &s);
		} else {
			if (!attachment && js_eq(&k, "preservedMessages") && *val == '{')
				sc->r->flags |= IDX_F_PRESERVED;
			if (!attachment && js_eq(&k, "messagesSummarized"))
				sc->r->flags |= IDX_F_PARTIAL;
			end = js_value(val, e);
		}
		if (!end)
			return NULL;
		it.p = end;
	}
	return r < 0 ? NULL : it.p;
}

static const char *scan_flag(const char *v, const char *e, struct idx_rec *r,
			     uint32_t flag)
{
	int b;
	const char *end = scan_bool(v, e, &b);

	if (b)
		r->flags |= flag;
	return end;
}

/* Dispatches one top-level member. */
static const char *scan_member(struct scan *sc, const struct js_str *k,
			       const char *v, const char *e, int *typed)
{
	struct idx_rec *r = sc->r;
	struct js_str s;
	const char *end;

	switch (k->n) {
	case 4:
		if (js_eq(k, "type")) {
			end = scan_str(v, e, &s);
			if (end && s.p) {
				*typed = 1;
				r->type_atom = in_atom(sc->in, &s);
				if (s.escaped) {	/* classify the decoded name */
					s.p = in_atom_str(sc->in, r->type_atom);
					s.n = strlen(s.p);
				}
				r->type = type_of(&s);
			}
			return end;
		}
		if (js_eq(k, "uuid"))
			return scan_uuid(sc, v, e, &r->uuid);
		break;
	case 6:
		if (js_eq(k, "isMeta"))
			return scan_flag(v, e, r, IDX_F_META);
		break;
	case 7:
		if (js_eq(k, "version")) {
			end = scan_str(v, e, &s);
			if (end && s.p)
				r->ver = in_atom(sc->in, &s);
			return end;
		}
		if (js_eq(k, "message")) {
			sc->has_message = 1;
			return scan_message(sc, v, e);
		}
		if (js_eq(k, "subtype")) {
			end = scan_str(v, e, &s);
			if (end && s.p)
				r->sub = in_atom(sc->in, &s);
			return end;
		}
		break;
	case 8:
		if (js_eq(k, "leafUuid")) {
			r->flags |= IDX_F_LEAF_KEY;
			if (*v == 'n')
				r->flags |= IDX_F_LEAF_NULL;
			return scan_uuid(sc, v, e, &sc->leaf);
		}
		if (js_eq(k, "explicit"))
			return scan_flag(v, e, r, IDX_F_EXPLICIT);
		if (js_eq(k, "hookText"))
			return scan_flag(v, e, r, IDX_F_HOOK_TEXT);
		if (js_eq(k, "rendered")) {
			const char *p = js_ws(v + 1, e);

			if (*v == '[' && p < e && *p != ']')
				r->flags |= IDX_F_RENDERED;
			return js_value(v, e);
		}
		break;
	case 9:
		if (js_eq(k, "timestamp")) {
			end = scan_str(v, e, &s);
			if (end && s.p && js_time(&s, &r->ts))
				r->ts = IDX_NO_TS;
			return end;
		}
		if (js_eq(k, "sessionId")) {
			r->flags |= IDX_F_SESSION;
			return js_value(v, e);
		}
		if (js_eq(k, "messageId"))
			return scan_uuid(sc, v, e, &sc->msg_id);
		if (js_eq(k, "rowSource")) {	/* 2.1.332: who wrote the row */
			end = scan_str(v, e, &s);
			if (end && s.p && js_eq(&s, "harness"))
				r->flags |= IDX_F_META;
			return end;
		}
		break;
	case 10:
		if (js_eq(k, "parentUuid"))
			return scan_uuid(sc, v, e, &r->parent);
		if (js_eq(k, "attachment"))
			return scan_inner(sc, v, e, 1);
		if (js_eq(k, "sentAsUuid"))
			return scan_uuid(sc, v, e, &sc->sent_as);
		break;
	case 11:
		if (js_eq(k, "isSidechain"))
			return scan_flag(v, e, r, IDX_F_SIDECHAIN);
		break;
	case 12:
		if (js_eq(k, "renderedRole")) {
			end = scan_str(v, e, &s);
			if (end && s.p && js_eq(&s, "user"))
				r->flags |= IDX_F_ROLE_USER;
			else if (end && s.p && js_eq(&s, "system"))
				r->flags |= IDX_F_ROLE_SYSTEM;
			return end;
		}
		break;
	case 14:
		if (js_eq(k, "permissionMode")) {
			/* the first one counts, as for state's reader of
			 * the value (stj_get()) */
			if (!sc->has_perm_mode && *v == '"')
				r->flags |= IDX_F_PERM_MODE;
			sc->has_perm_mode = 1;
			return js_value(v, e);
		}
		break;
	case 15:
		if (js_eq(k, "compactMetadata"))
			return scan_inner(sc, v, e, 0);
		break;
	case 16:
		if (js_eq(k, "isCompactSummary"))
			return scan_flag(v, e, r, IDX_F_COMPACT_SUMMARY);
		if (js_eq(k, "isSnapshotUpdate"))
			return scan_flag(v, e, r, IDX_F_SNAP_UPDATE);
		break;
	case 17:
		if (js_eq(k, "logicalParentUuid"))
			return scan_uuid(sc, v, e, &sc->logical);
		if (js_eq(k, "snapshotMessageId"))
			return scan_uuid(sc, v, e, &sc->snap_id);
		break;
	case 25:
		if (js_eq(k, "isVisibleInTranscriptOnly"))
			return scan_flag(v, e, r, IDX_F_VISIBLE_ONLY);
		break;
	}
	return js_value(v, e);
}

/* Is k one of IDX_RENDER_KEYS? */
static int render_key(const struct js_str *k)
{
	static const char *const keys[] = IDX_RENDER_KEYS;
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (js_eq(k, keys[i]))
			return 1;
	return 0;
}

/* Fills the record's aux field from what its type says it is keyed by. */
static void scan_finish(struct scan *sc)
{
	struct idx_rec *r = sc->r;

	switch (r->type) {
	case IDX_T_SYSTEM:
		r->aux = sc->logical;
		break;
	case IDX_T_LAST_PROMPT:
	case IDX_T_SUMMARY:
		r->aux = sc->leaf;
		break;
	case IDX_T_FH_SNAPSHOT:
		r->aux = sc->msg_id;
		break;
	case IDX_T_FH_DELTA:
		r->aux = sc->snap_id ? sc->snap_id : sc->msg_id;
		break;
	case IDX_T_USER:
		r->aux = sc->sent_as;
		break;
	}
	if (r->type != IDX_T_USER && r->type != IDX_T_ASSISTANT)
		r->drop = IDX_D_KEEP;
	else if (!sc->has_message)
		r->drop = IDX_D_NO_MESSAGE;
	else if (r->type == IDX_T_ASSISTANT && r->block == IDX_B_STRING &&
		 (r->flags & IDX_F_BLANK_STR))
		r->drop = IDX_D_BLANK;
}

/* What a line that is not an object looks like (for the error). */
static uint8_t not_object_code(const char *p, const char *e)
{
	const char *end = js_value(p, e);

	return end && js_ws(end, e) == e ? IDX_E_NOT_OBJECT : IDX_E_NOT_JSON;
}

int scan_line(struct intern *in, const char *p, size_t n, int torn,
	      struct idx_rec *rec, uint32_t *col, int *bad_uuid)
{
	const char *s = p, *e = p + n, *val;
	struct scan sc;
	struct js_iter it;
	struct js_str k;
	int r, typed = 0;

	while (s < e && *s == '\0')
		s++;
	while (e > s && (e[-1] == '\r' || e[-1] == ' ' || e[-1] == '\t'))
		e--;
	s = js_ws(s, e);
	*col = 0;
	if (s == e)
		return IDX_E_BLANK;
	memset(rec, 0, sizeof(*rec));
	memset(&sc, 0, sizeof(sc));
	rec->ts = IDX_NO_TS;
	sc.in = in;
	sc.r = rec;
	*col = (uint32_t)(s - p);
	if (js_obj_begin(&it, s, e))
		return torn ? IDX_E_TORN : not_object_code(s, e);
	while ((r = js_obj_next(&it, &k, &val)) == 1) {
		const char *end = scan_member(&sc, &k, val, e, &typed);

		if (!end) {
			r = -1;
			it.p = val;
			break;
		}
		if (render_key(&k))
			rec->rlen = (uint32_t)(end - p);
		it.p = end;
	}
	*col = (uint32_t)(it.p - p);
	if (r < 0 || js_ws(it.p, e) != e)
		return torn ? IDX_E_TORN : IDX_E_NOT_JSON;
	*col = 0;
	if (!typed)
		return IDX_E_NO_TYPE;
	*bad_uuid = sc.bad_uuid;
	scan_finish(&sc);
	return 0;
}

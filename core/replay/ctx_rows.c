/*
 * ctx_rows: the rows sent as user text that are not user rows (rules 24,
 * 27, 28): what they are, and the content they send. Part of the ctx
 * module (ctx.h; see ctx_priv.h), below ctx_clean.c and ctx_render.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ctx_priv.h"

/* ---- rows sent as user text that are not user rows ---- */

/* Rule 24: what an empty local_command output is sent as (/clear). */
#define LOCAL_STDOUT_EMPTY "<local-command-stdout></local-command-stdout>"

static int attachment_is(const struct ctx_wrow *r, const char *type)
{
	const char *t = ctx_jstr(ctx_jget(r->rec, "attachment"), "type");

	return r->type == IDX_T_ATTACHMENT && t && !strcmp(t, type);
}

int ctx_is_local_command(const struct ctx_wrow *r)
{
	const char *sub = ctx_jstr(r->rec, "subtype");

	return r->type == IDX_T_SYSTEM && sub && !strcmp(sub, "local_command");
}

static int human_origin(const cJSON *o)
{
	const char *kind = ctx_jstr(ctx_jget(o, "origin"), "kind");

	return (kind && !strcmp(kind, "human")) || cJSON_IsTrue(ctx_jget(o, "humanTurn")) ||
	       cJSON_IsTrue(ctx_jget(o, "hostsOwnTurn"));
}

int ctx_is_human_queued(const struct ctx_wrow *r)
{
	return attachment_is(r, "queued_command") &&
	       (human_origin(ctx_jget(r->rec, "attachment")) || human_origin(r->rec));
}

int ctx_is_max_turns(const struct ctx_wrow *r)
{
	return attachment_is(r, "max_turns_reached");
}

/* A queued prompt's blocks: a string is one text block; of a list, the
 * blocks with a type (text, images). */
static cJSON *prompt_blocks(const cJSON *prompt)
{
	cJSON *arr;
	const cJSON *b;

	if (cJSON_IsString(prompt))
		return cJSON_CreateString(prompt->valuestring);
	if (!cJSON_IsArray(prompt) || !(arr = cJSON_CreateArray()))
		return NULL;
	cJSON_ArrayForEach(b, prompt)
		if (ctx_jstr(b, "type") && !cJSON_AddItemToArray(arr, jt_dup(b))) {
			cJSON_Delete(arr);
			return NULL;
		}
	if (!arr->child) {
		cJSON_Delete(arr);
		return NULL;
	}
	return arr;
}

/* The n bytes of text t without its <system-reminder> wrapper (rule 22),
 * when it has one; *n is set. */
const char *ctx_unwrap(const char *t, size_t *n)
{
	size_t lo = strlen(REMINDER_OPEN), lc = strlen(REMINDER_CLOSE);

	*n = strlen(t);
	if (*n >= lo + lc && !strncmp(t, REMINDER_OPEN, lo) &&
	    !strcmp(t + *n - lc, REMINDER_CLOSE)) {
		*n -= lo + lc;
		return t + lo;
	}
	return t;
}

/* The rendered parts of an attachment as text blocks, each without its
 * <system-reminder> wrapper (NULL if none). */
static cJSON *rendered_blocks(const struct ctx_wrow *r)
{
	const cJSON *p;
	cJSON *arr = cJSON_CreateArray();

	cJSON_ArrayForEach(p, ctx_jget(r->rec, "rendered")) {
		const char *t = cJSON_IsString(p) ? p->valuestring : ctx_jstr(p, "content");
		char *part;
		size_t n;

		if (!arr || !t)
			continue;
		t = ctx_unwrap(t, &n);
		part = strndup(t, n);
		if (!part || !cJSON_AddItemToArray(arr, ctx_text_block(part))) {
			free(part);
			cJSON_Delete(arr);
			return NULL;
		}
		free(part);
	}
	if (arr && !arr->child) {
		cJSON_Delete(arr);
		return NULL;
	}
	return arr;
}

cJSON *ctx_text_row_content(const struct ctx_wrow *r)
{
	if (ctx_is_local_command(r)) {
		const char *c = ctx_jstr(r->rec, "content");

		return cJSON_CreateString(c && *c ? c : LOCAL_STDOUT_EMPTY);
	}
	if (ctx_is_human_queued(r)) {
		cJSON *c = rendered_blocks(r);

		return c ? c : prompt_blocks(ctx_jget(ctx_jget(r->rec, "attachment"), "prompt"));
	}
	return NULL;
}


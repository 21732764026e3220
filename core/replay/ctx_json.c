/*
 * ctx_json: the small JSON helpers of the ctx module (ctx_priv.h), and
 * the writer of messages.json (cJSON's values, JSON.stringify's layout).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctx_priv.h"

cJSON *ctx_dup_or_null(const cJSON *v, int *ok)
{
	cJSON *d = v ? jt_dup(v) : NULL;

	if (v && !d)
		*ok = 0;
	return d;
}

/* cJSON_GetObjectItemCaseSensitive()'s answer (the first member of that
 * key; none past a child without a key), with each key's first byte
 * looked at before strcmp(): the window's passes ask its rows' members
 * millions of times. */
const cJSON *ctx_jget(const cJSON *o, const char *key)
{
	const cJSON *c;

	if (!cJSON_IsObject(o))
		return NULL;
	for (c = o->child; c && c->string; c = c->next)
		if (c->string[0] == key[0] && !strcmp(c->string, key))
			return c;
	return NULL;
}

const char *ctx_jstr(const cJSON *o, const char *key)
{
	const cJSON *v = ctx_jget(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

cJSON *ctx_content(const struct ctx_wrow *r)
{
	return (cJSON *)ctx_jget(r->m, "content");
}

int ctx_truthy(const cJSON *v)
{
	if (!v || cJSON_IsNull(v) || cJSON_IsFalse(v) || cJSON_IsInvalid(v))
		return 0;
	if (cJSON_IsNumber(v))
		return v->valuedouble != 0 && v->valuedouble == v->valuedouble;
	if (cJSON_IsString(v))
		return v->valuestring[0] != '\0';
	return 1;
}

/* A JavaScript WhiteSpace or LineTerminator code point at s (its length),
 * or 0. */
static size_t js_space(const unsigned char *s)
{
	unsigned cp;

	if (*s == ' ' || (*s >= '\t' && *s <= '\r'))
		return 1;
	if (s[0] == 0xc2 && s[1] == 0xa0)
		return 2;
	if (s[0] == 0xe1 && s[1] == 0x9a && s[2] == 0x80)
		return 3;
	if ((s[0] != 0xe2 && s[0] != 0xe3 && s[0] != 0xef) || (s[1] & 0xc0) != 0x80 ||
	    (s[2] & 0xc0) != 0x80)
		return 0;
	cp = ((unsigned)(s[0] & 0x0f) << 12) | ((unsigned)(s[1] & 0x3f) << 6) | (s[2] & 0x3f);
	if ((cp >= 0x2000 && cp <= 0x200a) || cp == 0x2028 || cp == 0x2029 ||
	    cp == 0x202f || cp == 0x205f || cp == 0x3000 || cp == 0xfeff)
		return 3;
	return 0;
}

const char *ctx_skip_blank(const char *s)
{
	size_t n;

	while (*s && (n = js_space((const unsigned char *)s)))
		s += n;
	return s;
}

int ctx_blank(const char *s)
{
	return !*ctx_skip_blank(s);
}

int ctx_is_block(const cJSON *b, const char *t)
{
	const char *bt = ctx_jstr(b, "type");

	return bt && !strcmp(bt, t);
}

int ctx_blank_text_block(const cJSON *b)
{
	const char *t = ctx_jstr(b, "text");

	return ctx_is_block(b, "text") && t && ctx_blank(t);
}

cJSON *ctx_text_block(const char *s)
{
	cJSON *b = cJSON_CreateObject();

	if (b && (!cJSON_AddStringToObject(b, "type", "text") ||
		  !cJSON_AddStringToObject(b, "text", s))) {
		cJSON_Delete(b);
		return NULL;
	}
	return b;
}

static void write_number(double d, struct sbuf *out)
{
	char buf[64];

	if (d != d || d > 1.7976931348623157e308 || d < -1.7976931348623157e308) {
		sb_adds(out, "null");
		return;
	}
	if (d < 1e15 && d > -1e15 && d == (double)(long long)d) {	/* cast in range */
		sb_addf(out, "%lld", (long long)d);
		return;
	}
	snprintf(buf, sizeof(buf), "%.15g", d);
	if (strtod(buf, NULL) != d)
		snprintf(buf, sizeof(buf), "%.17g", d);
	sb_adds(out, buf);
}

static void write_indent(int depth, struct sbuf *out)
{
	sb_addc(out, '\n');
	while (depth-- > 0)
		sb_adds(out, "  ");
}

static void write_container(const cJSON *v, int indent, struct sbuf *out)
{
	int obj = cJSON_IsObject(v);
	const cJSON *c;

	sb_addc(out, obj ? '{' : '[');
	for (c = v->child; c; c = c->next) {
		if (indent >= 0)
			write_indent(indent + 1, out);
		if (obj) {
			sb_add_json_str(out, c->string, strlen(c->string));
			sb_adds(out, indent >= 0 ? ": " : ":");
		}
		ctx_json_write(c, indent >= 0 ? indent + 1 : -1, out);
		if (c->next)
			sb_addc(out, ',');
	}
	if (indent >= 0 && v->child)
		write_indent(indent, out);
	sb_addc(out, obj ? '}' : ']');
}

void ctx_json_write(const cJSON *v, int indent, struct sbuf *out)
{
	if (cJSON_IsArray(v) || cJSON_IsObject(v))
		write_container(v, indent, out);
	else if (cJSON_IsString(v))
		sb_add_json_str(out, v->valuestring, strlen(v->valuestring));
	else if (cJSON_IsNumber(v))
		write_number(v->valuedouble, out);
	else if (cJSON_IsTrue(v))
		sb_adds(out, "true");
	else if (cJSON_IsFalse(v))
		sb_adds(out, "false");
	else if (cJSON_IsRaw(v) && v->valuestring)
		sb_adds(out, v->valuestring);
	else
		sb_adds(out, "null");
}

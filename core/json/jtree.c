#include "jtree.h"

#include <stdlib.h>
#include <string.h>

#include "jscan.h"
#include "jv.h"

/* Where the next decoded piece of a string goes. */
struct put {
	char *w;
};

static void put(void *arg, const char *p, size_t n)
{
	struct put *o = arg;

	memcpy(o->w, p, n);
	o->w += n;
}

/* A string decoded to its C string, in a buffer sized by its raw text
 * (decoding never makes it longer): the key k (raw, from jv_next()), or
 * with k NULL the string value at v. */
static char *decoded(const struct js_str *k, const char *v, const char *e)
{
	struct js_str s;
	struct put o;
	char *buf;

	if (!k) {
		if (!js_string(v, e, &s))
			return NULL;
		k = &s;
	}
	buf = malloc(k->n + 1);
	if (!buf)
		return NULL;
	o.w = buf;
	if (k == &s)
		jv_str(v, e, put, &o);
	else
		jv_key(k, put, &o);
	*o.w = '\0';
	/* escapes decode shorter: give back what a long one left unused */
	if (k->n - (size_t)(o.w - buf) > 64 + k->n / 8) {
		char *fit = realloc(buf, (size_t)(o.w - buf) + 1);

		if (fit)
			buf = fit;
	}
	return buf;
}

/* A number as cJSON's parser sets it: an integer of up to 15 digits is
 * exact in a double, whatever parses it; anything else cJSON reads. */
static cJSON *number(const char *v, const char *e)
{
	const char *p = v + (*v == '-'), *d = p;
	unsigned long long u = 0;
	double x;

	while (p < e && *p >= '0' && *p <= '9' && p - d < 16)
		u = u * 10 + (unsigned long long)(*p++ - '0');
	if (p == d || p - d > 15 ||
	    (p < e && (*p == '.' || *p == 'e' || *p == 'E' || *p == '+' || *p == '-')))
		return cJSON_ParseWithLengthOpts(v, (size_t)(e - v), NULL, 0);
	x = (double)u;
	return cJSON_CreateNumber(*v == '-' ? -x : x);	/* -0 stays -0 */
}

static cJSON *build(const struct jv_doc *d, const char *v, const char *e);

/* The members of the container at v, appended to c in order. */
static int fill(cJSON *c, const struct jv_doc *d, const char *v, const char *e)
{
	struct jv_iter it;
	struct js_str k;
	const char *cv;

	jv_begin(&it, d, v, e);
	while (jv_next(&it, it.obj ? &k : NULL, &cv)) {
		cJSON *x = build(d, cv, e);

		if (!x)
			return -1;
		if (it.obj && !(x->string = decoded(&k, NULL, e))) {
			cJSON_Delete(x);
			return -1;
		}
		cJSON_AddItemToArray(c, x);	/* appends: keeps x->string */
	}
	return 0;
}

/* The node of the checked value at v (nesting is bounded by cJSON's
 * limit, which jv_check() enforced). */
static cJSON *build(const struct jv_doc *d, const char *v, const char *e)
{
	cJSON *item;

	switch (*v) {
	case '{':
	case '[':
		item = *v == '{' ? cJSON_CreateObject() : cJSON_CreateArray();
		if (item && fill(item, d, v, e)) {
			cJSON_Delete(item);
			item = NULL;
		}
		return item;
	case '"':
		item = cJSON_CreateNull();
		if (item && !(item->valuestring = decoded(NULL, v, e))) {
			cJSON_Delete(item);
			return NULL;
		}
		if (item)
			item->type = cJSON_String;
		return item;
	case 't':
		item = cJSON_CreateTrue();
		if (item)
			item->valueint = 1;
		return item;
	case 'f':
		return cJSON_CreateFalse();
	case 'n':
		return cJSON_CreateNull();
	default:
		return number(v, e);
	}
}

cJSON *jt_parse(const char *p, size_t n)
{
	const char *e = p + n, *v;
	struct jv_doc d;
	cJSON *item = NULL;

	if (!p || !n)
		return NULL;
	/* cJSON skips a byte order mark when more than four bytes follow */
	if (n > 4 && !memcmp(p, "\xef\xbb\xbf", 3))
		p += 3;
	jv_doc_init(&d);
	if (jv_check(p, e, &d)) {
		for (v = p; v < e && (unsigned char)*v <= 32; v++)
			;
		item = build(&d, v, e);
	}
	jv_doc_free(&d);
	return item;
}

int jt_same(const cJSON *a, const cJSON *b)
{
	const cJSON *x, *y;

	if (!a || !b)
		return a == b;
	if (a->type != b->type || a->valueint != b->valueint ||
	    memcmp(&a->valuedouble, &b->valuedouble, sizeof(double)))
		return 0;
	if (!a->valuestring != !b->valuestring ||
	    (a->valuestring && strcmp(a->valuestring, b->valuestring)))
		return 0;
	if (!a->string != !b->string || (a->string && strcmp(a->string, b->string)))
		return 0;
	/* the children in order, and the first one's prev at the last (the
	 * tail cJSON's appends use) */
	for (x = a->child, y = b->child; x && y; x = x->next, y = y->next) {
		if (!jt_same(x, y))
			return 0;
		if (!x->next && (a->child->prev != x || b->child->prev != y))
			return 0;
	}
	return !x && !y;
}

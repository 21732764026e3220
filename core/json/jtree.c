#include "jtree.h"

#include <limits.h>
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

/* The key k (raw, from jv_next()) decoded to a C string of its own. */
static char *decoded(const struct js_str *k)
{
	char *buf = malloc(k->n + 1);
	struct put o;

	if (!buf)
		return NULL;
	o.w = buf;
	jv_key(k, put, &o);
	*o.w = '\0';
	return buf;
}

/*
 * A node in one block with its key and its string value, where it has them
 * (node, key, value; each string decoded into room sized by its raw text):
 * cJSON_Delete() frees the block alone, told by the flags that the key
 * (cJSON_StringIsConst) and the value (cJSON_IsReference, on a string:
 * it has no child) are not blocks of their own. A third of the
 * allocations of a parse, and of the frees of a delete.
 */
static cJSON *node(const struct js_str *k, const char *v, const char *e, int type)
{
	struct js_str s = { NULL, 0, 0 };
	size_t room, used;
	cJSON *item, *fit;
	char *w;
	struct put o;

	if (type == cJSON_String && !js_string(v, e, &s))
		return NULL;
	room = sizeof(*item) + (k ? k->n + 1 : 0) + (type == cJSON_String ? s.n + 1 : 0);
	item = malloc(room);
	if (!item)
		return NULL;
	memset(item, 0, sizeof(*item));
	item->type = type;
	o.w = (char *)(item + 1);
	if (k) {
		w = o.w;
		jv_key(k, put, &o);
		*o.w++ = '\0';
		item->string = w;
		item->type |= cJSON_StringIsConst;
	}
	if (type == cJSON_String) {
		w = o.w;
		jv_str(v, e, put, &o);
		*o.w++ = '\0';
		item->valuestring = w;
		item->type |= cJSON_IsReference;
	}
	/* escapes decode shorter: give back what long ones left unused */
	used = (size_t)(o.w - (char *)item);
	if (room - used > 64 + room / 8) {
		size_t ko = item->string ? (size_t)(item->string - (char *)item) : 0;
		size_t vo = item->valuestring ? (size_t)(item->valuestring - (char *)item) : 0;

		if ((fit = realloc(item, used))) {
			item = fit;
			if (ko)
				item->string = (char *)item + ko;
			if (vo)
				item->valuestring = (char *)item + vo;
		}
	}
	return item;
}

/* A number as cJSON's parser sets it, with key k: an integer of up to 15
 * digits is exact in a double, whatever parses it (and valueint is
 * cJSON_CreateNumber()'s, saturated); anything else cJSON reads. */
static cJSON *number(const struct js_str *k, const char *v, const char *e)
{
	const char *p = v + (*v == '-'), *d = p;
	unsigned long long u = 0;
	cJSON *item;
	double x;

	while (p < e && *p >= '0' && *p <= '9' && p - d < 16)
		u = u * 10 + (unsigned long long)(*p++ - '0');
	if (p == d || p - d > 15 ||
	    (p < e && (*p == '.' || *p == 'e' || *p == 'E' || *p == '+' || *p == '-'))) {
		item = cJSON_ParseWithLengthOpts(v, (size_t)(e - v), NULL, 0);
		if (item && k && !(item->string = decoded(k))) {
			cJSON_Delete(item);
			return NULL;
		}
		return item;
	}
	x = *v == '-' ? -(double)u : (double)u;	/* -0 stays -0 */
	item = node(k, v, e, cJSON_Number);
	if (item) {
		item->valuedouble = x;
		item->valueint = x >= INT_MAX ? INT_MAX : x <= (double)INT_MIN ? INT_MIN : (int)x;
	}
	return item;
}

static cJSON *build(const struct jv_doc *d, const struct js_str *k, const char *v,
		    const char *e);

/* The members of the container at v, appended to c in order. */
static int fill(cJSON *c, const struct jv_doc *d, const char *v, const char *e)
{
	struct jv_iter it;
	struct js_str k;
	const char *cv;

	jv_begin(&it, d, v, e);
	while (jv_next(&it, it.obj ? &k : NULL, &cv)) {
		cJSON *x = build(d, it.obj ? &k : NULL, cv, e);

		if (!x)
			return -1;
		cJSON_AddItemToArray(c, x);	/* appends: keeps x->string */
	}
	return 0;
}

/* The node of the checked value at v, with key k (NULL in an array or at
 * the top; nesting is bounded by cJSON's limit, which jv_check()
 * enforced). */
static cJSON *build(const struct jv_doc *d, const struct js_str *k, const char *v,
		    const char *e)
{
	cJSON *item;

	switch (*v) {
	case '{':
	case '[':
		item = node(k, v, e, *v == '{' ? cJSON_Object : cJSON_Array);
		if (item && fill(item, d, v, e)) {
			cJSON_Delete(item);
			item = NULL;
		}
		return item;
	case '"':
		return node(k, v, e, cJSON_String);
	case 't':
		item = node(k, v, e, cJSON_True);
		if (item)
			item->valueint = 1;
		return item;
	case 'f':
		return node(k, v, e, cJSON_False);
	case 'n':
		return node(k, v, e, cJSON_NULL);
	default:
		return number(k, v, e);
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
		item = build(&d, NULL, v, e);
	}
	jv_doc_free(&d);
	return item;
}

int jt_same(const cJSON *a, const cJSON *b)
{
	const cJSON *x, *y;

	if (!a || !b)
		return a == b;
	if ((a->type & 0xff) != (b->type & 0xff) || a->valueint != b->valueint ||
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

/* Gives every key shared with another tree a block of its own. */
static int own_keys(cJSON *x)
{
	for (; x; x = x->next) {
		if ((x->type & cJSON_StringIsConst) && x->string) {
			char *k = strdup(x->string);

			if (!k)
				return -1;
			x->string = k;
			x->type &= ~cJSON_StringIsConst;
		}
		if (!(x->type & cJSON_IsReference) && own_keys(x->child))
			return -1;
	}
	return 0;
}

cJSON *jt_dup(const cJSON *x)
{
	cJSON *d = cJSON_Duplicate(x, 1);

	if (d && own_keys(d)) {
		cJSON_Delete(d);
		return NULL;
	}
	return d;
}

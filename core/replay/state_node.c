/*
 * state_node: what the parts of the state module share (state_priv.h):
 * the node tree of state/, a record's raw JSON, string-keyed hashes and
 * the problems for errors.txt. The module's lowest file: state_read.c,
 * state_fh.c, state.c and state_grow.c sit on it.
 */
#include "state_priv.h"

#include <errno.h>
#include <float.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arr.h"
#include "names.h"

#define QUOTE_MAX 300		/* bytes of a path quoted in a problem */

/* ---- raw JSON ---- */

int stl_read(const struct st_state *st, uint32_t i, struct st_line *l)
{
	const char *p;

	sb_init(&l->sb);
	l->p = l->e = NULL;
	if (i >= idx_nrecs(st->ix) || lf_read(st->lf, idx_rec(st->ix, i), &l->sb))
		return -1;
	p = l->sb.buf;
	l->e = l->sb.buf + l->sb.len;
	while (p < l->e && *p == '\0')
		p++;
	p = js_ws(p, l->e);
	if (!p || p >= l->e || *p != '{')
		return -1;
	l->p = p;
	return 0;
}

void stl_free(struct st_line *l)
{
	sb_free(&l->sb);
}

const char *stj_get(const char *v, const char *e, const char *key)
{
	struct js_iter it;
	struct js_str k;
	const char *val;
	size_t n = strlen(key);

	if (!v || js_obj_begin(&it, v, e))
		return NULL;
	while (js_obj_next(&it, &k, &val) == 1) {
		if (!k.escaped && k.n == n && !memcmp(k.p, key, n))
			return val;
		if (!(it.p = js_value(val, e)))
			return NULL;
	}
	return NULL;
}

int stj_str(const char *v, const char *e, struct sbuf *out)
{
	struct js_str s;

	sb_reset(out);
	if (!v || *v != '"' || !js_string(v, e, &s))
		return -1;
	js_unescape(&s, out);
	return 0;
}

char *stj_dup(const char *v, const char *e)
{
	struct sbuf sb;
	char *s;

	sb_init(&sb);
	if (stj_str(v, e, &sb)) {
		sb_free(&sb);
		return NULL;
	}
	if (memchr(sb.buf, '\0', sb.len)) {
		sb_free(&sb);
		return NULL;
	}
	s = sb_detach(&sb, NULL);
	return s;
}

int stj_num(const char *v, const char *e, double *out)
{
	char buf[64], *end;
	const char *q;
	size_t n;

	if (!v || !(q = js_value(v, e)) || !(*v == '-' || (*v >= '0' && *v <= '9')))
		return -1;
	n = (size_t)(q - v);
	if (n >= sizeof(buf))
		return -1;
	memcpy(buf, v, n);
	buf[n] = '\0';
	*out = strtod(buf, &end);
	/* 1e999 is inf: not a number JSON can write back */
	return end == buf || *out != *out || *out > DBL_MAX || *out < -DBL_MAX ? -1 : 0;
}

int stj_true(const char *v, const char *e)
{
	return v && e - v >= 4 && !memcmp(v, "true", 4);
}

/* ---- hash ---- */

struct st_hent *sth_find(struct st_hent *head, const void *key, size_t len)
{
	struct st_hent *h = NULL;

	HASH_FIND(hh, head, key, len, h);
	return h;
}

int sth_add(struct st_hent **head, const void *key, size_t len, uint32_t val)
{
	struct st_hent *h = malloc(sizeof(*h) + len);

	if (!h)
		return -ENOMEM;
	memcpy(h->key, key, len);
	h->len = len;
	h->val = val;
	HASH_ADD_KEYPTR(hh, *head, h->key, len, h);
	return 0;
}

void sth_free(struct st_hent **head)
{
	struct st_hent *h, *tmp;

	HASH_ITER(hh, *head, h, tmp) {
		HASH_DEL(*head, h);
		free(h);
	}
}

/* ---- nodes ---- */

/* The hash key of (dir, name): the index's 4 bytes, then the name. */
static size_t name_key(uint32_t dir, const char *name, size_t n, char *key)
{
	memcpy(key, &dir, sizeof(dir));
	memcpy(key + sizeof(dir), name, n);
	return sizeof(dir) + n;
}

uint32_t st_lookup(const struct st_state *st, uint32_t dir, const char *name)
{
	char key[sizeof(uint32_t) + NM_MAX];
	size_t n = strlen(name);
	struct st_hent *h;

	if (dir >= st->nnodes || !st->nodes[dir].dir || !n || n > NM_MAX)
		return ST_NONE;
	h = sth_find(st->names, key, name_key(dir, name, n, key));
	return h ? h->val : ST_NONE;
}

uint32_t st_add(struct st_state *st, uint32_t dir, const char *name, size_t n,
		int is_dir, uint8_t what, uint32_t ref)
{
	char key[sizeof(uint32_t) + NM_MAX];
	struct st_node *nd;
	uint32_t i = st->nnodes;

	if (!n || n > NM_MAX || memchr(name, '/', n) || memchr(name, '\0', n) ||
	    (n <= 2 && !memcmp(name, "..", n)))
		return ST_NONE;
	if (dir != ST_NONE && sth_find(st->names, key, name_key(dir, name, n, key)))
		return ST_NONE;	/* taken */
	if (arr_grow(&st->nodes, &st->cap, st->nnodes + 1, sizeof(*st->nodes), 16))
		return ST_NONE;
	nd = &st->nodes[i];
	memset(nd, 0, sizeof(*nd));
	nd->parent = dir;
	nd->first = nd->last = nd->next = ST_NONE;
	nd->dir = (uint8_t)!!is_dir;
	nd->what = what;
	nd->ref = ref;
	nd->name = strndup(name, n);
	if (!nd->name)
		return ST_NONE;
	if (dir != ST_NONE && sth_add(&st->names, key, name_key(dir, name, n, key), i)) {
		free(nd->name);
		return ST_NONE;
	}
	st->nnodes++;
	if (dir != ST_NONE) {
		struct st_node *d = &st->nodes[dir];

		if (d->last == ST_NONE)
			d->first = i;
		else
			st->nodes[d->last].next = i;
		d->last = i;
		d->nkids++;
	}
	return i;
}

uint32_t st_add_path(struct st_state *st, uint32_t dir, const char *path,
		     uint8_t what, uint32_t ref, const char **why)
{
	const char *p = path;

	*why = "out of memory";
	while (*p == '/') {
		const char *part = p + 1, *q = strchr(part, '/');
		size_t n = q ? (size_t)(q - part) : strlen(part);
		char name[NM_MAX + 1];
		uint32_t k;

		if (!n || n > NM_MAX)
			return ST_NONE;
		memcpy(name, part, n);
		name[n] = '\0';
		k = st_lookup(st, dir, name);
		if (!q) {
			if (k != ST_NONE) {
				*why = st->nodes[k].dir ? "the path is a folder of another entry"
							: "the path is taken by another entry";
				return ST_NONE;
			}
			return st_add(st, dir, part, n, 0, what, ref);
		}
		if (k != ST_NONE && !st->nodes[k].dir) {
			*why = "a folder of the path is a file of another entry";
			return ST_NONE;
		}
		if (k == ST_NONE && (k = st_add(st, dir, part, n, 1, SW_DIR, 0)) == ST_NONE)
			return ST_NONE;
		dir = k;
		p = q;
	}
	*why = "not an absolute path";
	return ST_NONE;
}

/* ---- problems ---- */

void st_err(struct st_state *st, uint32_t line, const char *fmt, ...)
{
	char *text;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (line)
		sb_addf(&st->errs, "line %u: ", line);
	sb_adds(&st->errs, "state: ");
	if (n >= 0) {
		sb_add_line(&st->errs, text, (size_t)n);
		free(text);
	} else {
		sb_adds(&st->errs, "(out of memory while reporting a problem)");
	}
	sb_addc(&st->errs, '\n');
	st->nerrs++;
}

void st_quote(struct sbuf *out, const char *s, size_t n)
{
	size_t cut = n > QUOTE_MAX ? QUOTE_MAX : n;

	while (cut < n && cut > 0 && ((unsigned char)s[cut] & 0xc0) == 0x80)
		cut--;
	sb_add_json_str(out, s, cut);
	if (cut < n)
		sb_addf(out, "...(%zu bytes)", n);
}


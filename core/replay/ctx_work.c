/*
 * ctx_work: what every pass of the ctx module writes with (ctx_priv.h):
 * the pool of texts, the notes, the repairs, the rows of the window, and
 * sets of hashed strings. Part of the ctx module (ctx.h), its lowest file
 * but ctx_json.c: every other file of the module may use it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arr.h"

#include "ctx_priv.h"

/* ---- texts, notes, repairs ---- */

/* Appends a formatted text and its NUL to the pool; returns its offset.
 * The values in it come from the log (uuids, cut to 8 bytes, tool ids):
 * the text is made one line of UTF-8 (sb_add_line()). */
static uint32_t pool_vaddf(struct ctx *x, const char *fmt, va_list ap)
{
	uint32_t off = (uint32_t)x->pool.len;
	char *text;
	int n = vasprintf(&text, fmt, ap);

	if (n >= 0) {
		sb_add_line(&x->pool, text, (size_t)n);
		free(text);
	}
	sb_addc(&x->pool, '\0');
	return off;
}

static int note_push(struct ctx *x, uint32_t line, uint32_t id, uint8_t kind,
		     uint32_t off, const char *text)
{
	if (arr_grow(&x->nrec, &x->capnotes, x->nnotes + 1, sizeof(*x->nrec), 64))
		return -ENOMEM;
	x->nrec[x->nnotes] = (struct ctx_nrec){ line, id, off, x->nnotes, kind,
						x->phase_now, text };
	x->nnotes++;
	return 0;
}

int ctx_note_add(struct ctx *x, uint32_t line, uint32_t id, uint8_t kind,
		 const char *fmt, ...)
{
	va_list ap;
	uint32_t off;

	va_start(ap, fmt);
	off = pool_vaddf(x, fmt, ap);
	va_end(ap);
	return note_push(x, line, id, kind, off, NULL);
}

int ctx_note_static(struct ctx *x, uint32_t line, uint32_t id, uint8_t kind,
		    const char *text)
{
	return note_push(x, line, id, kind, 0, text);
}

int ctx_repair_push(struct ctx *x, uint32_t off)
{
	if (arr_grow(&x->repair_off, &x->caprepairs, x->nrepairs + 1, sizeof(*x->repair_off), 4))
		return -ENOMEM;
	x->repair_off[x->nrepairs++] = off;
	return 0;
}

int ctx_repair_add(struct ctx *x, const char *fmt, ...)
{
	va_list ap;
	uint32_t off;

	va_start(ap, fmt);
	off = pool_vaddf(x, fmt, ap);
	va_end(ap);
	return ctx_repair_push(x, off);
}

int ctx_leave_out(struct ctx_work *w, struct ctx_wrow *r, const char *fmt, ...)
{
	va_list ap;
	uint32_t off;

	va_start(ap, fmt);
	off = pool_vaddf(w->x, fmt, ap);
	va_end(ap);
	r->sent = 0;
	r->why = off + 1;
	return note_push(w->x, r->line, r->id, CTX_N_LEFT_OUT, off, NULL);
}

int ctx_rows_insert(struct ctx_work *w, uint32_t at, struct ctx_wrow *r)
{
	if (arr_grow(&w->rows, &w->caprows, w->nrows + 1, sizeof(*w->rows), 64))
		return -ENOMEM;
	memmove(w->rows + at + 1, w->rows + at, (w->nrows - at) * sizeof(*w->rows));
	w->rows[at] = r;
	w->nrows++;
	return 0;
}

/* ---- sets of hashed strings ---- */

static uint64_t ctx_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ULL;
	return h;
}

int ctx_hset_add(struct ctx_hset *h, const char *s)
{
	if (!s) {
		h->has_null = 1;
		return 0;
	}
	if (arr_grow(&h->v, &h->cap, h->n + 1, sizeof(*h->v), 16))
		return -ENOMEM;
	h->v[h->n++] = ctx_hash(s);
	return 0;
}

void ctx_hset_free(struct ctx_hset *h)
{
	free(h->v);
	memset(h, 0, sizeof(*h));
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* In a sorted set (maybe: hashes). */
int ctx_hset_has(const struct ctx_hset *h, const char *s)
{
	uint64_t k;

	if (!s)
		return h->has_null;
	k = ctx_hash(s);
	return h->n && bsearch(&k, h->v, h->n, sizeof(k), cmp_u64) != NULL;
}

/* to = from's first n hashes added to to's (then sorted). */
int ctx_hset_join(struct ctx_hset *to, const struct ctx_hset *from, uint32_t n)
{
	uint64_t *v = realloc(to->v, ((size_t)to->n + n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	if (n)
		memcpy(v + to->n, from->v, n * sizeof(*v));
	to->v = v;
	to->n += n;
	to->cap = to->n + 1;
	qsort(to->v, to->n, sizeof(*to->v), cmp_u64);
	return 0;
}


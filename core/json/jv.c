#include "jv.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "jskip.h"

/* The same for a raw key from jv_next(). */
static int jv_key_eq(const struct js_str *k, const char *lit);

#define JV_STACK_WORDS ((JV_DEPTH_MAX + 63) / 64)

/* ---- the doc ---- */

void jv_doc_init(struct jv_doc *d)
{
	d->s = NULL;
	d->n = d->cap = 0;
}

void jv_doc_free(struct jv_doc *d)
{
	free(d->s);
	jv_doc_init(d);
}

/* A new span starting at p (end unknown yet); its index. Aborts on ENOMEM
 * as sbuf does: the span table is smaller than the text it describes. */
static size_t doc_add(struct jv_doc *d, const char *p)
{
	if (d->n == d->cap) {
		size_t ncap = d->cap ? d->cap * 2 : 64;
		struct jv_span *ns = realloc(d->s, ncap * sizeof(*ns));

		if (!ns)
			abort();
		d->s = ns;
		d->cap = ncap;
	}
	d->s[d->n].p = p;
	d->s[d->n].end = NULL;
	return d->n++;
}

/* The end of the noted value starting at p, or NULL. */
static const char *doc_end(const struct jv_doc *d, const char *p)
{
	size_t lo = 0, hi = d->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->s[mid].p < p)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < d->n && d->s[lo].p == p ? d->s[lo].end : NULL;
}

/* ---- scanning ---- */

/* On checked text: whitespace as cJSON skips it (bytes <= 0x20). */
static const char *jv_ws(const char *p, const char *e)
{
	while (p < e && (unsigned char)*p <= 32)
		p++;
	return p;
}

/* The first '"', '\\' or NUL in [p, e) (e if none). */
static const char *find3(const char *p, const char *e)
{
#ifdef __SSE2__
	const __m128i q = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\'),
		      nul = _mm_setzero_si128();

	while (e - p >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(
			_mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, bs)),
			_mm_cmpeq_epi8(v, nul)));

		if (m)
			return p + __builtin_ctz(m);
		p += 16;
	}
#endif
	while (p < e && *p != '"' && *p != '\\' && *p != '\0')
		p++;
	return p;
}

/* Four hex digits as cJSON reads them: a bad digit makes the code 0. */
static unsigned hex4(const char *p)
{
	unsigned h = 0;
	int i;

	for (i = 0; i < 4; i++) {
		unsigned char c = (unsigned char)p[i];

		if (c >= '0' && c <= '9')
			h = h << 4 | (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			h = h << 4 | (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			h = h << 4 | (unsigned)(c - 'A' + 10);
		else
			return 0;
	}
	return h;
}

static int is_low(unsigned c) { return c >= 0xdc00 && c <= 0xdfff; }
static int is_high(unsigned c) { return c >= 0xd800 && c <= 0xdbff; }

/* The byte a two-byte escape stands for, by the byte after its backslash;
 * 0 for the rest ('u' among them). */
static const char esc_byte[256] = {
	['b'] = '\b', ['f'] = '\f', ['n'] = '\n', ['r'] = '\r', ['t'] = '\t',
	['"'] = '"', ['\\'] = '\\', ['/'] = '/',
};

static int simple_escape(char c)
{
	return esc_byte[(unsigned char)c] != 0;
}

/* ---- checking ---- */

/* The \u escape at b, q the closing quote: its length (6 or 12), or 0
 * where cJSON fails. */
static size_t u_len(const char *b, const char *q)
{
	unsigned c;

	if (q - b < 6)
		return 0;
	c = hex4(b + 2);
	if (is_low(c))
		return 0;
	if (!is_high(c))
		return 6;
	if (q - b < 12 || b[6] != '\\' || b[7] != 'u' || !is_low(hex4(b + 8)))
		return 0;
	return 12;
}

/* cJSON's own steps over a string: its end (as cJSON finds it), then its
 * escapes one after the other. p at the quote; past the string, or NULL. */
static const char *string_exact(const char *p, const char *e)
{
	const char *end = js_string(p, e, NULL), *q;

	if (!end)
		return NULL;
	q = end - 1;
	for (p++; p < q && (p = memchr(p, '\\', (size_t)(q - p))); ) {
		size_t n = simple_escape(p[1]) ? 2 : p[1] == 'u' ? u_len(p, q) : 0;

		if (!n)
			return NULL;
		p += n;
	}
	return end;
}

/* True when none of the n bytes at p is a quote or backslash (so the
 * string goes on past them, and they are the escape's own). */
static int unquoted(const char *p, const char *e, size_t n)
{
	size_t i;

	if ((size_t)(e - p) < n)
		return 0;
	for (i = 0; i < n; i++)
		if (p[i] == '"' || p[i] == '\\')
			return 0;
	return 1;
}

#define ESC_EXACT 1	/* esc_len(): only string_exact() can tell */

/*
 * The escape at p (a backslash in a string): its length (2, 6 or 12), 0
 * where cJSON fails, or ESC_EXACT for a \u whose digits hold a quote or
 * backslash (then where the string ends decides).
 */
static size_t esc_len(const char *p, const char *e)
{
	unsigned h;

	if (p + 1 >= e)
		return 0;
	if (simple_escape(p[1]))
		return 2;
	if (p[1] != 'u')
		return 0;
	if (!unquoted(p + 2, e, 4))
		return ESC_EXACT;
	h = hex4(p + 2);
	if (is_low(h))
		return 0;
	if (!is_high(h))
		return 6;
	if (e - p < 8 || p[6] != '\\' || p[7] != 'u')
		return 0;
	if (!unquoted(p + 8, e, 4))
		return ESC_EXACT;
	return is_low(hex4(p + 8)) ? 12 : 0;
}

/* A short string's closing quote, when it comes in the first 16 bytes
 * of the body at p with no backslash before it; NULL otherwise. */
static const char *short_end(const char *p, const char *e)
{
#ifdef __SSE2__
	__m128i v;
	unsigned q, b;

	if (e - p < 16)
		return NULL;
	v = _mm_loadu_si128((const __m128i *)(const void *)p);
	q = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')));
	b = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));
	if (q && !(b & ((q & -q) - 1)))
		return p + __builtin_ctz(q);
#else
	(void)p;
	(void)e;
#endif
	return NULL;
}

/*
 * p at a quote: past the string, or NULL. Keys and other short strings
 * end in the first sixteen bytes; longer ones go to jskip, which takes
 * the two-byte escapes from its masks and stops only at a \u escape (or
 * a bad one). A \u escape whose digits hold a quote or backslash sends
 * the string to string_exact().
 */
static const char *check_string(const char *p, const char *e)
{
	const char *s = p, *q;
	size_t n;

	if ((q = short_end(p + 1, e)))
		return q + 1;
	for (p++;; p += n) {
		if (!(p = jskip_string_esc(p, e, esc_byte)))
			return NULL;
		if (*p == '"')
			return p + 1;
		if ((n = esc_len(p, e)) <= ESC_EXACT)
			return n ? string_exact(s, e) : NULL;
	}
}

static int number_char(char c)
{
	return (c >= '0' && c <= '9') || c == '+' || c == '-' || c == 'e' ||
	       c == 'E' || c == '.';
}

/*
 * p at '-' or a digit: past the number cJSON reads there. A plain integer
 * is read whole by every cJSON; anything else is left to cJSON itself,
 * whose number parsing changed between versions.
 */
static const char *check_number(const char *p, const char *e)
{
	const char *q = p + (*p == '-'), *digits = q, *end = NULL;
	cJSON *item;

	while (q < e && *q >= '0' && *q <= '9')
		q++;
	if (q > digits && q - p < 64 && (q == e || !number_char(*q)))
		return q;
	item = cJSON_ParseWithLengthOpts(p, (size_t)(e - p), &end, 0);
	if (!item || !cJSON_IsNumber(item))
		end = NULL;
	cJSON_Delete(item);
	return end;
}

static const char *check_literal(const char *p, const char *e)
{
	static const char *const lits[] = { "null", "false", "true" };
	size_t i;

	for (i = 0; i < 3; i++) {
		size_t n = strlen(lits[i]);

		if ((size_t)(e - p) >= n && !memcmp(p, lits[i], n))
			return p + n;
	}
	return NULL;
}

/* The containers open while checking: kinds in bits, span indexes. */
struct vstack {
	uint64_t w[JV_STACK_WORDS];
	size_t span[JV_DEPTH_MAX];
	size_t depth;
	struct jv_doc *d;
};

static int push(struct vstack *st, const char *p)
{
	uint64_t bit = (uint64_t)1 << (st->depth % 64);

	if (st->depth >= JV_DEPTH_MAX)
		return -1;
	if (*p == '{')
		st->w[st->depth / 64] |= bit;
	else
		st->w[st->depth / 64] &= ~bit;
	st->span[st->depth++] = doc_add(st->d, p);
	return 0;
}

/* Closes the innermost container, its closer ending at end. */
static void pop(struct vstack *st, const char *end)
{
	size_t i = st->span[--st->depth];
	struct jv_doc *d = st->d;

	d->s[i].end = end;
	if (end - d->s[i].p < JV_LONG && i == d->n - 1)
		d->n--;		/* short, and holds nothing long: forget it */
}

static int top_is_obj(const struct vstack *st)
{
	size_t d = st->depth - 1;

	return (int)((st->w[d / 64] >> (d % 64)) & 1);
}

static const char *string_noted(const char *p, const char *e, struct jv_doc *d)
{
	const char *end = check_string(p, e);

	if (end && end - p >= JV_LONG) {
		size_t i = doc_add(d, p);	/* may move d->s */

		d->s[i].end = end;
	}
	return end;
}

/* An object member's key and colon; p past the colon, or NULL. */
static const char *check_key(const char *p, const char *e, struct vstack *st)
{
	p = jv_ws(p, e);
	if (p >= e || *p != '"' || !(p = string_noted(p, e, st->d)))
		return NULL;
	p = jv_ws(p, e);
	return p < e && *p == ':' ? p + 1 : NULL;
}

/* A scalar, or the opening of a container (pushed; *opened set). */
static const char *check_one(const char *p, const char *e, struct vstack *st,
			     int *opened)
{
	*opened = 0;
	switch (*p) {
	case '"':
		return string_noted(p, e, st->d);
	case '[': case '{':
		if (push(st, p))
			return NULL;
		*opened = 1;
		return p + 1;
	case 'n': case 't': case 'f':
		return check_literal(p, e);
	default:
		return *p == '-' || (*p >= '0' && *p <= '9') ? check_number(p, e) : NULL;
	}
}

/* After an opening bracket: past an empty container's closer (popped),
 * or where its first member starts. */
static const char *check_open(const char *p, const char *e, struct vstack *st,
			      int *closed)
{
	char close = top_is_obj(st) ? '}' : ']';

	p = jv_ws(p, e);
	*closed = p < e && *p == close;
	if (*closed) {
		pop(st, p + 1);
		return p + 1;
	}
	if (p >= e)
		return NULL;
	return top_is_obj(st) ? check_key(p, e, st) : p;
}

/* After a value inside a container: where the next value starts, or past
 * closers; NULL on anything else. *done when the outermost one closed. */
static const char *check_after(const char *p, const char *e, struct vstack *st,
			       int *done)
{
	for (;;) {
		p = jv_ws(p, e);
		if (p >= e)
			return NULL;
		if (*p == ',')
			return top_is_obj(st) ? check_key(p + 1, e, st) : p + 1;
		if (*p != (top_is_obj(st) ? '}' : ']'))
			return NULL;
		pop(st, ++p);
		if (!st->depth) {
			*done = 1;
			return p;
		}
	}
}

static const char *check(const char *p, const char *e, struct vstack *st)
{
	int opened, closed, done = 0;

	for (;;) {
		/* p: where a value starts, whitespace allowed before it */
		p = jv_ws(p, e);
		if (p >= e || !(p = check_one(p, e, st, &opened)))
			return NULL;
		if (opened) {
			if (!(p = check_open(p, e, st, &closed)))
				return NULL;
			if (!closed)
				continue;	/* p: the first member's value */
		}
		/* a value ended just before p */
		if (!st->depth)
			return p;
		p = check_after(p, e, st, &done);
		if (!p || done)
			return p;
	}
}

const char *jv_check(const char *p, const char *e, struct jv_doc *d)
{
	struct vstack st;
	size_t n0 = d->n;
	const char *end;

	st.depth = 0;
	st.d = d;
	end = check(p, e, &st);
	if (!end)
		d->n = n0;	/* forget what a refused value noted */
	return end;
}

/* ---- walking checked text ---- */

/* On checked text: past the value starting at p. */
static const char *jv_skip(const struct jv_doc *d, const char *p, const char *e)
{
	const char *end;

	if (*p == '"' || *p == '{' || *p == '[')
		return (end = doc_end(d, p)) ? end : js_value(p, e);
	while (p < e && (unsigned char)*p > 32 && *p != ',' && *p != ']' && *p != '}')
		p++;
	return p;
}

int jv_begin(struct jv_iter *it, const struct jv_doc *d, const char *v,
	     const char *e)
{
	if (!v || (*v != '{' && *v != '['))
		return 0;
	it->d = d;
	it->obj = *v == '{';
	it->p = jv_ws(v + 1, e);
	it->e = e;
	return 1;
}

int jv_next(struct jv_iter *it, struct js_str *key, const char **val)
{
	const char *p = it->p;

	if (*p == ',')
		p = jv_ws(p + 1, it->e);
	if (*p == ']' || *p == '}')
		return 0;
	if (it->obj) {
		const char *end = doc_end(it->d, p);

		if (!end)
			end = js_string(p, it->e, NULL);
		if (key) {
			key->p = p + 1;
			key->n = (size_t)(end - p - 2);
			key->escaped = memchr(key->p, '\\', key->n) != NULL;
		}
		p = jv_ws(jv_ws(end, it->e) + 1, it->e);	/* past the colon */
	}
	*val = p;
	it->p = jv_ws(jv_skip(it->d, p, it->e), it->e);
	return 1;
}

size_t jv_count(const struct jv_doc *d, const char *v, const char *e)
{
	struct jv_iter it;
	const char *c;
	size_t n = 0;

	if (jv_begin(&it, d, v, e))
		while (jv_next(&it, NULL, &c))
			n++;
	return n;
}

const char *jv_get(const struct jv_doc *d, const char *v, const char *e,
		   const char *key)
{
	struct jv_iter it;
	struct js_str k;
	const char *c;

	if (!v || *v != '{' || !jv_begin(&it, d, v, e))
		return NULL;
	while (jv_next(&it, &k, &c))
		if (jv_key_eq(&k, key))
			return c;
	return NULL;
}

/* ---- strings ---- */

/* Encodes code point c (< 0x110000, no surrogate) into b; its length. */
static size_t put_utf8(unsigned long c, char *b)
{
	if (c < 0x80) {
		b[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		b[0] = (char)(0xc0 | (c >> 6));
		b[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		b[0] = (char)(0xe0 | (c >> 12));
		b[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		b[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	b[0] = (char)(0xf0 | (c >> 18));
	b[1] = (char)(0x80 | ((c >> 12) & 0x3f));
	b[2] = (char)(0x80 | ((c >> 6) & 0x3f));
	b[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

/* The escape at b (checked text): its decoded bytes into out, its length
 * in *used. Returns how many bytes it decodes to; out[0] is NUL for a
 * code that ends the C string. */
static size_t unescape(const char *b, char out[4], size_t *used)
{
	unsigned hi;

	*used = 2;
	if (b[1] != 'u') {
		out[0] = esc_byte[(unsigned char)b[1]];
		return 1;
	}
	hi = hex4(b + 2);
	*used = 6;
	if (!is_high(hi))
		return put_utf8(hi, out);
	*used = 12;
	return put_utf8(0x10000 + (((unsigned long)hi & 0x3ff) << 10) +
			(hex4(b + 8) & 0x3ff), out);
}

/* The body of a checked string from p: pieces up to the closing quote or
 * the first NUL. */
static void decode(const char *p, const char *e,
		   void (*emit)(void *arg, const char *p, size_t n), void *arg)
{
	for (;;) {
		const char *s = find3(p, e);
		char b[4];
		size_t used, n;

		if (s > p)
			emit(arg, p, (size_t)(s - p));
		if (s >= e || *s != '\\')
			return;
		n = unescape(s, b, &used);
		if (b[0] == '\0')
			return;
		emit(arg, b, n);
		p = s + used;
	}
}

void jv_str(const char *v, const char *e,
	    void (*emit)(void *arg, const char *p, size_t n), void *arg)
{
	decode(v + 1, e, emit, arg);
}

void jv_key(const struct js_str *k,
	    void (*emit)(void *arg, const char *p, size_t n), void *arg)
{
	decode(k->p, k->p + k->n + 1, emit, arg);	/* + its closing quote */
}

/* ---- strings written out in one pass ---- */

/*
 * A string body is copied to its output as runs of plain bytes (ASCII
 * from ' ' on, but '"' and '\\'), which stand the same decoded, as text
 * and in a JSON literal, with the other bytes seen one at a time. The
 * output is written in place in the sbuf, with room made ahead: a run is
 * copied sixteen bytes to a store, and stores may go past its end.
 */

static inline int is_plain(unsigned char c)
{
	return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
}

/* Output written in place: the next byte at w; at least WR_ROOM bytes of
 * room while w < lim. */
struct wr {
	struct sbuf *sb;
	char *w, *lim;
};

#define WR_ROOM 32	/* a 16-byte store, then what one other byte writes (<= 6) */

static void wr_sync(struct wr *o)
{
	o->w = o->sb->buf + o->sb->len;
	o->lim = o->sb->buf + o->sb->cap - 1 - WR_ROOM;
}

static void wr_begin(struct wr *o, struct sbuf *sb)
{
	o->sb = sb;
	sb_grow(sb, 2 * WR_ROOM);
	wr_sync(o);
}

/* Room for WR_ROOM bytes at o->w (more when the buffer grows). */
static inline void wr_room(struct wr *o)
{
	if (o->w < o->lim)
		return;
	o->sb->len = (size_t)(o->w - o->sb->buf);
	sb_grow(o->sb, 2 * WR_ROOM);
	wr_sync(o);
}

static void wr_end(struct wr *o)
{
	o->sb->len = (size_t)(o->w - o->sb->buf);
	o->sb->buf[o->sb->len] = '\0';
}

/* Copies the plain bytes from p on to o->w, while o->w < o->lim; returns
 * the first byte not copied (e if all were). Inlined: it runs once for
 * every other byte (an escape every ~25 bytes in tool output). */
static inline __attribute__((always_inline)) const char *copy_plain(const char *p, const char *e, struct wr *o)
{
	char *w = o->w;
#ifdef __SSE2__
	const __m128i q = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\'),
		      sp = _mm_set1_epi8(0x20);

	while (e - p >= 16 && w < o->lim) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		/* signed: below ' ' is a control byte or one of 0x80 and up */
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(
			_mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, bs)),
			_mm_cmplt_epi8(v, sp)));

		_mm_storeu_si128((__m128i *)(void *)w, v);
		if (m) {
			o->w = w + __builtin_ctz(m);
			return p + __builtin_ctz(m);
		}
		p += 16;
		w += 16;
	}
#endif
	while (p < e && w < o->lim && is_plain((unsigned char)*p))
		*w++ = *p++;
	o->w = w;
	return p;
}

/* Copies the plain bytes from p on: the next byte to look at (one that
 * is not plain, or is when room ran out), or NULL at the string's end
 * (its closing quote, a NUL, or e). */
static inline __attribute__((always_inline)) const char *copy_to_odd(const char *p,
							       const char *e,
							       struct wr *o)
{
	wr_room(o);
	p = copy_plain(p, e, o);
	return p >= e || *p == '"' || *p == '\0' ? NULL : p;
}

/*
 * The UTF-8 sequence at p copied to *w; its length, or 0 (nothing copied)
 * when it is not valid. Reading on to e judges it as its own piece would
 * be judged: a sequence cut short is followed by a quote, a backslash or
 * a control byte, never by a continuation byte.
 */
static size_t copy_seq(const char *p, const char *e, char **w)
{
	size_t l = utf8_seq_len((const unsigned char *)p, (size_t)(e - p));

	memcpy(*w, p, l);
	*w += l;
	return l;
}

/*
 * The body of a checked string from p decoded into out, up to the closing
 * quote or the first NUL; the number of bytes added. *valid is 0 when
 * they are not valid UTF-8. Each sequence as written is judged alone: an
 * escape decodes to whole sequences, so that is the judgement on all.
 */
static size_t text_into(const char *p, const char *e, struct sbuf *out, int *valid)
{
	size_t start = out->len, used, n;
	struct wr o;

	*valid = 1;
	wr_begin(&o, out);
	while ((p = copy_to_odd(p, e, &o))) {
		if (*p == '\\' && p[1] != 'u') {
			*o.w++ = esc_byte[(unsigned char)p[1]];
			p += 2;
		} else if (*p == '\\') {
			n = unescape(p, o.w, &used);
			if (*o.w == '\0')
				break;
			o.w += n;
			p += used;
		} else if ((unsigned char)*p < 0x80) {
			*o.w++ = *p++;	/* a control byte, or out of room */
		} else if ((n = copy_seq(p, e, &o.w))) {
			p += n;
		} else {
			*valid = 0;	/* mended by the caller */
			*o.w++ = *p++;
		}
	}
	wr_end(&o);
	return out->len - start;
}

/* Byte c (not NUL, below 0x80) as a JSON literal writes it, at *w. */
static void json_byte(char c, char **w)
{
	size_t n = json_esc((unsigned char)c, *w);

	if (!n)
		*(*w)++ = c;
	*w += n;
}

/*
 * The escape at p as a JSON literal writes its character: as written,
 * but for \/ and \u (decoded, then escaped if need be). Past it, or NULL
 * at a code that ends the C string.
 */
static const char *json_escape(const char *p, char **w)
{
	size_t used, n;
	char b[4];

	if (p[1] != 'u' && p[1] != '/') {
		memcpy(*w, p, 2);	/* \" \\ \b \f \n \r \t */
		*w += 2;
		return p + 2;
	}
	n = unescape(p, b, &used);
	if (b[0] == '\0')
		return NULL;
	if (n == 1) {
		json_byte(b[0], w);
	} else {
		memcpy(*w, b, n);
		*w += n;
	}
	return p + used;
}

/* The body of a checked string from p into out as the inside of a JSON
 * literal, as sb_add_json_chars() writes its C string. */
static void json_into(const char *p, const char *e, struct sbuf *out)
{
	struct wr o;
	size_t n;

	wr_begin(&o, out);
	while ((p = copy_to_odd(p, e, &o))) {
		if (*p == '\\') {
			if (!(p = json_escape(p, &o.w)))
				break;
		} else if ((unsigned char)*p < 0x80) {
			json_byte(*p++, &o.w);	/* a control byte, or out of room */
		} else if ((n = copy_seq(p, e, &o.w))) {
			p += n;
		} else {
			memcpy(o.w, "\xef\xbf\xbd", 3);	/* U+FFFD for the byte */
			o.w += 3;
			p++;
		}
	}
	wr_end(&o);
}

void jv_json(const char *v, const char *e, struct sbuf *out)
{
	json_into(v + 1, e, out);
}

void jv_key_json(const struct js_str *k, struct sbuf *out)
{
	json_into(k->p, k->p + k->n + 1, out);	/* + its closing quote */
}

size_t jv_text(const char *v, const char *e, struct sbuf *out, char *last)
{
	size_t start = out->len;
	int valid;
	size_t n = text_into(v + 1, e, out, &valid);

	*last = n ? out->buf[out->len - 1] : 0;
	if (!valid) {
		/* rare: mend it as sb_add_utf8() would, from a copy */
		char *copy = malloc(n);

		if (!copy)
			abort();
		memcpy(copy, out->buf + start, n);
		out->len = start;
		sb_add_utf8(out, copy, n);
		free(copy);
	}
	return n;
}

struct eq {
	const char *lit;
	size_t n, at;
	int ok;
};

static void eq_emit(void *arg, const char *p, size_t n)
{
	struct eq *q = arg;

	if (q->ok && q->at + n <= q->n && !memcmp(q->lit + q->at, p, n))
		q->at += n;
	else
		q->ok = 0;
}

/* Does the string body [p, p + n) (its closing quote at p + n) equal lit
 * as a C string? */
static int eq_raw(const char *p, size_t n, const char *lit)
{
	struct eq q = { lit, strlen(lit), 0, 1 };

	if (n == q.n && !memcmp(p, lit, n))
		return 1;	/* the usual case: no escape, no NUL */
	if (n > q.n && !memcmp(p, lit, q.n) && p[q.n] == '\0')
		return 1;	/* "lit" then a NUL as written */
	if (!memchr(p, '\\', n))
		return 0;
	decode(p, p + n + 1, eq_emit, &q);
	return q.ok && q.at == q.n;
}

static int jv_key_eq(const struct js_str *k, const char *lit)
{
	return eq_raw(k->p, k->n, lit);
}

int jv_str_eq(const char *v, const char *e, const char *lit)
{
	const char *end;

	if (!v || *v != '"' || !(end = js_string(v, e, NULL)))
		return 0;
	return eq_raw(v + 1, (size_t)(end - v - 2), lit);
}

/* ---- numbers ---- */

/* A short integer cJSON prints as written: -?[1-9][0-9]{0,8} or 0. */
static size_t plain_int(const char *v, const char *e)
{
	const char *p = v + (*v == '-'), *d = p;

	if (p < e && *p == '0')
		return v == p && (p + 1 == e || !number_char(p[1])) ? 1 : 0;
	while (p < e && *p >= '0' && *p <= '9' && p - d < 10)
		p++;
	if (p == d || p - d > 9 || (p < e && number_char(*p)))
		return 0;
	return (size_t)(p - v);
}

void jv_number(const char *v, const char *e, struct sbuf *out)
{
	size_t n = plain_int(v, e);
	cJSON *item;
	char *s;

	if (n) {
		sb_add(out, v, n);
		return;
	}
	item = cJSON_ParseWithLengthOpts(v, (size_t)(e - v), NULL, 0);
	if (item && (s = cJSON_PrintUnformatted(item))) {
		sb_adds(out, s);
		cJSON_free(s);
	}
	cJSON_Delete(item);
}

double jv_double(const char *v, const char *e)
{
	cJSON *item = cJSON_ParseWithLengthOpts(v, (size_t)(e - v), NULL, 0);
	double d = item ? item->valuedouble : 0;

	cJSON_Delete(item);
	return d;
}

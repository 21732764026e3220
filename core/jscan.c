#include "jscan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Nesting kept in a bit stack: 1 = object, 0 = array. */
#define JS_STACK_WORDS 64

static int is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

const char *js_ws(const char *p, const char *e)
{
	while (p < e && is_ws(*p))
		p++;
	return p;
}

/* js_ws() for the common case of no whitespace at all (JSONL is compact). */
static inline const char *ws(const char *p, const char *e)
{
	return p < e && (unsigned char)*p > ' ' ? p : js_ws(p, e);
}

/*
 * Strings and nested values are stepped over 64 bytes at a time: a block
 * becomes bit masks (bit i for byte i) of its quotes, backslashes and
 * brackets, and the escapes, the ends of strings and the brackets outside
 * strings are found with arithmetic on the masks instead of a branch per
 * byte. Log lines are mostly long strings full of \" and \n: a branch per
 * quote or backslash would be mispredicted at every one of them.
 */
#define JS_BLOCK 64
#define EVEN_BITS 0x5555555555555555ULL

struct js_blk {
	uint64_t quote, bslash, bracket;	/* bracket: any of {}[] */
};

/*
 * 64 readable bytes holding [p, e) from p on: p itself when that many are
 * there, else a copy in tmp padded with NULs (which are none of the bytes
 * looked for).
 */
static const char *blk_at(const char *p, const char *e, char tmp[JS_BLOCK])
{
	if (e - p >= JS_BLOCK)
		return p;
	memset(tmp, 0, JS_BLOCK);
	memcpy(tmp, p, (size_t)(e - p));
	return tmp;
}

#ifdef __SSE2__
static inline uint64_t bits16(__m128i eq)
{
	return (uint64_t)(unsigned)_mm_movemask_epi8(eq);
}

static inline uint64_t bits64(__m128i a, __m128i b, __m128i c, __m128i d)
{
	return bits16(a) | bits16(b) << 16 | bits16(c) << 32 | bits16(d) << 48;
}

static inline __m128i load16(const char *b)
{
	return _mm_loadu_si128((const __m128i *)(const void *)b);
}

/* '{' or '}', or '[' or ']' (the same without bit 0x20). */
static inline __m128i brackets16(__m128i v)
{
	__m128i l = _mm_or_si128(v, _mm_set1_epi8(0x20));

	return _mm_or_si128(_mm_cmpeq_epi8(l, _mm_set1_epi8('{')),
			    _mm_cmpeq_epi8(l, _mm_set1_epi8('}')));
}

/* Fills the block's masks; brackets only when want_brackets. */
static inline void blk_masks(const char *b, struct js_blk *m, int want_brackets)
{
	const __m128i q = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\');
	__m128i v0 = load16(b), v1 = load16(b + 16), v2 = load16(b + 32),
		v3 = load16(b + 48);

	m->quote = bits64(_mm_cmpeq_epi8(v0, q), _mm_cmpeq_epi8(v1, q),
			  _mm_cmpeq_epi8(v2, q), _mm_cmpeq_epi8(v3, q));
	m->bslash = bits64(_mm_cmpeq_epi8(v0, bs), _mm_cmpeq_epi8(v1, bs),
			   _mm_cmpeq_epi8(v2, bs), _mm_cmpeq_epi8(v3, bs));
	m->bracket = want_brackets ? bits64(brackets16(v0), brackets16(v1),
					    brackets16(v2), brackets16(v3)) : 0;
}
#else
static inline void blk_masks(const char *b, struct js_blk *m, int want_brackets)
{
	int i;

	m->quote = m->bslash = m->bracket = 0;
	for (i = 0; i < JS_BLOCK; i++) {
		uint64_t bit = (uint64_t)1 << i;
		char c = b[i];

		if (c == '"')
			m->quote |= bit;
		else if (c == '\\')
			m->bslash |= bit;
		else if (want_brackets && (c == '{' || c == '}' || c == '[' || c == ']'))
			m->bracket |= bit;
	}
}
#endif

/*
 * The bytes a backslash escapes, from the block's backslashes. A run of
 * backslashes escapes the byte after it when its length is odd, i.e. when
 * the run starts and ends on bits of different parity; adding a run's
 * first bit to the mask carries through the run to the bit just past it.
 * *carry is 1 when the block's first byte is escaped (the block before
 * ended in an unpaired backslash), and is set likewise for the next block.
 */
static inline uint64_t esc_mask(uint64_t bslash, uint64_t *carry)
{
	uint64_t first = *carry;
	uint64_t b = bslash & ~first;		/* an escaped '\' starts no run */
	uint64_t starts = b & ~(b << 1);
	uint64_t from_even = b + (starts & EVEN_BITS), from_odd;

	*carry = __builtin_add_overflow(b, starts & ~EVEN_BITS, &from_odd);
	return first | (from_even & ~b & ~EVEN_BITS) | (from_odd & ~b & EVEN_BITS);
}

/* Bit i set when an odd number of the bits 0..i of x are set. */
static inline uint64_t prefix_xor(uint64_t x)
{
	x ^= x << 1;
	x ^= x << 2;
	x ^= x << 4;
	x ^= x << 8;
	x ^= x << 16;
	x ^= x << 32;
	return x;
}

/* A short string: its closing quote within the 16 bytes at start, if no
 * backslash comes first (most keys and ids); NULL when it does not tell. */
static inline const char *string_end16(const char *start, const char *e)
{
#ifdef __SSE2__
	__m128i v;
	unsigned q, bs;

	if (e - start < 16)
		return NULL;
	v = _mm_loadu_si128((const __m128i *)(const void *)start);
	q = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')));
	bs = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));
	if (q && !(bs & ((q & -q) - 1)))
		return start + __builtin_ctz(q);
#else
	(void)start;
	(void)e;
#endif
	return NULL;
}

/*
 * The closing quote of a string whose body starts at start, or NULL: the
 * first quote not escaped. *bslash tells whether the body holds a
 * backslash.
 */
static const char *string_end(const char *start, const char *e, int *bslash)
{
	const char *p = start;
	uint64_t carry = 0, seen = 0;
	char tmp[JS_BLOCK];

	for (; p < e; p += JS_BLOCK) {
		struct js_blk m;
		uint64_t quotes;

		blk_masks(blk_at(p, e, tmp), &m, 0);
		quotes = m.quote;
		if (m.bslash | carry)
			quotes &= ~esc_mask(m.bslash, &carry);
		if (quotes) {
			*bslash = (seen | (m.bslash & ((quotes & -quotes) - 1))) != 0;
			return p + __builtin_ctzll(quotes);
		}
		seen |= m.bslash;
	}
	return NULL;
}

const char *js_string(const char *p, const char *e, struct js_str *s)
{
	const char *q;
	int bslash = 0;

	if (p >= e || *p != '"')
		return NULL;
	q = string_end16(p + 1, e);
	if (!q && !(q = string_end(p + 1, e, &bslash)))
		return NULL;
	if (s) {
		s->p = p + 1;
		s->n = (size_t)(q - p - 1);
		s->escaped = bslash;
	}
	return q + 1;
}

static const char *js_literal(const char *p, const char *e)
{
	const char *s = p;

	while (p < e && ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') ||
			 *p == '-' || *p == '+' || *p == '.' || *p == 'E'))
		p++;
	if (p == s)
		return NULL;
	if ((*s >= 'a' && *s <= 'z') &&
	    !((p - s == 4 && !memcmp(s, "true", 4)) ||
	      (p - s == 5 && !memcmp(s, "false", 5)) ||
	      (p - s == 4 && !memcmp(s, "null", 4))))
		return NULL;
	return p;
}

struct js_stack {
	uint64_t *w;		/* local, or the heap once deeper */
	size_t cap;		/* in bits */
	size_t depth;
	uint64_t local[JS_STACK_WORDS];	/* word i is set when level 64 i is pushed */
};

static int stack_grow(struct js_stack *st)
{
	size_t ncap = st->cap * 2;
	uint64_t *nw = malloc(ncap / 8);

	if (!nw)
		return -1;
	memcpy(nw, st->w, st->cap / 8);
	if (st->w != st->local)
		free(st->w);
	st->w = nw;
	st->cap = ncap;
	return 0;
}

static inline int stack_push(struct js_stack *st, int obj)
{
	size_t i = st->depth / 64, bit = st->depth % 64;

	if (st->depth == st->cap && stack_grow(st))
		return -1;
	if (!bit)
		st->w[i] = 0;
	st->w[i] = (st->w[i] & ~((uint64_t)1 << bit)) | (uint64_t)obj << bit;
	st->depth++;
	return 0;
}

static inline int stack_pop(struct js_stack *st, int obj)
{
	size_t d;

	if (!st->depth)
		return -1;
	d = --st->depth;
	return (int)((st->w[d / 64] >> (d % 64)) & 1) == obj ? 0 : -1;
}

/* Pushes or pops the bracket c; 1 when it closes the outermost one, -1
 * when it does not match or memory runs out. */
static inline int bracket(struct js_stack *st, char c)
{
	if (c == '{' || c == '[')
		return stack_push(st, c == '{');
	if (stack_pop(st, c == '}'))
		return -1;
	return st->depth == 0;
}

/*
 * One block byte by byte, for a block with a backslash outside strings
 * (not JSON, but where it fails must not change): there a backslash is an
 * ordinary byte, while the masks would let it escape a quote. Carries the
 * same state as the masks; returns like bracket(), *at the byte it ends.
 */
static int blk_walk(const char *b, struct js_stack *st, uint64_t *carry,
		    uint64_t *in_str, int *at)
{
	int i, done;

	for (i = 0; i < JS_BLOCK; i++) {
		char c = b[i];

		if (*carry) {
			*carry = 0;
		} else if (*in_str) {
			*carry = c == '\\';
			if (c == '"')
				*in_str = 0;
		} else if (c == '"') {
			*in_str = ~(uint64_t)0;
		} else if ((c == '{' || c == '}' || c == '[' || c == ']') &&
			   (done = bracket(st, c))) {
			*at = i;
			return done;
		}
	}
	return 0;
}

/*
 * One block of a nested value: strings are masked out with the running
 * parity of the unescaped quotes (*in_str: all ones when a string goes on
 * into the block), and each bracket outside them is matched. Returns like
 * bracket(), *at the byte it ends.
 */
static inline int blk_nested(const char *b, struct js_stack *st, uint64_t *carry,
			     uint64_t *in_str, int *at)
{
	uint64_t carry_in = *carry, inside, br;
	struct js_blk m;
	int done;

	blk_masks(b, &m, 1);
	if (m.bslash | carry_in)
		m.quote &= ~esc_mask(m.bslash, carry);
	inside = prefix_xor(m.quote) ^ *in_str;
	if (m.bslash & ~inside) {
		*carry = carry_in;
		return blk_walk(b, st, carry, in_str, at);
	}
	*in_str = 0 - (inside >> 63);
	for (br = m.bracket & ~inside; br; br &= br - 1) {
		*at = __builtin_ctzll(br);
		done = bracket(st, b[*at]);
		if (done)
			return done;
	}
	return 0;
}

/* p at '{' or '['. */
static const char *skip_nested(const char *p, const char *e)
{
	struct js_stack st;
	uint64_t carry = 0, in_str = 0;
	const char *r;
	char tmp[JS_BLOCK];
	int at = 0, done = 0;

	st.w = st.local;
	st.cap = JS_STACK_WORDS * 64;
	st.depth = 0;
	for (; p < e && !done; p += JS_BLOCK)
		done = blk_nested(blk_at(p, e, tmp), &st, &carry, &in_str, &at);
	r = done > 0 ? p - JS_BLOCK + at + 1 : NULL;
	if (st.w != st.local)
		free(st.w);
	return r;
}

const char *js_value(const char *p, const char *e)
{
	if (p >= e)
		return NULL;
	switch (*p) {
	case '"':
		return js_string(p, e, NULL);
	case '{':
	case '[':
		return skip_nested(p, e);
	default:
		return js_literal(p, e);
	}
}

static int iter_begin(struct js_iter *it, const char *p, const char *e, char open)
{
	if (p >= e || *p != open)
		return -1;
	it->p = p + 1;
	it->e = e;
	it->first = 1;
	return 0;
}

int js_obj_begin(struct js_iter *it, const char *p, const char *e)
{
	return iter_begin(it, p, e, '{');
}

int js_arr_begin(struct js_iter *it, const char *p, const char *e)
{
	return iter_begin(it, p, e, '[');
}

/* Steps over the separator before the next member; 1 = member, 0 = end. */
static int iter_sep(struct js_iter *it, char close)
{
	const char *p = ws(it->p, it->e);

	if (p >= it->e)
		return -1;
	if (*p == close) {
		if (!it->first && p[-1] == ',')
			return -1;
		it->p = p + 1;
		return 0;
	}
	if (!it->first) {
		if (*p != ',')
			return -1;
		p = ws(p + 1, it->e);
		if (p >= it->e || *p == close)
			return -1;
	}
	it->first = 0;
	it->p = p;
	return 1;
}

int js_obj_next(struct js_iter *it, struct js_str *key, const char **val)
{
	const char *p, *k = it->p + !it->first, *q;
	int r;

	/* the usual case: ,"key":value ("key":value first), no blanks, a
	 * short key without backslashes; the same answer as below, sooner */
	if (it->e - it->p >= 18 && (it->first || *it->p == ',') && *k == '"' &&
	    (q = string_end16(k + 1, it->e)) && it->e - q > 2 && q[1] == ':' &&
	    (unsigned char)q[2] > ' ') {
		key->p = k + 1;
		key->n = (size_t)(q - k - 1);
		key->escaped = 0;
		it->first = 0;
		*val = it->p = q + 2;
		return 1;
	}
	r = iter_sep(it, '}');
	if (r <= 0)
		return r;
	p = js_string(it->p, it->e, key);
	if (!p)
		return -1;
	p = ws(p, it->e);
	if (p >= it->e || *p != ':')
		return -1;
	p = ws(p + 1, it->e);
	if (p >= it->e)
		return -1;
	*val = p;
	it->p = p;
	return 1;
}

int js_arr_next(struct js_iter *it, const char **val)
{
	int r = iter_sep(it, ']');

	if (r <= 0)
		return r;
	*val = it->p;
	return 1;
}

int js_blank(const struct js_str *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		char c = s->p[i];

		if (is_ws(c))
			continue;
		if (c == '\\' && i + 1 < s->n &&
		    (s->p[i + 1] == 'n' || s->p[i + 1] == 't' ||
		     s->p[i + 1] == 'r')) {
			i++;
			continue;
		}
		return 0;
	}
	return 1;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static long hex4(const char *p, const char *e)
{
	long v = 0;
	int i;

	if (e - p < 4)
		return -1;
	for (i = 0; i < 4; i++) {
		int h = hexval(p[i]);

		if (h < 0)
			return -1;
		v = v * 16 + h;
	}
	return v;
}

static void put_cp(struct sbuf *out, unsigned long cp)
{
	char b[4];

	if (cp < 0x80) {
		b[0] = (char)cp;
		sb_add(out, b, 1);
	} else if (cp < 0x800) {
		b[0] = (char)(0xc0 | (cp >> 6));
		b[1] = (char)(0x80 | (cp & 0x3f));
		sb_add(out, b, 2);
	} else if (cp < 0x10000) {
		b[0] = (char)(0xe0 | (cp >> 12));
		b[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		b[2] = (char)(0x80 | (cp & 0x3f));
		sb_add(out, b, 3);
	} else {
		b[0] = (char)(0xf0 | (cp >> 18));
		b[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		b[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		b[3] = (char)(0x80 | (cp & 0x3f));
		sb_add(out, b, 4);
	}
}

/* Decodes the \u escape at p (p at the 'u'); returns the bytes used. */
static size_t unescape_u(const char *p, const char *e, struct sbuf *out)
{
	long hi = hex4(p + 1, e), lo;

	if (hi < 0) {
		put_cp(out, 0xfffd);
		return 1;
	}
	if (hi >= 0xd800 && hi <= 0xdbff && e - p >= 11 && p[5] == '\\' &&
	    p[6] == 'u') {
		lo = hex4(p + 7, e);
		if (lo >= 0xdc00 && lo <= 0xdfff) {
			put_cp(out, 0x10000 + (((unsigned long)hi - 0xd800) << 10) +
				       ((unsigned long)lo - 0xdc00));
			return 11;
		}
	}
	put_cp(out, (hi >= 0xd800 && hi <= 0xdfff) ? 0xfffd : (unsigned long)hi);
	return 5;
}

void js_unescape(const struct js_str *s, struct sbuf *out)
{
	const char *p = s->p, *e = s->p + s->n, *run = p;

	while (p < e) {
		const char *q = memchr(p, '\\', (size_t)(e - p));
		char c;

		if (!q || q + 1 >= e)
			break;
		sb_add_utf8(out, run, (size_t)(q - run));
		c = q[1];
		switch (c) {
		case 'n': sb_addc(out, '\n'); p = q + 2; break;
		case 't': sb_addc(out, '\t'); p = q + 2; break;
		case 'r': sb_addc(out, '\r'); p = q + 2; break;
		case 'b': sb_addc(out, '\b'); p = q + 2; break;
		case 'f': sb_addc(out, '\f'); p = q + 2; break;
		case 'u': p = q + 1 + unescape_u(q + 1, e, out); break;
		default: sb_addc(out, c); p = q + 2; break;
		}
		run = p;
	}
	sb_add_utf8(out, run, (size_t)(e - run));
}

uint64_t js_hash(const struct js_str *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < s->n; i++) {
		h ^= (unsigned char)s->p[i];
		h *= 0x100000001b3ULL;
	}
	return h ? h : 1;
}

static int digits(const char *p, int n, int *v)
{
	int i;

	*v = 0;
	for (i = 0; i < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return -1;
		*v = *v * 10 + (p[i] - '0');
	}
	return 0;
}

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian). */
static int64_t days_from_civil(int y, int m, int d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

int js_time(const struct js_str *s, int64_t *ms)
{
	const char *p = s->p;
	int y, mo, d, h, mi, sec, frac = 0, tzh = 0, tzm = 0, sign = 0;
	size_t i = 19;

	if (s->n < 20 || digits(p, 4, &y) || p[4] != '-' || digits(p + 5, 2, &mo) ||
	    p[7] != '-' || digits(p + 8, 2, &d) || (p[10] != 'T' && p[10] != ' ') ||
	    digits(p + 11, 2, &h) || p[13] != ':' || digits(p + 14, 2, &mi) ||
	    p[16] != ':' || digits(p + 17, 2, &sec))
		return -1;
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60)
		return -1;
	if (p[i] == '.') {
		int scale = 100;

		for (i++; i < s->n && p[i] >= '0' && p[i] <= '9'; i++) {
			frac += (p[i] - '0') * scale;
			scale /= 10;
		}
	}
	if (i < s->n && (p[i] == '+' || p[i] == '-')) {
		sign = p[i] == '-' ? -1 : 1;
		if (s->n - i != 6 || digits(p + i + 1, 2, &tzh) || p[i + 3] != ':' ||
		    digits(p + i + 4, 2, &tzm))
			return -1;
	} else if (i + 1 != s->n || p[i] != 'Z') {
		return -1;
	}
	*ms = ((days_from_civil(y, mo, d) * 24 + h) * 60 + mi) * 60000LL +
	      sec * 1000LL + frac - sign * (tzh * 60 + tzm) * 60000LL;
	return 0;
}

void js_time_fmt(int64_t ms, char buf[32])
{
	int64_t days = ms / 86400000, rem = ms % 86400000, z, era, doe, yoe, y, doy, mp;
	unsigned d, m;

	if (rem < 0) {
		rem += 86400000;
		days--;
	}
	z = days + 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	y = yoe + era * 400;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	d = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
	m = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
	y += m <= 2;
	snprintf(buf, 32, "%04d-%02u-%02uT%02d:%02d:%02d.%03dZ", (int)y, m, d,
		 (int)(rem / 3600000), (int)(rem / 60000 % 60), (int)(rem / 1000 % 60),
		 (int)(rem % 1000));
}

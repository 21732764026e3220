#include "jscan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "jskip.h"

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
 * A short plain string, the most common kind (keys, ids, times): its
 * closing quote within the 64 bytes at start, looked for 16 at a time
 * while no backslash comes first. NULL when that does not tell; *from is
 * then where jskip_string() can go on (nothing before needs decoding).
 */
static inline const char *string_end_short(const char *start, const char *e,
					   const char **from)
{
	const char *p = start;
#ifdef __SSE2__
	int i;

	for (i = 0; i < 4 && e - p >= 16; i++, p += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		unsigned q = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('"'))),
			 bs = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));

		if (q && !(bs & ((q & -q) - 1)))
			return p + __builtin_ctz(q);
		if (bs)
			break;
	}
#else
	(void)e;
#endif
	*from = p;
	return NULL;
}

/* js_string(), inlined where a value is stepped over. */
static inline const char *string_at(const char *p, const char *e, struct js_str *s)
{
	const char *q, *from;
	int bslash = 0;

	if (p >= e || *p != '"')
		return NULL;
	q = string_end_short(p + 1, e, &from);
	if (!q && !(q = jskip_string(from, e, &bslash)))
		return NULL;
	if (s) {
		s->p = p + 1;
		s->n = (size_t)(q - p - 1);
		s->escaped = bslash;
	}
	return q + 1;
}

const char *js_string(const char *p, const char *e, struct js_str *s)
{
	return string_at(p, e, s);
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

const char *js_value(const char *p, const char *e)
{
	if (p >= e)
		return NULL;
	switch (*p) {
	case '"':
		return string_at(p, e, NULL);
	case '{':
	case '[':
		return jskip_nested(p, e);
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

/* js_obj_next() with blanks, escapes or the closing brace: kept out of
 * line, so that the usual case saves no registers. */
static __attribute__((noinline)) int obj_next_slow(struct js_iter *it,
						   struct js_str *key,
						   const char **val)
{
	const char *p;
	int r = iter_sep(it, '}');

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

int js_obj_next(struct js_iter *it, struct js_str *key, const char **val)
{
	const char *k = it->p + !it->first, *q, *from;

	/* the usual case: ,"key":value ("key":value first), no blanks, a
	 * short key without backslashes; the same answer as below, sooner */
	if (it->e - it->p >= 18 && (it->first || *it->p == ',') && *k == '"' &&
	    (q = string_end_short(k + 1, it->e, &from)) && it->e - q > 2 && q[1] == ':' &&
	    (unsigned char)q[2] > ' ') {
		key->p = k + 1;
		key->n = (size_t)(q - k - 1);
		key->escaped = 0;
		it->first = 0;
		*val = it->p = q + 2;
		return 1;
	}
	return obj_next_slow(it, key, val);
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
	const char *p, *e, *run;

	if (!s->n)		/* an empty string may have no bytes (p NULL) */
		return;
	p = run = s->p;
	e = s->p + s->n;
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

/* v (below 10^n) as n decimal digits at b, zero-padded. */
static void put_dec(char *b, unsigned v, int n)
{
	while (n--) {
		b[n] = (char)('0' + v % 10);
		v /= 10;
	}
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
	if (y < 0 || y > 9999) {
		char wide[64];	/* room for any int: no truncation to warn of */
		int n = snprintf(wide, sizeof(wide), "%04d-%02u-%02uT%02d:%02d:%02d.%03dZ",
				 (int)y, m, d, (int)(rem / 3600000), (int)(rem / 60000 % 60),
				 (int)(rem / 1000 % 60), (int)(rem % 1000));

		n = n < 0 ? 0 : n > 31 ? 31 : n;
		memcpy(buf, wide, (size_t)n);
		buf[n] = '\0';
		return;
	}
	/* the usual years, without snprintf (a tenth of a message file's
	 * rendering went to it) */
	memcpy(buf, "0000-00-00T00:00:00.000Z", 25);
	put_dec(buf, (unsigned)y, 4);
	put_dec(buf + 5, m, 2);
	put_dec(buf + 8, d, 2);
	put_dec(buf + 11, (unsigned)(rem / 3600000), 2);
	put_dec(buf + 14, (unsigned)(rem / 60000 % 60), 2);
	put_dec(buf + 17, (unsigned)(rem / 1000 % 60), 2);
	put_dec(buf + 20, (unsigned)(rem % 1000), 3);
}

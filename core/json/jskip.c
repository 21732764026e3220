#include "jskip.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__SSE2__) && (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define JSKIP_AVX2 1
#include <immintrin.h>
#endif

#define BLOCK 64
#define EVEN_BITS 0x5555555555555555ULL
#define STACK_WORDS 64		/* nesting kept without malloc: 4096 levels */

/* Inlined even into the AVX2 copies of the loops below, which GCC and
 * clang only do for a function marked so. */
#define ALWAYS_INLINE static inline __attribute__((always_inline))

struct blk {
	uint64_t quote, bslash, bracket;	/* bracket: any of {}[] */
};

/* Fills a block's masks (brackets only when want_brackets). */
typedef void blk_fn(const char *b, struct blk *m, int want_brackets);

/*
 * 64 readable bytes holding [p, e) from p on: p itself when that many are
 * there, else a copy in tmp padded with NULs (which are none of the bytes
 * looked for).
 */
static const char *blk_at(const char *p, const char *e, char tmp[BLOCK])
{
	if (e - p >= BLOCK)
		return p;
	memset(tmp, 0, BLOCK);
	memcpy(tmp, p, (size_t)(e - p));
	return tmp;
}

/* The next block's start: 64 bytes on, or e (never a pointer past it). */
static inline const char *blk_next(const char *p, const char *e)
{
	return e - p > BLOCK ? p + BLOCK : e;
}

/* ---- masks ---- */

#ifdef __SSE2__
ALWAYS_INLINE uint64_t bits16(__m128i eq)
{
	return (uint64_t)(unsigned)_mm_movemask_epi8(eq);
}

ALWAYS_INLINE uint64_t bits64(__m128i a, __m128i b, __m128i c, __m128i d)
{
	return bits16(a) | bits16(b) << 16 | bits16(c) << 32 | bits16(d) << 48;
}

ALWAYS_INLINE __m128i load16(const char *b)
{
	return _mm_loadu_si128((const __m128i *)(const void *)b);
}

/* '{' or '}', or '[' or ']' (the same without bit 0x20). */
ALWAYS_INLINE __m128i brackets16(__m128i v)
{
	__m128i l = _mm_or_si128(v, _mm_set1_epi8(0x20));

	return _mm_or_si128(_mm_cmpeq_epi8(l, _mm_set1_epi8('{')),
			    _mm_cmpeq_epi8(l, _mm_set1_epi8('}')));
}

ALWAYS_INLINE void masks_portable(const char *b, struct blk *m, int want_brackets)
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
ALWAYS_INLINE void masks_portable(const char *b, struct blk *m, int want_brackets)
{
	int i;

	m->quote = m->bslash = m->bracket = 0;
	for (i = 0; i < BLOCK; i++) {
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

#ifdef JSKIP_AVX2
#define AVX2 __attribute__((target("avx2")))

AVX2 ALWAYS_INLINE uint64_t bits32(__m256i eq)
{
	return (uint64_t)(uint32_t)_mm256_movemask_epi8(eq);
}

AVX2 ALWAYS_INLINE __m256i brackets32(__m256i v)
{
	__m256i l = _mm256_or_si256(v, _mm256_set1_epi8(0x20));

	return _mm256_or_si256(_mm256_cmpeq_epi8(l, _mm256_set1_epi8('{')),
			       _mm256_cmpeq_epi8(l, _mm256_set1_epi8('}')));
}

AVX2 ALWAYS_INLINE void masks_avx2(const char *b, struct blk *m, int want_brackets)
{
	const __m256i q = _mm256_set1_epi8('"'), bs = _mm256_set1_epi8('\\');
	__m256i v0 = _mm256_loadu_si256((const __m256i *)(const void *)b),
		v1 = _mm256_loadu_si256((const __m256i *)(const void *)(b + 32));

	m->quote = bits32(_mm256_cmpeq_epi8(v0, q)) |
		   bits32(_mm256_cmpeq_epi8(v1, q)) << 32;
	m->bslash = bits32(_mm256_cmpeq_epi8(v0, bs)) |
		    bits32(_mm256_cmpeq_epi8(v1, bs)) << 32;
	m->bracket = want_brackets ? bits32(brackets32(v0)) |
				     bits32(brackets32(v1)) << 32 : 0;
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
ALWAYS_INLINE uint64_t esc_mask(uint64_t bslash, uint64_t *carry)
{
	uint64_t first = *carry;
	uint64_t b = bslash & ~first;		/* an escaped '\' starts no run */
	uint64_t starts = b & ~(b << 1);
	uint64_t from_even = b + (starts & EVEN_BITS), from_odd;

	*carry = __builtin_add_overflow(b, starts & ~EVEN_BITS, &from_odd);
	return first | (from_even & ~b & ~EVEN_BITS) | (from_odd & ~b & EVEN_BITS);
}

/* Bit i set when an odd number of the bits 0..i of x are set. */
ALWAYS_INLINE uint64_t prefix_xor(uint64_t x)
{
	x ^= x << 1;
	x ^= x << 2;
	x ^= x << 4;
	x ^= x << 8;
	x ^= x << 16;
	x ^= x << 32;
	return x;
}

/* ---- strings ---- */

/*
 * Whether the escapes must be worked out to find a string's end in a
 * block: not when the first quote follows no backslash (it ends the
 * string), nor when there is no quote and the block does not end in a
 * backslash (nothing to find, and the next block starts unescaped).
 */
ALWAYS_INLINE int quotes_need_escapes(uint64_t quotes, uint64_t bslash, uint64_t carry)
{
	if (quotes)
		return ((bslash << 1 | carry) & (quotes & -quotes)) != 0;
	return (bslash >> 63) != 0;
}

/* carry: 1 when the byte at p is escaped. */
ALWAYS_INLINE const char *string_with(blk_fn *masks, const char *p, const char *e,
				      uint64_t carry, int *bslash)
{
	uint64_t seen = 0;
	char tmp[BLOCK];

	for (; p < e; p = blk_next(p, e)) {
		struct blk m;
		uint64_t quotes;

		masks(blk_at(p, e, tmp), &m, 0);
		quotes = m.quote;
		if (quotes_need_escapes(quotes, m.bslash, carry))
			quotes &= ~esc_mask(m.bslash, &carry);
		else
			carry = 0;
		if (quotes) {
			*bslash = (seen | (m.bslash & ((quotes & -quotes) - 1))) != 0;
			return p + __builtin_ctzll(quotes);
		}
		seen |= m.bslash;
	}
	return NULL;
}

/*
 * The same walk, stopping also at the first escape before the closing
 * quote whose escaped byte is not flagged in ok[]: the escapes come from
 * the masks, and only their bytes are looked at, one by one.
 */
ALWAYS_INLINE const char *string_esc_with(blk_fn *masks, const char *p, const char *e,
					  const char ok[256])
{
	uint64_t carry = 0, quotes, esc;
	char tmp[BLOCK];

	for (; p < e; p = blk_next(p, e)) {
		const char *b = blk_at(p, e, tmp);
		struct blk m;

		masks(b, &m, 0);
		quotes = m.quote;
		if (m.bslash | carry) {
			esc = esc_mask(m.bslash, &carry);
			quotes &= ~esc;
			if (quotes)
				esc &= (quotes & -quotes) - 1;
			else if (e - p < BLOCK)
				esc &= ((uint64_t)1 << (e - p)) - 1;	/* not the padding */
			for (; esc; esc &= esc - 1)
				if (!ok[(unsigned char)b[__builtin_ctzll(esc)]])
					return p + __builtin_ctzll(esc) - 1;
		}
		if (quotes)
			return p + __builtin_ctzll(quotes);
	}
	return NULL;
}

/* ---- nested values ---- */

/* Nesting kept in a bit stack: 1 = object, 0 = array. */
struct stack {
	uint64_t *w;		/* local, or the heap once deeper */
	size_t cap;		/* in bits */
	size_t depth;
	uint64_t local[STACK_WORDS];	/* word i is set when level 64 i is pushed */
};

static int stack_grow(struct stack *st)
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

ALWAYS_INLINE int stack_push(struct stack *st, int obj)
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

ALWAYS_INLINE int stack_pop(struct stack *st, int obj)
{
	size_t d;

	if (!st->depth)
		return -1;
	d = --st->depth;
	return (int)((st->w[d / 64] >> (d % 64)) & 1) == obj ? 0 : -1;
}

/* Pushes or pops the bracket c; 1 when it closes the outermost one, -1
 * when it does not match or memory runs out. */
ALWAYS_INLINE int bracket(struct stack *st, char c)
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
static int blk_walk(const char *b, struct stack *st, uint64_t *carry,
		    uint64_t *in_str, int *at)
{
	int i, done;

	for (i = 0; i < BLOCK; i++) {
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
ALWAYS_INLINE int nested_blk(blk_fn *masks, const char *b, struct stack *st,
			     uint64_t *carry, uint64_t *in_str, int *at)
{
	uint64_t carry_in = *carry, inside, br;
	struct blk m;
	int done;

	masks(b, &m, 1);
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

/*
 * A block that starts and ends inside a string most likely lies in a long
 * one (file contents, tool output): the rest of it is found with the
 * cheaper string masks, and the value goes on just past its closing quote.
 */
ALWAYS_INLINE const char *nested_with(blk_fn *masks, const char *p, const char *e)
{
	struct stack st;
	uint64_t carry = 0, in_str = 0;
	const char *r = NULL;
	char tmp[BLOCK];
	int at = 0, done = 0, bslash;

	st.w = st.local;
	st.cap = STACK_WORDS * 64;
	st.depth = 0;
	while (p < e) {
		const char *blk = p;
		uint64_t was_in = in_str;

		done = nested_blk(masks, blk_at(p, e, tmp), &st, &carry, &in_str, &at);
		p = blk_next(p, e);
		if (done) {
			r = done > 0 ? blk + at + 1 : NULL;
			break;
		}
		if (!(was_in & in_str) || p == e)
			continue;
		p = string_with(masks, p, e, carry, &bslash);
		if (!p)
			break;
		p++;
		carry = in_str = 0;
	}
	if (st.w != st.local)
		free(st.w);
	return r;
}

/* ---- one copy of the loops per instruction set ---- */

static const char *string_portable(const char *p, const char *e, int *bslash)
{
	return string_with(masks_portable, p, e, 0, bslash);
}

static const char *string_esc_portable(const char *p, const char *e, const char ok[256])
{
	return string_esc_with(masks_portable, p, e, ok);
}

static const char *nested_portable(const char *p, const char *e)
{
	return nested_with(masks_portable, p, e);
}

#ifdef JSKIP_AVX2
AVX2 static const char *string_avx2(const char *p, const char *e, int *bslash)
{
	return string_with(masks_avx2, p, e, 0, bslash);
}

AVX2 static const char *string_esc_avx2(const char *p, const char *e, const char ok[256])
{
	return string_esc_with(masks_avx2, p, e, ok);
}

AVX2 static const char *nested_avx2(const char *p, const char *e)
{
	return nested_with(masks_avx2, p, e);
}
#endif

enum jskip_isa jskip_isa(void)
{
#ifdef JSKIP_AVX2
	if (__builtin_cpu_supports("avx2"))
		return JSKIP_AVX2;
#endif
	return JSKIP_PORTABLE;
}

const char *jskip_string_isa(enum jskip_isa isa, const char *p, const char *e,
			     int *bslash)
{
#ifdef JSKIP_AVX2
	if (isa == JSKIP_AVX2)
		return string_avx2(p, e, bslash);
#endif
	(void)isa;
	return string_portable(p, e, bslash);
}

const char *jskip_string_esc_isa(enum jskip_isa isa, const char *p, const char *e,
				 const char ok[256])
{
#ifdef JSKIP_AVX2
	if (isa == JSKIP_AVX2)
		return string_esc_avx2(p, e, ok);
#endif
	(void)isa;
	return string_esc_portable(p, e, ok);
}

const char *jskip_nested_isa(enum jskip_isa isa, const char *p, const char *e)
{
#ifdef JSKIP_AVX2
	if (isa == JSKIP_AVX2)
		return nested_avx2(p, e);
#endif
	(void)isa;
	return nested_portable(p, e);
}

const char *jskip_string(const char *p, const char *e, int *bslash)
{
	return jskip_string_isa(jskip_isa(), p, e, bslash);
}

const char *jskip_nested(const char *p, const char *e)
{
	return jskip_nested_isa(jskip_isa(), p, e);
}

const char *jskip_string_esc(const char *p, const char *e, const char ok[256])
{
	return jskip_string_esc_isa(jskip_isa(), p, e, ok);
}

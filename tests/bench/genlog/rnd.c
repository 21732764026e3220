/* rnd: the seeded generator, picks, uuids, ids and hashes; see rnd.h. */
#include <string.h>

#include "rnd.h"

/* -------------------------------------------------------------- hashes */

uint64_t fnv1a(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ULL;
	return h;
}

void hex16(uint64_t v, char out[17])
{
	static const char hex[] = "0123456789abcdef";

	for (int i = 15; i >= 0; i--, v >>= 4)
		out[i] = hex[v & 15];
	out[16] = '\0';
}

/* ---------------------------------------------------------- randomness */

uint64_t rnd(struct gen *g)
{
	uint64_t z = (g->rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint32_t rnd_below(struct gen *g, uint32_t n)
{
	return (uint32_t)(((rnd(g) >> 32) * n) >> 32);
}

uint32_t rnd_range(struct gen *g, uint32_t lo, uint32_t hi)
{
	return lo + rnd_below(g, hi - lo + 1);
}

bool rnd_chance(struct gen *g, unsigned pct)
{
	return rnd_below(g, 100) < pct;
}

size_t rnd_size(struct gen *g, size_t lo, unsigned octaves)
{
	size_t base = lo << rnd_below(g, octaves);

	return base + rnd_below(g, (uint32_t)base);
}

unsigned rnd_weighted(struct gen *g, const unsigned *w, unsigned n)
{
	unsigned total = 0, r;

	for (unsigned i = 0; i < n; i++)
		total += w[i];
	r = rnd_below(g, total);
	for (unsigned i = 0; i < n; i++) {
		if (r < w[i])
			return i;
		r -= w[i];
	}
	return n - 1;
}

void rnd_uuid(struct gen *g, char out[UUID_LEN + 1])
{
	static const char hex[] = "0123456789abcdef";
	uint64_t a = rnd(g), b = rnd(g);
	unsigned char by[16];
	unsigned j = 0;

	for (int i = 0; i < 8; i++) {
		by[i] = (unsigned char)(a >> (8 * i));
		by[8 + i] = (unsigned char)(b >> (8 * i));
	}
	by[6] = (unsigned char)((by[6] & 0x0f) | 0x40); /* version 4 */
	by[8] = (unsigned char)((by[8] & 0x3f) | 0x80); /* RFC 4122 variant */
	for (int i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			out[j++] = '-';
		out[j++] = hex[by[i] >> 4];
		out[j++] = hex[by[i] & 15];
	}
	out[j] = '\0';
}

void rnd_hash(struct gen *g, char out[HASH_LEN + 1])
{
	for (int i = 0; i < HASH_LEN; i += 16)
		hex16(rnd(g), out + i);
}

/* "msg_01..." / "toolu_01..." style ids. */
void rnd_id(struct gen *g, const char *prefix, char out[ID_LEN + 1])
{
	static const char b62[] =
		"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
	size_t n = strlen(prefix);

	memcpy(out, prefix, n);
	for (int i = 0; i < ID_TAIL; i++)
		out[n++] = b62[rnd_below(g, 62)];
	out[n] = '\0';
}

/*
 * rnd: genlog's one source of randomness, and the ids made from it.
 *
 * A splitmix64 generator seeded in gen_init() (g->rng): every id, size,
 * pick and timestamp of the log is drawn from it, so the log depends only
 * on the arguments. Each call below draws a fixed number of values for the
 * same inputs; calling them in another order changes the log.
 *
 * fnv1a() and hex16() draw nothing: they name things after their content
 * (backup files, skill digests).
 *
 * Thread-safety: none; the generator is part of the run's struct gen.
 */
#ifndef GENLOG_RND_H
#define GENLOG_RND_H

#include "gen.h"

/* The next 64 random bits. */
uint64_t rnd(struct gen *g);
/* Uniform in [0, n) / in [lo, hi]. */
uint32_t rnd_below(struct gen *g, uint32_t n);
uint32_t rnd_range(struct gen *g, uint32_t lo, uint32_t hi);
/* True pct times in 100. */
bool rnd_chance(struct gen *g, unsigned pct);
/* An element of a static array, uniformly. */
#define PICK(g, arr) ((arr)[rnd_below((g), (uint32_t)ARRAY_LEN(arr))])
/* A size spread evenly over octaves: lo up to lo << octaves. */
size_t rnd_size(struct gen *g, size_t lo, unsigned octaves);
/* An index in [0, n), each i with weight w[i]. */
unsigned rnd_weighted(struct gen *g, const unsigned *w, unsigned n);

/* A version 4 uuid, lowercase, into out (NUL-terminated). */
void rnd_uuid(struct gen *g, char out[UUID_LEN + 1]);
/* 64 hex digits (a sha256's look), into out. */
void rnd_hash(struct gen *g, char out[HASH_LEN + 1]);
/* prefix ("msg_01", "toolu_01") and ID_TAIL base62 digits, into out. */
void rnd_id(struct gen *g, const char *prefix, char out[ID_LEN + 1]);

/* FNV-1a of a string; draws nothing. */
uint64_t fnv1a(const char *s);
/* v as 16 lowercase hex digits and a NUL. */
void hex16(uint64_t v, char out[17]);

#endif

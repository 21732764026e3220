/*
 * cache: rendered file contents, shared and bounded.
 *
 * A blob is an immutable, reference-counted byte string. The cache maps an
 * inode number to a blob and holds at most max_bytes of them, dropping the
 * least recently used; a blob dropped while a reader holds it lives until
 * that reader lets go. A blob larger than max_bytes is held too, outside
 * the budget: the CACHE_BIG most recently used of them (the kernel reads a
 * file in pieces, and rendering a huge record for each piece would cost
 * its size every time; the other blobs stay).
 * All functions are thread-safe.
 */
#ifndef SESSFS_CACHE_H
#define SESSFS_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "sbuf.h"

#define CACHE_BIG 2	/* blobs larger than the budget kept */

struct blob {
	int refs;		/* atomic */
	size_t len;
	char *data;		/* len bytes and a NUL */
};

/* Returns a new blob holding sb's bytes with one reference, taking its
 * buffer (no copy; sb is left empty), or NULL (sb unchanged). */
struct blob *blob_take(struct sbuf *sb);
void blob_ref(struct blob *b);
void blob_unref(struct blob *b);

struct cache;

struct cache *cache_new(size_t max_bytes);
void cache_free(struct cache *c);
/* The blob of key with a new reference for the caller, or NULL. */
struct blob *cache_get(struct cache *c, uint64_t key);
/* Stores b under key (the cache takes its own reference). */
void cache_put(struct cache *c, uint64_t key, struct blob *b);
/* Drops the entry of key, if there is one. */
void cache_drop(struct cache *c, uint64_t key);
/* The bytes of the blobs held within the budget. */
size_t cache_bytes(struct cache *c);
/* Drops every entry for which keep(key) is false. */
void cache_prune(struct cache *c, int (*keep)(uint64_t key));

#endif

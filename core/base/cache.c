#include "cache.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

struct centry {
	UT_hash_handle hh;
	uint64_t key;
	struct blob *b;
	struct centry *prev, *next;	/* LRU: head is the newest */
};

struct cache {
	pthread_mutex_t mu;
	struct centry *map, *head, *tail;
	size_t bytes, max;	/* of the blobs within the budget */
	unsigned nbig;		/* blobs larger than max */
};

struct blob *blob_take(struct sbuf *sb)
{
	struct blob *b = malloc(sizeof(*b));
	char *p;

	if (!b)
		return NULL;
	b->refs = 1;
	b->data = sb_detach(sb, &b->len);
	/* give back what the buffer grew beyond the text */
	p = realloc(b->data, b->len + 1);
	if (p)
		b->data = p;
	return b;
}

void blob_ref(struct blob *b)
{
	__atomic_add_fetch(&b->refs, 1, __ATOMIC_RELAXED);
}

void blob_unref(struct blob *b)
{
	if (b && __atomic_sub_fetch(&b->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		free(b->data);
		free(b);
	}
}

struct cache *cache_new(size_t max_bytes)
{
	struct cache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	pthread_mutex_init(&c->mu, NULL);
	c->max = max_bytes;
	return c;
}

static void unlink_entry(struct cache *c, struct centry *e)
{
	if (e->prev)
		e->prev->next = e->next;
	else
		c->head = e->next;
	if (e->next)
		e->next->prev = e->prev;
	else
		c->tail = e->prev;
	e->prev = e->next = NULL;
}

static void push_front(struct cache *c, struct centry *e)
{
	e->next = c->head;
	e->prev = NULL;
	if (c->head)
		c->head->prev = e;
	c->head = e;
	if (!c->tail)
		c->tail = e;
}

static int is_big(const struct cache *c, const struct blob *b)
{
	return b->len > c->max;
}

static void drop(struct cache *c, struct centry *e)
{
	unlink_entry(c, e);
	HASH_DEL(c->map, e);
	if (is_big(c, e->b))
		c->nbig--;
	else
		c->bytes -= e->b->len;
	blob_unref(e->b);
	free(e);
}

/* Drops the least recently used blob that is big (or not). */
static void drop_oldest(struct cache *c, int big)
{
	struct centry *e;

	for (e = c->tail; e; e = e->prev) {
		if (is_big(c, e->b) == big) {
			drop(c, e);
			return;
		}
	}
}

void cache_free(struct cache *c)
{
	if (!c)
		return;
	while (c->head)
		drop(c, c->head);
	pthread_mutex_destroy(&c->mu);
	free(c);
}

struct blob *cache_get(struct cache *c, uint64_t key)
{
	struct centry *e = NULL;
	struct blob *b = NULL;

	pthread_mutex_lock(&c->mu);
	HASH_FIND(hh, c->map, &key, sizeof(key), e);
	if (e) {
		unlink_entry(c, e);
		push_front(c, e);
		b = e->b;
		blob_ref(b);
	}
	pthread_mutex_unlock(&c->mu);
	return b;
}

void cache_put(struct cache *c, uint64_t key, struct blob *b)
{
	struct centry *e = NULL;

	pthread_mutex_lock(&c->mu);
	HASH_FIND(hh, c->map, &key, sizeof(key), e);
	if (e)
		drop(c, e);
	e = calloc(1, sizeof(*e));
	if (e) {
		e->key = key;
		e->b = b;
		blob_ref(b);
		HASH_ADD(hh, c->map, key, sizeof(key), e);
		push_front(c, e);
		if (is_big(c, b))
			c->nbig++;
		else
			c->bytes += b->len;
		while (c->bytes > c->max)
			drop_oldest(c, 0);
		while (c->nbig > CACHE_BIG)
			drop_oldest(c, 1);
	}
	pthread_mutex_unlock(&c->mu);
}

size_t cache_bytes(struct cache *c)
{
	size_t n;

	pthread_mutex_lock(&c->mu);
	n = c->bytes;
	pthread_mutex_unlock(&c->mu);
	return n;
}

void cache_prune(struct cache *c, int (*keep)(uint64_t key))
{
	struct centry *e, *t;

	pthread_mutex_lock(&c->mu);
	HASH_ITER(hh, c->map, e, t)
		if (!keep(e->key))
			drop(c, e);
	pthread_mutex_unlock(&c->mu);
}

void cache_drop(struct cache *c, uint64_t key)
{
	struct centry *e = NULL;

	pthread_mutex_lock(&c->mu);
	HASH_FIND(hh, c->map, &key, sizeof(key), e);
	if (e)
		drop(c, e);
	pthread_mutex_unlock(&c->mu);
}

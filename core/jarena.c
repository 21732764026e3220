#include "jarena.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include <cjson/cJSON.h>

struct ja_chunk {
	struct ja_chunk *next;
	char *end, *at;
	_Alignas(16) char mem[];
};

static _Thread_local struct jarena *active;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static int owns(const struct jarena *a, const void *p)
{
	const struct ja_chunk *c;

	for (c = a->chunks; c; c = c->next)
		if ((const char *)p >= c->mem && (const char *)p < c->end)
			return 1;
	return 0;
}

static void *arena_alloc(struct jarena *a, size_t n)
{
	struct ja_chunk *c = a->chunks;
	size_t size;
	char *p;

	n = (n + 15) & ~(size_t)15;
	if (!c || (size_t)(c->end - c->at) < n) {
		size = a->next_size ? a->next_size : JA_CHUNK;
		if (size < n)
			size = n;
		c = malloc(sizeof(*c) + size);
		if (!c)
			return NULL;
		c->end = c->mem + size;
		c->at = c->mem;
		c->next = a->chunks;
		a->chunks = c;
		a->next_size = size * 2;
	}
	p = c->at;
	c->at += n;
	return p;
}

static void *hook_malloc(size_t n)
{
	return active ? arena_alloc(active, n) : malloc(n);
}

static void hook_free(void *p)
{
	if (active && owns(active, p))
		return;
	free(p);
}

static void install(void)
{
	cJSON_Hooks h = { hook_malloc, hook_free };

	cJSON_InitHooks(&h);
}

void ja_install(void)
{
	pthread_once(&once, install);
}

void ja_begin(struct jarena *a)
{
	a->chunks = NULL;
	a->next_size = 0;
	active = a;
}

void ja_end(struct jarena *a)
{
	struct ja_chunk *c = a->chunks, *n;

	for (; c; c = n) {
		n = c->next;
		free(c);
	}
	a->chunks = NULL;
	if (active == a)
		active = NULL;
}

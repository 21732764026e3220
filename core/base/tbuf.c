#include "tbuf.h"

#include <pthread.h>
#include <stdlib.h>

struct tbuf {
	size_t size;
	char data[];
};

static pthread_key_t keys[TB_NSLOTS];
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int have_keys;

static void make_keys(void)
{
	unsigned i;

	for (i = 0; i < TB_NSLOTS; i++)
		if (pthread_key_create(&keys[i], free))
			return;
	have_keys = 1;
}

void *tb_get(unsigned slot, size_t size)
{
	struct tbuf *b;

	if (slot >= TB_NSLOTS || pthread_once(&once, make_keys) || !have_keys)
		return NULL;
	b = pthread_getspecific(keys[slot]);
	if (b && b->size >= size)
		return b->data;
	free(b);
	pthread_setspecific(keys[slot], NULL);
	if (!(b = malloc(sizeof(*b) + size)))
		return NULL;
	b->size = size;
	if (pthread_setspecific(keys[slot], b)) {
		free(b);
		return NULL;
	}
	return b->data;
}

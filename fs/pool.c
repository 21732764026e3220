#include "pool.h"

#include <pthread.h>
#include <stdlib.h>

struct batch {
	void (*fn)(void *arg, size_t i);
	void *arg;
	size_t n;
	size_t next;		/* atomic: the next item to take */
};

struct pool {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t work;	/* a batch was handed over, or stop */
	pthread_cond_t done;	/* the helper let go of its batch */
	struct batch *b;	/* the helper's batch; NULL when it is idle */
	int stop;
};

static void run_items(struct batch *b)
{
	size_t i;

	while ((i = __atomic_fetch_add(&b->next, 1, __ATOMIC_RELAXED)) < b->n)
		b->fn(b->arg, i);
}

static void *helper(void *arg)
{
	struct pool *p = arg;

	pthread_mutex_lock(&p->mu);
	for (;;) {
		struct batch *b;

		while (!p->b && !p->stop)
			pthread_cond_wait(&p->work, &p->mu);
		if (p->stop)
			break;
		b = p->b;
		pthread_mutex_unlock(&p->mu);
		run_items(b);
		pthread_mutex_lock(&p->mu);
		p->b = NULL;
		pthread_cond_broadcast(&p->done);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

struct pool *pool_new(void)
{
	struct pool *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->done, NULL);
	if (pthread_create(&p->th, NULL, helper, p)) {
		pthread_cond_destroy(&p->done);
		pthread_cond_destroy(&p->work);
		pthread_mutex_destroy(&p->mu);
		free(p);
		return NULL;
	}
	return p;
}

void pool_free(struct pool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->stop = 1;
	pthread_cond_signal(&p->work);
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->th, NULL);
	pthread_cond_destroy(&p->done);
	pthread_cond_destroy(&p->work);
	pthread_mutex_destroy(&p->mu);
	free(p);
}

void pool_run(struct pool *p, size_t n, void (*fn)(void *arg, size_t i), void *arg)
{
	struct batch b = { fn, arg, n, 0 };
	int shared = 0;

	if (p && n > 1) {
		pthread_mutex_lock(&p->mu);
		if (!p->b && !p->stop) {
			p->b = &b;
			shared = 1;
			pthread_cond_signal(&p->work);
		}
		pthread_mutex_unlock(&p->mu);
	}
	run_items(&b);
	if (!shared)
		return;
	/* b lives on this stack: wait until the helper has let go of it */
	pthread_mutex_lock(&p->mu);
	while (p->b == &b)
		pthread_cond_wait(&p->done, &p->mu);
	pthread_mutex_unlock(&p->mu);
}

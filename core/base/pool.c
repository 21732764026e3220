#include "pool.h"

#include <pthread.h>
#include <stdlib.h>

#include "plat.h"

struct pool {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t work;	/* a batch was handed over, or stop */
	pthread_cond_t done;	/* the helper let go of its batch */
	struct pool_job *b;	/* the helper's batch; NULL when it is idle */
	int stop;
};

static void run_items(struct pool_job *b)
{
	size_t i;

	while ((i = __atomic_fetch_add(&b->next, 1, __ATOMIC_RELAXED)) < b->n)
		b->fn(b->arg, i);
}

static void *helper(void *arg)
{
	struct pool *p = arg;

	pl_name_thread("sessfs-pool");
	pl_background_thread();
	pthread_mutex_lock(&p->mu);
	for (;;) {
		struct pool_job *b;

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

int pool_post(struct pool *p, struct pool_job *j)
{
	int taken = 0;

	if (!p)
		return 0;
	pthread_mutex_lock(&p->mu);
	if (!p->b && !p->stop) {
		p->b = j;
		taken = 1;
		pthread_cond_signal(&p->work);
	}
	pthread_mutex_unlock(&p->mu);
	return taken;
}

void pool_wait(struct pool *p, struct pool_job *j, int drop)
{
	if (drop)
		__atomic_store_n(&j->next, j->n, __ATOMIC_RELAXED);
	else
		run_items(j);
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	while (p->b == j)
		pthread_cond_wait(&p->done, &p->mu);
	pthread_mutex_unlock(&p->mu);
}

void pool_run(struct pool *p, size_t n, void (*fn)(void *arg, size_t i), void *arg)
{
	struct pool_job j = { fn, arg, n, 0 };

	if (n > 1)
		pool_post(p, &j);
	pool_wait(p, &j, 0);	/* j lives on this stack */
}

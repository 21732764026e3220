#include "pjahead.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plat.h"
#include "projects.h"

enum { PA_BY_LINK, PA_BY_TIME, PA_BY_PROJECT, PA_NORDERS };

#define PA_NONE UINT32_MAX	/* a key in no order */

struct pjahead {
	pa_open_fn open;		/* the cache's pf_open_ahead() */
	void *arg;
	pthread_mutex_t mu;
	pthread_cond_t cv;	/* the window moved, or stop */
	pthread_t th[PA_THREADS_MAX];
	unsigned nth;		/* workers started */
	int started;		/* tried to start them */
	int stop;
	uint64_t gen;		/* of the set the orders were copied from */
	int have;		/* the orders are there */
	uint32_t len[PA_NORDERS];	/* sessions in each order */
	uint32_t nkeys;		/* size of pos[o]: keys below it */
	uint32_t *key[PA_NORDERS];	/* position -> key */
	uint32_t *pos[PA_NORDERS];	/* key -> position, PA_NONE */
	uint32_t last;		/* the session used last (0: none) */
	uint64_t folder;	/* what the walk listed first in it (pa_listed()), */
	int deep;		/* ... and then another folder of it */
	uint32_t fkey;		/* the session that folder was listed in */
	int walk;		/* the last use followed the one before */
	int order;		/* the window: left positions from next on, */
	int dir;		/* ... going up (1) or down (-1) */
	int64_t next;
	uint32_t left;
	unsigned busy;		/* workers opening a session now */
	uint64_t moves;		/* window() calls: the window moved */
};

static void orders_free(struct pjahead *a)
{
	int o;

	for (o = 0; o < PA_NORDERS; o++) {
		free(a->key[o]);
		free(a->pos[o]);
		a->key[o] = a->pos[o] = NULL;
	}
	a->have = 0;
	a->left = 0;
}

/* Copies the walk orders of s (a->mu held); on ENOMEM there are none. */
static void orders_copy(struct pjahead *a, const struct pj_set *s, uint64_t gen)
{
	uint32_t i, j, k, o;

	orders_free(a);
	a->gen = gen;
	a->nkeys = s->next_key + 1;
	for (o = 0; o < PA_NORDERS; o++) {
		a->key[o] = malloc((s->nsessions + 1) * sizeof(uint32_t));
		a->pos[o] = malloc(a->nkeys * sizeof(uint32_t));
		if (!a->key[o] || !a->pos[o]) {
			orders_free(a);
			return;
		}
		memset(a->pos[o], 0xff, a->nkeys * sizeof(uint32_t));
	}
	for (i = 0; i < s->nsessions; i++) {
		a->key[PA_BY_LINK][i] = s->sessions[s->by_link[i]].key;
		a->key[PA_BY_TIME][i] = s->sessions[i].key;
	}
	for (k = 0, i = 0; i < s->nprojects; i++)
		for (j = 0; j < s->projects[i].nsessions && k < s->nsessions; j++)
			a->key[PA_BY_PROJECT][k++] = s->sessions[s->projects[i].sessions[j]].key;
	a->len[PA_BY_LINK] = a->len[PA_BY_TIME] = s->nsessions;
	a->len[PA_BY_PROJECT] = k;
	for (o = 0; o < PA_NORDERS; o++)
		for (i = 0; i < a->len[o]; i++)
			if (a->key[o][i] < a->nkeys)
				a->pos[o][a->key[o][i]] = i;
	a->have = 1;
}

static void *worker(void *arg)
{
	struct pjahead *a = arg;
	uint64_t folder, moves;
	int64_t at;
	uint32_t key;
	int rc, deep;

	pl_name_thread("sessfs-ahead");
	pthread_mutex_lock(&a->mu);
	while (!a->stop) {
		if (!a->left) {
			pthread_cond_wait(&a->cv, &a->mu);
			continue;
		}
		key = a->key[a->order][a->next];
		at = a->next;
		moves = a->moves;
		a->next += a->dir;
		a->left--;
		folder = a->folder;
		deep = a->deep;
		a->busy++;
		pthread_mutex_unlock(&a->mu);
		rc = a->open(a->arg, key, folder, deep);
		pthread_mutex_lock(&a->mu);
		a->busy--;
		if (rc == 1 && moves == a->moves) {
			/* No room (the walk's own session may not count as
			 * used yet): the walk's next use resumes from key
			 * (window() keeps a->next when it is ahead). */
			a->next = at;
			a->left = 0;
		} else if (rc == 1) {
			a->left = 0;
		}
	}
	pthread_mutex_unlock(&a->mu);
	return NULL;
}

/* Starts the workers once (a->mu held); none when threads cannot start. */
static void start(struct pjahead *a)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned want = cpus < 1 ? 1 : cpus > PA_THREADS_MAX ? PA_THREADS_MAX : (unsigned)cpus;

	a->started = 1;
	while (a->nth < want && !pthread_create(&a->th[a->nth], NULL, worker, a))
		a->nth++;
}

struct pjahead *pa_new(pa_open_fn open, void *arg)
{
	struct pjahead *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->open = open;
	a->arg = arg;
	pthread_mutex_init(&a->mu, NULL);
	pthread_cond_init(&a->cv, NULL);
	return a;
}

void pa_free(struct pjahead *a)
{
	unsigned i;

	if (!a)
		return;
	pthread_mutex_lock(&a->mu);
	a->stop = 1;
	pthread_cond_broadcast(&a->cv);
	pthread_mutex_unlock(&a->mu);
	for (i = 0; i < a->nth; i++)
		pthread_join(a->th[i], NULL);
	orders_free(a);
	pthread_mutex_destroy(&a->mu);
	pthread_cond_destroy(&a->cv);
	free(a);
}

/* The order in which key follows prev by 1 to PA_WINDOW places, up or
 * down (*dir), or -1. */
static int follows(const struct pjahead *a, uint32_t prev, uint32_t key, int *dir)
{
	int64_t d;
	int o;

	if (!prev || prev >= a->nkeys || key >= a->nkeys)
		return -1;
	for (o = 0; o < PA_NORDERS; o++) {
		if (a->pos[o][key] == PA_NONE || a->pos[o][prev] == PA_NONE)
			continue;
		d = (int64_t)a->pos[o][key] - a->pos[o][prev];
		if (d && d <= PA_WINDOW && d >= -PA_WINDOW) {
			*dir = d > 0 ? 1 : -1;
			return o;
		}
	}
	return -1;
}

/* The window after position at in order o, going dir (a->mu held): the
 * PA_WINDOW positions past at, less what a worker already took unless
 * again is set. */
static void window(struct pjahead *a, int o, int dir, int64_t at, int again)
{
	int64_t last = at + (int64_t)dir * PA_WINDOW, next = at + dir;

	if (last < 0)
		last = 0;
	if (last > (int64_t)a->len[o] - 1)
		last = (int64_t)a->len[o] - 1;
	if (!again && o == a->order && dir == a->dir && (a->next - next) * dir > 0 &&
	    (last - a->next) * dir >= -1)
		next = a->next;		/* the workers are ahead already */
	a->moves++;
	a->order = o;
	a->dir = dir;
	a->next = next;
	a->left = (last - next) * dir >= 0 ? (uint32_t)((last - next) * dir + 1) : 0;
}

/* Wakes as many idle workers as the window has sessions left (a->mu held):
 * a walk moves it by one session a step, which one worker takes. */
static void wake(struct pjahead *a)
{
	uint32_t i;

	for (i = 0; i < a->left && i < a->nth - a->busy; i++)
		pthread_cond_signal(&a->cv);
}

void pa_used(struct pjahead *a, const struct pj_set *s, uint64_t gen, uint32_t key)
{
	uint32_t prev;
	int o, dir = 1;

	pthread_mutex_lock(&a->mu);
	if (key == a->last || a->stop) {
		pthread_mutex_unlock(&a->mu);
		return;
	}
	if (!a->have || a->gen != gen)
		orders_copy(a, s, gen);
	prev = a->last;
	a->last = key;
	o = a->have ? follows(a, prev, key, &dir) : -1;
	a->walk = o >= 0;
	if (o < 0) {
		a->left = 0;
	} else {
		window(a, o, dir, a->pos[o][key], 0);
		if (!a->started)
			start(a);
		wake(a);
	}
	pthread_mutex_unlock(&a->mu);
}

int pa_idle(struct pjahead *a)
{
	int idle;

	pthread_mutex_lock(&a->mu);
	idle = !a->left && !a->busy;
	pthread_mutex_unlock(&a->mu);
	return idle;
}

void pa_listed(struct pjahead *a, uint32_t key, uint64_t folder)
{
	int changed = 0;

	pthread_mutex_lock(&a->mu);
	if (key == a->last && key != a->fkey) {	/* the session's first */
		a->fkey = key;
		/* Until the walk goes deeper here, sessions opened from now on
		 * have the folder alone listed; those listed already stay. */
		a->deep = 0;
		if (folder != a->folder) {
			a->folder = folder;
			changed = 1;
		}
	} else if (key == a->last && folder != a->folder && !a->deep) {
		a->deep = 1;
		changed = 1;
	}
	/* the sessions taken already are taken again, to be listed */
	if (changed && a->walk) {
		window(a, a->order, a->dir, a->pos[a->order][key], 1);
		wake(a);
	}
	pthread_mutex_unlock(&a->mu);
}

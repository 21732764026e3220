#include "loop.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LP_QUIET_MS 1000	/* no request for this long: the watcher sleeps */

struct lp {
	struct fuse_session *se;
	unsigned spin_us, max;
	pthread_mutex_t m;
	pthread_cond_t park;	/* threads that do not read wait here */
	pthread_cond_t quiet;	/* the watcher, when no request comes */
	sem_t done;		/* posted when the session ends */
	/* under m */
	pthread_t *th;
	unsigned nth, nparked, reading;
	int ending, error;
	/* atomic */
	int watcher_asleep;
	uint64_t last_ms;	/* when the last request was taken */
	uint64_t taken;		/* requests taken */
};

/* The loop of a thread lp_run() started (work()). */
static __thread struct lp *self;

static uint64_t now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000u + (uint64_t)t.tv_nsec / 1000u;
}

static uint64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &t);
	return (uint64_t)t.tv_sec * 1000u + (uint64_t)t.tv_nsec / 1000000u;
}

/* Whether a request waits to be read. */
static int pending(struct lp *L)
{
	struct pollfd p = { .fd = fuse_session_fd(L->se), .events = POLLIN };

	return poll(&p, 1, 0) > 0;
}

/* The next request into *buf, looked for spin_us first. */
static int receive(struct lp *L, struct fuse_buf *buf)
{
	if (L->spin_us) {
		uint64_t until = now_us() + L->spin_us;

		while (!pending(L) && now_us() < until)
			;
	}
	return fuse_session_receive_buf(L->se, buf);
}

/* The session is over: every thread is told (under m). */
static void end(struct lp *L)
{
	if (L->ending)
		return;
	__atomic_store_n(&L->ending, 1, __ATOMIC_RELEASE);	/* lp_run() reads it */
	pthread_cond_broadcast(&L->park);
	pthread_cond_signal(&L->quiet);
	sem_post(&L->done);
}

/* A request was taken: the watcher looks for stuck ones again. */
static void taken(struct lp *L)
{
	__atomic_add_fetch(&L->taken, 1, __ATOMIC_RELAXED);
	/* with watch(): either it sees this time or this sees it asleep */
	__atomic_store_n(&L->last_ms, now_ms(), __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&L->watcher_asleep, __ATOMIC_SEQ_CST)) {
		pthread_mutex_lock(&L->m);
		pthread_cond_signal(&L->quiet);
		pthread_mutex_unlock(&L->m);
	}
}

static void free_buf(void *arg)
{
	struct fuse_buf *b = arg;

	free(b->mem);
	b->mem = NULL;
}

static void *work(void *arg)
{
	struct lp *L = arg;
	struct fuse_buf buf;
	int res;

	memset(&buf, 0, sizeof(buf));
	self = L;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	pthread_cleanup_push(free_buf, &buf);
	pthread_mutex_lock(&L->m);
	for (;;) {
		/* one reader at a time: the others would each be woken */
		while (!L->ending && L->reading) {
			L->nparked++;
			pthread_cond_wait(&L->park, &L->m);
			L->nparked--;
		}
		if (L->ending)
			break;
		L->reading++;
		pthread_mutex_unlock(&L->m);
		pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
		res = receive(L, &buf);
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
		pthread_mutex_lock(&L->m);
		L->reading--;
		if (res == -EINTR || res == -EAGAIN)
			continue;
		if (res <= 0 || fuse_session_exited(L->se)) {
			if (res < 0)
				L->error = res;
			end(L);
			break;
		}
		pthread_mutex_unlock(&L->m);
		taken(L);
		fuse_session_process_buf(L->se, &buf);
		pthread_mutex_lock(&L->m);
	}
	pthread_mutex_unlock(&L->m);
	pthread_cleanup_pop(1);
	return NULL;
}

/* One more thread (under m); 0 or -errno. */
static int start(struct lp *L)
{
	int rc;

	if (L->nth >= L->max)
		return -EAGAIN;
	rc = pthread_create(&L->th[L->nth], NULL, work, L);
	if (rc)
		return -rc;
	L->nth++;
	return 0;
}

/* Whether no request was taken for LP_QUIET_MS. */
static int quiet(struct lp *L)
{
	return now_ms() - __atomic_load_n(&L->last_ms, __ATOMIC_SEQ_CST) >= LP_QUIET_MS;
}

/* Another thread reads, when none does (under m). */
static void reader_wanted(struct lp *L)
{
	if (L->ending || L->reading)
		return;
	if (L->nparked)
		pthread_cond_signal(&L->park);
	else
		start(L);
}

void lp_replied(void)
{
	struct lp *L = self;

	if (!L)
		return;
	pthread_mutex_lock(&L->m);
	reader_wanted(L);
	pthread_mutex_unlock(&L->m);
}

/*
 * While requests come: every LP_RESCUE_MS, a request that waits with no
 * thread reading and none taken since the last look (every thread busy
 * with a long one) gets a parked thread, or a new one.
 */
static void *watch(void *arg)
{
	struct lp *L = arg;
	uint64_t seen = 0, now;
	struct timespec tick = { 0, LP_RESCUE_MS * 1000000L };

	pthread_mutex_lock(&L->m);
	while (!L->ending) {
		if (quiet(L)) {
			__atomic_store_n(&L->watcher_asleep, 1, __ATOMIC_SEQ_CST);
			if (quiet(L))
				pthread_cond_wait(&L->quiet, &L->m);
			__atomic_store_n(&L->watcher_asleep, 0, __ATOMIC_SEQ_CST);
			continue;
		}
		pthread_mutex_unlock(&L->m);
		nanosleep(&tick, NULL);
		pthread_mutex_lock(&L->m);
		now = __atomic_load_n(&L->taken, __ATOMIC_RELAXED);
		if (!L->reading && now == seen && pending(L))
			reader_wanted(L);
		seen = now;
	}
	pthread_mutex_unlock(&L->m);
	return NULL;
}

unsigned lp_default_spin(void)
{
	return sysconf(_SC_NPROCESSORS_ONLN) > 1 ? LP_SPIN_US : 0;
}

int lp_run(struct fuse_session *se, const struct lp_config *cfg)
{
	struct lp L;
	pthread_t watcher;
	sigset_t all, old;
	int have_watcher = 0, rc;
	unsigned i;

	memset(&L, 0, sizeof(L));
	L.se = se;
	L.spin_us = cfg->spin_us;
	L.max = cfg->max_threads ? cfg->max_threads : 1;
	L.last_ms = now_ms();
	if (!(L.th = calloc(L.max, sizeof(*L.th))))
		return -ENOMEM;
	pthread_mutex_init(&L.m, NULL);
	pthread_cond_init(&L.park, NULL);
	pthread_cond_init(&L.quiet, NULL);
	sem_init(&L.done, 0, 0);
	/* Signals are this thread's, which waits for the end below: libfuse's
	 * handlers end the session, and sem_wait() returns. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	pthread_mutex_lock(&L.m);
	rc = start(&L);
	pthread_mutex_unlock(&L.m);
	if (!rc && L.max > 1)
		have_watcher = !pthread_create(&watcher, NULL, watch, &L);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!rc)
		while (!fuse_session_exited(se) && !__atomic_load_n(&L.ending, __ATOMIC_ACQUIRE))
			sem_wait(&L.done);
	pthread_mutex_lock(&L.m);
	end(&L);
	pthread_mutex_unlock(&L.m);
	/* A thread in read() or poll() is cancelled there; one serving a
	 * request ends it, then sees the end. */
	for (i = 0; i < L.nth; i++)
		pthread_cancel(L.th[i]);
	if (have_watcher)
		pthread_join(watcher, NULL);
	for (i = 0; i < L.nth; i++)
		pthread_join(L.th[i], NULL);
	if (!rc)
		rc = L.error;
	sem_destroy(&L.done);
	pthread_cond_destroy(&L.quiet);
	pthread_cond_destroy(&L.park);
	pthread_mutex_destroy(&L.m);
	free(L.th);
	fuse_session_reset(se);
	return rc;
}

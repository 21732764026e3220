/*
 * pool: a helper thread that takes part in the caller's batches of work.
 *
 * A listing with attributes renders its files one after the other on the
 * thread that answers it, while the machine's other core has nothing to
 * do. pool_run() spreads a batch's items over the calling thread and the
 * helper: each takes the next item until none is left, and the call
 * returns once every item is done. While the helper works for one caller,
 * another caller runs its batch alone (it never waits for the helper).
 * pool_post() hands a job to the helper alone, to run while the caller
 * goes on (pool_wait() then finishes it, or drops what is left).
 *
 * The helper runs as background work (pl_background_thread()): woken, it
 * does not preempt a running thread (the reader of a mount, which the
 * pushes it makes only help).
 *
 * Thread-safe. Items must be safe to run on any thread, in any order.
 */
#ifndef SESSFS_POOL_H
#define SESSFS_POOL_H

#include <stddef.h>

struct pool;

/* Starts the helper. Returns a new pool (free with pool_free()), or NULL. */
struct pool *pool_new(void);
/* Stops the helper and waits for it; p may be NULL. */
void pool_free(struct pool *p);

/* Runs fn(arg, i) for every i in [0, n) and returns when all are done.
 * p may be NULL (everything runs on the caller). */
void pool_run(struct pool *p, size_t n, void (*fn)(void *arg, size_t i), void *arg);

/* A job: fn(arg, i) for i in [0, n); set next to 0. */
struct pool_job {
	void (*fn)(void *arg, size_t i);
	void *arg;
	size_t n;
	size_t next;		/* atomic: the next item to take */
};

/* Hands j to the helper when it is idle and returns 1 (then j must stay
 * until pool_wait()); returns 0 (nothing runs) when it is busy or p is
 * NULL. */
int pool_post(struct pool *p, struct pool_job *j);
/* Runs what is left of j on the caller, or with drop set leaves it
 * undone, then waits until the helper has let go of j. */
void pool_wait(struct pool *p, struct pool_job *j, int drop);

#endif

/*
 * loop: the threads that take the kernel's requests and serve them.
 *
 * A reader (ls -l, grep -r, find) sends its requests one after the other:
 * each waits for the reply to the one before. Served as libfuse's loop
 * serves them, each request wakes a thread asleep in read() on /dev/fuse,
 * often on the other CPU, and that wake-up is about half of a request's
 * round trip (a link read of 11 us, 5 of them in the wakes).
 *
 * Here one thread at a time reads /dev/fuse, and after a reply it keeps
 * looking for the next request for up to spin_us microseconds (poll()
 * without a timeout, on its CPU) before it sleeps in read(): the next
 * request of a reader in a burst finds it awake. The thread that takes a
 * request serves it itself, hands nothing on, and reads again after it.
 * The others are parked: they wake only when a request has waited with
 * no thread reading, because every thread is busy with a request of its
 * own (a long one: a session opened, a window built). A watcher thread
 * looks for that every LP_RESCUE_MS milliseconds while requests come, and
 * sleeps with no timer once none came for a second: an idle mount has no
 * thread that wakes.
 *
 * lp_run() serves until the session exits (unmounted, or a signal that
 * libfuse's handlers take), and returns once every thread has stopped:
 * a thread in read() or poll() is cancelled, one serving a request ends it
 * first. The threads it starts block every signal: the handlers run on
 * the caller's thread, which waits for the end in sem_wait() (a thread the
 * caller starts beside it should block them too, fs/main.c's notifier).
 * Call it from one thread; lp_replied() from its request threads.
 */
#ifndef SESSFS_LOOP_H
#define SESSFS_LOOP_H

#include "sfuse.h"

#define LP_SPIN_US 20		/* the default look for the next request */
#define LP_RESCUE_MS 1		/* how long a request may wait unread */

struct lp_config {
	unsigned max_threads;	/* 1: one thread serves all, none is added */
	unsigned spin_us;	/* 0: sleep in read() at once */
};

/* Serves se until it exits. 0, or -errno when not even one thread could
 * be started or /dev/fuse failed. */
int lp_run(struct fuse_session *se, const struct lp_config *cfg);

/*
 * Called by a request's thread that has sent its reply and goes on with
 * work of its own (pushing a listing's files to the page cache): another
 * thread reads the next request meanwhile, as when the thread is busy
 * before its reply, but at once. Nothing on a thread lp_run() did not
 * start.
 */
void lp_replied(void);

/* spin_us for this machine: LP_SPIN_US, or 0 with one CPU (the reader
 * it waits for would wait for that CPU). */
unsigned lp_default_spin(void);

#endif

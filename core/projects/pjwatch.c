#include "pjwatch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <uthash.h>

#include "plat.h"
#include "projects.h"

enum {
	F_TOUCHED = 1,		/* a notice about its log came */
	F_BUSY = 2,		/* its last look was not quiet (or none yet) */
	F_OPEN = 4,		/* between pw_log_add() and pw_log_rm() */
	F_LISTED = 8,		/* in the list of keys due */
};

/* One watch: a folder (key 0; the root is the first), or a log. */
struct node {
	UT_hash_handle hh;
	int wd;
	uint32_t key;
	int root;
};

struct pjwatch {
	pthread_mutex_t mu;
	int fd;			/* the notices (-1: the fallback) */
	int wake[2];		/* a pipe: pw_wake() */
	int ended;
	int woken;		/* pw_wait()'s: its last wait ended on notices */
	int64_t last_ms;	/* ... at this time */
	char *dir;
	char why[256];		/* the fallback's reason, or "" */
	int dirty;		/* the folder changed since pw_wait() said so */
	struct node *nodes;	/* by wd */
	int *log_wd;		/* by key: its log's wd + 1, or 0 */
	uint8_t *flags;		/* by key: F_* */
	uint32_t *due;		/* the keys that may be due (F_LISTED) */
	uint32_t ndue;
};

/* Key may be due a look from now (mu held). */
static void list_key(struct pjwatch *w, uint32_t key)
{
	if (!(w->flags[key] & F_LISTED)) {
		w->flags[key] |= F_LISTED;
		w->due[w->ndue++] = key;
	}
}

/* Falls back to the look once a second, for the reason said (mu held or
 * not yet shared). */
static void fall_back(struct pjwatch *w, const char *fmt, const char *arg)
{
	struct node *n, *tmp;

	if (w->why[0])
		return;
	snprintf(w->why, sizeof(w->why), fmt, arg);
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	HASH_ITER(hh, w->nodes, n, tmp) {
		HASH_DEL(w->nodes, n);
		free(n);
	}
	memset(w->log_wd, 0, (PJ_KEY_MAX + 1) * sizeof(*w->log_wd));
}

/* Watches path, a folder or key's log: 0, or -errno (the limit reached:
 * the fallback). */
static int watch(struct pjwatch *w, const char *path, uint32_t key, int root)
{
	struct node *n;
	int wd;

	if (w->fd < 0)
		return -EINVAL;
	wd = pl_watch_add(w->fd, path, !key);
	if (wd == -ENOSPC) {
		fall_back(w, "inotify: the limit of watches is reached "
			  "(fs.inotify.max_user_watches): %s is looked at once a second", w->dir);
		return wd;
	}
	if (wd < 0)
		return wd;	/* gone already, or not a folder: its notice said */
	HASH_FIND_INT(w->nodes, &wd, n);
	if (!n) {
		if (!(n = calloc(1, sizeof(*n))))
			return -ENOMEM;
		n->wd = wd;
		HASH_ADD_INT(w->nodes, wd, n);
	}
	n->key = key;
	n->root = root;
	if (key)
		w->log_wd[key] = wd + 1;
	return 0;
}

/* Watches folder name of dir (a project). */
static void watch_project(struct pjwatch *w, const char *name)
{
	char path[4096];

	if (name[0] == '.' || (size_t)snprintf(path, sizeof(path), "%s/%s", w->dir, name) >= sizeof(path))
		return;
	watch(w, path, 0, 0);
}

static void watch_all(struct pjwatch *w)
{
	struct dirent *de;
	DIR *d;

	if (watch(w, w->dir, 0, 1)) {		/* the folder unwatched: all of it looked at */
		fall_back(w, "inotify: %s cannot be watched: it is looked at once a second",
			  w->dir);
		return;
	}
	if (!(d = opendir(w->dir)))
		return;
	while (w->fd >= 0 && (de = readdir(d)))
		if (de->d_type == DT_DIR || de->d_type == DT_UNKNOWN)
			watch_project(w, de->d_name);
	closedir(d);
}

struct pjwatch *pw_new(const char *dir)
{
	struct pjwatch *w = calloc(1, sizeof(*w));
	int fd;

	if (!w)
		return NULL;
	w->fd = -1;
	w->dir = strdup(dir);
	w->log_wd = calloc(PJ_KEY_MAX + 1, sizeof(*w->log_wd));
	w->flags = calloc(PJ_KEY_MAX + 1, sizeof(*w->flags));
	w->due = calloc(PJ_KEY_MAX + 1, sizeof(*w->due));
	if (!w->dir || !w->log_wd || !w->flags || !w->due || pipe(w->wake)) {
		free(w->dir);
		free(w->log_wd);
		free(w->flags);
		free(w->due);
		free(w);
		return NULL;
	}
	fcntl(w->wake[0], F_SETFL, O_NONBLOCK);
	fcntl(w->wake[1], F_SETFL, O_NONBLOCK);
	pthread_mutex_init(&w->mu, NULL);
	w->dirty = 1;
	if (getenv(PW_ENV_OFF) && *getenv(PW_ENV_OFF)) {
		fall_back(w, "inotify: off (" PW_ENV_OFF " is set): %s is looked at once a second",
			  dir);
	} else if (pl_fs_remote(dir)) {
		fall_back(w, "inotify: %s is on a network or FUSE filesystem, whose changes "
			  "may come unnoticed: it is looked at once a second", dir);
	} else if ((fd = pl_watch_open()) < 0) {
		fall_back(w, "inotify: %s", strerror(-fd));
		snprintf(w->why + strlen(w->why), sizeof(w->why) - strlen(w->why),
			 ": %s is looked at once a second", dir);
	} else {
		w->fd = fd;
		watch_all(w);
	}
	return w;
}

void pw_free(struct pjwatch *w)
{
	struct node *n, *tmp;

	if (!w)
		return;
	HASH_ITER(hh, w->nodes, n, tmp) {
		HASH_DEL(w->nodes, n);
		free(n);
	}
	if (w->fd >= 0)
		close(w->fd);
	close(w->wake[0]);
	close(w->wake[1]);
	pthread_mutex_destroy(&w->mu);
	free(w->dir);
	free(w->log_wd);
	free(w->flags);
	free(w->due);
	free(w);
}

const char *pw_why(struct pjwatch *w)
{
	const char *why;

	pthread_mutex_lock(&w->mu);
	why = w->why[0] ? w->why : NULL;
	pthread_mutex_unlock(&w->mu);
	return why;
}

/* ---- notices ---- */

static void notice(void *arg, int wd, const char *name, unsigned what)
{
	struct pjwatch *w = arg;
	struct node *n;
	uint32_t k;

	if (what & PL_W_LOST) {		/* all may have changed */
		w->dirty = 1;
		for (k = 1; k <= PJ_KEY_MAX; k++)
			if (w->flags[k] & F_OPEN) {
				w->flags[k] |= F_TOUCHED;
				list_key(w, k);
			}
		return;
	}
	HASH_FIND_INT(w->nodes, &wd, n);
	if (!n)
		return;
	if (n->key) {
		w->flags[n->key] |= F_TOUCHED;
		list_key(w, n->key);
	} else {
		w->dirty = 1;
		if (n->root && name[0] && (what & PL_W_ISDIR))
			watch_project(w, name);		/* a new project */
	}
	if (!(what & PL_W_GONE) || name[0])
		return;
	if (n->root)
		fall_back(w, "inotify: %s went away: it is looked at once a second", w->dir);
	else {
		if (n->key && w->log_wd[n->key] == wd + 1)
			w->log_wd[n->key] = 0;	/* not watched: looked at each time */
		HASH_DEL(w->nodes, n);
		free(n);
	}
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Polls the wake pipe, and the notices when fd >= 0, for at most ms
 * (ms < 0: until one is readable). */
static void wait_for(struct pjwatch *w, int fd, int ms)
{
	struct pollfd p[2] = { { w->wake[0], POLLIN, 0 }, { fd, POLLIN, 0 } };
	int64_t end = now_ms() + ms, left = ms < 0 ? -1 : ms;

	while (left != 0 && !__atomic_load_n(&w->ended, __ATOMIC_ACQUIRE)) {
		int rc = poll(p, fd >= 0 ? 2 : 1, (int)left);

		if (rc > 0)
			break;
		if (ms >= 0 && (left = end - now_ms()) < 0)
			left = 0;
	}
}

int pw_wait(struct pjwatch *w, int gap_ms, int ms)
{
	int64_t since = now_ms() - w->last_ms;
	char buf[64];
	int fd, dirty;

	pthread_mutex_lock(&w->mu);
	fd = w->fd;
	pthread_mutex_unlock(&w->mu);
	/* Right after a look that notices woke, the next waits gap_ms; an
	 * idle mount wakes once per ms, no more. */
	if (w->woken && since < gap_ms)
		wait_for(w, -1, (int)(gap_ms - since));
	w->woken = 0;
	wait_for(w, fd, ms);
	while (read(w->wake[0], buf, sizeof(buf)) > 0)
		;
	pthread_mutex_lock(&w->mu);
	if (w->fd >= 0)
		w->woken = pl_watch_read(w->fd, notice, w) > 0;
	if (w->woken) {		/* a burst (rm -rf, cp -r): looked at once, whole */
		pthread_mutex_unlock(&w->mu);
		wait_for(w, -1, PW_SETTLE_MS);
		pthread_mutex_lock(&w->mu);
		if (w->fd >= 0)
			pl_watch_read(w->fd, notice, w);
	}
	dirty = w->dirty || w->fd < 0;
	w->dirty = 0;
	pthread_mutex_unlock(&w->mu);
	w->last_ms = now_ms();
	return dirty;
}

void pw_wake(struct pjwatch *w)
{
	__atomic_store_n(&w->ended, 1, __ATOMIC_RELEASE);
	pw_poke(w);
}

void pw_poke(struct pjwatch *w)
{
	if (write(w->wake[1], "", 1) < 0)
		return;		/* full: a wake is pending already */
}

int pw_idle(struct pjwatch *w)
{
	int idle;

	pthread_mutex_lock(&w->mu);
	idle = w->fd >= 0 && !w->why[0] && !w->ndue && !w->dirty;
	pthread_mutex_unlock(&w->mu);
	return idle;
}

/* ---- the open logs ---- */

void pw_log_add(struct pjwatch *w, uint32_t key, const char *path)
{
	if (!key || key > PJ_KEY_MAX)
		return;
	pthread_mutex_lock(&w->mu);
	w->flags[key] |= F_BUSY | F_OPEN;
	list_key(w, key);
	if (w->fd >= 0 && !w->log_wd[key])
		watch(w, path, key, 0);
	pthread_mutex_unlock(&w->mu);
}

void pw_log_rm(struct pjwatch *w, uint32_t key)
{
	struct node *n;
	int wd;

	if (!key || key > PJ_KEY_MAX)
		return;
	pthread_mutex_lock(&w->mu);
	wd = w->log_wd[key] - 1;
	w->log_wd[key] = 0;
	w->flags[key] &= F_LISTED;	/* dropped from the list at the next look */
	HASH_FIND_INT(w->nodes, &wd, n);
	if (wd >= 0 && n && n->key == key) {
		pl_watch_rm(w->fd, wd);
		HASH_DEL(w->nodes, n);
		free(n);
	}
	pthread_mutex_unlock(&w->mu);
}

uint32_t *pw_due_keys(struct pjwatch *w, uint32_t *n)
{
	uint32_t i, k, kept = 0, *out;

	pthread_mutex_lock(&w->mu);
	out = malloc((w->ndue + 1) * sizeof(*out));
	*n = 0;
	for (i = 0; out && i < w->ndue; i++) {
		uint8_t *f = &w->flags[k = w->due[i]];
		int unwatched = (*f & F_OPEN) && !w->log_wd[k];

		if ((*f & F_OPEN) && (*f & (F_TOUCHED | F_BUSY) || unwatched))
			out[(*n)++] = k;
		*f &= (uint8_t)~F_TOUCHED;
		if ((*f & F_OPEN) && (*f & F_BUSY || unwatched))
			w->due[kept++] = k;	/* still due next time */
		else
			*f &= (uint8_t)~F_LISTED;
	}
	if (out)
		w->ndue = kept;
	pthread_mutex_unlock(&w->mu);
	return out;
}

void pw_settled(struct pjwatch *w, uint32_t key, int quiet)
{
	if (!key || key > PJ_KEY_MAX)
		return;
	pthread_mutex_lock(&w->mu);
	if (!quiet && (w->flags[key] & F_OPEN)) {
		w->flags[key] |= F_BUSY;
		list_key(w, key);
	} else {
		w->flags[key] &= (uint8_t)~F_BUSY;
	}
	pthread_mutex_unlock(&w->mu);
}

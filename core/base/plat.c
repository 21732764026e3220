#include "plat.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__linux__)
#include <sys/vfs.h>
#else
#include <sys/mount.h>
#include <sys/param.h>
#endif
#if defined(__GLIBC__)
#include <malloc.h>
#endif

void pl_tune_heap(void)
{
#if defined(__GLIBC__)
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
}

void pl_one_arena(void)
{
#if defined(__GLIBC__)
	mallopt(M_ARENA_MAX, 1);
#endif
}

void pl_pad_heap(size_t bytes)
{
#if defined(__GLIBC__)
	mallopt(M_TOP_PAD, bytes > INT_MAX ? INT_MAX : (int)bytes);
#else
	(void)bytes;
#endif
}

void pl_trim_heap(void)
{
#if defined(__GLIBC__)
	malloc_trim(0);
#endif
}

void pl_background_thread(void)
{
#if defined(__linux__)
	struct sched_param sp = { 0 };

	pthread_setschedparam(pthread_self(), SCHED_BATCH, &sp);
#endif
}

static _Thread_local const int *ahead_wanted;
static _Thread_local int64_t ahead_next;	/* no yield before, in ns */

void pl_ahead_work(const int *wanted)
{
	ahead_wanted = wanted;
}

static int64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

void pl_offer_cpu(void)
{
	if (!ahead_wanted || __atomic_load_n(ahead_wanted, __ATOMIC_RELAXED) ||
	    mono_ns() < ahead_next)
		return;
	sched_yield();
	ahead_next = mono_ns() + PL_OFFER_GAP_US * 1000;
}

void pl_name_thread(const char *name)
{
#if defined(__linux__)
	pthread_setname_np(pthread_self(), name);
#elif defined(__APPLE__)
	pthread_setname_np(name);
#else
	(void)name;
#endif
}

int pl_mounted(const char *path, const char *prefix, char *type, size_t n)
{
#if defined(__linux__)
	char *line = NULL, where[PATH_MAX], t[64];
	size_t cap = 0;
	FILE *f = fopen("/proc/self/mountinfo", "re");
	int found = 0;

	while (f && !found && getline(&line, &cap, f) > 0) {
		/* id parent major:minor root MOUNTPOINT opts... - TYPE source */
		char *dash = strstr(line, " - ");

		found = dash && sscanf(line, "%*s %*s %*s %*s %4095s", where) == 1 &&
			sscanf(dash + 3, "%63s", t) == 1 &&
			!strncmp(t, prefix, strlen(prefix)) && !strcmp(where, path);
	}
	if (found && n)
		snprintf(type, n, "%s", t);
	if (f)
		fclose(f);
	free(line);
	return found;
#else
	(void)path;
	(void)prefix;
	if (n)
		type[0] = '\0';
	return 0;
#endif
}

char *pl_fd_path(int fd)
{
#if defined(__linux__)
	char link[64], buf[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, buf, sizeof(buf) - 1);
	if (n <= 0 || buf[0] != '/')
		return NULL;
	buf[n] = '\0';
	if (n > 10 && !strcmp(buf + n - 10, " (deleted)"))
		return NULL;
	return strdup(buf);
#else
	(void)fd;
	return NULL;
#endif
}

int pl_mount_dead(const char *path)
{
	struct statfs sf;

	return statfs(path, &sf) < 0 && errno == ENOTCONN;
}

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
#include <sys/inotify.h>
#include <sys/vfs.h>
#include <unistd.h>
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
	mallopt(M_MXFAST, 0);
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

int pl_watch_open(void)
{
#if defined(__linux__)
	int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);

	return fd < 0 ? -errno : fd;
#else
	return -ENOSYS;
#endif
}

int pl_watch_add(int fd, const char *path, int dir)
{
#if defined(__linux__)
	const uint32_t self = IN_DELETE_SELF | IN_MOVE_SELF | IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE;
	uint32_t mask = dir ? self | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_ONLYDIR
			    : self;
	int wd = inotify_add_watch(fd, path, mask);

	return wd < 0 ? -errno : wd;
#else
	(void)fd;
	(void)path;
	(void)dir;
	return -ENOSYS;
#endif
}

void pl_watch_rm(int fd, int wd)
{
#if defined(__linux__)
	inotify_rm_watch(fd, wd);
#else
	(void)fd;
	(void)wd;
#endif
}

int pl_watch_read(int fd, void (*fn)(void *arg, int wd, const char *name, unsigned what),
		  void *arg)
{
#if defined(__linux__)
	union {
		struct inotify_event e;
		char b[16384];
	} buf;
	int count = 0;

	for (;;) {
		ssize_t n = read(fd, buf.b, sizeof(buf.b));
		size_t off;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 && errno != EAGAIN ? -errno : count;
		for (off = 0; off + sizeof(struct inotify_event) <= (size_t)n;) {
			struct inotify_event e;
			const char *name = buf.b + off + sizeof(e);

			memcpy(&e, buf.b + off, sizeof(e));
			fn(arg, e.wd, e.len ? name : "",
			   (e.mask & IN_ISDIR ? PL_W_ISDIR : 0) |
			   (e.mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF) ? PL_W_GONE : 0) |
			   (e.mask & IN_Q_OVERFLOW ? PL_W_LOST : 0));
			count++;
			off += sizeof(e) + e.len;
		}
	}
#else
	(void)fd;
	(void)fn;
	(void)arg;
	return -ENOSYS;
#endif
}

int pl_fs_remote(const char *path)
{
#if defined(__linux__)
	static const unsigned long remote[] = {
		0x6969,		/* NFS */
		0x517b,		/* SMB */
		0xff534d42,	/* CIFS */
		0xfe534d42,	/* SMB2 */
		0x65735546,	/* FUSE */
		0x01021997,	/* 9p */
		0x00c36400,	/* Ceph */
		0x5346414f,	/* AFS */
		0x6b414653,	/* kAFS */
	};
	struct statfs sf;
	size_t i;

	if (statfs(path, &sf))
		return 0;
	for (i = 0; i < sizeof(remote) / sizeof(remote[0]); i++)
		if ((unsigned long)sf.f_type == remote[i])
			return 1;
	return 0;
#else
	(void)path;
	return 0;
#endif
}

/*
 * plat: the calls sessfs makes that are Linux or glibc only, behind
 * portable names, so that a port (macOS with macFUSE or FUSE-T, a BSD)
 * has one place to change.
 *
 * On Linux with glibc every name is the call it stands for: behaviour
 * there is exactly that of the direct call. Elsewhere each has a stated
 * fallback (below); those are compiled only off Linux and untested here.
 *
 * The times of a struct stat: st_atim/st_mtim/st_ctim (POSIX 2008, Linux,
 * the BSDs), st_*timespec on macOS. PL_MTIM(s) etc. take a struct stat
 * (not a pointer) and are lvalues: read, write, take the address.
 *
 * Stateless; every function is safe on any thread, except that
 * pl_tune_heap() and pl_one_arena() belong at the start of main(),
 * before any other thread.
 */
#ifndef SESSFS_PLAT_H
#define SESSFS_PLAT_H

#include <fcntl.h>
#include <stddef.h>
#include <sys/stat.h>
#include <time.h>

#if defined(__APPLE__)
#define PL_ATIM(s) ((s).st_atimespec)
#define PL_MTIM(s) ((s).st_mtimespec)
#define PL_CTIM(s) ((s).st_ctimespec)
#else
#define PL_ATIM(s) ((s).st_atim)
#define PL_MTIM(s) ((s).st_mtim)
#define PL_CTIM(s) ((s).st_ctim)
#endif

/* Whether two times (PL_MTIM() and the like) are the same to the ns. */
static inline int pl_same_time(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

/* Flags to open a folder only to openat() in it: O_PATH (Linux: no read
 * permission needed, nothing read); elsewhere O_RDONLY. */
#ifdef O_PATH
#define PL_O_PATH O_PATH
#else
#define PL_O_PATH O_RDONLY
#endif

/* Keeps freed memory in the heap: blocks below 32 MB come from the heap,
 * not mmap, and the heap is given back only above 256 MB free (glibc
 * mallopt M_MMAP_THRESHOLD, M_TRIM_THRESHOLD). No fast bins (M_MXFAST
 * 0): small blocks are still kept per thread (tcache), but a block of
 * 1 KB or more no longer first merges every small block freed since the
 * last one (malloc_consolidate), which took a quarter of the build of a
 * 300,000-row window, whose rows come and go as JSON trees; that build
 * is 17% faster, the RSS the same. Elsewhere nothing. */
void pl_tune_heap(void);
/* One malloc arena for all threads (glibc M_ARENA_MAX 1). Elsewhere
 * nothing. */
void pl_one_arena(void);
/* The heap grown by at least bytes at a time (glibc mallopt M_TOP_PAD;
 * 128 KB by default). Elsewhere nothing. */
void pl_pad_heap(size_t bytes);
/* Gives the heap's free memory back to the system (glibc malloc_trim(0)).
 * Elsewhere nothing. */
void pl_trim_heap(void);

/* The calling thread does work nobody waits for: on Linux SCHED_BATCH
 * (its wake-ups never preempt a running thread, such as the reader a
 * mount serves); elsewhere nothing. */
void pl_background_thread(void);

/*
 * The calling thread works ahead of the readers (pjahead.h): from now on
 * pl_offer_cpu() on it gives its CPU to any thread waiting for one, while
 * *wanted (read atomically) is 0; once a reader waits for what the thread
 * is doing, it sets *wanted, and the work goes on at full speed. NULL: the
 * thread is not ahead (the default).
 */
void pl_ahead_work(const int *wanted);
/*
 * On a thread of pl_ahead_work(), when its work is not wanted: a
 * sched_yield() (back at once when no thread waits for the CPU), at most
 * once per PL_OFFER_GAP_US. Elsewhere nothing. Called where work ahead can
 * pause: between two files rendered, two chunks of a log indexed.
 *
 * The yield lets a reader woken after its round trip (and the thread that
 * answers it) run at once instead of after this thread's time slice. But
 * it gives the CPU to any process: on a machine other work keeps busy,
 * each one hands a time slice away. The gap bounds that: near the best
 * when idle, and little lost beside CPU hogs (the figures for each gap:
 * tests/bench/README.md, "The yield's gap").
 */
#define PL_OFFER_GAP_US 100
void pl_offer_cpu(void);

/* Names the calling thread (at most 15 bytes show on Linux):
 * pthread_setname_np on Linux and macOS; elsewhere nothing. */
void pl_name_thread(const char *name);

/* The path of what fd has open, as it is now (Linux: /proc/self/fd/N,
 * which follows a rename): a new string (free()), or NULL when it cannot
 * be told or the file was deleted. Elsewhere NULL (a port would ask
 * fcntl(F_GETPATH)). */
char *pl_fd_path(int fd);

/* 1 when a mount whose type starts with prefix ("fuse": "fuse",
 * "fuse.sessfs" ...) has exactly path as its mountpoint (an absolute path
 * without symlinks, as realpath() gives), its type then in type (size n,
 * truncated); 0 when none or when it cannot be told. Linux reads
 * /proc/self/mountinfo; elsewhere always 0 (a port would ask
 * getmntinfo()). */
int pl_mounted(const char *path, const char *prefix, char *type, size_t n);
/* 1 when the mount at path is dead (its FUSE daemon gone): statfs() fails
 * with ENOTCONN. statfs always asks the daemon where stat() may be
 * answered from the kernel's cache. Same call on the BSDs and macOS
 * (sys/mount.h); what a dead macFUSE mount answers is untested. */
int pl_mount_dead(const char *path);

/*
 * Change notices (Linux: inotify; elsewhere none, and the caller looks on
 * a timer). pl_watch_open() gives a descriptor (non-blocking,
 * close-on-exec; close() it) to poll() for input, or -errno (-ENOSYS off
 * Linux; -EMFILE at the user's limit of watchers).
 */
int pl_watch_open(void);
/* Watches path: a folder (dir 1: names made, removed, renamed, written
 * or touched in it) or a file (written, touched, removed or renamed). Its
 * watch number (>= 0), or -errno (-ENOSPC: the user's limit of watches,
 * fs.inotify.max_user_watches). */
int pl_watch_add(int fd, const char *path, int dir);
void pl_watch_rm(int fd, int wd);
enum {
	PL_W_ISDIR = 1,		/* the name is a folder's */
	PL_W_GONE = 2,		/* the watched itself went: its watch ended */
	PL_W_LOST = 4,		/* notices were lost (wd -1): look at all */
};
/* Reads the notices waiting on fd, fn(arg, wd, name, what) for each (name
 * "" for the watched itself; what of PL_W_*). How many, 0 when none, or
 * -errno. */
int pl_watch_read(int fd, void (*fn)(void *arg, int wd, const char *name, unsigned what),
		  void *arg);
/* 1 when the filesystem of path may change with no notice to this kernel
 * (NFS, SMB/CIFS, FUSE, 9p, Ceph, AFS: statfs f_type, Linux); 0 when it
 * is local or cannot be told. */
int pl_fs_remote(const char *path);

#endif

/*
 * notify: the thread that tells the kernel what to forget (and looks at
 * agents/ when asked to: live.h), for either layer (vfs.h): a session's
 * tree, or the projects folder (pjlive.h: it looks at the folder and the
 * open sessions every second).
 *
 * live.c queues invalidations while it brings a view up to its log, under
 * the tree's write lock and often inside a request. They cannot be sent
 * there: the kernel may wait, to take one, for a lock that a request in
 * flight holds, and that request waits for this process. So one thread of
 * its own takes the queue (lv_wait()) and sends each with
 * fuse_lowlevel_notify_inval_inode() or _entry(). What the kernel does not
 * know (-ENOENT) is simply not there to forget.
 */
#ifndef SESSFS_NOTIFY_H
#define SESSFS_NOTIFY_H

#include "sfuse.h"

struct vfs;
struct notifier;

/* The thread's name (/proc/PID/task/TID/comm): it is also the one that
 * looks at the log (live.h: signs it, checks it again), and the mount
 * tests read its I/O counters to know when it has. */
#define NT_THREAD_NAME "sessfs-notify"

/* Starts the thread, for the session se mounted at mnt (an absolute
 * path; after any fork: threads do not survive one), serving layer v.
 * Its first step is a stat of mnt, to tell the layer its own device. Returns a new notifier, or
 * NULL when no thread could be started (then nothing is queued: the kernel
 * only misses the rare invalidations of what it keeps for long). */
struct notifier *nt_start(struct fuse_session *se, struct vfs *v, const char *mnt);
/* Stops the thread and frees n; call before the session is unmounted. */
void nt_stop(struct notifier *n);

#endif

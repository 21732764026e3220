/*
 * mlock: the look for a mount already at the mountpoint and the mount
 * itself as one step. Two sessfs started together on one mountpoint both
 * found nothing mounted there and both mounted, one over the other. Each
 * takes an exclusive flock() on the mountpoint's own folder (opened before
 * anything is mounted on it: every process that opens it then locks the
 * same inode) before it looks, and lets go once its mount is up or has
 * failed: the second one waits, then finds the first one's mount and is
 * refused.
 *
 * A mountpoint the user cannot open for reading is not locked (the look
 * and the mount go on as before; libfuse itself refuses most such
 * mountpoints). Call from the main thread.
 */
#ifndef SESSFS_MLOCK_H
#define SESSFS_MLOCK_H

/* Takes the lock of mountpoint mnt, waiting for another sessfs that holds
 * it. Returns a descriptor to hand to ml_release(), or -1 when mnt could
 * not be locked (nothing to release). */
int ml_take(const char *mnt);
/* Lets go of a lock ml_take() gave (-1: nothing). */
void ml_release(int fd);

#endif

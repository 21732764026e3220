/*
 * tarw: writes a tar stream (POSIX pax, readable as ustar) onto a file
 * descriptor.
 *
 * Each entry is a 512-byte ustar header, preceded by a pax extended
 * header ('x') when ustar cannot say everything: a path longer than 100
 * bytes, a link target longer than 100, a time with nanoseconds or out of
 * the octal field's range, a size of 8 GiB or more, and extended
 * attributes (SCHILY.xattr.NAME records, as GNU tar and bsdtar read them
 * with --xattrs). A file may be a hard link to an earlier entry (type
 * '1', no data). The stream ends with two zero blocks (tw_finish()).
 *
 * A file's bytes may also follow its header in pieces (tw_add() with
 * data NULL and its size, then tw_data() and tw_data_end()): a file as
 * long as a log's branch is streamed, never held whole.
 *
 * Output is buffered; write errors are kept and returned by every later
 * call. Not thread-safe: one writer belongs to one thread.
 */
#ifndef SESSFS_TARW_H
#define SESSFS_TARW_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>

#include "sbuf.h"

#define TW_BLOCK 512
#define TW_NAME_MAX 100		/* bytes of a path or link target in ustar */

struct tarw;

/* A new writer onto fd (not closed by the writer), or NULL on ENOMEM. */
struct tarw *tw_new(int fd);
/* Frees w (after tw_finish(), or to abandon the stream); w may be NULL. */
void tw_free(struct tarw *w);

/* One entry. */
struct tw_entry {
	const char *path;	/* as stored: "./a/b", a folder's ending in '/' */
	mode_t mode;		/* S_IFREG, S_IFDIR or S_IFLNK and permissions */
	uid_t uid;
	gid_t gid;
	const char *uname;	/* may be NULL */
	const char *gname;	/* may be NULL */
	struct timespec mtime;
	const char *link;	/* a symlink's target, else NULL */
	const char *hardlink;	/* or the path of an earlier entry this file
				 * is (a hard link: no data), else NULL */
	const void *data;	/* a file's bytes; NULL: they follow, through
				 * tw_data() (when size is not 0) */
	uint64_t size;
	/* Extended attributes: NUL-terminated names, each followed by a
	 * 4-byte length (host order) and that many value bytes; NULL or
	 * empty for none. */
	const struct sbuf *xattrs;
};

/* Writes one entry. 0, or -errno (also for any earlier write error;
 * -EINVAL while a file's bytes are still awaited). */
int tw_add(struct tarw *w, const struct tw_entry *e);
/* The next piece of the bytes of the file tw_add() began (bytes beyond
 * its size are dropped: -EOVERFLOW), and their end: the bytes missing,
 * if any, are written as zeros (-ENODATA) so that the stream stays well
 * formed. 0, or -errno. */
int tw_data(struct tarw *w, const void *p, size_t n);
int tw_data_end(struct tarw *w);
/* The first write error (-errno), or 0: the stream is broken. */
int tw_error(const struct tarw *w);
/* Writes the end of the archive and flushes. 0 or -errno. */
int tw_finish(struct tarw *w);

/* Appends an extended attribute to xs in the layout tw_entry wants. */
void tw_xattr_add(struct sbuf *xs, const char *name, const void *value, uint32_t len);
/* Walks xs: the attribute at *off (name, value, length), moving *off on;
 * 0 at the end. */
int tw_xattr_next(const struct sbuf *xs, size_t *off, const char **name,
		  const char **value, uint32_t *len);

#endif

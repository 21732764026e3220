/*
 * export: the tree a mount shows, written out without FUSE.
 *
 * The second reader of the vfs contract (vfs.h), beside fs/: it walks a
 * layer (a session's tree, or a projects folder) through the same calls
 * the mount answers the kernel with (vf_opendir, vf_dir_entry,
 * vf_content, vf_readlink, vf_listxattr, vf_getxattr), so an export and a
 * mount of one log or folder hold the same files, byte for byte. Nothing
 * here needs libfuse or /dev/fuse. The command (sessfs export) is a front
 * end's: cli/export_cmd.c.
 *
 * Into a folder (DEST a path): folders, plain files (with the modes the
 * mount shows them with: the log's read bits, tree.h) and symbolic links,
 * with the mount's mtimes and its user.sessfs.* extended attributes when
 * DEST keeps them (else one note, and the export goes on without).
 * Folders are made writable by their owner (0755, not the mount's
 * read-only modes), so the export can be removed.
 * A file the layer lists under one inode in several folders, as it says
 * with st_nlink above 1, is written once and hard-linked from its other
 * names (a copy where DEST cannot link); in the stream its later names
 * are hard-link entries. Only such files are remembered: a session's tree
 * gives each file one home (other places are symbolic links, tree.h), so
 * an export's memory does not grow with its files.
 * DEST is made if missing; one that is not empty is refused unless
 * force is set, and then what stands in the way of an entry (a file or
 * a symbolic link) is replaced, other entries are left. Every name is
 * made with mkdirat/openat/symlinkat under a descriptor of its folder,
 * opened O_NOFOLLOW: nothing is written outside DEST, and no symbolic
 * link is followed.
 *
 * As a tar stream (DEST "-"): the same tree on stdout as a POSIX pax
 * archive (tarw.h), paths "./...", with modes, mtimes (nanoseconds) and
 * the extended attributes as SCHILY.xattr records.
 *
 * Listings are read and files rendered and written on two threads (the
 * caller and a pool helper); progress is shown on stderr when it is a
 * terminal and the export takes more than EX_PROGRESS_AFTER_MS.
 *
 * Not thread-safe: one export at a time per layer (the layer itself may
 * be shared).
 */
#ifndef SESSFS_EXPORT_H
#define SESSFS_EXPORT_H

#include <stdint.h>

#include "vfs.h"

#define EX_PROGRESS_AFTER_MS 500	/* quiet for exports shorter than this */
#define EX_DEPTH_MAX 64			/* folders deeper than this are skipped */

struct ex_opts {
	int force;		/* write into a DEST that is not empty */
	int progress;		/* show progress on stderr (if a terminal) */
};

/* What an export wrote. */
struct ex_stats {
	uint64_t files, dirs, links;
	uint64_t bytes;			/* of file contents */
	uint64_t errors;		/* entries not written (each said on stderr) */
	int no_xattrs;			/* DEST keeps no extended attributes */
};

/*
 * Writes the tree of layer v from its root inode into the folder dest, or
 * as a tar stream onto stdout when dest is "-". Returns 0 (see st->errors
 * for entries that failed), -ENOTEMPTY for a DEST refused, or -errno when
 * DEST cannot be made or opened, or the stream cannot be written. Entries
 * that fail are said on stderr and skipped.
 */
int ex_vfs(struct vfs *v, uint64_t root, const char *dest, const struct ex_opts *o,
	   struct ex_stats *st);

#endif

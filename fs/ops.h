/*
 * ops: the FUSE low-level operations, answering the kernel from a layer.
 * The session's userdata is a struct vfs (vfs.h): a session's tree, or the
 * projects folder. Everything that would
 * change something fails with EROFS.
 */
#ifndef SESSFS_OPS_H
#define SESSFS_OPS_H

#include "sfuse.h"

#define OPS_TIMEOUT_IMMUTABLE 86400.0	/* changes only by invalidation */
#define OPS_TIMEOUT_LIVE 0.0		/* what grows with the log */

#define OPS_PUSH_MAX (256u << 10)	/* largest file pushed to the page cache */
#define OPS_ENTRY_GUESS 184		/* bytes of a listing entry, until known */
#define OPS_XATTR_NS "user."		/* the only namespace of extended attributes */

extern const struct fuse_lowlevel_ops sessfs_ops;

/* The session, for pushing rendered files into the kernel's page cache. */
void ops_set_session(struct fuse_session *se);

#endif

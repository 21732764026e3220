/*
 * statedir: the state/ folder of the mount, over core/state.h.
 *
 *   state/                      TI_STATE (node 0 of the state)
 *   state/<entry>...            TR_INO(TK_STATE, node): folders and
 *                               files with the log's read bits
 *                               (tree.h), sizes exact
 *
 * State nodes are not immutable: the state is rebuilt when the log grows,
 * and a node number may then name another entry (short kernel timeouts,
 * as for every node that grows). Nothing under state/ is a link.
 *
 * Callers hold the tree's read lock (tree.h); the functions only read.
 */
#ifndef SESSFS_STATEDIR_H
#define SESSFS_STATEDIR_H

#include <stdint.h>

#include "session.h"

/* True when ino is a folder of state/ (state/ itself included). */
int sd_is_dir(struct session *s, uint64_t ino);
/* True when ino is a file of state/. */
int sd_is_file(struct session *s, uint64_t ino);
/* The inode of the folder holding ino (TI_ROOT for state/ itself). */
uint64_t sd_parent(struct session *s, uint64_t ino);
/* The entries of folder ino, as a new array of nodes (free() it). */
int sd_list(struct session *s, uint64_t ino, uint32_t **nodes, uint32_t *n);
/* Name (NM_MAX + 1 bytes) and inode of a node; -ENOENT when it is gone. */
int sd_entry(struct session *s, uint32_t node, char *name, uint64_t *ino);
/* The inode of name in folder parent, or 0. */
uint64_t sd_lookup(struct session *s, uint64_t parent, const char *name);
/* Content of a file; -EISDIR, -ENOENT, or a read error of a backup. */
int sd_render(struct session *s, uint64_t ino, struct sbuf *out);
/* Extended attributes (user.sessfs.partial on partial reads). */
int sd_getxattr(struct session *s, uint64_t ino, const char *name, struct sbuf *out);
void sd_listxattr(struct session *s, uint64_t ino, struct sbuf *out);

#endif

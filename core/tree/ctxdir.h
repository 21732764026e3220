/*
 * ctxdir: the context/ folder of the mount, over ctx.h.
 *
 *   context/<seq>-<kind>.md   the rows the model gets, numbered from the
 *                             start of the window; a row of the log is the
 *                             same file (inode, name kind, bytes) as in
 *                             branches/, a row the resume adds is rendered
 *                             from the message it goes into
 *   context/messages.json     the Messages API messages array
 *   context/window.md         where the window starts, what was left out
 *                             or repaired, and why
 *
 * Inodes here are local to the session's view (tree.h TR_LOCAL): the tree
 * adds the view. Callers hold the tree's read lock (tree.h); the functions
 * only read.
 */
#ifndef SESSFS_CTXDIR_H
#define SESSFS_CTXDIR_H

#include <stdint.h>

#include "session.h"

/* Entries of the folder (the numbered files, then the two others). */
uint32_t cd_count(struct session *s);
/* Entry i: its name (NM_MAX + 1 bytes) and inode; -ENOENT past the end. */
int cd_entry(struct session *s, uint32_t i, char *name, uint64_t *ino);
/* The inode of name in context/, or 0. */
uint64_t cd_lookup(struct session *s, const char *name);
/* A new reference to messages.json's text, as the context keeps it (no
 * copy), or NULL when the context could not be built. */
struct blob *cd_messages(struct session *s);
/* Content of a context-only inode (messages.json, window.md, a row the
 * resume adds); -ENOENT if it is not one. */
int cd_render(struct session *s, uint64_t ino, struct sbuf *out);

#endif

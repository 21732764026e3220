/*
 * vfs: the one contract between core and its front ends: the FUSE
 * operations (fs/ops.c) and export (export.h) answer from it, whichever
 * layer serves it: a session's tree (tree.h: tr_vfs_ops), or the projects
 * folder above many trees (pjfs.h: pf_vfs_ops). The calls mean what
 * tree.h says of their tr_* namesakes; thread-safety is the layer's (both
 * are). The types here are neutral: no layer's own.
 */
#ifndef SESSFS_VFS_H
#define SESSFS_VFS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "cache.h"
#include "sbuf.h"

#define VF_NAME_MAX 255		/* longest name in the tree */
#define VF_ROOT 1		/* every layer's root inode (FUSE's) */

/* A node's attributes. */
struct vf_attr {
	struct stat st;
	int immutable;		/* its attributes never change */
	int fixed_name;		/* its name keeps naming it as the log grows */
	/* In a listing: only the inode and type are known (working out the
	 * size would render the file: a transcript); the kernel looks the
	 * name up when it needs more. */
	int lazy;
	uint32_t keep_ms;	/* how long the kernel may keep them */
};

/* What the kernel is to forget: a name in parent (ino 0), or an inode's
 * attributes and contents (parent 0, name ""). */
struct vf_inval {
	uint64_t parent;
	uint64_t ino;
	char name[VF_NAME_MAX + 1];
};

struct vf_dir;			/* a layer's open directory */

/* What a layer hands a file's bytes to, in pieces (vf_ops.stream). */
struct vf_sink {
	/* The file's size, before any of its bytes; NULL when the reader
	 * does not need it first (a long file is then rendered once, not
	 * twice). 0, or -errno to end the stream. */
	int (*size)(void *arg, uint64_t size);
	/* Its bytes, in order, in pieces (SB_PIECE bytes and a row at most
	 * for a long file). 0, or -errno to end the stream. */
	int (*data)(void *arg, const void *p, size_t n);
	void *arg;
};

struct vf_ops {
	int (*getattr)(void *fs, uint64_t ino, struct vf_attr *out);
	int (*lookup)(void *fs, uint64_t parent, const char *name, struct vf_attr *out);
	int (*opendir)(void *fs, uint64_t ino, struct vf_dir **out);
	int (*dir_entry)(void *fs, struct vf_dir *d, uint64_t i, char *name,
			 struct vf_attr *attr);
	void (*closedir)(void *fs, struct vf_dir *d);
	uint64_t (*dir_gen)(const struct vf_dir *d);
	int (*content)(void *fs, uint64_t ino, struct blob **out);
	/* The same in pieces, for a reader that writes a file out (export)
	 * and must not hold all of a long one: a file whose listing entry is
	 * lazy (a transcript, as long as its branch) is rendered piece by
	 * piece, in memory bounded whatever its length; any other comes
	 * whole. 0, -errno, or the sink's error. */
	int (*stream)(void *fs, uint64_t ino, const struct vf_sink *sink);
	/* 1 when ino's contents never change (a message, a record): the
	 * kernel may keep its pages across opens. */
	int (*fixed_content)(void *fs, uint64_t ino);
	int (*readlink)(void *fs, uint64_t ino, char *out);
	int (*getxattr)(void *fs, uint64_t ino, const char *name, struct sbuf *out);
	int (*listxattr)(void *fs, uint64_t ino, struct sbuf *out);
	int (*claim_push)(void *fs, uint64_t ino);
	void (*pushed)(void *fs, uint64_t ino);
	/* For the notifier thread (fs/notify.h): what the kernel must forget
	 * (lv_wait(): *n is 0 once stopped), the end of that, and the
	 * mount's own device. */
	void (*wait)(void *fs, struct vf_inval **out, size_t *n);
	void (*stop)(void *fs);
	void (*own_device)(void *fs, dev_t dev);
};

/* The session's userdata: a layer and its calls. */
struct vfs {
	const struct vf_ops *ops;
	void *fs;
};

static inline int vf_getattr(struct vfs *v, uint64_t ino, struct vf_attr *out)
{
	return v->ops->getattr(v->fs, ino, out);
}

static inline int vf_lookup(struct vfs *v, uint64_t parent, const char *name,
			    struct vf_attr *out)
{
	return v->ops->lookup(v->fs, parent, name, out);
}

static inline int vf_opendir(struct vfs *v, uint64_t ino, struct vf_dir **out)
{
	return v->ops->opendir(v->fs, ino, out);
}

static inline int vf_dir_entry(struct vfs *v, struct vf_dir *d, uint64_t i, char *name,
			       struct vf_attr *attr)
{
	return v->ops->dir_entry(v->fs, d, i, name, attr);
}

static inline void vf_closedir(struct vfs *v, struct vf_dir *d)
{
	if (d)
		v->ops->closedir(v->fs, d);
}

static inline uint64_t vf_dir_gen(struct vfs *v, const struct vf_dir *d)
{
	return v->ops->dir_gen(d);
}

static inline int vf_content(struct vfs *v, uint64_t ino, struct blob **out)
{
	return v->ops->content(v->fs, ino, out);
}

static inline int vf_stream(struct vfs *v, uint64_t ino, const struct vf_sink *sink)
{
	return v->ops->stream(v->fs, ino, sink);
}

/* A layer's stream of a file it holds whole (b): its size, then its bytes
 * in one piece. 0 or the sink's error. */
static inline int vf_sink_blob(const struct vf_sink *sink, const struct blob *b)
{
	int rc = sink->size ? sink->size(sink->arg, b->len) : 0;

	return !rc && b->len ? sink->data(sink->arg, b->data, b->len) : rc;
}

static inline int vf_fixed_content(struct vfs *v, uint64_t ino)
{
	return v->ops->fixed_content(v->fs, ino);
}

static inline int vf_readlink(struct vfs *v, uint64_t ino, char *out)
{
	return v->ops->readlink(v->fs, ino, out);
}

static inline int vf_getxattr(struct vfs *v, uint64_t ino, const char *name,
			      struct sbuf *out)
{
	return v->ops->getxattr(v->fs, ino, name, out);
}

static inline int vf_listxattr(struct vfs *v, uint64_t ino, struct sbuf *out)
{
	return v->ops->listxattr(v->fs, ino, out);
}

static inline int vf_claim_push(struct vfs *v, uint64_t ino)
{
	return v->ops->claim_push(v->fs, ino);
}

static inline void vf_pushed(struct vfs *v, uint64_t ino)
{
	v->ops->pushed(v->fs, ino);
}

#endif

/*
 * vfs: what the FUSE operations (ops.c) answer from. A mount serves one
 * of two layers through the same calls: a session's tree (tree.h), or the
 * projects folder above many trees (pjfs.h). The calls mean what tree.h
 * says of their tr_* namesakes; thread-safety is the layer's (both are).
 */
#ifndef SESSFS_VFS_H
#define SESSFS_VFS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "live.h"
#include "tree.h"

struct vf_dir;			/* a layer's open directory */

struct vf_ops {
	int (*getattr)(void *fs, uint64_t ino, struct tr_attr *out);
	int (*lookup)(void *fs, uint64_t parent, const char *name, struct tr_attr *out);
	int (*opendir)(void *fs, uint64_t ino, struct vf_dir **out);
	int (*dir_entry)(void *fs, struct vf_dir *d, uint64_t i, char *name,
			 struct tr_attr *attr);
	void (*closedir)(void *fs, struct vf_dir *d);
	uint64_t (*dir_gen)(const struct vf_dir *d);
	int (*content)(void *fs, uint64_t ino, struct blob **out);
	int (*readlink)(void *fs, uint64_t ino, char *out);
	int (*getxattr)(void *fs, uint64_t ino, const char *name, struct sbuf *out);
	int (*listxattr)(void *fs, uint64_t ino, struct sbuf *out);
	int (*claim_push)(void *fs, uint64_t ino);
	void (*pushed)(void *fs, uint64_t ino);
	/* For the notifier thread (fs/notify.h): what the kernel must forget
	 * (lv_wait(): *n is 0 once stopped), the end of that, and the
	 * mount's own device. */
	void (*wait)(void *fs, struct lv_inval **out, size_t *n);
	void (*stop)(void *fs);
	void (*own_device)(void *fs, dev_t dev);
};

/* The session's userdata: a layer and its calls. */
struct vfs {
	const struct vf_ops *ops;
	void *fs;
};

static inline int vf_getattr(struct vfs *v, uint64_t ino, struct tr_attr *out)
{
	return v->ops->getattr(v->fs, ino, out);
}

static inline int vf_lookup(struct vfs *v, uint64_t parent, const char *name,
			    struct tr_attr *out)
{
	return v->ops->lookup(v->fs, parent, name, out);
}

static inline int vf_opendir(struct vfs *v, uint64_t ino, struct vf_dir **out)
{
	return v->ops->opendir(v->fs, ino, out);
}

static inline int vf_dir_entry(struct vfs *v, struct vf_dir *d, uint64_t i, char *name,
			       struct tr_attr *attr)
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

/* The calls of a single session's tree (fs: a struct tree). */
extern const struct vf_ops vf_tree_ops;

#endif

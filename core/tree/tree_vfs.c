/*
 * tree_vfs: a single session's tree as the vfs contract (vfs.h).
 */
#include "live.h"
#include "tree.h"
#include "vfs.h"

_Static_assert(VF_NAME_MAX == NM_MAX, "a vfs name holds any name of the tree");
_Static_assert(VF_ROOT == TI_ROOT, "the tree's root is the vfs root");

/* The tree's calls under the layer's signatures. */

static int t_getattr(void *fs, uint64_t ino, struct vf_attr *out)
{
	return tr_getattr(fs, ino, out);
}

static int t_lookup(void *fs, uint64_t parent, const char *name, struct vf_attr *out)
{
	return tr_lookup(fs, parent, name, out);
}

static int t_opendir(void *fs, uint64_t ino, struct vf_dir **out)
{
	return tr_opendir(fs, ino, (struct tr_dir **)out);
}

static int t_dir_entry(void *fs, struct vf_dir *d, uint64_t i, char *name,
		       struct vf_attr *attr)
{
	return tr_dir_entry(fs, (struct tr_dir *)d, i, name, attr);
}

static void t_closedir(void *fs, struct vf_dir *d)
{
	(void)fs;
	tr_closedir((struct tr_dir *)d);
}

static uint64_t t_dir_gen(const struct vf_dir *d)
{
	return tr_dir_gen((const struct tr_dir *)d);
}

static int t_content(void *fs, uint64_t ino, struct blob **out)
{
	return tr_content(fs, ino, out);
}

static int t_stream(void *fs, uint64_t ino, const struct vf_sink *sink)
{
	return tr_stream(fs, ino, sink);
}

static int t_fixed_content(void *fs, uint64_t ino)
{
	(void)fs;
	return tr_fixed_content(ino);
}

static int t_readlink(void *fs, uint64_t ino, char *out)
{
	return tr_readlink(fs, ino, out);
}

static int t_getxattr(void *fs, uint64_t ino, const char *name, struct sbuf *out)
{
	return tr_getxattr(fs, ino, name, out);
}

static int t_listxattr(void *fs, uint64_t ino, struct sbuf *out)
{
	return tr_listxattr(fs, ino, out);
}

static int t_claim_push(void *fs, uint64_t ino)
{
	return tr_claim_push(fs, ino);
}

static void t_pushed(void *fs, uint64_t ino)
{
	tr_pushed(fs, ino);
}

static void t_wait(void *fs, struct vf_inval **out, size_t *n)
{
	lv_wait(fs, out, n);
}

static void t_stop(void *fs)
{
	lv_stop(fs);
}

static void t_own_device(void *fs, dev_t dev)
{
	tr_own_device(fs, dev);
}

const struct vf_ops tr_vfs_ops = {
	t_getattr, t_lookup, t_opendir, t_dir_entry, t_closedir, t_dir_gen,
	t_content, t_stream, t_fixed_content, t_readlink, t_getxattr, t_listxattr, t_claim_push,
	t_pushed, t_wait, t_stop, t_own_device,
};

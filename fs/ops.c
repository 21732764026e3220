#include "ops.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <uthash.h>

#include "loop.h"
#include "names.h"
#include "pool.h"
#include "tree.h"
#include "vfs.h"

static struct vfs *tree_of(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

/*
 * With SESSFS_STATS set, the requests served by kind and the files pushed
 * are counted and printed on stderr at unmount (for the benchmark: how
 * many round trips a walk costs per file, whatever the machine's load).
 */
enum { ST_LOOKUP, ST_GETATTR, ST_READLINK, ST_OPENDIR, ST_READDIR, ST_READDIRPLUS,
       ST_RELEASEDIR, ST_OPEN, ST_READ, ST_RELEASE, ST_XATTR, ST_PUSH, ST_N };
static const char *const stat_name[ST_N] = {
	"lookup", "getattr", "readlink", "opendir", "readdir", "readdirplus",
	"releasedir", "open", "read", "release", "xattr", "pushed",
};
static unsigned long stat_n[ST_N];

static void count(int kind)
{
	__atomic_add_fetch(&stat_n[kind], 1, __ATOMIC_RELAXED);
}

static void stats_print(void)
{
	int i;

	if (!getenv("SESSFS_STATS"))
		return;
	fprintf(stderr, "sessfs: requests:");
	for (i = 0; i < ST_N; i++)
		fprintf(stderr, " %s=%lu", stat_name[i], stat_n[i]);
	fprintf(stderr, "\n");
}

/* How long the kernel may keep what it got: for long when it changes only
 * through an invalidation (live.h), not at all when it grows with the log
 * (the next request then sees the log as it is). */
static double timeout_of(const struct vf_attr *a)
{
	return a->immutable ? OPS_TIMEOUT_IMMUTABLE : OPS_TIMEOUT_LIVE + a->keep_ms / 1000.0;
}

static void fill_entry(struct fuse_entry_param *e, const struct vf_attr *a)
{
	memset(e, 0, sizeof(*e));
	e->ino = a->st.st_ino;
	e->generation = 1;
	e->attr = a->st;
	e->attr_timeout = timeout_of(a);
	e->entry_timeout = a->fixed_name ? OPS_TIMEOUT_IMMUTABLE
					 : OPS_TIMEOUT_LIVE + a->keep_ms / 1000.0;
	if (a->lazy) {		/* a listing entry without attributes */
		e->ino = 0;
		e->attr_timeout = e->entry_timeout = 0;
	}
}

/* Set at init: the kernel opens files without asking (zero-message open). */
static int no_open;
static struct fuse_session *session;
/* The helper that renders and pushes a listing's files with us. */
static struct pool *pool;

void ops_set_session(struct fuse_session *se)
{
	session = se;
}

/*
 * A listing with attributes renders each message file to learn its size.
 * Hand the text to the kernel's page cache, once per file, so the reads
 * that usually follow need no round trip. The kernel knows an entry's
 * inode only once the reader has taken the batch, which is certain when
 * it asks for the next one: so each call pushes the batch before it (the
 * last, empty call pushes the last batch), once it has replied. The
 * reader takes its batch while the pushes run: before the reply, they
 * had been a third of an `ls -l` of 300,000 files.
 */
struct pushes {
	struct vfs *t;
	const uint64_t *ino;
};

static void push_item(void *arg, size_t i)
{
	const struct pushes *p = arg;
	uint64_t ino = p->ino[i];
	struct blob *b;
	struct fuse_bufvec bv = FUSE_BUFVEC_INIT(0);

	if (!session || !vf_claim_push(p->t, ino) || vf_content(p->t, ino, &b))
		return;
	if (b->len && b->len <= OPS_PUSH_MAX) {
		bv.buf[0].mem = b->data;
		bv.buf[0].size = b->len;
		if (!fuse_lowlevel_notify_store(session, ino, 0, &bv, 0)) {
			count(ST_PUSH);
			vf_pushed(p->t, ino);
		}
	}
	blob_unref(b);
}

/* Pushes the n files of ino (taken; NULL: none), with the pool's helper
 * when it is free. Called after a reply: another thread reads the next
 * request meanwhile (lp_replied()). */
static void push_batch(struct vfs *t, uint64_t *ino, size_t n)
{
	struct pushes p = { t, ino };

	if (ino && n) {
		lp_replied();
		pool_run(pool, n, push_item, &p);
	}
	free(ino);
}

/* The entries a listing call will likely send, worked out with the pool
 * (rendering them is what takes the time; their attributes are kept for
 * the reply). */
struct ahead {
	struct vfs *t;
	struct vf_dir *d;
	uint64_t off;		/* entry index of e[0] */
	struct ahead_entry {
		int rc;
		struct vf_attr a;
		char name[NM_MAX + 1];
	} *e;
	size_t ne;
};

static void ahead_item(void *arg, size_t i)
{
	struct ahead *w = arg;
	struct ahead_entry *x = &w->e[i];

	x->rc = vf_dir_entry(w->t, w->d, w->off + i, x->name, &x->a);
}

/* Entry i of the listing: from the work done ahead, or now. */
static int entry_at(struct vfs *t, struct vf_dir *d, const struct ahead *w,
		    uint64_t i, char *name, struct vf_attr *a)
{
	const struct ahead_entry *x;

	if (i < w->off || i - w->off >= w->ne)
		return vf_dir_entry(t, d, i, name, a);
	x = &w->e[i - w->off];
	if (x->rc > 0) {
		memcpy(name, x->name, strlen(x->name) + 1);
		*a = x->a;
	}
	return x->rc;
}

static void op_init(void *userdata, struct fuse_conn_info *conn)
{
	(void)userdata;
	/* ls -l and find get attributes with the listing, always. */
	conn->want &= ~FUSE_CAP_READDIRPLUS_AUTO;
	/* branches/current is walked through on every path under it. */
	if (conn->capable & FUSE_CAP_CACHE_SYMLINKS)
		conn->want |= FUSE_CAP_CACHE_SYMLINKS;
	/* Files are read by inode: an open needs no round trip, and the
	 * kernel keeps their pages (a message never changes; what grows gets
	 * a new size and mtime, which drops its pages). A kernel without it
	 * (before Linux 3.15) gets a round trip per open: an open whose
	 * release an unmount drops keeps its text until exit. */
	if (conn->capable & FUSE_CAP_NO_OPEN_SUPPORT) {
		conn->want |= FUSE_CAP_NO_OPEN_SUPPORT;
		no_open = 1;
	}
	/* Without it, a listing renders on one thread only. */
	pool = pool_new();
}

/*
 * Listings the kernel keeps. A folder opened again with nothing changed
 * since its last listing (the same vf_dir_gen()) is read from the kernel's
 * copy, with no request at all: a warm grep -r or ls -l of a branch costs
 * what it costs on a local disk. Any change makes the next open drop it.
 */
struct kept {
	UT_hash_handle hh;
	uint64_t ino;
	uint64_t gen;		/* of the last listing the kernel was given */
};

static struct kept *kept;
static pthread_mutex_t kept_mu = PTHREAD_MUTEX_INITIALIZER;

/* Whether the kernel's copy of folder ino's listing is of generation gen;
 * from now on it is. */
static int keep_listing(uint64_t ino, uint64_t gen)
{
	struct kept *k;
	int same = 0;

	pthread_mutex_lock(&kept_mu);
	HASH_FIND(hh, kept, &ino, sizeof(ino), k);
	if (!k && (k = calloc(1, sizeof(*k)))) {
		k->ino = ino;
		k->gen = gen + 1;
		HASH_ADD(hh, kept, ino, sizeof(k->ino), k);
	}
	if (k) {
		same = k->gen == gen;
		k->gen = gen;
	}
	pthread_mutex_unlock(&kept_mu);
	return same;
}

static void odirs_free_left(void);

static void op_destroy(void *userdata)
{
	struct kept *k, *tmp;

	(void)userdata;
	stats_print();
	pool_free(pool);
	pool = NULL;
	odirs_free_left();
	pthread_mutex_lock(&kept_mu);
	HASH_ITER(hh, kept, k, tmp) {
		HASH_DEL(kept, k);
		free(k);
	}
	pthread_mutex_unlock(&kept_mu);
}

static void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fuse_entry_param e;
	struct vf_attr a;
	int rc = vf_lookup(tree_of(req), parent, name, &a);

	count(ST_LOOKUP);
	if (rc) {
		fuse_reply_err(req, -rc);
		return;
	}
	fill_entry(&e, &a);
	fuse_reply_entry(req, &e);
}

static void op_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct vf_attr a;
	int rc = vf_getattr(tree_of(req), ino, &a);

	count(ST_GETATTR);
	(void)fi;
	if (rc)
		fuse_reply_err(req, -rc);
	else
		fuse_reply_attr(req, &a.st, timeout_of(&a));
}

static void op_readlink(fuse_req_t req, fuse_ino_t ino)
{
	char target[NM_MAX + 1];
	int rc = vf_readlink(tree_of(req), ino, target);

	count(ST_READLINK);
	if (rc)
		fuse_reply_err(req, -rc);
	else
		fuse_reply_readlink(req, target);
}

/* Entries rendered by the helper while the reader takes a reply, so that
 * the next call finds them in the cache. */
struct warm {
	struct pool_job job;
	struct vfs *t;
	struct vf_dir *d;
	uint64_t off;
};

static void warm_item(void *arg, size_t i)
{
	struct warm *w = arg;
	struct vf_attr a;
	char name[NM_MAX + 1];

	vf_dir_entry(w->t, w->d, w->off + i, name, &a);
}

/* An open directory: its listing, the files listed but not pushed, how
 * many bytes an entry took in the last reply, what the helper renders;
 * on the list of open directories (odirs). */
struct odir {
	struct vfs *fs;
	struct vf_dir *d;
	uint64_t *pending;
	size_t npending;
	size_t entry_bytes;
	struct warm *warm;
	struct odir *prev, *next;
};

/* Every open directory. A reader's close queues its release in the
 * background; an unmount that comes first drops what is queued, and the
 * release never arrives: op_destroy() frees what is left here. */
static struct odir *odirs;
static pthread_mutex_t odirs_mu = PTHREAD_MUTEX_INITIALIZER;

static void odir_link(struct odir *od)
{
	pthread_mutex_lock(&odirs_mu);
	od->next = odirs;
	if (odirs)
		odirs->prev = od;
	odirs = od;
	pthread_mutex_unlock(&odirs_mu);
}

static void odir_unlink(struct odir *od)
{
	pthread_mutex_lock(&odirs_mu);
	if (od->prev)
		od->prev->next = od->next;
	else
		odirs = od->next;
	if (od->next)
		od->next->prev = od->prev;
	pthread_mutex_unlock(&odirs_mu);
}

/* Starts rendering n entries from off in the background. */
static void warm_start(struct vfs *t, struct odir *od, uint64_t off, size_t n)
{
	struct warm *w = malloc(sizeof(*w));

	if (!w)
		return;
	*w = (struct warm){ { warm_item, w, n, 0 }, t, od->d, off };
	if (pool_post(pool, &w->job))
		od->warm = w;
	else
		free(w);
}

/* Finishes the background rendering (helping), or drops what is left. */
static void warm_end(struct odir *od, int drop)
{
	if (!od->warm)
		return;
	pool_wait(pool, &od->warm->job, drop);
	free(od->warm);
	od->warm = NULL;
}

/* Closes od's listing and frees it, its helper's job done or dropped. */
static void odir_close(struct odir *od)
{
	free(od->warm);
	vf_closedir(od->fs, od->d);
	free(od->pending);
	free(od);
}

static void odir_free(struct odir *od)
{
	if (!od)
		return;
	odir_unlink(od);
	warm_end(od, 1);
	odir_close(od);
}

/* The directories whose release never came, once the helper is stopped
 * (its job of one, done or not, is no longer looked at). */
static void odirs_free_left(void)
{
	struct odir *od;

	pthread_mutex_lock(&odirs_mu);
	while ((od = odirs)) {
		odirs = od->next;
		odir_close(od);
	}
	pthread_mutex_unlock(&odirs_mu);
}

static void op_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct odir *od = calloc(1, sizeof(*od));
	int rc = od ? vf_opendir(tree_of(req), ino, &od->d) : -ENOMEM;

	count(ST_OPENDIR);
	if (rc) {
		free(od);
		fuse_reply_err(req, -rc);
		return;
	}
	od->fs = tree_of(req);
	od->entry_bytes = OPS_ENTRY_GUESS;
	odir_link(od);
	fi->cache_readdir = 1;
	fi->keep_cache = keep_listing(ino, vf_dir_gen(od->fs, od->d));
	fi->fh = (uintptr_t)od;
	/* Not delivered (the call interrupted, the mount gone): no release
	 * will come for it. */
	if (fuse_reply_open(req, fi))
		odir_free(od);
}

/*
 * Before a reply with attributes is filled: works out the entries it will
 * likely hold (as many as fit by the size an entry took last time, and a
 * few more), on both threads.
 */
static void work_ahead(struct vfs *t, struct odir *od, size_t size, uint64_t off,
		       int plus, struct ahead *w)
{
	size_t guess = plus ? size / od->entry_bytes + 1 : 0;

	memset(w, 0, sizeof(*w));
	w->t = t;
	w->d = od->d;
	w->off = off;
	w->ne = guess + guess / 8;
	w->e = w->ne ? malloc(w->ne * sizeof(*w->e)) : NULL;
	if (!w->e)
		w->ne = 0;
	pool_run(pool, w->ne, ahead_item, w);
}

/*
 * The last call of a listing, which sends nothing: the reader has taken
 * every batch, so the kernel knows every file of the last one. It gets
 * its (empty) reply first and those files are pushed after it, while the
 * reader goes on to read them: a file it reaches before its push is read
 * through a request, as any file not pushed.
 */
static int end_of_listing(fuse_req_t req, struct odir *od, off_t off)
{
	struct vfs *t = tree_of(req);
	uint64_t *files = od->pending;
	size_t n = od->npending;
	struct vf_attr a;
	char name[NM_MAX + 1];

	if (!files || vf_dir_entry(t, od->d, (uint64_t)off, name, &a) != 0)
		return 0;
	od->pending = NULL;
	od->npending = 0;
	/* Once replied, the reader may close the directory: od is gone. */
	fuse_reply_buf(req, NULL, 0);
	push_batch(t, files, n);
	return 1;
}

static void readdir_common(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
			   struct fuse_file_info *fi, int plus)
{
	struct odir *od = (struct odir *)(uintptr_t)fi->fh;
	struct vf_dir *d = od->d;
	struct vfs *t = tree_of(req);
	char *buf = malloc(size), name[NM_MAX + 1];
	uint64_t *files = malloc((size / 32 + 1) * sizeof(*files)), *before;
	size_t used = 0, nfiles = 0, nsent = 0, nbefore;
	struct ahead w;
	uint64_t i;
	int rc = 0;

	(void)ino;
	count(plus ? ST_READDIRPLUS : ST_READDIR);
	memset(&w, 0, sizeof(w));
	if (!buf || !files) {
		free(buf);
		free(files);
		fuse_reply_err(req, ENOMEM);
		return;
	}
	warm_end(od, 0);
	if (plus && end_of_listing(req, od, off)) {
		free(buf);
		free(files);
		return;
	}
	work_ahead(t, od, size, (uint64_t)off, plus, &w);
	before = od->pending;
	nbefore = od->npending;
	od->pending = NULL;
	od->npending = 0;
	for (i = (uint64_t)off;; i++) {
		struct vf_attr a;
		struct fuse_entry_param e;
		size_t n;

		rc = entry_at(t, d, &w, i, name, &a);
		if (rc == 0)
			break;
		if (rc < 0)
			continue;
		if (plus) {
			fill_entry(&e, &a);
			n = fuse_add_direntry_plus(req, buf + used, size - used, name, &e,
						   (off_t)(i + 1));
		} else {
			n = fuse_add_direntry(req, buf + used, size - used, name, &a.st,
					      (off_t)(i + 1));
		}
		if (n > size - used)
			break;
		used += n;
		nsent++;
		/* Without no_open, each open renders its file: no push helps. */
		if (plus && no_open && S_ISREG(a.st.st_mode) && !a.lazy && nfiles <= size / 32)
			files[nfiles++] = a.st.st_ino;
	}
	free(w.e);
	if (plus && nsent)
		od->entry_bytes = used / nsent;
	/* Entry i did not fit: while the reader takes this batch, the helper
	 * renders the next. */
	if (plus && rc != 0 && w.ne)
		warm_start(t, od, i, w.ne);
	/* Once replied, the reader may close the directory: od is gone. */
	od->pending = files;
	od->npending = nfiles;
	fuse_reply_buf(req, buf, used);
	free(buf);
	push_batch(t, before, nbefore);
}

static void op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		       struct fuse_file_info *fi)
{
	readdir_common(req, ino, size, off, fi, 0);
}

static void op_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
			   struct fuse_file_info *fi)
{
	readdir_common(req, ino, size, off, fi, 1);
}

static void op_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	count(ST_RELEASEDIR);
	(void)ino;
	/* The kernel sends it in the background, where it holds a place
	 * (max_background) that reads ahead wait for: reply first. */
	fuse_reply_err(req, 0);
	odir_free((struct odir *)(uintptr_t)fi->fh);
}

static void op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct blob *b;
	int rc;

	count(ST_OPEN);
	if ((fi->flags & O_ACCMODE) != O_RDONLY || (fi->flags & O_TRUNC)) {
		fuse_reply_err(req, EROFS);
		return;
	}
	if (no_open) {
		fuse_reply_err(req, ENOSYS);
		return;
	}
	rc = vf_content(tree_of(req), ino, &b);
	if (rc) {
		fuse_reply_err(req, -rc);
		return;
	}
	fi->fh = (uintptr_t)b;
	fi->keep_cache = vf_fixed_content(tree_of(req), ino);
	if (fuse_reply_open(req, fi))
		blob_unref(b);
}

static void op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	struct blob *b = (struct blob *)(uintptr_t)fi->fh;
	int rc;

	count(ST_READ);
	if (!b) {	/* opened without a round trip: find it by inode */
		rc = vf_content(tree_of(req), ino, &b);
		if (rc) {
			fuse_reply_err(req, -rc);
			return;
		}
	} else {
		blob_ref(b);
	}
	if (off < 0 || (size_t)off >= b->len)
		size = 0;
	else if (size > b->len - (size_t)off)
		size = b->len - (size_t)off;
	fuse_reply_buf(req, size ? b->data + off : NULL, size);
	blob_unref(b);
}

static void op_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	count(ST_RELEASE);
	(void)ino;
	blob_unref((struct blob *)(uintptr_t)fi->fh);
	fuse_reply_err(req, 0);
}

static void reply_sized(fuse_req_t req, const struct sbuf *sb, size_t size)
{
	if (size == 0)
		fuse_reply_xattr(req, sb->len);
	else if (size < sb->len)
		fuse_reply_err(req, ERANGE);
	else
		fuse_reply_buf(req, sb->buf, sb->len);
}

static void op_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name, size_t size)
{
	struct sbuf sb;
	int rc;

	count(ST_XATTR);
	/* Only user.* attributes exist here. Another namespace (ls -l asks
	 * for security.selinux and system.posix_acl_access of every file) is
	 * not supported: ls remembers that for the whole mount and asks no
	 * more, where "no such attribute" cost a round trip per file. */
	if (strncmp(name, OPS_XATTR_NS, sizeof(OPS_XATTR_NS) - 1)) {
		fuse_reply_err(req, EOPNOTSUPP);
		return;
	}
	sb_init(&sb);
	rc = vf_getxattr(tree_of(req), ino, name, &sb);
	if (rc)
		fuse_reply_err(req, -rc);
	else
		reply_sized(req, &sb, size);
	sb_free(&sb);
}

static void op_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size)
{
	struct sbuf sb;
	int rc;

	count(ST_XATTR);
	sb_init(&sb);
	rc = vf_listxattr(tree_of(req), ino, &sb);
	if (rc)
		fuse_reply_err(req, -rc);
	else
		reply_sized(req, &sb, size);
	sb_free(&sb);
}

static void op_statfs(fuse_req_t req, fuse_ino_t ino)
{
	struct statvfs st;

	(void)ino;
	memset(&st, 0, sizeof(st));
	st.f_bsize = st.f_frsize = 4096;
	st.f_namemax = NM_MAX;
	st.f_flag = ST_RDONLY;
	fuse_reply_statfs(req, &st);
}

/* ---- everything that would write ---- */

static void op_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int to_set,
		       struct fuse_file_info *fi)
{
	(void)ino, (void)attr, (void)to_set, (void)fi;
	fuse_reply_err(req, EROFS);
}

static void op_mknod(fuse_req_t req, fuse_ino_t parent, const char *name,
		     mode_t mode, dev_t rdev)
{
	(void)parent, (void)name, (void)mode, (void)rdev;
	fuse_reply_err(req, EROFS);
}

static void op_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode)
{
	(void)parent, (void)name, (void)mode;
	fuse_reply_err(req, EROFS);
}

static void op_remove(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	(void)parent, (void)name;
	fuse_reply_err(req, EROFS);
}

static void op_symlink(fuse_req_t req, const char *link, fuse_ino_t parent,
		       const char *name)
{
	(void)link, (void)parent, (void)name;
	fuse_reply_err(req, EROFS);
}

static void op_rename(fuse_req_t req, fuse_ino_t parent, const char *name,
		      fuse_ino_t newparent, const char *newname, unsigned int flags)
{
	(void)parent, (void)name, (void)newparent, (void)newname, (void)flags;
	fuse_reply_err(req, EROFS);
}

static void op_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent,
		    const char *newname)
{
	(void)ino, (void)newparent, (void)newname;
	fuse_reply_err(req, EROFS);
}

static void op_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size,
		     off_t off, struct fuse_file_info *fi)
{
	(void)ino, (void)buf, (void)size, (void)off, (void)fi;
	fuse_reply_err(req, EROFS);
}

static void op_create(fuse_req_t req, fuse_ino_t parent, const char *name,
		      mode_t mode, struct fuse_file_info *fi)
{
	(void)parent, (void)name, (void)mode, (void)fi;
	fuse_reply_err(req, EROFS);
}

static void op_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name,
			const char *value, size_t size, int flags)
{
	(void)ino, (void)name, (void)value, (void)size, (void)flags;
	fuse_reply_err(req, EROFS);
}

static void op_removexattr(fuse_req_t req, fuse_ino_t ino, const char *name)
{
	(void)ino, (void)name;
	fuse_reply_err(req, EROFS);
}

static void op_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t offset,
			 off_t length, struct fuse_file_info *fi)
{
	(void)ino, (void)mode, (void)offset, (void)length, (void)fi;
	fuse_reply_err(req, EROFS);
}

const struct fuse_lowlevel_ops sessfs_ops = {
	.init = op_init,
	.destroy = op_destroy,
	.lookup = op_lookup,
	.getattr = op_getattr,
	.readlink = op_readlink,
	.opendir = op_opendir,
	.readdir = op_readdir,
	.readdirplus = op_readdirplus,
	.releasedir = op_releasedir,
	.open = op_open,
	.read = op_read,
	.release = op_release,
	.getxattr = op_getxattr,
	.listxattr = op_listxattr,
	.statfs = op_statfs,
	.setattr = op_setattr,
	.mknod = op_mknod,
	.mkdir = op_mkdir,
	.unlink = op_remove,
	.rmdir = op_remove,
	.symlink = op_symlink,
	.rename = op_rename,
	.link = op_link,
	.write = op_write,
	.create = op_create,
	.setxattr = op_setxattr,
	.removexattr = op_removexattr,
	.fallocate = op_fallocate,
};

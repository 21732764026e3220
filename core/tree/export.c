#include "export.h"

#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <grp.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "pool.h"
#include "vfs.h"
#include "tarw.h"
#include "plat.h"

#define EX_CHUNK 256		/* entries read (and written) per batch, at most */
#define EX_CHUNK_FIRST 16	/* the first batch of a pass (most folders hold fewer) */
#define EX_PROGRESS_EVERY_MS 100

/* One entry of a listing: read, and in a folder written, on either thread. */
struct ex_item {
	int rc;			/* vf_dir_entry()'s: 1 an entry, 0 the end */
	char name[VF_NAME_MAX + 1];
	struct vf_attr a;
	struct blob *b;		/* a file's content */
	int stream;		/* or: it is written in pieces (vf_stream()) */
	uint64_t bytes;		/* ... of which so many were */
	char *same;		/* or the path of the file it is (a hard link) */
	char link[VF_NAME_MAX + 1];	/* a symbolic link's target */
	struct sbuf xattrs;	/* tw_xattr_add() layout */
	int err;		/* -errno of the step that failed */
	const char *what;	/* that step */
};

/* A folder to walk once its parent's listing is read. */
struct ex_sub {
	char name[VF_NAME_MAX + 1];
	struct vf_attr a;
	struct sbuf xattrs;
};

struct ex_subs {
	struct ex_sub *v;
	size_t n, cap;
};

/* The files written, by inode: a message shows in every branch that
 * holds it under one inode, so its later names are hard links to the
 * first. An open-addressed table of (inode, offset of its path in one
 * arena of paths "./a/b"): about 70 bytes a file, the export's only
 * memory that grows with the log beside the layer's own. */
struct ex_seen {
	uint64_t ino;		/* 0: free (no inode is 0) */
	uint64_t off;		/* its path in paths */
};

struct ex_seens {
	struct ex_seen *v;
	size_t n, cap;		/* cap: a power of two, or 0 */
	struct sbuf paths;	/* NUL-terminated paths, one after another */
};

struct ex_walk {
	struct vfs *v;		/* the layer walked */
	uint64_t root;		/* its root's inode */
	struct pool *pool;
	const struct ex_opts *o;
	struct ex_stats *st;
	struct tarw *tw;	/* the stream, or NULL: into folders */
	int xattr_ok;		/* atomic: DEST keeps extended attributes */
	const char *dest;	/* as given ("-" for the stream) */
	int rootfd;		/* DEST (-1: a stream) */
	struct sbuf path;	/* the folder walked: "." or "./a/b" */
	pthread_mutex_t seen_mu;
	struct ex_seens seen;
	struct timespec start, shown;
	int showing;		/* a progress line is on the terminal */
	uid_t uid;		/* whose names are in uname, gname */
	gid_t gid;
	char uname[32 + 1], gname[32 + 1];
	/* A batch per depth, made once and used again for every folder at
	 * that depth (the walk is in one at each depth at a time): ~190 KB
	 * zeroed per folder and per pass had been a twentieth of an export
	 * of 2,000 sessions. */
	struct ex_chunk *chunks[EX_DEPTH_MAX + 1];
};

/* The batch the two threads share. */
struct ex_chunk {
	struct ex_walk *w;
	struct vf_dir *d;
	int files;		/* 0: this pass takes the folders, 1: the rest */
	uint64_t first;		/* entry index of items[0] */
	int dirfd;		/* the folder written into (-1: a stream) */
	struct ex_item items[EX_CHUNK];
};

static int64_t ms_since(const struct timespec *a)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t)(now.tv_sec - a->tv_sec) * 1000 + (now.tv_nsec - a->tv_nsec) / 1000000;
}

/* ---- progress and messages (the caller's thread) ---- */

static void progress(struct ex_walk *w, int last)
{
	const struct ex_stats *st = w->st;
	int64_t ms = ms_since(&w->start);

	if (!w->o->progress || (last && !w->showing))
		return;
	if (!last && (ms < EX_PROGRESS_AFTER_MS ||
		      (w->showing && ms_since(&w->shown) < EX_PROGRESS_EVERY_MS)))
		return;
	fprintf(stderr, "\r\033[Ksessfs: export: %llu files, %llu folders, %.1f MB, %.1f s%s",
		(unsigned long long)st->files, (unsigned long long)st->dirs,
		(double)st->bytes / 1e6, (double)ms / 1e3, last ? "\n" : "");
	clock_gettime(CLOCK_MONOTONIC, &w->shown);
	w->showing = !last;
}

static void say(struct ex_walk *w, const char *name, const char *what, int err)
{
	if (w->showing)
		fputs("\r\033[K", stderr);
	w->showing = 0;
	fprintf(stderr, "sessfs: export: %s%s%s%s: %s: %s\n", w->tw ? "" : w->dest,
		w->tw ? w->path.buf : w->path.buf + 1, name ? "/" : "", name ? name : "", what,
		strerror(-err));
	w->st->errors++;
}

/* ---- reading an entry ---- */

/* A name that can only make an entry inside its folder. The tree's names
 * are sanitised already; this is the export's own guard. */
static int name_ok(const char *s)
{
	return s[0] && strcmp(s, ".") && strcmp(s, "..") && !strchr(s, '/') &&
	       strlen(s) <= VF_NAME_MAX;
}

static void read_xattrs(struct vfs *v, uint64_t ino, struct sbuf *out)
{
	struct sbuf names, val;
	size_t off;

	sb_init(&names);
	sb_init(&val);
	vf_listxattr(v, ino, &names);
	for (off = 0; off < names.len; off += strlen(names.buf + off) + 1) {
		sb_reset(&val);
		if (!vf_getxattr(v, ino, names.buf + off, &val))
			tw_xattr_add(out, names.buf + off, val.buf, (uint32_t)val.len);
	}
	sb_free(&val);
	sb_free(&names);
}

static void fail(struct ex_item *x, const char *what, int err)
{
	if (!x->err) {
		x->err = err;
		x->what = what;
	}
}

static size_t seen_slot(const struct ex_seens *t, uint64_t ino)
{
	size_t i = (size_t)((ino * UINT64_C(0x9E3779B97F4A7C15)) >> 17) & (t->cap - 1);

	while (t->v[i].ino && t->v[i].ino != ino)
		i = (i + 1) & (t->cap - 1);
	return i;
}

/* The path of the file of inode ino written already (a copy), or NULL. */
static char *seen_path(struct ex_walk *w, uint64_t ino)
{
	struct ex_seens *t = &w->seen;
	char *p = NULL;
	size_t i;

	pthread_mutex_lock(&w->seen_mu);
	if (t->cap && t->v[i = seen_slot(t, ino)].ino)
		p = strdup(t->paths.buf + t->v[i].off);
	pthread_mutex_unlock(&w->seen_mu);
	return p;
}

/* Doubles the table (mu held). 0 or -ENOMEM. */
static int seen_grow(struct ex_seens *t)
{
	struct ex_seens n = { NULL, t->n, t->cap ? t->cap * 2 : 1024, t->paths };
	size_t i;

	if (!(n.v = calloc(n.cap, sizeof(*n.v))))
		return -ENOMEM;
	for (i = 0; i < t->cap; i++)
		if (t->v[i].ino)
			n.v[seen_slot(&n, t->v[i].ino)] = t->v[i];
	free(t->v);
	*t = n;
	return 0;
}

/* Remembers that the file of inode ino is name in the folder walked, when
 * it has other names (nlink above 1): a file of one name, as every file
 * of a tree has one home, costs nothing, whatever the export's size. */
static void seen_add(struct ex_walk *w, uint64_t ino, nlink_t nlink, const char *name)
{
	struct ex_seens *t = &w->seen;
	size_t i, off;

	if (nlink <= 1)
		return;
	pthread_mutex_lock(&w->seen_mu);
	if ((t->n + 1) * 4 > t->cap * 3 && seen_grow(t))
		goto out;	/* written again later, not linked: no harm */
	i = seen_slot(t, ino);
	if (t->v[i].ino)
		goto out;
	off = t->paths.len;
	sb_add(&t->paths, w->path.buf, w->path.len);
	sb_addc(&t->paths, '/');
	sb_adds(&t->paths, name);
	sb_addc(&t->paths, '\0');
	if (t->paths.len > off + w->path.len + strlen(name) + 1) {
		t->v[i].ino = ino;
		t->v[i].off = off;
		t->n++;
	}
out:
	pthread_mutex_unlock(&w->seen_mu);
}

static void seen_free(struct ex_walk *w)
{
	free(w->seen.v);
	sb_free(&w->seen.paths);
}

static void read_item(struct ex_chunk *c, struct ex_item *x, uint64_t i)
{
	struct vfs *v = c->w->v;
	uint64_t ino;
	int rc = 0;

	x->rc = vf_dir_entry(v, c->d, i, x->name, &x->a);
	if (x->rc <= 0)
		return;
	if ((!S_ISDIR(x->a.st.st_mode)) != c->files) {
		x->rc = 2;	/* the other pass's */
		return;
	}
	ino = x->a.st.st_ino;
	if (!name_ok(x->name)) {
		fail(x, "unsafe name", -EINVAL);
		return;
	}
	if (S_ISREG(x->a.st.st_mode) && x->a.st.st_nlink > 1 && (x->same = seen_path(c->w, ino)))
		return;		/* written already: nothing to read */
	/* A file the listing gives no size for (a transcript: as long as its
	 * branch) is written in pieces, when it is written. */
	x->stream = S_ISREG(x->a.st.st_mode) && x->a.lazy;
	if (S_ISREG(x->a.st.st_mode) && !x->stream)
		rc = vf_content(v, ino, &x->b);
	else if (S_ISLNK(x->a.st.st_mode))
		rc = vf_readlink(v, ino, x->link);
	if (rc) {
		fail(x, "read", rc);
		return;
	}
	read_xattrs(v, ino, &x->xattrs);
}

/* ---- writing into a folder (either thread) ---- */

static int set_xattrs(struct ex_walk *w, int fd, const struct sbuf *xs)
{
	size_t off = 0;
	const char *name, *val;
	uint32_t len;

	while (__atomic_load_n(&w->xattr_ok, __ATOMIC_RELAXED) &&
	       tw_xattr_next(xs, &off, &name, &val, &len)) {
		if (!fsetxattr(fd, name, val, len, 0))
			continue;
		if (errno != ENOTSUP && errno != EOPNOTSUPP)
			return -errno;
		__atomic_store_n(&w->xattr_ok, 0, __ATOMIC_RELAXED);
	}
	return 0;
}

/* Extended attributes, then the times (an xattr set changes neither). */
static int set_meta(struct ex_walk *w, int fd, const struct sbuf *xs, const struct vf_attr *a)
{
	const struct timespec ts[2] = { PL_ATIM(a->st), PL_MTIM(a->st) };
	int rc = set_xattrs(w, fd, xs);

	if (rc)
		return rc;
	return futimens(fd, ts) ? -errno : 0;
}

/* With force, takes away what is not a folder at name (never following it). */
static int clear_way(struct ex_walk *w, int dirfd, const char *name)
{
	if (!w->o->force)
		return -EEXIST;
	return unlinkat(dirfd, name, 0) ? -errno : 0;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? -errno : -EIO;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* A hard link to the file x is already (its first name, under DEST). */
static int put_same(struct ex_walk *w, int dirfd, struct ex_item *x)
{
	int rc = linkat(w->rootfd, x->same, dirfd, x->name, 0) ? -errno : 0;

	if (rc == -EEXIST && !clear_way(w, dirfd, x->name))
		rc = linkat(w->rootfd, x->same, dirfd, x->name, 0) ? -errno : 0;
	return rc;
}

/* A piece of a file streamed into fd (vf_sink.data). */
struct fd_sink {
	int fd;
	uint64_t *bytes;
};

static int fd_piece(void *arg, const void *p, size_t n)
{
	struct fd_sink *s = arg;

	*s->bytes += n;
	return write_all(s->fd, p, n);
}

/* x's bytes into fd: its content, or its pieces. */
static int put_bytes(struct ex_walk *w, int fd, struct ex_item *x)
{
	struct fd_sink s = { fd, &x->bytes };
	struct vf_sink sink = { NULL, fd_piece, &s };

	if (!x->stream)
		return write_all(fd, x->b->data, x->b->len);
	return vf_stream(w->v, x->a.st.st_ino, &sink);
}

static void put_file(struct ex_walk *w, int dirfd, struct ex_item *x)
{
	const int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
	uint64_t ino = x->a.st.st_ino;
	int fd, rc;

	if (x->same && !put_same(w, dirfd, x))
		return;
	if (x->same) {		/* no link here (EXDEV, EMLINK...): a copy */
		free(x->same);
		x->same = NULL;
		x->stream = x->a.lazy;
		if (!x->stream && (rc = vf_content(w->v, ino, &x->b))) {
			fail(x, "read", rc);
			return;
		}
		read_xattrs(w->v, ino, &x->xattrs);
	}
	fd = openat(dirfd, x->name, flags, x->a.st.st_mode & 0777);
	if (fd < 0 && errno == EEXIST && !clear_way(w, dirfd, x->name))
		fd = openat(dirfd, x->name, flags, x->a.st.st_mode & 0777);
	if (fd < 0) {
		fail(x, "create", -errno);
		return;
	}
	rc = put_bytes(w, fd, x);
	if (rc)
		fail(x, "write", rc);
	else if ((rc = set_meta(w, fd, &x->xattrs, &x->a)))
		fail(x, "set attributes", rc);
	if (close(fd) && !rc)
		fail(x, "close", -errno);
	if (!x->err)
		seen_add(w, ino, x->a.st.st_nlink, x->name);
}

static void put_link(struct ex_walk *w, int dirfd, struct ex_item *x)
{
	const struct timespec ts[2] = { PL_ATIM(x->a.st), PL_MTIM(x->a.st) };
	int rc = symlinkat(x->link, dirfd, x->name) ? -errno : 0;

	if (rc == -EEXIST && !clear_way(w, dirfd, x->name))
		rc = symlinkat(x->link, dirfd, x->name) ? -errno : 0;
	if (rc)
		fail(x, "symlink", rc);
	else if (utimensat(dirfd, x->name, ts, AT_SYMLINK_NOFOLLOW))
		fail(x, "set times", -errno);
}

static void put_dir(struct ex_walk *w, int dirfd, struct ex_item *x)
{
	struct stat st;
	int rc = mkdirat(dirfd, x->name, 0755) ? -errno : 0;

	if (rc == -EEXIST && w->o->force &&
	    !fstatat(dirfd, x->name, &st, AT_SYMLINK_NOFOLLOW) && !S_ISDIR(st.st_mode) &&
	    !(rc = clear_way(w, dirfd, x->name)))
		rc = mkdirat(dirfd, x->name, 0755) ? -errno : 0;
	if (rc == -EEXIST && w->o->force)
		rc = 0;		/* a folder already: written into */
	if (rc)
		fail(x, "mkdir", rc);
}

static void put_item(struct ex_walk *w, int dirfd, struct ex_item *x)
{
	mode_t m = x->a.st.st_mode;

	if (S_ISREG(m))
		put_file(w, dirfd, x);
	else if (S_ISLNK(m))
		put_link(w, dirfd, x);
	else if (S_ISDIR(m))
		put_dir(w, dirfd, x);
	else
		fail(x, "unknown kind", -EINVAL);
}

static void chunk_item(void *arg, size_t i)
{
	struct ex_chunk *c = arg;
	struct ex_item *x = &c->items[i];

	read_item(c, x, c->first + i);
	if (x->rc == 1 && !x->err && c->dirfd >= 0)
		put_item(c->w, c->dirfd, x);
}

/* ---- writing a stream (the caller's thread) ---- */

static void owner_names(struct ex_walk *w, uid_t uid, gid_t gid)
{
	struct passwd *pw;
	struct group *gr;

	if (uid != w->uid || !w->uname[0]) {
		w->uid = uid;
		pw = getpwuid(uid);
		snprintf(w->uname, sizeof(w->uname), "%s", pw ? pw->pw_name : "");
	}
	if (gid != w->gid || !w->gname[0]) {
		w->gid = gid;
		gr = getgrgid(gid);
		snprintf(w->gname, sizeof(w->gname), "%s", gr ? gr->gr_name : "");
	}
}

/* Entry name of the folder walked ("." for the root itself), as a tar path. */
static int tar_entry(struct ex_walk *w, const char *name, const struct vf_attr *a,
		     const void *data, uint64_t size, const char *link, const struct sbuf *xs,
		     const char *same)
{
	struct tw_entry e;
	struct sbuf p;
	int rc;

	sb_init(&p);
	sb_add(&p, w->path.buf, w->path.len);
	if (name) {
		sb_addc(&p, '/');
		sb_adds(&p, name);
	}
	if (S_ISDIR(a->st.st_mode))
		sb_addc(&p, '/');
	owner_names(w, a->st.st_uid, a->st.st_gid);
	memset(&e, 0, sizeof(e));
	e.path = p.buf;
	e.mode = a->st.st_mode;
	e.uid = a->st.st_uid;
	e.gid = a->st.st_gid;
	e.uname = w->uname;
	e.gname = w->gname;
	e.mtime = PL_MTIM(a->st);
	e.link = link;
	e.data = data;
	e.size = size;
	e.xattrs = same ? NULL : xs;
	e.hardlink = same;
	rc = tw_add(w->tw, &e);
	sb_free(&p);
	return rc;
}

/* A file streamed into the tar: its header once its size is known, then
 * its pieces (vf_sink). */
struct tar_sink {
	struct ex_walk *w;
	struct ex_item *x;
	int head;		/* its header is written */
	int begun;		/* ... and its bytes are awaited */
};

static int tar_size(void *arg, uint64_t size)
{
	struct tar_sink *s = arg;
	int rc;

	/* No data: tw_add() then waits for the bytes (tw_data()). */
	rc = tar_entry(s->w, s->x->name, &s->x->a, NULL, size, NULL, &s->x->xattrs, NULL);
	s->head = !rc;
	s->begun = !rc && size;
	return rc;
}

static int tar_piece(void *arg, const void *p, size_t n)
{
	struct tar_sink *s = arg;

	s->x->bytes += n;
	return tw_data(s->w->tw, p, n);
}

/* Streams file x into the tar, and remembers it once its header is
 * written (its later names link to it). 0, or -errno when the stream
 * broke; a file that failed otherwise is said, and skipped (no header
 * yet) or ends with zeros where its bytes did not come (the archive
 * stays well formed). */
static int tar_stream_entry(struct ex_walk *w, struct ex_item *x)
{
	struct tar_sink s = { w, x, 0, 0 };
	struct vf_sink sink = { tar_size, tar_piece, &s };
	int rc = vf_stream(w->v, x->a.st.st_ino, &sink), end = 0;

	if (s.begun)
		end = tw_data_end(w->tw);
	if (tw_error(w->tw))
		return tw_error(w->tw);
	if (rc || end)
		say(w, x->name, "read", rc ? rc : -EAGAIN);	/* shorter: it changed */
	if (s.head)
		seen_add(w, x->a.st.st_ino, x->a.st.st_nlink, x->name);
	return 0;
}

/* ---- the walk ---- */

static void count(struct ex_stats *st, const struct ex_item *x)
{
	if (S_ISREG(x->a.st.st_mode)) {
		st->files++;
		st->bytes += x->b ? x->b->len : x->bytes;
	} else if (S_ISDIR(x->a.st.st_mode)) {
		st->dirs++;
	} else {
		st->links++;
	}
}

static int add_sub(struct ex_subs *subs, struct ex_item *x)
{
	struct ex_sub *s;

	if (subs->n == subs->cap) {
		size_t c = subs->cap ? subs->cap * 2 : 16;

		s = realloc(subs->v, c * sizeof(*s));
		if (!s)
			return -ENOMEM;
		subs->v = s;
		subs->cap = c;
	}
	s = &subs->v[subs->n++];
	memcpy(s->name, x->name, sizeof(s->name));
	s->a = x->a;
	s->xattrs = x->xattrs;		/* taken over */
	sb_init(&x->xattrs);
	return 0;
}

/* One entry read, on the caller's thread. 0, or -errno if the stream broke. */
static int take_item(struct ex_walk *w, struct ex_item *x, struct ex_subs *subs)
{
	int rc = 0;

	if (x->err) {
		say(w, x->name, x->what, x->err);
		return 0;
	}
	if (w->tw && !S_ISDIR(x->a.st.st_mode)) {
		if (x->stream && !x->same) {
			rc = tar_stream_entry(w, x);
		} else {
			rc = tar_entry(w, x->name, &x->a, x->b ? x->b->data : NULL,
				       x->b ? x->b->len : 0, x->link, &x->xattrs, x->same);
			if (!rc && x->b)
				seen_add(w, x->a.st.st_ino, x->a.st.st_nlink, x->name);
		}
	}
	count(w->st, x);
	if (S_ISDIR(x->a.st.st_mode) && add_sub(subs, x))
		say(w, x->name, "walk", -ENOMEM);
	return rc;
}

/* An item as new. Only one that held an entry needs it: past the end of
 * a listing read_item() sets rc alone. */
static void item_reset(struct ex_item *x)
{
	blob_unref(x->b);
	free(x->same);
	sb_free(&x->xattrs);
	memset(x, 0, sizeof(*x));
	sb_init(&x->xattrs);
}

/* What the caller does with a chunk the threads read: in listing order,
 * say what failed, write the stream, keep the folders (a folder goes into
 * the stream with what it holds, right before it: GNU tar sets a folder's
 * mtime once an entry outside it comes). 0 at the end of
 * the listing, 1 if there is more, -errno if the stream broke. */
static int take_chunk(struct ex_walk *w, struct ex_chunk *c, size_t n, struct ex_subs *subs)
{
	int more = 1, rc = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		struct ex_item *x = &c->items[i];

		if (x->rc == 0)
			more = 0;
		if (x->rc == 1 && !rc)
			rc = take_item(w, x, subs);
		if (x->rc > 0)
			item_reset(x);
		x->rc = 0;
	}
	progress(w, 0);
	return rc ? rc : more;
}

static int walk(struct ex_walk *w, uint64_t ino, int dirfd, int depth);

/* Walks folder s of the folder walked (dirfd), then sets its attributes. */
static int walk_sub(struct ex_walk *w, struct ex_sub *s, int dirfd, int depth)
{
	size_t len = w->path.len;
	int fd = -1, rc = 0;

	if (depth >= EX_DEPTH_MAX) {
		say(w, s->name, "walk", -ELOOP);
		return 0;
	}
	if (dirfd >= 0) {
		fd = openat(dirfd, s->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			say(w, s->name, "open", -errno);
			return 0;
		}
	} else if ((rc = tar_entry(w, s->name, &s->a, NULL, 0, NULL, &s->xattrs, NULL))) {
		return rc;
	}
	sb_addc(&w->path, '/');
	sb_adds(&w->path, s->name);
	rc = walk(w, s->a.st.st_ino, fd, depth + 1);
	w->path.len = len;
	w->path.buf[len] = '\0';
	if (fd >= 0) {
		int mrc = set_meta(w, fd, &s->xattrs, &s->a);

		if (mrc)
			say(w, s->name, "set attributes", mrc);
		close(fd);
	}
	return rc;
}

/* One pass over the listing of c's folder (c->files says which entries
 * it takes): 0, or -errno when the stream broke. */
static int pass(struct ex_walk *w, struct ex_chunk *c, struct ex_subs *subs)
{
	size_t n = EX_CHUNK_FIRST;
	int rc;

	c->first = 2;		/* after . and .. */
	do {
		pool_run(w->pool, n, chunk_item, c);
		rc = take_chunk(w, c, n, subs);
		c->first += n;
		n = n * 2 < EX_CHUNK ? n * 2 : EX_CHUNK;
	} while (rc == 1);
	return rc;
}

/* The batch of depth depth, its items as new; NULL on ENOMEM. */
static struct ex_chunk *chunk_at(struct ex_walk *w, int depth)
{
	struct ex_chunk *c = w->chunks[depth];
	size_t i;

	if (!c && (c = w->chunks[depth] = calloc(1, sizeof(*c))))
		for (i = 0; i < EX_CHUNK; i++)
			sb_init(&c->items[i].xattrs);
	return c;
}

/*
 * Writes folder ino: its folders first, each walked in order, then its
 * files and links. So what a folder holds is read before the folder's own
 * files are rendered: a file that tells of what was read (a projects
 * folder's sessions.json, its token totals) reads as a mount's does once
 * a walk such as diff -r went through the folders before it. 0, or -errno
 * when the stream broke (the walk then ends).
 */
static int walk(struct ex_walk *w, uint64_t ino, int dirfd, int depth)
{
	struct ex_chunk *c = chunk_at(w, depth);
	struct ex_subs subs = { NULL, 0, 0 };
	size_t i;
	int rc = c ? vf_opendir(w->v, ino, &c->d) : -ENOMEM;

	if (rc) {
		say(w, NULL, "list", rc);
		return 0;
	}
	c->w = w;
	c->dirfd = dirfd;
	c->files = 0;
	rc = pass(w, c, &subs);
	for (i = 0; i < subs.n; i++) {
		if (!rc)
			rc = walk_sub(w, &subs.v[i], dirfd, depth);
		sb_free(&subs.v[i].xattrs);
	}
	free(subs.v);
	c->files = 1;
	if (!rc)
		rc = pass(w, c, NULL);
	vf_closedir(w->v, c->d);
	return rc;
}

/* ---- the export ---- */

/* Whether folder fd holds nothing. */
static int is_empty(int fd)
{
	int dfd = dup(fd), empty = 1;
	struct dirent *de;
	DIR *dir = dfd >= 0 ? fdopendir(dfd) : NULL;

	if (!dir) {
		if (dfd >= 0)
			close(dfd);
		return 0;
	}
	while (empty && (de = readdir(dir)))
		empty = !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..");
	closedir(dir);
	return empty;
}

/* The folder dest, made if missing: a descriptor, or -errno. */
static int open_dest(const char *dest, int force)
{
	int fd;

	if (mkdir(dest, 0755) && errno != EEXIST)
		return -errno;
	fd = open(dest, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (!force && !is_empty(fd)) {
		close(fd);
		return -ENOTEMPTY;
	}
	return fd;
}

/* The root, then everything under it. */
static int export_root(struct ex_walk *w, int dirfd)
{
	struct vf_attr a;
	struct sbuf xs;
	int rc = vf_getattr(w->v, w->root, &a);

	if (rc)
		return rc;
	sb_init(&xs);
	read_xattrs(w->v, w->root, &xs);
	if (w->tw)
		rc = tar_entry(w, NULL, &a, NULL, 0, NULL, &xs, NULL);
	if (!rc)
		rc = walk(w, w->root, dirfd, 0);
	if (!rc && w->tw)
		rc = tw_finish(w->tw);
	if (!rc && dirfd >= 0 && (rc = set_meta(w, dirfd, &xs, &a)))
		say(w, NULL, "set attributes", rc);
	sb_free(&xs);
	return rc < 0 && w->tw ? rc : 0;
}

int ex_vfs(struct vfs *v, uint64_t root, const char *dest, const struct ex_opts *o,
	   struct ex_stats *st)
{
	struct ex_walk w;
	int fd = -1, rc, i;

	memset(st, 0, sizeof(*st));
	memset(&w, 0, sizeof(w));
	w.v = v;
	w.root = root;
	w.o = o;
	w.st = st;
	w.xattr_ok = 1;
	w.dest = dest;
	w.rootfd = -1;
	pthread_mutex_init(&w.seen_mu, NULL);
	sb_init(&w.seen.paths);
	sb_init(&w.path);
	sb_adds(&w.path, ".");
	if (!strcmp(dest, "-")) {
		w.tw = tw_new(STDOUT_FILENO);
		rc = w.tw ? 0 : -ENOMEM;
	} else {
		rc = w.rootfd = fd = open_dest(dest, o->force);
	}
	if (rc >= 0) {
		w.pool = pool_new();	/* NULL: all on this thread */
		clock_gettime(CLOCK_MONOTONIC, &w.start);
		rc = export_root(&w, fd);
		progress(&w, 1);
		pool_free(w.pool);
	}
	st->no_xattrs = !w.xattr_ok;
	if (fd >= 0)
		close(fd);
	tw_free(w.tw);
	sb_free(&w.path);
	seen_free(&w);
	for (i = 0; i <= EX_DEPTH_MAX; i++)
		free(w.chunks[i]);	/* every item as new: nothing held */
	pthread_mutex_destroy(&w.seen_mu);
	return rc < 0 ? rc : 0;
}


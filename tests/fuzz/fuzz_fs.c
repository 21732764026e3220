/*
 * fuzz_fs: a libFuzzer target that drives the calls the FUSE layer makes
 * (vfs.h, as fs/ops.c makes them: lookup, opendir and its entries,
 * getattr, the content a read returns, readlink, getxattr, listxattr) on
 * chosen, made-up and stale inodes, against a log that changes between
 * the calls: it grows, is cut short, rewritten in place (with or without
 * a new mtime), replaced by another file renamed over it, deleted, and
 * written again, chmod'ed (the tree's permissions follow the log's), or
 * a directory takes its path until a later change puts a log there
 * again. Nothing of fs/ is needed: core answers, as for the mount.
 *
 * The input: the log's bytes, then optionally "\n#ops\n" and a program
 * (one byte an operation, and its arguments); without one, the program is
 * drawn from a hash of the log. The log is written a part at a time (the
 * file grows by the next bytes of the input's log, from the start again
 * once all were written) or changed as the program says. A program holds
 * at most FZ_OPS operations and FZ_CHANGES changes: fewer than 16 full
 * re-indexes, so an inode's epoch (tree.h, modulo 16) never comes round.
 * The log may also be served by the projects-folder layer (pjfs.h), as
 * one session of a folder whose other sessions come and go, with a cache
 * that holds one session (moving to the other closes it) or all.
 *
 * Checks, besides the sanitizers: every name a listing gives is a file
 * name (1..255 bytes, no '/', not "." or "..") and unique in its folder,
 * and looks back up to its inode, whose attributes getattr gives; a
 * file's content is exactly the size getattr (and the listing) said when
 * nothing changed between; a symbolic link has a relative target; every
 * extended attribute listed can be read; every answer is 0 or -errno; an
 * inode of an earlier epoch of its view (taken before the log was indexed
 * again) answers -ESTALE to every call, never -ENOENT or another file's
 * bytes; no file descriptor is left open; no node has a write bit, a
 * file no execute bit, a folder execute only where it has read (tree.h:
 * the log's read bits, nothing more). Only what the kernel keeps from
 * a listing (immutable attributes) must still hold later: the rest it asks
 * for again. Known and let pass: in a projects folder whose cache closed
 * the session in between, a listed name may be stale (a session opened
 * again starts at epoch 0); and a session whose log was deleted may answer
 * a getattr (its tree, still open, follows the deleted file) and then
 * ENOENT to the content read (the cache closed it, and it cannot be
 * opened again), as for a log deleted between the two calls: only for a
 * session whose log is gone (session_gone()). tests/fuzz/known/ holds
 * inputs of problems found and not fixed yet, when there are any
 * (build/fuzz/obj/fuzz_fs FILE shows each): not seeds, as the smoke
 * would fail on them; once fixed, they move to tests/fuzz/seeds/.
 */
#include "pjfs.h"
#include "pjlive.h"
#include "tree.h"
#include "vfs.h"
#include "fuzz_util.h"

#include <time.h>

#define FZ_OPS 64		/* operations per input at most */
#define FZ_CHANGES 12		/* changes of the log per input at most */
#define FZ_POOL 256		/* inodes remembered */
#define FZ_WALK 24		/* folders a walk lists at most */
#define FZ_SEP "\n#ops\n"

static int trace = -1;	/* FUZZ_FS_TRACE=1: each operation on stderr */

static char dir_p[4200], log_path[4200], tmp_path[4300];
static char pj_root[4200], pj_other[4200];

/* ---- the folder ---- */

static char agent_path[4200];

/* The subagent's log (a view of its own): one record, and (more) a second
 * one after it. */
static void put_agent(int more)
{
	static const char rec[] = "{\"type\":\"user\",\"uuid\":\"a1\",\"parentUuid\":null,"
		"\"isSidechain\":true,\"message\":{\"role\":\"user\",\"content\":\"hi\"},"
		"\"sessionId\":\"s\"}\n";
	static const char rec2[] = "{\"type\":\"assistant\",\"uuid\":\"a2\",\"parentUuid\":"
		"\"a1\",\"isSidechain\":true,\"message\":{\"role\":\"assistant\",\"content\":"
		"[{\"type\":\"text\",\"text\":\"ok\"}]},\"sessionId\":\"s\"}\n";
	struct sbuf sb;

	sb_init(&sb);
	sb_adds(&sb, rec);
	if (more)
		sb_adds(&sb, rec2);
	fz_put_file(agent_path, sb.buf, sb.len);
	sb_free(&sb);
}

static void setup(void)
{
	if (!fz_make_root("sessfs-fuzz-fs"))
		return;
	fz_put_dir(FZ_PATH(pj_root, "projects"));
	fz_put_dir(FZ_PATH(dir_p, "projects/p"));
	fz_put_dir(FZ_PATH(agent_path, "projects/p/s"));
	fz_put_dir(FZ_PATH(agent_path, "projects/p/s/subagents"));
	FZ_PATH(agent_path, "projects/p/s/subagents/agent-a1.jsonl");
	FZ_PATH(log_path, "projects/p/s.jsonl");
	FZ_PATH(pj_other, "projects/p/o.jsonl");
	snprintf(tmp_path, sizeof(tmp_path), "%s.new", log_path);
}

/* ---- the program ---- */

struct prog {
	const uint8_t *p;
	size_t n, i;
	uint64_t rng;		/* no program given: drawn from this */
};

static unsigned byte(struct prog *g)
{
	if (g->p)
		return g->i < g->n ? g->p[g->i++] : 0;
	g->rng ^= g->rng << 13;
	g->rng ^= g->rng >> 7;
	g->rng ^= g->rng << 17;
	return (unsigned)(g->rng >> 32) & 0xff;
}

static int more(const struct prog *g, unsigned nops)
{
	return nops < FZ_OPS && (!g->p || g->i < g->n);
}

static uint64_t word(struct prog *g)
{
	uint64_t w = 0;
	int i;

	for (i = 0; i < 8; i++)
		w = w << 8 | byte(g);
	return w;
}

/* ---- the state ---- */

struct seen {
	uint64_t ino;
	uint32_t change;	/* changes of the log before it was seen */
	mode_t type;
};

struct fz {
	struct vfs v;
	struct tree *t;		/* the tree layer, or NULL (projects folder) */
	struct pjfs *pf;
	int evicts;		/* the projects layer's cache holds one session */
	struct prog g;
	const uint8_t *log;	/* the input's log */
	size_t nlog, pos;	/* the next bytes the file grows by */
	struct sbuf cur;	/* what the file holds */
	int present;
	int dir_at_path;	/* a directory took the log's path */
	mode_t mode;		/* the log's mode, kept across its changes */
	int other_present;	/* the folder's other session, o.jsonl */
	int unnoticed;		/* a change no call can have noticed (look()):
				 * the index may be of other bytes, so sizes,
				 * and listed names, are not checked */
	int cut_unseen;		/* the log was cut short since the watcher's
				 * last look: a message's bytes may be gone */
	uint32_t changes;
	struct seen pool[FZ_POOL];
	size_t npool, nseen;
};

static void remember(struct fz *f, uint64_t ino, mode_t mode)
{
	size_t i;

	for (i = 0; i < f->npool; i++)
		if (f->pool[i].ino == ino)
			break;
	if (i == f->npool) {
		if (f->npool < FZ_POOL)
			f->npool++;
		else
			i = f->nseen % FZ_POOL;	/* the oldest */
		f->nseen++;
	}
	f->pool[i] = (struct seen){ ino, f->changes, mode & S_IFMT };
}

/* An answer: 0 or -errno, nothing else. */
static void check_rc(int rc)
{
	CHECK(rc == 0 || (rc < 0 && rc > -4096));
}

static void check_name(const char *s)
{
	size_t n = strnlen(s, NM_MAX + 1);

	CHECK(n > 0 && n <= NM_MAX);
	CHECK(!strchr(s, '/') && strcmp(s, ".") && strcmp(s, ".."));
}

/* Attributes as ops.c sends them; permissions no wider than a log's
 * read bits (tree.h). */
static void check_attr(const struct vf_attr *a, uint64_t ino)
{
	mode_t m = a->st.st_mode & S_IFMT, perm = a->st.st_mode & 07777;

	CHECK(a->st.st_ino == ino && ino != 0);
	CHECK(m == S_IFDIR || m == S_IFREG || m == S_IFLNK);
	CHECK(a->st.st_size >= 0);
	if (m == S_IFREG)
		CHECK(!(perm & ~0444u));
	if (m == S_IFDIR)
		CHECK(!(perm & ~0555u) && !((perm & 0111u) & ~((perm & 0444u) >> 2)));
}

/* ---- the log ---- */

static int open_log(int flags)
{
	int fd = open(log_path, flags | O_CLOEXEC, 0600);

	CHECK(fd >= 0);
	return fd;
}

static void write_file(const char *path, const struct sbuf *sb)
{
	fz_put_file(path, sb->buf, sb->len);
}

/* The next n bytes of the input's log, appended to sb. */
static void next_bytes(struct fz *f, size_t n, struct sbuf *sb)
{
	while (n-- && f->nlog) {
		if (f->pos >= f->nlog)
			f->pos = 0;
		sb_addc(sb, (char)f->log[f->pos++]);
	}
}

static void grow(struct fz *f, size_t n)
{
	size_t from = f->cur.len;
	int fd;

	next_bytes(f, n, &f->cur);
	fd = open_log(O_WRONLY | O_APPEND | O_CREAT);
	fz_write_all(fd, f->cur.buf + from, f->cur.len - from);
	close(fd);
}

static void cut(struct fz *f, size_t to)
{
	int fd = open_log(O_WRONLY);

	CHECK(!ftruncate(fd, (off_t)to));
	close(fd);
	f->cut_unseen = 1;
	f->cur.len = to;
	f->cur.buf[to] = '\0';
}

/* n bytes at off written over with the input's (same size); keep: the
 * file keeps its mtime (an editor that restores it, a copy with -p).
 * Returns whether a stat tells: the times changed (within one tick of the
 * clock, a kept mtime leaves them as they were). */
static int rewrite(struct fz *f, size_t off, size_t n, int keep)
{
	struct sbuf sb;
	struct stat st, after;
	int fd = open_log(O_WRONLY);

	CHECK(!fstat(fd, &st));
	sb_init(&sb);
	next_bytes(f, n, &sb);
	if (sb.len == n && sb.len && memcmp(f->cur.buf + off, sb.buf, n) == 0)
		sb.buf[0] ^= 1;	/* a change, always */
	CHECK(pwrite(fd, sb.buf, sb.len, (off_t)off) == (ssize_t)sb.len);
	memcpy(f->cur.buf + off, sb.buf, sb.len);
	if (keep) {
		struct timespec ts[2] = { st.st_atim, st.st_mtim };

		CHECK(!futimens(fd, ts));
	}
	CHECK(!fstat(fd, &after));
	close(fd);
	sb_free(&sb);
	return !keep || after.st_ctim.tv_sec != st.st_ctim.tv_sec ||
	       after.st_ctim.tv_nsec != st.st_ctim.tv_nsec;
}

/* A directory at the log's path goes (a log is put there now). */
static void no_dir(struct fz *f)
{
	if (f->dir_at_path)
		CHECK(!rmdir(log_path));
	f->dir_at_path = 0;
}

/* The log keeps the mode the program gave it (a file made anew is 0600):
 * a replace is one change, not a change and a chmod. */
static void keep_mode(struct fz *f)
{
	if (f->present)
		CHECK(!chmod(log_path, f->mode));
}

/* Another file takes the log's path: the first n bytes of the input's log
 * (or what the file held, cut to n), renamed over it or written after the
 * old one was deleted. */
static void replace(struct fz *f, size_t n, int from_log, int unlink_first)
{
	if (from_log) {
		sb_reset(&f->cur);
		f->pos = 0;
		next_bytes(f, n, &f->cur);
	} else if (n < f->cur.len) {
		f->cur.len = n;
		f->cur.buf[n] = '\0';
	}
	no_dir(f);
	if (unlink_first) {
		if (f->present)
			CHECK(!unlink(log_path));
		write_file(log_path, &f->cur);
	} else {
		write_file(tmp_path, &f->cur);
		CHECK(!rename(tmp_path, log_path));
	}
	f->present = 1;
	keep_mode(f);
}

/* The log's mtime after a change: a time of its own, as if the changes
 * were seconds apart (within one tick of the clock, two writes of the
 * same size leave the same times, and no stat can tell them apart). */
static void stamp(void)
{
	static time_t next;
	struct timespec ts[2];

	if (!next)
		next = time(NULL);
	ts[0] = ts[1] = (struct timespec){ ++next, 0 };
	CHECK(!utimensat(AT_FDCWD, log_path, ts, 0));
}

/* A request's look at a view (lv_refresh(): growth too). */
static void look_view(struct fz *f, uint32_t view)
{
	struct vf_attr a;

	vf_getattr(&f->v, TR_IN_VIEW((uint64_t)TI_ROOT, view, 0), &a);
}

/*
 * The watcher's look (live.h: lv_look()), which its thread takes every
 * second; this target runs no such thread and takes it itself: before
 * each change (the changes are seconds apart: stamp()), and right after a
 * rewrite in place. It brings a view whose indexed bytes may have changed
 * up to its log (growth waits for a request), signs what was indexed
 * (so a rewrite of those bytes is told from a touch, also when growth
 * hides it), and checks the signed bytes again (ss_scrub()). The
 * projects folder's look (pjlive.h: pv_look()) does the same for the
 * sessions open in its cache, and looks at the folder; what it would tell
 * the kernel is dropped here. A session of the folder may be closed when
 * its log is rewritten in place (a cache of one session), and one opened
 * again is not told from growth then (live.h: lv_mark), so there a
 * rewrite that keeps the size is not counted on being noticed (the sizes
 * checked may then be of other bytes: f->unnoticed); nor, anywhere, is
 * one that keeps the times too. An inline sidechain's view never looks at
 * the log itself: it follows the session's (live.h).
 */
static void look(struct fz *f)
{
	struct vf_inval *e;
	size_t n;

	if (f->pf) {
		pv_look(f->pf, &e, &n);
		free(e);
		return;
	}
	if (!f->t)
		return;
	lv_look(f->t);
	f->cut_unseen = 0;
}

/* One change of the log, as the program says. */
static void change(struct fz *f)
{
	static const mode_t modes[] = { 0600, 0640, 0644, 0400, 0000, 0444 };
	unsigned what = byte(&f->g) % 11, a = byte(&f->g), b = byte(&f->g);
	size_t len = f->cur.len;

	if (f->changes >= FZ_CHANGES)
		return;
	look(f);		/* the watcher's, since the last change */
	f->changes++;
	if (!f->present && what < 6)
		what = 5;
	if (trace)
		fprintf(stderr, "change %u (%u %u)\n", what, a, b);
	switch (what) {
	case 0: case 1:		/* appended to */
		grow(f, 1 + a * (what ? 64 : 1) + b);
		break;
	case 2:			/* cut short */
		cut(f, len * a / 256);
		break;
	case 3: case 4:		/* rewritten in place */
		if (!len) {
			grow(f, 1 + a);
			break;
		}
		if (!rewrite(f, len * a / 256, 1 + b % 64 < len - len * a / 256
			     ? 1 + b % 64 : len - len * a / 256, what == 4) || !f->t) {
			f->unnoticed = 1;
			return;
		}
		if (what == 3)
			stamp();
		look(f);
		return;
	case 5:			/* replaced */
		replace(f, (size_t)a * 97 + b, b & 1, (a >> 1) & 1);
		break;
	case 6:			/* deleted (written again by a later change) */
		if (f->present)
			CHECK(!unlink(log_path));
		f->present = 0;
		sb_reset(&f->cur);
		break;
	case 7:			/* another session of the folder comes or goes */
		if (a & 1)
			fz_put_file(pj_other, f->log, f->nlog < 4096 ? f->nlog : 4096);
		else
			unlink(pj_other);
		f->other_present = a & 1;
		break;
	case 8:			/* the subagent's log grows, or is cut, or else */
		if (a % 3 == 2)
			fz_put_file(agent_path, f->log, f->nlog < 2048 ? f->nlog : 2048);
		else
			put_agent(a % 3 == 0);
		/* the watcher's look at it: nothing else asks a view whose
		 * files never change (and a message of it rendered again from
		 * other bytes would not have the size its getattr gave) */
		if (f->t)
			look_view(f, 1);
		break;
	case 9:			/* chmod: the tree's permissions follow */
		f->mode = modes[a % (sizeof(modes) / sizeof(modes[0]))];
		keep_mode(f);
		break;
	case 10:		/* a directory takes the path (a later change
				 * puts a log there: replace()) */
		if (f->present)
			CHECK(!unlink(log_path));
		if (!f->dir_at_path)
			CHECK(!mkdir(log_path, 0700));
		f->present = 0;
		f->dir_at_path = 1;
		sb_reset(&f->cur);
		break;
	}
	if (f->present)
		stamp();
}

/* ---- picking inodes ---- */

static uint64_t pick_ino(struct fz *f)
{
	unsigned how = byte(&f->g) % 16;
	uint64_t ino;

	if (how < 10 && f->npool)
		return f->pool[byte(&f->g) % f->npool].ino;
	switch (how) {
	case 10:		/* a fixed node of a view */
		return TR_IN_VIEW((uint64_t)(1 + byte(&f->g) % TI_TRANSCRIPTS),
				  byte(&f->g) % 3, 0);
	case 11:		/* one seen, in another epoch or view */
		ino = f->npool ? f->pool[byte(&f->g) % f->npool].ino : TI_ROOT;
		return ino ^ ((uint64_t)(byte(&f->g) & 0x1f) << 40);
	case 12:		/* a made-up node of any kind */
		return TR_INO(byte(&f->g) % 16, byte(&f->g)) |
		       ((uint64_t)(byte(&f->g) % 4) << 28);
	case 13:
		return word(&f->g);
	}
	return TI_ROOT;
}

static uint64_t pick_dir(struct fz *f)
{
	size_t i, k = byte(&f->g);

	for (i = 0; i < f->npool; i++) {
		const struct seen *s = &f->pool[(k + i) % f->npool];

		if (s->type == S_IFDIR)
			return s->ino;
	}
	return TI_ROOT;
}

/* ---- the checks ---- */

/*
 * Whether the log of the projects-folder session that ino is in is gone
 * from its path (deleted, not written again): no session of the folder
 * whose log is there has its key (pjfs.h: the top bits of an inode; a
 * key stays its log's path's while the folder's scans see it). Asked
 * after the fact: the lookups may scan the folder again.
 */
static int session_gone(struct fz *f, uint64_t ino)
{
	static const char *const logs[] = { "s", "o" };
	int there[] = { f->present, f->other_present };
	struct vf_attr a;
	size_t i;

	if (vf_lookup(&f->v, TI_ROOT, "projects", &a) ||
	    vf_lookup(&f->v, a.st.st_ino, "p", &a))
		return 1;
	for (i = 0; i < 2; i++) {
		struct vf_attr s;

		if (there[i] && !vf_lookup(&f->v, a.st.st_ino, logs[i], &s) &&
		    s.st.st_ino >> TR_SLOT_SHIFT == ino >> TR_SLOT_SHIFT)
			return 0;
	}
	return 1;
}

/* getattr, then the content: exactly the size it said. */
static void read_file(struct fz *f, uint64_t ino, const struct vf_attr *listed)
{
	struct vf_attr a;
	struct blob *b;
	int rc = vf_getattr(&f->v, ino, &a), rc2;

	check_rc(rc);
	if (rc)
		return;
	check_attr(&a, ino);
	remember(f, ino, a.st.st_mode);
	/* What the kernel keeps from a listing holds (the rest it asks for
	 * again: it may be of a moment before, see tree.h) */
	if (listed && listed->immutable && listed->st.st_size != a.st.st_size &&
	    !f->unnoticed)
		fprintf(stderr, "ino %llx: listed size %lld, getattr %lld\n",
			(unsigned long long)ino, (long long)listed->st.st_size,
			(long long)a.st.st_size);
	if (listed && listed->immutable && !f->unnoticed)
		CHECK(listed->st.st_size == a.st.st_size);
	rc2 = vf_content(&f->v, ino, &b);
	check_rc(rc2);
	if (!S_ISREG(a.st.st_mode))
		return;
	/* A message or record asks nothing before it answers (it never
	 * changes): when its log shrank and no call looked since, its bytes
	 * are gone (the watcher looks within a second), and a read fails, or
	 * a message shows that its record cannot be read (render.h). */
	if (rc2 == -EIO)
		return;
	/* A projects-folder session whose log was deleted: its tree, while
	 * open, follows the file it has open (session.c) and answers; once
	 * the cache closed it (at the end of any request: the getattr's) it
	 * cannot be opened again, and the folder's next scan drops it. As
	 * for a log deleted between the two calls, the read fails. */
	if (rc2 == -ENOENT && f->pf && ino >> TR_SLOT_SHIFT && session_gone(f, ino))
		return;
	CHECK(!rc2);
	if (f->cut_unseen && (TR_KIND(ino) == TK_MSG || TR_KIND(ino) == TK_REC)) {
		blob_unref(b);
		return;
	}
	if ((off_t)b->len != a.st.st_size && !f->unnoticed)
		fprintf(stderr, "ino %llx: getattr size %lld, content %zu bytes\n",
			(unsigned long long)ino, (long long)a.st.st_size, b->len);
	CHECK((off_t)b->len == a.st.st_size || f->unnoticed);
	blob_unref(b);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct listing {
	char **names;
	uint64_t *inos;
	struct vf_attr *attrs;
	size_t n;
};

static void listing_free(struct listing *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->names[i]);
	free(l->names);
	free(l->inos);
	free(l->attrs);
}

/* The listing of dir (dots excluded), checked: names, and no name twice. */
static int list(struct fz *f, uint64_t dir, struct listing *l)
{
	struct vf_dir *d;
	struct vf_attr a;
	char name[NM_MAX + 1], **sorted;
	uint64_t i;
	size_t k;
	int rc = vf_opendir(&f->v, dir, &d);

	memset(l, 0, sizeof(*l));
	check_rc(rc);
	if (rc)
		return rc;
	for (i = 0; (rc = vf_dir_entry(&f->v, d, i, name, &a)) != 0; i++) {
		CHECK(rc == 1 || rc == -ENOENT);
		if (rc < 0)
			continue;
		if (i < 2) {
			CHECK(!strcmp(name, i ? ".." : ".") && S_ISDIR(a.st.st_mode));
			CHECK(i || a.st.st_ino == dir);
			continue;
		}
		check_name(name);
		check_attr(&a, a.st.st_ino);
		k = l->n++;
		CHECK((l->names = realloc(l->names, l->n * sizeof(*l->names))));
		CHECK((l->inos = realloc(l->inos, l->n * sizeof(*l->inos))));
		CHECK((l->attrs = realloc(l->attrs, l->n * sizeof(*l->attrs))));
		CHECK((l->names[k] = strdup(name)));
		l->inos[k] = a.st.st_ino;
		l->attrs[k] = a;
	}
	CHECK(vf_dir_entry(&f->v, d, i + 1 + l->n, name, &a) == 0);
	vf_closedir(&f->v, d);
	CHECK((sorted = malloc((l->n + 1) * sizeof(*sorted))));
	if (l->n)
		memcpy(sorted, l->names, l->n * sizeof(*sorted));
	qsort(sorted, l->n, sizeof(*sorted), cmp_str);
	for (k = 1; k < l->n; k++)
		CHECK(strcmp(sorted[k - 1], sorted[k]));
	free(sorted);
	return 0;
}

/* readdir as ls -l: every entry looks up to its inode, getattr agrees,
 * files read back as big as listed. Returns the listing's size. */
static size_t readdir_check(struct fz *f, uint64_t dir, uint64_t *sub, size_t nsub,
			    size_t *got)
{
	struct listing l;
	struct vf_attr a;
	size_t k;

	if (list(f, dir, &l))
		return 0;
	for (k = 0; k < l.n; k++) {
		int rc = vf_lookup(&f->v, dir, l.names[k], &a);

		/* Known: a projects-folder session closed by the cache and
		 * opened again starts at epoch 0, so the inodes of a session
		 * indexed again before it closed are stale (the kernel then
		 * walks the path again). */
		if ((f->evicts || f->unnoticed) && rc < 0)
			continue;	/* the listing may be of bytes no more */
		if (rc)
			fprintf(stderr, "lookup of listed %s in %llx: %d\n", l.names[k],
				(unsigned long long)dir, rc);
		CHECK(rc == 0);
		check_attr(&a, a.st.st_ino);
		CHECK(a.st.st_ino == l.inos[k] || f->evicts || f->unnoticed);
		CHECK((a.st.st_mode & S_IFMT) == (l.attrs[k].st.st_mode & S_IFMT) ||
		      a.st.st_ino != l.inos[k]);
		remember(f, a.st.st_ino, a.st.st_mode);
		if (S_ISREG(a.st.st_mode))
			read_file(f, a.st.st_ino, &l.attrs[k]);
		else if (S_ISDIR(a.st.st_mode) && sub && *got < nsub)
			sub[(*got)++] = a.st.st_ino;
	}
	k = l.n;
	listing_free(&l);
	return k;
}

/* A walk of the tree from the root, as find or grep -r: at most FZ_WALK
 * folders. */
static void walk(struct fz *f)
{
	uint64_t dirs[FZ_WALK];
	size_t n = 1, i;

	dirs[0] = TI_ROOT;
	for (i = 0; i < n; i++)
		readdir_check(f, dirs[i], dirs, FZ_WALK, &n);
}

static const char *const names[] = {
	"README.md", "session.json", "errors.txt", "usage.json", "branches", "records",
	"context", "state", "agents", "transcripts", "current", "main", "messages.json",
	"window.md", "meta.json", "current.md", "main.md", "a1", "projects", "sessions",
	"latest", "sessions.json", "p", "s", "o", "forked-from", "000001-user.md", "",
	".", "..", "a/b", "read-cache", "file-history", "worktree.json",
};

/* A name to look up: listed in the folder, well known, or made up. */
static void pick_name(struct fz *f, uint64_t dir, char *out, size_t cap)
{
	unsigned how = byte(&f->g) % 4;
	struct listing l;
	size_t n, i;

	if (how == 0 && !list(f, dir, &l)) {
		snprintf(out, cap, "%s", l.n ? l.names[byte(&f->g) % l.n] : "x");
		listing_free(&l);
		return;
	}
	if (how <= 2) {
		snprintf(out, cap, "%s", names[byte(&f->g) % (sizeof(names) / sizeof(*names))]);
		return;
	}
	n = byte(&f->g);
	n = n > 250 ? 300 : n % 24;
	for (i = 0; i < n && i + 1 < cap; i++)
		out[i] = (char)(n == 300 ? 'a' : 1 + byte(&f->g) % 255);
	out[i] = '\0';
}

static void op_lookup(struct fz *f)
{
	uint64_t dir = byte(&f->g) & 1 ? pick_ino(f) : pick_dir(f);
	char name[400];
	struct vf_attr a;
	int rc;

	pick_name(f, dir, name, sizeof(name));
	rc = vf_lookup(&f->v, dir, name, &a);
	check_rc(rc);
	if (rc)
		return;
	check_attr(&a, a.st.st_ino);
	remember(f, a.st.st_ino, a.st.st_mode);
}

static void op_xattr(struct fz *f, uint64_t ino)
{
	struct sbuf names_sb, v;
	size_t i;
	int rc;

	sb_init(&names_sb);
	sb_init(&v);
	rc = vf_listxattr(&f->v, ino, &names_sb);
	check_rc(rc);
	for (i = 0; !rc && i < names_sb.len; i += strlen(names_sb.buf + i) + 1) {
		CHECK(!strncmp(names_sb.buf + i, "user.", 5));
		sb_reset(&v);
		rc = vf_getxattr(&f->v, ino, names_sb.buf + i, &v);
		if (rc)
			fprintf(stderr, "ino %llx: %s listed, getxattr %d\n",
				(unsigned long long)ino, names_sb.buf + i, rc);
		CHECK(!rc);
	}
	sb_reset(&v);
	rc = vf_getxattr(&f->v, ino, byte(&f->g) & 1 ? "user.sessfs.none" :
			 "user.sessfs.uuid", &v);
	check_rc(rc);
	sb_free(&names_sb);
	sb_free(&v);
}

static void op_readlink(struct fz *f, uint64_t ino)
{
	char target[NM_MAX + 1];
	struct vf_attr a;
	int rc = vf_readlink(&f->v, ino, target);

	check_rc(rc);
	if (rc)
		return;
	CHECK(strnlen(target, NM_MAX + 1) <= NM_MAX && target[0] && target[0] != '/');
	if (!vf_getattr(&f->v, ino, &a) && S_ISLNK(a.st.st_mode))
		CHECK(a.st.st_size == (off_t)strlen(target));
}

/* The epoch of ino's view now (tree layer only): its branches/ says it. */
static int view_epoch(struct fz *f, uint64_t ino, unsigned *epoch)
{
	struct vf_attr a;

	if (vf_lookup(&f->v, TR_IN_VIEW((uint64_t)TI_ROOT, TR_VIEW(ino), 0), "branches", &a))
		return -1;
	*epoch = TR_EPOCH(a.st.st_ino);
	return 0;
}

/*
 * An inode seen before the log changed, of a view that was indexed again
 * since (another epoch): every call on it fails with -ESTALE, never
 * -ENOENT (the kernel would drop the name instead of walking the path
 * again), as tree.h says.
 */
static void op_stale(struct fz *f)
{
	const struct seen *s;
	struct vf_attr a;
	struct vf_dir *d;
	struct blob *b;
	struct sbuf sb;
	char buf[NM_MAX + 1];
	unsigned epoch;
	size_t i, k = byte(&f->g);
	int rc;

	if (!f->t || !f->npool)
		return;
	for (i = 0; i < f->npool; i++) {
		s = &f->pool[(k + i) % f->npool];
		if (s->change < f->changes && TR_HAS_EPOCH(TR_LOCAL(s->ino)))
			break;
	}
	if (i == f->npool || view_epoch(f, s->ino, &epoch) || epoch == TR_EPOCH(s->ino))
		return;
	if (trace)
		fprintf(stderr, "stale %llx (epoch now %u)\n", (unsigned long long)s->ino, epoch);
	CHECK(vf_getattr(&f->v, s->ino, &a) == -ESTALE);
	CHECK(vf_lookup(&f->v, s->ino, "main", &a) == -ESTALE);
	rc = vf_opendir(&f->v, s->ino, &d);
	CHECK(rc == -ESTALE);
	rc = vf_content(&f->v, s->ino, &b);
	CHECK(rc == -ESTALE);
	CHECK(vf_readlink(&f->v, s->ino, buf) == -ESTALE);
	sb_init(&sb);
	CHECK(vf_getxattr(&f->v, s->ino, "user.sessfs.uuid", &sb) == -ESTALE);
	rc = vf_listxattr(&f->v, s->ino, &sb);
	CHECK(rc == -ESTALE);
	sb_free(&sb);
}

static void op(struct fz *f)
{
	uint64_t ino;
	size_t got = 0;
	struct vf_attr a;
	unsigned what = byte(&f->g) % 12;

	if (trace < 0)
		trace = getenv("FUZZ_FS_TRACE") != NULL;
	if (trace)
		fprintf(stderr, "op %u (file %zu bytes, %u changes)\n", what, f->cur.len,
			f->changes);
	switch (what) {
	case 0: case 1:
		change(f);
		break;
	case 2:
		readdir_check(f, byte(&f->g) & 1 ? pick_ino(f) : pick_dir(f), NULL, 0, &got);
		break;
	case 3: case 4:
		op_lookup(f);
		break;
	case 5:
		ino = pick_ino(f);
		check_rc(vf_getattr(&f->v, ino, &a));
		break;
	case 6:
		read_file(f, pick_ino(f), NULL);
		break;
	case 7:
		op_xattr(f, pick_ino(f));
		break;
	case 8:
		op_readlink(f, pick_ino(f));
		break;
	case 9:
		op_stale(f);
		break;
	case 10:
		walk(f);
		break;
	case 11:
		vf_claim_push(&f->v, pick_ino(f));
		break;
	}
}

/* ---- one input ---- */

static uint64_t fnv1a(const uint8_t *p, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	while (n--)
		h = (h ^ *p++) * 1099511628211ull;
	return h;
}

/* The log and the program of an input. */
static void split_input(const uint8_t *data, size_t size, struct fz *f)
{
	const uint8_t *sep = NULL, *p = data;
	size_t k = strlen(FZ_SEP);

	while ((p = memmem(p, size - (size_t)(p - data), FZ_SEP, k))) {
		sep = p;
		p += k;
	}
	f->log = data;
	f->nlog = sep ? (size_t)(sep - data) : size;
	if (sep) {
		f->g.p = sep + k;
		f->g.n = size - (size_t)(sep + k - data);
	}
	f->g.rng = fnv1a(data, size) | 1;
}

/* The layer over the log: its tree, or the projects folder. */
static int start(struct fz *f)
{
	struct session *s;

	if (byte(&f->g) % 4 == 0) {
		if (getenv("FUZZ_FS_TRACE"))
			fprintf(stderr, "projects folder\n");
		/* a cache that holds one session: moving to the other one
		 * closes it (while no request uses it) */
		f->evicts = byte(&f->g) & 1;
		if (pf_new(pj_root, f->evicts ? PF_COST_FIXED * 2 : PF_CACHE_DEFAULT, &f->pf))
			return -1;
		f->v = (struct vfs){ &pf_vfs_ops, f->pf };
		return 0;
	}
	if (ss_open(log_path, SS_LIVE, &s)) {
		cut(f, 0);	/* not a log (yet): it starts empty */
		if (ss_open(log_path, SS_LIVE, &s))
			return -1;
	}
	CHECK((f->t = tr_new(s)));
	f->v = (struct vfs){ &tr_vfs_ops, f->t };
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz *f = calloc(1, sizeof(*f));
	unsigned nops = 0;
	int fd0;

	CHECK(f);
	setup();
	fd0 = fz_lowest_fd();
	unlink(pj_other);
	put_agent(0);
	split_input(data, size, f);
	sb_init(&f->cur);
	f->present = 1;
	f->mode = 0600;
	rmdir(log_path);	/* a directory an input before left */
	unlink(log_path);
	grow(f, f->nlog * byte(&f->g) / 255);
	if (start(f) == 0) {
		while (more(&f->g, nops++))
			op(f);
		walk(f);
	}
	if (f->t)
		tr_free(f->t);
	if (f->pf)
		pf_free(f->pf);
	sb_free(&f->cur);
	free(f);
	CHECK(fz_lowest_fd() == fd0);
	return 0;
}

#include "loghead.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "idx.h"
#include "logf.h"
#include "jscan.h"
#include "sbuf.h"
#include "title.h"

#define CHUNK (1u << 20)	/* what a whole-file walk reads at once */

/* The keys of one line that matter here (raw strings; n == 0: absent). */
struct line {
	struct js_str type, sid, uuid, ts, cwd, version, branch;
	struct js_str custom, ai, summary, leaf;
	struct js_str source;		/* rowSource (2.1.332) */
	int chain;			/* has a parentUuid key: a chain record */
	int meta, compact_summary, tool_result;
	const char *msg, *msg_end;	/* the message value */
};

/* Where a read of head and tail stands. */
struct acc {
	struct lh_facts *f;
	const char *stem;
	int valid;			/* a line that is a record */
	int own_seen;			/* a record carries the stem as its id */
	struct sbuf last_sid, custom, generated, prompt;
	int have_prompt;
	struct sbuf copy_uuid, copy_sid;
	int64_t copy_ms;
	struct sbuf last_uuid, leaves;
	int nleaves;
	int chain_seen;
	int old_reply;			/* an assistant row older than the first time */
	int reply_seen;			/* an assistant row with a time */
	/* The last cwd, version and gitBranch of the lines taken, not yet
	 * copied (n == 0: none): copied once per buffer (acc_flush()), not
	 * once per line. */
	struct js_str cwd, version, branch;
};

static int is_true(const char *v, const char *e)
{
	return e - v >= 4 && !memcmp(v, "true", 4);
}

static void take_str(const char *v, const char *e, struct js_str *s, const char **next)
{
	if (*v == '"') {
		*next = js_string(v, e, s);
		if (!*next)
			s->n = 0;
	} else {
		*next = js_value(v, e);
	}
}

/* One member of a line's top-level object. */
static const char *line_member(struct line *l, const struct js_str *k, const char *v,
			       const char *e)
{
	const char *next = NULL;
	struct js_str *dst = NULL;

	if (js_eq(k, "type")) dst = &l->type;
	else if (js_eq(k, "sessionId")) dst = &l->sid;
	else if (js_eq(k, "uuid")) dst = &l->uuid;
	else if (js_eq(k, "timestamp")) dst = &l->ts;
	else if (js_eq(k, "cwd")) dst = &l->cwd;
	else if (js_eq(k, "version")) dst = &l->version;
	else if (js_eq(k, "gitBranch")) dst = &l->branch;
	else if (js_eq(k, "customTitle")) dst = &l->custom;
	else if (js_eq(k, "aiTitle")) dst = &l->ai;
	else if (js_eq(k, "summary")) dst = &l->summary;
	else if (js_eq(k, "leafUuid")) dst = &l->leaf;
	else if (js_eq(k, "rowSource")) dst = &l->source;
	if (dst) {
		take_str(v, e, dst, &next);
		return next;
	}
	next = js_value(v, e);
	if (js_eq(k, "parentUuid"))
		l->chain = 1;
	else if (js_eq(k, "isMeta"))
		l->meta = is_true(v, e);
	else if (js_eq(k, "isCompactSummary"))
		l->compact_summary = is_true(v, e);
	else if (js_eq(k, "toolUseResult"))
		l->tool_result = 1;
	else if (js_eq(k, "message") && next) {
		l->msg = v;
		l->msg_end = next;
	}
	return next;
}

/* Whether a record of this type gives a title or a summary's leaf: its
 * other keys matter wherever it is. */
static int title_type(const struct js_str *type)
{
	return js_eq(type, "custom-title") || js_eq(type, "ai-title") ||
	       js_eq(type, "summary");
}

/* Reads the keys of the line [p, e); 0, or -1 when it is not an object.
 * light: only the keys up to its type, unless it is a title record's (the
 * rest of a row is mostly its message). */
static int line_read(const char *p, const char *e, struct line *l, int light)
{
	struct js_iter it;
	struct js_str k;
	const char *v;
	int rc;

	memset(l, 0, sizeof(*l));
	p = js_ws(p, e);
	if (!p || js_obj_begin(&it, p, e))
		return -1;
	while ((rc = js_obj_next(&it, &k, &v)) == 1) {
		it.p = line_member(l, &k, v, e);
		if (!it.p)
			return -1;
		if (light && l->type.n && !title_type(&l->type))
			return 0;
	}
	return rc;
}

static int line_parse(const char *p, const char *e, struct line *l)
{
	return line_read(p, e, l, 0);
}

static int str_is(const struct js_str *s, const char *lit)
{
	return js_eq(s, lit);
}

static void set_str(struct sbuf *dst, const struct js_str *s)
{
	sb_reset(dst);
	js_unescape(s, dst);
}

/* The text of a user message's content: a string, or its first text block. */
static int prompt_text(const char *v, const char *e, struct js_str *out)
{
	struct js_iter it, bt;
	struct js_str k, bk, type = { 0 }, text = { 0 };
	const char *val, *bv;

	if (js_obj_begin(&it, v, e))
		return -1;
	while (js_obj_next(&it, &k, &val) == 1) {
		if (!js_eq(&k, "content")) {
			it.p = js_value(val, e);
			if (!it.p)
				return -1;
			continue;
		}
		if (*val == '"')
			return js_string(val, e, out) ? 0 : -1;
		if (js_arr_begin(&it, val, e))
			return -1;
		while (js_arr_next(&it, &bv) == 1) {
			it.p = js_value(bv, e);
			if (!it.p || js_obj_begin(&bt, bv, it.p))
				return -1;
			while (js_obj_next(&bt, &bk, &val) == 1) {
				if (*val == '"' && js_eq(&bk, "type"))
					bt.p = js_string(val, it.p, &type);
				else if (*val == '"' && js_eq(&bk, "text"))
					bt.p = js_string(val, it.p, &text);
				else
					bt.p = js_value(val, it.p);
				if (!bt.p)
					return -1;
			}
			if (js_eq(&type, "text") && text.p) {
				*out = text;
				return 0;
			}
		}
		return -1;
	}
	return -1;
}

/* The title a prompt gives (title.h); 1 when it is no prompt. */
static int prompt_title(const struct js_str *s, struct sbuf *out)
{
	struct sbuf all;
	int rc;

	sb_init(&all);
	js_unescape(s, &all);
	rc = tl_from_prompt(all.buf ? all.buf : "", all.len, out);
	sb_free(&all);
	return rc;
}

static void take_prompt(struct acc *a, const struct line *l)
{
	struct js_str t;

	/* rowSource "harness" (2.1.332): Claude Code's own row, as isMeta */
	if (a->have_prompt || !str_is(&l->type, "user") || l->meta || l->compact_summary ||
	    str_is(&l->source, "harness") || l->tool_result || !l->msg ||
	    prompt_text(l->msg, l->msg_end, &t))
		return;
	a->have_prompt = !prompt_title(&t, &a->prompt);
}

/* The title's parts a line holds: a custom title, a generated one, the
 * first real prompt. */
static void take_title(struct acc *a, const struct line *l)
{
	if (str_is(&l->type, "custom-title") && l->custom.n)
		set_str(&a->custom, &l->custom);
	else if (str_is(&l->type, "ai-title") && l->ai.n)
		set_str(&a->generated, &l->ai);
	else if (str_is(&l->type, "summary") && l->summary.n)
		set_str(&a->generated, &l->summary);
	take_prompt(a, l);
}

static void take_time(struct acc *a, const struct line *l, int64_t *ms)
{
	struct lh_facts *f = a->f;

	*ms = LH_NO_TS;
	if (!l->ts.n || js_time(&l->ts, ms)) {
		*ms = LH_NO_TS;
		return;
	}
	if (f->first_ms == LH_NO_TS)
		f->first_ms = *ms;
	if (f->last_ms == LH_NO_TS || *ms > f->last_ms)
		f->last_ms = *ms;
}

static void take_chain(struct acc *a, const struct line *l, int64_t ms)
{
	if (!l->chain || !l->uuid.n || a->chain_seen)
		return;
	a->chain_seen = 1;
	set_str(&a->copy_uuid, &l->uuid);
	set_str(&a->copy_sid, &l->sid);
	a->copy_ms = ms;
}

static void replace(char **dst, const struct js_str *s)
{
	struct sbuf b;

	sb_init(&b);
	js_unescape(s, &b);
	free(*dst);
	*dst = sb_detach(&b, NULL);
}

/* Whether the lines read so far tell whether the log is a fork. */
static int fork_known(const struct acc *a)
{
	return a->chain_seen && (a->reply_seen || a->copy_ms == LH_NO_TS ||
				 a->copy_ms >= a->f->first_ms);
}

/*
 * Whether what only whole lines give is known: the log is one, its first
 * prompt and whether it is a fork. The lines after that, but for the last
 * ones (suffix()), are read light (line_read()): they add their type (the
 * rows), what precedes it (in Claude Code's rows: the sessionId, cwd,
 * version and gitBranch) and the title records.
 */
static int settled(const struct acc *a)
{
	return a->valid && a->have_prompt && fork_known(a);
}

static void take_line(struct acc *a, const char *p, const char *e, int light)
{
	struct lh_facts *f = a->f;
	struct line l;
	int64_t ms;

	if (line_read(p, e, &l, light) || !l.type.n)
		return;
	if (l.sid.n || l.uuid.n || str_is(&l.type, "summary"))
		a->valid = 1;
	if (l.sid.n) {
		set_str(&a->last_sid, &l.sid);
		if (a->last_sid.len == strlen(a->stem) && !strcmp(a->last_sid.buf, a->stem))
			a->own_seen = 1;
	}
	take_time(a, &l, &ms);
	take_chain(a, &l, ms);
	if (str_is(&l.type, "user") || str_is(&l.type, "assistant")) {
		f->rows++;
		if (l.uuid.n)
			set_str(&a->last_uuid, &l.uuid);
	}
	if (str_is(&l.type, "summary") && l.leaf.n && a->nleaves < LH_LEAVES) {
		if (a->nleaves++)
			sb_addc(&a->leaves, '\n');
		js_unescape(&l.leaf, &a->leaves);
	}
	if (str_is(&l.type, "assistant") && ms != LH_NO_TS) {
		a->reply_seen = 1;
		a->old_reply |= ms < f->first_ms;
	}
	if (l.cwd.n)
		a->cwd = l.cwd;
	if (l.version.n)
		a->version = l.version;
	if (l.branch.n)
		a->branch = l.branch;
	take_title(a, &l);
}

/* Copies what take_line() left pointing into the buffer, before the
 * buffer is used again. */
static void acc_flush(struct acc *a)
{
	if (a->cwd.n)
		replace(&a->f->cwd, &a->cwd);
	if (a->version.n)
		replace(&a->f->version, &a->version);
	if (a->branch.n)
		replace(&a->f->branch, &a->branch);
	a->cwd.n = a->version.n = a->branch.n = 0;
}

/* Whether the line is a user or assistant row with a uuid and a time. */
static int last_row(const char *p, const char *e)
{
	struct line l;

	return !line_parse(p, e, &l) && l.uuid.n && l.ts.n &&
	       (str_is(&l.type, "user") || str_is(&l.type, "assistant"));
}

/* Where the last lines of buf[0..n) that are read whole begin: those from
 * the last user or assistant row with a uuid and a time on (the last uuid,
 * the last time). */
static size_t suffix(const char *buf, size_t n)
{
	size_t end = n;

	while (end && buf[end - 1] != '\n')	/* an incomplete last line */
		end--;
	while (end) {
		const char *nl = end > 1 ? memrchr(buf, '\n', end - 1) : NULL;
		size_t start = nl ? (size_t)(nl - buf) + 1 : 0;

		if (last_row(buf + start, buf + end - 1))
			return start;
		end = start;
	}
	return 0;
}

/* Every complete line of buf[0..n), those from whole on read whole
 * (before it, light once settled()); returns the offset of the first byte
 * not in a complete line. */
static size_t take_lines(struct acc *a, const char *buf, size_t n, size_t whole)
{
	size_t i = 0;
	const char *nl;

	while (i < n && (nl = memchr(buf + i, '\n', n - i))) {
		take_line(a, buf + i, nl, i < whole && settled(a));
		i = (size_t)(nl - buf) + 1;
	}
	acc_flush(a);
	return i;
}

static int pread_full(int fd, char *buf, size_t n, off_t off, size_t *got)
{
	ssize_t r = idx_pread(fd, buf, n, (uint64_t)off);

	*got = r > 0 ? (size_t)r : 0;
	return r < 0 ? (int)r : 0;
}

/* A first prompt longer than the head: its line, read on its own. */
static int read_long_prompt(struct acc *a, int fd, off_t off)
{
	char *buf = malloc(LH_PROMPT_MAX);
	size_t got;
	int rc;
	const char *nl;

	if (!buf)
		return -ENOMEM;
	rc = pread_full(fd, buf, LH_PROMPT_MAX, off, &got);
	if (!rc && (nl = memchr(buf, '\n', got))) {
		struct line l;

		if (!line_parse(buf, nl, &l))
			take_prompt(a, &l);
	}
	free(buf);
	return rc;
}

static char *dup_sb(const struct sbuf *b)
{
	return b->len ? strdup(b->buf) : NULL;
}

/* The title by the rule (loghead.h) from what the lines held. */
static void pick_title(const struct acc *a, char **title, enum lh_title_kind *kind)
{
	*title = NULL;
	*kind = LH_T_NONE;
	if (a->custom.len) {
		*title = dup_sb(&a->custom);
		*kind = LH_T_CUSTOM;
	} else if (a->generated.len) {
		*title = dup_sb(&a->generated);
		*kind = LH_T_GENERATED;
	} else if (a->have_prompt) {
		*title = dup_sb(&a->prompt);
		*kind = LH_T_PROMPT;
	}
}

static void finish(struct acc *a)
{
	struct lh_facts *f = a->f;

	f->sid = a->own_seen ? strdup(a->stem) : dup_sb(&a->last_sid);
	f->last_uuid = dup_sb(&a->last_uuid);
	f->leaves = dup_sb(&a->leaves);
	pick_title(a, &f->title, &f->title_kind);
	if (!a->chain_seen || !a->copy_uuid.len)
		return;
	if (f->sid && a->copy_sid.len && strcmp(a->copy_sid.buf, f->sid)) {
		f->copy_sid = dup_sb(&a->copy_sid);
		f->copy_uuid = dup_sb(&a->copy_uuid);
	} else if (a->copy_ms != LH_NO_TS && a->copy_ms < f->first_ms && a->old_reply) {
		f->copy_uuid = dup_sb(&a->copy_uuid);
	}
}

static void acc_init(struct acc *a, struct lh_facts *f, const char *stem)
{
	memset(a, 0, sizeof(*a));
	a->f = f;
	a->stem = stem;
	sb_init(&a->last_sid);
	sb_init(&a->custom);
	sb_init(&a->generated);
	sb_init(&a->prompt);
	sb_init(&a->copy_uuid);
	sb_init(&a->copy_sid);
	sb_init(&a->last_uuid);
	sb_init(&a->leaves);
	a->copy_ms = LH_NO_TS;
}

static void acc_free(struct acc *a)
{
	sb_free(&a->last_sid);
	sb_free(&a->custom);
	sb_free(&a->generated);
	sb_free(&a->prompt);
	sb_free(&a->copy_uuid);
	sb_free(&a->copy_sid);
	sb_free(&a->last_uuid);
	sb_free(&a->leaves);
}

/* Opens a log read-only, its atime left alone where the kernel lets us
 * (O_NOATIME: the owner's or root's; a listing reads thousands of logs,
 * and a log written since its last read would get an inode write each
 * time), without following a symbolic link. fd or -errno; *st its stat. */
static int open_log(int dirfd, const char *name, struct stat *st)
{
	int flags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, fd = -1;

#ifdef O_NOATIME
	fd = openat(dirfd, name, flags | O_NOATIME);
	if (fd < 0 && errno != EPERM)
		return -errno;
#endif
	if (fd < 0)
		fd = openat(dirfd, name, flags);
	if (fd < 0)
		return -errno;
	if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode)) {
		int rc = S_ISDIR(st->st_mode) ? -EISDIR : -EINVAL;

		close(fd);
		return rc;
	}
	return fd;
}

/* ---- whole-file walks (forks only) ---- */

typedef int (*line_fn)(void *arg, const char *p, const char *e);

/* Calls fn on every complete line from off on until it returns non-zero
 * (returned) or limit bytes are read. */
static int walk_lines(int fd, off_t off, uint64_t limit, line_fn fn, void *arg)
{
	size_t cap = CHUNK, have = 0, i;
	char *buf = malloc(cap), *nl;
	uint64_t total = 0;
	ssize_t r;
	int rc = 0;

	if (!buf)
		return -ENOMEM;
	while (!rc) {
		if (have == cap) {
			char *p = realloc(buf, cap * 2);

			if (!p) {
				rc = -ENOMEM;
				break;
			}
			buf = p;
			cap *= 2;
		}
		r = pread(fd, buf + have, cap - have, off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			rc = r < 0 ? -errno : 0;
			break;
		}
		off += r;
		have += (size_t)r;
		total += (uint64_t)r;
		for (i = 0; !rc && (nl = memchr(buf + i, '\n', have - i)); i = (size_t)(nl - buf) + 1)
			rc = fn(arg, buf + i, nl);
		memmove(buf, buf + i, have - i);
		have -= i;
		if (total >= limit)
			break;
	}
	free(buf);
	return rc;
}

/* After the head, for a log whose head showed no chain record, or whose
 * first one is older than its first time (a fork?) but no reply yet: the
 * lines up to where that is known, at most LH_PROMPT_MAX bytes (hook rows
 * written before the first time look like copies until a reply). */
static int reply_line(void *arg, const char *p, const char *e)
{
	struct acc *a = arg;

	take_line(a, p, e, 0);
	acc_flush(a);
	return fork_known(a);
}

/* Head and tail (or the whole log) through the accumulator. */
static int read_parts(struct acc *a, int fd, uint64_t size, char *lent)
{
	size_t n = size <= LH_BUF ? (size_t)size : LH_HEAD, got, used;
	char *buf = lent ? lent : malloc(n > LH_TAIL ? n : LH_TAIL);
	off_t toff;
	int rc;

	if (!buf)
		return -ENOMEM;
	a->f->exact = n == size;
	rc = pread_full(fd, buf, n, 0, &got);
	/* read whole, the log ends in this buffer: its last lines are whole */
	used = rc ? 0 : take_lines(a, buf, got, a->f->exact ? suffix(buf, got) : got);
	if (!rc && !a->have_prompt && used < got && !a->f->exact)
		rc = read_long_prompt(a, fd, (off_t)used);
	if (!rc && !a->f->exact && !fork_known(a))
		if ((rc = walk_lines(fd, (off_t)used, LH_PROMPT_MAX, reply_line, a)) > 0)
			rc = 0;
	if (!rc && !a->f->exact) {
		toff = (off_t)(size - LH_TAIL);
		rc = pread_full(fd, buf, LH_TAIL, toff, &got);
		if (!rc) {
			char *nl = memchr(buf, '\n', got);

			if (nl) {
				const char *t = nl + 1;
				size_t tn = got - (size_t)(t - buf);

				take_lines(a, t, tn, suffix(t, tn));
			}
		}
	}
	if (!lent)
		free(buf);
	return rc;
}

int lh_read_stat(int dirfd, const char *name, const char *stem, char *buf,
		 struct lh_facts *out, struct stat *st)
{
	struct acc a;
	int fd, rc;

	memset(out, 0, sizeof(*out));
	out->first_ms = out->last_ms = LH_NO_TS;
	fd = open_log(dirfd, name, st);
	if (fd < 0)
		return fd;
	out->bytes = (uint64_t)st->st_size;
	acc_init(&a, out, stem);
	rc = read_parts(&a, fd, out->bytes, buf);
	close(fd);
	if (!rc && !a.valid)
		rc = out->bytes ? -ENOMSG : -ENODATA;
	if (!rc)
		finish(&a);
	acc_free(&a);
	if (rc) {
		lh_free(out);
		out->first_ms = out->last_ms = LH_NO_TS;
	}
	return rc;
}

size_t lh_stem(const char *name, char *out)
{
	size_t n = strlen(name);

	if (n >= 6 && !strcmp(name + n - 6, ".jsonl"))
		n -= 6;
	if (n > LH_STEM_MAX)
		n = LH_STEM_MAX;
	memcpy(out, name, n);
	out[n] = '\0';
	return n;
}

int lh_read(int dirfd, const char *name, const char *stem, struct lh_facts *out)
{
	struct stat st;

	return lh_read_stat(dirfd, name, stem, NULL, out, &st);
}

void lh_free(struct lh_facts *f)
{
	free(f->sid);
	free(f->cwd);
	free(f->version);
	free(f->branch);
	free(f->title);
	free(f->copy_uuid);
	free(f->copy_sid);
	free(f->last_uuid);
	free(f->leaves);
	memset(f, 0, sizeof(*f));
}

struct fork_walk {
	const struct lh_facts *f;
	char *uuid;
	struct sbuf parent;
};

static int fork_line(void *arg, const char *p, const char *e)
{
	struct fork_walk *w = arg;
	struct line l;
	int64_t ms = LH_NO_TS;
	struct sbuf sid;
	int own;

	if (line_parse(p, e, &l) || !l.chain || !l.uuid.n)
		return 0;
	if (w->f->copy_sid) {
		sb_init(&sid);
		js_unescape(&l.sid, &sid);
		own = strcmp(sid.buf, w->f->copy_sid) != 0;
		sb_free(&sid);
	} else {
		own = l.ts.n && !js_time(&l.ts, &ms) && ms >= w->f->first_ms;
	}
	if (!own) {
		set_str(&w->parent, &l.uuid);
		return 0;
	}
	return 1;
}

int lh_fork_point(int dirfd, const char *name, const struct lh_facts *f, char **uuid,
		  int *settled)
{
	struct fork_walk w = { f, NULL, { 0 } };
	struct stat st;
	int fd = open_log(dirfd, name, &st), rc;

	*uuid = NULL;
	if (fd < 0)
		return fd;
	sb_init(&w.parent);
	rc = walk_lines(fd, 0, UINT64_MAX, fork_line, &w);
	close(fd);
	if (settled)
		*settled = rc > 0;	/* fork_line() stopped at an own record */
	if (rc >= 0)
		rc = w.parent.len ? 0 : -ENOENT;
	if (!rc)
		*uuid = sb_detach(&w.parent, NULL);
	sb_free(&w.parent);
	return rc;
}

struct uuid_walk {
	const char *uuid;
	size_t n;
};

static int uuid_line(void *arg, const char *p, const char *e)
{
	struct uuid_walk *w = arg;
	struct line l;

	if (!memmem(p, (size_t)(e - p), w->uuid, w->n) || line_parse(p, e, &l))
		return 0;
	return l.uuid.n == w->n && !memcmp(l.uuid.p, w->uuid, w->n);
}

int lh_has_uuid(int dirfd, const char *name, const char *uuid)
{
	struct uuid_walk w = { uuid, strlen(uuid) };
	struct stat st;
	int fd = open_log(dirfd, name, &st), rc;

	if (fd < 0)
		return fd;
	rc = w.n ? walk_lines(fd, 0, UINT64_MAX, uuid_line, &w) : 0;
	close(fd);
	return rc;
}

/* Appends s for a POSIX shell: as it is when it holds only characters no
 * shell treats specially, else in single quotes ('\'' for a quote). */
static void add_shell_word(const char *s, size_t n, struct sbuf *out)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			    "/._-+:,@%=", s[i]) || !s[i])
			break;
	if (n && i == n) {
		sb_add(out, s, n);
		return;
	}
	sb_addc(out, '\'');
	for (i = 0; i < n; i++) {
		if (s[i] == '\'')
			sb_adds(out, "'\\''");
		else
			sb_addc(out, s[i]);
	}
	sb_addc(out, '\'');
}

void lh_resume_command(const char *path, const char *cwd, const char *sid, struct sbuf *out)
{
	const char *base = path ? strrchr(path, '/') : NULL;
	size_t n;

	base = base ? base + 1 : path;
	n = base ? strlen(base) : 0;
	if (n > 6 && !strcmp(base + n - 6, ".jsonl"))
		n -= 6;
	else
		base = NULL;
	if (!base || !n) {
		base = sid;
		n = sid ? strlen(sid) : 0;
	}
	if (!cwd || !*cwd || !n)
		return;
	sb_adds(out, "cd ");
	add_shell_word(cwd, strlen(cwd), out);
	sb_adds(out, " && claude --resume ");
	add_shell_word(base, n, out);
}

/* Whether record r may give a part of the title (title records, user rows
 * before the first real prompt), by what the index says of it. */
static int title_candidate(const struct idx_rec *r, uint16_t custom, uint16_t ai,
			   int have_prompt)
{
	if (r->type == IDX_T_SUMMARY)
		return 1;
	if (r->type == IDX_T_META)
		return r->type_atom && (r->type_atom == custom || r->type_atom == ai);
	return r->type == IDX_T_USER && !have_prompt &&
	       !(r->flags & (IDX_F_META | IDX_F_COMPACT_SUMMARY)) && r->block != IDX_B_TOOL_RESULT;
}

int lh_index_title(const struct idx *ix, const struct logf *lf, char **title,
		   enum lh_title_kind *kind)
{
	uint16_t custom = idx_atom_find(ix, "custom-title"), ai = idx_atom_find(ix, "ai-title");
	uint32_t i, n = idx_nrecs(ix);
	struct lh_facts f;
	struct sbuf line;
	struct line l;
	struct acc a;
	int rc = 0;

	memset(&f, 0, sizeof(f));
	acc_init(&a, &f, "");
	sb_init(&line);
	for (i = 0; i < n && !rc; i++) {
		const struct idx_rec *r = idx_rec(ix, i);

		if (!title_candidate(r, custom, ai, a.have_prompt))
			continue;
		sb_reset(&line);
		rc = lf_read(lf, r, &line);
		if (!rc && line.len && !line_parse(line.buf, line.buf + line.len, &l))
			take_title(&a, &l);
	}
	if (!rc)
		pick_title(&a, title, kind);
	sb_free(&line);
	acc_free(&a);
	return rc;
}

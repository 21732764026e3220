/*
 * tree_line: a message's log line, read with the lines after it.
 *
 * A listing renders its files in order, and their records mostly follow
 * one another in the log: one pread() of TL_WINDOW bytes then serves the
 * lines of many files, where each took a system call of its own (150,000
 * at 1 GB). Each thread keeps its own window (nothing is shared). A window
 * is read only when the lines asked for go forward by less than its size
 * (a reader of single files costs what it did), and it serves a line only
 * while the tree, its generation and the log are those it was read for:
 * any change that could give its bytes another meaning (a re-index, a log
 * replaced) bumps the generation first (live.c, under the write lock).
 */
#include <pthread.h>
#include <stdlib.h>

#include "tree_priv.h"

#define TL_WINDOW (128u << 10)	/* bytes read at once */
#define TL_LINE_MAX (TL_WINDOW / 4)	/* longer lines are read alone */

struct tl_win {
	uint64_t serial, gen;	/* the tree's, when read */
	const struct logf *lf;
	uint64_t off;		/* of buf[0] in the log */
	size_t len;		/* bytes held */
	uint64_t last;		/* where the last line asked for starts */
	char buf[TL_WINDOW];
};

static pthread_key_t key;
static int key_ok;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void make_key(void)
{
	key_ok = !pthread_key_create(&key, free);
}

static struct tl_win *win_get(void)
{
	struct tl_win *w;

	pthread_once(&once, make_key);
	if (!key_ok)
		return NULL;
	if ((w = pthread_getspecific(key)))
		return w;
	if (!(w = calloc(1, sizeof(*w))))
		return NULL;
	if (pthread_setspecific(key, w)) {
		free(w);
		return NULL;
	}
	return w;
}

int tr_read_line(struct tree *t, const struct logf *lf, const struct idx_rec *r,
		 struct sbuf *line)
{
	uint64_t gen = __atomic_load_n(&t->gen, __ATOMIC_ACQUIRE);
	struct tl_win *w;
	ssize_t n;
	int same, near;

	sb_reset(line);
	if (r->len > TL_LINE_MAX || !(w = win_get()))
		return 0;
	same = w->serial == t->serial && w->gen == gen && w->lf == lf;
	near = same && r->off >= w->last && r->off - w->last <= TL_WINDOW;
	w->serial = t->serial;
	w->gen = gen;
	w->lf = lf;
	w->last = r->off;
	if (same && w->len && r->off >= w->off && r->off + r->len <= w->off + w->len) {
		sb_add(line, w->buf + (r->off - w->off), r->len);
		return 1;
	}
	w->len = 0;
	if (!near)
		return 0;
	n = idx_pread(lf_fd(lf), w->buf, TL_WINDOW, r->off);
	if (n < 0 || (uint64_t)n < r->len)	/* not whole: the renderer tells */
		return 0;
	w->off = r->off;
	w->len = (size_t)n;
	sb_add(line, w->buf, r->len);
	return 1;
}

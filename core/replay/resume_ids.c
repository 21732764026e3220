/*
 * resume_ids: what the resume files share at their bottom (resume_priv.h):
 * the growable list of ids, the order of rows by time, the chain's notes.
 */
#include "resume.h"
#include "resume_priv.h"

#include <errno.h>
#include <stdlib.h>

int rsi_push(struct ids *l, uint32_t id)
{
	if (l->n == l->cap) {
		uint32_t cap = l->cap ? l->cap * 2 : 16;
		uint32_t *p = realloc(l->v, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		l->v = p;
		l->cap = cap;
	}
	l->v[l->n++] = id;
	return 0;
}

int rsi_cmp_ts(const void *a, const void *b)
{
	const struct rs_ts *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

int rsi_note(struct rsi_work *w, uint8_t code, uint32_t id, uint32_t aux,
	     uint32_t aux2)
{
	struct rs_chain *c = w->c;

	if (c->nnotes == w->capnotes) {
		uint32_t cap = w->capnotes ? w->capnotes * 2 : 4;
		struct rs_note *p = realloc(c->notes, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		c->notes = p;
		w->capnotes = cap;
	}
	c->notes[c->nnotes++] = (struct rs_note){ id, aux, aux2, code };
	return 0;
}

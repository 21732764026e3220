/*
 * resume_ids: what the resume files share at their bottom (resume_priv.h):
 * the growable list of ids, the order of rows by time, the chain's notes.
 */
#include "resume.h"
#include "arr.h"
#include "resume_priv.h"

#include <errno.h>
#include <stdlib.h>

int rsi_push(struct ids *l, uint32_t id)
{
	if (arr_grow(&l->v, &l->cap, l->n + 1, sizeof(*l->v), 16))
		return -ENOMEM;
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

	if (arr_grow(&c->notes, &w->capnotes, c->nnotes + 1, sizeof(*c->notes), 4))
		return -ENOMEM;
	c->notes[c->nnotes++] = (struct rs_note){ id, aux, aux2, code };
	return 0;
}

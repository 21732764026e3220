/*
 * resume_scan: rsi_scan() (resume_priv.h), the file scan of rules 2 and 3
 * (session-format.md §13.1): over records [from, to) in file order, the
 * last main-side message row (lastRow; fork briefings and file snapshots
 * aside), the newest last-prompt checkpoint and whether it was explicit,
 * and the last main-side compact boundary, which resets the checkpoint.
 * rs_build() scans the whole index; rs_grow() goes on over the new
 * records from the state after the old ones. Reads the graph and its
 * index, changes only *s.
 */
#include "resume_priv.h"

static void scan_message(const struct graph *g, struct rsi_scan *s, uint32_t i,
			 const struct idx_rec *r)
{
	uint32_t key = r->uuid;

	if (r->type == IDX_T_USER && r->aux && gr_rec(g, r->aux) == i)
		key = r->aux;
	if (!gr_is_node(g, key) || !gr_main_side(g, key))
		return;
	if (gr_is_boundary(g, key)) {
		s->boundary = key;
		s->checkpoint = 0;
		s->cleared = 0;
	}
	if (!(r->type == IDX_T_ATTACHMENT && s->a_fork_briefing &&
	      r->sub == s->a_fork_briefing) &&
	    !(r->type == IDX_T_SYSTEM && s->a_file_snapshot &&
	      r->sub == s->a_file_snapshot))
		s->last_row = key;
}

static void scan_checkpoint(struct rsi_scan *s, const struct idx_rec *r)
{
	if (r->flags & IDX_F_LEAF_KEY)
		s->saw_leaf_key = 1;
	if (!r->aux) {
		if (r->flags & IDX_F_EXPLICIT) {
			s->cleared = 1;
			s->checkpoint = 0;
		}
		return;
	}
	s->cleared = 0;
	s->checkpoint = r->aux;
	s->cp_explicit = !!(r->flags & IDX_F_EXPLICIT);
}

void rsi_scan(const struct graph *g, struct rsi_scan *s, uint32_t from, uint32_t to)
{
	const struct idx *ix = gr_idx(g);
	uint32_t i;

	s->a_fork_briefing = idx_atom_find(ix, "fork_briefing");
	s->a_file_snapshot = idx_atom_find(ix, "file_snapshot");
	for (i = from; i < to; i++) {
		const struct idx_rec *r = idx_rec(ix, i);

		if (r->type == IDX_T_LAST_PROMPT)
			scan_checkpoint(s, r);
		else if (r->uuid && !r->drop &&
			 (r->type == IDX_T_USER || r->type == IDX_T_ASSISTANT ||
			  r->type == IDX_T_ATTACHMENT || r->type == IDX_T_SYSTEM))
			scan_message(g, s, i, r);
	}
}

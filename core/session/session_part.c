/*
 * session_part: the parts of a log (session.h: ss_open_part()), the
 * views of one inline sidechain conversation each. A part never reads the
 * log's size, times or tail itself: it follows its whole, which does, so
 * that the whole and its parts are indexed again as one (when the whole
 * is) and hold the same bytes of the log, never a part ahead of or behind
 * its whole. Its index is a copy of the whole's records of its
 * conversation, made anew when the whole was indexed anew, and extended
 * by the whole's new records when the whole grew.
 */
#include "session.h"
#include "session_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The records of whole a part of it takes: its conversation's rows, and
 * the rows that may bridge (progress rows, rows the repair drops). A new
 * array of idx_nrecs(whole) bytes in *keep. */
static int part_rows(const struct session *whole, const char *root, uint8_t **keep)
{
	uint32_t i, n = idx_nrecs(whole->ix);
	int rc = sc_keep(whole->g, idx_id_find(whole->ix, root, strlen(root)), keep);

	for (i = 0; !rc && i < n; i++) {
		const struct idx_rec *r = idx_rec(whole->ix, i);

		if (r->type == IDX_T_PROGRESS || r->drop)
			(*keep)[i] = 1;
	}
	return rc;
}

/* What of whole the part was built from now. */
static void took(struct session *s, const struct session *whole)
{
	s->bytes = whole->bytes;
	s->seen = whole->seen;
	s->whole_resets = whole->resets;
	s->whole_recs = idx_nrecs(whole->ix);
}

int ss_open_part(const struct session *whole, const char *root, struct session **out)
{
	struct session *s;
	uint8_t *keep = NULL;
	int rc = ss_new_session(whole->source, whole->lf, whole->mode, root, &s);

	*out = NULL;
	if (rc)
		return rc;
	rc = part_rows(whole, root, &keep);
	if (!rc)
		rc = idx_copy_some(whole->ix, keep, &s->ix);
	free(keep);
	if (!rc) {
		took(s, whole);
		rc = ss_build_anew(s);
	}
	if (rc) {
		ss_close(s);
		return rc;
	}
	*out = s;
	return 0;
}

int ss_part_behind(const struct session *s, const struct session *whole)
{
	return s->part && (s->whole_resets != whole->resets ||
			   s->whole_recs != idx_nrecs(whole->ix) ||
			   idx_end(s->ix) != idx_end(whole->ix) ||
			   idx_pending(s->ix) != idx_pending(whole->ix) ||
			   idx_lines(s->ix) != idx_lines(whole->ix) ||
			   s->bytes != whole->bytes);
}

/* The whole was indexed anew: so is the part, from its rows and file. */
static int follow_reset(struct session *s, const struct session *whole)
{
	struct idx *ix, *old_ix = s->ix;
	struct logf *lf, *old_lf = s->lf;
	uint8_t *keep = NULL;
	int rc = part_rows(whole, s->part, &keep);

	if (!rc)
		rc = idx_copy_some(whole->ix, keep, &ix);
	free(keep);
	if (rc)
		return rc;
	if ((rc = lf_dup(whole->lf, &lf))) {
		idx_free(ix);
		return rc;
	}
	s->ix = ix;
	s->lf = lf;
	pthread_mutex_lock(&s->fork_mu);
	s->fork_known = 0;	/* other bytes: look for forkedFrom again */
	pthread_mutex_unlock(&s->fork_mu);
	if ((rc = ss_build_anew(s))) {
		s->ix = old_ix;
		s->lf = old_lf;
		idx_free(ix);
		lf_close(lf);
		ss_build_anew(s);
		return rc;
	}
	idx_free(old_ix);
	lf_close(old_lf);
	took(s, whole);
	s->resets++;
	ss_note(s, "the session's log was indexed again from scratch (its errors.txt says why), and this inline sidechain with it");
	return SS_RESET;
}

/* The whole grew: the part takes what it takes of the new records. */
static int follow_grow(struct session *s, const struct session *whole)
{
	uint32_t had = idx_nrecs(s->ix), from = s->whole_recs;
	uint64_t pending = idx_pending(s->ix), bytes = s->bytes;
	uint8_t *keep = NULL;
	int rc = 0;

	if (from < idx_nrecs(whole->ix) && !(rc = part_rows(whole, s->part, &keep)))
		rc = idx_copy_more(s->ix, whole->ix, from, keep);
	else if (!rc)		/* no record more: the end and what waits */
		rc = idx_copy_more(s->ix, whole->ix, idx_nrecs(whole->ix), NULL);
	free(keep);
	if (rc)
		return rc;
	took(s, whole);
	if (idx_nrecs(s->ix) == had)	/* none of its own: what waits, the size? */
		return idx_pending(s->ix) == pending && s->bytes == bytes ? SS_SAME : SS_GREW;
	rc = ss_build_grown(s);
	return rc ? rc : SS_GREW;
}

int ss_part_follow(struct session *s, const struct session *whole)
{
	if (!s->part)
		return -EINVAL;
	if (!ss_part_behind(s, whole))
		return SS_SAME;
	return s->whole_resets != whole->resets ? follow_reset(s, whole) :
						  follow_grow(s, whole);
}

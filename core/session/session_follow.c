/*
 * session_follow: a session kept up to its log (session.h: ss_changed(),
 * ss_rewritten(), ss_refresh(), ss_sign(), ss_scrub()). What the log's
 * size, times, path and signature say decides between "the same",
 * "grown" (the new lines indexed, the graph and what follows grown) and
 * "indexed again from scratch" (shrunk, rewritten, replaced at its path),
 * each reason noted in errors.txt. Opening and building are session.c's.
 */
#include "session.h"
#include "session_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "plat.h"

static int tail_same(const struct session *s)
{
	char now[SS_TAIL];
	uint64_t end = idx_end(s->ix);

	return pread(lf_fd(s->lf), now, s->ntail, (off_t)(end - s->ntail)) ==
		       (ssize_t)s->ntail && !memcmp(now, s->tail, s->ntail);
}

/* The same times: a write moves both, a touch -r or a chmod the second. */
static int same_times(const struct stat *a, const struct stat *b)
{
	return pl_same_time(&PL_MTIM(*a), &PL_MTIM(*b)) && pl_same_time(&PL_CTIM(*a), &PL_CTIM(*b));
}

/* A scrub found indexed bytes changed (ss_scrub()). */
static int scrub_bad(const struct session *s)
{
	return __atomic_load_n(&s->scrub_bad, __ATOMIC_ACQUIRE);
}

/* Whether b is the file refused before (a): the same inode and kind, and
 * for a regular file the same ctime (a chmod may make it readable). A
 * folder deleted and its inode given to a new log is another file: the
 * kind tells (ext4 gives a freed inode out again at once). */
static int same_refused(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	       (a->st_mode & S_IFMT) == (b->st_mode & S_IFMT) &&
	       (!S_ISREG(a->st_mode) || pl_same_time(&PL_CTIM(*a), &PL_CTIM(*b)));
}

/* Whether path_st, what the log's path shows, is another file than fd_st
 * (the file open) and not one refused before. */
static int other_file(const struct session *s, const struct stat *fd_st,
		      const struct stat *path_st)
{
	if (path_st->st_dev == fd_st->st_dev && path_st->st_ino == fd_st->st_ino)
		return 0;
	return !s->has_bad || !same_refused(&s->bad, path_st);
}

/* A stat of the log's path, into path_st: 0, or -1 when it is gone or
 * hidden (then the file open is followed). The path is looked up from the
 * folder opened at ss_open(): a mount over that folder (even this very
 * one) does not hide it, and no lookup of the log's path can wait for the
 * mount that is asking. */
static int stat_path(const struct session *s, struct stat *path_st)
{
	return s->dirfd >= 0 && fstatat(s->dirfd, s->base, path_st, 0) == 0 ? 0 : -1;
}

/* Another file (one not refused before) is at the log's path now. */
static int path_moved(const struct session *s, const struct stat *fd_st,
		      struct stat *path_st)
{
	return !stat_path(s, path_st) && other_file(s, fd_st, path_st);
}

/*
 * The log's stat now in *st, and in *moved whether another file (one not
 * refused before) is at its path: what ss_changed() and ss_rewritten() ask
 * on every request. One look at the path does it when the path shows the
 * inode indexed: that is the file held open (an open file keeps its inode
 * number its own), so its stat is the open file's, and nothing moved.
 * Otherwise the open file's fstat, held against the path's stat.
 * 0, or -1 when the open file cannot be looked at.
 */
static int look(const struct session *s, struct stat *st, int *moved)
{
	struct stat pst;
	int at = !stat_path(s, &pst);

	*moved = 0;
	if (at && pst.st_dev == s->seen.st_dev && pst.st_ino == s->seen.st_ino) {
		*st = pst;
		return 0;
	}
	if (lf_stat(s->lf, st))
		return -1;
	*moved = at && other_file(s, st, &pst);
	return 0;
}

int ss_changed(const struct session *s)
{
	struct stat st;
	int moved;

	if (s->part || look(s, &st, &moved))
		return 0;
	return st.st_size != s->seen.st_size || !same_times(&st, &s->seen) || moved ||
	       scrub_bad(s);
}

int ss_rewritten(const struct session *s)
{
	struct stat st;
	int moved;

	if (s->part || look(s, &st, &moved))
		return 0;
	return st.st_size < s->seen.st_size ||
	       (st.st_size == s->seen.st_size && !same_times(&st, &s->seen)) || moved ||
	       scrub_bad(s);
}

/*
 * Follows the file now at the log's path: 1 if it does, 0 if the same
 * file stays because the path holds no other, -1 if it stays because the
 * other will not open (noted once; the file already open is kept).
 */
static int follow_path(struct session *s)
{
	struct stat st, pst;
	struct logf *lf;
	int rc;

	if (lf_stat(s->lf, &st) || !path_moved(s, &st, &pst))
		return 0;
	rc = lf_openat(s->dirfd, s->base, &lf);
	if (rc) {
		s->bad = pst;
		s->has_bad = 1;
		ss_note(s, rc == -EISDIR ? "a directory took the log's path; the log as it was is still shown" :
			rc == -EINVAL ? "something not a regular file took the log's path; the log as it was is still shown" :
			"another file at the log's path cannot be read; the log as it was is still shown");
		return -1;
	}
	lf_close(s->lf);
	s->lf = lf;
	s->has_bad = 0;
	s->unreadable = 0;
	ss_note(s, "another file replaced the log at its path; it was indexed again from scratch");
	return 1;
}

/* Whether the log at its path can be read now (the file open is read
 * anyway): said in errors.txt when that changes. 1 if a note was added. */
static int note_access(struct session *s)
{
	int now;

	if (s->dirfd < 0)
		return 0;
	now = faccessat(s->dirfd, s->base, R_OK, AT_EACCESS) < 0 && errno == EACCES;
	if (now == s->unreadable)
		return 0;
	s->unreadable = now;
	ss_note(s, now ? "the log cannot be read at its path now (permission denied); what was "
		      "indexed is still shown, from the file the mount holds open" :
		      "the log can be read at its path again");
	return 1;
}

/*
 * The log kept its size and mtime, and its ctime moved: a change of its
 * inode alone when its links, mode or owner changed (a delete, a chmod, a
 * chown: its bytes are the same; a deleted log is still shown, from the
 * file held open, and a new file at its path is followed). Else -1: only
 * the signature can tell a touch from a rewrite in place that kept the
 * mtime (same_size()). Otherwise 1 if errors.txt got a note, 0 if not.
 */
static int inode_changed(struct session *s, const struct stat *st)
{
	int deleted = st->st_nlink == 0 && s->seen.st_nlink != 0, noted = 0;

	if (st->st_nlink == s->seen.st_nlink && st->st_mode == s->seen.st_mode &&
	    st->st_uid == s->seen.st_uid && st->st_gid == s->seen.st_gid)
		return -1;
	s->seen = *st;
	if (deleted) {
		ss_note(s, "the log was deleted from its path; it is still shown as it was, from "
			"the file the mount holds open (a new file at the path is followed)");
		noted = 1;
	}
	return note_access(s) || noted;
}

/* A new signature, and no scrub under way, for bytes indexed anew: a
 * pass begins once the log moves on from what was just indexed. */
static void sign_anew(struct session *s)
{
	pthread_mutex_lock(&s->sig_mu);
	sig_init(&s->sig);
	scr_init(&s->scrub);
	s->scrub_st = s->seen;
	__atomic_store_n(&s->scrub_bad, 0, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&s->sig_mu);
}

/* Indexes the log again from its first byte. */
static int reindex(struct session *s)
{
	struct idx *ix = idx_new(), *old = s->ix;
	int rc;

	if (!ix)
		return -ENOMEM;
	ss_sums_reset(s);
	pthread_mutex_lock(&s->fork_mu);
	s->fork_known = 0;	/* other bytes: look for forkedFrom again */
	pthread_mutex_unlock(&s->fork_mu);
	s->ix = ix;
	rc = ss_index_all(s);
	sign_anew(s);
	if (!rc)
		rc = ss_build_anew(s);
	if (rc) {
		s->ix = old;
		idx_free(ix);
		ss_build_anew(s);
		return rc;
	}
	idx_free(old);
	s->resets++;
	return SS_RESET;
}

int ss_sign(struct session *s, uint64_t max)
{
	uint64_t end = idx_end(s->ix);
	int more;

	if (s->part)
		return 0;		/* its whole signs the log */
	pthread_mutex_lock(&s->sig_mu);
	if (s->sig.len < end && sig_file(&s->sig, lf_fd(s->lf), end, max))
		sig_init(&s->sig);	/* shorter than indexed: ss_refresh() sees it */
	more = s->sig.len < end;
	pthread_mutex_unlock(&s->sig_mu);
	return more;
}


uint64_t ss_scrub(struct session *s, uint64_t max)
{
	struct stat st;
	uint64_t used = 0;

	if (s->part || lf_stat(s->lf, &st))
		return 0;
	pthread_mutex_lock(&s->sig_mu);
	if (!s->scrub.on && s->sig.len && s->sig.len == idx_end(s->ix) &&
	    (st.st_size != s->scrub_st.st_size || !same_times(&st, &s->scrub_st))) {
		scr_begin(&s->scrub, &s->sig);
		s->scrub_st = st;
	}
	if (scr_step(&s->scrub, lf_fd(s->lf), max, &used) == SCR_CHANGED)
		__atomic_store_n(&s->scrub_bad, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&s->sig_mu);
	return used;
}

void ss_signed(struct session *s, struct ss_signed *out)
{
	pthread_mutex_lock(&s->sig_mu);
	out->sig = s->sig;
	out->checked = s->scrub_st;
	if (s->scrub.on)	/* a pass under way: the next tree begins one */
		memset(&out->checked, 0, sizeof(out->checked));
	pthread_mutex_unlock(&s->sig_mu);
}

void ss_resume_signed(struct session *s, const struct ss_signed *m)
{
	if (s->part || !m->sig.len || m->sig.len > idx_end(s->ix))
		return;		/* nothing signed, or not this log grown */
	pthread_mutex_lock(&s->sig_mu);
	s->sig = m->sig;
	scr_init(&s->scrub);
	s->scrub_st = m->checked;	/* moved since: a pass checks them */
	pthread_mutex_unlock(&s->sig_mu);
}

/*
 * Whether the bytes indexed are still those signed: 1 yes, 0 no, -1 not
 * known (not all are signed yet, or they could not be read again).
 */
static int still_signed(struct session *s)
{
	struct sig now;
	int rc;

	pthread_mutex_lock(&s->sig_mu);
	if (s->sig.len != idx_end(s->ix)) {
		pthread_mutex_unlock(&s->sig_mu);
		return -1;
	}
	sig_init(&now);
	rc = sig_file(&now, lf_fd(s->lf), s->sig.len, UINT64_MAX);
	rc = rc ? -1 : sig_value(&now) == sig_value(&s->sig);
	pthread_mutex_unlock(&s->sig_mu);
	return rc;
}

void (*ss_settle_hook)(void);

/*
 * A write that appends to the log sets its times before its size: a stat
 * between the two shows the old size with new times, as a rewrite in
 * place would. Looks again, a millisecond apart for SS_SETTLE_MS at most,
 * while that is what it shows: 0 with *st the last look, or -errno.
 */
static int settle(struct session *s, struct stat *st)
{
	const struct timespec ms = { 0, 1000000L };
	int i, rc;

	for (i = 0; i < SS_SETTLE_MS && st->st_size == s->seen.st_size &&
		    !same_times(st, &s->seen); i++) {
		if (ss_settle_hook)
			ss_settle_hook();
		nanosleep(&ms, NULL);
		if ((rc = lf_stat(s->lf, st)))
			return rc;
	}
	return 0;
}

/* The log kept its size and not its times: rewritten in place, or only
 * touched? The signature tells; when it cannot, index again. */
static int same_size(struct session *s, const struct stat *st)
{
	int same = still_signed(s);

	if (same > 0) {
		s->seen = *st;
		return SS_SAME;
	}
	ss_note(s, same == 0 ? "the log was rewritten in place (the same size, other bytes); it was indexed again from scratch" :
		"the log changed in place (the same size, new times) before its bytes were signed; it was indexed again from scratch");
	return reindex(s);
}

int ss_refresh(struct session *s)
{
	uint32_t lines = idx_lines(s->ix), errs = idx_nerrs(s->ix);
	uint64_t had = idx_end(s->ix) + idx_pending(s->ix);
	struct stat st;
	int rc, moved;

	if (s->part)
		return -EINVAL;		/* it follows its whole: ss_part_follow() */
	if ((moved = follow_path(s)) > 0)
		return reindex(s);
	if (scrub_bad(s)) {
		ss_note(s, "bytes of the log already indexed were rewritten (found by the background check of their signature); it was indexed again from scratch");
		return reindex(s);
	}
	if ((rc = lf_stat(s->lf, &st)))
		return rc;
	if (st.st_size == s->seen.st_size && same_times(&st, &s->seen))
		return moved ? SS_GREW : SS_SAME;	/* a note is new */
	if (st.st_size == s->seen.st_size && !pl_same_time(&PL_MTIM(st), &PL_MTIM(s->seen)) &&
	    (rc = settle(s, &st)))
		return rc;
	if (st.st_size == s->seen.st_size && pl_same_time(&PL_MTIM(st), &PL_MTIM(s->seen)) &&
	    (rc = inode_changed(s, &st)) >= 0)
		return rc || moved ? SS_GREW : SS_SAME;
	if (st.st_size == s->seen.st_size) {
		rc = same_size(s, &st);
		return rc == SS_SAME && moved ? SS_GREW : rc;
	}
	if ((uint64_t)st.st_size < had || !tail_same(s)) {
		char what[200];

		snprintf(what, sizeof(what), (uint64_t)st.st_size < had ?
			 "the log shrank from %llu to %llu bytes; it was indexed again from scratch" :
			 "the log was rewritten (bytes before %llu changed, now %llu bytes); it was indexed again from scratch",
			 (unsigned long long)had, (unsigned long long)st.st_size);
		ss_note(s, what);
		return reindex(s);
	}
	if ((rc = ss_index_all(s)))
		return rc;
	if (idx_continued(s->ix)) {
		ss_note(s, "the log's last line, taken as a record without its newline, went on "
			"with other bytes; it was indexed again from scratch");
		return reindex(s);
	}
	/* No line more (what waits grew, or only the newline of a last
	 * line already read came): the size session.json says changed. */
	if (idx_lines(s->ix) == lines && idx_nerrs(s->ix) == errs)
		return SS_GREW;
	rc = ss_build_grown(s);
	return rc ? rc : SS_GREW;
}

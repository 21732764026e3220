/*
 * pjset: the projects layer's scan set (pjfs_priv.h: struct pset): the
 * current scan of the folder, shared by reference, made anew when it is
 * time to look at the folder again. The lowest file of the pjfs files:
 * what it must ask of those above (whether a new scan changed anything,
 * closing what a scan no longer holds) it asks through pf->hooks, which
 * pjfs.c sets.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pjfs_priv.h"
#include "projects.h"

int64_t pf_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- sets ---- */

void pf_set_unref(struct pset *p)
{
	int i;

	if (!p || --p->refs > 0)
		return;
	for (i = 0; i < PF_NFILES; i++)
		if (p->files[i])
			blob_unref(p->files[i]);
	pj_free(p->s);
	free(p->pno);
	free(p);
}

/* A project folder's stable number (mu held), or 0 on ENOMEM. */
static uint32_t project_no(struct pjfs *pf, const char *folder)
{
	uint32_t i;
	char **p;

	for (i = 0; i < pf->npfolders; i++)
		if (!strcmp(pf->pfolders[i], folder))
			return i + 1;
	p = realloc(pf->pfolders, (pf->npfolders + 1) * sizeof(*p));
	if (!p)
		return 0;
	pf->pfolders = p;
	if (!(p[pf->npfolders] = strdup(folder)))
		return 0;
	return ++pf->npfolders;
}

struct pset *pf_set_new(struct pjfs *pf, struct pj_set *s)
{
	struct pset *p = calloc(1, sizeof(*p));
	uint32_t i;

	if (!p || !(p->pno = calloc(s->nprojects + 1, sizeof(*p->pno)))) {
		free(p);
		pj_free(s);
		return NULL;
	}
	p->s = s;
	p->refs = 1;
	p->gen = ++pf->gen;
	clock_gettime(CLOCK_REALTIME, &p->time);
	/* What lists sessions (their titles, cwds, names) gives the group
	 * and others no more than every log does: the folder's read bits,
	 * its owner's (who can list the logs anyway) and the group's and
	 * others' that every log has too. */
	p->uid = s->root_st.st_uid;
	p->gid = s->root_st.st_gid;
	p->mode = s->root_st.st_mode & 0444;
	for (i = 0; i < s->nsessions; i++)
		p->mode &= s->sessions[i].mode | 0400;
	for (i = 0; i < s->nprojects; i++)
		p->pno[i] = project_no(pf, s->projects[i].folder);
	return p;
}

/* Whether it is time to look at the folder again (mu held): once per
 * PF_RESCAN_MS (rescan 2, a notice said it changed: at once), or
 * PF_RESCAN_SHARE times the last scan's time when that is longer (a big
 * folder is not scanned most of the time). */
static int rescan_due(const struct pjfs *pf, int rescan)
{
	int64_t gap = pf->scan_ms * PF_RESCAN_SHARE, least = rescan == 2 ? 0 : PF_RESCAN_MS;

	return pf_now_ms() - pf->scanned_ms >= (gap > least ? gap : least);
}

/* The folder was found deleted (mu held): README.md and errors.txt are
 * rendered again with a note, and the notifier tells the kernel
 * (pjlive.c). */
static void folder_gone(struct pjfs *pf)
{
	static const int files[] = { 0, 2 };	/* README.md, errors.txt */
	size_t i;

	pf->root_gone = 1;
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (pf->cur->files[files[i]]) {
			blob_unref(pf->cur->files[files[i]]);
			pf->cur->files[files[i]] = NULL;
		}
}

/* The current set with a reference; looks at the folder again first when
 * rescan is set and it is time. */
struct pset *pf_set_get(struct pjfs *pf, int rescan)
{
	struct pset *p = NULL, *old;
	struct pj_set *s;
	int64_t t0;

	pthread_mutex_lock(&pf->mu);
	if (rescan && !pf->scanning && rescan_due(pf, rescan)) {
		pf->scanning = 1;
		old = pf->cur;
		old->refs++;
		pthread_mutex_unlock(&pf->mu);
		s = NULL;
		t0 = pf_now_ms();
		pj_scan_at(pf->rootfd, pf->dir, old->s, &s);
		pthread_mutex_lock(&pf->mu);
		pf_set_unref(old);
		/* A folder deleted: the set before stays (what can still be
		 * shown is), and README.md and errors.txt say so. */
		if (s && s->root_gone) {
			pj_free(s);
			s = NULL;
			if (!pf->root_gone)
				folder_gone(pf);
		}
		/* A folder that did not change keeps its set: the same times
		 * and generation, so what the kernel keeps of this layer stays
		 * valid (a link's new time would drop its cached target). */
		if (s && (p = pf_set_new(pf, s)) && !pf->hooks.set_changed(pf->cur, p)) {
			pf_set_unref(p);
		} else if (s && p) {
			pf_set_unref(pf->cur);
			pf->cur = p;
			pf->hooks.set_taken(pf, s);
		}
		pf->scanned_ms = pf_now_ms();
		pf->scan_ms = pf->scanned_ms - t0;
		pf->scanning = 0;
	}
	p = pf->cur;
	p->refs++;
	pthread_mutex_unlock(&pf->mu);
	return p;
}

void pf_set_put(struct pjfs *pf, struct pset *p)
{
	pthread_mutex_lock(&pf->mu);
	pf_set_unref(p);
	pthread_mutex_unlock(&pf->mu);
}


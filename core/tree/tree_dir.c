/*
 * tree_dir: the folders of a session tree (tree.h tr_opendir(),
 * tr_dir_entry(), tr_closedir()): a listing taken under the tree's lock,
 * answered entry by entry while the view it was taken from stands.
 */
#include "tree.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agentdir.h"
#include "ctxdir.h"
#include "names.h"
#include "plat.h"
#include "statedir.h"
#include "tree_priv.h"
#include "usagedir.h"

enum dir_kind { DK_NAMES, DK_BRANCH, DK_RECORDS, DK_CONTEXT, DK_STATE, DK_TX, DK_HARNESS };

struct tr_dir {
	uint64_t ino, parent;
	uint32_t view;
	uint8_t epoch;			/* the view's when the listing was taken */
	uint64_t gen;			/* the tree's then */
	enum dir_kind kind;
	uint32_t n;
	uint32_t *ids;			/* DK_BRANCH, DK_RECORDS, DK_STATE, DK_HARNESS */
	char (*names)[NM_MAX + 1];	/* DK_NAMES */
	uint64_t *inos;			/* DK_NAMES */
};

static int is_dir_ino(struct view *v, uint64_t ino)
{
	uint64_t l = TR_LOCAL(ino);

	if (TR_KIND(ino) == TK_BRANCH)
		return vw_branch_of_key(v, TR_KEY(ino)) >= 0;
	if (TR_KIND(ino) == TK_STATE)
		return v->no == 0 && sd_is_dir(v->s, TR_LOCAL(ino));
	if (l == TI_STATE || l == TI_AGENTS)
		return v->no == 0;
	return l == TI_ROOT || l == TI_BRANCHES || l == TI_CONTEXT || l == TI_RECORDS ||
	       l == TI_TRANSCRIPTS || l == TI_HARNESS;
}

static int alloc_names(struct tr_dir *d, size_t n)
{
	d->names = calloc(n + 1, sizeof(*d->names));
	d->inos = calloc(n + 1, sizeof(*d->inos));
	d->kind = DK_NAMES;
	return d->names && d->inos ? 0 : -ENOMEM;
}

static int list_root(struct view *v, struct tr_dir *d)
{
	const char *name;
	uint64_t lino;
	size_t i, n = 0;

	while (tr_root_entry(v, n, &lino))
		n++;
	if (alloc_names(d, n))
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (!*(name = tr_root_entry(v, i, &lino)))
			continue;
		strcpy(d->names[d->n], name);
		d->inos[d->n++] = tr_vino(v, lino);
	}
	return 0;
}

static int list_agents(struct tree *t, struct tr_dir *d)
{
	uint32_t k;

	if (alloc_names(d, t->nviews))
		return -ENOMEM;
	for (k = 1; k < t->nviews; k++) {
		strcpy(d->names[d->n], t->views[k]->name);
		d->inos[d->n++] = tr_vino(t->views[k], TI_ROOT);
	}
	return 0;
}

static int list_branches(struct view *v, struct tr_dir *d)
{
	const struct br_set *bs = ss_branches(v->s);
	uint32_t i, n = br_count(bs), k = 0;
	int cur = ss_current_branch(v->s);

	if (alloc_names(d, n))
		return -ENOMEM;
	if (cur >= 0) {
		strcpy(d->names[k], "current");
		d->inos[k++] = tr_vino(v, vw_current_lino(v));
	}
	for (i = 0; i < n; i++) {
		snprintf(d->names[k], NM_MAX + 1, "%s", br_get(bs, i)->name);
		d->inos[k++] = tr_branch_ino(v, br_get(bs, i));
	}
	d->n = k;
	return 0;
}

static int copy_ids(struct tr_dir *d, const uint32_t *ids, uint32_t n)
{
	d->ids = malloc((n ? n : 1) * sizeof(*d->ids));
	if (!d->ids)
		return -ENOMEM;
	memcpy(d->ids, ids, n * sizeof(*ids));
	d->n = n;
	return 0;
}

/* The folder holding a folder of view v (for ".."). */
static uint64_t dir_parent(struct view *v, uint64_t ino)
{
	if (TR_KIND(ino) == TK_BRANCH)
		return tr_vino(v, TI_BRANCHES);
	if (TR_LOCAL(ino) == TI_ROOT && v->no)
		return TI_AGENTS;
	return tr_vino(v, TI_ROOT);
}

static int opendir_locked(struct tree *t, uint64_t ino, struct tr_dir *d)
{
	struct view *v = vw_of(t, ino);
	const struct tpath *p;
	const uint32_t *order;
	uint32_t n;

	if (!v)
		return tr_gone(t, ino);
	d->ino = ino;
	d->view = v->no;
	d->epoch = v->epoch;
	d->gen = __atomic_load_n(&t->gen, __ATOMIC_ACQUIRE);
	d->parent = dir_parent(v, ino);
	if (!is_dir_ino(v, ino))
		return -ENOTDIR;
	switch (TR_LOCAL(ino)) {
	case TI_ROOT:
		return list_root(v, d);
	case TI_AGENTS:
		return list_agents(t, d);
	case TI_BRANCHES:
		return list_branches(v, d);
	case TI_RECORDS:
		d->kind = DK_RECORDS;
		order = gr_nodes(ss_graph(v->s), &n);
		return copy_ids(d, order, n);
	case TI_CONTEXT:
		d->kind = DK_CONTEXT;
		d->n = cd_count(v->s);
		return 0;
	case TI_TRANSCRIPTS:
		d->kind = DK_TX;
		d->n = ud_tx_count(v);
		return 0;
	case TI_HARNESS:
		d->kind = DK_HARNESS;
		order = vw_harness(t, v, &n);
		return copy_ids(d, order, n);
	}
	if (TR_LOCAL(ino) == TI_STATE || TR_KIND(ino) == TK_STATE) {	/* view 0 only */
		d->kind = DK_STATE;
		d->parent = tr_vino(v, sd_parent(v->s, TR_LOCAL(ino)));
		return sd_list(v->s, TR_LOCAL(ino), &d->ids, &d->n);
	}
	d->kind = DK_BRANCH;
	p = vw_branch_path(t, v, vw_branch_of_key(v, TR_KEY(ino)));
	return p ? copy_ids(d, p->ids, p->n) : -ENOMEM;
}

int tr_opendir(struct tree *t, uint64_t ino, struct tr_dir **out)
{
	struct tr_dir *d = calloc(1, sizeof(*d));
	int rc;

	*out = NULL;
	if (!d)
		return -ENOMEM;
	lv_refresh(t, ino);
	if (ino == TI_AGENTS)
		lv_scan_now(t);
	pthread_rwlock_rdlock(&t->lock);
	rc = opendir_locked(t, ino, d);
	pthread_rwlock_unlock(&t->lock);
	if (rc) {
		tr_closedir(d);
		return rc;
	}
	*out = d;
	return 0;
}

uint64_t tr_dir_gen(const struct tr_dir *d)
{
	return d->gen;
}

void tr_closedir(struct tr_dir *d)
{
	int big;

	if (!d)
		return;
	big = d->n >= TR_TRIM_LISTING;
	free(d->ids);
	free(d->names);
	free(d->inos);
	free(d);
	/* A big listing rendered its files one after another, each freed
	 * once handed to the kernel: pages of the heap that held them are
	 * free now, and stay resident until given back. */
	if (big)
		pl_trim_heap();
}

/* Name and inode of item i (dots excluded); 0 when it is gone. */
static uint64_t dir_item(struct tree *t, struct view *v, struct tr_dir *d, uint32_t i,
			 char *name)
{
	const struct graph *g = ss_graph(v->s);
	uint64_t lino;

	switch (d->kind) {
	case DK_NAMES:
		strcpy(name, d->names[i]);
		return d->inos[i];
	case DK_BRANCH:
		if (!gr_is_node(g, d->ids[i]))
			return 0;
		nm_message_file(g, d->ids[i], i + 1, name);
		return tr_vino(v, tr_row_lino(t, v, TR_KEY(d->ino), d->ids[i]));
	case DK_RECORDS:
		if (!gr_is_node(g, d->ids[i]))
			return 0;
		tr_rec_name(v, d->ids[i], name);
		return tr_vino(v, TR_INO(TK_REC, d->ids[i]));
	case DK_CONTEXT:
		return cd_entry(v->s, i, name, &lino) ? 0 : tr_vino(v, tr_ctx_lino(t, v, lino));
	case DK_HARNESS:
		if (!gr_is_node(g, d->ids[i]))
			return 0;
		nm_harness_file(g, d->ids[i], name);
		return tr_vino(v, TR_INO(TK_MSG, d->ids[i]));
	case DK_STATE:
		return sd_entry(v->s, d->ids[i], name, &lino) ? 0 : tr_vino(v, lino);
	case DK_TX:
		return ud_tx_entry(v, i, name, &lino) ? 0 : tr_vino(v, lino);
	}
	return 0;
}

int tr_dir_entry(struct tree *t, struct tr_dir *d, uint64_t i, char *name,
		 struct vf_attr *attr)
{
	struct view *v;
	uint64_t ino;
	int rc = 1;

	if (i >= (uint64_t)d->n + 2)
		return 0;
	pthread_rwlock_rdlock(&t->lock);
	v = d->view < t->nviews ? t->views[d->view] : NULL;
	if (!v || v->epoch != d->epoch) {
		/* The log was indexed again since the listing was taken:
		 * its entries are gone, and the caller skips them. */
		rc = -ENOENT;
	} else if (i < 2) {
		strcpy(name, i ? ".." : ".");
		ino = i ? d->parent : d->ino;
		tr_fill_common(t, v, ino, attr);
		tr_set_dir(v, attr);
	} else {
		ino = dir_item(t, v, d, (uint32_t)(i - 2), name);
		if (ino && d->kind == DK_TX && TR_KIND(ino) == TK_TX) {
			tr_fill_common(t, v, ino, attr);
			attr->st.st_mode = S_IFREG | TR_FILE_PERM(v->mode);
			attr->st.st_nlink = 1;
			attr->lazy = 1;
		} else if (!ino || tr_attr_locked(t, ino, attr))
			rc = -ENOENT;	/* gone since the listing was taken */
		else
			attr->fixed_name = tr_name_kept(v, d->ino, ino);
	}
	pthread_rwlock_unlock(&t->lock);
	return rc;
}


/*
 * tree_xattr: the extended attributes of the mount's nodes (tree.h:
 * tr_getxattr(), tr_listxattr()). Part of the tree module; see
 * tree_priv.h.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "agentdir.h"
#include "jscan.h"
#include "names.h"
#include "statedir.h"
#include "tree_priv.h"
#include "usagedir.h"

static const char *const xattr_names[] = {
	"user.sessfs.uuid", "user.sessfs.parent", "user.sessfs.timestamp",
	"user.sessfs.line", "user.sessfs.agent",
};

#define XATTR_TS 2		/* only on a record with a timestamp */
#define XATTR_AGENT 4		/* only on an Agent/Task result */

static int xattr_locked(struct tree *t, uint64_t ino, const char *name,
			struct sbuf *out)
{
	struct view *v = vw_of(t, ino);
	const struct graph *g;
	uint32_t id = TR_KEY(ino);
	const struct idx_rec *r;
	char ts[32], folder[NM_MAX + 1];

	if (!v)
		return vw_stale(t, ino) ? -ESTALE : -ENODATA;
	if (TR_KIND(ino) == TK_STATE)
		return v->no ? -ENODATA : sd_getxattr(v->s, TR_LOCAL(ino), name, out);
	if (TR_KIND(ino) != TK_MSG || !gr_is_node((g = ss_graph(v->s)), id))
		return -ENODATA;
	r = gr_node_rec(g, id);
	if (!strcmp(name, xattr_names[0])) {
		idx_id_str(ss_idx(v->s), id, out);
	} else if (!strcmp(name, xattr_names[1])) {
		if (r->parent)	/* a root: "-", as the header's parent: line */
			idx_id_str(ss_idx(v->s), r->parent, out);
		else
			sb_addc(out, '-');
	} else if (!strcmp(name, xattr_names[XATTR_TS]) && r->ts != IDX_NO_TS) {
		js_time_fmt(r->ts, ts);
		sb_adds(out, ts);
	} else if (!strcmp(name, xattr_names[3])) {
		sb_addf(out, "%u", r->line);
	} else if (!strcmp(name, xattr_names[XATTR_AGENT]) && ad_folder(t, v, id, folder)) {
		sb_adds(out, folder);
	} else {
		return ud_getxattr(v, id, name, out);
	}
	return 0;
}

int tr_getxattr(struct tree *t, uint64_t ino, const char *name, struct sbuf *out)
{
	int rc;

	pthread_rwlock_rdlock(&t->lock);
	rc = xattr_locked(t, ino, name, out);
	pthread_rwlock_unlock(&t->lock);
	return rc;
}

/* The names tr_getxattr() gives a value for; a stale inode's, none
 * (-ESTALE, as its other calls). */
static int listxattr_locked(struct tree *t, uint64_t ino, struct sbuf *out)
{
	struct view *v = vw_of(t, ino);
	const struct graph *g;
	char folder[NM_MAX + 1];
	size_t i, n = XATTR_AGENT;

	if (!v)
		return vw_stale(t, ino) ? -ESTALE : -ENOENT;
	if (TR_KIND(ino) == TK_STATE) {
		if (!v->no)
			sd_listxattr(v->s, TR_LOCAL(ino), out);
		return 0;
	}
	if (TR_KIND(ino) != TK_MSG)
		return 0;
	if (!gr_is_node((g = ss_graph(v->s)), TR_KEY(ino)))
		return -ENOENT;
	if (ad_folder(t, v, TR_KEY(ino), folder))
		n++;
	for (i = 0; i < n; i++)
		if (i != XATTR_TS || gr_node_rec(g, TR_KEY(ino))->ts != IDX_NO_TS)
			sb_add(out, xattr_names[i], strlen(xattr_names[i]) + 1);
	ud_listxattr(v, TR_KEY(ino), out);
	return 0;
}

int tr_listxattr(struct tree *t, uint64_t ino, struct sbuf *out)
{
	int rc;

	pthread_rwlock_rdlock(&t->lock);
	rc = listxattr_locked(t, ino, out);
	pthread_rwlock_unlock(&t->lock);
	return rc;
}

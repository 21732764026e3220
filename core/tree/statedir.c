#include "statedir.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "tree.h"

/* The inode of a state node. */
static uint64_t sd_ino(uint32_t node)
{
	return node ? TR_INO(TK_STATE, node) : TI_STATE;
}

/* The node of ino in the state, or ST_NONE. */
static uint32_t node_of(const struct st_state *st, uint64_t ino)
{
	uint32_t node;

	if (!st)
		return ino == TI_STATE ? 0 : ST_NONE;
	if (ino == TI_STATE)
		return 0;
	if (TR_KIND(ino) != TK_STATE)
		return ST_NONE;
	node = TR_KEY(ino);
	return node && node < st_count(st) ? node : ST_NONE;
}

int sd_is_dir(struct session *s, uint64_t ino)
{
	const struct st_state *st = ss_state(s);
	uint32_t node = node_of(st, ino);

	return node != ST_NONE && (!st || st_is_dir(st, node));
}

int sd_is_file(struct session *s, uint64_t ino)
{
	const struct st_state *st = ss_state(s);
	uint32_t node = node_of(st, ino);

	return st && node != ST_NONE && !st_is_dir(st, node);
}

uint64_t sd_parent(struct session *s, uint64_t ino)
{
	const struct st_state *st = ss_state(s);
	uint32_t node = node_of(st, ino);

	if (!st || !node || node == ST_NONE)
		return TI_ROOT;
	return sd_ino(st_parent(st, node));
}

int sd_list(struct session *s, uint64_t ino, uint32_t **nodes, uint32_t *n)
{
	const struct st_state *st = ss_state(s);
	uint32_t dir = node_of(st, ino), k, i = 0;

	*nodes = NULL;
	*n = 0;
	if (dir == ST_NONE || (st && !st_is_dir(st, dir)))
		return -ENOTDIR;
	if (!st)
		return 0;
	*nodes = malloc((st_nkids(st, dir) + 1) * sizeof(**nodes));
	if (!*nodes)
		return -ENOMEM;
	for (k = st_first(st, dir); k != ST_NONE; k = st_next(st, k))
		(*nodes)[i++] = k;
	*n = i;
	return 0;
}

int sd_entry(struct session *s, uint32_t node, char *name, uint64_t *ino)
{
	const struct st_state *st = ss_state(s);

	if (!st || !node || node >= st_count(st))
		return -ENOENT;
	snprintf(name, NM_MAX + 1, "%s", st_name(st, node));
	*ino = sd_ino(node);
	return 0;
}

uint64_t sd_lookup(struct session *s, uint64_t parent, const char *name)
{
	const struct st_state *st = ss_state(s);
	uint32_t dir = node_of(st, parent), k;

	if (!st || dir == ST_NONE)
		return 0;
	k = st_lookup(st, dir, name);
	return k == ST_NONE ? 0 : sd_ino(k);
}

int sd_render(struct session *s, uint64_t ino, struct sbuf *out)
{
	const struct st_state *st = ss_state(s);
	uint32_t node = node_of(st, ino);

	if (!st)
		return ino == TI_STATE ? -EISDIR : -ENOENT;
	return node == ST_NONE ? -ENOENT : st_render(st, node, out);
}

int sd_getxattr(struct session *s, uint64_t ino, const char *name, struct sbuf *out)
{
	const struct st_state *st = ss_state(s);
	uint32_t node = node_of(st, ino);

	return st && node != ST_NONE ? st_getxattr(st, node, name, out) : -ENODATA;
}

void sd_listxattr(struct session *s, uint64_t ino, struct sbuf *out)
{
	const struct st_state *st = ss_state(s);
	uint32_t node = node_of(st, ino);

	if (st && node != ST_NONE)
		st_listxattr(st, node, out);
}

#include "harness.h"

#include <string.h>

static const char *const attachments[] = HN_ATTACHMENTS;

/* System rows that are the user's: a command's output, a hook's summary,
 * and the compaction marker of the path. */
static const char *const system_kept[] = { "compact_boundary", "local_command",
					   "stop_hook_summary" };

static int in(const char *s, const char *const *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(s, v[i]))
			return 1;
	return 0;
}

int hn_is_harness(const struct idx *ix, const struct idx_rec *r)
{
	const char *sub = idx_atom(ix, r->sub);

	switch (r->type) {
	case IDX_T_ATTACHMENT:
		return in(sub, attachments, sizeof(attachments) / sizeof(attachments[0]));
	case IDX_T_SYSTEM:
		return !in(sub, system_kept, sizeof(system_kept) / sizeof(system_kept[0]));
	case IDX_T_USER:
		return (r->flags & IDX_F_META) && !(r->flags & IDX_F_HOOK_TEXT) &&
		       !(r->flags & IDX_F_COMPACT_SUMMARY);
	}
	return 0;
}

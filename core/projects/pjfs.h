/*
 * pjfs: a whole projects folder (~/.claude/projects), the layer above the
 * session trees (tree.h), served through the calls of vfs.h.
 *
 *   /README.md  /sessions.json  /errors.txt      the folder (projects.h)
 *   /usage.json                                   token totals (pjusage.h)
 *   /projects/<project>/<session-id>/             a session's tree, as a
 *                          single mount shows it, plus forked-from -> its
 *                          origin's folder when it is a --fork-session copy,
 *                          and continued-from -> the session an older log
 *                          continues (pjcont.h: looked for when the
 *                          session is first opened)
 *   /sessions/<time>-<slug>-<id8> -> ../projects/<project>/<session-id>
 *   /latest -> sessions/<…>                       the log written last
 *
 * Inodes: the top 16 bits (TR_SLOT_SHIFT) are a session's key (projects.h:
 * stable for the mount's life), the rest the inode its own tree gives (a
 * single mount's numbers); key 0 holds this layer's own nodes. So an inode
 * names the same file whether or not its session is open: a session
 * dropped from the cache is opened and indexed again when one of its
 * inodes is used, and its inodes still resolve.
 *
 * Cost: the listing of projects/, sessions/ and sessions.json come from the
 * heads and tails of the logs (loghead.h), scanned again at most once per
 * PF_RESCAN_MS (or PF_RESCAN_SHARE times the last scan's time, when longer)
 * when one of them is asked for (a log whose size, mtime and inode did not
 * change is not read again); the kernel may keep this layer's folders and
 * the links in sessions/ (which have their session's times) for PF_KEEP_MS
 * (tr_attr.keep_ms: the look of pjlive.h tells it of every change to
 * them within about a second; the bound is for a notice lost), the other
 * links for PF_RESCAN_MS, and a session's branches/current for PF_KEEP_MS
 * (its inode is the branch's it names; the look tells the kernel when it
 * moves, and forgets it when its session is closed). A session is opened
 * (indexed)
 * when a path inside it is first used. Open sessions are kept in a cache
 * of cache_bytes (each one's memory: an estimate of its index, PF_COST_*,
 * from what the index holds, idx_mem(), with its graph and tree about as
 * much again, and the rendered text its tree keeps, tr_cached_bytes(),
 * which a file handed to the kernel's page cache no longer takes); the least
 * recently used one is closed when the cache is over it, unless a request
 * or an open folder still uses it. A walk through the sessions in order
 * (a glob or grep -r over sessions/, a find over projects/) has the next
 * ones opened, and the folder it lists in each listed (with the folders
 * under it, when the walk goes into them), ahead of it on threads of
 * their own, within that cache (pjahead.h). A session's own tree follows its log as
 * a single mount does (live.h); the notifier thread looks at the folder
 * and at the open sessions once a second (pjlive.h), and a session closed
 * and opened again keeps its epochs (live.h: lv_mark()).
 *
 * sessions.json adds each session's "usage" once counted (pjusage.h: when
 * it is opened, or by usage.json) and "continuedFrom" once looked for;
 * it is made again when either is found. usage.json is made once per scan
 * of the folder, outside the lock.
 *
 * Permissions: a session folder and all below it are its log's (tree.h);
 * this layer's own nodes have the folder's owner and group, its owner's
 * read bit, and the group's and others' read bits only where the folder
 * and every log have them (they list every session's title and cwd).
 *
 * What cannot be shown is said: a session listed that cannot be opened
 * (its log unreadable since the scan, or gone) holds README.md and
 * errors.txt saying why (pjfs_stub.c), not ENOENT; a folder found deleted
 * keeps the set it had, and its README.md and errors.txt say so.
 *
 * All calls are thread-safe.
 */
#ifndef SESSFS_PJFS_H
#define SESSFS_PJFS_H

#include <stdint.h>

#include "vfs.h"

#define PF_RESCAN_MS 1000	/* the projects folder is looked at again */
#define PF_KEEP_MS 60000	/* the kernel keeps this layer's folders and links
				 * in sessions/ (the look tells it of a change) */
#define PF_RESCAN_SHARE 10	/* ... or after this many times a scan's time */
#define PF_CACHE_DEFAULT (512ull << 20)	/* open sessions' memory */
#define PF_COST_FIXED (48u << 10)	/* a session's estimate: this */
#define PF_COST_IDX 2			/* plus its index's memory times this */

struct pjfs;
struct pj_set;

/* What sessfs says of a folder that is no projects folder (-ENOMSG). */
#define PF_NOT_PROJECTS "no session log and no projects/ folder in it (looked for " \
	"projects/ and for */*.jsonl): not a projects folder"

/* Scans dir (projects.h), held by a descriptor from now on (a rename of
 * its path does not redirect the mount). 0 and a new layer in *out (free
 * with pf_free()), -ENOMSG when dir is no projects folder
 * (pj_is_projects()), or -errno when dir cannot be read. */
int pf_new(const char *dir, uint64_t cache_bytes, struct pjfs **out);
/* Why pf_new() or pf_scan_first() refused a folder, as a phrase. */
const char *pf_error(int rc);
void pf_free(struct pjfs *pf);

/* The scan of dir that pf_new() makes first, and its refusal, without
 * the layer (sessfs --check DIR): 0 and the set in *out (pj_free()),
 * -ENOMSG when dir is no projects folder, or -errno. */
int pf_scan_first(const char *dir, struct pj_set **out);

extern const struct vf_ops pf_vfs_ops;

/* For the benchmark and tests: the sessions open now, their estimated
 * memory, and how many times a session was opened (indexed) in all. */
void pf_cache_stats(struct pjfs *pf, uint32_t *open, uint64_t *bytes, uint64_t *opened);

#endif

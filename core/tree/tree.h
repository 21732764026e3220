/*
 * tree: the mount's layout, mapped onto the replay core.
 *
 * Inode numbers are computed, not stored. From the top: 16 bits that are
 * not the tree's (TR_SLOT_SHIFT: a layer above, such as the projects
 * mount, numbers its sessions there; a tree's own inodes have them 0),
 * 4 bits say what a node is (TK_*), 4 the view's epoch, 12 which view it
 * belongs to, the low 28 bits which one it is (a record's id, a branch's
 * first own record, a fixed file). So the same record has the same inode
 * in every branch, inodes survive the log growing, and forget() has
 * nothing to free. The epoch counts how often the view's log was indexed
 * again from scratch (it shrank, was rewritten or replaced), modulo 16:
 * ids then name other records, so every inode of an earlier epoch is
 * stale (ESTALE: the kernel then walks the path again, asking for each
 * name, and finds the new inodes). The folders under a view's root
 * (branches/, context/, records/, state/) carry the epoch too, so that one
 * invalidation of their names drops all the kernel holds below them; the
 * root, agents/ and the files that follow the log anyway (README.md,
 * session.json, errors.txt, meta.json, context/messages.json and
 * window.md) carry none. A log of more than 2^28 records (over 25 GB)
 * would reuse keys.
 *
 * A tree holds views: view 0 is the mounted session, the root of the
 * mount. Every node kind works the same inside any view; a view's "local"
 * inode is its number with the view and epoch bits cleared (TR_LOCAL),
 * which is what the per-view helpers (ctxdir, statedir) deal in.
 *
 *   /README.md /session.json /errors.txt /usage.json
 *   /branches/{current -> NAME, NAME/<seq>-<kind>.md ...}
 *   /harness/<line>-<kind>.md
 *   /records/<uuid>.json    /context/    /state/
 *   /transcripts/{current.md -> NAME.md, NAME.md ...}   (usagedir.h)
 *
 * Every file has one home; every other place it shows is a relative
 * symbolic link to it (as sysfs keeps a device in /sys/devices and links
 * it from /sys/class): a message shared by several branches is a file in
 * the first of them in listing order and a link in the others; a row the
 * harness writes by itself (harness.h) is a file in harness/ and a link
 * in every branch; a row of context/ is a link to its file. So grep -r,
 * find and tar meet each file once, and ls, cat and diff follow the
 * links (tree_priv.h vw_home()).
 *   /agents/<name>/         a subagent's log, laid out the same (no state/),
 *                           plus meta.json; the root of view 1, 2, ...
 *
 * Growing logs: every lookup, getattr and opendir first looks whether the
 * log changed and, if it did, brings the view up to date before it
 * answers (live.h).
 *
 * A tree owns its sessions. Calls are thread-safe: each takes the tree's
 * read lock; a refresh takes the write lock to index appended bytes.
 * Results are copied out (names, attributes) or reference-counted (blobs).
 */
#ifndef SESSFS_TREE_H
#define SESSFS_TREE_H

#include <stdint.h>
#include <sys/stat.h>

#include "session.h"
#include "cache.h"
#include "vfs.h"

enum tr_kind {
	TK_FIXED = 0,
	TK_BRANCH = 1,		/* key: first own record id (0 = main) */
	TK_MSG = 2,		/* key: record id */
	TK_REC = 3,		/* key: record id */
	TK_CTX = 4,		/* key: seq of a row the resume adds */
	TK_STATE = 5,		/* key: node of the state (statedir.h) */
	TK_CURRENT = 6,		/* branches/current: key as the branch it names */
	TK_TX = 7,		/* transcripts/<branch>.md: key as the branch's */
	TK_LINK = 8,		/* a branch's link to a file homed elsewhere: key
				 * the record's id */
	TK_CTXLINK = 9,		/* context/'s link to a row's file: key the id */
	TK_TXCUR = 10,		/* transcripts/current.md: key as the branch it
				 * names */
};

enum tr_fixed {
	TI_ROOT = 1,
	TI_README,
	TI_SESSION,
	TI_ERRORS,
	TI_BRANCHES,
	TI_CONTEXT,
	TI_STATE,
	TI_RECORDS,
	TI_CTX_MESSAGES,
	TI_CTX_WINDOW,
	TI_AGENTS,		/* view 0: agents/ */
	TI_META,		/* an agent's view: meta.json */
	TI_USAGE,		/* usage.json */
	TI_TRANSCRIPTS,		/* transcripts/ */
	TI_HARNESS,		/* harness/ */
};

#define TR_VIEW_MAX 0xfffu	/* views are numbered 0 .. TR_VIEW_MAX */
#define TR_EPOCH_MAX 0xfu
#define TR_KEY_MASK 0x0fffffffu
#define TR_SLOT_SHIFT 48	/* bits above are a layer's, not the tree's */
#define TR_INO(kind, key) (((uint64_t)(kind) << 44) | (uint64_t)(key))
#define TR_KIND(ino) ((unsigned)(((ino) >> 44) & 0xfu))
#define TR_EPOCH(ino) ((unsigned)(((ino) >> 40) & TR_EPOCH_MAX))
#define TR_VIEW(ino) ((uint32_t)(((ino) >> 28) & TR_VIEW_MAX))
#define TR_KEY(ino) ((uint32_t)((ino) & TR_KEY_MASK))
#define TR_LOCAL(ino) ((ino) & ~((uint64_t)0xffffu << 28))
/* Whether a local inode carries its view's epoch (see above). */
#define TR_HAS_EPOCH(lino) \
	(TR_KIND(lino) != TK_FIXED || (lino) == TI_BRANCHES || (lino) == TI_CONTEXT || \
	 (lino) == TI_STATE || (lino) == TI_RECORDS || (lino) == TI_HARNESS)
/* A local inode in view view of epoch epoch. */
#define TR_IN_VIEW(lino, view, epoch) \
	((lino) | ((uint64_t)(view) << 28) | \
	 (TR_HAS_EPOCH(lino) ? (uint64_t)(epoch) << 40 : 0))

/*
 * Permissions: the tree gives no one more than its log gives them. Every
 * node of a view has the owner and group of the view's log; files its
 * read bits and nothing more, folders the same with the execute bits
 * where read is set (0640 gives 0440 and 0550); symbolic links 0777, as
 * always. The mount checks them in the kernel (default_permissions). A
 * chmod or chown of the log is followed (live.h).
 */
#define TR_FILE_PERM(mode) ((mode_t)((mode) & 0444))
#define TR_DIR_PERM(mode) ((mode_t)(((mode) & 0444) | (((mode) & 0444) >> 2)))

/* Rendered text kept. Small on purpose: a listing hands what it renders
 * to the kernel's page cache, which keeps it for reads, and the text so
 * handed over leaves this cache (tr_claim_push()); what stays is what was
 * rendered to learn a size and not read yet, and the file read last. A
 * small budget reused costs fewer page faults and less resident memory
 * than a big one, but it must hold the two batches a listing has in
 * flight (the batch rendered to learn its sizes is pushed only after the
 * next one is rendered), or files are rendered twice. The measurements
 * that chose 2 MiB: tests/bench/README.md, "The render budget". */
#define TR_CACHE_BYTES (2u << 20)

/* Closing a listing of at least this many entries gives the heap's free
 * pages back (pl_trim_heap()). */
#define TR_TRIM_LISTING 4096u

struct tree;

/* Takes ownership of s. Returns NULL on ENOMEM (s is then closed). */
struct tree *tr_new(struct session *s);
void tr_free(struct tree *t);

/*
 * Attributes of ino (vfs.h: struct vf_attr): 0, or -ENOENT. immutable: the kernel may keep the
 * node's attributes and data for long (they change only through an
 * invalidation). fixed_name: the same for the name the node was reached by
 * (lookup, listing): it keeps naming this inode while the log grows.
 * keep_ms: when not immutable, how long the kernel may still keep the
 * attributes and the name anyway (0: not at all; a layer above that looks
 * at its own source only now and then sets it).
 */
int tr_getattr(struct tree *t, uint64_t ino, struct vf_attr *out);
/* 1 when ino's contents never change (a message file, a record). */
int tr_fixed_content(uint64_t ino);
/* The tree's calls as the vfs contract (tree_vfs.c; fs: a struct tree). */
extern const struct vf_ops tr_vfs_ops;
/* The bytes of rendered text the tree keeps now (at most TR_CACHE_BYTES). */
size_t tr_cached_bytes(struct tree *t);
int tr_lookup(struct tree *t, uint64_t parent, const char *name,
	      struct vf_attr *out);

/* A directory's listing, taken when it is opened. */
struct tr_dir;
int tr_opendir(struct tree *t, uint64_t ino, struct tr_dir **out);
/* Entry i of the listing ("." and ".." included): 1 and its name (NM_MAX
 * + 1 bytes) and attributes, 0 past the end, -errno on error. */
int tr_dir_entry(struct tree *t, struct tr_dir *d, uint64_t i, char *name,
		 struct vf_attr *attr);
void tr_closedir(struct tr_dir *d);
/*
 * The tree's generation when the listing was taken. It grows after every
 * change a listing could show (the log grew, agents/ changed): two
 * listings of one folder with the same generation hold the same entries,
 * so the kernel may keep one and serve it again.
 */
uint64_t tr_dir_gen(const struct tr_dir *d);

/* The content of a file, with a reference for the caller. */
int tr_content(struct tree *t, uint64_t ino, struct blob **out);
/* The same in pieces (vfs.h: vf_ops.stream): a transcript is rendered
 * piece by piece (twice when the sink wants its size first), under the
 * read lock all along, so that both passes see one state of the log;
 * any other file is its content, whole. */
int tr_stream(struct tree *t, uint64_t ino, const struct vf_sink *sink);
/* The target of a symbolic link (NM_MAX + 1 bytes). */
int tr_readlink(struct tree *t, uint64_t ino, char *out);
/* Extended attributes: value of name into out, or the list of names. */
int tr_getxattr(struct tree *t, uint64_t ino, const char *name, struct sbuf *out);
int tr_listxattr(struct tree *t, uint64_t ino, struct sbuf *out);

/* True once per message file and once per record file: the first caller
 * may hand its content to the kernel's page cache (it never changes). */
int tr_claim_push(struct tree *t, uint64_t ino);
/* The kernel's page cache holds ino's content now: the tree lets go of
 * its rendered copy (rendered again if the kernel drops it and reads). */
void tr_pushed(struct tree *t, uint64_t ino);

/* The mount's own device: looking for subagent logs never walks into it
 * (a mount at <log folder>/<log stem> would otherwise ask itself). */
void tr_own_device(struct tree *t, dev_t dev);

#endif

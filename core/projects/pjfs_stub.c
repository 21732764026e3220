/*
 * pjfs_stub: the folder of a session that cannot be opened now (its log
 * unreadable since the scan that listed it, or deleted with the projects
 * folder): instead of ENOENT under a name its project still lists, it
 * holds README.md and errors.txt, which say why and what the folder's
 * last scan found. Part of the pjfs module (pjfs_priv.h); rendered on
 * each call (a few hundred bytes), from the set and the slot's error.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "jscan.h"
#include "pjfs_priv.h"
#include "plat.h"

static const struct {
	const char *name;
	uint64_t inner;
} stub_files[PF_STUB_N] = { { "README.md", TI_README }, { "errors.txt", TI_ERRORS } };

int pf_stub_index(uint64_t inner)
{
	int i;

	for (i = 0; i < PF_STUB_N; i++)
		if (stub_files[i].inner == inner)
			return i;
	return -1;
}

int pf_stub_lookup(const char *name)
{
	int i;

	for (i = 0; i < PF_STUB_N; i++)
		if (!strcmp(stub_files[i].name, name))
			return i;
	return -1;
}

const char *pf_stub_name(int i)
{
	return stub_files[i].name;
}

uint64_t pf_stub_inner(int i)
{
	return stub_files[i].inner;
}

static void fact(struct sbuf *out, const char *what, const char *v)
{
	if (!v)
		return;
	sb_addf(out, "- %s: ", what);
	sb_add_lines(out, v);
	sb_addc(out, '\n');
}

static void time_fact(struct sbuf *out, const char *what, int64_t ms)
{
	char ts[32];

	if (ms == LH_NO_TS)
		return;
	js_time_fmt(ms, ts);
	sb_addf(out, "- %s: %s\n", what, ts);
}

static void readme(const struct pj_set *s, const struct pj_session *x, int rc, int gone,
		   struct sbuf *out)
{
	sb_adds(out, "# A Claude Code session, mounted by sessfs\n\nLog: ");
	sb_add_lines(out, s->root);
	sb_addc(out, '/');
	sb_add_lines(out, x->path);
	sb_addf(out, "\n\nThe log cannot be opened now (%s), so its tree (branches/,\n"
		     "context/, state/, records/ ...) cannot be shown: this folder holds\n"
		     "only this README.md and errors.txt, until the log can be opened again.\n",
		strerror(-rc));
	if (gone)
		sb_adds(out, "The projects folder was deleted: the session is listed as its last\n"
			     "scan found it.\n");
	sb_adds(out, "\n## This session, as the folder's last scan found it\n\n");
	fact(out, "session id", x->f.sid);
	fact(out, "title", x->f.title);
	fact(out, "cwd", x->f.cwd);
	fact(out, "git branch", x->f.branch);
	fact(out, "version", x->f.version);
	time_fact(out, "first record", x->f.first_ms);
	time_fact(out, "last record", x->f.last_ms);
	sb_addf(out, "- messages: %u%s\n- bytes: %llu\n", x->f.rows,
		x->f.exact ? "" : " (an estimate)", (unsigned long long)x->f.bytes);
}

/* The text of stub file i (0 README.md, 1 errors.txt) into out. */
static void render(struct pjfs *pf, const struct pset *p, const struct pj_session *x, int rc,
		   int i, struct sbuf *out)
{
	int gone;

	pthread_mutex_lock(&pf->mu);
	gone = pf->root_gone;
	pthread_mutex_unlock(&pf->mu);
	if (i == 0) {
		readme(p->s, x, rc, gone, out);
		return;
	}
	sb_addf(out, "note: the log cannot be opened now (%s)%s; this folder shows only "
		     "README.md and errors.txt\n", strerror(-rc),
		gone ? ": the projects folder was deleted" : "");
}

int pf_stub_attr(struct pjfs *pf, const struct pset *p, const struct pj_session *x, int rc,
		 int i, struct vf_attr *a)
{
	struct sbuf sb;

	sb_init(&sb);
	render(pf, p, x, rc, i, &sb);
	memset(a, 0, sizeof(*a));
	a->st.st_ino = PF_OUTER(x->key, stub_files[i].inner);
	a->st.st_mode = S_IFREG | TR_FILE_PERM(x->mode);
	a->st.st_uid = x->uid;
	a->st.st_gid = x->gid;
	a->st.st_nlink = 1;
	a->st.st_size = (off_t)sb.len;
	a->st.st_blocks = (blkcnt_t)((sb.len + 511) / 512);
	a->st.st_blksize = 4096;
	PL_MTIM(a->st) = PL_CTIM(a->st) = PL_ATIM(a->st) = x->mtime;
	sb_free(&sb);
	return 0;
}

int pf_stub_content(struct pjfs *pf, const struct pset *p, const struct pj_session *x, int rc,
		    int i, struct blob **out)
{
	struct sbuf sb;

	sb_init(&sb);
	render(pf, p, x, rc, i, &sb);
	*out = blob_take(&sb);
	sb_free(&sb);
	return *out ? 0 : -ENOMEM;
}

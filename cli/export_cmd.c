/*
 * cli_export: the command `sessfs export [options] SRC DEST|-` (cli.h):
 * its options, its source opened as the mount opens it (a session log, or
 * a projects folder), and export.h's walk of it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "export.h"
#include "pjfs.h"
#include "session.h"
#include "tree.h"
#include "vfs.h"

static const char ex_usage[] =
	"usage: sessfs export [options] SRC DEST\n"
	"       sessfs export [options] SRC -\n";

static void usage(FILE *f)
{
	fprintf(f, "%s"
		"\n"
		"Writes the tree a mount of SRC (a session log, or a projects folder)\n"
		"shows into the folder DEST (made if missing), or as a tar stream on\n"
		"stdout (DEST -). No FUSE needed.\n"
		"\n"
		"options:\n"
		"    --force          write into a DEST that is not empty (what is in\n"
		"                     the way of an entry is replaced, the rest is left)\n"
		"    -q, --quiet      no progress on the terminal\n"
		"    -o file_history=DIR\n"
		"                     a log's file-history folder, as for the mount\n"
		"    -o cache_size=N[K|M|G]\n"
		"                     a folder's memory for sessions kept open, as for\n"
		"                     the mount\n"
		"    -h, --help       this text\n", ex_usage);
}

struct ex_args {
	struct ex_opts o;
	const char *file_history, *cache_size;
	const char *src, *dest;
};

/* 0, 1 for --help, -1 for bad usage (said in one line on stderr first,
 * naming what is wrong). */
static int parse(int argc, char **argv, struct ex_args *a)
{
	int i, npos = 0;

	memset(a, 0, sizeof(*a));
	a->o.progress = 1;
	for (i = 1; i < argc; i++) {
		const char *s = argv[i];

		if (!strcmp(s, "-h") || !strcmp(s, "--help"))
			return 1;
		if (!strcmp(s, "--force"))
			a->o.force = 1;
		else if (!strcmp(s, "-q") || !strcmp(s, "--quiet"))
			a->o.progress = 0;
		else if (!strcmp(s, "-o") && i + 1 < argc &&
			 !strncmp(argv[i + 1], "file_history=", 13) && argv[i + 1][13])
			a->file_history = argv[++i] + 13;
		else if (!strcmp(s, "-o") && i + 1 < argc &&
			 !strncmp(argv[i + 1], "cache_size=", 11) && argv[i + 1][11])
			a->cache_size = argv[++i] + 11;
		else if (!strcmp(s, "-o") && i + 1 < argc) {
			fprintf(stderr, "sessfs export: unknown option: -o %s\n", argv[i + 1]);
			return -1;
		} else if (s[0] == '-' && s[1]) {	/* "-" alone is a DEST */
			fprintf(stderr, "sessfs export: unknown option: %s\n", s);
			return -1;
		} else if (npos++ == 0) {
			a->src = s;
		} else if (npos == 2) {
			a->dest = s;
		} else {
			fprintf(stderr, "sessfs export: %s: one argument too many\n", s);
			return -1;
		}
	}
	if (npos < 2)
		fprintf(stderr, "sessfs export: %s\n",
			npos ? "no DEST (a folder, or - for a tar stream)" : "no SRC and no DEST");
	return npos == 2 ? 0 : -1;
}

/* The layer of a session log: 0 and v, or 1 (said on stderr). */
static int open_log(const struct ex_args *a, struct vfs *v)
{
	struct session *s;
	struct tree *t;
	int rc = ss_open(a->src, SS_LIVE, &s);	/* as the mount opens it */

	if (rc) {
		fprintf(stderr, "sessfs: %s: %s\n", a->src, ss_open_error(rc));
		return 1;
	}
	if (a->file_history && ss_set_file_history(s, a->file_history)) {
		ss_close(s);
		s = NULL;
	}
	t = s ? tr_new(s) : NULL;
	if (!t) {
		fprintf(stderr, "sessfs: out of memory\n");
		return 1;
	}
	*v = (struct vfs){ &tr_vfs_ops, t };
	return 0;
}

/* The layer of a projects folder: 0 and v, or 1 (said on stderr). */
static int open_folder(const struct ex_args *a, struct vfs *v)
{
	uint64_t cache = PF_CACHE_DEFAULT;
	struct pjfs *pf;
	int rc;

	if (a->cache_size && !(cache = cli_size(a->cache_size))) {
		fprintf(stderr, "sessfs: cache_size=%s: not a size (like 512M)\n", a->cache_size);
		return 1;
	}
	rc = pf_new(a->src, cache, &pf);
	if (rc) {
		fprintf(stderr, "sessfs: %s: %s\n", a->src, pf_error(rc));
		return 1;
	}
	*v = (struct vfs){ &pf_vfs_ops, pf };
	return 0;
}

int cli_export(int argc, char **argv)
{
	struct ex_args a;
	struct ex_stats st;
	struct vfs v;
	int rc = parse(argc, argv, &a), folder;

	if (rc > 0) {
		usage(stdout);
		return 0;
	}
	if (rc) {	/* what is wrong was said: the usage, short */
		fprintf(stderr, "%s(sessfs export --help lists the options)\n", ex_usage);
		return 2;
	}
	if (!strcmp(a.dest, "-") && isatty(STDOUT_FILENO)) {
		fprintf(stderr, "sessfs: export: refusing to write a tar stream to a terminal\n");
		return 2;
	}
	a.o.progress = a.o.progress && isatty(STDERR_FILENO);
	folder = cli_is_folder(a.src);
	if (folder ? open_folder(&a, &v) : open_log(&a, &v))
		return 1;
	rc = ex_vfs(&v, VF_ROOT, a.dest, &a.o, &st);
	if (folder)
		pf_free(v.fs);
	else
		tr_free(v.fs);
	if (rc == -ENOTEMPTY)
		fprintf(stderr, "sessfs: export: %s: not empty (--force writes into it)\n", a.dest);
	else if (rc)
		fprintf(stderr, "sessfs: export: %s: %s\n", a.dest, strerror(-rc));
	if (!rc && st.no_xattrs)
		fprintf(stderr, "sessfs: export: %s keeps no extended attributes: "
			"exported without them\n", a.dest);
	return rc || st.errors ? 1 : 0;
}

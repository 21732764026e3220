/*
 * sessfs: mount a Claude Code session log as a read-only directory tree.
 *
 *   sessfs LOG MOUNTPOINT [FUSE options]
 *   sessfs --check LOG
 *
 * The log is indexed before the mount, so a file that is not a log is
 * refused on the terminal, not in the background. Then the usual FUSE
 * life: daemonise unless -f, serve until unmounted (fusermount3 -u) or
 * sent SIGINT/SIGTERM/SIGHUP, and unmount cleanly.
 */
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../core/export.h"
#include "../core/session.h"
#include "../core/tree.h"
#include "notify.h"
#include "ops.h"

#define SESSFS_VERSION "0.1.0"
#define DEFAULT_OPTS "-oro,default_permissions,fsname=sessfs,subtype=sessfs"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: sessfs LOG MOUNTPOINT [options]\n"
		"       sessfs --check LOG\n"
		"       sessfs export [--force] [-q] LOG DEST|-   (sessfs export --help)\n"
		"\n"
		"Mounts the Claude Code session log LOG read-only at MOUNTPOINT.\n"
		"Unmount with: fusermount3 -u MOUNTPOINT\n"
		"--check prints the session's facts as JSON and exits.\n"
		"\n"
		"options:\n"
		"    -h, --help       this text\n"
		"    -V, --version    print versions\n"
		"    -f               stay in the foreground\n"
		"    -d               debug output (implies -f)\n"
		"    -s               single-threaded\n"
		"    -o OPT[,OPT...]  mount options (e.g. allow_other)\n"
		"    -o file_history=DIR\n"
		"                     the folder of the session's file-history backups\n"
		"                     for state/file-history/ (default: LOG's folder\n"
		"                     /../../file-history/<sessionId>, as Claude Code\n"
		"                     lays it out; a DIR holding <sessionId>/ is fine too)\n");
}

/* One line on stderr naming the path and the reason. */
static void say_open_error(const char *path, int rc)
{
	fprintf(stderr, "sessfs: %s: %s\n", path, ss_open_error(rc));
}

static int check(const char *path)
{
	struct session *s;
	struct sbuf out;
	int rc = ss_open(path, SS_COMPLETE, &s);

	if (rc) {
		say_open_error(path, rc);
		return 1;
	}
	sb_init(&out);
	ss_facts_json(s, &out);
	fwrite(out.buf, 1, out.len, stdout);
	sb_free(&out);
	ss_close(s);
	return 0;
}

/*
 * Takes the log path (the first argument that is neither an option nor an
 * option's value) out of argv; the rest goes to libfuse.
 */
static const char *take_log(struct fuse_args *args)
{
	int i;

	for (i = 1; i < args->argc; i++) {
		const char *a = args->argv[i];

		if (!strcmp(a, "-o")) {
			i++;
			continue;
		}
		if (a[0] == '-')
			continue;
		memmove(&args->argv[i], &args->argv[i + 1],
			(size_t)(args->argc - i) * sizeof(char *));
		args->argc--;
		return a;
	}
	return NULL;
}

/* The mountpoint: the first argument left that is not an option. */
static const char *find_mountpoint(const struct fuse_args *args)
{
	int i;

	for (i = 1; i < args->argc; i++) {
		if (!strcmp(args->argv[i], "-o")) {
			i++;
			continue;
		}
		if (args->argv[i][0] != '-')
			return args->argv[i];
	}
	return NULL;
}

static int check_mountpoint(const char *mnt)
{
	struct stat st;

	if (stat(mnt, &st) < 0) {
		fprintf(stderr, "sessfs: %s: mountpoint %s\n", mnt,
			errno == ENOENT ? "does not exist" : strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(stderr, "sessfs: %s: mountpoint is not a directory\n", mnt);
		return -1;
	}
	return 0;
}

/* sessfs's own -o options; libfuse gets the rest. */
struct sessfs_conf {
	char *file_history;
};

static const struct fuse_opt sessfs_opts[] = {
	{ "file_history=%s", offsetof(struct sessfs_conf, file_history), 0 },
	FUSE_OPT_END
};

static int serve(struct tree *t, struct fuse_args *args,
		 const struct fuse_cmdline_opts *opts)
{
	struct fuse_session *se;
	struct fuse_loop_config *cfg;
	struct notifier *nt;
	char *mnt = realpath(opts->mountpoint, NULL);	/* before any chdir */
	int rc = 1;

	se = fuse_session_new(args, &sessfs_ops, sizeof(sessfs_ops), t);
	if (!se) {
		free(mnt);
		return 1;
	}
	/* libfuse only takes signals left at their default; a job started in
	 * the background of a script has SIGINT ignored. Ctrl-C, kill and a
	 * hang-up should always unmount cleanly. */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	if (fuse_set_signal_handlers(se))
		goto out_session;
	if (fuse_session_mount(se, opts->mountpoint))
		goto out_signals;
	ops_set_session(se);
	fuse_daemonize(opts->foreground);
	nt = nt_start(se, t, mnt);
	if (opts->singlethread) {
		rc = fuse_session_loop(se);
	} else {
		cfg = fuse_loop_cfg_create();
		fuse_loop_cfg_set_clone_fd(cfg, (unsigned)opts->clone_fd);
		fuse_loop_cfg_set_max_threads(cfg, opts->max_threads);
		rc = fuse_session_loop_mt(se, cfg);
		fuse_loop_cfg_destroy(cfg);
	}
	/* A signal ends the loop with its number: that is a clean exit. */
	rc = rc < 0 ? 1 : 0;
	/* Unmounted first: a look at agents/ that led into this mount ends
	 * (ENOTCONN) instead of waiting for a loop that is over. */
	fuse_session_unmount(se);
	nt_stop(nt);
out_signals:
	fuse_remove_signal_handlers(se);
out_session:
	fuse_session_destroy(se);
	free(mnt);
	return rc;
}

static int mount_log(int argc, char **argv)
{
	struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
	struct fuse_cmdline_opts opts;
	struct sessfs_conf conf = { NULL };
	struct session *s;
	struct tree *t;
	const char *log = take_log(&args), *mnt = find_mountpoint(&args);
	int rc = 2;

	memset(&opts, 0, sizeof(opts));
	/* Said before libfuse's own check, which would print usage too. */
	if (log && mnt && check_mountpoint(mnt)) {
		rc = 1;
		goto out_args;
	}
	if (fuse_opt_parse(&args, &conf, sessfs_opts, NULL) != 0 ||
	    fuse_parse_cmdline(&args, &opts) != 0) {
		usage(stderr);
		goto out_args;
	}
	if (opts.show_help) {
		usage(stdout);
		fuse_cmdline_help();
		fuse_lowlevel_help();
		rc = 0;
		goto out;
	}
	if (opts.show_version) {
		printf("sessfs %s\nFUSE library version %s\n", SESSFS_VERSION,
		       fuse_pkgversion());
		fuse_lowlevel_version();
		rc = 0;
		goto out;
	}
	if (!log || !opts.mountpoint) {
		usage(stderr);
		goto out;
	}
	if ((rc = ss_open(log, SS_LIVE, &s))) {
		say_open_error(log, rc);
		rc = 1;
		goto out;
	}
	if (conf.file_history && ss_set_file_history(s, conf.file_history)) {
		fprintf(stderr, "sessfs: out of memory\n");
		ss_close(s);
		rc = 1;
		goto out;
	}
	t = tr_new(s);
	if (!t || fuse_opt_add_arg(&args, DEFAULT_OPTS)) {
		fprintf(stderr, "sessfs: out of memory\n");
		tr_free(t);
		rc = 1;
		goto out;
	}
	rc = serve(t, &args, &opts);
	tr_free(t);
out:
	free(opts.mountpoint);
out_args:
	free(conf.file_history);
	fuse_opt_free_args(&args);
	return rc;
}

int main(int argc, char **argv)
{
	/* Arrays of a few hundred KB to a few MB (the index, the graph, read
	 * buffers) come and go as a log is indexed and built. From mmap each
	 * is fresh memory, a page fault per 4 KB touched (on some VMs ~13 us
	 * each); from the heap, what was freed is used again. The heap keeps
	 * what it has: ~8% faster to the first listing, a few MB more RSS
	 * (30 MB for a 1 GB log). */
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
	if (argc >= 2 && !strcmp(argv[1], "export"))
		return ex_main(argc - 1, argv + 1);	/* no FUSE at all */
	if (argc == 3 && !strcmp(argv[1], "--check"))
		return check(argv[2]);
	if (argc >= 2 && !strcmp(argv[1], "--check")) {
		usage(stderr);
		return 2;
	}
	return mount_log(argc, argv);
}

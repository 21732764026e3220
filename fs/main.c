/*
 * sessfs: mount a Claude Code session log as a read-only directory tree.
 *
 *   sessfs LOG|DIR MOUNTPOINT [FUSE options]
 *   sessfs MOUNTPOINT           ($CLAUDE_CONFIG_DIR or ~/.claude)/projects
 *   sessfs --check LOG|DIR
 *
 * The log is indexed before the mount, so a file that is not a log is
 * refused on the terminal, not in the background. Then the usual FUSE
 * life: daemonise unless -f, serve until unmounted (fusermount3 -u) or
 * sent SIGINT/SIGTERM/SIGHUP, and unmount cleanly.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/prctl.h>
#endif

#include "cli.h"
#include "session.h"
#include "tree.h"
#include "notify.h"
#include "pjfs.h"
#include "plat.h"
#include "price.h"
#include "ops.h"
#include "vfs.h"
#include "args.h"
#include "mlock.h"
#include "loop.h"

#define SESSFS_VERSION "0.1.0"
#define DEFAULT_OPTS "-oro,default_permissions"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: sessfs LOG MOUNTPOINT [options]\n"
		"       sessfs DIR MOUNTPOINT [options]\n"
		"       sessfs MOUNTPOINT [options]\n"
		"       sessfs --check LOG|DIR\n"
		"       sessfs export [--force] [-q] LOG DEST|-   (sessfs export --help)\n"
		"\n"
		"Mounts the Claude Code session log LOG read-only at MOUNTPOINT, or a\n"
		"projects folder DIR (~/.claude/projects, or a ~/.claude holding\n"
		"projects/); alone, MOUNTPOINT gets $CLAUDE_CONFIG_DIR/projects, else\n"
		"~/.claude/projects.\n"
		"Unmount with: fusermount3 -u MOUNTPOINT\n"
		"--check prints the session's (or the folder's) facts as JSON and exits.\n");
}
/* Each option once: sessfs's own, then those of libfuse that apply. */
static void help(void)
{
	usage(stdout);
	printf("\n"
	       "options:\n"
	       "    -h, --help             this text\n"
	       "    -V, --version          sessfs's version, then libfuse's\n"
	       "    -f                     stay in the foreground\n"
	       "    -d, -o debug           debug output (implies -f)\n"
	       "    -s                     single-threaded\n"
	       "    -o cache_size=N[K|M|G] DIR: the memory the sessions kept open may\n"
	       "                           take (default 512M); the least recently\n"
	       "                           used is closed\n"
	       "    -o prices=FILE         price tokens with this table (data/prices.txt's\n"
	       "                           format) instead of the one built in\n"
	       "    -o tz=ZONE             usage.json's days and months in this time\n"
	       "                           zone (like Europe/Paris; default: TZ, else\n"
	       "                           the system's)\n"
	       "    -o spin=US             after a reply, a thread looks for the next\n"
	       "                           request this many microseconds before it\n"
	       "                           sleeps (default 20; 0 with one CPU)\n"
	       "    -o file_history=DIR    the folder of the session's file-history\n"
	       "                           backups for state/file-history/ (default:\n"
	       "                           LOG's folder/../../file-history/<sessionId>;\n"
	       "                           a DIR holding <sessionId>/ is fine too)\n"
	       "    -o allow_other         let other users in (non-root: needs\n"
	       "                           user_allow_other in /etc/fuse.conf)\n"
	       "    -o allow_root          let root in\n"
	       "    -o auto_unmount        unmount when sessfs ends, even if killed\n"
	       "    -o fsname=NAME         the source findmnt and df show (default: LOG)\n"
	       "    -o subtype=NAME        the type shown as fuse.NAME (default: sessfs)\n"
	       "    -o max_threads=N       at most N threads serve requests (default: 10)\n"
	       "    -o max_idle_threads=N  with clone_fd: at most N of them idle\n"
	       "    -o clone_fd            a /dev/fuse descriptor per thread (libfuse's\n"
	       "                           own loop, no spin)\n"
	       "The mount is always read-only (ro) and checks permissions\n"
	       "(default_permissions): each file and folder has its log's owner,\n"
	       "group and read bits, nothing more. See sessfs(1).\n");
}


/* One line on stderr naming the path and the reason. */
static void say_open_error(const char *path, int rc)
{
	fprintf(stderr, "sessfs: %s: %s\n", path, ss_open_error(rc));
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

static void say_dead(const char *mnt)
{
	fprintf(stderr, "sessfs: %s: a dead mount is there (its daemon ended); "
		"unmount it first: fusermount3 -u %s\n", mnt, mnt);
}

static int check_mountpoint(const char *mnt)
{
	struct stat st;

	if (stat(mnt, &st) < 0 && errno == ENOTCONN) {
		say_dead(mnt);
		return -1;
	}
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

/*
 * A mount already at mnt (pl_mounted: Linux-only): a second one would
 * stack on it and take two unmounts to clear. A dead one (its daemon
 * gone) fails statfs() with ENOTCONN. 0 when there is none.
 */
static int check_not_mounted(const char *mnt)
{
	char *real = realpath(mnt, NULL), type[64];
	int found = real && pl_mounted(real, "fuse", type, sizeof(type));

	if (found && pl_mount_dead(mnt))
		say_dead(mnt);
	else if (found)
		fprintf(stderr, "sessfs: %s: already mounted (%s); unmount it first: "
			"fusermount3 -u %s\n", mnt, type, mnt);
	free(real);
	return found ? -1 : 0;
}

/* sessfs's own -o options; libfuse gets the rest (fsname and subtype
 * too: they are only noted, to keep the user's). */
struct sessfs_conf {
	char *file_history;
	char *cache_size;
	char *prices;
	char *tz;
	char *spin;
	int fsname;
	int subtype;
};

enum { KEY_FSNAME, KEY_SUBTYPE };

static const struct fuse_opt sessfs_opts[] = {
	{ "file_history=%s", offsetof(struct sessfs_conf, file_history), 0 },
	{ "cache_size=%s", offsetof(struct sessfs_conf, cache_size), 0 },
	{ "prices=%s", offsetof(struct sessfs_conf, prices), 0 },
	{ "tz=%s", offsetof(struct sessfs_conf, tz), 0 },
	{ "spin=%s", offsetof(struct sessfs_conf, spin), 0 },
	FUSE_OPT_KEY("fsname=", KEY_FSNAME),
	FUSE_OPT_KEY("subtype=", KEY_SUBTYPE),
	FUSE_OPT_END
};

static int note_opt(void *data, const char *arg, int key, struct fuse_args *out)
{
	struct sessfs_conf *conf = data;

	(void)arg;
	(void)out;
	if (key == KEY_FSNAME)
		conf->fsname = 1;
	else if (key == KEY_SUBTYPE)
		conf->subtype = 1;
	return 1;		/* keep it for libfuse */
}

/* -ofsname=LOG (its absolute path, ',' and '\\' escaped for libfuse's
 * option parser) and -osubtype=sessfs, unless the user gave them. */
static int add_names(struct fuse_args *args, const struct sessfs_conf *conf,
		     const char *log)
{
	char *abs = realpath(log, NULL), *opt;
	const char *p = abs ? abs : log;
	size_t n = 0;
	int rc = 0;

	opt = malloc(strlen(p) * 2 + sizeof("-ofsname="));
	if (!opt) {
		free(abs);
		return -1;
	}
	n = (size_t)sprintf(opt, "-ofsname=");
	for (; *p; p++) {
		if (*p == ',' || *p == '\\')
			opt[n++] = '\\';
		opt[n++] = *p;
	}
	opt[n] = '\0';
	if (!conf->fsname)
		rc = fuse_opt_add_arg(args, opt);
	if (!rc && !conf->subtype)
		rc = fuse_opt_add_arg(args, "-osubtype=sessfs");
	free(opt);
	free(abs);
	return rc;
}

/* Options libfuse would refuse, refused now, before any indexing: a
 * session made and dropped (it parses them, mounts nothing). */
static int options_ok(const struct fuse_args *args)
{
	struct fuse_args copy = FUSE_ARGS_INIT(0, NULL);
	struct fuse_lowlevel_ops none;
	struct fuse_session *se;
	int i;

	memset(&none, 0, sizeof(none));
	for (i = 0; i < args->argc; i++)
		if (fuse_opt_add_arg(&copy, args->argv[i])) {
			fuse_opt_free_args(&copy);
			return 0;
		}
	se = fuse_session_new(&copy, &none, sizeof(none), NULL);
	if (se)
		fuse_session_destroy(se);
	fuse_opt_free_args(&copy);
	return se != NULL;
}

/* The file-history folder the user named must be a folder. */
static int check_file_history(const char *dir)
{
	struct stat st;

	if (stat(dir, &st) < 0) {
		fprintf(stderr, "sessfs: %s: file_history folder: %s\n", dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(stderr, "sessfs: %s: file_history is not a folder\n", dir);
		return -1;
	}
	return 0;
}

/*
 * -o tz=ZONE: the time zone usage.json's days and months are in, as TZ
 * (the process's, for localtime_r()). A name is looked for under $TZDIR
 * (/usr/share/zoneinfo), since the C library takes an unknown one for
 * UTC without a word; a POSIX rule (it has a digit: "CET-1CEST") and
 * "UTC" stand as they are. 0, or 2 after a line on stderr.
 */
static int set_time_zone(const char *tz)
{
	const char *dir = getenv("TZDIR"), *name = tz[0] == ':' ? tz + 1 : tz;
	char path[PATH_MAX];
	struct stat st;

	if (!*name || strstr(name, "..") || (name[0] == '/' && stat(name, &st) < 0) ||
	    (name[0] != '/' && !strpbrk(name, "0123456789") && strcmp(name, "UTC") &&
	     (snprintf(path, sizeof(path), "%s/%s", dir && *dir ? dir : "/usr/share/zoneinfo",
		       name) >= (int)sizeof(path) || stat(path, &st) < 0 || !S_ISREG(st.st_mode)))) {
		fprintf(stderr, "sessfs: tz=%s: no such time zone (a name under %s, like "
			"Europe/Paris, or UTC)\n", tz, dir && *dir ? dir : "/usr/share/zoneinfo");
		return 2;
	}
	if (setenv("TZ", tz, 1)) {
		fprintf(stderr, "sessfs: out of memory\n");
		return 1;
	}
	tzset();
	return 0;
}

/* -o prices=FILE: the price table in *t (free with pr_free()) and made
 * the default (price.h). 0, or 1 after a line on stderr. */
static int use_prices(const char *file, struct pr_table **t)
{
	char *real = realpath(file, NULL);
	struct sbuf err;
	int rc;

	sb_init(&err);
	rc = pr_load(real ? real : file, t, &err);
	if (rc)
		fprintf(stderr, "sessfs: prices=%s: %s\n", file, err.buf);
	else
		pr_set_default(*t);
	sb_free(&err);
	free(real);
	return rc ? 1 : 0;
}

/* $CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects (a new string). */
static char *default_projects(void)
{
	const char *cfg = getenv("CLAUDE_CONFIG_DIR"), *home = getenv("HOME");
	char *p = NULL;

	if (cfg && *cfg)
		return asprintf(&p, "%s/projects", cfg) < 0 ? NULL : p;
	return asprintf(&p, "%s/.claude/projects", home ? home : "") < 0 ? NULL : p;
}

/* What LOG names: a projects folder (*t stays NULL) or a session log. 0,
 * or an exit code after a line on stderr. */
static int open_layer(const char *log, const struct sessfs_conf *conf, struct vfs *v,
		      struct tree **t)
{
	struct session *s;
	struct pjfs *pf;
	uint64_t cache = PF_CACHE_DEFAULT;
	int rc;

	if (cli_is_folder(log)) {
		if (conf->cache_size && !(cache = cli_size(conf->cache_size))) {
			fprintf(stderr, "sessfs: cache_size=%s: not a size (like 512M)\n",
				conf->cache_size);
			return 2;
		}
		if ((rc = pf_new(log, cache, &pf))) {
			fprintf(stderr, "sessfs: %s: %s\n", log, pf_error(rc));
			return 1;
		}
		v->ops = &pf_vfs_ops;
		v->fs = pf;
		return 0;
	}
	if ((rc = ss_open(log, SS_LIVE, &s))) {
		say_open_error(log, rc);
		return 1;
	}
	if (conf->file_history && ss_set_file_history(s, conf->file_history)) {
		ss_close(s);
		s = NULL;
	}
	if (!s || !(*t = tr_new(s))) {
		fprintf(stderr, "sessfs: out of memory\n");
		return 1;
	}
	v->ops = &tr_vfs_ops;
	v->fs = *t;
	return 0;
}

/* With SESSFS_STATS set (as for ops.c's request counts): how often a
 * session of the folder was opened (indexed), and what is open at the end. */
static void print_cache_stats(struct pjfs *pf)
{
	uint64_t bytes, opened;
	uint32_t open;

	if (!getenv("SESSFS_STATS"))
		return;
	pf_cache_stats(pf, &open, &bytes, &opened);
	fprintf(stderr, "sessfs: sessions opened=%llu open=%u cached=%llu\n",
		(unsigned long long)opened, open, (unsigned long long)bytes);
}

/* -o spin=US: how long a request thread looks for the next request
 * before it sleeps (loop.h), at most a second. 0, or 1 after a line. */
static int parse_spin(const char *arg, unsigned *us)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (!*arg || *end || errno || v > 1000000 || *arg == '-') {
		fprintf(stderr, "sessfs: spin=%s: not a number of microseconds from 0 "
			"to 1000000\n", arg);
		return 1;
	}
	*us = (unsigned)v;
	return 0;
}

/* Serves v until unmounted; a thread of its own tells the kernel what v
 * changed (notify.h). The mountpoint's lock (mlock.h) is let go once the
 * mount is up or has failed: *lock is -1 then. */
static int serve(struct vfs *v, struct fuse_args *args,
		 const struct fuse_cmdline_opts *opts, unsigned spin_us, int *lock)
{
	struct fuse_session *se;
	struct fuse_loop_config *cfg;
	struct lp_config lc;
	struct notifier *nt = NULL;
	sigset_t all, old;
	char *mnt = realpath(opts->mountpoint, NULL);	/* before any chdir */
	int rc = 1, mounted;

	se = fuse_session_new(args, &sessfs_ops, sizeof(sessfs_ops), v);
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
	mounted = !fuse_session_mount(se, opts->mountpoint);
	ml_release(*lock);
	*lock = -1;
	if (!mounted)
		goto out_signals;
	ops_set_session(se);
	fuse_daemonize(opts->foreground);
	/* Its thread leaves the signals to this one, as the loop's do. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	nt = nt_start(se, v, mnt);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (opts->clone_fd && !opts->singlethread) {
		/* a descriptor per thread: libfuse's own loop */
		cfg = fuse_loop_cfg_create();
		fuse_loop_cfg_set_clone_fd(cfg, (unsigned)opts->clone_fd);
		fuse_loop_cfg_set_max_threads(cfg, opts->max_threads);
		rc = fuse_session_loop_mt(se, cfg);
		fuse_loop_cfg_destroy(cfg);
	} else {
		lc.max_threads = opts->singlethread ? 1 : opts->max_threads;
		lc.spin_us = spin_us;
		rc = lp_run(se, &lc);
	}
	/* A signal ends the loop with its number: that is a clean exit. */
	rc = rc < 0 ? 1 : 0;
	/* The loop resets the session as it ends; marked over again, a
	 * notice the notifier sends from now on fails quietly (libfuse
	 * prints "writing device" only for a session that has not exited). */
	fuse_session_exit(se);
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
	struct sessfs_conf conf = { NULL, NULL, NULL, NULL, NULL, 0, 0 };
	struct pr_table *prices = NULL;
	struct tree *t = NULL;
	struct vfs v;
	const char *log, *mnt;
	unsigned spin_us = lp_default_spin();
	int rc = 2, lock = -1;

	memset(&opts, 0, sizeof(opts));
	/* Options and arguments in sessfs's own words, not libfuse's (before
	 * take_log(), which moves argv's entries). */
	if (args_check(argc, argv, 2)) {
		usage(stderr);
		goto out_args;
	}
	log = take_log(&args);
	mnt = find_mountpoint(&args);
	/* Said before libfuse's own check, which would print usage too. The
	 * look for a mount there is made again under the mountpoint's lock,
	 * held until this mount is up or has failed: two sessfs started
	 * together never both find it free. */
	if (log && mnt && (check_mountpoint(mnt) || check_not_mounted(mnt) ||
			   (lock = ml_take(mnt), check_not_mounted(mnt)))) {
		rc = 1;
		goto out_args;
	}
	if (fuse_opt_parse(&args, &conf, sessfs_opts, note_opt) != 0 ||
	    fuse_parse_cmdline(&args, &opts) != 0) {
		usage(stderr);
		goto out;	/* the mountpoint may be parsed already */
	}
	if (opts.show_help) {
		help();
		rc = 0;
		goto out;
	}
	if (opts.show_version) {
		/* Line by line: fusermount3, a child, writes its own. */
		setvbuf(stdout, NULL, _IOLBF, 0);
		printf("sessfs %s\nFUSE library version %s\n", SESSFS_VERSION,
		       fuse_pkgversion());
		fuse_lowlevel_version();
		rc = 0;
		goto out;
	}
	if (!log || !opts.mountpoint || !options_ok(&args)) {
		usage(stderr);
		goto out;
	}
	if (conf.file_history && check_file_history(conf.file_history)) {
		rc = 1;
		goto out;
	}
	if (conf.spin && parse_spin(conf.spin, &spin_us)) {
		rc = 1;
		goto out;
	}
	if ((conf.tz && (rc = set_time_zone(conf.tz))) ||
	    (conf.prices && (rc = use_prices(conf.prices, &prices))))
		goto out;
	if ((rc = open_layer(log, &conf, &v, &t)))
		goto out;
	if (fuse_opt_add_arg(&args, DEFAULT_OPTS) || add_names(&args, &conf, log)) {
		fprintf(stderr, "sessfs: out of memory\n");
		rc = 1;
		goto out_layer;
	}
	/* What indexing held for a while (the second half's index, read
	 * buffers, the graph's work arrays) goes back to the system: the
	 * heap keeps what is freed (main()), which at 1 GB was 40 MB. */
	pl_trim_heap();
	rc = serve(&v, &args, &opts, spin_us, &lock);
	if (!t)
		print_cache_stats(v.fs);
out_layer:
	if (t)
		tr_free(t);
	else
		pf_free(v.fs);
out:
	free(opts.mountpoint);
out_args:
	ml_release(lock);
	pr_set_default(NULL);
	pr_free(prices);
	free(conf.file_history);
	free(conf.cache_size);
	free(conf.prices);
	free(conf.tz);
	free(conf.spin);
	fuse_opt_free_args(&args);
	return rc;
}

/* The arguments that are not options: how many, and the first. */
static int plain_args(int argc, char **argv, const char **first)
{
	int i, n = 0;

	*first = NULL;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-o"))
			i++;
		else if (argv[i][0] != '-' && !n++)
			*first = argv[i];
	}
	return n;
}

/* Whether this command mounts a projects folder (named, or the default
 * one: `sessfs MNT`), not one log. */
static int mounts_folder(int argc, char **argv)
{
	const char *first;
	int n = plain_args(argc, argv, &first);

	return n >= 1 && cli_is_folder(first);
}

/* sessfs MNT [options], MNT a folder: mounts the default projects folder
 * there; anything else as it is. */
static int mount_default(int argc, char **argv)
{
	const char *first;
	struct stat st;
	char **av, *dir;
	int n = plain_args(argc, argv, &first), rc;

	if (n != 1 || stat(first, &st) || !S_ISDIR(st.st_mode))
		return mount_log(argc, argv);
	dir = default_projects();
	av = calloc((size_t)argc + 2, sizeof(*av));
	if (!dir || !av) {
		fprintf(stderr, "sessfs: out of memory\n");
		free(dir);
		free(av);
		return 1;
	}
	av[0] = argv[0];
	av[1] = dir;
	memcpy(av + 2, argv + 1, (size_t)(argc - 1) * sizeof(*av));
	rc = mount_log(argc + 1, av);
	free(av);
	free(dir);
	return rc;
}

/*
 * The heap in huge pages where the kernel gives them on request (THP
 * "madvise", the default of many distributions), for a folder mount: it
 * keeps the indexes of the sessions it opened, and every 4 KB of them
 * touched for the first time is a page fault (a tenth of the daemon's
 * time in a grep -r over 2,000 sessions: tests/bench/README.md, "Huge
 * pages for a projects folder"). glibc takes this (glibc.malloc.hugetlb=1)
 * from the environment at start only, so sessfs starts itself again once
 * with it; SESSFS_SMALL_PAGES=1 keeps the small pages. Linux and glibc
 * only.
 */
/*
 * With it, the heap grown 8 MB at a time (glibc's top_pad, 128 KB by
 * default): the kernel backs only whole aligned 2 MB ranges with huge
 * pages, so a heap grown 128 KB at a time is small pages at first, where
 * the scan of the folder puts its names and facts. Only touched memory
 * counts: at most a 2 MB page more.
 */
#define HEAP_PAD (8u << 20)

static void huge_heap(char **argv)
{
#if defined(__linux__) && defined(__GLIBC__)
	const char *was = getenv("GLIBC_TUNABLES");
	char mode[128] = "", *tun;
	FILE *f;

	if (getenv("SESSFS_SMALL_PAGES"))
		return;
	if (was && strstr(was, "glibc.malloc.hugetlb")) {
		/* Started again through /proc/self/exe, the kernel named the
		 * process "exe": its name is argv[0]'s again (ps, pgrep -x). */
		const char *base = strrchr(argv[0], '/');

		prctl(PR_SET_NAME, base ? base + 1 : argv[0], 0, 0, 0);
		return;
	}
	f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	if (!f)
		return;
	if (!fgets(mode, sizeof(mode), f))
		mode[0] = '\0';
	fclose(f);
	if (!strstr(mode, "[madvise]") ||
	    asprintf(&tun, "%s%sglibc.malloc.hugetlb=1:glibc.malloc.top_pad=%u", was ? was : "",
		     was ? ":" : "", HEAP_PAD) < 0)
		return;
	if (!setenv("GLIBC_TUNABLES", tun, 1))
		execv("/proc/self/exe", argv);
	free(tun);		/* not started again: as we are */
	if (was)
		setenv("GLIBC_TUNABLES", was, 1);
	else
		unsetenv("GLIBC_TUNABLES");
#else
	(void)argv;
#endif
}

int main(int argc, char **argv)
{
	/* Arrays of a few hundred KB to a few MB (the index, the graph, read
	 * buffers) come and go as a log is indexed and built. From mmap each
	 * is fresh memory, a page fault per 4 KB touched (on some VMs ~13 us
	 * each); from the heap, what was freed is used again. The heap keeps
	 * what it has: ~8% faster to the first listing, a few MB more RSS
	 * (30 MB for a 1 GB log). */
	pl_tune_heap();
	if (argc >= 2 && !strcmp(argv[1], "export"))
		return cli_export(argc - 1, argv + 1);	/* no FUSE at all */
	/* One arena: with one per thread (up to 8 per core), each rebuild of
	 * the graph lands in the arena of whichever request noticed the
	 * growth, and every arena keeps what it once held: RSS tripled over
	 * six growths. The threads that allocate at once are two (the
	 * renderers); they share one lock. */
	pl_one_arena();
	if (argc == 3 && !strcmp(argv[1], "--check"))
		return cli_check(argv[2]);
	if (argc >= 2 && !strcmp(argv[1], "--check")) {
		usage(stderr);
		return 2;
	}
	if (mounts_folder(argc, argv)) {
		huge_heap(argv);
		pl_pad_heap(HEAP_PAD);	/* when started with hugetlb already */
	}
	return mount_default(argc, argv);
}

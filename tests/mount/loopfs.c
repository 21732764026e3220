/*
 * loopfs: a file system of two files for fs/loop.c's test (test_loop.sh):
 * "fast" answers at once, "slow" takes SLOW_MS to be looked up.
 *
 *   loopfs MOUNTPOINT MAX_THREADS SPIN_US
 *
 * Serves in the foreground until unmounted or sent SIGTERM/SIGINT.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "loop.h"

#define SLOW_MS 1500

static void fill(fuse_ino_t ino, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	st->st_mode = ino == FUSE_ROOT_ID ? S_IFDIR | 0555 : S_IFREG | 0444;
	st->st_nlink = ino == FUSE_ROOT_ID ? 2 : 1;
}

static void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fuse_entry_param e;
	struct timespec slow = { SLOW_MS / 1000, (SLOW_MS % 1000) * 1000000L };

	memset(&e, 0, sizeof(e));
	if (parent != FUSE_ROOT_ID || (strcmp(name, "fast") && strcmp(name, "slow"))) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	if (!strcmp(name, "slow"))
		nanosleep(&slow, NULL);
	e.ino = !strcmp(name, "fast") ? 2 : 3;
	fill(e.ino, &e.attr);
	fuse_reply_entry(req, &e);	/* no timeouts: each stat asks */
}

static void op_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct stat st;

	(void)fi;
	if (ino > 3) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	fill(ino, &st);
	fuse_reply_attr(req, &st, 0);
}

static const struct fuse_lowlevel_ops ops = {
	.lookup = op_lookup,
	.getattr = op_getattr,
};

int main(int argc, char **argv)
{
	char *fargv[] = { argv[0] };
	struct fuse_args args = FUSE_ARGS_INIT(1, fargv);
	struct lp_config cfg;
	struct fuse_session *se;
	int rc = 1;

	if (argc != 4) {
		fprintf(stderr, "usage: loopfs MOUNTPOINT MAX_THREADS SPIN_US\n");
		return 2;
	}
	cfg.max_threads = (unsigned)atoi(argv[2]);
	cfg.spin_us = (unsigned)atoi(argv[3]);
	se = fuse_session_new(&args, &ops, sizeof(ops), NULL);
	fuse_opt_free_args(&args);
	if (!se)
		return 1;
	if (!fuse_set_signal_handlers(se)) {
		if (!fuse_session_mount(se, argv[1])) {
			rc = lp_run(se, &cfg) ? 1 : 0;
			fuse_session_unmount(se);
		}
		fuse_remove_signal_handlers(se);
	}
	fuse_session_destroy(se);
	return rc;
}

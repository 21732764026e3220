/*
 * sessfs: mount a Claude Code session log as a read-only directory tree.
 *
 *   sessfs LOG MOUNTPOINT [FUSE options]
 *   sessfs --check LOG
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/session.h"

#define SESSFS_VERSION "0.1.0"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: sessfs LOG MOUNTPOINT [options]\n"
		"       sessfs --check LOG\n"
		"\n"
		"Mounts the Claude Code session log LOG read-only at MOUNTPOINT.\n"
		"--check prints the session's facts as JSON and exits.\n");
}

/* One line on stderr naming the path and the reason. */
static void say_open_error(const char *path, int rc)
{
	switch (rc) {
	case -EISDIR:
		fprintf(stderr, "sessfs: %s: is a directory, not a session log\n", path);
		break;
	case -EINVAL:
		fprintf(stderr, "sessfs: %s: not a regular file, not a session log\n", path);
		break;
	case -ENOMSG:
		fprintf(stderr, "sessfs: %s: not a Claude Code session log (no session record in it)\n",
			path);
		break;
	default:
		fprintf(stderr, "sessfs: %s: %s\n", path, strerror(-rc));
	}
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

int main(int argc, char **argv)
{
	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "--version")) {
		printf("sessfs %s\n", SESSFS_VERSION);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "--check"))
		return check(argv[2]);
	usage(stderr);
	return 2;
}

/*
 * sessfs-nofuse: sessfs built without FUSE (make NOFUSE=1, or the
 * sessfs-nofuse target of every build), for machines where libfuse is
 * missing (macOS without macFUSE, containers): the front ends that need
 * no mount, `sessfs export` and `sessfs --check`, linked with core and
 * cli/ only.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "export"))
		return cli_export(argc - 1, argv + 1);
	if (argc == 3 && !strcmp(argv[1], "--check"))
		return cli_check(argv[2]);
	fprintf(stderr, "usage: %s export [options] SRC DEST|-   (export --help)\n"
		"       %s --check LOG|DIR\n"
		"This sessfs was built without FUSE: it exports and checks, it does not mount.\n",
		argv[0], argv[0]);
	return 2;
}

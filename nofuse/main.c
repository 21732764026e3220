/*
 * sessfs built without FUSE (make NOFUSE=1), for machines where libfuse
 * is missing (macOS without macFUSE, containers): `sessfs export` alone,
 * linked with core only.
 */
#include <stdio.h>
#include <string.h>

#include "export.h"

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "export"))
		return ex_main(argc - 1, argv + 1);
	fprintf(stderr, "usage: sessfs export [options] LOG DEST|-   (sessfs export --help)\n"
		"This sessfs was built without FUSE: it exports, it does not mount.\n");
	return 2;
}

/*
 * cli: the command-line front ends of sessfs that need no FUSE: `sessfs
 * export` (cli_export(), export_cmd.c), `sessfs --check` (cli_check(),
 * check.c) and what the front ends share (cli.c). fs/main.c (the mount, --check) and nofuse/main.c (a build
 * without FUSE) call them. Outside core/: core is what they use.
 */
#ifndef SESSFS_CLI_H
#define SESSFS_CLI_H

#include <stdint.h>

/* `sessfs export ...`: argv[0] is "export". Returns the exit status: 0,
 * 1 when something failed (said on stderr), 2 for bad usage. */
int cli_export(int argc, char **argv);

/* `sessfs --check LOG|DIR`: the facts of a session or a projects folder
 * as JSON on stdout. The exit status: 0, or 1 (said on stderr). */
int cli_check(const char *path);

/* Whether a source path names a projects folder (a folder, not a .jsonl),
 * rather than a session log. */
int cli_is_folder(const char *path);

/* A size "512M", "2G", "4096" (K, M, G: powers of 1024) in bytes; 0 when
 * s is no size. */
uint64_t cli_size(const char *s);

#endif

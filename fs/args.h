/*
 * args: sessfs's command line, checked before libfuse parses it, so that
 * a mistake is said in sessfs's own words (one line naming the argument
 * or option at fault), never as libfuse's "fuse: invalid argument" or
 * "fuse: unknown option(s)".
 *
 *   sessfs [options] LOG|DIR MOUNTPOINT
 *   sessfs [options] MOUNTPOINT
 *
 * The options are -h/--help, -V/--version, -f, -d, -s and -o LIST (or
 * -oLIST). Each option of a -o list (split at commas, "\," kept) is one of
 * sessfs's own (file_history=, cache_size=, prices=, tz=, spin=) or one libfuse
 * takes: asked of libfuse itself, one option at a time, with its messages
 * kept quiet (fuse_set_log_func()), so that sessfs knows which one it
 * refused.
 *
 * Not thread-safe (it sets libfuse's log function for a while): call it
 * from main() before any thread starts.
 */
#ifndef SESSFS_ARGS_H
#define SESSFS_ARGS_H

/*
 * Checks argv (argv[0] is the program). Returns 0 when the options are
 * all known and at most max_plain arguments are not options; else says
 * what is wrong in one line on stderr ("sessfs: ...") and returns 2 (bad
 * usage: the caller prints the usage and exits with it).
 */
int args_check(int argc, char **argv, int max_plain);

#endif

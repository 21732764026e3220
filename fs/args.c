#include "args.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sfuse.h"

#define ARGS_OPT_MAX 4096	/* the longest single -o option checked */

/* libfuse's last message while it is asked (quiet: not printed). */
static char said[512];

/* libfuse may say one message in several calls: they are put together. */
static void keep_quiet(enum fuse_log_level level, const char *fmt, va_list ap)
{
	size_t n = strlen(said);

	(void)level;
	if (n + 1 < sizeof(said))
		vsnprintf(said + n, sizeof(said) - n, fmt, ap);
}

/* Whether libfuse takes the single option opt ("name" or "name=value"):
 * its command-line options, then those of a session (mount options
 * among them). Its message, if any, stays in said. */
static int fuse_takes(const char *opt)
{
	struct fuse_args a = FUSE_ARGS_INIT(0, NULL);
	struct fuse_cmdline_opts o;
	struct fuse_lowlevel_ops none;
	struct fuse_session *se = NULL;
	int ok;

	memset(&o, 0, sizeof(o));
	memset(&none, 0, sizeof(none));
	said[0] = '\0';
	ok = !fuse_opt_add_arg(&a, "sessfs") && !fuse_opt_add_arg(&a, "-o") &&
	     !fuse_opt_add_arg(&a, opt) && !fuse_parse_cmdline(&a, &o);
	free(o.mountpoint);
	if (ok) {
		se = fuse_session_new(&a, &none, sizeof(none), NULL);
		ok = se != NULL;
	}
	if (se)
		fuse_session_destroy(se);
	fuse_opt_free_args(&a);
	return ok;
}

/* sessfs's own -o options (fs/main.c parses them). */
static int own_option(const char *opt)
{
	static const char *const own[] = { "file_history=", "cache_size=", "prices=", "tz=", "spin=" };
	size_t i, n;

	for (i = 0; i < sizeof(own) / sizeof(own[0]); i++) {
		n = strlen(own[i]);
		if (!strncmp(opt, own[i], n) && opt[n])
			return 1;
	}
	return 0;
}

/* One option of a -o list; 0 or 2 after a line on stderr. */
static int check_one(const char *opt)
{
	if (!*opt) {
		fprintf(stderr, "sessfs: -o: an empty option in the list\n");
		return 2;
	}
	if (own_option(opt) || fuse_takes(opt))
		return 0;
	if (strstr(said, "unknown option") || !said[0])
		fprintf(stderr, "sessfs: unknown option: -o %s (sessfs --help lists them)\n", opt);
	else
		fprintf(stderr, "sessfs: -o %s: a bad value for this option\n", opt);
	return 2;
}

/* A -o list, split at the commas that are not escaped ("\,"). */
static int check_list(const char *list)
{
	char one[ARGS_OPT_MAX];
	size_t n = 0;
	const char *p;
	int rc = 0;

	for (p = list; !rc; p++) {
		if (*p == '\\' && p[1]) {
			if (n + 2 < sizeof(one)) {
				one[n++] = *p;
				one[n++] = p[1];
			}
			p++;
			continue;
		}
		if (*p && *p != ',') {
			if (n + 1 < sizeof(one))
				one[n++] = *p;
			continue;
		}
		one[n] = '\0';
		rc = check_one(one);
		n = 0;
		if (!*p)
			break;
	}
	return rc;
}

/* The options libfuse's command line takes besides -o. */
static int known_flag(const char *a)
{
	static const char *const flags[] = { "-h", "--help", "-V", "--version", "-f", "-d", "-s" };
	size_t i;

	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (!strcmp(a, flags[i]))
			return 1;
	return 0;
}

int args_check(int argc, char **argv, int max_plain)
{
	int i, plain = 0, rc = 0;

	fuse_set_log_func(keep_quiet);
	for (i = 1; i < argc && !rc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-o")) {
			if (i + 1 >= argc) {
				fprintf(stderr, "sessfs: -o: an option list must follow\n");
				rc = 2;
			} else {
				rc = check_list(argv[++i]);
			}
		} else if (!strncmp(a, "-o", 2)) {
			rc = check_list(a + 2);
		} else if (a[0] == '-' && !known_flag(a)) {
			fprintf(stderr, "sessfs: unknown option: %s (sessfs --help lists them)\n", a);
			rc = 2;
		} else if (a[0] != '-' && ++plain > max_plain) {
			fprintf(stderr, "sessfs: %s: one argument too many (a log or a projects "
				"folder, then a mountpoint)\n", a);
			rc = 2;
		}
	}
	fuse_set_log_func(NULL);	/* libfuse's own from now on */
	return rc;
}

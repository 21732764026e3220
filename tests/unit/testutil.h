/*
 * Helpers shared by the unit tests: small logs written to temporary files.
 */
#ifndef SESSFS_TESTUTIL_H
#define SESSFS_TESTUTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Writes n bytes to a new temporary file; returns its path (free() it). */
static inline char *tu_write(const char *data, size_t n)
{
	char *path = strdup("/tmp/sessfs-test-XXXXXX");
	int fd = mkstemp(path);

	if (fd < 0 || write(fd, data, n) != (ssize_t)n)
		abort();
	close(fd);
	return path;
}

/* The same for a NUL-terminated string. */
static inline char *tu_write_str(const char *s)
{
	return tu_write(s, strlen(s));
}

static inline void tu_remove(char *path)
{
	unlink(path);
	free(path);
}

#endif

#include "lineage.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int ln_is_session_file(const char *name)
{
	size_t n = strlen(name);

	return n > 6 && !strcmp(name + n - 6, ".jsonl") && strncmp(name, "agent-", 6);
}

static void free_names(char **v, size_t n)
{
	while (n)
		free(v[--n]);
	free(v);
}

/* The session logs of the folder dfd (which may be O_PATH): 0 and *out
 * (free with free_names()), or -errno. */
static int list_logs(int dfd, char ***out, size_t *n)
{
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	size_t cap = 0;
	struct dirent *de;
	int rc = 0;

	*out = NULL;
	*n = 0;
	if (!d) {
		rc = -errno;
		if (fd >= 0)
			close(fd);
		return rc;
	}
	while (!rc && (de = readdir(d))) {
		char **p;

		if (!ln_is_session_file(de->d_name))
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			if (!(p = realloc(*out, cap * sizeof(*p)))) {
				rc = -ENOMEM;
				break;
			}
			*out = p;
		}
		if (!((*out)[*n] = strdup(de->d_name)))
			rc = -ENOMEM;
		else
			(*n)++;
	}
	closedir(d);
	if (rc) {
		free_names(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return rc;
}

int ln_fork_point(int dfd, const char *name, const struct lh_facts *f, char **uuid,
		  int *settled)
{
	int rc = lh_fork_point(dfd, name, f, uuid, settled);

	if (rc == -ENOENT) {	/* nothing of its own yet: it ends at a copy */
		*uuid = strdup(f->copy_uuid);
		rc = *uuid ? 0 : -ENOMEM;
	}
	return rc;
}

int ln_is_origin(int dfd, const char *name, const char *sid, const struct lh_facts *f,
		     const char *uuid)
{
	if (f->copy_sid)
		return sid && !strcmp(sid, f->copy_sid);
	return lh_has_uuid(dfd, name, uuid) == 1;
}

char *ln_origin_id(const char *found, const struct lh_facts *f)
{
	return found ? strdup(found) : f->copy_sid ? strdup(f->copy_sid) : NULL;
}

/* A log beside a fork: its name, its facts' start and id. */
struct sibling {
	char *name;
	int64_t start;
	char *sid;
};

static int sibling_cmp(const void *a, const void *b)
{
	const struct sibling *x = a, *y = b;

	if (x->start != y->start)
		return x->start > y->start ? -1 : 1;	/* newest first */
	return strcmp(y->name, x->name);
}

/* The sessions beside name in dfd that started no later than start. */
static void siblings(int dfd, const char *name, int64_t start, struct sibling **out,
		     size_t *n)
{
	char **names = NULL, stem[LH_STEM_MAX + 1];
	size_t k = 0, i;
	struct lh_facts f;

	*out = NULL;
	*n = 0;
	if (list_logs(dfd, &names, &k) || !k) {
		free(names);
		return;
	}
	*out = calloc(k + 1, sizeof(**out));
	for (i = 0; *out && i < k; i++) {
		if (!strcmp(names[i], name))
			continue;
		lh_stem(names[i], stem);
		if (lh_read(dfd, names[i], stem, &f))
			continue;
		if (f.first_ms != LH_NO_TS && f.first_ms <= start) {
			(*out)[*n] = (struct sibling){ names[i], f.first_ms, f.sid };
			names[i] = NULL;
			f.sid = NULL;
			(*n)++;
		}
		lh_free(&f);
	}
	free_names(names, k);
	if (*n)
		qsort(*out, *n, sizeof(**out), sibling_cmp);
}

int ln_fork_of(int dirfd, const char *name, char **sid, char **uuid, int *settled)
{
	char stem[LH_STEM_MAX + 1];
	struct lh_facts f;
	struct sibling *sib;
	const char *found = NULL;
	size_t n, i;
	int rc;

	*sid = *uuid = NULL;
	lh_stem(name, stem);
	rc = lh_read(dirfd, name, stem, &f);
	if (!rc && !f.copy_uuid)
		rc = -ENOENT;
	if (!rc)
		rc = ln_fork_point(dirfd, name, &f, uuid, settled);
	if (rc) {
		lh_free(&f);
		return rc;
	}
	siblings(dirfd, name, f.first_ms, &sib, &n);
	for (i = 0; i < n && !found; i++)
		if (ln_is_origin(dirfd, sib[i].name, sib[i].sid, &f, *uuid))
			found = sib[i].sid;
	*sid = ln_origin_id(found, &f);
	for (i = 0; i < n; i++) {
		free(sib[i].name);
		free(sib[i].sid);
	}
	free(sib);
	lh_free(&f);
	return 0;
}


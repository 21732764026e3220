/*
 * corpus_util: what the corpus checks share: reading files, the first
 * value of a key in a JSONL file, the resume-appended file of a log, and
 * the walk over every log of the corpus.
 *
 * Header-only (static inline functions): each check is one translation unit.
 * Every returned string is the caller's to free().
 */
#ifndef SESSFS_CORPUS_UTIL_H
#define SESSFS_CORPUS_UTIL_H

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

/* All of f, NUL-terminated; NULL on ENOMEM. */
static inline char *cu_slurp(FILE *f)
{
	size_t cap = 1 << 16, len = 0, n;
	char *buf = f ? malloc(cap) : NULL;

	while (buf && (n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (len + 1 == cap) {
			char *p = realloc(buf, cap *= 2);

			if (!p)
				free(buf);
			buf = p;
		}
	}
	if (buf)
		buf[len] = '\0';
	return buf;
}

static inline char *cu_slurp_path(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = cu_slurp(f);

	if (f)
		fclose(f);
	return buf;
}

/* The string value of key in the first record of a JSONL file that has
 * one; with need_uuid, in the first record that has a uuid (NULL when
 * that record's value is not a string). */
static inline char *cu_first_of(const char *path, const char *key, int need_uuid)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, *out = NULL;
	size_t cap = 0;
	int done = 0;

	while (f && !done && getline(&line, &cap, f) > 0) {
		cJSON *j = cJSON_Parse(line);
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);

		if (need_uuid ? cJSON_IsString(cJSON_GetObjectItemCaseSensitive(j, "uuid"))
			      : cJSON_IsString(v)) {
			done = 1;
			if (cJSON_IsString(v))
				out = strdup(v->valuestring);
		}
		cJSON_Delete(j);
	}
	free(line);
	if (f)
		fclose(f);
	return out;
}

/* The resume-appended*.jsonl in dir whose sessionId is the log's. */
static inline char *cu_appended_for(const char *log, const char *dir)
{
	char *sid = cu_first_of(log, "sessionId", 0), *out = NULL, pat[4200];
	glob_t g;
	size_t i;

	snprintf(pat, sizeof(pat), "%s/resume-appended*.jsonl", dir);
	if (!sid || glob(pat, 0, NULL, &g)) {
		free(sid);
		return NULL;
	}
	for (i = 0; i < g.gl_pathc && !out; i++) {
		char *s2 = cu_first_of(g.gl_pathv[i], "sessionId", 0);

		if (s2 && !strcmp(s2, sid))
			out = strdup(g.gl_pathv[i]);
		free(s2);
	}
	globfree(&g);
	free(sid);
	return out;
}

/*
 * Calls check(log, dir, arg) for every log of the corpus: each scenario's
 * projects/<project>/<session-id>.jsonl (dir: the scenario folder) and
 * stage<N>/session.jsonl (dir: the stage folder). check returns 1 (pass),
 * 0 (fail) or -1 (not applicable); the counts are added to *pass, *fail.
 */
static inline void cu_each_log(const char *corpus, int (*check)(const char *, const char *, void *),
			void *arg, int *pass, int *fail)
{
	static const char *const pats[] = { "%s/*/projects/*/*.jsonl",
					    "%s/*/stage*/session.jsonl" };
	size_t k, i;

	for (k = 0; k < 2; k++) {
		char pat[4096];
		glob_t g;

		snprintf(pat, sizeof(pat), pats[k], corpus);
		if (glob(pat, 0, NULL, &g))
			continue;
		for (i = 0; i < g.gl_pathc; i++) {
			char dir[4096], *cut;
			int r;

			snprintf(dir, sizeof(dir), "%s", g.gl_pathv[i]);
			cut = strstr(dir, k == 0 ? "/projects/" : "/session.jsonl");
			if (cut)
				*cut = '\0';
			r = check(g.gl_pathv[i], dir, arg);
			*pass += r == 1;
			*fail += r == 0;
		}
		globfree(&g);
	}
}

#endif

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
#include <unistd.h>

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

/* The string value of key in the last record of a JSONL file that has
 * one (the release that wrote a log last: "version"); NULL if none. */
static inline char *cu_last_of(const char *path, const char *key)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, *out = NULL;
	size_t cap = 0;

	while (f && getline(&line, &cap, f) > 0) {
		cJSON *j = cJSON_Parse(line);
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);

		if (cJSON_IsString(v)) {
			free(out);
			out = strdup(v->valuestring);
		}
		cJSON_Delete(j);
	}
	free(line);
	if (f)
		fclose(f);
	return out;
}

/* 1 when every record of the log with a uuid is a sidechain row (a
 * subagent's own log: agent-*.jsonl), 0 when one is not, -1 when the log
 * has no record with a uuid (empty, or metadata only). */
static inline int cu_sidechain_only(const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	int seen = 0, all = 1;

	while (f && all && getline(&line, &cap, f) > 0) {
		cJSON *j = cJSON_Parse(line);

		if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(j, "uuid"))) {
			seen = 1;
			all = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "isSidechain"));
		}
		cJSON_Delete(j);
	}
	free(line);
	if (f)
		fclose(f);
	return seen ? all : -1;
}

/* 1 when the two files hold the same bytes. */
static inline int cu_same_file(const char *a, const char *b)
{
	char *x = cu_slurp_path(a), *y = cu_slurp_path(b);
	int same = x && y && !strcmp(x, y);

	free(x);
	free(y);
	return same;
}

/*
 * The resume-appended*.jsonl that belongs to a log of scenario dir: the
 * plain resume-appended.jsonl when the log is the scenario's session.jsonl
 * (a release that writes a new file on every resume, 1.0.x, gives the
 * appended rows a new sessionId), else the one whose sessionId is the
 * log's. NULL when none is.
 */
static inline char *cu_appended_for(const char *log, const char *dir)
{
	char *sid = cu_first_of(log, "sessionId", 0), *out = NULL, pat[4200];
	glob_t g;
	size_t i;

	snprintf(pat, sizeof(pat), "%s/session.jsonl", dir);
	if (strcmp(log, pat) && cu_same_file(log, pat)) {
		snprintf(pat, sizeof(pat), "%s/resume-appended.jsonl", dir);
		free(sid);
		return access(pat, R_OK) ? NULL : strdup(pat);
	}
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

/* ---- the expected branch counts (the corpus README's table) ---- */

/*
 * The README's table "Branches a correct reader shows" has one row per log
 * or group of logs: "| name | branches | notes |". A name is a scenario
 * folder ("plain": its logs), a folder with a qualifier ("fork (the
 * `...105` file)": the log whose name ends so; "fork (main file)": the
 * folder's other logs), or a stage folder ("interrupted/stage1-tool-killed").
 * A stage the table does not name takes "stageN: M" (or "<stage folder>:
 * M") from its scenario's notes.md, else its scenario's count when that
 * is 1 (a log of one branch had one before).
 */
struct cu_expect {
	char where[256];	/* the folder (stage included) */
	char suffix[64];	/* the file name's end, "" for any */
	int branches;
};

/* The rows of the table; returns how many (at most max). */
static inline int cu_expect_load(const char *corpus, struct cu_expect *v, int max)
{
	char path[4096], *text, *p, *line;
	int n = 0, in_table = 0;

	snprintf(path, sizeof(path), "%s/README.md", corpus);
	text = cu_slurp_path(path);
	for (p = text; p && *p && n < max; p = line) {
		char name[256], *tick, *q;
		int count;

		line = strchr(p, '\n');
		line = line ? line + 1 : p + strlen(p);
		if (!strncmp(p, "## Branches", 11))
			in_table = 1;
		else if (!strncmp(p, "## ", 3))
			in_table = 0;
		if (!in_table || sscanf(p, "| %255[^|]| %d |", name, &count) != 2)
			continue;
		for (q = name + strlen(name); q > name && q[-1] == ' '; q--)
			q[-1] = '\0';
		memset(&v[n], 0, sizeof(v[n]));
		v[n].branches = count;
		if ((tick = strstr(name, "(the `..."))) {
			snprintf(v[n].suffix, sizeof(v[n].suffix), "%.*s.jsonl",
				 (int)strcspn(tick + 9, "`"), tick + 9);
		}
		snprintf(v[n].where, sizeof(v[n].where), "%.*s", (int)strcspn(name, " ("), name);
		n++;
	}
	free(text);
	return n;
}

/* "stageN: M" or "<stage>: M" in the scenario's notes.md, else -1. */
static inline int cu_stage_note(const char *scenario_dir, const char *stage)
{
	char path[4200], key[128], *text, *p;
	int count = -1;
	size_t k;

	snprintf(path, sizeof(path), "%s/notes.md", scenario_dir);
	text = cu_slurp_path(path);
	for (k = 0; text && count < 0 && k < 2; k++) {
		/* the whole folder name first, then its "stageN" head */
		snprintf(key, sizeof(key), "%.*s: ", k ? (int)strcspn(stage, "-") : (int)strlen(stage),
			 stage);
		for (p = strstr(text, key); p && count < 0; p = strstr(p + 1, key))
			if (p == text || p[-1] == ' ' || p[-1] == '(')
				sscanf(p + strlen(key), "%d", &count);
	}
	free(text);
	return count;
}

/* The branch count the corpus states for log (dir: its scenario or stage
 * folder, as cu_each_log() gives it), or -1. */
static inline int cu_expected_branches(const char *corpus, const char *log, const char *dir)
{
	struct cu_expect v[256];
	int n = cu_expect_load(corpus, v, 256), i, best = -1;
	size_t cl = strlen(corpus);
	const char *rel = strncmp(dir, corpus, cl) ? dir : dir + cl + (dir[cl] == '/');
	char scen[4096];

	for (i = 0; i < n; i++) {
		size_t sl = strlen(v[i].suffix), ll = strlen(log);

		if (strcmp(v[i].where, rel))
			continue;
		if (sl && ll >= sl && !strcmp(log + ll - sl, v[i].suffix))
			return v[i].branches;
		if (!sl)
			best = v[i].branches;
	}
	if (best >= 0 || !strchr(rel, '/'))
		return best;
	/* a stage the table does not name */
	snprintf(scen, sizeof(scen), "%.*s", (int)(strrchr(dir, '/') - dir), dir);
	best = cu_stage_note(scen, strrchr(dir, '/') + 1);
	if (best >= 0)
		return best;
	for (i = 0; i < n; i++)
		if (!v[i].suffix[0] && !strncmp(v[i].where, rel, strcspn(rel, "/")) &&
		    strlen(v[i].where) == strcspn(rel, "/"))
			return v[i].branches == 1 ? 1 : -1;
	return -1;
}

/* ---- counts per release ---- */

#define CU_RELEASES 32

struct cu_tally {
	char name[CU_RELEASES][32];
	int pass[CU_RELEASES], fail[CU_RELEASES];
	int n;
};

/* Counts one result (1 pass, 0 fail) under release rel (NULL: unknown). */
static inline void cu_tally_add(struct cu_tally *t, const char *rel, int ok)
{
	int i;

	rel = rel ? rel : "unknown";
	for (i = 0; i < t->n && strcmp(t->name[i], rel); i++)
		;
	if (i == t->n) {
		if (t->n == CU_RELEASES)
			return;
		snprintf(t->name[t->n++], sizeof(t->name[0]), "%s", rel);
	}
	t->pass[i] += ok == 1;
	t->fail[i] += ok == 0;
}

/* Prints "what: release R: P passed, F failed" lines, oldest release first. */
static inline void cu_tally_print(const struct cu_tally *t, const char *what)
{
	int i, j, order[CU_RELEASES];

	for (i = 0; i < t->n; i++)
		order[i] = i;
	for (i = 1; i < t->n; i++)	/* by version number: 1.0.98 < 2.0.28 < 2.1.328 */
		for (j = i; j > 0; j--) {
			unsigned a[3] = { 0 }, b[3] = { 0 };
			int x = order[j];

			sscanf(t->name[order[j - 1]], "%u.%u.%u", &a[0], &a[1], &a[2]);
			sscanf(t->name[x], "%u.%u.%u", &b[0], &b[1], &b[2]);
			if (a[0] < b[0] || (a[0] == b[0] && (a[1] < b[1] || (a[1] == b[1] && a[2] <= b[2]))))
				break;
			order[j] = order[j - 1];
			order[j - 1] = x;
		}
	for (i = 0; i < t->n; i++)
		printf("%s: release %s: %d passed, %d failed\n", what, t->name[order[i]],
		       t->pass[order[i]], t->fail[order[i]]);
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

/*
 * corpus_check: runs `sessfs --check` on every log of the corpus and
 * compares it with what Claude Code really did.
 *
 *   corpus_check SESSFS CORPUS_DIR
 *
 * Logs: each scenario's projects/<project>/<session-id>.jsonl and its
 * stage<N>/session.jsonl. For each: the branch count is the one the corpus
 * README states, and currentLeaf is the parentUuid of the first record with
 * a uuid in the resume-appended*.jsonl of the same session (the record the
 * resume really appended after). Prints one line per log and a summary.
 */
#include <dirent.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

/* Branch counts as corpus/README.md states them ("Branches a correct
 * reader shows"), keyed by the log's folder and session id suffix. */
static const struct {
	const char *where;	/* substring of the log's path */
	int branches;
} expected[] = {
	{ "/fork/projects/-home-user-src-todo-app/5e55f500-0000-4000-8000-000000000105.jsonl", 1 },
	{ "/fork/projects/", 2 },
	{ "/interrupted/stage1-tool-killed/", 1 },
	{ "/plain/", 1 }, { "/tools/", 1 }, { "/compact/", 1 },
	{ "/interrupted/", 1 }, { "/subagent/", 1 }, { "/worktree/", 1 },
	{ "/agent/", 1 }, { "/big/", 1 },
};

static char *slurp(FILE *f)
{
	size_t cap = 4096, len = 0, n;
	char *buf = malloc(cap);

	while (buf && (n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (len + 1 == cap) {
			char *p = realloc(buf, cap *= 2);

			if (!p) {
				free(buf);
				return NULL;
			}
			buf = p;
		}
	}
	if (buf)
		buf[len] = '\0';
	return buf;
}

/* The sessionId of the first record of a JSONL file that has one. */
static char *first_session_id(const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, *sid = NULL;
	size_t cap = 0;

	while (f && !sid && getline(&line, &cap, f) > 0) {
		cJSON *j = cJSON_Parse(line);
		cJSON *s = cJSON_GetObjectItemCaseSensitive(j, "sessionId");

		if (cJSON_IsString(s))
			sid = strdup(s->valuestring);
		cJSON_Delete(j);
	}
	free(line);
	if (f)
		fclose(f);
	return sid;
}

/* parentUuid of the first record with a uuid in an appended file. */
static char *attach_of(const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, *out = NULL;
	size_t cap = 0;
	int done = 0;

	while (f && !done && getline(&line, &cap, f) > 0) {
		cJSON *j = cJSON_Parse(line);
		cJSON *u = cJSON_GetObjectItemCaseSensitive(j, "uuid");
		cJSON *p = cJSON_GetObjectItemCaseSensitive(j, "parentUuid");

		if (cJSON_IsString(u)) {
			done = 1;
			if (cJSON_IsString(p))
				out = strdup(p->valuestring);
		}
		cJSON_Delete(j);
	}
	free(line);
	if (f)
		fclose(f);
	return out;
}

/* The expected attach point: from the appended file of the same session,
 * in the log's own folder or its scenario folder. */
static char *expected_attach(const char *log, const char *scenario)
{
	char *sid = first_session_id(log), *out = NULL, pat[4200];
	glob_t g;
	size_t i;

	snprintf(pat, sizeof(pat), "%s/resume-appended*.jsonl", scenario);
	if (!sid || glob(pat, 0, NULL, &g)) {
		free(sid);
		return NULL;
	}
	for (i = 0; i < g.gl_pathc && !out; i++) {
		char *s2 = first_session_id(g.gl_pathv[i]);

		if (s2 && !strcmp(s2, sid))
			out = attach_of(g.gl_pathv[i]);
		free(s2);
	}
	globfree(&g);
	free(sid);
	return out;
}

static cJSON *run_check(const char *sessfs, const char *log)
{
	char cmd[8192];
	FILE *p;
	char *out;
	cJSON *j;

	snprintf(cmd, sizeof(cmd), "'%s' --check '%s'", sessfs, log);
	p = popen(cmd, "r");
	if (!p)
		return NULL;
	out = slurp(p);
	if (pclose(p) != 0) {
		free(out);
		return NULL;
	}
	j = out ? cJSON_Parse(out) : NULL;
	free(out);
	return j;
}

static int expected_branches(const char *log)
{
	size_t i;

	for (i = 0; i < sizeof(expected) / sizeof(expected[0]); i++)
		if (strstr(log, expected[i].where))
			return expected[i].branches;
	return -1;
}

static int check_log(const char *sessfs, const char *log, const char *scenario)
{
	cJSON *j = run_check(sessfs, log);
	const cJSON *b = cJSON_GetObjectItemCaseSensitive(j, "branches");
	const cJSON *l = cJSON_GetObjectItemCaseSensitive(j, "currentLeaf");
	char *want = expected_attach(log, scenario);
	int wb = expected_branches(log), ok = 1;

	if (!j) {
		printf("FAIL %s: sessfs --check failed\n", log);
		ok = 0;
	} else if (wb >= 0 && (!cJSON_IsNumber(b) || b->valueint != wb)) {
		printf("FAIL %s: branches %d, expected %d\n", log,
		       cJSON_IsNumber(b) ? b->valueint : -1, wb);
		ok = 0;
	} else if (!want || !cJSON_IsString(l) || strcmp(l->valuestring, want)) {
		printf("FAIL %s: currentLeaf %s, expected %s\n", log,
		       cJSON_IsString(l) ? l->valuestring : "null", want ? want : "(none found)");
		ok = 0;
	} else {
		printf("ok   %s: %d branch(es), currentLeaf %s\n", log, b->valueint,
		       l->valuestring);
	}
	free(want);
	cJSON_Delete(j);
	return ok;
}

int main(int argc, char **argv)
{
	const char *pats[] = { "%s/*/projects/*/*.jsonl", "%s/*/stage*/session.jsonl" };
	int pass = 0, fail = 0;
	size_t k, i;

	if (argc != 3) {
		fprintf(stderr, "usage: corpus_check SESSFS CORPUS_DIR\n");
		return 2;
	}
	for (k = 0; k < 2; k++) {
		char pat[4096];
		glob_t g;

		snprintf(pat, sizeof(pat), pats[k], argv[2]);
		if (glob(pat, 0, NULL, &g))
			continue;
		for (i = 0; i < g.gl_pathc; i++) {
			char scen[4096], *cut;

			snprintf(scen, sizeof(scen), "%s", g.gl_pathv[i]);
			cut = strstr(scen, k == 0 ? "/projects/" : "/session.jsonl");
			if (cut)
				*cut = '\0';
			if (check_log(argv[1], g.gl_pathv[i], scen))
				pass++;
			else
				fail++;
		}
		globfree(&g);
	}
	printf("corpus: %d passed, %d failed\n", pass, fail);
	return fail || !pass ? 1 : 0;
}

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
#include "corpus_util.h"

/* Branch counts as corpus/README.md states them ("Branches a correct
 * reader shows"), keyed by the log's folder and session id suffix. */
static const struct {
	const char *where;	/* substring of the log's path */
	int branches;
} expected[] = {
	{ "/fork/projects/-home-user-src-todo-app/5e55f500-0000-4000-8000-000000000105.jsonl", 1 },
	{ "/fork/projects/", 2 },
	{ "/fork-compact/projects/-home-user-src-todo-app/5e55f500-0000-4000-8000-000000000313.jsonl", 1 },
	{ "/fork-compact/projects/", 2 },
	{ "/interrupted/stage1-tool-killed/", 1 },
	{ "/many-rewinds/stage1-after-rewind1/", 2 },
	{ "/many-rewinds/stage2-after-rewind2/", 3 },
	{ "/many-rewinds/", 5 },
	{ "/plain/", 1 }, { "/tools/", 1 }, { "/compact/", 1 },
	{ "/interrupted/", 1 }, { "/subagent/", 1 }, { "/worktree/", 1 },
	{ "/agent/", 1 }, { "/big/", 1 },
	{ "/compact-rewind/", 2 }, { "/hooks-context/", 1 }, { "/local-cmd/", 1 },
	{ "/parallel-partial/", 1 }, { "/resume-twice/", 1 }, { "/thinking-bigout/", 1 },
	{ "/tui-rewind/", 2 }, { "/tui-budget-replace/", 1 },
};

/* The expected attach point: the parentUuid of the first record with a
 * uuid in the appended file of the same session. */
static char *expected_attach(const char *log, const char *scenario)
{
	char *app = cu_appended_for(log, scenario);
	char *out = app ? cu_first_of(app, "parentUuid", 1) : NULL;

	free(app);
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
	out = cu_slurp(p);
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

static int check_log(const char *log, const char *scenario, void *arg)
{
	const char *sessfs = arg;
	cJSON *j = run_check(sessfs, log);
	const cJSON *b = cJSON_GetObjectItemCaseSensitive(j, "branches");
	const cJSON *l = cJSON_GetObjectItemCaseSensitive(j, "currentLeaf");
	char *want = expected_attach(log, scenario);
	int wb = expected_branches(log), ok = 1;

	if (!j) {
		printf("FAIL %s: sessfs --check failed\n", log);
		ok = 0;
	} else if (wb < 0) {
		printf("FAIL %s: no expected branch count (add it from the corpus README)\n", log);
		ok = 0;
	} else if (!cJSON_IsNumber(b) || b->valueint != wb) {
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
	int pass = 0, fail = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: corpus_check SESSFS CORPUS_DIR\n");
		return 2;
	}
	cu_each_log(argv[2], check_log, argv[1], &pass, &fail);
	printf("corpus: %d passed, %d failed\n", pass, fail);
	return fail || !pass ? 1 : 0;
}

/*
 * corpus_check: runs `sessfs --check` on every log of the corpus and
 * compares it with what Claude Code really did.
 *
 *   corpus_check SESSFS CORPUS_DIR
 *
 * Logs: each scenario's projects/<project>/<id>.jsonl and its
 * stage<N>/session.jsonl. For each: the branch count is the one the corpus
 * README's table states (corpus_util.h: cu_expected_branches()), and
 * currentLeaf is the parentUuid of the first record with a uuid in the
 * resume-appended*.jsonl of the same session (the record the resume really
 * appended after), where there is one. A subagent's own log (every row a
 * sidechain: the agent-*.jsonl a 2.0.x session leaves beside it) has one
 * branch; an empty log is no session (sessfs says 0 branches). Prints one
 * line per log, the counts per release (the log's last "version"), and a
 * summary.
 */
#include "corpus_util.h"

struct run {
	const char *sessfs, *corpus;
	struct cu_tally tally;
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

static int check_log(const char *log, const char *scenario, void *arg)
{
	struct run *run = arg;
	cJSON *j = run_check(run->sessfs, log);
	const cJSON *b = cJSON_GetObjectItemCaseSensitive(j, "branches");
	const cJSON *l = cJSON_GetObjectItemCaseSensitive(j, "currentLeaf");
	int side = cu_sidechain_only(log), wb, ok = 1;
	char *want = side ? NULL : expected_attach(log, scenario);
	char *rel = cu_last_of(log, "version");
	const char *what = side > 0 ? " (a subagent's log)" : "";

	wb = side < 0 ? 0 : side > 0 ? 1 : cu_expected_branches(run->corpus, log, scenario);
	if (!j) {
		printf("FAIL %s: sessfs --check failed\n", log);
		ok = 0;
	} else if (wb < 0) {
		printf("FAIL %s: no expected branch count (the corpus README's table names none)\n", log);
		ok = 0;
	} else if (!cJSON_IsNumber(b) || b->valueint != wb) {
		printf("FAIL %s: branches %d, expected %d%s\n", log,
		       cJSON_IsNumber(b) ? b->valueint : -1, wb, what);
		ok = 0;
	} else if (want && (!cJSON_IsString(l) || strcmp(l->valuestring, want))) {
		printf("FAIL %s: currentLeaf %s, expected %s\n", log,
		       cJSON_IsString(l) ? l->valuestring : "null", want);
		ok = 0;
	} else if (side < 0) {
		printf("ok   %s: no session (no record with a uuid), 0 branches\n", log);
	} else {
		printf("ok   %s: %d branch(es)%s, currentLeaf %s%s\n", log, b->valueint, what,
		       cJSON_IsString(l) ? l->valuestring : "null",
		       want ? "" : " (no resume of this log to compare)");
	}
	cu_tally_add(&run->tally, side < 0 ? "none (empty logs)" : rel, ok);
	free(rel);
	free(want);
	cJSON_Delete(j);
	return ok;
}

int main(int argc, char **argv)
{
	struct run run = { 0 };
	int pass = 0, fail = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: corpus_check SESSFS CORPUS_DIR\n");
		return 2;
	}
	run.sessfs = argv[1];
	run.corpus = argv[2];
	cu_each_log(argv[2], check_log, &run, &pass, &fail);
	cu_tally_print(&run.tally, "corpus");
	printf("corpus: %d passed, %d failed\n", pass, fail);
	return fail || !pass ? 1 : 0;
}

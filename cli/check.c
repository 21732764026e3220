/*
 * cli_check: `sessfs --check LOG|DIR` (cli.h): a session's facts
 * (session.json), or a projects folder's (pj_facts_json()), as JSON on
 * stdout.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "pjfs.h"
#include "projects.h"
#include "sbuf.h"
#include "session.h"

/* A folder is a projects folder, unless its name says it was meant as a
 * log (*.jsonl: refused as a directory); one with no session that does
 * not look like one is refused, as the mount refuses it (pjfs.h). */
int cli_check(const char *path)
{
	struct session *s;
	struct pj_set *set;
	struct sbuf out;
	int rc, folder = cli_is_folder(path);

	rc = folder ? pf_scan_first(path, &set) : ss_open(path, SS_COMPLETE, &s);
	if (rc) {
		fprintf(stderr, "sessfs: %s: %s\n", path,
			folder ? pf_error(rc) : ss_open_error(rc));
		return 1;
	}
	sb_init(&out);
	if (folder)
		pj_facts_json(set, &out);
	else
		ss_facts_json(s, &out);
	fwrite(out.buf, 1, out.len, stdout);
	sb_free(&out);
	if (folder)
		pj_free(set);
	else
		ss_close(s);
	return 0;
}

/*
 * pjfs_files: the projects layer's own files at the root of the mount:
 * README.md, sessions.json, errors.txt, usage.json and usage.txt, each
 * rendered once per set of sessions (sessions.json again when totals or
 * continuations were found, errors.txt when totals were). Part of the
 * pjfs module (pjfs_priv.h); the locking is pjfs's: pf->mu guards the
 * set's files.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "pjcont.h"
#include "pjfs_priv.h"
#include "pjlive.h"
#include "pjusage.h"
#include "projects.h"

/* What errors.txt says of a folder deleted under the mount. */
static void gone_line(const struct pj_set *s, struct sbuf *out)
{
	sb_add_lines(out, s->root);
	sb_adds(out, ": the projects folder was deleted; its sessions stay listed as its "
		     "last scan found them (one open is still shown, from the log it holds "
		     "open; another shows only README.md and errors.txt)\n");
}

static void readme(const struct pj_set *s, int gone, struct sbuf *out)
{
	uint32_t i, bad = gone;

	for (i = 0; i < s->errors.len; i++)
		bad += s->errors.buf[i] == '\n';
	sb_adds(out, "# Claude Code sessions, mounted by sessfs\n\n");
	sb_addf(out, "Folder: %s\n\n", s->root);
	if (gone)
		sb_adds(out, "**The folder was deleted.** Its sessions stay listed as its last scan\n"
			     "found them: one still open is shown, from the log it holds open;\n"
			     "another shows only README.md and errors.txt.\n\n");
	sb_addf(out, "- projects: %u\n- sessions: %u\n- unusable files and folders: %u "
		     "(see errors.txt)\n", s->nprojects, s->nsessions, bad);
	if (s->latest >= 0)
		sb_addf(out, "- latest: sessions/%s\n", s->sessions[s->latest].link);
	sb_adds(out, "\nThis folder is a read-only view of the logs. Nothing here changes them.\n\n"
		     "- `projects/<project>/<session-id>/`: one session, laid out as a single\n"
		     "  mount of its log shows it (README.md, session.json, branches/, context/,\n"
		     "  state/, agents/, records/). `<project>` is the project's working\n"
		     "  directory made a name. A session made by --fork-session has a link\n"
		     "  `forked-from` to the session it was copied from, which lists it in\n"
		     "  `forks/`; one that continues another (a release before 2.0 copied the\n"
		     "  other's chain into the new log it wrote on a resume, or a summary\n"
		     "  names its leaf) has `continued-from`, and the other lists it in\n"
		     "  `continued-by/` (a copied log is not listed in sessions/: the\n"
		     "  conversation is, once, by its newest log).\n"
		     "- `sessions/<YYYY-MM-DDTHHMM>-<title>-<id8>`: a link to every session,\n"
		     "  named by the time of its first record (UTC), so `ls` lists them in\n"
		     "  time order.\n"
		     "- `latest`: the session written last (the one you are in).\n"
		     "- `sessions.json`: one object per session and line: sessionId, project,\n"
		     "  cwd, title, first and last timestamps, messages (user and assistant\n"
		     "  rows; exact (messagesExact) for a log read whole or a session opened,\n"
		     "  else an estimate), bytes, version (= release: the Claude Code that\n"
		     "  wrote it last), releaseNewerThanChecked, gitBranch, path (under the\n"
		     "  folder), folder, link, resume (the command that resumes it:\n"
		     "  `cd <cwd> && claude --resume <id>`), forkedFrom; once the session\n"
		     "  has been read, usage (its token totals) and continuedFrom (the\n"
		     "  session an older log's summary continues; else null); continuedBy\n"
		     "  (the session whose log copies this one's chain; else null).\n"
		     "- Every file of a session has one home: a message that several of its\n"
		     "  branches share is a file in the first of them (main, then the oldest\n"
		     "  fork) and a link in the others; text Claude Code writes by itself\n"
		     "  (environment, tool and skill listings, git status, prompt snapshots)\n"
		     "  is a file in the session's `harness/` and a link where it was sent;\n"
		     "  `context/` links to the files. So `grep -r` and `rg`, which do not\n"
		     "  follow links, meet each message once and no harness text.\n"
		     "- `usage.json`: the token totals and their cost (`costUSD`) of every\n"
		     "  session, project, model, day, month and five-hour block, and of the\n"
		     "  whole folder (counted when first read, then kept per log);\n"
		     "  `usage.txt`: the same as tables.\n"
		     "- `errors.txt`: what could not be used, and why.\n\n"
		     "A session is read in full (indexed) only when a path inside it is used.\n\n"
		     "## Finding things\n\n"
		     "```sh\n"
		     "ls sessions/ | tail                                # the newest sessions\n"
		     "ls projects/                                       # the projects\n"
		     "grep -i 'deploy' sessions.json                     # sessions by title, cwd, branch\n"
		     "grep -rl 'TODO_DB' sessions/*/branches/            # where it was said, once each\n"
		     "rg -l 'TODO_DB' sessions/*/branches/               # the same, with ripgrep\n"
		     "ls sessions/*/branches/current/*-tool_use-Bash.md  # every Bash call\n"
		     "find projects -maxdepth 3 -name forked-from        # the forks\n"
		     "grep resume latest/README.md                       # how to go back to it\n"
		     "cat latest/context/window.md                       # what the model sees now\n"
		     "grep -h '\"sessionId\"' usage.json | sort -t: -k7 -n  # sessions by tokens\n"
		     "```\n\n## Projects\n\n");
	for (i = 0; i < s->nprojects; i++) {
		const struct pj_project *p = &s->projects[i];

		sb_addf(out, "- projects/%s: %u session%s", p->name, p->nsessions,
			p->nsessions == 1 ? "" : "s");
		if (p->cwd) {
			sb_adds(out, " (");
			sb_add_lines(out, p->cwd);
			sb_adds(out, ")");
		}
		sb_addc(out, '\n');
	}
}

/* The session that continues x by a copy of its chain (its id), or null. */
static void continued_by(const struct pj_set *s, const struct pj_session *x, struct sbuf *out)
{
	const struct pj_session *y = x->copied_by ? pj_by_key(s, x->copied_by) : NULL;

	if (y && y->f.sid)
		sb_add_json_str(out, y->f.sid, strlen(y->f.sid));
	else
		sb_adds(out, "null");
}

/* sessions.json: the set's objects, each with the session's token totals
 * and the session it continues, once known. */
static void sessions_json(struct pjfs *pf, const struct pj_set *s, struct sbuf *out)
{
	uint32_t i;

	sb_adds(out, "[\n");
	for (i = 0; i < s->nsessions; i++) {
		const struct pj_session *x = &s->sessions[i];
		struct pj_session c = *x;

		c.f.title = (char *)pv_title(pf, x);	/* its index's, once read */
		if (pv_rows(pf, x, &c.f.rows))
			c.f.exact = 1;
		sb_addc(out, '{');
		pj_session_members(s, &c, out);
		sb_adds(out, ",\"usage\":");
		pu_session_json(pf->pu, x, out);
		sb_adds(out, ",\"continuedFrom\":");
		pc_json(pf->pc, s, x, out);
		sb_adds(out, ",\"continuedBy\":");
		continued_by(s, x, out);
		sb_adds(out, i + 1 < s->nsessions ? "},\n" : "}\n");
	}
	sb_adds(out, "]\n");
}

/* usage.json or usage.txt (i 3 or 4: pjusage.h), rendered once per set
 * outside the lock: it may read every log. */
static int usage_file(struct pjfs *pf, struct pset *p, int i, struct blob **out)
{
	struct sbuf sb;
	struct blob *b;
	int rc;

	pthread_mutex_lock(&pf->mu);
	if ((b = p->files[i]))
		blob_ref(b);
	pthread_mutex_unlock(&pf->mu);
	if ((*out = b))
		return 0;
	sb_init(&sb);
	rc = i == 3 ? pu_usage_json(pf->pu, p->s, &sb) : pu_usage_txt(pf->pu, p->s, &sb);
	b = rc ? NULL : blob_take(&sb);
	sb_free(&sb);
	if (!b)
		return rc ? rc : -ENOMEM;
	pthread_mutex_lock(&pf->mu);
	if (p->files[i]) {
		blob_unref(b);
		b = p->files[i];
	}
	p->files[i] = b;
	blob_ref(b);
	pthread_mutex_unlock(&pf->mu);
	*out = b;
	return 0;
}

/* errors.txt: the folder's, then what counting found (pjusage.h). */
static void errors_file(struct pjfs *pf, const struct pj_set *s, struct sbuf *out)
{
	pj_errors_text(s, out);
	pu_errors_text(pf->pu, s, out);
	pv_errors_text(pf, out);
}

/* File i of the set (rendered once per set; sessions.json and errors.txt
 * again when totals or continuations were found), with a reference. */
int pf_own_file(struct pjfs *pf, struct pset *p, int i, struct blob **out)
{
	struct sbuf sb;
	struct blob *b;
	uint64_t ugen = pu_gen(pf->pu), gen = ugen + pc_gen(pf->pc);

	if (i >= 3)
		return usage_file(pf, p, i, out);
	pthread_mutex_lock(&pf->mu);
	if (p->files[i] && ((i == 1 && p->json_gen != gen) || (i == 2 && p->errors_gen != ugen))) {
		blob_unref(p->files[i]);
		p->files[i] = NULL;
	}
	if (!p->files[i]) {
		sb_init(&sb);
		if (i == 0) {
			readme(p->s, pf->root_gone, &sb);
		} else if (i == 1) {
			sessions_json(pf, p->s, &sb);
		} else {
			errors_file(pf, p->s, &sb);
			if (pf->root_gone)
				gone_line(p->s, &sb);
		}
		p->files[i] = blob_take(&sb);
		p->json_gen = i == 1 ? gen : p->json_gen;
		p->errors_gen = i == 2 ? ugen : p->errors_gen;
		sb_free(&sb);
	}
	b = p->files[i];
	if (b)
		blob_ref(b);
	pthread_mutex_unlock(&pf->mu);
	*out = b;
	return b ? 0 : -ENOMEM;
}

int pf_file_index(uint64_t ino)
{
	return ino == PI_README ? 0 : ino == PI_SESSIONS_JSON ? 1 : ino == PI_ERRORS ? 2 :
	       ino == PI_USAGE_JSON ? 3 : ino == PI_USAGE_TXT ? 4 : -1;
}

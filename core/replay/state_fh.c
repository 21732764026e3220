/*
 * state_fh: file-history/, the snapshots a resume replays along its chain
 * (session-format.md §8.3), with the backed-up files read from the
 * file-history folder.
 */
#include "state_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arr.h"
#include "names.h"

#define REF_FILE_BITS 24	/* a backup node's ref: snapshot, then file */

struct fbuild {
	uint32_t *snap_of;	/* per id: its last snapshot record, IDX_NONE */
	uint32_t *delta_head;	/* per id: its first delta (index in deltas) */
	uint32_t *deltas;	/* delta record indexes, file order */
	uint32_t *delta_next;
	uint32_t ndeltas;
	struct st_hent *said;	/* problems already reported */
	struct sbuf tmp;
};

/* ---- one file entry ---- */

static void file_free(struct st_fh_file *f)
{
	free(f->tracking);
	free(f->path);
	free(f->backup);
	free(f->backup_time);
	free(f->parent_dir);
}

static int file_copy(struct st_fh_file *to, const struct st_fh_file *from)
{
	*to = *from;
	to->tracking = malloc(from->tracking_len + 1);
	if (to->tracking)
		memcpy(to->tracking, from->tracking, from->tracking_len + 1);
	to->backup = from->backup ? strdup(from->backup) : NULL;
	to->backup_time = from->backup_time ? strdup(from->backup_time) : NULL;
	to->parent_dir = from->parent_dir ? strdup(from->parent_dir) : NULL;
	to->path = NULL;
	if (!to->tracking || (from->backup && !to->backup) ||
	    (from->backup_time && !to->backup_time) || (from->parent_dir && !to->parent_dir)) {
		file_free(to);
		memset(to, 0, sizeof(*to));
		return -ENOMEM;
	}
	return 0;
}

/* A backup entry ({backupFileName, version, backupTime, realParentDir})
 * of the tracked file named tracking (taken from sb). */
static int parse_backup(struct sbuf *tracking, const char *v, const char *e,
			uint32_t line, struct st_fh_file *f)
{
	const char *name = stj_get(v, e, "backupFileName");

	memset(f, 0, sizeof(*f));
	f->tracking = sb_detach(tracking, &f->tracking_len);
	f->line = line;
	f->backup = stj_dup(name, e);
	if (!f->backup && name && *name == '"')
		f->backup = strdup("(a name with a NUL)");	/* refused below */
	f->backup_time = stj_dup(stj_get(v, e, "backupTime"), e);
	f->parent_dir = stj_dup(stj_get(v, e, "realParentDir"), e);
	f->has_version = !stj_num(stj_get(v, e, "version"), e, &f->version);
	f->node = ST_NONE;
	return 0;
}

/* ---- snapshots ---- */

static void snap_clear(struct st_snap *s)
{
	uint32_t i;

	for (i = 0; i < s->nfiles; i++)
		file_free(&s->files[i]);
	free(s->files);
	free(s->ts);
	memset(s, 0, sizeof(*s));
}

/* Adds f (taken) to s, replacing the entry of the same tracked path. */
static int snap_put(struct st_snap *s, struct st_fh_file *f)
{
	uint32_t i;

	for (i = 0; i < s->nfiles; i++)
		if (s->files[i].tracking_len == f->tracking_len &&
		    !memcmp(s->files[i].tracking, f->tracking, f->tracking_len)) {
			file_free(&s->files[i]);
			s->files[i] = *f;
			return 0;
		}
	if (arr_grow(&s->files, &s->cap, s->nfiles + 1, sizeof(*s->files), 8)) {
		file_free(f);
		return -ENOMEM;
	}
	s->files[s->nfiles++] = *f;
	return 0;
}

/* The id of the uuid string at v (0 if it is none the index knows). */
static uint32_t uuid_at(const struct st_state *st, const char *v, const char *e,
			struct sbuf *tmp)
{
	if (stj_str(v, e, tmp))
		return 0;
	return idx_id_find(st->ix, tmp->buf, tmp->len);
}

/* Parses snapshot record rec into s (cleared first). */
static int parse_snapshot(struct st_state *st, struct fbuild *b, uint32_t rec,
			  struct st_snap *s, int *update)
{
	struct st_line l;
	const char *snap, *tfb, *v;
	struct js_iter it;
	struct js_str k;
	uint32_t line = idx_rec(st->ix, rec)->line;
	int rc = 0;

	memset(s, 0, sizeof(*s));
	s->line = line;
	*update = 0;
	if (stl_read(st, rec, &l))
		goto out;
	snap = stj_get(l.p, l.e, "snapshot");
	*update = stj_true(stj_get(l.p, l.e, "isSnapshotUpdate"), l.e);
	s->msg = uuid_at(st, stj_get(snap, l.e, "messageId"), l.e, &b->tmp);
	if (!s->msg)
		s->msg = uuid_at(st, stj_get(l.p, l.e, "messageId"), l.e, &b->tmp);
	s->ts = stj_dup(stj_get(snap, l.e, "timestamp"), l.e);
	tfb = stj_get(snap, l.e, "trackedFileBackups");
	if (!tfb || js_obj_begin(&it, tfb, l.e))
		goto out;
	while (!rc && js_obj_next(&it, &k, &v) == 1) {
		struct st_fh_file f;
		struct sbuf name;

		sb_init(&name);
		js_unescape(&k, &name);
		if (*v == '{') {
			rc = parse_backup(&name, v, l.e, line, &f);
			if (!rc)
				rc = snap_put(s, &f);
		}
		sb_free(&name);
		if (!(it.p = js_value(v, l.e)))
			break;
	}
out:
	stl_free(&l);
	return rc;
}

/* Appends s (taken) to the list, dropping the oldest past ST_FH_KEEP. */
static int push_snap(struct st_state *st, struct st_snap *s)
{
	struct st_snap *p;

	if (st->nsnaps == ST_FH_KEEP) {
		snap_clear(&st->snaps[0]);
		memmove(st->snaps, st->snaps + 1, (ST_FH_KEEP - 1) * sizeof(*st->snaps));
		st->nsnaps--;
	}
	if (!st->snaps) {
		p = calloc(ST_FH_KEEP, sizeof(*p));
		if (!p) {
			snap_clear(s);
			return -ENOMEM;
		}
		st->snaps = p;
	}
	st->snaps[st->nsnaps++] = *s;
	return 0;
}

/* The snapshot of message id msg in the list (newest first), or NULL. */
static struct st_snap *find_snap(struct st_state *st, uint32_t msg)
{
	uint32_t i;

	for (i = st->nsnaps; msg && i-- > 0;)
		if (st->snaps[i].msg == msg)
			return &st->snaps[i];
	return NULL;
}

static int take_snapshot(struct st_state *st, struct fbuild *b, uint32_t rec)
{
	struct st_snap s, *old;
	int update, rc = parse_snapshot(st, b, rec, &s, &update);

	if (rc) {
		snap_clear(&s);
		return rc;
	}
	s.update = (uint8_t)update;
	if (update && (old = find_snap(st, s.msg))) {
		snap_clear(old);
		*old = s;
		return 0;
	}
	return push_snap(st, &s);
}

static int synthesize(struct st_state *st, uint32_t msg, const char *ts)
{
	struct st_snap s;
	const struct st_snap *prev = st->nsnaps ? &st->snaps[st->nsnaps - 1] : NULL;
	uint32_t i;
	int rc = 0;

	memset(&s, 0, sizeof(s));
	s.msg = msg;
	s.ts = ts ? strdup(ts) : NULL;
	for (i = 0; prev && !rc && i < prev->nfiles; i++) {
		struct st_fh_file f;

		rc = file_copy(&f, &prev->files[i]);
		if (!rc)
			rc = snap_put(&s, &f);
	}
	if (rc) {
		snap_clear(&s);
		return rc;
	}
	return push_snap(st, &s);
}

/* Applies delta record rec to the snapshot list; synthesises a snapshot
 * (inheriting the last one's files) when it names an unknown one. */
static int apply_delta(struct st_state *st, uint32_t rec)
{
	struct st_line l;
	struct st_snap *s;
	struct st_fh_file f;
	const char *backup;
	uint32_t target;
	char *ts = NULL;
	struct sbuf tracking;
	int rc = 0;

	sb_init(&tracking);
	if (stl_read(st, rec, &l))
		goto out;
	target = idx_rec(st->ix, rec)->aux;
	backup = stj_get(l.p, l.e, "backup");
	if (!target || stj_str(stj_get(l.p, l.e, "trackingPath"), l.e, &tracking) ||
	    !backup || *backup != '{') {
		st_err(st, idx_rec(st->ix, rec)->line,
		       "file-history: delta without a snapshot, trackingPath or backup; ignored");
		goto out;
	}
	ts = stj_dup(stj_get(l.p, l.e, "timestamp"), l.e);
	if (!(s = find_snap(st, target))) {
		if ((rc = synthesize(st, target, ts)))
			goto out;
		s = &st->snaps[st->nsnaps - 1];
	}
	rc = parse_backup(&tracking, backup, l.e, idx_rec(st->ix, rec)->line, &f);
	if (!rc)
		rc = snap_put(s, &f);
	s->deltas++;
out:
	sb_free(&tracking);
	free(ts);
	stl_free(&l);
	return rc;
}

/* ---- the records, by the row they belong to ---- */

static int index_records(struct st_state *st, struct fbuild *b)
{
	uint32_t i, n = idx_nrecs(st->ix), nids = idx_nids(st->ix) + 1;

	b->snap_of = malloc(nids * sizeof(*b->snap_of));
	b->delta_head = malloc(nids * sizeof(*b->delta_head));
	if (!b->snap_of || !b->delta_head)
		return -ENOMEM;
	memset(b->snap_of, 0xff, nids * sizeof(*b->snap_of));
	memset(b->delta_head, 0xff, nids * sizeof(*b->delta_head));
	for (i = 0; i < n; i++) {
		const struct idx_rec *r = idx_rec(st->ix, i);

		if (r->type == IDX_T_FH_SNAPSHOT && r->aux && r->aux < nids)
			b->snap_of[r->aux] = i;	/* the last one wins */
		else if (r->type == IDX_T_FH_DELTA)
			b->ndeltas++;
	}
	b->deltas = malloc((b->ndeltas + 1) * sizeof(*b->deltas));
	b->delta_next = malloc((b->ndeltas + 1) * sizeof(*b->delta_next));
	if (!b->deltas || !b->delta_next)
		return -ENOMEM;
	b->ndeltas = 0;
	/* Deltas are listed per messageId (the row that made the change),
	 * which the index does not keep: read it. Backwards, so each list
	 * ends up in file order. */
	for (i = n; i-- > 0;) {
		struct st_line l;
		uint32_t id;

		if (idx_rec(st->ix, i)->type != IDX_T_FH_DELTA)
			continue;
		id = stl_read(st, i, &l) ? 0 : uuid_at(st, stj_get(l.p, l.e, "messageId"), l.e,
						      &b->tmp);
		stl_free(&l);
		if (!id || id >= nids)
			continue;
		b->deltas[b->ndeltas] = i;
		b->delta_next[b->ndeltas] = b->delta_head[id];
		b->delta_head[id] = b->ndeltas++;
	}
	return 0;
}

static int replay(struct st_state *st, struct fbuild *b, const struct rs_chain *c)
{
	uint32_t k, d, nids = idx_nids(st->ix) + 1;
	int rc = 0;

	for (k = 0; !rc && k < c->n; k++) {
		uint32_t id = c->ids[k];

		if (id >= nids)
			continue;
		if (b->snap_of[id] != IDX_NONE)
			rc = take_snapshot(st, b, b->snap_of[id]);
		for (d = b->delta_head[id]; !rc && d != IDX_NONE; d = b->delta_next[d])
			rc = apply_delta(st, b->deltas[d]);
	}
	return rc;
}

/* ---- the folder ---- */

static int is_dir(const char *path)
{
	struct stat sb;

	return !stat(path, &sb) && S_ISDIR(sb.st_mode);
}

/* A session id that can name a folder. */
static int safe_sid(const char *sid)
{
	char safe[NM_MAX + 1];

	return sid && strlen(sid) <= NM_MAX &&
	       nm_safe(sid, strlen(sid), safe, sizeof(safe)) == strlen(sid) &&
	       !strcmp(safe, sid);
}

static int set_folder(struct st_state *st, const char *path)
{
	char *real = realpath(path, NULL);

	if (!real)
		return -errno;
	if (!is_dir(real)) {
		free(real);
		return -ENOTDIR;
	}
	st->fh_dir = real;
	return 0;
}

static void find_folder(struct st_state *st, const struct st_opts *o)
{
	struct sbuf p;

	sb_init(&p);
	if (o->fh_dir) {
		if (safe_sid(st->sid)) {
			sb_addf(&p, "%s/%s", o->fh_dir, st->sid);
			if (!set_folder(st, p.buf))
				goto out;
		}
		sb_reset(&p);
		sb_adds(&p, o->fh_dir);
	} else if (o->log_path && safe_sid(st->sid)) {
		const char *slash = strrchr(o->log_path, '/');

		if (slash)
			sb_add(&p, o->log_path, (size_t)(slash - o->log_path));
		else
			sb_adds(&p, ".");
		sb_addf(&p, "/../../file-history/%s", st->sid);
	} else {
		goto out;
	}
	if (set_folder(st, p.buf))
		st->fh_looked = sb_detach(&p, NULL);
out:
	sb_free(&p);
}

/* ---- nodes ---- */

/* "<16 or 64 hex digits>@v<digits>", as Claude Code names backups. */
static int backup_name_ok(const char *s)
{
	size_t n = strspn(s, "0123456789abcdef"), m;

	if ((n != 16 && n != 64) || strncmp(s + n, "@v", 2))
		return 0;
	m = strspn(s + n + 2, "0123456789");
	return m >= 1 && m <= 10 && s[n + 2 + m] == '\0';
}

/* Reports a problem once, however many snapshots inherit it. */
static void say_once(struct st_state *st, struct fbuild *b, uint32_t line,
		     const char *text)
{
	if (sth_find(b->said, text, strlen(text)))
		return;
	sth_add(&b->said, text, strlen(text), 0);
	st_err(st, line, "%s", text);
}

static void refuse(struct st_state *st, struct fbuild *b, struct st_fh_file *f,
		   const char *what, const char *why)
{
	struct sbuf t;

	sb_init(&t);
	sb_addf(&t, "file-history: %s ", what);
	st_quote(&t, f->tracking, f->tracking_len);
	sb_addf(&t, " left out: %s", why);
	say_once(st, b, f->line, t.buf);
	sb_free(&t);
	f->status = FF_REFUSED;
}

static int backup_present(const struct st_state *st, const char *name)
{
	struct sbuf p;
	struct stat sb;
	int ok;

	if (!st->fh_dir)
		return 0;
	sb_init(&p);
	sb_addf(&p, "%s/%s", st->fh_dir, name);
	ok = !lstat(p.buf, &sb) && S_ISREG(sb.st_mode);
	sb_free(&p);
	return ok;
}

static void missing(struct st_state *st, struct fbuild *b, struct st_fh_file *f)
{
	struct sbuf t;

	sb_init(&t);
	sb_addf(&t, "file-history: backup %s of ", f->backup);
	st_quote(&t, f->path, strlen(f->path));
	if (st->fh_dir)
		sb_addf(&t, " is not in %s", st->fh_dir);
	else if (st->fh_looked)
		sb_addf(&t, " not found: no backup folder at %s", st->fh_looked);
	else
		sb_adds(&t, " not found: no backup folder known (-o file_history=DIR)");
	say_once(st, b, f->line, t.buf);
	sb_free(&t);
	f->status = FF_MISSING;
	st->nmissing++;
}

/* Decides what one tracked file shows, and adds its node. */
static int place_file(struct st_state *st, struct fbuild *b, uint32_t si, uint32_t fi)
{
	struct st_snap *s = &st->snaps[si];
	struct st_fh_file *f = &s->files[fi];
	const char *base = f->parent_dir ? f->parent_dir : st->cwd, *why;

	if (!f->backup) {
		f->status = FF_NONE;
		return 0;
	}
	if (!backup_name_ok(f->backup)) {
		refuse(st, b, f, "backup name of", "not a name Claude Code writes");
		return 0;
	}
	if (nm_path(f->tracking, f->tracking_len, base, base ? strlen(base) : 0,
		    &b->tmp, &why)) {
		refuse(st, b, f, "path", why);
		return 0;
	}
	if (!(f->path = strdup(b->tmp.buf)))
		return -ENOMEM;
	if (!backup_present(st, f->backup)) {
		missing(st, b, f);
		return 0;
	}
	f->node = st_add_path(st, s->node, f->path, SW_BACKUP,
			      si << REF_FILE_BITS | fi, &why);
	if (f->node == ST_NONE)
		refuse(st, b, f, "path", why);
	else
		f->status = FF_OK;
	return 0;
}

static int add_nodes(struct st_state *st, struct fbuild *b)
{
	char u8[IDX_UUID_MAX + 1], safe[9];
	uint32_t dir, i, j;
	int rc = 0;

	if (!st->nsnaps)
		return 0;
	if (st_add(st, 0, "file-history.json", 17, 0, SW_FH_INDEX, 0) == ST_NONE ||
	    (dir = st_add(st, 0, "file-history", 12, 1, SW_DIR, 0)) == ST_NONE)
		return -ENOMEM;
	for (i = 0; !rc && i < st->nsnaps; i++) {
		struct st_snap *s = &st->snaps[i];
		size_t n = s->msg ? idx_id_buf(st->ix, s->msg, u8) : 0;

		nm_safe(u8, n < 8 ? n : 8, safe, sizeof(safe));
		snprintf(s->name, sizeof(s->name), "%03u-%s", i + 1, safe);
		s->node = st_add(st, dir, s->name, strlen(s->name), 1, SW_DIR, 0);
		if (s->node == ST_NONE)
			return -ENOMEM;
		if (s->nfiles >= 1u << REF_FILE_BITS)
			s->nfiles = 1u << REF_FILE_BITS;	/* never in practice */
		for (j = 0; !rc && j < s->nfiles; j++)
			rc = place_file(st, b, i, j);
	}
	return rc;
}

int st_fh_build(struct st_state *st, const struct graph *g,
		const struct rs_chain *c, const struct st_opts *o)
{
	struct fbuild b;
	int rc;

	(void)g;
	memset(&b, 0, sizeof(b));
	sb_init(&b.tmp);
	rc = index_records(st, &b);
	if (!rc)
		rc = replay(st, &b, c);
	if (!rc && st->nsnaps)
		find_folder(st, o);
	if (!rc)
		rc = add_nodes(st, &b);
	free(b.snap_of);
	free(b.delta_head);
	free(b.deltas);
	free(b.delta_next);
	sth_free(&b.said);
	sb_free(&b.tmp);
	return rc;
}

void st_fh_free(struct st_state *st)
{
	uint32_t i;

	for (i = 0; i < st->nsnaps; i++)
		snap_clear(&st->snaps[i]);
	free(st->snaps);
	st->snaps = NULL;
	st->nsnaps = 0;
}

/* ---- rendering ---- */

int st_fh_render(const struct st_state *st, uint32_t ref, struct sbuf *out)
{
	uint32_t si = ref >> REF_FILE_BITS, fi = ref & ((1u << REF_FILE_BITS) - 1);
	const struct st_fh_file *f;
	struct sbuf p;
	struct stat sb;
	size_t got = 0;
	int fd, rc = 0;

	if (si >= st->nsnaps || fi >= st->snaps[si].nfiles || !st->fh_dir)
		return -ENOENT;
	f = &st->snaps[si].files[fi];
	sb_init(&p);
	sb_addf(&p, "%s/%s", st->fh_dir, f->backup);
	fd = open(p.buf, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	sb_free(&p);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) || (uint64_t)sb.st_size > ST_BACKUP_MAX) {
		close(fd);
		return -EIO;
	}
	sb_grow(out, (size_t)sb.st_size);
	while (got < (size_t)sb.st_size) {
		ssize_t n = read(fd, out->buf + out->len + got, (size_t)sb.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rc = n < 0 ? -errno : 0;
			break;
		}
		got += (size_t)n;
	}
	close(fd);
	out->len += got;
	out->buf[out->len] = '\0';
	return rc;
}

static void add_opt_str(struct sbuf *out, const char *s)
{
	if (s)
		sb_add_json_str(out, s, strlen(s));
	else
		sb_adds(out, "null");
}

static const char *const status_names[] = { "ok", "did not exist", "missing", "refused" };

static void index_file(const struct st_snap *s, const struct st_fh_file *f,
		       struct sbuf *out)
{
	sb_adds(out, "{\"path\": ");
	add_opt_str(out, f->path);
	sb_adds(out, ", \"trackingPath\": ");
	sb_add_json_str(out, f->tracking, f->tracking_len);
	sb_adds(out, ", \"backupFileName\": ");
	add_opt_str(out, f->backup);
	sb_adds(out, ", \"version\": ");
	if (f->has_version)
		sb_add_json_num(out, "%.17g", f->version);
	else
		sb_adds(out, "null");
	sb_adds(out, ", \"backupTime\": ");
	add_opt_str(out, f->backup_time);
	sb_addf(out, ", \"line\": %u, \"status\": \"%s\", \"file\": ", f->line,
		status_names[f->status]);
	if (f->status == FF_OK) {
		struct sbuf p;

		sb_init(&p);
		sb_addf(&p, "file-history/%s%s", s->name, f->path);
		sb_add_json_str(out, p.buf, p.len);
		sb_free(&p);
	} else {
		sb_adds(out, "null");
	}
	sb_adds(out, "}");
}

static void index_snap(const struct st_state *st, const struct st_snap *s,
		       struct sbuf *out)
{
	char buf[IDX_UUID_MAX + 1];
	uint32_t j;

	sb_adds(out, "{\n      \"snapshot\": ");
	sb_add_json_str(out, s->name, strlen(s->name));
	sb_adds(out, ",\n      \"messageId\": ");
	if (s->msg) {
		idx_id_buf(st->ix, s->msg, buf);
		sb_add_json_str(out, buf, strlen(buf));
	} else {
		sb_adds(out, "null");
	}
	sb_adds(out, ",\n      \"timestamp\": ");
	add_opt_str(out, s->ts);
	sb_adds(out, ",\n      \"line\": ");
	if (s->line)
		sb_addf(out, "%u", s->line);
	else
		sb_adds(out, "null");
	sb_addf(out, ",\n      \"synthesized\": %s,\n      \"updated\": %s,\n"
		"      \"deltas\": %u,\n      \"files\": [", s->line ? "false" : "true",
		s->update ? "true" : "false", s->deltas);
	for (j = 0; j < s->nfiles; j++) {
		sb_adds(out, j ? ",\n        " : "\n        ");
		index_file(s, &s->files[j], out);
	}
	sb_adds(out, s->nfiles ? "\n      ]\n    }" : "]\n    }");
}

void st_fh_index(const struct st_state *st, struct sbuf *out)
{
	uint32_t i;

	sb_adds(out, "{\n  \"folder\": ");
	add_opt_str(out, st->fh_dir);
	if (!st->fh_dir) {
		sb_adds(out, ",\n  \"lookedFor\": ");
		add_opt_str(out, st->fh_looked);
	}
	sb_addf(out, ",\n  \"keep\": %u,\n  \"snapshots\": [", ST_FH_KEEP);
	for (i = 0; i < st->nsnaps; i++) {
		sb_adds(out, i ? ",\n    " : "\n    ");
		index_snap(st, &st->snaps[i], out);
	}
	sb_adds(out, st->nsnaps ? "\n  ]\n}\n" : "]\n}\n");
}

#include "agentdir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent_label.h"
#include "agents.h"
#include "loghead.h"
#include "tree_priv.h"
#include "plat.h"

/* A subagent log that would not open, until it changes. */
struct agent_fail {
	char *log;
	off_t size;
	int rc;
};

struct agentdir {
	char *log;			/* the session log's absolute path */
	pthread_mutex_t scan_mu;	/* one scan at a time; guards what follows */
	struct ag_seen *seen;		/* the older layout's files, judged */
	struct agent_fail *fails;
	uint32_t nfails;
	char *errs;			/* errors.txt lines of the last scan
					 * (swapped under the tree's write lock) */
};

static void free_fails(struct agent_fail *f, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		free(f[i].log);
	free(f);
}

struct agentdir *ad_new(const char *log)
{
	struct agentdir *ad = calloc(1, sizeof(*ad));

	if (!ad)
		return NULL;
	pthread_mutex_init(&ad->scan_mu, NULL);
	ad->log = strdup(log);
	ad->seen = ag_seen_new();
	if (!ad->log || !ad->seen) {
		ad_free(ad);
		return NULL;
	}
	return ad;
}

void ad_free(struct agentdir *ad)
{
	if (!ad)
		return;
	pthread_mutex_destroy(&ad->scan_mu);
	free_fails(ad->fails, ad->nfails);
	ag_seen_free(ad->seen);
	free(ad->errs);
	free(ad->log);
	free(ad);
}

/* A line for each Agent/Task result of v whose agent id is not a name. */
static void result_errors(struct tree *t, struct view *v, struct sbuf *out)
{
	const struct graph *g = ss_graph(v->s);
	char aid[AG_ID_MAX + 1], name[NM_MAX + 1];
	uint32_t i, n;
	const uint32_t *order = gr_nodes(g, &n);
	size_t len;

	for (i = 0; i < n; i++) {
		len = ag_result_agent(g, ss_logf(v->s), order[i], aid, sizeof(aid));
		if (!len)
			continue;
		ag_name(aid, len, name);
		if (strlen(name) == len && !memcmp(name, aid, len))
			continue;
		ad_folder(t, v, order[i], name);
		sb_addf(out, "line %u: the agent id \"", gr_node_rec(g, order[i])->line);
		ag_quote(aid, len, out);
		sb_addf(out, "\" of this Agent result is not a file name: its folder is agents/%s\n",
			name);
	}
}

void ad_errors_text(struct tree *t, struct view *v, struct sbuf *out)
{
	result_errors(t, v, out);
	if (!v->no && t->ad->errs)
		sb_adds(out, t->ad->errs);
}

/* The view of the agent whose log is log, or NULL (scan_mu held). */
static struct view *view_by_log(struct tree *t, const char *log)
{
	uint32_t k;

	for (k = 1; k < t->nviews; k++)
		if (!t->views[k]->root && !strcmp(t->views[k]->log, log))
			return t->views[k];
	return NULL;
}

/* The agent view whose folder is name, or NULL. */
struct view *ad_view_by_name(struct tree *t, const char *name)
{
	uint32_t k;

	for (k = 1; k < t->nviews; k++)
		if (!strcmp(t->views[k]->name, name))
			return t->views[k];
	return NULL;
}

static const struct agent_fail *fail_of(const struct agent_fail *f, uint32_t n,
					const char *log)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(f[i].log, log))
			return &f[i];
	return NULL;
}

static void meta_stat(struct view *v)
{
	memset(&v->meta_st, 0, sizeof(v->meta_st));
	if (v->meta)
		stat(v->meta, &v->meta_st);
}

/* name, made unique among the views but self (scan_mu held): into out,
 * NM_MAX + 1 bytes. A view keeps its name, but for one named by its first
 * prompt, renamed once (take_agent()). */
static void unique_name(struct tree *t, const struct view *self, const char *name, char *out)
{
	const struct view *o;
	unsigned k;

	snprintf(out, NM_MAX + 1, "%s", name);
	for (k = 2; (o = ad_view_by_name(t, out)) && o != self; k++)
		snprintf(out, NM_MAX + 1, "%.*s.%u", AG_NAME_KEEP + 9, name, k & 0xffffu);
}

/* A new view of session s for agent e, numbered no, named as lab says
 * (scan_mu held, not the lock); takes s. */
static int open_view(struct tree *t, const struct ag_entry *e, const struct al_label *lab,
		     uint32_t call_view, struct session *s, uint32_t no, struct view **out)
{
	struct view *v;

	if (!(v = vw_new(s, no)))
		return -ENOMEM;
	v->aid = malloc(e->idlen + 1);
	v->log = strdup(e->log);
	v->meta = e->meta ? strdup(e->meta) : NULL;
	v->desc = strdup(*lab->desc ? lab->desc : lab->type);
	v->call = lab->call;
	v->call_view = call_view;
	if (!v->aid || !v->log || (e->meta && !v->meta) || !v->desc) {
		vw_free(v);
		return -ENOMEM;
	}
	memcpy(v->aid, e->id, e->idlen + 1);
	v->aidlen = e->idlen;
	meta_stat(v);
	unique_name(t, NULL, lab->name, v->name);
	*out = v;
	return 0;
}

/* The label of agent id (its name, the call that ran it), from the log
 * that holds the call: the session's, or an agent's that ran it in turn
 * (read lock taken here). *in: the view of that log (0 when none has it). */
static void label(struct tree *t, const char *id, size_t n, const char *meta,
		  struct al_label *lab, uint32_t *in)
{
	struct session *s;
	uint32_t k;

	pthread_rwlock_rdlock(&t->lock);
	for (k = 0, *in = 0; k < t->nviews; k++) {
		if (k && t->views[k]->aidlen == n && !memcmp(t->views[k]->aid, id, n))
			continue;	/* its own log runs no call of it */
		s = t->views[k]->s;
		al_label(ss_graph(s), ss_logf(s), id, n, meta, lab);
		if (lab->call) {
			*in = k;
			break;
		}
	}
	if (k == t->nviews)	/* no call: what meta.json says */
		al_label(ss_graph(t->views[0]->s), ss_logf(t->views[0]->s), id, n, meta, lab);
	pthread_rwlock_unlock(&t->lock);
}

static int open_agent(struct tree *t, const struct ag_entry *e, uint32_t no,
		      struct view **out)
{
	struct al_label lab;
	struct session *s;
	uint32_t in;
	int first, rc = ss_open(e->log, SS_LIVE, &s);

	if (rc)
		return rc;
	label(t, e->id, e->idlen, e->meta, &lab, &in);
	first = !*lab.desc && !*lab.type;
	if (first) {		/* no call, no meta.json: its first prompt */
		char *title = NULL;
		enum lh_title_kind kind;

		if (!lh_index_title(ss_idx(s), ss_logf(s), &title, &kind) && title) {
			snprintf(lab.desc, sizeof(lab.desc), "%s", title);
			al_name(e->id, e->idlen, &lab);
		}
		free(title);
	}
	rc = open_view(t, e, &lab, in, s, no, out);
	if (!rc)
		(*out)->first_prompt = (uint8_t)first;
	return rc;
}

/* Agent v, whose log showed up before its call did (or before its
 * meta.json): labelled as a fresh mount labels it once the call is there,
 * renamed if it was named by its first prompt. 1 if it changed. */
static int relabel(struct tree *t, struct view *v)
{
	char name[NM_MAX + 1], *desc;
	struct al_label lab;
	uint32_t in;

	label(t, v->aid, v->aidlen, v->meta, &lab, &in);
	if (!lab.call && (!v->first_prompt || (!*lab.desc && !*lab.type)))
		return 0;
	desc = v->first_prompt ? strdup(*lab.desc ? lab.desc : lab.type) : NULL;
	if (v->first_prompt && !desc)
		return 0;
	if (v->first_prompt)
		unique_name(t, v, lab.name, name);
	pthread_rwlock_wrlock(&t->lock);
	if (desc) {
		free(v->desc);
		v->desc = desc;
		memcpy(v->name, name, sizeof(name));
		v->first_prompt = 0;
	}
	v->call = lab.call;
	v->call_view = in;
	pthread_rwlock_unlock(&t->lock);
	return 1;
}

static void fail_line(const char *log, int rc, struct sbuf *out)
{
	sb_adds(out, "agents: ");
	ag_quote(log, strlen(log), out);
	sb_addf(out, ": cannot be shown: %s\n",
		rc == -ENOMSG ? "not a session log" : strerror(-rc));
}

/* Takes the agent e of a scan in: 1 if a view was added or changed. */
static int take_agent(struct tree *t, const struct ag_entry *e,
		      struct agent_fail *fails, uint32_t *nfails, struct sbuf *errs)
{
	struct view *v = view_by_log(t, e->log);
	const struct agent_fail *old;
	struct stat st;
	int rc;

	if (v) {
		struct stat was = v->meta_st;

		if (!v->meta && e->meta) {
			char *m = strdup(e->meta);

			pthread_rwlock_wrlock(&t->lock);
			v->meta = m;
			pthread_rwlock_unlock(&t->lock);
		}
		meta_stat(v);
		if ((v->first_prompt || !v->call) && !v->root &&
		    v->labelled != __atomic_load_n(&t->gen, __ATOMIC_ACQUIRE)) {
			v->labelled = __atomic_load_n(&t->gen, __ATOMIC_ACQUIRE);
			if (relabel(t, v))
				return 1;
		}
		return was.st_size != v->meta_st.st_size ||
		       PL_MTIM(was).tv_sec != PL_MTIM(v->meta_st).tv_sec ||
		       PL_MTIM(was).tv_nsec != PL_MTIM(v->meta_st).tv_nsec;
	}
	if (stat(e->log, &st))
		st.st_size = -1;
	old = fail_of(t->ad->fails, t->ad->nfails, e->log);
	if (old && old->size == st.st_size) {
		rc = old->rc;
	} else if (t->nviews > TR_VIEW_MAX) {
		rc = -EMFILE;
	} else if (!(rc = open_agent(t, e, t->nviews, &v))) {
		pthread_rwlock_wrlock(&t->lock);
		rc = vw_add(t, v);
		pthread_rwlock_unlock(&t->lock);
		if (!rc)
			return 1;
		vw_free(v);
	}
	fails[*nfails].log = strdup(e->log);
	fails[*nfails].size = st.st_size;
	fails[*nfails].rc = rc;
	if (fails[*nfails].log)
		(*nfails)++;
	fail_line(e->log, rc, errs);
	return 0;
}

/* ---- inline sidechains (1.0.x): parts of the session's own log ---- */

/* What a scan needs of one inline sidechain, copied under the lock. */
struct part {
	char id[SC_ID_MAX + 1];
	size_t idlen;
	char root[IDX_UUID_MAX + 1];
};

static int has_part(struct tree *t, const char *root)
{
	uint32_t k;

	for (k = 1; k < t->nviews; k++)
		if (t->views[k]->root && !strcmp(t->views[k]->root, root))
			return 1;
	return 0;
}

/* The sidechains of the session not shown yet (read lock taken here). */
static struct part *new_parts(struct tree *t, uint32_t *n)
{
	const struct sc_set *sc;
	struct part *p = NULL;
	uint32_t i;

	*n = 0;
	pthread_rwlock_rdlock(&t->lock);
	sc = ss_sidechains(t->views[0]->s);
	for (i = 0; i < sc_count(sc); i++) {
		const struct sc_agent *a = sc_get(sc, i);
		struct part *q;

		if (has_part(t, a->uuid) || !(q = realloc(p, (*n + 1) * sizeof(*p))))
			continue;
		p = q;
		memcpy(p[*n].id, a->id, a->idlen + 1);
		p[*n].idlen = a->idlen;
		memcpy(p[*n].root, a->uuid, sizeof(a->uuid));
		(*n)++;
	}
	pthread_rwlock_unlock(&t->lock);
	return p;
}

/* A view of the inline sidechain p (scan_mu held, not the lock: the read
 * lock is taken while the part is made from the session). */
static int open_part(struct tree *t, const struct part *p, struct view **out)
{
	struct ag_entry e = { 0 };
	struct al_label lab;
	struct session *s;
	struct view *v;
	uint32_t in;
	int rc;

	pthread_rwlock_rdlock(&t->lock);	/* the part copies the session's index */
	rc = ss_open_part(t->views[0]->s, p->root, &s);
	pthread_rwlock_unlock(&t->lock);
	if (rc)
		return rc;
	e.id = (char *)p->id;
	e.idlen = p->idlen;
	e.log = t->ad->log;
	label(t, p->id, p->idlen, NULL, &lab, &in);
	rc = open_view(t, &e, &lab, in, s, t->nviews, &v);
	if (!rc && !(v->root = strdup(p->root))) {
		vw_free(v);
		rc = -ENOMEM;
	}
	if (!rc)
		*out = v;
	return rc;
}

/* Shows the inline sidechains not shown yet: 1 if the tree changed. */
static int scan_parts(struct tree *t, struct sbuf *errs)
{
	uint32_t i, n;
	struct part *p = new_parts(t, &n);
	struct view *v;
	int changed = 0, rc;

	for (i = 0; i < n; i++) {
		if (t->nviews > TR_VIEW_MAX)
			rc = -EMFILE;
		else if (!(rc = open_part(t, &p[i], &v))) {
			pthread_rwlock_wrlock(&t->lock);
			rc = vw_add(t, v);
			pthread_rwlock_unlock(&t->lock);
			if (rc)
				vw_free(v);
			changed |= !rc;
		}
		if (rc)
			sb_addf(errs, "agents: the inline sidechain from row %s cannot be shown: %s\n",
				p[i].root, strerror(-rc));
	}
	free(p);
	return changed;
}

int ad_scan(struct tree *t)
{
	struct ag_list *l;
	struct agent_fail *fails;
	uint32_t i, nfails = 0;
	struct sbuf errs;
	int changed = 0;

	if (pthread_mutex_trylock(&t->ad->scan_mu))
		return 0;		/* another thread is at it */
	if (ag_find(t->ad->log, NULL, t->ad->seen, &l)) {
		pthread_mutex_unlock(&t->ad->scan_mu);
		return 0;
	}
	fails = calloc(ag_count(l) + 1, sizeof(*fails));
	sb_init(&errs);
	ag_errors_text(l, &errs);
	for (i = 0; fails && i < ag_count(l); i++)
		changed |= take_agent(t, ag_get(l, i), fails, &nfails, &errs);
	changed |= scan_parts(t, &errs);
	pthread_rwlock_wrlock(&t->lock);
	if (fails) {
		free_fails(t->ad->fails, t->ad->nfails);
		t->ad->fails = fails;
		t->ad->nfails = nfails;
	}
	if (strcmp(errs.buf ? errs.buf : "", t->ad->errs ? t->ad->errs : "")) {
		free(t->ad->errs);
		t->ad->errs = errs.buf ? strdup(errs.buf) : NULL;
		changed = 1;
	}
	pthread_rwlock_unlock(&t->lock);
	sb_free(&errs);
	ag_free(l);
	pthread_mutex_unlock(&t->ad->scan_mu);
	return changed;
}

void ad_avoid(struct tree *t, dev_t dev)
{
	pthread_mutex_lock(&t->ad->scan_mu);
	ag_seen_avoid(t->ad->seen, dev);
	pthread_mutex_unlock(&t->ad->scan_mu);
}

/* The inline sidechain whose Task call result id of v answers: its id's
 * length, copied into aid (AG_ID_MAX + 1 bytes), or 0. */
static size_t part_of_result(struct tree *t, struct view *v, uint32_t id, char *aid)
{
	const struct graph *g = ss_graph(v->s);
	const struct sc_agent *a;

	if (!gr_is_node(g, id) || gr_node_rec(g, id)->block != IDX_B_TOOL_RESULT)
		return 0;
	a = sc_by_use(ss_sidechains(t->views[0]->s), gr_node_rec(g, id)->useid);
	if (!a || a->idlen > AG_ID_MAX)
		return 0;
	memcpy(aid, a->id, a->idlen + 1);
	return a->idlen;
}

int ad_folder(struct tree *t, struct view *v, uint32_t id, char *out)
{
	char aid[AG_ID_MAX + 1];
	size_t n = ag_result_agent(ss_graph(v->s), ss_logf(v->s), id, aid, sizeof(aid));
	uint32_t k;

	if (!n)
		n = part_of_result(t, v, id, aid);

	if (!n)
		return 0;
	for (k = 1; k < t->nviews; k++) {
		if (t->views[k]->aidlen == n && !memcmp(t->views[k]->aid, aid, n)) {
			strcpy(out, t->views[k]->name);
			return 1;
		}
	}
	{
		struct al_label lab;	/* the name it gets when it shows up */

		al_label_of_result(ss_graph(v->s), ss_logf(v->s), id, aid, n, &lab);
		strcpy(out, lab.name);
	}
	return 1;
}

/* ---- which agent a Task result names, across growth ---- */

struct ad_pair {
	uint64_t useid;		/* the Task call's id, hashed (js_hash()) */
	uint64_t agent;		/* the id of the conversation it ran */
};

struct ad_pairs {
	struct ad_pair *p;
	uint32_t n;
};

static uint64_t fnv1a(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	while (n--)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static int cmp_pair(const void *a, const void *b)
{
	const struct ad_pair *x = a, *y = b;

	if (x->useid != y->useid)
		return x->useid < y->useid ? -1 : 1;
	return x->agent < y->agent ? -1 : x->agent > y->agent;
}

struct ad_pairs *ad_pairs_now(struct tree *t)
{
	const struct sc_set *sc = ss_sidechains(t->views[0]->s);
	uint32_t i, n = sc_count(sc);
	struct ad_pairs *ps = calloc(1, sizeof(*ps));

	if (!ps || !(ps->p = calloc(n ? n : 1, sizeof(*ps->p)))) {
		free(ps);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		const struct sc_agent *a = sc_get(sc, i);

		if (a->useid)
			ps->p[ps->n++] = (struct ad_pair){ a->useid, fnv1a(a->id, a->idlen) };
	}
	qsort(ps->p, ps->n, sizeof(*ps->p), cmp_pair);
	return ps;
}

void ad_pairs_free(struct ad_pairs *ps)
{
	if (ps)
		free(ps->p);
	free(ps);
}

/* The pairs of a and b from *i and *j on with the call id useid: whether
 * they name the same agents (both move past them). */
static int same_run(const struct ad_pairs *a, uint32_t *i, const struct ad_pairs *b,
		    uint32_t *j, uint64_t useid)
{
	int same = 1;

	for (; *i < a->n && a->p[*i].useid == useid; (*i)++) {
		if (*j < b->n && b->p[*j].useid == useid && b->p[*j].agent == a->p[*i].agent)
			(*j)++;
		else
			same = 0;
	}
	for (; *j < b->n && b->p[*j].useid == useid; (*j)++)
		same = 0;
	return same;
}

/* The call ids whose agents differ between a and b, sorted: a new array
 * of *n (NULL when none, or out of memory: *n is then UINT32_MAX). */
static uint64_t *changed_calls(const struct ad_pairs *a, const struct ad_pairs *b, uint32_t *n)
{
	uint64_t *out = malloc(((size_t)a->n + b->n + 1) * sizeof(*out)), useid;
	uint32_t i = 0, j = 0;

	*n = 0;
	if (!out) {
		*n = UINT32_MAX;
		return NULL;
	}
	while (i < a->n || j < b->n) {
		useid = j >= b->n || (i < a->n && a->p[i].useid < b->p[j].useid) ?
			a->p[i].useid : b->p[j].useid;
		if (!same_run(a, &i, b, &j, useid))
			out[(*n)++] = useid;
	}
	return out;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* fn on each Task result among v's messages whose call is in calls (all
 * results when n is UINT32_MAX). */
static void results_of(struct tree *t, struct view *v, const uint64_t *calls, uint32_t n,
		       void (*fn)(struct tree *, struct view *, uint32_t))
{
	const struct graph *g = ss_graph(v->s);
	uint32_t i, nn;
	const uint32_t *ids = gr_nodes(g, &nn);

	for (i = 0; i < nn; i++) {
		const struct idx_rec *r = gr_node_rec(g, ids[i]);

		if (r->block == IDX_B_TOOL_RESULT &&
		    (n == UINT32_MAX || bsearch(&r->useid, calls, n, sizeof(*calls), cmp_u64)))
			fn(t, v, ids[i]);
	}
}

void ad_pairs_changed(struct tree *t, const struct ad_pairs *before,
		      void (*fn)(struct tree *, struct view *, uint32_t))
{
	struct ad_pairs *now = ad_pairs_now(t);
	uint64_t *calls = NULL;
	uint32_t n = UINT32_MAX, k;

	if (before && now)
		calls = changed_calls(before, now, &n);
	for (k = 0; n && k < t->nviews; k++)
		if (!k || t->views[k]->root)
			results_of(t, t->views[k], calls, n, fn);
	free(calls);
	ad_pairs_free(now);
}

int ad_read_meta(const struct view *v, struct sbuf *out)
{
	char buf[65536];
	ssize_t got;
	size_t total = 0;
	int fd = v->meta ? open(v->meta, O_RDONLY | O_CLOEXEC) : -1;

	if (fd < 0)
		return -ENOENT;
	while (total < AD_META_MAX && (got = read(fd, buf, sizeof(buf))) > 0) {
		if ((size_t)got > AD_META_MAX - total)
			got = (ssize_t)(AD_META_MAX - total);
		sb_add(out, buf, (size_t)got);
		total += (size_t)got;
	}
	close(fd);
	return 0;
}


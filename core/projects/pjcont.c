#include "pjcont.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* What was found for one session. */
struct pc_ent {
	uint32_t key;		/* the session it continues, 0: none found */
	char *leaf;		/* the leafUuid naming it, or NULL: none */
};

struct pc_table {
	pthread_mutex_t mu;
	struct pc_ent **by_key;	/* PJ_KEY_MAX + 1; NULL: not looked for */
	uint64_t gen;
};

int pc_new(struct pc_table **out)
{
	struct pc_table *t = calloc(1, sizeof(*t));

	*out = NULL;
	if (!t || !(t->by_key = calloc(PJ_KEY_MAX + 1, sizeof(*t->by_key)))) {
		free(t);
		return -ENOMEM;
	}
	pthread_mutex_init(&t->mu, NULL);
	*out = t;
	return 0;
}

void pc_free(struct pc_table *t)
{
	uint32_t i;

	if (!t)
		return;
	for (i = 0; i <= PJ_KEY_MAX; i++)
		if (t->by_key[i]) {
			free(t->by_key[i]->leaf);
			free(t->by_key[i]);
		}
	free(t->by_key);
	pthread_mutex_destroy(&t->mu);
	free(t);
}

uint64_t pc_gen(struct pc_table *t)
{
	uint64_t g;

	pthread_mutex_lock(&t->mu);
	g = t->gen;
	pthread_mutex_unlock(&t->mu);
	return g;
}

/* x's continuation: its first summary leaf found in its project, else
 * its first one (NULL leaf: it continues none). */
static struct pc_ent *find(const struct pj_set *s, const struct pj_session *x,
			   struct session *ss)
{
	const struct sm_set *sm = ss_summaries(ss);
	uint32_t i, n = sm ? sm_ncont(sm) : 0;
	struct pc_ent *e = calloc(1, sizeof(*e));

	for (i = 0; e && i < n && i < PC_LEAVES && !e->key; i++)
		pj_find_continued(s, x, sm_cont(sm, i)->leaf, &e->key);
	if (e && n)
		e->leaf = strdup(sm_cont(sm, e->key ? i - 1 : 0)->leaf);
	return e;
}

void pc_look(struct pc_table *t, const struct pj_set *s, const struct pj_session *x,
	     struct session *ss)
{
	struct pc_ent *e;
	int done;

	pthread_mutex_lock(&t->mu);
	done = t->by_key[x->key] != NULL;
	pthread_mutex_unlock(&t->mu);
	if (done || !(e = find(s, x, ss)))
		return;
	pthread_mutex_lock(&t->mu);
	if (!t->by_key[x->key]) {
		t->by_key[x->key] = e;
		t->gen += e->leaf != NULL;
		e = NULL;
	}
	pthread_mutex_unlock(&t->mu);
	if (e) {
		free(e->leaf);
		free(e);
	}
}

/* The session key continues (lock held). */
static const struct pj_session *target(struct pc_table *t, const struct pj_set *s,
				       uint32_t key)
{
	const struct pc_ent *e = t->by_key[key];

	return e && e->key ? pj_by_key(s, e->key) : NULL;
}

const struct pj_session *pc_target(struct pc_table *t, const struct pj_set *s, uint32_t key)
{
	const struct pj_session *c;

	pthread_mutex_lock(&t->mu);
	c = target(t, s, key);
	pthread_mutex_unlock(&t->mu);
	return c;
}

static void json_or_null(struct sbuf *out, const char *v)
{
	if (v)
		sb_add_json_str(out, v, strlen(v));
	else
		sb_adds(out, "null");
}

void pc_json(struct pc_table *t, const struct pj_set *s, const struct pj_session *x,
	     struct sbuf *out)
{
	const struct pc_ent *e;
	const struct pj_session *c = x->copy_of ? pj_by_key(s, x->copy_of) : NULL;

	if (c) {		/* a copy: known from the listing */
		sb_adds(out, "{\"sessionId\":");
		json_or_null(out, c->f.sid);
		sb_adds(out, ",\"leafUuid\":");
		json_or_null(out, c->f.last_uuid);
		sb_addc(out, '}');
		return;
	}
	pthread_mutex_lock(&t->mu);
	e = t->by_key[x->key];
	c = target(t, s, x->key);
	if (e && e->leaf) {
		sb_adds(out, "{\"sessionId\":");
		if (c && c->f.sid)
			sb_add_json_str(out, c->f.sid, strlen(c->f.sid));
		else
			sb_adds(out, "null");
		sb_adds(out, ",\"leafUuid\":");
		sb_add_json_str(out, e->leaf, strlen(e->leaf));
		sb_addc(out, '}');
	} else {
		sb_adds(out, "null");
	}
	pthread_mutex_unlock(&t->mu);
}

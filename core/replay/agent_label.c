#include "agent_label.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "agents.h"
#include "jscan.h"

static const char *const id_prefixes[] = { "agent-", "toolu_", "sidechain-" };

static uint64_t hash_of(const char *s, size_t n)
{
	struct js_str j = { s, n, 0 };

	return js_hash(&j);
}

static void copy_str(const cJSON *j, char *out)
{
	if (cJSON_IsString(j) && !*out)
		snprintf(out, AL_DESC_MAX + 1, "%s", j->valuestring);
}

/* The row of g holding the tool_use whose id hashes to use: one that
 * starts with it (the index knows its first block), else one whose line
 * holds uid (n bytes) when it is given. 0 when none. */
static uint32_t call_by_use(const struct graph *g, const struct logf *lf, uint64_t use,
			    const char *uid, size_t n)
{
	uint32_t i, count;
	const uint32_t *ids = gr_nodes(g, &count);
	struct sbuf line;
	uint32_t found = 0;

	for (i = 0; i < count; i++) {
		const struct idx_rec *r = gr_node_rec(g, ids[i]);

		if (r->type == IDX_T_ASSISTANT && r->block == IDX_B_TOOL_USE && r->useid == use)
			return ids[i];
	}
	if (!uid || !n)
		return 0;
	sb_init(&line);
	for (i = 0; i < count && !found; i++) {	/* a call after another in its row */
		const struct idx_rec *r = gr_node_rec(g, ids[i]);

		sb_reset(&line);
		if (r->type == IDX_T_ASSISTANT && r->block == IDX_B_TOOL_USE &&
		    !lf_read(lf, r, &line) && memmem(line.buf, line.len, uid, n))
			found = ids[i];
	}
	sb_free(&line);
	return found;
}

/* The description and subagent_type of the tool_use of row call whose id
 * hashes to use. */
static void describe_call(const struct graph *g, const struct logf *lf, uint32_t call,
			  uint64_t use, struct al_label *out)
{
	cJSON *j = lf_parse(lf, gr_node_rec(g, call));
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(j, "message");
	const cJSON *b, *c = cJSON_GetObjectItemCaseSensitive(m, "content");

	cJSON_ArrayForEach(b, c) {
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(b, "id");
		const cJSON *in = cJSON_GetObjectItemCaseSensitive(b, "input");

		if (!cJSON_IsString(id) || hash_of(id->valuestring, strlen(id->valuestring)) != use)
			continue;
		copy_str(cJSON_GetObjectItemCaseSensitive(in, "description"), out->desc);
		copy_str(cJSON_GetObjectItemCaseSensitive(in, "subagent_type"), out->type);
		break;
	}
	cJSON_Delete(j);
}

/* meta.json's description and agentType, and the toolUseId it names
 * (malloc'd, or NULL). */
static char *read_meta(const char *path, struct al_label *out)
{
	char *buf = malloc(AL_META_MAX), *use = NULL;
	int fd = path ? open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) : -1;
	ssize_t got = fd >= 0 && buf ? read(fd, buf, AL_META_MAX) : -1;
	cJSON *j = got > 0 ? cJSON_ParseWithLength(buf, (size_t)got) : NULL;
	const cJSON *u = cJSON_GetObjectItemCaseSensitive(j, "toolUseId");

	if (fd >= 0)
		close(fd);
	copy_str(cJSON_GetObjectItemCaseSensitive(j, "description"), out->desc);
	copy_str(cJSON_GetObjectItemCaseSensitive(j, "agentType"), out->type);
	if (cJSON_IsString(u))
		use = strdup(u->valuestring);
	cJSON_Delete(j);
	free(buf);
	return use;
}

/* The first Task result of g that names agent id (n bytes), or 0. */
static uint32_t result_naming(const struct graph *g, const struct logf *lf, const char *id,
			      size_t n)
{
	char aid[AG_ID_MAX + 1];
	uint32_t i, count;
	const uint32_t *ids = gr_nodes(g, &count);

	for (i = 0; i < count; i++) {
		const struct idx_rec *r = gr_node_rec(g, ids[i]);

		if (r->type == IDX_T_USER && r->block == IDX_B_TOOL_RESULT &&
		    ag_result_agent(g, lf, ids[i], aid, sizeof(aid)) == n && !memcmp(aid, id, n))
			return ids[i];
	}
	return 0;
}

void al_name(const char *id, size_t n, struct al_label *out)
{
	char slug[NM_SLUG_MAX + 1], shortid[AL_SHORT + 1];
	const char *what = *out->desc ? out->desc : out->type;
	size_t i, p;

	nm_slug(what, slug);
	if (!strcmp(slug, "untitled") && *out->type && what != out->type)
		nm_slug(out->type, slug);
	if (!*what || !strcmp(slug, "untitled")) {
		ag_name(id, n, out->name);
		return;
	}
	for (i = 0, p = 0; i < sizeof(id_prefixes) / sizeof(id_prefixes[0]); i++)
		if (n > strlen(id_prefixes[i]) && !memcmp(id, id_prefixes[i], strlen(id_prefixes[i])))
			p = strlen(id_prefixes[i]);
	nm_safe(id + p, n - p < AL_SHORT ? n - p : AL_SHORT, shortid, sizeof(shortid));
	snprintf(out->name, sizeof(out->name), "%s-%s", slug, shortid);
}

void al_label(const struct graph *g, const struct logf *lf, const char *id, size_t n,
	      const char *meta, struct al_label *out)
{
	struct al_label m;
	char *use;
	uint32_t res;

	memset(out, 0, sizeof(*out));
	memset(&m, 0, sizeof(m));
	use = read_meta(meta, &m);
	if (use) {
		uint64_t h = hash_of(use, strlen(use));

		if ((out->call = call_by_use(g, lf, h, use, strlen(use))))
			describe_call(g, lf, out->call, h, out);
	}
	if (!out->call && (out->call = call_by_use(g, lf, hash_of(id, n), id, n)))
		describe_call(g, lf, out->call, hash_of(id, n), out);
	if (!out->call && (res = result_naming(g, lf, id, n)) &&
	    (out->call = call_by_use(g, lf, gr_node_rec(g, res)->useid, NULL, 0)))
		describe_call(g, lf, out->call, gr_node_rec(g, res)->useid, out);
	if (!*out->desc)	/* the call's words first, then meta.json's */
		memcpy(out->desc, m.desc, sizeof(m.desc));
	if (!*out->type)
		memcpy(out->type, m.type, sizeof(m.type));
	free(use);
	al_name(id, n, out);
}

void al_label_of_result(const struct graph *g, const struct logf *lf, uint32_t result,
			const char *id, size_t n, struct al_label *out)
{
	uint64_t use = gr_node_rec(g, result)->useid;

	memset(out, 0, sizeof(*out));
	if (use && (out->call = call_by_use(g, lf, use, NULL, 0)))
		describe_call(g, lf, out->call, use, out);
	al_name(id, n, out);
}

/*
 * A session's facts for the unit tests of the session layer and above.
 * Header-only.
 */
#ifndef SESSFS_TU_SESSION_H
#define SESSFS_TU_SESSION_H

#include <stdlib.h>

#include <cjson/cJSON.h>

#include "sbuf.h"
#include "session.h"

/* session.json of s, parsed (free with cJSON_Delete()); aborts unless it
 * is a JSON object. */
static inline cJSON *tu_facts(struct session *s)
{
	struct sbuf sb;
	cJSON *j;

	sb_init(&sb);
	ss_facts_json(s, &sb);
	j = cJSON_Parse(sb.buf);
	sb_free(&sb);
	if (!cJSON_IsObject(j))
		abort();
	return j;
}

#endif

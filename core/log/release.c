#include "release.h"

#include <string.h>

/* One decimal field of at most 9 digits; the end, or NULL. */
static const char *field(const char *s, uint32_t *out)
{
	uint32_t v = 0;
	int n = 0;

	while (*s >= '0' && *s <= '9' && n < 9) {
		v = v * 10 + (uint32_t)(*s++ - '0');
		n++;
	}
	*out = v;
	return n && !(*s >= '0' && *s <= '9') ? s : NULL;
}

int rl_parse(const char *s, struct rl_version *v)
{
	if (!s || !(s = field(s, &v->major)) || *s++ != '.' ||
	    !(s = field(s, &v->minor)) || *s++ != '.' || !(s = field(s, &v->patch)))
		return -1;
	return *s == '\0' || *s == '-' || *s == '+' ? 0 : -1;
}

static int cmp_u(uint32_t a, uint32_t b)
{
	return a < b ? -1 : a > b;
}

int rl_cmp(const struct rl_version *a, const struct rl_version *b)
{
	int c = cmp_u(a->major, b->major);

	if (!c)
		c = cmp_u(a->minor, b->minor);
	return c ? c : cmp_u(a->patch, b->patch);
}

const char *rl_of_log(const struct idx *ix)
{
	uint32_t i = idx_nrecs(ix);

	while (i-- > 0)
		if (idx_rec(ix, i)->ver)
			return idx_atom(ix, idx_rec(ix, i)->ver);
	return "";
}

int rl_older(const char *release)
{
	struct rl_version v;

	return !rl_parse(release, &v) && (v.major < 2 || (v.major == 2 && v.minor < 1));
}

int rl_disk_reminder(const char *release)
{
	struct rl_version v;

	return !rl_parse(release, &v) && v.major == 1 && v.minor == 0;
}

int rl_newer(const char *release)
{
	struct rl_version v, newest;

	return !rl_parse(release, &v) && !rl_parse(RL_NEWEST_CHECKED, &newest) &&
	       rl_cmp(&v, &newest) > 0;
}

int rl_copies_on_resume(const char *release)
{
	struct rl_version v;

	return !rl_parse(release, &v) && v.major < 2;
}

#include "scrub.h"

#include <errno.h>
#include <string.h>

void scr_init(struct scrub *c)
{
	memset(c, 0, sizeof(*c));
	sig_init(&c->now);
	sig_init(&c->want);
}

void scr_begin(struct scrub *c, const struct sig *ref)
{
	sig_init(&c->now);
	c->want = *ref;
	c->on = 1;
}

int scr_step(struct scrub *c, int fd, uint64_t max, uint64_t *used)
{
	uint64_t from = c->now.len;
	int rc;

	*used = 0;
	if (!c->on)
		return SCR_GOING;
	rc = sig_file(&c->now, fd, c->want.len, max);
	*used = c->now.len - from;
	if (rc == -ENODATA) {
		c->on = 0;
		return SCR_CHANGED;
	}
	if (rc)
		return rc;
	if (c->now.len < c->want.len)
		return SCR_GOING;
	c->on = 0;
	return sig_value(&c->now) == sig_value(&c->want) ? SCR_SAME : SCR_CHANGED;
}

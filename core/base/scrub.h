/*
 * scrub: a background re-check of a file's signed bytes (sig.h).
 *
 * A session signs the bytes it indexed once (ss_sign()). Growth compares
 * only the last bytes before the old end (SS_TAIL), and a stat cannot
 * tell a same-size rewrite of earlier bytes when more was appended at
 * once. A scrub hashes the signed bytes again, a bounded number of bytes
 * per step, and compares the result with the signature they had: a pass
 * checks the bytes signed when it began (the signature is copied then;
 * growth never changes them), and ends with "the same" or "changed".
 * The owner starts a pass only when the file's times or size moved since
 * the last one began (every write moves ctime): a log nobody writes costs
 * nothing, and a rewrite is found by the pass that begins after it, at
 * the latest.
 *
 * A struct scrub is plain data (no allocation); not thread-safe: the
 * session keeps it under its signature's lock.
 */
#ifndef SESSFS_SCRUB_H
#define SESSFS_SCRUB_H

#include <stdint.h>

#include "sig.h"

struct scrub {
	struct sig now;		/* the bytes hashed again in this pass */
	struct sig want;	/* the signature they had when it began */
	int on;			/* a pass is under way */
};

void scr_init(struct scrub *c);
/* Begins a pass that checks the bytes ref signed (copied). */
void scr_begin(struct scrub *c, const struct sig *ref);

enum scr_result {
	SCR_GOING = 0,		/* a pass is under way (or none: nothing done) */
	SCR_SAME = 1,		/* the pass ended: the bytes are those signed */
	SCR_CHANGED = 2,	/* the pass ended: they are not (or the file
				   is shorter now) */
};
/*
 * Hashes at most max more bytes of fd for the pass under way; *used gets
 * the bytes read. An enum scr_result, or -errno (a read failed but for
 * the file ending early; the pass stays where it was).
 */
int scr_step(struct scrub *c, int fd, uint64_t max, uint64_t *used);

#endif

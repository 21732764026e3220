/*
 * scan: turns one log line into an index record.
 *
 * Reads only the keys the replay needs (type, uuid, parents, time, the
 * first content block, a few flags) with jscan, in one pass over the line,
 * validating its JSON structure as it goes. uuids and atoms are interned in
 * the table given (the index's: intern.h). Thread-safe as far as the
 * table is.
 */
#ifndef SESSFS_SCAN_H
#define SESSFS_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "idx.h"
#include "intern.h"

/*
 * Scans the line [p, p+n) (no newline). Leading NULs, CR and trailing
 * blanks are ignored. On success returns 0 and fills *rec (all but off,
 * len and line); *bad_uuid tells that a uuid field was unusable. Otherwise
 * returns an enum idx_err_code and sets *col to where it went wrong. torn:
 * the line is the unterminated end of the file.
 */
int scan_line(struct intern *in, const char *p, size_t n, int torn,
	      struct idx_rec *rec, uint32_t *col, int *bad_uuid);

#endif

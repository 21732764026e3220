/*
 * render: a message record as text for people.
 *
 * A header (uuid, parent, time, type; model and message id on assistant
 * rows; the log line), a blank line, then the content: text as written;
 * thinking; a tool call's name and pretty-printed input; a tool result's
 * output, errors marked; an attachment's rendered text; a boundary's
 * trigger and token count; a summary's text. Output is valid UTF-8 and
 * ends with a newline; a value in the header or in a block's "--- ... ---"
 * line stays on its line (control characters, like bytes that are not
 * UTF-8, become U+FFFD). The same record always renders to the same bytes.
 *
 * A record is rendered from its line's bytes (jv.h), with no tree: it
 * costs the line plus the output. Which records render, and to what, is
 * what parsing the line's members with cJSON gave: a record whose wanted
 * members cJSON refuses (nested deeper than its limit, a bad escape)
 * renders as its header and a note pointing to records/.
 *
 * Thread-safe: reads the log with pread() and touches nothing shared.
 */
#ifndef SESSFS_RENDER_H
#define SESSFS_RENDER_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "graph.h"
#include "logf.h"
#include "sbuf.h"

/* Appends the rendering of node id to out. 0 or -errno (read error). */
int rd_message(const struct graph *g, const struct logf *lf, uint32_t id,
	       struct sbuf *out);

/* The same with extra header lines (each "key: value\n", from the caller)
 * after the others, before the blank line that ends the header; NULL for
 * none. */
int rd_message_ex(const struct graph *g, const struct logf *lf, uint32_t id,
		  const char *extra, struct sbuf *out);

/* The same from line, when it holds the record's whole line read already
 * (a message file's usage header reads it: us_read_row_line()): the line
 * is then taken (line left empty) and not read again. Any other line
 * (NULL, empty, another length) is left as it is, and the record read. */
int rd_message_line(const struct graph *g, const struct logf *lf, uint32_t id,
		    const char *extra, struct sbuf *line, struct sbuf *out);

/* Appends the cJSON value v as JSON, indented by two spaces per level
 * (the layout a message file gives its JSON parts). */
void rd_json(const cJSON *v, int indent, struct sbuf *out);

#endif

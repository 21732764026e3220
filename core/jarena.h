/*
 * jarena: cJSON trees allocated from an arena, freed in one step.
 *
 * Rendering a record parses it into a cJSON tree of many small nodes and
 * throws the tree away at once; malloc/free per node is most of that cost.
 * ja_install() routes cJSON's allocations through hooks: while a thread has
 * an arena open (ja_begin .. ja_end), its cJSON allocations come from that
 * arena; otherwise they go to malloc as usual.
 *
 * Rules: a tree parsed inside an arena must not outlive ja_end() and must
 * not be cJSON_Delete()d after it (deleting inside is fine and frees
 * nothing). Each thread has its own arena; ja_install() is idempotent and
 * thread-safe.
 */
#ifndef SESSFS_JARENA_H
#define SESSFS_JARENA_H

#include <stddef.h>

#define JA_CHUNK (64u << 10)	/* first chunk; later ones double */

struct ja_chunk;

struct jarena {
	struct ja_chunk *chunks;
	size_t next_size;
};

void ja_install(void);
/* Opens a (stack-allocated, zeroed) arena for this thread's cJSON calls. */
void ja_begin(struct jarena *a);
/* Closes it and frees everything allocated in it. */
void ja_end(struct jarena *a);

#endif

/*
 * tbuf: a buffer of the calling thread's own, kept from one call to the
 * next, for the reads that go through a large buffer many times over (an
 * index fed in chunks, a signature): a malloc() and free() of 256 KB or
 * more per call costs page faults each time (the heap is trimmed, or the
 * block is mapped and unmapped), more than the read it serves when a
 * walk opens thousands of sessions.
 *
 * One buffer per thread and slot (TB_*): a caller holds it until it
 * returns and never calls anything that takes the same slot meanwhile.
 * It grows to the largest size asked and is freed when the thread ends;
 * memory is that size per thread that used the slot.
 * Thread-safe (each thread has its own).
 */
#ifndef SESSFS_TBUF_H
#define SESSFS_TBUF_H

#include <stddef.h>

enum { TB_INDEX, TB_SIG, TB_NSLOTS };

/* The calling thread's buffer of slot, at least size bytes (its bytes are
 * whatever was left in it), or NULL on ENOMEM. Borrowed: valid until the
 * thread's next tb_get() of that slot, or its end. */
void *tb_get(unsigned slot, size_t size);

#endif

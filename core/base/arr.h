/*
 * arr: the growth of an array kept as a pointer and a capacity, the one
 * way every table in core grows: doubling from a first capacity until it
 * holds what is asked, never past UINT32_MAX elements.
 *
 * The array belongs to the caller; arr_grow() only reallocates it. Not
 * thread-safe for one array (the caller's lock, if any); pure otherwise.
 */
#ifndef SESSFS_ARR_H
#define SESSFS_ARR_H

#include <stddef.h>
#include <stdint.h>

/*
 * Makes the array at *vp (a pointer to the caller's array pointer, any
 * element type: &t->rows) hold at least need elements of size bytes:
 * when *cap is short, the capacity doubles from *cap (or first, when the
 * array is empty) until it is enough. 0, or -ENOMEM with the array and
 * *cap unchanged (also when need cannot be had in size_t bytes).
 */
int arr_grow(void *vp, uint32_t *cap, uint32_t need, size_t size, uint32_t first);

#endif

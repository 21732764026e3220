#include "arr.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int arr_grow(void *vp, uint32_t *cap, uint32_t need, size_t size, uint32_t first)
{
	uint32_t ncap;
	void *v, *p;

	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap : first ? first : 1;
	while (ncap < need)
		ncap = ncap > UINT32_MAX / 2 ? UINT32_MAX : ncap * 2;
	if (size && ncap > SIZE_MAX / size)
		return -ENOMEM;
	/* The caller's pointer, read and written as bytes: any object
	 * pointer type goes through void * unchanged here. */
	memcpy(&v, vp, sizeof(v));
	p = realloc(v, (size_t)ncap * size);
	if (!p)
		return -ENOMEM;
	memcpy(vp, &p, sizeof(p));
	*cap = ncap;
	return 0;
}

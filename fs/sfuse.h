/* The one place that says which libfuse API sessfs is written against. */
#ifndef SESSFS_SFUSE_H
#define SESSFS_SFUSE_H

#define FUSE_USE_VERSION 312
#include <fuse_lowlevel.h>

#endif

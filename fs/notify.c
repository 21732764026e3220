#include "notify.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "plat.h"
#include "vfs.h"

struct notifier {
	struct fuse_session *se;
	struct vfs *v;
	char *mnt;
	pthread_t thread;
};

static void send_one(struct fuse_session *se, const struct vf_inval *e)
{
	if (e->parent)
		fuse_lowlevel_notify_inval_entry(se, e->parent, e->name, strlen(e->name));
	else
		fuse_lowlevel_notify_inval_inode(se, e->ino, 0, 0);
}

static void *run(void *arg)
{
	struct notifier *n = arg;
	struct vf_inval *q;
	struct stat st;
	size_t i, len;

	/* Named, so that top -H and the tests (tests/mount/lib.sh:
	 * watcher_read) tell it from the request threads. */
	pl_name_thread(NT_THREAD_NAME);
	/* Served by the loop like any request (this thread is not one). */
	if (n->mnt && !stat(n->mnt, &st))
		n->v->ops->own_device(n->v->fs, st.st_dev);
	for (;;) {
		n->v->ops->wait(n->v->fs, &q, &len);
		if (!len)
			break;
		for (i = 0; i < len; i++)
			send_one(n->se, &q[i]);
		free(q);
	}
	return NULL;
}

struct notifier *nt_start(struct fuse_session *se, struct vfs *v, const char *mnt)
{
	struct notifier *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->se = se;
	n->v = v;
	n->mnt = mnt ? strdup(mnt) : NULL;
	if (pthread_create(&n->thread, NULL, run, n)) {
		free(n->mnt);
		free(n);
		return NULL;
	}
	return n;
}

void nt_stop(struct notifier *n)
{
	if (!n)
		return;
	n->v->ops->stop(n->v->fs);
	pthread_join(n->thread, NULL);
	free(n->mnt);
	free(n);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Linux native AIO engine, on the raw io_setup/io_submit/io_getevents
 * syscalls (no libaio).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/aio_abi.h>

#include "engine.h"

struct aio_priv {
	aio_context_t ctx;
	int fd;
	unsigned int qd;
	unsigned int pending;
	struct iocb *iocbs;		/* one per slot */
	struct iocb **queue;		/* prepared, not yet submitted */
	struct io_event *events;
};

static long sys_io_setup(unsigned int nr, aio_context_t *ctx)
{
	return syscall(SYS_io_setup, nr, ctx);
}

static long sys_io_destroy(aio_context_t ctx)
{
	return syscall(SYS_io_destroy, ctx);
}

static long sys_io_submit(aio_context_t ctx, long nr, struct iocb **iocbpp)
{
	return syscall(SYS_io_submit, ctx, nr, iocbpp);
}

static long sys_io_getevents(aio_context_t ctx, long min_nr, long nr,
			     struct io_event *events)
{
	return syscall(SYS_io_getevents, ctx, min_nr, nr, events, NULL);
}

static void aio_free(struct aio_priv *p)
{
	free(p->iocbs);
	free(p->queue);
	free(p->events);
	free(p);
}

static int aio_init(struct engine *e, int fd, unsigned int qd)
{
	struct aio_priv *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	p->iocbs = calloc(qd, sizeof(*p->iocbs));
	p->queue = calloc(qd, sizeof(*p->queue));
	p->events = calloc(qd, sizeof(*p->events));
	if (!p->iocbs || !p->queue || !p->events) {
		aio_free(p);
		return -ENOMEM;
	}
	if (sys_io_setup(qd, &p->ctx) < 0) {
		int err = errno;

		aio_free(p);
		return -err;
	}
	p->fd = fd;
	p->qd = qd;
	e->priv = p;
	return 0;
}

static int aio_prep(struct engine *e, unsigned int slot, enum io_op op,
		    void *buf, size_t len, uint64_t off)
{
	struct aio_priv *p = e->priv;
	struct iocb *cb;

	if (slot >= p->qd || p->pending >= p->qd)
		return -EINVAL;
	cb = &p->iocbs[slot];
	memset(cb, 0, sizeof(*cb));
	cb->aio_data = slot;
	cb->aio_lio_opcode = op == IO_WRITE ? IOCB_CMD_PWRITE : IOCB_CMD_PREAD;
	cb->aio_fildes = (uint32_t)p->fd;
	cb->aio_buf = (uint64_t)(uintptr_t)buf;
	cb->aio_nbytes = len;
	cb->aio_offset = (int64_t)off;
	p->queue[p->pending++] = cb;
	return 0;
}

static int aio_submit(struct engine *e, unsigned int *syscalls)
{
	struct aio_priv *p = e->priv;
	unsigned int done = 0;
	long ret;

	while (done < p->pending) {
		ret = sys_io_submit(p->ctx, p->pending - done, p->queue + done);
		(*syscalls)++;
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret <= 0) {
			int err = ret < 0 ? errno : EAGAIN;

			if (!done) {
				p->pending = 0;
				return -err;
			}
			break;
		}
		done += (unsigned int)ret;
	}
	p->pending = 0;
	return (int)done;
}

static int aio_reap(struct engine *e, unsigned int min, struct io_done *done,
		    unsigned int max)
{
	struct aio_priv *p = e->priv;
	long ret, i;

	if (max > p->qd)
		max = p->qd;
	for (;;) {
		ret = sys_io_getevents(p->ctx, min, max, p->events);
		if (ret >= 0)
			break;
		if (errno != EINTR)
			return -errno;
	}
	for (i = 0; i < ret; i++) {
		done[i].slot = (unsigned int)p->events[i].data;
		done[i].res = p->events[i].res;
	}
	return (int)ret;
}

static void aio_exit(struct engine *e)
{
	struct aio_priv *p = e->priv;

	if (!p)
		return;
	sys_io_destroy(p->ctx);
	aio_free(p);
	e->priv = NULL;
}

const struct engine_ops engine_aio_ops = {
	.name	= "aio",
	.init	= aio_init,
	.prep	= aio_prep,
	.submit	= aio_submit,
	.reap	= aio_reap,
	.exit	= aio_exit,
};

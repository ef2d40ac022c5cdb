// SPDX-License-Identifier: GPL-2.0
/*
 * io_uring engine.  Uses IORING_OP_READV/WRITEV (Linux 5.1+) rather than
 * IORING_OP_READ/WRITE (5.6+) so it runs on every kernel with io_uring.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/uio.h>

#include <liburing.h>

#include "engine.h"

struct uring_priv {
	struct io_uring ring;
	int fd;
	unsigned int qd;
	unsigned int pending;
	struct iovec *iov;	/* one per slot, must live until completion */
};

static int uring_init(struct engine *e, int fd, unsigned int qd)
{
	struct uring_priv *p = calloc(1, sizeof(*p));
	int ret;

	if (!p)
		return -ENOMEM;
	p->iov = calloc(qd, sizeof(*p->iov));
	if (!p->iov) {
		free(p);
		return -ENOMEM;
	}
	ret = io_uring_queue_init(qd, &p->ring, 0);
	if (ret < 0) {
		free(p->iov);
		free(p);
		return ret;
	}
	p->fd = fd;
	p->qd = qd;
	e->priv = p;
	return 0;
}

static int uring_prep(struct engine *e, unsigned int slot, enum io_op op,
		      void *buf, size_t len, uint64_t off)
{
	struct uring_priv *p = e->priv;
	struct io_uring_sqe *sqe;

	if (slot >= p->qd)
		return -EINVAL;
	sqe = io_uring_get_sqe(&p->ring);
	if (!sqe)
		return -EBUSY;
	p->iov[slot].iov_base = buf;
	p->iov[slot].iov_len = len;
	if (op == IO_WRITE)
		io_uring_prep_writev(sqe, p->fd, &p->iov[slot], 1, off);
	else
		io_uring_prep_readv(sqe, p->fd, &p->iov[slot], 1, off);
	io_uring_sqe_set_data64(sqe, slot);
	p->pending++;
	return 0;
}

static int uring_submit(struct engine *e, unsigned int *syscalls)
{
	struct uring_priv *p = e->priv;
	unsigned int done = 0;
	int ret;

	while (done < p->pending) {
		ret = io_uring_submit(&p->ring);
		(*syscalls)++;
		if (ret == -EINTR)
			continue;
		if (ret <= 0) {
			if (!done) {
				p->pending = 0;
				return ret < 0 ? ret : -EAGAIN;
			}
			break;
		}
		done += (unsigned int)ret;
	}
	p->pending = 0;
	return (int)done;
}

static int uring_reap(struct engine *e, unsigned int min,
		      struct io_done *done, unsigned int max)
{
	struct uring_priv *p = e->priv;
	struct io_uring_cqe *cqe;
	unsigned int n = 0;
	int ret;

	while (n < max) {
		if (n < min) {
			ret = io_uring_wait_cqe(&p->ring, &cqe);
			if (ret == -EINTR)
				continue;
			if (ret < 0)
				return n ? (int)n : ret;
		} else {
			ret = io_uring_peek_cqe(&p->ring, &cqe);
			if (ret < 0)
				break;
		}
		done[n].slot = (unsigned int)io_uring_cqe_get_data64(cqe);
		done[n].res = cqe->res;
		io_uring_cqe_seen(&p->ring, cqe);
		n++;
	}
	return (int)n;
}

static void uring_exit(struct engine *e)
{
	struct uring_priv *p = e->priv;

	if (!p)
		return;
	io_uring_queue_exit(&p->ring);
	free(p->iov);
	free(p);
	e->priv = NULL;
}

const struct engine_ops engine_io_uring_ops = {
	.name	= "io_uring",
	.init	= uring_init,
	.prep	= uring_prep,
	.submit	= uring_submit,
	.reap	= uring_reap,
	.exit	= uring_exit,
};

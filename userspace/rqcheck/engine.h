/* SPDX-License-Identifier: GPL-2.0 */
/*
 * I/O engines: io_uring (liburing) and Linux AIO (raw syscalls).
 *
 * The caller owns @qd slots.  It prepares I/Os with ->prep(), which only
 * queues them in user space, and hands every prepared I/O to the kernel
 * with one ->submit() call, so the number of I/Os prepared between two
 * submits is the number the kernel sees in one io_uring_enter() or
 * io_submit() (which is what decides block-layer plugging).
 */
#ifndef RQCHECK_ENGINE_H
#define RQCHECK_ENGINE_H

#include <stddef.h>
#include <stdint.h>

enum engine_kind {
	ENGINE_IO_URING,
	ENGINE_AIO,
};

enum io_op {
	IO_READ,
	IO_WRITE,
};

struct io_done {
	unsigned int slot;
	int64_t res;		/* bytes transferred, or -errno */
};

struct engine;

struct engine_ops {
	const char *name;
	int (*init)(struct engine *e, int fd, unsigned int qd);
	/* queue one I/O for slot @slot; 0 or -errno */
	int (*prep)(struct engine *e, unsigned int slot, enum io_op op,
		    void *buf, size_t len, uint64_t off);
	/*
	 * submit all I/Os prepared since the last submit; returns how many
	 * were accepted (normally all) or -errno; *syscalls counts calls made
	 */
	int (*submit)(struct engine *e, unsigned int *syscalls);
	/* wait for at least @min completions, return up to @max, or -errno */
	int (*reap)(struct engine *e, unsigned int min, struct io_done *done,
		    unsigned int max);
	void (*exit)(struct engine *e);
};

struct engine {
	const struct engine_ops *ops;
	void *priv;
};

extern const struct engine_ops engine_io_uring_ops;
extern const struct engine_ops engine_aio_ops;

const char *engine_name(enum engine_kind k);
int engine_parse(const char *s, enum engine_kind *k);
const struct engine_ops *engine_ops_of(enum engine_kind k);
/* set e->ops to @ops and call init; -errno on failure */
int engine_open(struct engine *e, const struct engine_ops *ops, int fd,
		unsigned int qd);
void engine_close(struct engine *e);

#endif

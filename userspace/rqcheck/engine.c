// SPDX-License-Identifier: GPL-2.0
/*
 * Engine selection.
 */
#include <errno.h>
#include <string.h>

#include "engine.h"

const char *engine_name(enum engine_kind k)
{
	return k == ENGINE_AIO ? "aio" : "io_uring";
}

int engine_parse(const char *s, enum engine_kind *k)
{
	if (!strcmp(s, "io_uring") || !strcmp(s, "uring")) {
		*k = ENGINE_IO_URING;
		return 0;
	}
	if (!strcmp(s, "aio") || !strcmp(s, "libaio")) {
		*k = ENGINE_AIO;
		return 0;
	}
	return -1;
}

const struct engine_ops *engine_ops_of(enum engine_kind k)
{
	return k == ENGINE_AIO ? &engine_aio_ops : &engine_io_uring_ops;
}

int engine_open(struct engine *e, const struct engine_ops *ops, int fd,
		unsigned int qd)
{
	int ret;

	e->ops = ops;
	e->priv = NULL;
	ret = e->ops->init(e, fd, qd);
	if (ret < 0)
		e->ops = NULL;
	return ret;
}

void engine_close(struct engine *e)
{
	if (e->ops)
		e->ops->exit(e);
	e->ops = NULL;
}

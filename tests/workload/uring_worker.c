// SPDX-License-Identifier: GPL-2.0
/*
 * Makes the kernel run an io_uring worker (iou-wrk-*, a PF_USER_WORKER
 * thread) that blocks: a read of an empty pipe, forced to the async
 * worker with IOSQE_ASYNC, completed 200 ms later by a write.
 */
#include <liburing.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	char buf[16];
	int fds[2];
	int ret;

	if (pipe(fds) || io_uring_queue_init(4, &ring, 0)) {
		perror("setup");
		return 1;
	}
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read(sqe, fds[0], buf, sizeof(buf), 0);
	sqe->flags |= IOSQE_ASYNC;
	ret = io_uring_submit(&ring);
	if (ret != 1) {
		fprintf(stderr, "submit: %s\n", strerror(-ret));
		return 1;
	}
	usleep(200000);
	if (write(fds[1], "x", 1) != 1)
		return 1;
	ret = io_uring_wait_cqe(&ring, &cqe);
	if (ret || cqe->res != 1) {
		fprintf(stderr, "read did not complete: %d %d\n", ret,
			ret ? 0 : cqe->res);
		return 1;
	}
	io_uring_cqe_seen(&ring, cqe);
	io_uring_queue_exit(&ring);
	return 0;
}

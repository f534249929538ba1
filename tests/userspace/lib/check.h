/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The small test harness shared by the libustack unit tests:
 * begin() a test, CHECK() conditions, end() it; failures counts the
 * failed tests.  Each test program includes it once.
 */
#ifndef USTACK_TEST_CHECK_H
#define USTACK_TEST_CHECK_H

#include <stdio.h>

static int failures;
static const char *cur_test;
static int cur_failed;

#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		if (!cur_failed)					\
			printf("FAIL: %s: ", cur_test);			\
		else							\
			printf("      %s: ", cur_test);			\
		printf(__VA_ARGS__);					\
		printf(" (line %d)\n", __LINE__);			\
		cur_failed = 1;						\
	}								\
} while (0)

static void begin(const char *name)
{
	cur_test = name;
	cur_failed = 0;
}

static void end(void)
{
	if (cur_failed)
		failures++;
	else
		printf("PASS: %s\n", cur_test);
}

#endif /* USTACK_TEST_CHECK_H */

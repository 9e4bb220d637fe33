/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of the toss engine's arithmetic and of a node's turns, which
 * need no NUMA machine and drop nothing: included at the end of
 * mm/toss_cache.c, whose static functions they call.
 */

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>

/* What a node short of free memory is still to toss (toss_free_need()). */
static void toss_test_free_need(struct kunit *test)
{
	struct toss_request req = { .free_pages = 1000 };

	/* What it lacks, with the spare. */
	KUNIT_EXPECT_EQ(test, toss_free_need(&req, 400, ULONG_MAX, 0),
			600 + TOSS_FREE_SPARE);
	/* No more than what is left of an amount, less what it gave. */
	KUNIT_EXPECT_EQ(test, toss_free_need(&req, 400, 100, 30), 70UL);
	KUNIT_EXPECT_EQ(test, toss_free_need(&req, 400, 100, 100), 0UL);
	KUNIT_EXPECT_EQ(test, toss_free_need(&req, 400, 100, 150), 0UL);
	/* Never ULONG_MAX, with what it gave, whatever the target. */
	req.free_pages = ULONG_MAX;
	KUNIT_EXPECT_EQ(test, toss_free_need(&req, 0, ULONG_MAX, 0),
			ULONG_MAX - 1);
	KUNIT_EXPECT_EQ(test, toss_free_need(&req, 0, ULONG_MAX, 5),
			ULONG_MAX - 6);
	KUNIT_EXPECT_EQ(test, toss_free_need(&req, 0, ULONG_MAX,
					     ULONG_MAX - 1), 0UL);
}

/* How many workers walk a node (toss_nr_workers()). */
static void toss_test_nr_workers(struct kunit *test)
{
	unsigned long big = ULONG_MAX / 2, stripe = TOSS_STRIPE;

	KUNIT_EXPECT_EQ(test, toss_nr_workers(1, big), 1U);
	KUNIT_EXPECT_EQ(test, toss_nr_workers(2, big), 2U);
	/* Never past TOSS_MAX_WORKERS, however many CPUs. */
	KUNIT_EXPECT_EQ(test, toss_nr_workers(64, big), TOSS_MAX_WORKERS);
	KUNIT_EXPECT_EQ(test, toss_nr_workers(UINT_MAX, big), TOSS_MAX_WORKERS);
	/* At least two stripes each on a small node, and one at least. */
	KUNIT_EXPECT_EQ(test, toss_nr_workers(8, 5 * stripe), 2U);
	KUNIT_EXPECT_EQ(test, toss_nr_workers(8, 4 * stripe - 1), 1U);
	KUNIT_EXPECT_EQ(test, toss_nr_workers(8, 1), 1U);
	KUNIT_EXPECT_EQ(test, toss_nr_workers(8, 0), 1U);
	/* No CPU to run them on: the caller's, one worker. */
	KUNIT_EXPECT_EQ(test, toss_nr_workers(0, big), 1U);
}

/* Turns come first come first served; a place given up passes on. */
static void toss_test_turn_order(struct kunit *test)
{
	struct toss_turn a, b, c, d, e;
	int nid = first_online_node;

	KUNIT_ASSERT_NOT_NULL(test, toss_node_locks);
	KUNIT_ASSERT_TRUE(test, toss_node_turn_queue(nid, &a, test));
	KUNIT_EXPECT_FALSE(test, toss_node_turn_queue(nid, &b, test));
	KUNIT_EXPECT_FALSE(test, toss_node_turn_queue(nid, &c, test));
	/* b leaves before its turn: c is next. */
	toss_node_turn_leave(nid, &b);
	toss_node_turn_end(nid);
	KUNIT_EXPECT_FALSE(test, b.granted);
	KUNIT_EXPECT_TRUE(test, c.granted);
	/* A turn that came is taken at once by its waiter. */
	KUNIT_EXPECT_EQ(test, toss_node_turn_wait(nid, &c, NULL, NULL), 0);
	/* c gives up the turn it has: d, which queued behind it, gets it. */
	KUNIT_EXPECT_FALSE(test, toss_node_turn_queue(nid, &d, test));
	toss_node_turn_leave(nid, &c);
	KUNIT_EXPECT_TRUE(test, d.granted);
	toss_node_turn_end(nid);
	/* Nobody waits: the node is free again. */
	KUNIT_EXPECT_TRUE(test, toss_node_turn_queue(nid, &e, test));
	toss_node_turn_end(nid);
}

/* A waiter of toss_test_turn_wake(), in a kernel thread of its own. */
struct toss_test_waiter {
	struct toss_turn turn;
	atomic_t stop_calls;
	bool stop;
	int ret;
	struct completion done;
};

static bool toss_test_stop(void *data)
{
	struct toss_test_waiter *w = data;

	atomic_inc(&w->stop_calls);
	return READ_ONCE(w->stop);
}

static int toss_test_waiter_fn(void *data)
{
	struct toss_test_waiter *w = data;

	w->ret = toss_node_turn_wait(first_online_node, &w->turn,
				     toss_test_stop, w);
	complete(&w->done);
	while (!kthread_should_stop())
		schedule_timeout_idle(HZ / 10);
	return 0;
}

static struct task_struct *toss_test_start_waiter(struct kunit *test,
						  struct toss_test_waiter *w)
{
	struct task_struct *t;
	int i;

	init_completion(&w->done);
	atomic_set(&w->stop_calls, 0);
	w->ret = -EINPROGRESS;		/* until its wait returns */
	t = kthread_run(toss_test_waiter_fn, w, "toss_kunit");
	if (IS_ERR(t))
		return t;
	/* Until it sleeps in the wait (its stop was asked once). */
	for (i = 0; i < 50 && !atomic_read(&w->stop_calls); i++)
		msleep(20);
	KUNIT_EXPECT_GT(test, atomic_read(&w->stop_calls), 0);
	return t;
}

/*
 * toss_cache_wake() wakes the waiters of one caller's tosses and no other;
 * the end of a turn wakes its next waiter.
 */
static void toss_test_turn_wake(struct kunit *test)
{
	struct toss_test_waiter *w = kunit_kzalloc(test, 2 * sizeof(*w),
						   GFP_KERNEL);
	struct task_struct *t[2];
	struct toss_turn held;
	int nid = first_online_node, calls, i;
	bool holding = true;

	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_ASSERT_NOT_NULL(test, toss_node_locks);
	KUNIT_ASSERT_TRUE(test, toss_node_turn_queue(nid, &held, test));
	KUNIT_EXPECT_FALSE(test, toss_node_turn_queue(nid, &w[0].turn, &w[0]));
	KUNIT_EXPECT_FALSE(test, toss_node_turn_queue(nid, &w[1].turn, &w[1]));
	t[0] = toss_test_start_waiter(test, &w[0]);
	t[1] = IS_ERR(t[0]) ? t[0] : toss_test_start_waiter(test, &w[1]);
	if (IS_ERR(t[1])) {
		KUNIT_FAIL(test, "no waiter thread");
		goto out;
	}

	/* w[0]'s toss is told to stop: w[1] is not woken. */
	calls = atomic_read(&w[1].stop_calls);
	WRITE_ONCE(w[0].stop, true);
	toss_cache_wake(&w[0]);
	KUNIT_EXPECT_GT(test, wait_for_completion_timeout(&w[0].done, 10 * HZ), 0UL);
	KUNIT_EXPECT_EQ(test, w[0].ret, -ENODEV);
	msleep(20);
	KUNIT_EXPECT_EQ(test, atomic_read(&w[1].stop_calls), calls);
	KUNIT_EXPECT_FALSE(test, completion_done(&w[1].done));

	/* The holder's turn ends: w[1], the next in the queue, has it. */
	toss_node_turn_end(nid);
	holding = false;
	KUNIT_EXPECT_GT(test, wait_for_completion_timeout(&w[1].done, 10 * HZ), 0UL);
	KUNIT_EXPECT_EQ(test, w[1].ret, 0);
	KUNIT_EXPECT_TRUE(test, w[1].turn.granted);
out:
	/*
	 * Whatever failed above: no waiter waits any more, a turn a waiter got
	 * is ended, and then the holder's, so that nothing holds the node.
	 */
	for (i = 0; i < 2; i++) {
		if (IS_ERR(t[i])) {
			toss_node_turn_leave(nid, &w[i].turn);
			continue;
		}
		WRITE_ONCE(w[i].stop, true);
		toss_cache_wake(&w[i]);
		kthread_stop(t[i]);
		if (!w[i].ret)
			toss_node_turn_end(nid);
		else if (w[i].ret == -EINPROGRESS)	/* it never waited */
			toss_node_turn_leave(nid, &w[i].turn);
	}
	if (holding)
		toss_node_turn_end(nid);
}

static struct kunit_case toss_cache_test_cases[] = {
	KUNIT_CASE(toss_test_free_need),
	KUNIT_CASE(toss_test_nr_workers),
	KUNIT_CASE(toss_test_turn_order),
	KUNIT_CASE(toss_test_turn_wake),
	{}
};

static struct kunit_suite toss_cache_test_suite = {
	.name = "toss_cache",
	.test_cases = toss_cache_test_cases,
};

kunit_test_suite(toss_cache_test_suite);

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of memory.reclaim's parser, memory_reclaim_parse(): the
 * request each write makes, and each write it refuses before anything is
 * reclaimed.
 *
 * Included at the end of mm/memcontrol.c, as mm/damon includes its tests,
 * so that the static parser need not be exported.
 */

#include <kunit/test.h>

static int reclaim_test_parse(struct kunit *test, const char *in,
			      struct memory_reclaim_args *args)
{
	char *buf = kunit_kzalloc(test, strlen(in) + 1, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	strscpy(buf, in, strlen(in) + 1);
	return memory_reclaim_parse(buf, args);
}

/* Without clean_cache=1: an amount and swappiness=, as before. */
static void reclaim_test_plain(struct kunit *test)
{
	struct memory_reclaim_args a;

	KUNIT_EXPECT_EQ(test, reclaim_test_parse(test, "1M", &a), 0);
	KUNIT_EXPECT_EQ(test, a.nr_pages, SZ_1M / PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, a.swappiness, -1);
	KUNIT_EXPECT_FALSE(test, a.clean_cache);
	KUNIT_EXPECT_FALSE(test, a.nodes_set);

	KUNIT_EXPECT_EQ(test, reclaim_test_parse(test, " 2G  swappiness=60\n", &a), 0);
	KUNIT_EXPECT_EQ(test, a.nr_pages, SZ_2G / PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, a.swappiness, 60);

	KUNIT_EXPECT_EQ(test, reclaim_test_parse(test, "4096 clean_cache=0", &a), 0);
	KUNIT_EXPECT_EQ(test, a.nr_pages, 4096 / PAGE_SIZE);
	KUNIT_EXPECT_FALSE(test, a.clean_cache);

	/* Less than a page is zero pages, as it always was. */
	KUNIT_EXPECT_EQ(test, reclaim_test_parse(test, "1", &a), 0);
	KUNIT_EXPECT_EQ(test, a.nr_pages, 0);
}

/* clean_cache=1, with "max" and nodes=. */
static void reclaim_test_clean_cache(struct kunit *test)
{
	int nid = first_node(node_states[N_MEMORY]);
	struct memory_reclaim_args a;
	char in[64];

	KUNIT_EXPECT_EQ(test, reclaim_test_parse(test, "64M clean_cache=1", &a), 0);
	KUNIT_EXPECT_EQ(test, a.nr_pages, SZ_64M / PAGE_SIZE);
	KUNIT_EXPECT_TRUE(test, a.clean_cache);
	KUNIT_EXPECT_FALSE(test, a.nodes_set);
	KUNIT_EXPECT_EQ(test, a.swappiness, -1);

	KUNIT_EXPECT_EQ(test, reclaim_test_parse(test, "max clean_cache=1", &a), 0);
	KUNIT_EXPECT_EQ(test, a.nr_pages, ULONG_MAX);
	KUNIT_EXPECT_TRUE(test, a.clean_cache);

	snprintf(in, sizeof(in), "max nodes=%d clean_cache=1", nid);
	KUNIT_EXPECT_EQ(test, reclaim_test_parse(test, in, &a), 0);
	KUNIT_EXPECT_TRUE(test, a.nodes_set);
	KUNIT_EXPECT_EQ(test, nodes_weight(a.nodes), 1);
	KUNIT_EXPECT_TRUE(test, node_isset(nid, a.nodes));

	/* The last clean_cache= counts, as the last swappiness= does. */
	KUNIT_EXPECT_EQ(test, reclaim_test_parse(test, "1M clean_cache=0 clean_cache=1", &a), 0);
	KUNIT_EXPECT_TRUE(test, a.clean_cache);
}

/* Each of these is -EINVAL. */
static const char * const reclaim_test_bad[] = {
	"",
	"clean_cache=1",			/* no amount */
	"max",					/* "max" only with clean_cache=1 */
	"max swappiness=60",
	"maxi clean_cache=1",
	"max0 clean_cache=1",
	"1M nodes=0",				/* nodes= only with clean_cache=1 */
	"1M clean_cache=0 nodes=0",
	"1M clean_cache=1 swappiness=0",	/* swappiness= not with it */
	"1M swappiness=0 clean_cache=1",
	"1M clean_cache=2",
	"1M clean_cache=-1",
	"1M clean_cache=yes",
	"1M clean_cache=",
	"1M clean_cache=1 nodes=",
	"1M clean_cache=1 nodes=abc",
	"1M clean_cache=1 nodes=0-",
	"1M clean_cache=1 nodes=0 nodes=0",	/* nodes= once */
	"1M swappiness=201",
	"1M swappiness=-1",
	"1M bogus=1",
	"1M clean_cache=1\tnodes=0",		/* keys are separated by spaces */
};

static void reclaim_test_refused(struct kunit *test)
{
	struct memory_reclaim_args a;
	char in[64];
	int i, nid;

	for (i = 0; i < ARRAY_SIZE(reclaim_test_bad); i++)
		KUNIT_EXPECT_EQ_MSG(test, reclaim_test_parse(test, reclaim_test_bad[i], &a),
				    -EINVAL, "\"%s\"", reclaim_test_bad[i]);

	/* Beyond the node ids there can be, and a node without memory. */
	snprintf(in, sizeof(in), "1M clean_cache=1 nodes=%d", MAX_NUMNODES);
	KUNIT_EXPECT_EQ_MSG(test, reclaim_test_parse(test, in, &a), -EINVAL, "\"%s\"", in);
	for (nid = 0; nid < MAX_NUMNODES; nid++)
		if (!node_state(nid, N_MEMORY))
			break;
	if (nid < MAX_NUMNODES) {
		snprintf(in, sizeof(in), "1M clean_cache=1 nodes=%d", nid);
		KUNIT_EXPECT_EQ_MSG(test, reclaim_test_parse(test, in, &a), -EINVAL,
				    "\"%s\"", in);
	}
}

static struct kunit_case memcg_reclaim_parse_cases[] = {
	KUNIT_CASE(reclaim_test_plain),
	KUNIT_CASE(reclaim_test_clean_cache),
	KUNIT_CASE(reclaim_test_refused),
	{}
};

static struct kunit_suite memcg_reclaim_parse_suite = {
	.name = "memcg_reclaim_parse",
	.test_cases = memcg_reclaim_parse_cases,
};

kunit_test_suite(memcg_reclaim_parse_suite);

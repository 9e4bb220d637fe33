/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of cpuset.memory_toss_cache: the parser of its requests and
 * the choice of its nodes.
 *
 * Included at the end of cpuset-toss.c, as mm/damon includes its tests, so
 * that the static functions it tests need not be exported.  None of them
 * touches a page, a cpuset or a node: the tests need no NUMA machine.
 */

#ifndef _CPUSET_TOSS_KUNIT_H
#define _CPUSET_TOSS_KUNIT_H

#include <kunit/test.h>

/* A request, given to the write handler's checks and the parser. */
static int toss_test_write(struct kunit *test, const char *in, size_t len,
			   struct toss_request_args *req)
{
	/* kernfs hands a write over NUL-terminated, one byte past @len. */
	char *buf = kunit_kzalloc(test, len + 1, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	memcpy(buf, in, len);
	return toss_parse_write(buf, len, req);
}

static int toss_test_parse(struct kunit *test, const char *in,
			   struct toss_request_args *req)
{
	return toss_test_write(test, in, strlen(in), req);
}

/* No key given: every key's default. */
static void toss_test_expect_no_keys(struct kunit *test, const char *in,
				     const struct toss_request_args *req)
{
	KUNIT_EXPECT_EQ_MSG(test, req->free_pages, 0UL, "\"%s\"", in);
	KUNIT_EXPECT_FALSE_MSG(test, req->scope_set, "\"%s\"", in);
	KUNIT_EXPECT_FALSE_MSG(test, req->scope_cgroup, "\"%s\"", in);
	KUNIT_EXPECT_FALSE_MSG(test, req->slab_set, "\"%s\"", in);
	KUNIT_EXPECT_FALSE_MSG(test, req->slab, "\"%s\"", in);
	KUNIT_EXPECT_FALSE_MSG(test, req->nodes_set, "\"%s\"", in);
	KUNIT_EXPECT_TRUE_MSG(test, nodes_empty(req->nodes), "\"%s\"", in);
}

struct toss_test_err {
	const char *in;
	int err;
};

static void toss_test_expect_errors(struct kunit *test,
				    const struct toss_test_err *t, size_t n)
{
	struct toss_request_args req;
	size_t i;

	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ_MSG(test, toss_test_parse(test, t[i].in, &req),
				    t[i].err, "\"%s\"", t[i].in);
}

/* "1" and "max" toss all: no amount. */
static void toss_parse_test_all(struct kunit *test)
{
	static const char * const all[] = {
		"1", "max", "1\n", "max\n", " 1", "max  ", "  1\n", "\t1\t",
	};
	struct toss_request_args req;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(all); i++) {
		KUNIT_EXPECT_EQ_MSG(test, toss_test_parse(test, all[i], &req), 0,
				    "\"%s\"", all[i]);
		KUNIT_EXPECT_EQ_MSG(test, req.nr_pages, ULONG_MAX, "\"%s\"",
				    all[i]);
		toss_test_expect_no_keys(test, all[i], &req);
	}
}

/*
 * A size: decimal, an optional suffix of either case for powers of 1024,
 * rounded down to whole pages.
 */
static void toss_parse_test_size(struct kunit *test)
{
	static const struct {
		const char *in;
		u64 bytes;
	} sizes[] = {
		{ "4096", 4096 },
		{ "8191", 8191 },
		{ "8192", 8192 },
		{ "1048576", SZ_1M },
		{ "1048577\n", SZ_1M + 1 },
		{ "4k", SZ_4K },
		{ "4K", SZ_4K },
		{ "512m", 512ULL << 20 },
		{ "512M", 512ULL << 20 },
		{ " 2g ", 2ULL << 30 },
		{ "2G", 2ULL << 30 },
		{ "3t", 3ULL << 40 },
		{ "3T", 3ULL << 40 },
		{ "5p", 5ULL << 50 },
		{ "5P", 5ULL << 50 },
		{ "1e", 1ULL << 60 },
		{ "1E", 1ULL << 60 },
		{ "00000000000000000004096", 4096 },	/* 23 digits */
		/* The largest of each suffix that fits in 64 bits. */
		{ "18014398509481983K", U64_MAX - (SZ_1K - 1) },
		{ "17592186044415M", U64_MAX - (SZ_1M - 1) },
		{ "17179869183G", U64_MAX - (SZ_1G - 1) },
		{ "16777215T", U64_MAX - ((1ULL << 40) - 1) },
		{ "16383P", U64_MAX - ((1ULL << 50) - 1) },
		{ "15E", U64_MAX - ((1ULL << 60) - 1) },
		{ "18446744073709551615", U64_MAX },
	};
	struct toss_request_args req;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		const char *in = sizes[i].in;
		u64 bytes = sizes[i].bytes;
		int ret = toss_test_parse(test, in, &req);

		if (bytes < PAGE_SIZE) {
			KUNIT_EXPECT_EQ_MSG(test, ret, -EINVAL, "\"%s\"", in);
			continue;
		}
		KUNIT_EXPECT_EQ_MSG(test, ret, 0, "\"%s\"", in);
		KUNIT_EXPECT_EQ_MSG(test, (u64)req.nr_pages,
				    min_t(u64, bytes >> PAGE_SHIFT, ULONG_MAX - 1),
				    "\"%s\"", in);
		/* Never ULONG_MAX, which means all. */
		KUNIT_EXPECT_NE_MSG(test, req.nr_pages, ULONG_MAX, "\"%s\"", in);
		toss_test_expect_no_keys(test, in, &req);
	}
}

/* Less than a page cannot be tossed; "1" is all, but "01" is one byte. */
static void toss_parse_test_size_below_page(struct kunit *test)
{
	static const struct toss_test_err t[] = {
		{ "0", -EINVAL }, { "01", -EINVAL }, { "2", -EINVAL },
		{ "4095", -EINVAL }, { "0K", -EINVAL }, { "3K", -EINVAL },
		{ "3k", -EINVAL }, { "0M", -EINVAL }, { "0E", -EINVAL },
		{ "00000000000000000000000", -EINVAL },
	};

	toss_test_expect_errors(test, t, ARRAY_SIZE(t));
}

/* A size beyond 64 bits is -ERANGE, with or without a suffix. */
static void toss_parse_test_size_range(struct kunit *test)
{
	static const struct toss_test_err t[] = {
		{ "18446744073709551616", -ERANGE },
		{ "99999999999999999999", -ERANGE },
		{ "100000000000000000000000", -ERANGE },	/* 24 digits */
		{ "18014398509481984K", -ERANGE },
		{ "17592186044416M", -ERANGE },
		{ "17179869184G", -ERANGE },
		{ "16777216T", -ERANGE },
		{ "16384P", -ERANGE },
		{ "16E", -ERANGE },
		{ "16e", -ERANGE },
		{ "99999999999999999999E", -ERANGE },
		{ "16E slab=1", -ERANGE },
	};

	toss_test_expect_errors(test, t, ARRAY_SIZE(t));
}

/* What is not an amount at all. */
static void toss_parse_test_not_amount(struct kunit *test)
{
	static const struct toss_test_err t[] = {
		{ "", -EINVAL }, { " ", -EINVAL }, { "\n", -EINVAL },
		{ "-1", -EINVAL }, { "+8192", -EINVAL }, { "0x2000", -EINVAL },
		{ "8192B", -EINVAL }, { "8KB", -EINVAL }, { "8KiB", -EINVAL },
		{ "1.5G", -EINVAL }, { "G", -EINVAL }, { "K8", -EINVAL },
		{ "8X", -EINVAL }, { "MAX", -EINVAL }, { "Max", -EINVAL },
		{ "maxx", -EINVAL }, { "all", -EINVAL }, { "nodes=0", -EINVAL },
		{ "slab=1", -EINVAL }, { "8192 K", -EINVAL }, { "1 1", -EINVAL },
		{ "max max", -EINVAL }, { "1 8192", -EINVAL },
		/* Keys are separated by spaces or tabs, not commas. */
		{ "1,slab=1", -EINVAL },
	};

	toss_test_expect_errors(test, t, ARRAY_SIZE(t));
}

/* nodes=: a node list as cpuset.mems takes it, given once, not empty. */
static void toss_parse_test_nodes(struct kunit *test)
{
	static const struct {
		const char *in;
		unsigned long mask;
	} lists[] = {
		{ "1 nodes=0", 0x1 },
		{ "1 nodes=2", 0x4 },
		{ "max nodes=0,2", 0x5 },
		{ "1 nodes=3,1", 0xa },
		{ "1 nodes=1,1", 0x2 },
		{ "1 nodes=0-3", 0xf },
		{ "1 nodes=1-2", 0x6 },
		{ "1 nodes=3-3", 0x8 },
		{ "1 nodes=0,2-3", 0xd },
		{ "1 nodes=0-3:1/2", 0x5 },
		{ "8192 nodes=1\n", 0x2 },
	};
	struct toss_request_args req;
	char in[40];
	size_t i;
	int nid;

	if (MAX_NUMNODES < 4)
		kunit_skip(test, "MAX_NUMNODES is %d", MAX_NUMNODES);
	for (i = 0; i < ARRAY_SIZE(lists); i++) {
		KUNIT_EXPECT_EQ_MSG(test, toss_test_parse(test, lists[i].in, &req),
				    0, "\"%s\"", lists[i].in);
		KUNIT_EXPECT_TRUE_MSG(test, req.nodes_set, "\"%s\"", lists[i].in);
		for (nid = 0; nid < MAX_NUMNODES; nid++)
			KUNIT_EXPECT_EQ_MSG(test, node_isset(nid, req.nodes),
					    nid < BITS_PER_LONG &&
					    (lists[i].mask & BIT(nid)),
					    "\"%s\": node %d", lists[i].in, nid);
		KUNIT_EXPECT_FALSE(test, req.scope_set || req.slab_set ||
				   req.free_pages);
	}
	/* The last node there can be. */
	snprintf(in, sizeof(in), "1 nodes=%d", MAX_NUMNODES - 1);
	KUNIT_EXPECT_EQ_MSG(test, toss_test_parse(test, in, &req), 0, "\"%s\"", in);
	KUNIT_EXPECT_EQ_MSG(test, nodes_weight(req.nodes), 1, "\"%s\"", in);
	KUNIT_EXPECT_TRUE_MSG(test, node_isset(MAX_NUMNODES - 1, req.nodes),
			      "\"%s\"", in);
}

static void toss_parse_test_nodes_invalid(struct kunit *test)
{
	static const struct toss_test_err t[] = {
		{ "1 nodes=", -EINVAL },
		{ "1 nodes=,", -EINVAL },		/* empty */
		{ "1 nodes=0-3:0/4", -EINVAL },		/* empty */
		{ "1 nodes=x", -EINVAL },
		{ "1 nodes=-1", -EINVAL },
		{ "1 nodes=1-0", -EINVAL },
		{ "1 nodes=0;1", -EINVAL },
		{ "1 nodes=0=1", -EINVAL },
		{ "1 nodes=0,1 2", -EINVAL },
		{ "1 nodes=0 nodes=1", -EINVAL },
		{ "1 nodes=0 nodes=0", -EINVAL },
		{ "1 Nodes=0", -EINVAL },
		{ "1 node=0", -EINVAL },
		{ "1 nodes", -EINVAL },
	};
	struct toss_request_args req;
	char in[40];

	toss_test_expect_errors(test, t, ARRAY_SIZE(t));
	/* Beyond the last node there can be: -EINVAL, not -ERANGE. */
	snprintf(in, sizeof(in), "1 nodes=%d", MAX_NUMNODES);
	KUNIT_EXPECT_EQ_MSG(test, toss_test_parse(test, in, &req), -EINVAL,
			    "\"%s\"", in);
	snprintf(in, sizeof(in), "1 nodes=0-%d", MAX_NUMNODES);
	KUNIT_EXPECT_EQ_MSG(test, toss_test_parse(test, in, &req), -EINVAL,
			    "\"%s\"", in);
}

/* free=: a size, rounded up to whole pages; not 0; given once. */
static void toss_parse_test_free(struct kunit *test)
{
	static const struct {
		const char *in;
		unsigned long nr_pages;
		u64 bytes;
	} t[] = {
		{ "1 free=1", ULONG_MAX, 1 },
		{ "1 free=4095", ULONG_MAX, 4095 },
		{ "1 free=4096", ULONG_MAX, 4096 },
		{ "max free=4097", ULONG_MAX, 4097 },
		{ "1 free=1G", ULONG_MAX, SZ_1G },
		{ "1 free=60g", ULONG_MAX, 60ULL << 30 },
		{ "512M free=2G", 512UL << (20 - PAGE_SHIFT), 2ULL << 30 },
		{ "1 free=15E", ULONG_MAX, 15ULL << 60 },
		{ "1 free=18446744073709551615", ULONG_MAX, U64_MAX },
		{ "1 free=1G scope=node", ULONG_MAX, SZ_1G },
	};
	struct toss_request_args req;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		u64 pages = t[i].bytes >> PAGE_SHIFT;

		pages += !!(t[i].bytes & ~PAGE_MASK);
		KUNIT_EXPECT_EQ_MSG(test, toss_test_parse(test, t[i].in, &req), 0,
				    "\"%s\"", t[i].in);
		KUNIT_EXPECT_EQ_MSG(test, req.nr_pages, t[i].nr_pages, "\"%s\"",
				    t[i].in);
		KUNIT_EXPECT_EQ_MSG(test, (u64)req.free_pages,
				    min_t(u64, pages, ULONG_MAX - 1), "\"%s\"",
				    t[i].in);
		KUNIT_EXPECT_FALSE_MSG(test, req.scope_cgroup, "\"%s\"", t[i].in);
	}
}

static void toss_parse_test_free_invalid(struct kunit *test)
{
	static const struct toss_test_err t[] = {
		{ "1 free=", -EINVAL },
		{ "1 free=0", -EINVAL },
		{ "1 free=0G", -EINVAL },
		{ "1 free=x", -EINVAL },
		{ "1 free=-1", -EINVAL },
		{ "1 free=1GB", -EINVAL },
		{ "1 free=1 G", -EINVAL },
		{ "1 free=max", -EINVAL },
		{ "1 free=16E", -ERANGE },
		{ "1 free=18446744073709551616", -ERANGE },
		{ "1 free=1G free=1G", -EINVAL },
		{ "1 free=1G free=2G", -EINVAL },
		{ "1 Free=1G", -EINVAL },
	};

	toss_test_expect_errors(test, t, ARRAY_SIZE(t));
}

/* scope=node|cgroup and slab=0|1: exactly these values, given once. */
static void toss_parse_test_scope_slab(struct kunit *test)
{
	static const struct {
		const char *in;
		bool scope_set, scope_cgroup, slab_set, slab;
	} t[] = {
		{ "1 scope=node", true, false, false, false },
		{ "1 scope=cgroup", true, true, false, false },
		{ "1 slab=0", false, false, true, false },
		{ "1 slab=1", false, false, true, true },
		{ "8192 scope=cgroup slab=0", true, true, true, false },
		{ "max slab=1 scope=node", true, false, true, true },
	};
	struct toss_request_args req;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		KUNIT_EXPECT_EQ_MSG(test, toss_test_parse(test, t[i].in, &req), 0,
				    "\"%s\"", t[i].in);
		KUNIT_EXPECT_EQ_MSG(test, req.scope_set, t[i].scope_set,
				    "\"%s\"", t[i].in);
		KUNIT_EXPECT_EQ_MSG(test, req.scope_cgroup, t[i].scope_cgroup,
				    "\"%s\"", t[i].in);
		KUNIT_EXPECT_EQ_MSG(test, req.slab_set, t[i].slab_set, "\"%s\"",
				    t[i].in);
		KUNIT_EXPECT_EQ_MSG(test, req.slab, t[i].slab, "\"%s\"", t[i].in);
		KUNIT_EXPECT_FALSE_MSG(test, req.nodes_set || req.free_pages,
				       "\"%s\"", t[i].in);
	}
}

static void toss_parse_test_scope_slab_invalid(struct kunit *test)
{
	static const struct toss_test_err t[] = {
		{ "1 scope=", -EINVAL }, { "1 scope=Node", -EINVAL },
		{ "1 scope=nodes", -EINVAL }, { "1 scope=cgroups", -EINVAL },
		{ "1 scope=memcg", -EINVAL }, { "1 scope=1", -EINVAL },
		{ "1 scope=node scope=node", -EINVAL },
		{ "1 scope=node scope=cgroup", -EINVAL },
		{ "1 scope=cgroup scope=cgroup", -EINVAL },
		{ "1 slab=", -EINVAL }, { "1 slab=2", -EINVAL },
		{ "1 slab=01", -EINVAL }, { "1 slab=yes", -EINVAL },
		{ "1 slab=on", -EINVAL }, { "1 slab=-1", -EINVAL },
		{ "1 slab=0 slab=0", -EINVAL }, { "1 slab=1 slab=0", -EINVAL },
		/* free= is the node's target: not with scope=cgroup. */
		{ "1 free=1G scope=cgroup", -EINVAL },
		{ "1 scope=cgroup free=1G", -EINVAL },
		{ "8192 scope=cgroup slab=1 free=4096", -EINVAL },
		/*
		 * slab=1 reaches file systems' own caches, which ignore the
		 * node and the memcg: not with scope=cgroup.
		 */
		{ "8192 scope=cgroup slab=1", -EINVAL },
		{ "1 slab=1 scope=cgroup", -EINVAL },
	};

	toss_test_expect_errors(test, t, ARRAY_SIZE(t));
}

/* Keys no one knows, and every key at once, in any order. */
static void toss_parse_test_keys(struct kunit *test)
{
	static const struct toss_test_err bad[] = {
		{ "1 foo=1", -EINVAL }, { "1 =1", -EINVAL }, { "1 =", -EINVAL },
		{ "1 swappiness=0", -EINVAL }, { "1 nodes=0 foo", -EINVAL },
		{ "1 slab=1 x", -EINVAL }, { "1 SLAB=1", -EINVAL },
	};
	struct toss_request_args req;
	int ret;

	toss_test_expect_errors(test, bad, ARRAY_SIZE(bad));

	if (MAX_NUMNODES < 3)
		kunit_skip(test, "MAX_NUMNODES is %d", MAX_NUMNODES);
	ret = toss_test_parse(test, "512M nodes=1,2 free=2G scope=node slab=1",
			      &req);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, req.nr_pages, 512UL << (20 - PAGE_SHIFT));
	KUNIT_EXPECT_EQ(test, req.free_pages, 2UL << (30 - PAGE_SHIFT));
	KUNIT_EXPECT_TRUE(test, req.scope_set && !req.scope_cgroup);
	KUNIT_EXPECT_TRUE(test, req.slab_set && req.slab);
	KUNIT_EXPECT_TRUE(test, req.nodes_set);
	KUNIT_EXPECT_EQ(test, nodes_weight(req.nodes), 2);
	KUNIT_EXPECT_TRUE(test, node_isset(1, req.nodes) &&
			  node_isset(2, req.nodes));

	/* Spaces between and around keys do not count. */
	ret = toss_test_parse(test, "  1   slab=0    nodes=2  scope=cgroup\n",
			      &req);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, req.nr_pages, ULONG_MAX);
	KUNIT_EXPECT_TRUE(test, req.scope_cgroup && req.slab_set && !req.slab);
	KUNIT_EXPECT_TRUE(test, req.nodes_set && node_isset(2, req.nodes) &&
			  nodes_weight(req.nodes) == 1);
	KUNIT_EXPECT_EQ(test, req.free_pages, 0UL);

	/* Tabs separate as spaces do, as memory.reclaim takes them. */
	ret = toss_test_parse(test, "8192\tslab=1\t nodes=2", &req);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, req.nr_pages, 8192UL >> PAGE_SHIFT);
	KUNIT_EXPECT_TRUE(test, req.slab && req.nodes_set);
}

/* The longest write is TOSS_MAX_INPUT bytes. */
static void toss_parse_test_length(struct kunit *test)
{
	static const char req_str[] = "8192 nodes=0 slab=1";
	size_t len = sizeof(req_str) - 1, max = TOSS_MAX_INPUT;
	struct toss_request_args req;
	char *buf;

	buf = kunit_kzalloc(test, max + 2, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);

	/* The request, then spaces to the longest write, and a newline. */
	memset(buf, ' ', max + 1);
	memcpy(buf, req_str, len);
	buf[max - 1] = '\n';
	KUNIT_EXPECT_EQ(test, toss_test_write(test, buf, max, &req), 0);
	KUNIT_EXPECT_EQ(test, req.nr_pages, 8192UL >> PAGE_SHIFT);
	KUNIT_EXPECT_TRUE(test, req.slab && req.nodes_set);
	/* One more space before the newline: too long. */
	buf[max - 1] = ' ';
	buf[max] = '\n';
	KUNIT_EXPECT_EQ(test, toss_test_write(test, buf, max + 1, &req), -EINVAL);

	/* Spaces, then the request, ending the longest write. */
	memset(buf, ' ', max + 1);
	memcpy(buf + max - len, req_str, len);
	KUNIT_EXPECT_EQ(test, toss_test_write(test, buf, max, &req), 0);
	KUNIT_EXPECT_TRUE(test, req.slab && req.nodes_set);
	/* One more space before it: too long. */
	memset(buf, ' ', max + 1);
	memcpy(buf + max + 1 - len, req_str, len);
	KUNIT_EXPECT_EQ(test, toss_test_write(test, buf, max + 1, &req), -EINVAL);

	/* The shortest, and empty writes. */
	KUNIT_EXPECT_EQ(test, toss_test_write(test, "1", 1, &req), 0);
	KUNIT_EXPECT_EQ(test, toss_test_write(test, "", 0, &req), -EINVAL);
	KUNIT_EXPECT_EQ(test, toss_test_write(test, "\n", 1, &req), -EINVAL);
}

/* A NUL inside the write does not cut the request short: -EINVAL. */
static void toss_parse_test_nul(struct kunit *test)
{
	static const struct {
		const char *in;
		size_t len;
	} t[] = {
		{ "\0", 1 },
		{ "1\0", 2 },
		{ "max\0\n", 5 },
		{ "1\0nodes=0", 9 },
		{ "8192 slab=1\0", 12 },
		{ "8192 nod\0es=0", 13 },
		{ "\0 1", 3 },
	};
	struct toss_request_args req;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++)
		KUNIT_EXPECT_EQ_MSG(test, toss_test_write(test, t[i].in, t[i].len,
							  &req),
				    -EINVAL, "case %zu", i);
	/* The same bytes up to the NUL are a good request. */
	KUNIT_EXPECT_EQ(test, toss_test_write(test, "1\0nodes=0", 1, &req), 0);
}

/*
 * The nodes of a toss: the cpuset's effective mems with memory, or those
 * of nodes=, which must all be both; bad ones change nothing.
 */
static void toss_parse_test_pick_nodes(struct kunit *test)
{
	nodemask_t memory = NODE_MASK_NONE, eff = NODE_MASK_NONE, nodes;
	struct toss_request_args req;

	if (MAX_NUMNODES < 4)
		kunit_skip(test, "MAX_NUMNODES is %d", MAX_NUMNODES);
	/* Nodes 0-2 have memory, 3 has none; the cpuset has 1-3. */
	node_set(0, memory);
	node_set(1, memory);
	node_set(2, memory);
	node_set(1, eff);
	node_set(2, eff);
	node_set(3, eff);

	KUNIT_ASSERT_EQ(test, toss_test_parse(test, "1", &req), 0);
	nodes = eff;
	KUNIT_EXPECT_EQ(test, toss_pick_nodes(&req, &nodes, &memory), 0);
	KUNIT_EXPECT_EQ(test, nodes_weight(nodes), 2);
	KUNIT_EXPECT_TRUE(test, node_isset(1, nodes) && node_isset(2, nodes));

	KUNIT_ASSERT_EQ(test, toss_test_parse(test, "1 nodes=2", &req), 0);
	nodes = eff;
	KUNIT_EXPECT_EQ(test, toss_pick_nodes(&req, &nodes, &memory), 0);
	KUNIT_EXPECT_EQ(test, nodes_weight(nodes), 1);
	KUNIT_EXPECT_TRUE(test, node_isset(2, nodes));

	KUNIT_ASSERT_EQ(test, toss_test_parse(test, "1 nodes=1-2", &req), 0);
	nodes = eff;
	KUNIT_EXPECT_EQ(test, toss_pick_nodes(&req, &nodes, &memory), 0);
	KUNIT_EXPECT_EQ(test, nodes_weight(nodes), 2);

	/* Node 3 has no memory, node 0 is not the cpuset's. */
	KUNIT_ASSERT_EQ(test, toss_test_parse(test, "1 nodes=3", &req), 0);
	nodes = eff;
	KUNIT_EXPECT_EQ(test, toss_pick_nodes(&req, &nodes, &memory), -EINVAL);
	KUNIT_EXPECT_TRUE(test, nodes_equal(nodes, eff));
	KUNIT_ASSERT_EQ(test, toss_test_parse(test, "1 nodes=0", &req), 0);
	nodes = eff;
	KUNIT_EXPECT_EQ(test, toss_pick_nodes(&req, &nodes, &memory), -EINVAL);
	KUNIT_EXPECT_TRUE(test, nodes_equal(nodes, eff));
	KUNIT_ASSERT_EQ(test, toss_test_parse(test, "1 nodes=1,2,3", &req), 0);
	nodes = eff;
	KUNIT_EXPECT_EQ(test, toss_pick_nodes(&req, &nodes, &memory), -EINVAL);
	KUNIT_EXPECT_TRUE(test, nodes_equal(nodes, eff));

	/* A cpuset whose only node has no memory: nothing to toss. */
	nodes_clear(nodes);
	node_set(3, nodes);
	KUNIT_ASSERT_EQ(test, toss_test_parse(test, "1", &req), 0);
	KUNIT_EXPECT_EQ(test, toss_pick_nodes(&req, &nodes, &memory), 0);
	KUNIT_EXPECT_TRUE(test, nodes_empty(nodes));
}

static struct kunit_case toss_parse_test_cases[] = {
	KUNIT_CASE(toss_parse_test_all),
	KUNIT_CASE(toss_parse_test_size),
	KUNIT_CASE(toss_parse_test_size_below_page),
	KUNIT_CASE(toss_parse_test_size_range),
	KUNIT_CASE(toss_parse_test_not_amount),
	KUNIT_CASE(toss_parse_test_nodes),
	KUNIT_CASE(toss_parse_test_nodes_invalid),
	KUNIT_CASE(toss_parse_test_free),
	KUNIT_CASE(toss_parse_test_free_invalid),
	KUNIT_CASE(toss_parse_test_scope_slab),
	KUNIT_CASE(toss_parse_test_scope_slab_invalid),
	KUNIT_CASE(toss_parse_test_keys),
	KUNIT_CASE(toss_parse_test_length),
	KUNIT_CASE(toss_parse_test_nul),
	KUNIT_CASE(toss_parse_test_pick_nodes),
	{}
};

static struct kunit_suite toss_parse_test_suite = {
	.name = "cpuset_toss_parse",
	.test_cases = toss_parse_test_cases,
};

kunit_test_suites(&toss_parse_test_suite);

#endif /* _CPUSET_TOSS_KUNIT_H */

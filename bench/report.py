#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn toss-bench samples (SAMPLE {json} lines of the bench VM's console)
into tables on stdout, latest.md, latest.json and gnuplot charts."""

import argparse
import datetime
import json
import os
import shutil
import statistics
import subprocess
import tempfile

GIB = 1 << 30
MIB = 1 << 20
PEERS = ["drop_caches", "fadvise", "memory.reclaim"]


def load(log):
    samples, kernel = [], "unknown"
    with open(log, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("SAMPLE "):
                samples.append(json.loads(line[7:]))
            elif line.startswith("BENCH-KERNEL "):
                kernel = line.split(" ", 1)[1]
    return samples, kernel


def group(samples):
    g = {}
    for s in samples:
        g.setdefault((s["scenario"], s["method"], s["mglru"], s["bytes"]), []).append(s)
    return g


def med(xs):
    return statistics.median(xs) if xs else None


def agg(key, ss):
    sec = [s["seconds"] for s in ss]
    dropped = med([s.get("dropped", s.get("node1_dropped", 0)) for s in ss])
    row = {
        "scenario": key[0], "method": key[1], "mglru": key[2], "bytes": key[3],
        "seconds_median": med(sec), "seconds_min": min(sec), "seconds_max": max(sec),
        "gib_per_s": None, "collateral_bytes": None, "locality_pct": None,
        "samples": len(ss), "dropped_bytes_median": dropped,
        "errors": sorted({s["errno"] for s in ss if s.get("errno")}),
    }
    if key[0] in ("1", "2", "4") and row["seconds_median"] > 0:
        row["gib_per_s"] = dropped / GIB / row["seconds_median"]
    if "collateral_bytes" in ss[0]:
        row["collateral_bytes"] = max(s["collateral_bytes"] for s in ss)
    if key[0] == "5":
        row["locality_pct"] = med([s["locality_pct"] for s in ss])
        for k in ("numa_hit", "numa_miss", "node1_dropped", "needed", "others_before"):
            row[k] = med([s[k] for s in ss])
        row["job_seconds"] = med([s.get("job_seconds", 0) for s in ss])
        row["free_arg"] = ss[0]["free_arg"]
    if key[0] == "3":
        for k in ("node_file_bytes", "node_anon_bytes", "node_thp_bytes", "node_hugetlb_pages"):
            row[k] = med([s.get(k, 0) for s in ss])
    if key[0] in ("8", "13") and all("looked" in s for s in ss):
        row["looked"] = med([s["looked"] for s in ss])
    if "node_bytes" in ss[0]:
        row["node_bytes"] = ss[0]["node_bytes"]
    if key[0] == "12":
        for k in ("ns_per", "trace_ns", "scanned", "tossed", "frames", "events", "runs", "run_folios", "looked"):
            row[k] = med([s.get(k, 0) for s in ss])
    return row


def node1_gib(rows, scen):
    """Node 1's MemTotal in GiB in a scenario's samples, or None (samples
    of before scenario 13 do not give it)."""
    node = max([r.get("node_bytes", 0) for r in rows if r["scenario"] == scen] or [0])
    return round(node / GIB) if node else None


def paired(samples, scen, mg, b, a, b_method, time=False, ok_errnos=()):
    """Per-repetition ratios of method a over method b_method on the same
    data (size b, MGLRU mg): throughput a / throughput b, or with time=True
    seconds a / seconds b.  Only repetitions where both ran without error
    (but for the errnos in ok_errnos)."""
    rep = {}
    for s in samples:
        if (s["scenario"], s["mglru"], s["bytes"]) != (scen, mg, b) or \
           (s.get("errno") and s["errno"] not in ok_errnos):
            continue
        if s["method"] in (a, b_method) and "rep" in s:
            rep.setdefault(s["rep"], {})[s["method"]] = s
    out = []
    for r in sorted(rep):
        x, y = rep[r].get(a), rep[r].get(b_method)
        if not x or not y or x["seconds"] <= 0 or y["seconds"] <= 0:
            continue
        if time:
            out.append(x["seconds"] / y["seconds"])
        elif x["dropped"] and y["dropped"]:
            out.append((x["dropped"] / x["seconds"]) / (y["dropped"] / y["seconds"]))
    return out


def iqr(xs):
    """Median and interquartile range of xs, as (median, q1, q3)."""
    if len(xs) < 2:
        return (xs[0], xs[0], xs[0]) if xs else (None, None, None)
    q = statistics.quantiles(xs, n=4, method="inclusive")
    return statistics.median(xs), q[0], q[2]


def fmt_ratio(xs):
    m, q1, q3 = iqr(xs)
    return "-" if m is None else "%.2fx (%.2f-%.2f)" % (m, q1, q3)


def fmt_s(r):
    return "%.3f (%.3f-%.3f)" % (r["seconds_median"], r["seconds_min"], r["seconds_max"])


def table(head, rows):
    w = [max(len(str(x)) for x in col) for col in zip(head, *rows)]
    line = lambda cells: "| " + " | ".join(str(c).ljust(n) for c, n in zip(cells, w)) + " |"
    out = [line(head), "|" + "|".join("-" * (n + 2) for n in w) + "|"]
    out += [line(r) for r in rows]
    return "\n".join(out)


def report(rows, a):
    by = {(r["scenario"], r["method"], r["mglru"], r["bytes"]): r for r in rows}
    md, targets, plots = [], [], {}
    get = lambda *k: by.get(k)

    # 1: throughput
    s1 = [r for r in rows if r["scenario"] == "1"]
    if s1:
        md.append("## 1. Throughput: clean cache of one node dropped, GiB/s\n")
        md.append("Median of %d repetitions; seconds as median (min-max). "
                  "`toss` writes `1`, `toss_size` writes the data's size in bytes. "
                  "Each repetition fills node 1 and runs every method on the same data, "
                  "forward in even repetitions, backward in odd ones. "
                  "Ratios are paired: ours (`toss`) over each peer per GiB dropped, one ratio per "
                  "repetition, shown as the median (interquartile range). "
                  "`ftruncate` (truncating the files to 0: the kernel's own batched freeing of page "
                  "cache, which destroys the data) and `munmap` (freeing as much faulted anonymous "
                  "memory, 4 KiB pages, on node 1: the cost of freeing the pages alone) are anchors, "
                  "not alternatives: `toss time / anchor` is the toss's time over theirs (lower is "
                  "better).\n" % a.reps)
        worst = {p: None for p in PEERS}
        worst_anchor = None
        for mg in ("on", "off"):
            sizes = sorted({r["bytes"] for r in s1 if r["mglru"] == mg})
            if not sizes:
                continue
            methods = [m for m in PEERS + ["toss", "toss_size", "ftruncate", "munmap"]
                       if any(r["method"] == m for r in s1)]
            anchors = [m for m in ("ftruncate", "munmap") if m in methods]
            head = (["MGLRU %s, size" % mg] + methods + ["toss/" + p for p in PEERS]
                    + ["toss time / " + m for m in anchors])
            body, detail = [], []
            for b in sizes:
                cells = ["%.2f GiB" % (b / GIB)]
                for m in methods:
                    r = get("1", m, mg, b)
                    cells.append("%.2f GiB/s%s" % (r["gib_per_s"], " (err %s)" % r["errors"]
                                                   if r["errors"] else "") if r else "-")
                    if r:
                        detail.append(["%.2f GiB" % (b / GIB), m, fmt_s(r),
                                       "%d MiB" % (r["dropped_bytes_median"] // MIB)])
                for p in PEERS:
                    xs = paired(a.samples, "1", mg, b, "toss", p)
                    cells.append(fmt_ratio(xs))
                    if xs:
                        ratio = iqr(xs)[0]
                        if worst[p] is None or ratio < worst[p][0]:
                            worst[p] = (ratio, b, mg, fmt_ratio(xs))
                for m in anchors:
                    xs = paired(a.samples, "1", mg, b, "toss", m, time=True)
                    cells.append(fmt_ratio(xs))
                    if xs and m == "ftruncate":
                        ratio = iqr(xs)[0]
                        if worst_anchor is None or ratio > worst_anchor[0]:
                            worst_anchor = (ratio, b, mg, fmt_ratio(xs))
                body.append(cells)
                plots.setdefault("throughput", []).append(
                    (mg, b, [get("1", m, mg, b)["gib_per_s"] if get("1", m, mg, b) else 0
                             for m in methods], methods))
            md.append(table(head, body) + "\n")
            md.append("<details><summary>MGLRU %s: seconds, median (min-max), and bytes dropped</summary>\n\n%s\n\n</details>\n"
                      % (mg, table(["size", "method", "seconds", "dropped"], detail)))
        for p, want in (("drop_caches", 1.3), ("fadvise", 1.2)):
            if worst[p]:
                r, b, mg, txt = worst[p]
                targets.append(("Throughput >= %.1fx %s (worst size, paired median)" % (want, p),
                                "%s at %.2f GiB, MGLRU %s" % (txt, b / GIB, mg), r >= want, a.reps))
        if worst_anchor:
            r, b, mg, txt = worst_anchor
            targets.append(("Toss time <= 1.5x ftruncate of the same files (worst size, paired median)",
                            "%s at %.2f GiB, MGLRU %s" % (txt, b / GIB, mg), r <= 1.5, a.reps))

    # 2: collateral damage
    s2 = [r for r in rows if r["scenario"] == "2"]
    if s2:
        per = s2[0]["bytes"]
        md.append("## 2. Collateral damage: the job's cpuset owns node 1, every node holds %d MiB of cache\n" % (per // MIB))
        md.append("`memory.reclaim` and `fadvise` are given what they need and a job manager "
                  "usually does not have: the cgroup that read node 1's cache (`old1`) and its files. "
                  "`toss_scope_cgroup` tosses in `old1`.\n")
        body = []
        for r in s2:
            body.append([r["method"], fmt_s(r), "%d MiB" % (r["dropped_bytes_median"] // MIB),
                         "%d MiB" % (r["collateral_bytes"] // MIB),
                         "%d bytes" % r["collateral_bytes"]])
        md.append(table(["method", "seconds", "node 1 dropped", "other nodes lost (max)",
                         "exact"], body) + "\n")
        for m in ("toss", "toss_scope_cgroup"):
            r = get("2", m, "on", per)
            if r:
                targets.append(("Collateral damage of %s: 0 bytes" % m,
                                "%d bytes" % r["collateral_bytes"], r["collateral_bytes"] == 0))

    # 3: the cost of nothing
    s3 = [r for r in rows if r["scenario"] == "3"]
    # The rate of a real toss: scenario 1's 1 GiB, else its largest size.
    tosses = sorted((r for r in rows if r["scenario"] == "1" and r["method"] == "toss"
                     and r["mglru"] == "on" and r["dropped_bytes_median"]),
                    key=lambda r: r["bytes"])
    exact = [r for r in tosses if r["bytes"] == GIB]
    gib1 = exact[0] if exact else tosses[-1] if tosses else None
    if s3:
        md.append("## 3. The cost of nothing: a toss of a node with no page cache\n")
        body = []
        for r in s3:
            node_gib = r["bytes"] / GIB
            per_gib = r["seconds_median"] / node_gib
            cells = [r["method"], "%.2f GiB" % node_gib,
                     "%d MiB" % (r["node_anon_bytes"] // MIB),
                     "%d MiB" % (r["node_thp_bytes"] // MIB),
                     "%d MiB" % (r["node_hugetlb_pages"] * 2),
                     "%.2f ms (%.2f-%.2f)" % (r["seconds_median"] * 1e3, r["seconds_min"] * 1e3,
                                             r["seconds_max"] * 1e3),
                     "%.3f ms" % (per_gib * 1e3), "%.2f s" % (per_gib * 1024)]
            if gib1:
                toss_gib = gib1["seconds_median"] / (gib1["dropped_bytes_median"] / GIB)
                pct = 100 * per_gib / toss_gib
                cells.append("%.2f%%" % pct)
                if r["method"] == "toss_empty_node":
                    targets.append(("Empty-node walk per GiB of node < 1% of tossing 1 GiB of cache",
                                    "%.2f%% (%.3f ms per GiB of node; 1 TiB node: %.2f s)" %
                                    (pct, per_gib * 1e3, per_gib * 1024), pct < 1))
            else:
                cells.append("-")
            body.append(cells)
        md.append(table(["case", "node memory", "anon on node", "of it THP", "hugetlb", "toss time",
                         "per GiB of node",
                         "1 TiB node (extrapolated)", "vs tossing 1 GiB"], body) + "\n")
        if gib1:
            md.append("Tossing %.2f GiB of cache (scenario 1, MGLRU on) took %.3f s: %.3f s per GiB.\n"
                      % (gib1["dropped_bytes_median"] / GIB, gib1["seconds_median"],
                         gib1["seconds_median"] / (gib1["dropped_bytes_median"] / GIB)))

    # 4: parallelism
    s4 = [r for r in rows if r["scenario"] == "4"]
    if s4:
        per = s4[0]["bytes"]
        one = get("4", "toss_1_node", "on", per)
        md.append("## 4. Parallelism: %d MiB of cache on each node, tossed on 1, 2 or 3 nodes at once\n" % (per // MIB))
        md.append("The one node is node 1, whose toss uses both of its vCPUs (two workers). "
                  "`toss_3_nodes_one_by_one` tosses the same three nodes with three writes, one node "
                  "each, one after the other; it and `toss_3_nodes` are paired in every repetition "
                  "(order alternating). Four vCPUs share the host's %d cores, so three nodes at once "
                  "cannot take the time of one node: the target compares them with the same three "
                  "nodes one by one.\n" % os.cpu_count())
        body = []
        for r in s4:
            body.append([r["method"], fmt_s(r), "%d MiB" % (r["dropped_bytes_median"] // MIB),
                         "%.2fx" % (r["seconds_median"] / one["seconds_median"]) if one else "-"])
            plots.setdefault("parallel", []).append((r["method"], r["seconds_median"]))
        md.append(table(["toss", "seconds", "dropped", "wall time vs 1 node"], body) + "\n")
        xs = paired(a.samples, "4", "on", per, "toss_3_nodes", "toss_3_nodes_one_by_one", time=True)
        if xs:
            md.append("Three nodes at once over the same three one by one: %s.\n" % fmt_ratio(xs))
            targets.append(("Three nodes at once <= 0.8x the same three one by one (paired median)",
                            fmt_ratio(xs), iqr(xs)[0] <= 0.8, len(xs)))

    # 5: the job's view
    s5 = [r for r in rows if r["scenario"] == "5"]
    if s5:
        job = s5[0]["bytes"]
        md.append("## 5. The job's view: %d MiB first-touched by a thread on node 1, node 1 full of stale cache\n" % (job // MIB))
        md.append("The job's cpuset spans nodes 0-2; `toss` writes `1` to it (all three nodes), "
                  "`toss_free` writes `1 free=<job + 32 MiB>`. Locality: share of the job's pages "
                  "on node 1 (`move_pages(2)`); numa_hit on node 1 and numa_miss on the others "
                  "during the job (they count allocations, and a 2 MiB THP is one); other "
                  "nodes' cache kept: of what nodes 0, 2 and 3 held. The baselines drop "
                  "nothing first: `strict_mems` runs the job in a cpuset of node 1 alone (its "
                  "allocations reclaim node 1's cache as they go), `zone_reclaim` runs it in "
                  "nodes 0-2 with `vm.zone_reclaim_mode=1`; for them, node 1's cache dropped "
                  "is counted after the job. Job time: the job's first touch of its memory.\n")
        for mg in ("on", "off"):
            body = []
            for r in [r for r in s5 if r["mglru"] == mg]:
                kept = 100.0 * (1 - r["collateral_bytes"] / r["others_before"]) if r["others_before"] else 100
                body.append([r["method"], "%.2f%%" % r["locality_pct"], r["numa_hit"], r["numa_miss"],
                             "%d MiB" % (r["node1_dropped"] // MIB),
                             "%d MiB" % (r["needed"] // MIB) if r["method"] == "toss_free" else "-",
                             "%.1f%%" % kept, "%.3f s" % r["seconds_median"],
                             "%.3f s" % r["job_seconds"]])
                plots.setdefault("locality", []).append((mg, r["method"], r["locality_pct"], kept))
                if r["method"] == "toss":
                    targets.append(("Job locality after toss >= 99%% (MGLRU %s)" % mg,
                                    "%.2f%%" % r["locality_pct"], r["locality_pct"] >= 99))
                if r["method"] == "toss_free":
                    targets.append(("Job locality after toss free= >= 99%% (MGLRU %s)" % mg,
                                    "%.2f%%" % r["locality_pct"], r["locality_pct"] >= 99))
                    if r["needed"]:
                        over = r["node1_dropped"] / r["needed"]
                        targets.append(("free= drops at most 1.1x what the job needed (MGLRU %s)" % mg,
                                        "%.2fx (%d of %d MiB)" % (over, r["node1_dropped"] // MIB,
                                                                 r["needed"] // MIB), over <= 1.1))
            if body:
                md.append(table(["MGLRU %s: method" % mg, "locality", "numa_hit on node 1 (allocations)",
                                 "numa_miss elsewhere (allocations)", "node 1 cache dropped", "needed",
                                 "other nodes' cache kept", "drop time", "job time"], body) + "\n")
                # Paired per repetition: the job that reclaims as it goes,
                # against the toss and then the job.
                reps5 = {}
                for s in a.samples:
                    if s["scenario"] == "5" and s["mglru"] == mg and "job_seconds" in s:
                        reps5.setdefault(s.get("rep", 0), {})[s["method"]] = s
                jt, tot = [], []
                for rr in reps5.values():
                    st, to = rr.get("strict_mems"), rr.get("toss")
                    if st and to and st["job_seconds"] > 0 and to["job_seconds"] > 0:
                        jt.append(st["job_seconds"] / to["job_seconds"])
                        tot.append((to["seconds"] + to["job_seconds"]) / st["job_seconds"])
                if jt:
                    md.append("MGLRU %s, paired: the job's time in strict mems over its time after "
                              "the toss %s; the toss and the job together over the job in strict "
                              "mems %s.\n" % (mg, fmt_ratio(jt), fmt_ratio(tot)))

    # 6: what a user waits for
    s6 = [r for r in rows if r["scenario"] == "6"]
    if s6:
        per = s6[0]["bytes"]
        raw = {}
        for x in a.samples:
            if x["scenario"] == "6":
                raw.setdefault(x["method"], []).append(x)
        md.append("## 6. What a user waits for: every node holds %d MiB of stale cache, the job owns node 1\n" % (per // MIB))
        md.append("Wall time until node 1's cache is gone, each method on the same data in every "
                  "repetition (order alternating). `fadvise` is given node 1's files, which a job "
                  "manager usually does not know. `toss_scope_cgroup_1M` tosses `1 scope=cgroup` in a "
                  "cgroup whose own cache on node 1 is 1 MiB, next to the %d MiB of the other tenants. "
                  "Ratios are paired medians (interquartile range) of the toss's time over each method's.\n" % (per // MIB))
        body = []
        for r in s6:
            xs = raw.get(r["method"], [])
            kept = med([100.0 * x["others_kept"] / x["others_before"] for x in xs if x["others_before"]])
            body.append([r["method"], fmt_s(r),
                         "%d MiB" % (med([x["node1_dropped"] for x in xs]) // MIB),
                         "%d MiB" % (med([x["all_dropped"] for x in xs]) // MIB),
                         "%.1f%%" % kept if kept is not None else "-",
                         "%d MiB" % (med([x["node1_free"] for x in xs]) // MIB),
                         fmt_ratio(paired(a.samples, "6", "on", per, "toss", r["method"], time=True))
                         if r["method"] != "toss" else "1.00x"])
        md.append(table(["method", "seconds", "node 1 cache dropped", "all nodes' cache dropped",
                         "other nodes' cache kept", "node 1 free after", "toss time / its time"],
                        body) + "\n")
        xs = paired(a.samples, "6", "on", per, "drop_caches", "toss", time=True)
        if xs:
            targets.append(("Node 1 free, all nodes full: toss >= 3x faster than drop_caches (paired median)",
                            fmt_ratio(xs), iqr(xs)[0] >= 3, len(xs)))
        xs = paired(a.samples, "6", "on", per, "toss_scope_cgroup_1M", "toss", time=True)
        if xs:
            m, q1, q3 = iqr(xs)
            targets.append(("scope=cgroup of 1 MiB on a full node < 5% of a whole-node toss (paired median)",
                            "%.2f%% (%.2f-%.2f)" % (100 * m, 100 * q1, 100 * q3), m < 0.05, len(xs)))

    # 7: a node's CPUs working together
    s7 = [r for r in rows if r["scenario"] == "7"]
    if s7:
        b = s7[0]["bytes"]
        md.append("## 7. A node's CPUs working together: a whole toss of %d MiB on node 1 (two vCPUs)\n" % (b // MIB))
        md.append("`toss_1_worker` and `toss_2_workers` give the tossing cpuset CPU 1, then CPUs 1 and 3 "
                  "(one worker per CPU of the cpuset on the node), for one toss of node 1's cache each, on the same data in every repetition "
                  "(order alternating); with 2, each worker walks every other 16 MiB stripe of the node's pfns. "
                  "The data is one file (one `i_pages` lock, which both workers take), then 48 files "
                  "of equal size (`_48_files`). The ratio is paired: two workers' time over one worker's.\n")
        body = [[r["method"], fmt_s(r), "%d MiB" % (r["dropped_bytes_median"] // MIB),
                 "%.2f GiB/s" % (r["dropped_bytes_median"] / GIB / r["seconds_median"])
                 if r["seconds_median"] else "-"] for r in sorted(s7, key=lambda r: r["method"])]
        md.append(table(["method", "seconds", "dropped", "GiB/s"], body) + "\n")
        for sfx, what in (("", "one file"), ("_48_files", "48 files")):
            xs = paired(a.samples, "7", "on", b, "toss_2_workers" + sfx, "toss_1_worker" + sfx, time=True)
            if xs:
                md.append("Two workers over one, %s: %s.\n" % (what, fmt_ratio(xs)))
                targets.append(("Two workers on one node <= 0.62x one worker's time, %s (paired median)" % what,
                                fmt_ratio(xs), iqr(xs)[0] <= 0.62, len(xs)))

    # 8 and 13: tossing part of a node
    def partial(scen, names, bounds):
        ss = [r for r in rows if r["scenario"] == scen]
        gib = node1_gib(rows, scen)
        where = "node 1 of %s" % ("%d GiB" % gib if gib else a.node_mem.replace("G", " GiB"))
        body = []
        for name in names:
            rs = {r["method"]: r for r in ss if r["method"].startswith(name + "_")}
            part = rs.get(name + "_partial")
            if not part:
                continue
            b = part["bytes"]
            # free= may end with -EAGAIN: the node is short of its target
            # by what others allocated meanwhile; its time still counts.
            ratios = [paired(a.samples, scen, "on", b, name + "_partial", name + "_" + peer, time=True,
                             ok_errnos=(11,)) for peer in ("whole", "drop_caches", "empty_walk")]
            row = [name, fmt_s(part), "%d MiB" % (part["dropped_bytes_median"] // MIB),
                   "%d" % part["looked"] if part.get("looked") is not None else "-"]
            row += [fmt_s(rs[name + "_" + peer]) if name + "_" + peer in rs else "-"
                    for peer in ("whole", "empty_walk")]
            row += [fmt_ratio(x) for x in ratios]
            body.append(row)
            vs_empty, bound = ratios[2], bounds.get(name)
            if vs_empty and bound:
                targets.append(("Toss of %s <= %.1fx a walk of the node that finds nothing, %s "
                                "(paired median)" % (name, bound, where), fmt_ratio(vs_empty),
                                iqr(vs_empty)[0] <= bound, len(vs_empty)))
        return body

    head8 = ["amount", "seconds", "dropped", "looked at", "whole toss s", "empty walk s",
             "vs whole toss", "vs drop_caches", "vs empty walk"]
    body = partial("8", ("16M", "64M", "512M", "free"), {"16M": 0.1, "64M": 0.2, "free": 0.2})
    if body:
        md.append("## 8. Tossing part of a node: node 1 full of clean cache, a quarter of it read three times\n")
        md.append("Each amount (`16M`, `64M`, `512M`, and `free`: `1 free=` 512 MiB above what node 1 has "
                  "free) is paired in every repetition with a whole toss (`1`: one walk of the node's page "
                  "frames that drops everything), `drop_caches` of the same data, and a whole toss of the "
                  "node once it is empty (`empty walk`: a walk of its page frames that finds nothing). A "
                  "partial toss walks the LRU lists from their oldest end and stops at the amount; "
                  "`looked at` is the folios its walks looked at (`nr_looked=` of node 1's `toss_node_end` "
                  "events, median). Ratios: the partial toss's time over each peer's, per repetition.\n")
        md.append(table(head8, body) + "\n")
    body = partial("13", ("16M", "64M", "free"), {"16M": 0.1, "64M": 0.2, "free": 0.2})
    if body:
        md.append("## 13. Tossing part of a large node: scenario 8's cache on a node 1 of %d GiB\n"
                  % node1_gib(rows, "13"))
        md.append("A boot of its own, where node 1 is large enough for a walk of its page frames to cost "
                  "what it does on the machines this is for. The host backs the guest's memory only "
                  "where the guest touches it, so the node holds the same cache as in scenario 8 (a "
                  "quarter of it read three times), not a node's worth. Amounts: `16M`, `64M` and `free` "
                  "(`1 free=` 64 MiB above what node 1 has free), each paired in every repetition with a "
                  "whole toss of that cache and a whole toss of the node once it is empty (`empty "
                  "walk`). Against scenario 8, the partial tosses' times show whether their cost follows "
                  "the amount or the node.\n")
        md.append(table([h for h in head8 if h != "vs drop_caches"],
                        [r[:7] + r[8:] for r in body]) + "\n")

    # 9: memory.reclaim clean_cache=1, and the cost of memcg protection
    s9 = [r for r in rows if r["scenario"] == "9"]
    if s9:
        b = s9[0]["bytes"]
        md.append("## 9. memory.reclaim clean_cache=1, and the cost of memcg protection: %d MiB of a job's "
                  "cache on node 1, 64 MiB of a tenant's\n" % (b // MIB))
        md.append("Paired in every repetition on the same data (order turning round): the toss (`1`); the "
                  "toss while the tenant and its parent have `memory.min=64M` (`toss_protected`: the walk "
                  "looks up each folio's memory cgroup, and the tenant's folios are left to its LRU pass); "
                  "`memory.reclaim` of the job's data size with `clean_cache=1`; plain `memory.reclaim` of "
                  "the same size (`swappiness=0`); `drop_caches`. `dropped` is node 1's page cache gone: "
                  "the unprotected toss and drop_caches also drop the tenant's.\n")
        body = [[r["method"], fmt_s(r), "%d MiB" % (r["dropped_bytes_median"] // MIB)]
                for r in sorted(s9, key=lambda r: r["method"])]
        md.append(table(["method", "seconds", "dropped"], body) + "\n")
        for x, y, what in (("toss_protected", "toss", "the toss with a protected tenant over the toss"),
                           ("reclaim_clean_cache", "memory.reclaim",
                            "memory.reclaim clean_cache=1 over plain memory.reclaim"),
                           ("reclaim_clean_cache", "toss", "memory.reclaim clean_cache=1 over the toss"),
                           ("toss", "drop_caches", "the toss over drop_caches")):
            xs = paired(a.samples, "9", "on", b, x, y, time=True)
            if xs:
                md.append("Time of %s: %s.\n" % (what, fmt_ratio(xs)))

    # 10: batches on any layout
    s10 = [r for r in rows if r["scenario"] == "10"]
    if s10:
        b = s10[0]["bytes"]
        md.append("## 10. Batches on any layout: %d MiB of cache on node 1, one file read whole or 16 files "
                  "read round robin a page at a time\n" % (b // MIB))
        md.append("`readahead()` of one page of each file in turn allocates the files' pages one after the "
                  "other, so that no two pages of a file lie adjacent in the node's memory (as after jobs "
                  "on a machine whose free memory is fragmented; 64 KiB pieces come out adjacent in the "
                  "VM's fresh memory). The files are preallocated (unwritten extents read as zeros, no "
                  "disk I/O). Three pairs per repetition, each "
                  "the toss (`1`) and `drop_caches` on the same data, order turning round. A run is what "
                  "the toss removes from the page cache under one hold of a file's locks (at most 31 "
                  "folios): `folios per run` is the folios removed over the runs, from the `nr_runs=` and "
                  "`nr_run_folios=` fields of the toss's `toss_node_end` events. The ratio is paired: "
                  "the toss's throughput over drop_caches'.\n")
        body = []
        for layout in ("whole", "interleaved"):
            t = get("10", "toss_" + layout, "on", b)
            d = get("10", "drop_caches_" + layout, "on", b)
            if not t or not d:
                continue
            ss = [x for x in a.samples if x["scenario"] == "10" and x["method"] == "toss_" + layout]
            per = med([x["run_folios"] / x["runs"] for x in ss if x.get("runs")])
            xs = paired(a.samples, "10", "on", b, "toss_" + layout, "drop_caches_" + layout)
            body.append([layout, fmt_s(t), fmt_s(d), "-" if per is None else "%.1f" % per, fmt_ratio(xs)])
            if xs:
                targets.append(("Throughput >= 1.3x drop_caches, %s (paired median)" %
                                ("16 files interleaved" if layout == "interleaved" else "one file read whole"),
                                fmt_ratio(xs) + ("; %.1f folios per run" % per if per else ""),
                                iqr(xs)[0] >= 1.3, len(xs)))
        md.append(table(["layout", "toss s", "drop_caches s", "folios per run", "toss/drop_caches"], body) + "\n")

    # 11: 1, 2 and 4 workers
    s11 = [r for r in rows if r["scenario"] == "11"]
    if s11:
        b = s11[0]["bytes"]
        md.append("## 11. 1, 2 and 4 workers: a whole toss of %d MiB on node 1 (four vCPUs)\n" % (b // MIB))
        md.append("A second boot, node 1 with four vCPUs (1, 3, 4 and 5) on the 2-core host, so that at "
                  "most two run at once: four workers show what the cap of four costs, not a gain. The "
                  "tossing cpuset gets CPU 1, then 1 and 3, then 1, 3, 4 and 5 (one worker per CPU), for "
                  "one toss of the same data each in every repetition; one file, then 48 files "
                  "(`_48_files`). Ratios are paired: n workers' time over one worker's.\n")
        body = [[r["method"], fmt_s(r), "%d MiB" % (r["dropped_bytes_median"] // MIB)]
                for r in sorted(s11, key=lambda r: r["method"])]
        md.append(table(["method", "seconds", "dropped"], body) + "\n")
        for sfx, what in (("", "one file"), ("_48_files", "48 files")):
            two = paired(a.samples, "11", "on", b, "toss_2_workers" + sfx, "toss_1_workers" + sfx, time=True)
            four = paired(a.samples, "11", "on", b, "toss_4_workers" + sfx, "toss_1_workers" + sfx, time=True)
            vs2 = paired(a.samples, "11", "on", b, "toss_4_workers" + sfx, "toss_2_workers" + sfx, time=True)
            if two or four:
                md.append("%s: two workers over one %s, four over one %s, four over two %s.\n"
                          % (what.capitalize(), fmt_ratio(two), fmt_ratio(four), fmt_ratio(vs2)))
            if vs2:
                targets.append(("Four workers no slower than two on two host cores, %s (paired median)" % what,
                                fmt_ratio(vs2), iqr(vs2)[0] <= 1.0, len(vs2)))

    # 12: per-folio costs from the trace
    s12 = {r["method"]: r for r in rows if r["scenario"] == "12"}
    if s12:
        md.append("## 12. Per-folio costs, from the trace\n")
        md.append("One worker (the cpuset has CPU 1 alone), MGLRU on, node 1. The time is what the "
                  "`toss_node_end` events of node 1 report (`duration_ns`, from each worker's "
                  "`toss_node_begin`), not the write's: the cost of each folio or page frame the toss "
                  "handled. Medians over the repetitions; [projection.md](projection.md) uses them.\n")
        what = {
            "whole_1_file": ("a whole toss, one file read whole", "folio dropped", "tossed"),
            "whole_48_files": ("a whole toss, 48 files", "folio dropped", "tossed"),
            "empty_walk": ("a whole toss of the node with nothing left", "page frame of the node", "frames"),
            "64M_1_file": ("`64M` of the one file", "folio the LRU walk looked at", "looked"),
        }
        body = []
        for m in ("whole_1_file", "whole_48_files", "empty_walk", "64M_1_file"):
            r = s12.get(m)
            if not r:
                continue
            body.append([what[m][0], "%.3f s" % (r["trace_ns"] / 1e9), "%d" % r[what[m][2]],
                         "%.1f ns per %s" % (r["ns_per"], what[m][1]),
                         "%.1f" % (r["run_folios"] / r["runs"]) if r["runs"] else "-"])
        md.append(table(["toss", "traced time", "counted", "cost", "folios per run"], body) + "\n")

    return md, targets, plots


def histogram(png, title, settings, plot):
    """A clustered bar chart with gnuplot: @settings are extra set lines."""
    script = ("set terminal png size 1000,500 noenhanced\nset output '%s'\n"
              "set title \"%s\"\nset style data histograms\n"
              "set style histogram clustered gap 1\nset style fill solid 0.8 border -1\n"
              "%s\nplot %s\n" % (png, title, settings, plot))
    subprocess.run(["gnuplot"], input=script, text=True, check=True)


def charts(plots, out):
    if not shutil.which("gnuplot"):
        return ["(gnuplot not installed: no charts)"]
    made = []
    with tempfile.TemporaryDirectory() as tmp:
        tp = [p for p in plots.get("throughput", []) if p[0] == "on"]
        if tp:
            methods = tp[0][3]
            with open(os.path.join(tmp, "t.dat"), "w") as f:
                for mg, b, vals, _ in tp:
                    f.write("%.2f %s\n" % (b / GIB, " ".join("%.4f" % v for v in vals)))
            cols = ", ".join("'%s' using %d:xtic(1) title '%s'" % (os.path.join(tmp, "t.dat"), i + 2, m)
                             for i, m in enumerate(methods))
            histogram(os.path.join(out, "throughput.png"),
                      "Dropping one node's clean page cache (MGLRU on, higher is better)",
                      "set ylabel 'GiB/s'\nset xlabel 'GiB of cache'\n"
                      "set key outside right\nset yrange [0:*]", cols)
            made.append("throughput.png")
        lp = plots.get("locality", [])
        if lp:
            methods = []
            for _, m, _, _ in lp:
                if m not in methods:
                    methods.append(m)
            val = {(mg, m): v for mg, m, v, _ in lp}
            kept = {(mg, m): k for mg, m, _, k in lp}
            with open(os.path.join(tmp, "l.dat"), "w") as f:
                for m in methods:
                    f.write("%s %.3f %.3f %.3f\n" % (m, val.get(("on", m), 0), val.get(("off", m), 0),
                                                   kept.get(("on", m), 0)))
            d = os.path.join(tmp, "l.dat")
            histogram(os.path.join(out, "locality.png"),
                      "The job's pages on its own node, and the other nodes' cache kept (higher is better)",
                      "set ylabel '%'\nset yrange [0:105]\nset key below",
                      "'%s' using 2:xtic(1) title 'job pages on node 1, MGLRU on', "
                      "'' using 3 title 'same, MGLRU off', "
                      "'' using 4 title 'cache of nodes 0, 2, 3 kept (MGLRU on)'" % d)
            made.append("locality.png")
    return made


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--log", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--qemu", default="")
    ap.add_argument("--accel", default="tcg")
    ap.add_argument("--node-mem", default="2G")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--commit", default="")
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()

    samples, kernel = load(a.log)
    if not samples:
        raise SystemExit("report: no samples in %s" % a.log)
    rows = [agg(k, v) for k, v in group(samples).items()]
    a.samples = samples
    md, targets, plots = report(rows, a)
    os.makedirs(a.out, exist_ok=True)
    made = charts(plots, a.out)

    big = node1_gib(rows, "13")
    big = "; scenario 13 in a boot where node 1 has %d GiB (MemTotal)" % big if big else ""
    head = ["# `make bench%s`: cpuset.memory_toss_cache against its peers\n" % (" BENCH_QUICK=1" if a.quick else ""),
            "- Date: %s (when the VM's console log was written)" % datetime.datetime.fromtimestamp(
                os.path.getmtime(a.log), datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "- Guest kernel: %s (non-debug bench config, commit %s)" % (kernel, a.commit),
            "- QEMU: %s, accelerator %s" % (a.qemu, a.accel.upper()),
            "- VM: 4 NUMA nodes of %s; node 1 with two vCPUs (1 and 3), nodes 0 and 2 with one, "
            "node 3 without CPU; "
            "host: %d cores%s" % (a.node_mem, os.cpu_count(), big),
            "- Repetitions: %d%s" % (a.reps, " (quick run: smaller data sets)" if a.quick else ""),
            ""]
    def verdict(t):
        # (target, measured, met[, paired repetitions]): a ratio from fewer
        # than three paired repetitions cannot decide.
        if len(t) > 3 and t[3] < 3:
            return "cannot decide (%d repetition%s)" % (t[3], "" if t[3] == 1 else "s")
        # A quick run's small data sets can show a target met, not missed.
        if a.quick and not t[2]:
            return "cannot decide (quick run)"
        return "yes" if t[2] else "NO"
    tgt = ["## Targets\n", table(["target", "measured", "met"],
                                 [[t[0], t[1], verdict(t)] for t in targets]) + "\n"]
    pics = ["![%s](%s)" % (p, p) for p in made if p.endswith(".png")]
    text = "\n".join(head + tgt + md + pics) + "\n"
    with open(os.path.join(a.out, "latest.md"), "w") as f:
        f.write(text)
    keys = ["scenario", "method", "mglru", "bytes", "seconds_median", "seconds_min",
            "seconds_max", "gib_per_s", "collateral_bytes", "locality_pct"]
    out = []
    for r in sorted(rows, key=lambda r: (r["scenario"], r["mglru"], r["bytes"], r["method"])):
        o = {k: r[k] for k in keys}
        o["scenario"] = int(o["scenario"])
        o["detail"] = {k: v for k, v in r.items() if k not in keys}
        out.append(o)
    with open(os.path.join(a.out, "latest.json"), "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print("\n".join(tgt + md))
    print("bench: wrote %s/latest.md, latest.json%s" % (a.out, "".join(", " + p for p in made)))


if __name__ == "__main__":
    main()

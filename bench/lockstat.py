#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""lockstat.py <lock-stat.txt> <out.md>: the LOCKSTAT lines of make
lock-stat (scripts/lock-stat.sh, toss-bench scenario 11) as tables: for
each boot (node 1's vCPUs), layout and worker count, the toss's median
time and, for each lock class among the five waited on longest, the
median of its contentions, wait and hold time (microseconds, all CPUs
together; classes of one name, such as the i_lock of two file system
types, added up) and its hold time as a share of the toss's time (a lock held
for a share h of one worker's time bounds the useful workers near 1/h)."""
import re
import statistics
import sys
from collections import defaultdict

LINE = re.compile(r"^LOCKSTAT node1_cpus=(\S+) workers=(\d+) files=(\d+) rep=(\d+) "
                  r"seconds=([\d.]+) class=(\S+) contentions=(\d+) wait_us=([\d.]+) "
                  r"acquisitions=(\d+) hold_us=([\d.]+)$")


def main():
    # (cpus, files, workers) -> class -> rep -> [contentions, wait, acq, hold]:
    # classes of one name (the i_lock of each file system type, say) summed
    runs = defaultdict(lambda: defaultdict(lambda: defaultdict(lambda: [0, 0.0, 0, 0.0])))
    secs = defaultdict(dict)                       # (cpus, files, workers) -> rep -> s
    with open(sys.argv[1]) as f:
        for line in f:
            m = LINE.match(line.strip())
            if not m:
                continue
            cpus, w, files, rep, s, cls, con, wait, acq, hold = m.groups()
            key = (cpus.replace("_", " "), int(files), int(w))
            secs[key][int(rep)] = float(s)
            t = runs[key][cls][int(rep)]
            for i, x in enumerate((int(con), float(wait), int(acq), float(hold))):
                t[i] += x
    out = ["# `make lock-stat`: the locks a whole toss's workers wait on\n",
           "A debug kernel (lockdep, DEBUG_VM) with CONFIG_LOCK_STAT, under QEMU TCG: its times are "
           "several times a production kernel's, and with more vCPUs than the host's 2 cores the "
           "waits include the host's scheduling. What it shows is which locks the workers meet and "
           "how their hold times compare with the toss's. Per boot, layout and worker count: the "
           "median over the repetitions; `hold share` is the class's hold time over the toss's "
           "time (one worker's share bounds the useful workers near its inverse).\n"]
    for key in sorted(secs):
        cpus, files, w = key
        s = statistics.median(secs[key].values())
        out.append("## node 1's CPUs %s; %d file%s; %d worker%s: toss %.3f s\n"
                   % (cpus.split()[1], files, "" if files == 1 else "s", w, "" if w == 1 else "s", s))
        rows = []
        for cls, reps in runs[key].items():
            v = list(reps.values())
            med = [statistics.median(x[i] for x in v) for i in range(4)]
            rows.append((med[1], cls, med))
        rows.sort(reverse=True)
        out.append("| class | contentions | wait us | acquisitions | hold us | hold share |")
        out.append("| --- | --- | --- | --- | --- | --- |")
        for _, cls, med in rows[:5] + [r for r in rows[5:] if re.search(
                r"xa_lock|lru_lock|zone->lock|i_lock|callback_lock", r[1])]:
            out.append("| `%s` | %d | %.0f | %d | %.0f | %.1f%% |"
                       % (cls, med[0], med[1], med[2], med[3], 100 * med[3] / (s * 1e6)))
        out.append("")
    with open(sys.argv[2], "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()

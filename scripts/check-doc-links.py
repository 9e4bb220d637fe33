#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# check-doc-links.py [file.md...]   (make check-doc-text; make check)
#
# Every relative link of the Markdown documentation (README.md,
# CONTRIBUTING.md, CHANGELOG.md, docs/**/*.md) resolves: the file or
# directory exists in the tree, and a #anchor names a heading of the
# target .md file (GitHub's anchors: lower case, punctuation but '-' and
# '_' dropped, spaces as '-', "-1", "-2" for repeated headings).  Links in
# code are not links; http(s) and mailto links are not checked (no
# network).
#
# Prints "pass doc-links/<file>" or "fail doc-links/<file>:<line>" for each
# broken link, and exits non-zero on a failure.
import glob
import os
import re
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def strip_code(text):
    """The text with fenced blocks and code spans blanked (newlines kept)."""
    out, fence = [], False
    for line in text.split('\n'):
        if re.match(r'\s*```', line):
            fence = not fence
            out.append('')
            continue
        out.append('' if fence else re.sub(r'`[^`]*`', '', line))
    return out


def anchors(path):
    seen, out = {}, set()
    for line in strip_code(open(path, encoding='utf-8').read()):
        m = re.match(r'#{1,6}\s+(.*?)\s*#*\s*$', line)
        if not m:
            continue
        a = m.group(1).strip().lower()
        a = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', a)
        a = re.sub(r'[^\w\- ]', '', a).replace(' ', '-')
        n = seen.get(a, 0)
        seen[a] = n + 1
        out.add(a if n == 0 else '%s-%d' % (a, n))
    # the raw headings' text with code spans too
    for line in open(path, encoding='utf-8').read().split('\n'):
        m = re.match(r'#{1,6}\s+(.*?)\s*$', line)
        if m:
            a = re.sub(r'[^\w\- ]', '', m.group(1).strip().lower()).replace(' ', '-')
            out.add(a)
    return out


def main(argv):
    files = argv or sorted(
        [f for f in ('README.md', 'CONTRIBUTING.md', 'CHANGELOG.md') if os.path.exists(os.path.join(HERE, f))] +
        [os.path.relpath(p, HERE) for p in glob.glob(os.path.join(HERE, 'docs/**/*.md'), recursive=True)])
    rc = 0
    n_links = 0
    for f in files:
        bad = 0
        path = os.path.join(HERE, f)
        lines = strip_code(open(path, encoding='utf-8').read())
        for n, line in enumerate(lines, 1):
            for m in re.finditer(r'!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)|^\s*\[[^\]]+\]:\s*(\S+)', line):
                target = m.group(1) or m.group(2)
                if re.match(r'[a-z]+:', target):
                    continue
                n_links += 1
                file, _, anchor = target.partition('#')
                dest = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
                why = None
                if not os.path.exists(dest):
                    why = 'no such file'
                elif anchor and dest.endswith('.md') and anchor not in anchors(dest):
                    why = 'no heading for #' + anchor
                if why:
                    print('fail doc-links/%s:%d' % (f, n))
                    print('doc-links: %s:%d: %s: %s' % (f, n, target, why))
                    bad = rc = 1
        if not bad:
            print('pass doc-links/%s' % f)
    print('doc-links: %d relative links in %d files' % (n_links, len(files)))
    return rc


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))

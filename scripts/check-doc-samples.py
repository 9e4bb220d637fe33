#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# check-doc-samples.py [file...]   (make check-doc-text; make check)
#
# Every sample of program output quoted in the documentation must be
# something the code can print.  The format strings are read from the
# code itself:
#
#   kernel  the kernel log line: pr_info() in kernel/cgroup/cpuset-toss.c
#   stat    cpuset.memory_toss_cache.stat: seq_printf()/seq_puts() there
#   cli     cpuset-toss's output and messages: userspace/cpuset-toss.c,
#           toss.c, toss-unit.c (printf, fprintf, snprintf)
#   slurm   slurmd's lines of the SPANK plugin: userspace/slurm/cpuset_toss.c
#           (slurm_info/error/debug), "job N: <msg>" with toss.c's dlog()s
#   hook    the OCI hook's and the Docker wrapper's syslog lines:
#           "container <id>: <msg>", msg from oci-hook.c, toss.c,
#           docker/cpuset-toss-runc.c
#   demo    vm/toss-demo's echo lines and the Makefile's "demo: OK"; its
#           kernel log line is checked as the kernel's
#
# What is a sample:
#   - every line of a fenced code block that follows the comment
#     <!-- sample: KIND[,KIND...] --> (each line must match a format of one
#     of the kinds; a line "..." elides lines);
#   - in any code block (and any line of a man page), a line with a
#     trigger (the kernel line's "cpuset.memory_toss_cache: cgroup",
#     "cpuset_toss: ", "container <id>: " after the hook's name, a
#     "cpuset-toss: " message, the CLI's table): the line from the
#     trigger on;
#   - in prose, an inline `code span` with one of those triggers or one of
#     the policy's phrases ("left alone:", "refused:", "no node of its own
#     left"): a fragment, which must occur in something a format prints.
# In a sample, "..." and <placeholder> stand for any text and a bare N for
# a number.
#
# Prints "pass doc-samples/<file>" for each file whose samples all match,
# "fail doc-samples/<file>:<line>" for each that does not (with the
# sample), and exits non-zero on a failure.
import glob
import os
import re
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# A token: (kind, neg, chars): kind 'one' (exactly one character) or
# 'star' (any number of them), of chars (neg False) or not of chars (neg
# True).
ANY = ('star', True, frozenset())
DIGITS = frozenset('0123456789')
NUMCH = frozenset('0123456789.+- ')


def read(path):
    with open(os.path.join(HERE, path), encoding='utf-8') as f:
        return f.read()


# --- C format strings -------------------------------------------------------

def c_string_args(src, fname, skip, defines):
    """The format argument of every call of fname (after skip arguments):
    adjacent string literals and #defined names concatenated."""
    out = []
    for m in re.finditer(r'\b%s\s*\(' % re.escape(fname), src):
        i = m.end()
        # skip arguments: up to `skip` top-level commas
        depth, k = 0, skip
        while k and i < len(src):
            c = src[i]
            if c == '"':
                i = skip_literal(src, i)
                continue
            if c in '([{':
                depth += 1
            elif c in ')]}':
                if depth == 0:
                    break
                depth -= 1
            elif c == ',' and depth == 0:
                k -= 1
            i += 1
        if k:
            continue
        s, ok = '', False
        while i < len(src):
            while i < len(src) and src[i] in ' \t\n':
                i += 1
            if src.startswith('"', i):
                j = skip_literal(src, i)
                s += c_unescape(src[i + 1:j - 1])
                i, ok = j, True
                continue
            w = re.match(r'[A-Za-z_]\w*', src[i:])
            if w and w.group(0) in defines:
                s += defines[w.group(0)]
                i += w.end()
                continue
            break
        if ok and i < len(src) and src[i] in ',)':
            out.append(Fmt(s, call_args(src, i)))
    return out


class Fmt(str):
    """A format string, with the text of the arguments after it."""
    def __new__(cls, s, args=()):
        o = str.__new__(cls, s)
        o.args = list(args)
        return o


def call_args(src, i):
    """The top-level arguments from src[i] (a ',' or ')') to the call's end."""
    args, depth, cur = [], 0, ''
    if src[i] == ')':
        return args
    i += 1
    while i < len(src):
        c = src[i]
        if c == '"':
            j = skip_literal(src, i)
            cur += src[i:j]
            i = j
            continue
        if c in '([{':
            depth += 1
        elif c in ')]}':
            if depth == 0:
                break
            depth -= 1
        elif c == ',' and depth == 0:
            args.append(cur.strip())
            cur = ''
            i += 1
            continue
        cur += c
        i += 1
    args.append(cur.strip())
    return args


# A %s whose argument is one of these prints no whitespace: a cgroup path,
# a CPU or node list, a file name, a container id.
WORDARG = re.compile(r'(\brel\b|path|cpus|list|bundle|\btmp\b|container|\bname\b|cg\b|cgroup)')
NOSPACE = frozenset(' \t\n')
# An error's text: words, no ':' or '"' (strerror(), toss_strerror(), %m)
STRERROR = ('star', True, frozenset(':"\n'))


def skip_literal(src, i):
    j = i + 1
    while src[j] != '"':
        j += 2 if src[j] == '\\' else 1
    return j + 1


def c_unescape(s):
    return re.sub(r'\\(.)', lambda m: {'n': '\n', 't': '\t'}.get(m.group(1), m.group(1)), s)


def defines_of(src):
    d = {}
    for m in re.finditer(r'^#define\s+(\w+)\s+((?:"[^"\n]*"\s*)+)$', src, re.M):
        d[m.group(1)] = ''.join(c_unescape(x) for x in re.findall(r'"([^"]*)"', m.group(2)))
    return d


CONV = re.compile(r'%(%|\*p[A-Za-z]+|p[A-Za-z]*|[-+ #0]*(\*|\d+)?(\.(\*|\d+))?(hh|h|ll|l|z|j|t)?[diouxXfFeEgGcsm])')


def fmt_tokens(fmt):
    """A C format as tokens: ('lit', ch), ('one', chars), ('star', chars)
    (chars None: any).  A %s prints no whitespace if its argument is a
    path or a list (WORDARG), and no '"' between quotes."""
    args = list(getattr(fmt, 'args', []))
    fmt = fmt.rstrip('\n')
    toks, pos = [], 0
    for m in CONV.finditer(fmt):
        toks += [lit(c) for c in fmt[pos:m.start()]]
        conv = m.group(1)
        if conv != '%' and '*' in conv and args:
            args.pop(0)
        arg = args.pop(0) if conv != '%' and args else ''
        if conv == '%':
            toks.append(lit('%'))
        elif 'pb' in conv:		# %*pbl: a node or CPU list
            toks.append(('star', False, frozenset('0123456789,-')))
        elif 'p' in conv:		# %*pE and the other %p extensions
            toks.append(ANY)
        elif conv[-1] in 'diouxXfFeEgG':
            toks += [('one', False, NUMCH), ('star', False, NUMCH)]
        elif conv[-1] == 's' and fmt[m.start() - 1:m.start()] == '"' and fmt[m.end():m.end() + 1] == '"':
            toks.append(('star', True, frozenset('"')))
        elif conv[-1] == 's' and WORDARG.search(arg) and 'strerror' not in arg:
            toks.append(('star', True, NOSPACE))
        elif conv[-1] == 'm' or 'strerror' in arg:
            toks.append(STRERROR)
        else:
            toks.append(ANY)
        pos = m.end()
    toks += [lit(c) for c in fmt[pos:]]
    return toks


def lit(c):
    return ('one', False, frozenset(c))


def tok_regex(toks):
    out = ''
    for kind, neg, cs in toks:
        if kind == 'one' and not neg and len(cs) == 1:
            out += re.escape(next(iter(cs)))
            continue
        cls = ''.join(re.escape(c) if c not in '-' else '\-' for c in sorted(cs))
        out += ('[^%s]' % cls if cls else '.') if neg else '[%s]' % cls
        out += '*' if kind == 'star' else ''
    return out


def formats():
    k = read('kernel/cgroup/cpuset-toss.c')
    cli_src = [read('userspace/' + f) for f in ('cpuset-toss.c', 'toss.c', 'toss-unit.c')]
    toss = read('userspace/toss.c')
    slurm = read('userspace/slurm/cpuset_toss.c')
    hook = read('userspace/oci-hook.c')
    runc = read('userspace/docker/cpuset-toss-runc.c')
    demo = read('vm/toss-demo')
    mk = read('Makefile')

    F = {}
    F['kernel'] = c_string_args(k, 'pr_info', 0, {})
    # .stat: one format per line; seq_puts("key") begins a line the loop
    # after it completes (the per-node line)
    stat = []
    for m in re.finditer(r'\bseq_(printf|puts)\s*\(\s*\w+\s*,\s*"((?:[^"\\]|\\.)*)"', k):
        s = c_unescape(m.group(2))
        if m.group(1) == 'puts' and not s.endswith('\n') and re.match(r'^\w+$', s):
            s += '%s'
        if re.match(r'^\w', s):
            stat.append(s)
    # and the flat keys of toss_stat_keys[], printed as "%s %llu"
    m = re.search(r'toss_stat_keys\[[^]]*\]\s*=\s*\{([^}]*)\}', k)
    if m:
        stat += [key + ' %llu' for key in re.findall(r'"(\w+)"', m.group(1))]
    F['stat'] = stat
    dl = c_string_args(toss, 'dlog', 2, {})
    cli = []
    for src in cli_src:
        d = defines_of(src)
        for fn, skip in (('printf', 0), ('fprintf', 1), ('snprintf', 2), ('seterr', 2)):
            cli += c_string_args(src, fn, skip, d)
    msgs = [s for s in cli if not s.startswith('cpuset-toss')]
    F['cli'] = [s for s in cli if s.startswith(('cpuset-toss', 'cgroup ', 'node ', '%4d', 'done', '; the kernel'))]
    F['cli'] += [Fmt('cpuset-toss: ' + s, s.args) for s in msgs]
    # "done in %.1f ms" and "; the kernel dropped ..." print one line
    F['cli'] += [Fmt(a + b, a.args + b.args) for a in F['cli'] if a.startswith('done in') for b in F['cli'] if b.startswith('; the kernel')]
    sd = defines_of(slurm)
    sl = []
    for fn in ('slurm_info', 'slurm_error', 'slurm_debug', 'slurm_verbose'):
        sl += c_string_args(slurm, fn, 0, sd)
    fwd = [s for s in sl if s.endswith('job %u: %s')]
    F['slurm'] = [s for s in sl if s not in fwd] + [Fmt(f[:-2] + d, f.args[:-1] + d.args) for f in fwd for d in dl]
    hl = c_string_args(hook, 'hlog', 1, {}) + c_string_args(runc, 'rlog', 1, {})
    hl = [h for h in hl if h != '%s']	# delegate_log() passing dlog()'s on
    F['hook'] = [Fmt('container %s: ' + s, ['container'] + s.args) for s in hl + dl]
    F['policy'] = dl + hl + [x for x in sl if x not in fwd]
    dm = []
    for m in re.finditer(r'echo "((?:[^"\\]|\\.)*)"', demo):
        s = m.group(1).replace('\\$', '$')
        s = re.sub(r'\$\(\([^)]*\)\)|\$\([^)]*\)|\$\{?\w+\}?', '%s', s.replace('%', '%%'))
        dm.append(s)
    dm += re.findall(r'echo "(demo: OK)"', mk)
    dm.append('   node %s: %s')
    # the statistics files, which the demo prints indented
    dm += ['   ' + x for x in stat]
    F['demo'] = dm
    return F


# --- matching ---------------------------------------------------------------

def sample_tokens(s, fragment=False):
    toks = []
    i = 0
    while i < len(s):
        if s.startswith('...', i) or s.startswith('…', i):
            toks.append(ANY)
            i += 3 if s.startswith('...', i) else 1
            continue
        m = re.match(r'<[a-z][a-z0-9 _-]*>', s[i:])
        if m:
            toks.append(ANY)
            i += m.end()
            continue
        if s[i] == 'N' and (i == 0 or not s[i - 1].isalnum()) and \
                (i + 1 == len(s) or not (s[i + 1].isalnum() or s[i + 1] == '=')):
            toks += [('one', False, DIGITS), ('star', False, DIGITS)]
            i += 1
            continue
        toks.append(lit(s[i]))
        i += 1
    if fragment:
        toks = [ANY] + toks + [ANY]
    return toks


def meet(a, b):
    """Can tokens a and b stand for the same character?"""
    if a[1] and b[1]:
        return True
    if a[1]:
        a, b = b, a
    if b[1]:
        return bool(a[2] - b[2])
    return bool(a[2] & b[2])


def intersect(A, B):
    """Is there a string both token lists produce?"""
    n, m = len(A), len(B)
    nxt = [False] * (m + 1)
    # row i = n: only stars of B remain
    nxt[m] = True
    for j in range(m - 1, -1, -1):
        nxt[j] = B[j][0] == 'star' and nxt[j + 1]
    for i in range(n - 1, -1, -1):
        cur = [False] * (m + 1)
        a = A[i]
        cur[m] = a[0] == 'star' and nxt[m]
        for j in range(m - 1, -1, -1):
            b = B[j]
            v = False
            if a[0] == 'star' and nxt[j]:
                v = True
            elif b[0] == 'star' and cur[j + 1]:
                v = True
            elif meet(a, b):
                sa, sb = a[0] == 'star', b[0] == 'star'
                if not sa and not sb:
                    v = nxt[j + 1]
                elif sa and not sb:
                    v = cur[j + 1]
                elif sb and not sa:
                    v = nxt[j]
            cur[j] = v
        nxt = cur
    return nxt[0]


class Matcher:
    def __init__(self):
        self.F = formats()
        self.tok = {k: [fmt_tokens(f) for f in v] for k, v in self.F.items()}
        # In a fragment quoted in prose, a %s of several words is written
        # "..." (else a format that ends in a %s would match any text).
        self.ftok = {k: [[('star', True, NOSPACE | t[2]) if t[0] == 'star' and t[1] and t != STRERROR else t for t in ts] for ts in v]
                     for k, v in self.tok.items()}
        self.rx = {k: [re.compile(tok_regex(t) + r'\Z', re.S) for t in v] for k, v in self.tok.items()}

    def match(self, kinds, s, fragment=False):
        wild = fragment or '...' in s or '…' in s or re.search(r'<[a-z]|\bN\b', s)
        for k in kinds:
            if not wild:
                if any(r.match(s) for r in self.rx[k]):
                    return True
                continue
            st = sample_tokens(s, fragment)
            if any(intersect(f, st) for f in (self.ftok if fragment else self.tok)[k]):
                return True
        return False


# --- finding the samples ----------------------------------------------------

TRIGGERS = [
    # (kind, regex that finds where the sample starts in a line)
    ('kernel', re.compile(r'(?=\S*\s*\(\d+\): cpuset\.memory_toss_cache: cgroup)|(?=[^\s`]+ \(N\): cpuset)')),
    ('slurm', re.compile(r'(?=cpuset_toss: (job|--|plugstack|the policy|no job|cannot))')),
    ('hook', re.compile(r'(?<=cpuset-toss-oci-hook: )|(?<=cpuset-toss-oci-hook\[\d\]: )|(?<=cpuset-toss-oci-hook\[\d\d\]: )|'
                        r'(?<=cpuset-toss-oci-hook\[\d\d\d\]: )|(?<=cpuset-toss-oci-hook\[\d\d\d\d\]: )|(?<=cpuset-toss-runc: )')),
    ('cli', re.compile(r'^(?=cpuset-toss: )|^(?=cgroup /\S* \(cgroup v\d\), wrote)|^(?=node  target)|^(?=done in [0-9.]+ ms)|^(?=\s+\d+  (yes|no) )')),
    ('stat', re.compile(r'^\s*(?=(tosses|tosses_failed|toss_usec|scanned_bytes|tossed_bytes|kept_[a-z]+_bytes|slab_objects|last_[a-z_]+) |tossed N\d)')),
]
POLICY = re.compile(r'left alone:|refused:|no node of its own left|nothing tossed|not tossed for anyone')


def roff_text(line):
    """A man page line as the reader sees it (roughly)."""
    if line.startswith('.\\"'):
        return ''
    m = re.match(r'\.(B|I|BI|IB|BR|RB|IR|RI|SM|SB)\s+(.*)', line)
    if m:
        args = [a or b for a, b in re.findall(r'"((?:[^"]|"")*)"|(\S+)', m.group(2))]
        mac = m.group(1)
        fonts = mac * len(args) if len(mac) == 1 else (mac * len(args))[:len(args)]
        # an italic single word is a placeholder; trailing punctuation in
        # roman is the sentence's, not the sample's
        args = ['<%s>' % a if f == 'I' and re.match(r'^[a-z]+$', a) else a
                for a, f in zip(args, fonts)]
        if len(args) > 1 and re.match(r'^[.,;:)]+$', args[-1]):
            args = args[:-1]
        line = ''.join(args).replace('""', '"')
    elif line.startswith('.'):
        return ''
    line = re.sub(r'\\f[BIRP]|\\f\(..|\\c$|\\&', '', line)
    return line.replace('\\-', '-').replace('\\(aq', "'").replace('\\e', '\\').replace('\\ ', ' ')


def samples(path):
    """(line number, kinds, text, fragment) for each sample of a file."""
    text = read(path).split('\n')
    man = not path.endswith('.md')
    out = []
    fence = None
    marked = None
    pending = None
    para = []
    for n, raw in enumerate(text, 1):
        if man:
            line = roff_text(raw)
            if re.match(r'\.(EX|nf)\b', raw):
                fence = 'man'
            elif re.match(r'\.(EE|fi)\b', raw):
                fence = None
            whole_line_triggers(out, n, line, fence is not None)
            if fence is None:
                inline(out, n, line)
            continue
        m = re.match(r'\s*<!-- sample: ([a-z,]+) -->', raw)
        if m:
            pending = m.group(1).split(',')
            continue
        if re.match(r'\s*```', raw):
            flush(out, para)
            if fence is None:
                fence, marked, pending = raw.strip(), pending, None
            else:
                fence = marked = None
            continue
        if fence is not None:
            if marked:
                if raw.strip() not in ('', '...'):
                    out.append((n, marked, from_trigger(marked, raw), False))
                continue
            whole_line_triggers(out, n, raw)
            continue
        pending = None
        if raw.strip():
            para.append((n, raw))
        else:
            flush(out, para)
    flush(out, para)
    return out


def flush(out, para):
    """The code spans of a paragraph (a span may go over a line break),
    each at the line where it starts."""
    if not para:
        return
    text, starts = '', []
    for n, line in para:
        starts.append((len(text), n))
        text += line.strip() + ' '
    for m in re.finditer(r'`([^`]+)`', text):
        n = max(ln for off, ln in starts if off <= m.start())
        inline(out, n, '`' + m.group(1) + '`')
    n = para[0][0]
    if '`' not in text:
        inline(out, n, text)
    para.clear()


def from_trigger(kinds, line):
    """A marked sample's line from its kind's trigger on (a log line's
    time stamp and program name are not the format's)."""
    for kind, rx in TRIGGERS:
        if kind in kinds and kind not in ('cli', 'stat'):
            m = rx.search(line)
            if m:
                return line[m.end():].rstrip()
    return line.rstrip()


def whole_line_triggers(out, n, line, fenced=True):
    for kind, rx in TRIGGERS:
        m = rx.search(line)
        if m:
            if kind == 'stat' and not fenced:
                continue
            # a man page's prose quotes a part of the line
            out.append((n, [kind], line[m.end():].rstrip(), not fenced))
            return


def inline(out, n, line):
    for span in re.findall(r'`([^`]+)`', line):
        for kind, rx in TRIGGERS[:3]:
            m = rx.search(span)
            if m:
                out.append((n, [kind], span[m.end():], True))
                break
        else:
            if POLICY.search(span):
                out.append((n, ['policy'], span, True))
    if '`' not in line and POLICY.search(line) and re.search(r'"[^"]*(left alone:|refused:)[^"]*"', line):
        for q in re.findall(r'"([^"]*(?:left alone:|refused:)[^"]*)"', line):
            out.append((n, ['policy'], q, True))


def main(argv):
    verbose = argv[:1] == ['-v']
    argv = argv[1:] if verbose else argv
    files = argv or sorted(
        [f for f in ('README.md', 'CONTRIBUTING.md', 'CHANGELOG.md') if os.path.exists(os.path.join(HERE, f))] +
        [os.path.relpath(p, HERE) for p in glob.glob(os.path.join(HERE, 'docs/**/*.md'), recursive=True)] +
        [os.path.relpath(p, HERE) for p in glob.glob(os.path.join(HERE, 'userspace/man/*.[0-9]'))])
    mt = Matcher()
    for k, v in mt.F.items():
        if not v:
            print('fail doc-samples/formats-%s (no format string found in the code)' % k)
            return 1
    rc = 0
    total = 0
    for f in files:
        bad = 0
        ss = samples(f)
        total += len(ss)
        for n, kinds, s, frag in ss:
            if verbose:
                print('doc-samples: %s:%d: %s%s: %s' % (f, n, '/'.join(kinds), ' fragment' if frag else '', s))
            if not mt.match(kinds, s, frag):
                print('fail doc-samples/%s:%d' % (f, n))
                print('doc-samples: %s:%d: %s %s the code does not print:\n  %s' %
                      (f, n, '/'.join(kinds), 'fragment' if frag else 'line', s))
                bad = rc = 1
        if not bad:
            print('pass doc-samples/%s' % f)
    print('doc-samples: %d samples in %d files' % (total, len(files)))
    return rc


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))

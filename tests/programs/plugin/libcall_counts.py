#!/usr/bin/env python3
"""libcall_counts.py - the calls each named function made to each callee, read
from a callgrind file (valgrind's on the plain program, or inclprof's
callgrind export of the instrumented one), one line per function:
    FUNCTION: COUNT CALLEE, COUNT CALLEE
Names are made comparable: a clone suffix (.constprop.N, .isra.N, .part.N,
.cold) is dropped from function names, and glibc's implementations of a
function (__memcpy_avx_unaligned_erms, __sin_fma) are named after it; memcpy
and memmove are one implementation in glibc, which valgrind names either way,
so both count as memcpy.
Usage: libcall_counts.py FILE FUNCTION..."""
import collections
import re
import sys


def plain(name):
    name = re.sub(r'(\.(constprop|isra|part|cold)(\.\d+)?)+$', '', name)
    if name.startswith('__') and not name.startswith('__inclprof'):
        name = name[2:].split('_')[0]
    return 'memcpy' if name == 'memmove' else name


def main():
    path, wanted = sys.argv[1], set(sys.argv[2:])
    names, calls = {}, collections.defaultdict(collections.Counter)
    fn = cfn = None

    def name_of(token):
        m = re.match(r'\((\d+)\)(?: (.*))?$', token)
        if not m:
            return token
        if m.group(2):
            names[m.group(1)] = m.group(2)
        return names.get(m.group(1), '?')

    with open(path) as f:
        for line in f:
            line = line.rstrip('\n')
            if line.startswith('fn='):
                fn = plain(name_of(line[3:]))
            elif line.startswith('cfn='):
                cfn = plain(name_of(line[4:]))
            elif line.startswith('calls=') and fn in wanted and not cfn.startswith('_dl_'):
                calls[fn][cfn] += int(line[6:].split()[0])
    for fn in sys.argv[2:]:
        print('%s: %s' % (fn, ', '.join('%d %s' % (n, c) for c, n in sorted(calls[fn].items()))))


main()

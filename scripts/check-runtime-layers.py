#!/usr/bin/env python3
"""check-runtime-layers.py - the runtime's calls go down its layers.

The runtime's sources are in one folder per layer (docs/runtime.md,
"Layers"), top first: entry/, produce/, sink/, base/.  A file may use the
functions and variables of its own layer and of the layers below, never of
a layer above; and no call circle between files is longer than two files
(two files of one layer may call each other; three may not go round).
Each layer's interfaces are in its own header (entry/entry.h,
produce/produce.h, sink/sink.h, base/base.h, each including the one below):
a file includes no header of a layer above its own, so a call up is also a
compile error.

What a file uses: every non-static ip_*, inclprof_* or __inclprof* name
another runtime file defines, named anywhere in its code (comments and
strings left out), and every other function another runtime file defines
(libc's names: the interposers of entry/, the runtime's own string, stdio
and malloc functions of base/), called in its code: inside libinclprof.so
a call of such a name binds to the runtime's own definition.  The runtime's
own calls of libc functions it interposes go through base/libc_real.c
(ip_syscall, ip_close, ...): a call of an interposer from any other file
is a fault of its own, even within entry/.

Usage: scripts/check-runtime-layers.py [-v]   (from the top of the repository)
  -v  also print every use between files: FILE -> FILE: NAMES
Exit status 1, with one line per fault, when a rule is broken.
"""
import glob
import os
import re
import sys

LAYERS = ["entry", "produce", "sink", "base"]  # top first
ROOT = "runtime"

DEF_FUNC = re.compile(
    r"^(?!static)[A-Za-z_][\w \*]*?\b([A-Za-z_]\w*)\s*\([^;{]*\)\s*\{", re.M)
RUNTIME_NAME = re.compile(r"ip_\w+|inclprof_\w+|__inclprof\w*")
INTERPOSERS = os.path.join(ROOT, "entry", "interpose.c")
LIBC_REAL = os.path.join(ROOT, "base", "libc_real.c")
DEF_VAR = re.compile(
    r"^(?!static|extern|typedef|return)[A-Za-z_][\w \*]*?\b(ip_\w+)\s*(?:\[[^\]]*\])?\s*(?:=|;)",
    re.M)
COMMENT_OR_STRING = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"', re.S)


def layer_of(path):
    return path.split(os.sep)[1]


INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"(\w+)/[\w.]+"', re.M)


def includes_up(path):
    """The includes of a header of a layer above the one of path."""
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    return [m.group(0).strip() for m in INCLUDE.finditer(text)
            if m.group(1) in LAYERS and LAYERS.index(m.group(1)) < LAYERS.index(layer_of(path))]


def sources():
    files = sorted(glob.glob(os.path.join(ROOT, "*", "*.c")))
    code = {}
    for f in files:
        with open(f, encoding="utf-8") as fh:
            code[f] = COMMENT_OR_STRING.sub(" ", fh.read())
    return files, code


def uses(files, code):
    """{file: {defining file: [names]}} for uses between files."""
    owner = {}
    for f in files:
        for rx in (DEF_FUNC, DEF_VAR):
            for m in rx.finditer(code[f]):
                owner.setdefault(m.group(1), f)
    words = {f: set(re.findall(r"\b\w+\b", code[f])) for f in files}
    calls = {f: set(re.findall(r"(?<![\w.>])(\w+)\s*\(", code[f])) for f in files}
    edges = {f: {} for f in files}
    for name, d in owner.items():
        used = words if RUNTIME_NAME.fullmatch(name) else calls
        for f in files:
            if f != d and name in used[f]:
                edges[f].setdefault(d, []).append(name)
    return edges


def circles(files, edges):
    """The strongly connected sets of files (Tarjan), those of two or more."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for f in files:
        if f not in index:
            visit(f)
    return out


def main():
    verbose = "-v" in sys.argv[1:]
    files, code = sources()
    faults = []
    for f in files:
        if layer_of(f) not in LAYERS:
            faults.append(f"{f}: not in a layer's folder ({', '.join(LAYERS)})")
    files = [f for f in files if layer_of(f) in LAYERS]
    for f in sorted(glob.glob(os.path.join(ROOT, "*", "*.[ch]"))):
        if layer_of(f) in LAYERS:
            for inc in includes_up(f):
                faults.append(f"{f} ({layer_of(f)}/) includes a header of a layer above: {inc}")
    edges = uses(files, code)
    for f in files:
        for d, names in sorted(edges[f].items()):
            if verbose:
                print(f"{f} -> {d}: {' '.join(sorted(names))}")
            if LAYERS.index(layer_of(d)) < LAYERS.index(layer_of(f)):
                faults.append(f"{f} ({layer_of(f)}/) calls up into {d} ({layer_of(d)}/): "
                              f"{' '.join(sorted(names))}")
    for f in files:
        names = edges[f].get(INTERPOSERS, [])
        own = [n for n in names if not RUNTIME_NAME.fullmatch(n)]
        if own and f != LIBC_REAL:
            faults.append(f"{f} calls the interposer of {' '.join(sorted(own))} ({INTERPOSERS}): "
                          f"the runtime's own calls go through {LIBC_REAL} (ip_syscall, ip_close, ...)")
    for comp in circles(files, edges):
        if verbose or len(comp) > 2:
            print(f"call circle of {len(comp)} files: {' '.join(comp)}")
        if len(comp) > 2:
            faults.append(f"call circle of {len(comp)} files: {' '.join(comp)}")
    for line in faults:
        print(f"check-runtime-layers: {line}", file=sys.stderr)
    if not faults:
        print(f"runtime layers: {len(files)} files, calls and includes go down, no call circle of more "
              f"than two files")
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main())

"""corpus.py - the programs of `make peer`: other tools' own test programs
from their Debian source packages, each with the sources, options, arguments
and input files its own harness uses, and the option sets it is built with
(-O0 and -O2 after the test's own options, which win; the tree-prof tests
also with profile feedback, as GCC's harness runs them)."""
import glob
import os
import re

import dg

VARIANTS = ("O0", "O2")


class Program:
    def __init__(self, suite, name, sources, flags=(), libs=(), args=(), lang="c",
                 variants=VARIANTS, files=(), shared=None, skip=None, valgrind_status=None, prebuilt=None,
                 callgrind=True, stable_only=False, timeout=None, report=False):
        self.suite = suite
        self.name = name
        self.sources = list(sources)
        self.flags = list(flags)  # the test's own options
        self.libs = list(libs)
        self.args = list(args)
        self.lang = lang
        self.variants = list(variants)
        self.files = list(files)  # copied into the run directory
        self.shared = shared  # (source, name.so): a library the program loads
        self.skip = skip  # why it does not run here, or None
        # its exit status under valgrind where it differs by design
        # (main returns RUNNING_ON_VALGRIND), else None: the native one
        self.valgrind_status = valgrind_status
        self.prebuilt = prebuilt  # {"plain": exe, "inst": exe} its own build made, or None
        self.callgrind = callgrind  # its calls are compared with callgrind's
        # run plain twice: only what both plain runs print alike (standard
        # output and error, line by line) is compared with the recorded run
        self.stable_only = stable_only
        self.timeout = timeout  # a plain run's limit (s), or None: PEER_RUN_TIMEOUT
        self.report = report  # `inclprof report` must read its recording too

    def key(self):
        return "%s/%s" % (self.suite, self.name)


def _gcc_test(suite, path, extra_sources=(), extra_flags=(), lang="c", fdo=False):
    text = open(path, errors="replace").read()
    d = dg.Directives(text)
    flags = list(extra_flags) + d.options([])
    # Dumps and kept temporaries are what GCC's testsuite inspects; they do
    # not change the code.
    flags = [f for f in flags if not f.startswith("-fdump-") and f != "-save-temps"]
    srcs = [path] + list(extra_sources)
    for name, args in d.items:
        if name == "dg-additional-sources" and args:
            srcs += [os.path.join(os.path.dirname(path), s) for s in dg._flatten(args[0]).split()]
    skip = None
    if d.what() != "run":
        skip = "dg-do %s" % d.what()
    elif d.skipped(flags):
        skip = d.skipped(flags)
    libs = ["-lm"]
    if lang == "c++":
        libs = ["-lm"]
    variants = list(VARIANTS) + (["fdo"] if fdo else [])
    name = os.path.splitext(os.path.basename(path))[0]
    return Program(suite, name, srcs, flags=flags, libs=libs, lang=lang, variants=variants, skip=skip)


# Programs whose plain build takes callgrind longer than its limit: they
# are skipped, with the reason.
TOO_LONG_FOR_CALLGRIND = {
    "tree-prof/split-1": "10^10 stores (a million calls of foo, 10 000 each): callgrind needs over 10 minutes",
}


def gcc_programs(root):
    """GCC's gcc.c-torture/execute (with ieee/ and builtins/), gcc.dg/tree-prof
    and g++.dg/tree-prof, from the unpacked testsuite at ROOT."""
    out = []
    ex = os.path.join(root, "gcc.c-torture/execute")
    for path in sorted(glob.glob(ex + "/*.c")):
        out.append(_gcc_test("torture", path, extra_flags=["-w"]))
    for path in sorted(glob.glob(ex + "/ieee/*.c")):
        skip, flags = _x(path)
        p = _gcc_test("torture-ieee", path, extra_flags=["-w"] + flags)
        p.skip = p.skip or skip
        out.append(p)
    builtins_flags = ["-w", "-fno-tree-dse", "-fno-tree-loop-distribute-patterns", "-fno-tracer",
                      "-fno-ipa-ra", "-fno-inline-functions"]
    for path in sorted(glob.glob(ex + "/builtins/*.c")):
        if path.endswith("-lib.c"):
            continue
        skip, flags = _x(path)
        lib = path[:-2] + "-lib.c"
        extra = ([lib] if os.path.exists(lib) else []) + [ex + "/builtins/lib/main.c"]
        p = _gcc_test("torture-builtins", path, extra_sources=extra, extra_flags=builtins_flags + flags)
        p.skip = p.skip or skip
        out.append(p)
    for path in sorted(glob.glob(root + "/gcc.dg/tree-prof/*.c")):
        p = _gcc_test("tree-prof", path, fdo=True)
        if "DOJOB" in open(path, errors="replace").read() and path.endswith("a.c"):
            continue  # the second unit of a two-unit test
        p.skip = p.skip or TOO_LONG_FOR_CALLGRIND.get(p.key())
        out.append(p)
    for path in sorted(glob.glob(root + "/g++.dg/tree-prof/*.C")):
        out.append(_gcc_test("g++-tree-prof", path, lang="c++", fdo=True))
    return out


def _x(path):
    x = path[:-2] + ".x"
    if not os.path.exists(x):
        return None, []
    skip, flags = dg.x_file(open(x, errors="replace").read())
    return ("%s.x returns 1 here" % os.path.basename(path[:-2]) if skip else None), flags


def valgrind_programs(root):
    """valgrind's callgrind, cachegrind and perf test programs, with the
    arguments of their .vgtest / .vgperf files and their Makefile.am options."""
    inc = ["-I" + root, "-I" + root + "/include", "-Wno-inline"]
    cg = root + "/callgrind/tests/"
    ca = root + "/cachegrind/tests/"
    pf = root + "/perf/"
    out = [
        Program("valgrind-callgrind", "clreq", [cg + "clreq.c"], flags=inc, valgrind_status=1),
        Program("valgrind-callgrind", "simwork", [cg + "simwork.c"], flags=inc, valgrind_status=1),
        Program("valgrind-callgrind", "threads", [cg + "threads.c"], flags=inc, libs=["-lpthread"]),
        Program("valgrind-cachegrind", "chdir", [ca + "chdir.c"], flags=inc),
        Program("valgrind-cachegrind", "clreq", [ca + "clreq.c"], flags=inc, valgrind_status=1),
        Program("valgrind-cachegrind", "dlclose", [ca + "dlclose.c"], flags=inc, libs=["-ldl"],
                shared=(ca + "myprint.c", "myprint.so")),
        Program("valgrind-perf", "bigcode", [pf + "bigcode.c"], flags=inc),
        Program("valgrind-perf", "bz2", [pf + "bz2.c"], flags=inc),
        Program("valgrind-perf", "fbench", [pf + "fbench.c"], flags=inc, libs=["-lm"]),
        Program("valgrind-perf", "ffbench", [pf + "ffbench.c"], flags=inc, libs=["-lm"]),
        Program("valgrind-perf", "heap", [pf + "heap.c"], flags=inc),
        Program("valgrind-perf", "heap-4", [pf + "heap.c"], flags=inc, args=["4"]),
        Program("valgrind-perf", "many-loss-records", [pf + "many-loss-records.c"], flags=inc),
        Program("valgrind-perf", "many-xpts", [pf + "many-xpts.c"], flags=inc),
        Program("valgrind-perf", "memrw", [pf + "memrw.c"], flags=inc, libs=["-lpthread"]),
        Program("valgrind-perf", "sarp", [pf + "sarp.c"], flags=inc),
        Program("valgrind-perf", "tinycc", [pf + "tinycc.c"], flags=inc + ["-Wno-shadow", "-Wno-pointer-sign"],
                args=["-c", "test_input_for_tinycc.c"], files=[pf + "test_input_for_tinycc.c"]),
    ]
    return out


def class_programs(root):
    """inclprof's own programs (tests/programs/runtime under ROOT) for the
    kinds of program that once broke under the runtime and that the other
    suites barely have: an allocator of its own (a static pool; a wrapper of
    libc's malloc), its own string functions, a child started by a raw
    clone() (a death test's way), a fork inside a signal handler, a vfork
    child resetting every handler before exec, descriptors closed from 3 up
    while a thread runs, a child that closes every descriptor and execs,
    main ending with pthread_exit, and C++ lambdas (called directly,
    generic, in a std::function, std::thread's body, std::sort's
    comparator).  Each prints its own counts."""
    rt = os.path.join(root, "tests/programs/runtime/")

    def prog(name, src, args, libs=()):
        return Program("classes", name, [rt + src], flags=["-pthread"], libs=list(libs), args=args)
    return [
        prog("own-alloc", "own_alloc.c", ["200", "2"]),
        prog("alloc-next", "alloc_next.c", [], ["-ldl"]),
        prog("own-libc", "own_libc.c", ["2000"]),
        prog("clone-death-test", "clone_child.c", ["clone", "1000"]),
        prog("fork-in-handler", "fork_in_handler.c", ["stay", "1000"]),
        prog("vfork-sigaction", "spawn_signals.c", ["vfork", "5"]),
        prog("closefrom-thread", "fd_program.c", ["closefrom"]),
        prog("close-exec", "close_exec.c", ["closefrom", "100"]),
        prog("pthread-exit-main", "last_thread.c", ["main-exit", "1000"]),
        Program("classes", "lambdas", [os.path.join(root, "tests/programs/plugin/lambdas.cc")], flags=["-pthread"],
                lang="c++"),
    ]


def uftrace_programs(root):
    """uftrace's tests/s-*.c (each test's main program; s-lib*.c and the
    other helpers are linked where its .py names them is not read: the
    single-file programs only)."""
    out = []
    for path in sorted(glob.glob(root + "/tests/s-*.c")):
        name = os.path.basename(path)[2:-2]
        lang = "c"
        out.append(Program("uftrace", name, [path], flags=["-I" + root + "/tests"], libs=["-lpthread", "-ldl", "-lm"],
                           lang=lang))
    for path in sorted(glob.glob(root + "/tests/s-*.cpp")):
        name = os.path.basename(path)[2:-4]
        out.append(Program("uftrace", name, [path], flags=["-I" + root + "/tests"], libs=["-lpthread"], lang="c++"))
    return out


def strace_programs(src, build):
    """strace's test programs (tests/ of its source at SRC), built by its own
    Makefiles plain and with the plugin under BUILD (tests/peer/strace.sh).
    Each runs as strace's test scripts run it where they give it no argument
    and set nothing up for it (its line of tests/gen_tests.in, the script
    that line names, or NAME.test); the others are skipped with the reason.
    No callgrind: the programs exist to make system calls (clone3, pidfd,
    io_uring, seccomp, ptrace, namespaces) that valgrind does not emulate or
    refuses, and their own calls are a main and a few printing helpers.
    They print pids, times and addresses: each runs plain twice and only
    what both runs print alike is compared."""
    tests = os.path.join(src, "tests")
    gen = {}
    for line in open(os.path.join(tests, "gen_tests.in")):
        f = line.split()
        if f and not f[0].startswith("#"):
            gen[f[0]] = f[1:]
    out = []
    # check_PROGRAMS names getpid and getppid twice
    for name in sorted({l.strip() for l in open(os.path.join(build, "programs.txt"))} - {""}):
        skip = _strace_skip(tests, name, gen.get(name))
        exe = {sub: os.path.join(build, sub, "tests", name) for sub in ("plain", "inst")}
        out.append(Program("strace", name, [], variants=("O2",), skip=skip, prebuilt=exe, callgrind=False,
                           stable_only=True, timeout=20))
    return out


# gdb's programs that are not run: what they do outside their own directory
GDB_SKIP = {
    "gdb-base/bigcore": "grows its heap to the limit and dumps a core of it",
    "gdb-base/interrupt-daemon": "a daemon: its child leaves the run's session (setsid) and waits for gdb",
    "gdb-base/interrupt-daemon-attach": "a daemon: its child leaves the run's session (setsid) and waits for gdb",
}

# gdb's programs that end on their own after 7 to 15 s plain (they sleep, or
# spawn threads for a time they measure): their plain run's limit (s)
GDB_TIMEOUT = {
    "gdb-threads/leader-exit": 30,
    "gdb-threads/stop-with-handle": 30,
    "gdb-threads/thread_check": 30,
    "gdb-threads/tid-reuse": 30,
    "gdb-base/annota-input-while-running": 30,
    "gdb-base/bg-execution-repeat": 30,
    "gdb-base/continue-all-already-running": 30,
    "gdb-base/paginate-after-ctrl-c-running": 30,
}


def gdb_programs(root):
    """gdb's single-file test programs of gdb/testsuite/gdb.threads and
    gdb.base (C, and C++ in .cc files) under ROOT, built as gdb's harness
    builds them (-g -pthread) at -O0, gdb.threads' also at -O2.  A program
    that needs another source or a macro of its .exp does not build, and
    one that waits for gdb to release it runs past its limit (5 s;
    GDB_TIMEOUT's longer) plain: neither is compared.  They print pids,
    addresses and timings: each runs plain twice and only what both runs
    print alike is compared, and `inclprof report` must read the
    recording.  No callgrind: what they exercise is the processes' and
    threads' lives, not their calls."""
    out = []
    for sub in ("gdb.threads", "gdb.base"):
        suite = sub.replace(".", "-")
        # the threads' programs, whose races -O2 moves, at both
        variants = ("O0", "O2") if sub == "gdb.threads" else ("O0",)
        for path in sorted(glob.glob(os.path.join(root, "gdb/testsuite", sub, "*.c")) +
                           glob.glob(os.path.join(root, "gdb/testsuite", sub, "*.cc"))):
            name, ext = os.path.splitext(os.path.basename(path))
            p = Program(suite, name, [path], flags=["-g", "-pthread"], libs=["-lm", "-ldl"],
                        lang="c++" if ext == ".cc" else "c", variants=variants, callgrind=False,
                        stable_only=True, report=True)
            p.timeout = GDB_TIMEOUT.get(p.key(), 5)
            p.skip = GDB_SKIP.get(p.key())
            out.append(p)
    return out


_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def _strace_skip(tests, name, line):
    """Why strace's program NAME does not run here (its gen_tests.in LINE
    split, or None), or None: its test runs it with no argument."""
    if line is None:
        script = name + ".test"
        if not os.path.exists(os.path.join(tests, script)):
            return "a helper of other tests: no test of its own runs it"
    elif line and line[0].startswith("+"):
        script = line[0][1:]
        if any(_ASSIGNMENT.match(a) for a in line[1:]):
            return "gen_tests.in sets variables for %s" % script
    elif line and not line[0].startswith("-"):
        # shell commands: a check of the kernel, then the program's run
        if "test_pidns" in line:
            return "gen_tests.in runs it in a pid namespace of its own (test_pidns)"
        why = _strace_script_args(" ".join(line))
        return "gen_tests.in " + why if why else None
    else:
        return None  # run_strace_match_diff or run_strace ... ../NAME: no argument
    path = os.path.join(tests, script)
    if not os.path.exists(path):
        return "its script %s is not in the source" % script
    why = _strace_script_args(open(path, errors="replace").read())
    return "%s %s" % (script, why) if why else None


# "../$NAME" (the program itself) and what follows it on the line
_SELF = re.compile(r'"?\.\./\$\{?NAME\}?"?(.*)')
# redirections, command separators and closing quotes or parentheses
_NOT_ARGS = re.compile(r"\d?>>?\s*(&\d|\S+)|\d?<\s*\S+|[;|&)]+.*|\\$")


def _strace_script_args(text):
    """Why a strace test script's runs of its program are not plain runs
    with no argument, or None (other programs it runs to check the kernel
    first, say ../netlink_netlink_diag, do not count)."""
    for line in text.splitlines():
        code = line.split("#")[0]
        if re.search(r"\b(skip_|fail_|echo)\b", code):
            continue  # a message naming it
        if "QUIRK:PROG-ARGS" in code:
            return "runs it with arguments (QUIRK:PROG-ARGS)"
        for rest in [m.group(1) for m in _SELF.finditer(code)]:
            if _NOT_ARGS.sub("", rest).strip():
                return "runs it with arguments: " + code.strip()[:80]
    return None

"""run_program.py - one run: a program built plain and with the plugin at one
option set, run plain and under `inclprof record`, its exit status and
standard output compared, and every function's calls compared with
callgrind's count on the plain binary; where they differ, callgrind on the
instrumented binary (hooks unset, no runtime) says whether the plugin changed
the code (the instrumented binary makes the calls inclprof counted) or
inclprof miscounted."""
import csv
import glob
import io
import os
import re
import shutil
import signal
import subprocess
import time

import callgrind_out
import names

RUN_TIMEOUT = int(os.environ.get("PEER_RUN_TIMEOUT", "60"))
CALLGRIND_TIMEOUT = int(os.environ.get("PEER_CALLGRIND_TIMEOUT", "600"))
# The C library's ways into a new process (fork goes through _Fork; valgrind
# runs a vfork as a fork) and into a new program (every exec* is execve)
NEW_PROCESS_ENTRIES = ("_Fork", "vfork", "__vfork", "clone", "__clone", "clone3", "__clone3", "execve",
                       "execveat", "fexecve")
# `inclprof record`'s own closing lines on standard error: what it says of
# single traces (a trace with no end, a thread that stopped recording, a
# process not recorded), the traces written, and the processes of the run
# still running when the program ended (which may write after them: a
# child that outlives its parent)
_RECORD_SUMMARY = re.compile(rb"^(inclprof record: .*\n)*"
                             rb"inclprof: \d+ trace files? written to .*\n|"
                             rb"^inclprof: \d+ process(es)? of this run still running .*\n", re.M)
OPT = {"O0": ["-O0"], "O2": ["-O2"], "fdo": ["-O2"]}


def _sh(cmd, cwd, timeout, env=None, stdout=subprocess.PIPE):
    """Runs CMD in a session of its own; past TIMEOUT every process of that
    session is killed (a recorded program that hangs is the child of
    `inclprof record`, which the timeout alone would leave running)."""
    p = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=stdout,
                         stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
        return p.returncode, out, err
    except subprocess.TimeoutExpired:
        # a process forked while the session was read escapes one pass and
        # would hold the output pipes open: kill until they close; one that
        # left the session (setsid) keeps them: stop reading after 30 s
        for _ in range(30):
            _kill_session(p.pid)
            try:
                p.communicate(timeout=1)
                break
            except subprocess.TimeoutExpired:
                continue
        else:
            for f in (p.stdout, p.stderr):
                if f:
                    f.close()
            p.wait()
        return None, b"", b"timed out"


def _kill_session(sid):
    """SIGKILL to every process of session SID (its leader's pid)."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % pid) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == sid:  # the session, the sixth field of stat
            try:
                os.kill(int(pid), signal.SIGKILL)
            except OSError:
                pass


def _status(rc):
    """An exit status as the shell and `inclprof record` give it."""
    return 128 - rc if rc is not None and rc < 0 else rc


class Run:
    def __init__(self, prog, variant, workdir, tools):
        self.prog = prog
        self.variant = variant
        self.dir = os.path.join(workdir, prog.suite, prog.name, variant)
        self.tools = tools  # inclprof, plugin, libdir
        self.diffs = []  # (kind, function, detail)
        self.outcome = None  # "compared", or why the run did not happen

    def compiler(self):
        return "g++" if self.prog.lang == "c++" else "gcc"

    def flags(self, extra=()):
        return OPT[self.variant] + self.prog.flags + list(extra)

    def build(self, sub, extra=(), profile=None):
        """Compiles each source to an object in DIR/sub, then links prog (or
        copies there the program its own build made)."""
        d = os.path.join(self.dir, sub)
        os.makedirs(d, exist_ok=True)
        if self.prog.prebuilt:
            made = self.prog.prebuilt[sub]
            if not os.path.exists(made):
                return None, "error: its own build made no %s (%s)" % (os.path.basename(made), sub)
            exe = os.path.join(d, "prog")
            shutil.copy(made, exe)
            return exe, [exe]
        objs = []
        for i, src in enumerate(self.prog.sources):
            obj = os.path.join(d, "u%d.o" % i)
            cmd = [self.compiler(), "-c", src, "-o", obj] + self.flags(extra)
            if profile:
                cmd += profile
            rc, _, err = _sh(cmd, d, 300)
            if rc != 0:
                return None, err.decode(errors="replace")
            objs.append(obj)
        exe = os.path.join(d, "prog")
        cmd = [self.compiler(), "-o", exe] + objs + self.flags(extra) + (profile or []) + self.prog.libs
        rc, _, err = _sh(cmd, d, 300)
        if rc != 0:
            return None, err.decode(errors="replace")
        if self.prog.shared:
            src, so = self.prog.shared
            rc, _, err = _sh([self.compiler(), "-shared", "-fPIC", "-o", os.path.join(d, so), src]
                             + self.flags(extra), d, 300)
            if rc != 0:
                return None, err.decode(errors="replace")
        return exe, objs

    def staged(self, exe):
        """The path EXE runs from: a program its own build made, or one
        whose output is compared line by line, runs, plain and instrumented
        alike, as DIR/run/NAME (it may print its name, its directory or its
        files' paths); any other from where it was built."""
        if not self.prog.prebuilt and not self.prog.stable_only:
            return exe
        d = os.path.join(self.dir, "run")
        os.makedirs(d, exist_ok=True)
        path = os.path.join(d, self.prog.name)
        # a new file, not the old one rewritten: a child of the earlier run
        # that is still running it makes it busy (ETXTBSY)
        if os.path.lexists(path):
            os.unlink(path)
        shutil.copy(exe, path)
        return path

    def execute(self, cmd, exe, timeout=None):
        d = os.path.dirname(exe)
        for f in self.prog.files:
            shutil.copy(f, d)
        start = time.monotonic()
        rc, out, err = _sh(cmd + self.prog.args, d, timeout or self.prog.timeout or RUN_TIMEOUT)
        self.elapsed = time.monotonic() - start
        return _status(rc), out, err

    def callgrind(self, exe, tag):
        """callgrind's (calls, arcs) of a run of EXE, and its exit status."""
        d = os.path.dirname(exe)
        for old in glob.glob(os.path.join(d, "cg.%s.*" % tag)):
            os.unlink(old)
        env = dict(os.environ, LD_BIND_NOW="1")
        # A child of fork or clone inherits callgrind's counts so far and
        # writes them again in its own file, and an exec drops the counts of
        # the program it replaces: a dump (which also zeroes the counts)
        # before each way into a new process or program leaves each file
        # its own calls, once.
        forks = ["--dump-before=" + f for f in NEW_PROCESS_ENTRIES]
        rc, _, err = _sh(["valgrind", "--tool=callgrind", "-q", "--trace-children=yes"] + forks +
                         ["--callgrind-out-file=" + os.path.join(d, "cg.%s.%%p" % tag), exe] + self.prog.args,
                         d, CALLGRIND_TIMEOUT, env=env)
        files = glob.glob(os.path.join(d, "cg.%s.*" % tag))
        if rc is None or not files:
            return None, None, None
        return callgrind_out.read(files) + (_status(rc),)

    def modules(self, exe):
        """The program's own files: the executable and the library it loads."""
        out = {os.path.realpath(exe)}
        if self.prog.shared:
            out.add(os.path.realpath(os.path.join(os.path.dirname(exe), self.prog.shared[1])))
        return out

    def go(self):
        p = self.prog
        if p.skip:
            self.outcome = "skipped: " + p.skip
            return self
        profile_use = None
        if self.variant == "fdo":
            gen, why = self.build("gen", profile=["-fprofile-generate", "-D_PROFILE_GENERATE"])
            if gen is None:
                self.outcome = "not built here: " + _first_error(why)
                return self
            self.execute([gen], gen)
            gcda = glob.glob(os.path.join(self.dir, "gen", "*.gcda"))
            for sub in ("plain", "inst"):
                os.makedirs(os.path.join(self.dir, sub), exist_ok=True)
                for g in gcda:
                    shutil.copy(g, os.path.join(self.dir, sub))
            profile_use = ["-fprofile-use", "-D_PROFILE_USE", "-Wno-missing-profile"]
        plain, objs = self.build("plain", profile=profile_use)
        if plain is None:
            self.outcome = "not built here: " + _first_error(objs)
            return self
        report = os.path.join(self.dir, "inst", "plugin-report.txt")
        if os.path.exists(report):
            os.unlink(report)
        plugin = ["-fplugin=" + self.tools["plugin"], "-fplugin-arg-inclprof-report=" + report]
        inst, why = self.build("inst", extra=plugin, profile=profile_use)
        if inst is None:
            self.diffs.append(("build", "-", "builds plain but not with the plugin: " + _first_error(why)))
            self.outcome = "compared"
            return self
        run = self.staged(plain)
        rc0, out0, err0 = self.execute([run], run)
        if rc0 is None:
            self.outcome = "not run: the plain build runs longer than %d s" % (p.timeout or RUN_TIMEOUT)
            return self
        plain_elapsed = self.elapsed
        if p.stable_only:
            again = self.execute([run], run)
            why = _unstable((rc0, out0, err0), again)
            if why:
                self.outcome = "nondeterministic: " + why
                return self
        rec = os.path.join(self.dir, "inst", "rec")
        shutil.rmtree(rec, ignore_errors=True)
        shutil.rmtree(rec + ".old", ignore_errors=True)
        # Recording a program that makes tens of millions of calls takes a
        # while: its time limit grows with the plain run's.
        limit = (p.timeout or RUN_TIMEOUT) + 30 * plain_elapsed
        run = self.staged(inst)
        rc1, out1, err1 = self.execute([self.tools["inclprof"], "record", "-o", rec, run], run, limit)
        self.outcome = "compared"
        if rc1 is None:
            self.diffs.append(("behaviour", "-", "the recorded run did not end within %.0f s (plain: %.1f s)"
                               % (limit, plain_elapsed)))
            return self
        if rc1 != rc0:
            self.diffs.append(("behaviour", "-", "exit status %s plain, %s recorded" % (rc0, rc1)))
        if p.stable_only:
            err1 = _RECORD_SUMMARY.sub(b"", err1)
            for what, a, b, r in (("standard output", out0, again[1], out1), ("standard error", err0, again[2], err1)):
                why = _stable_differs(a, b, r)
                if why:
                    self.diffs.append(("behaviour", "-", "%s differs: %s" % (what, why)))
        elif out1 != out0:
            self.diffs.append(("behaviour", "-", "standard output differs (%d bytes plain, %d recorded)"
                               % (len(out0), len(out1))))
        ip = self.inclprof_calls(rec, self.modules(inst))
        if ip is None:
            self.diffs.append(("export", "-", "inclprof export failed"))
            return self
        if p.report:
            rc, _, err = _sh([self.tools["inclprof"], "report", rec], self.dir, 300, stdout=subprocess.DEVNULL)
            if rc != 0:
                self.diffs.append(("report", "-", "inclprof report exits %s: %s" % (
                    rc, _first_error(err.decode(errors="replace")))))
        if not p.callgrind:
            return self
        calls, arcs, rc2 = self.callgrind(plain, "plain")
        if calls is None:
            self.diffs.append(("callgrind", "-", "callgrind cannot run the plain build (or not within %d s)"
                               % CALLGRIND_TIMEOUT))
            return self
        if rc2 != (rc0 if p.valgrind_status is None else p.valgrind_status):
            # valgrind's simulated CPU took another path (it computes x87
            # long double arithmetic in double precision): no count compares
            self.diffs.append(("valgrind-behaviour", "-", "the plain build exits %s under callgrind, %s natively"
                               % (rc2, rc0)))
            return self
        skipped = _plugin_report(report)
        own = _own_functions(objs + sorted(self.modules(plain) - {os.path.realpath(plain)}))
        # the library calls of the functions with probes: a function the
        # plugin skipped (its report) has no call-site probes either
        probed = set(ip[0]) - set(skipped)
        cg = _calls_of(calls, arcs, self.modules(plain), probed)
        first = _differences(ip, cg, own, skipped)
        if not first:
            return self
        icalls, iarcs, _ = self.callgrind(inst, "inst")
        if icalls is None:
            self.diffs.append(("callgrind", "-", "callgrind cannot run the instrumented build"))
            return self
        icg = _calls_of(icalls, iarcs, self.modules(inst), probed)
        for side, f, a, b in first:
            ci = (icg[0] if side == "program" else icg[1]).get(f, 0)
            if side == "program" and f in skipped and b == 0:
                kind = "plugin-skip"
                detail = "%s; callgrind %d plain" % (skipped[f], a)
            elif ci == b:
                kind = "code-change"
                detail = "callgrind %d plain, %d instrumented = inclprof %d" % (a, ci, b)
                if side == "program":
                    detail += _evidence(f, arcs, self.modules(plain), iarcs, self.modules(inst), objs)
            elif side == "library" and b == 0:
                kind = "unwrapped"
                detail = "callgrind %d plain, %d instrumented; inclprof 0" % (a, ci)
            else:
                kind = "count"
                detail = "callgrind %d plain, %d instrumented; inclprof %d" % (a, ci, b)
            self.diffs.append((kind if side == "program" or kind == "unwrapped" else "library-" + kind, f, detail))
        return self

    def inclprof_calls(self, rec, modules):
        rc, out, _ = _sh([self.tools["inclprof"], "export", "--format", "csv", "-o", "-", rec],
                         self.dir, 300)
        if rc != 0:
            return None
        own, lib = {}, {}
        for row in csv.DictReader(io.StringIO(out.decode(errors="replace"))):
            n = int(row["calls"])
            if os.path.realpath(row["module"]) in modules:
                k = names.program(row["function"])
                own[k] = own.get(k, 0) + n
            else:  # a library function (the runtime's module for those it interposes)
                k = names.library(row["function"])
                lib[k] = lib.get(k, 0) + n
        return own, lib


def _unstable(first, second):
    """Why two plain runs (status, stdout, stderr) cannot be compared line by
    line, or None: the same status and as many lines of each output."""
    if first[0] != second[0]:
        return "exit status %s, then %s" % (first[0], second[0])
    for what, a, b in (("standard output", first[1], second[1]), ("standard error", first[2], second[2])):
        if len(a.splitlines()) != len(b.splitlines()):
            return "%s of %d lines, then %d" % (what, len(a.splitlines()), len(b.splitlines()))
    return None


def _stable_differs(a, b, rec):
    """Where the recorded output REC differs from plain outputs A and B on a
    line A and B print alike (or in its number of lines), or None."""
    la, lb, lr = a.splitlines(), b.splitlines(), rec.splitlines()
    if len(lr) != len(la):
        return "%d lines plain, %d recorded" % (len(la), len(lr))
    for n, (x, y, r) in enumerate(zip(la, lb, lr), 1):
        if x == y and r != x:
            return "line %d: plain %r, recorded %r" % (n, x.decode(errors="replace")[:160],
                                                        r.decode(errors="replace")[:160])
    return None


def _first_error(text):
    for line in (text or "").splitlines():
        if "error" in line:
            return line.strip()[:200]
    return (text or "").strip().splitlines()[-1][:200] if (text or "").strip() else "?"


def _plugin_report(path):
    """The functions the plugin skipped, with its reason (report=FILE)."""
    out = {}
    if not os.path.exists(path):
        return out
    for line in open(path, errors="replace"):
        f = line.rstrip("\n").split("\t")
        if len(f) >= 4 and f[0] == "skipped":
            out[names.program(f[1])] = f[3]
    return out


def _own_functions(objs):
    """The functions the program's own objects define (nm), demangled."""
    out = set()
    for o in objs:
        p = subprocess.run(["nm", "-C", "--defined-only", o], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL)
        for line in p.stdout.decode(errors="replace").splitlines():
            parts = line.split(" ", 2)
            if len(parts) == 3 and parts[1] in "TtWw":
                out.add(names.program(parts[2]))
    return out


def _calls_of(calls, arcs, modules, instrumented):
    """callgrind's counts: calls of each function of the program's modules,
    and calls from its instrumented functions to each function outside them."""
    own, lib = {}, {}
    for (obj, fn), n in calls.items():
        if os.path.realpath(obj) in modules and not names.cold_part(fn):
            k = names.program(fn)
            own[k] = own.get(k, 0) + n
    for (obj, fn, cobj, cfn), n in arcs.items():
        if os.path.realpath(obj) not in modules or os.path.realpath(cobj) in modules:
            continue
        if names.program(fn) not in instrumented or cfn.startswith("_dl_runtime_resolve"):
            continue
        k = names.library(cfn)
        lib[k] = lib.get(k, 0) + n
    return own, lib


def _self_calls(arcs, modules, f):
    return sum(n for (o, fn, co, cfn), n in arcs.items()
               if names.program(fn) == f and names.program(cfn) == f and
               os.path.realpath(o) in modules and os.path.realpath(co) in modules)


def _evidence(f, arcs, plain, iarcs, inst, objs):
    """What the instrumented build does differently with F: its calls to
    itself (a recursion GCC turns into a loop or inlines into itself
    without the plugin), the parts GCC splits it into without the plugin."""
    out = ""
    s0, s1 = _self_calls(arcs, plain, f), _self_calls(iarcs, inst, f)
    if s0 != s1:
        out += "; calls itself %d times plain, %d instrumented" % (s0, s1)
    raw = set()
    for o in objs:
        p = subprocess.run(["nm", "-C", "--defined-only", o], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        raw |= {line.split(" ", 2)[-1] for line in p.stdout.decode(errors="replace").splitlines()}
    parts = sorted(r for r in raw if names.program(r) == f and r != f)
    if parts:
        out += "; plain has " + ", ".join(parts)
    return out


def _differences(ip, cg, own, skipped):
    """(side, function, callgrind, inclprof) wherever the counts differ: the
    program's own functions, then the library functions it calls."""
    out = []
    for f in sorted(own | set(ip[0])):
        a, b = cg[0].get(f, 0), ip[0].get(f, 0)
        if a != b:
            out.append(("program", f, a, b))
    for f in sorted(set(cg[1]) | set(ip[1])):
        a, b = cg[1].get(f, 0), ip[1].get(f, 0)
        if a != b:
            out.append(("library", f, a, b))
    return out

"""peer.py - the driver of `make peer` and `make peer-quick`: runs every
program of the corpus (corpus.py) at each of its option sets (run_program.py)
on -j workers, judges each difference against the explained differences
(explained.txt), and ends with `peer: N programs, M runs, K unexplained`
(exit 1 when K > 0) after a table per suite.
Usage: python3 peer.py --gcc-testsuite DIR --valgrind DIR [--uftrace DIR]
       [--strace DIR --strace-build DIR] [--gdb DIR] [--classes SRC] --work DIR [--jobs N] [--quick LIST] [--table FILE] [--only SUBSTRING]
       python3 peer.py --judge RESULTS.jsonl... [--table FILE]   (the runs of
       a run, finished or not, judged against explained.txt as it stands; a
       later file's run replaces an earlier one's of the same program and
       option set)"""
import argparse
import collections
import json
import multiprocessing
import os
import resource
import sys

import corpus
import explained
import run_program


def _cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _one(job):
    prog, variant, work, tools = job
    r = run_program.Run(prog, variant, work, tools)
    start = _cpu()
    try:
        r.go()
    except Exception as e:  # a harness failure is a difference, not a crash
        r.outcome = "compared"
        r.diffs.append(("harness", "-", "%s: %s" % (type(e).__name__, e)))
    return prog.key(), prog.suite, variant, r.outcome, r.diffs, _cpu() - start


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gcc-testsuite")
    ap.add_argument("--valgrind")
    ap.add_argument("--uftrace")
    ap.add_argument("--strace", help="strace's unpacked source")
    ap.add_argument("--strace-build", help="its test programs built plain and with the plugin (strace.sh)")
    ap.add_argument("--gdb", help="gdb's unpacked source (its testsuite's gdb.threads and gdb.base)")
    ap.add_argument("--classes", metavar="SRC", help="inclprof's source tree: its programs of the kinds that "
                    "broke under the runtime (corpus.class_programs)")
    ap.add_argument("--work", help="the runs' directory (results.jsonl is written there)")
    ap.add_argument("--judge", metavar="RESULTS", nargs="+",
                    help="judge the runs of results.jsonl files again, run nothing; a run of a later file "
                         "replaces the same program and option set of an earlier one")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--quick", help="file listing the programs of the quick subset")
    ap.add_argument("--table", help="write the per-suite table (Markdown) here")
    ap.add_argument("--only", help="only programs whose suite/name contains this")
    ap.add_argument("--resume", action="store_true",
                    help="keep the runs already in WORK/results.jsonl (a run cut short) and make only the others")
    ap.add_argument("--explained", default=os.path.join(os.path.dirname(__file__), "explained.txt"))
    a = ap.parse_args()
    rules = explained.load(a.explained)
    if a.judge:
        runs = {}
        for path in a.judge:
            with open(path) as f:
                for rec in (json.loads(l) for l in f if l.strip()):
                    runs[(rec["program"], rec["variant"])] = rec
        return judge(runs.values(), rules, a.jobs, a.table, a.explained, whole=False)
    if not a.work:
        ap.error("--work DIR is needed to run the programs")
    tools = {"inclprof": os.environ["INCLPROF"], "plugin": os.environ["INCLPROF_PLUGIN"]}

    progs = []
    if a.gcc_testsuite:
        progs += corpus.gcc_programs(a.gcc_testsuite)
    if a.valgrind:
        progs += corpus.valgrind_programs(a.valgrind)
    if a.uftrace:
        progs += corpus.uftrace_programs(a.uftrace)
    if a.strace:
        progs += corpus.strace_programs(a.strace, a.strace_build)
    if a.gdb:
        progs += corpus.gdb_programs(a.gdb)
    if a.classes:
        progs += corpus.class_programs(a.classes)
    if a.quick:
        wanted = [l.split("#")[0].strip() for l in open(a.quick)]
        wanted = {w for w in wanted if w}
        progs = [p for p in progs if p.key() in wanted]
    if a.only:
        progs = [p for p in progs if a.only in p.key()]
    # The smaller suites first, valgrind's long perf programs last: a run cut
    # short has seen every kind of program.
    size = collections.Counter(p.suite for p in progs)
    progs.sort(key=lambda p: (p.suite == "valgrind-perf", size[p.suite]))
    jobs = [(p, v, a.work, tools) for p in progs for v in p.variants]

    results = os.path.join(a.work, "results.jsonl")
    done = []
    if a.resume and os.path.exists(results):
        with open(results) as f:
            done = [json.loads(l) for l in f if l.strip()]
        made = {(r["program"], r["variant"]) for r in done}
        jobs = [j for j in jobs if (j[0].key(), j[1]) not in made]
        print("peer: %d runs kept from %s, %d to make" % (len(done), results, len(jobs)), flush=True)
    log = open(results, "a" if a.resume else "w")

    def records():
        yield from done
        with multiprocessing.Pool(a.jobs) as pool:
            for key, suite, variant, outcome, diffs, cpu in pool.imap_unordered(_one, jobs):
                rec = {"program": key, "suite": suite, "variant": variant, "outcome": outcome, "diffs": diffs,
                       "cpu_s": round(cpu, 2)}
                log.write(json.dumps(rec) + "\n")
                log.flush()
                yield rec

    rc = judge(records(), rules, a.jobs, a.table, a.explained, whole=not a.quick and not a.only)
    log.close()
    return rc


def _suite(rec):
    return rec.get("suite") or rec["program"].split("/")[0]


def judge(records, rules, jobs, table_file, explained_file, whole):
    """Judges each run's differences against the explained ones, prints the
    table per suite, every unexplained difference and open defect, and the
    final line; 1 when a difference is unexplained."""
    per_suite = collections.defaultdict(collections.Counter)
    cpu_of = collections.Counter()
    progs_of = collections.defaultdict(set)
    unexplained, open_defects = [], []
    used = set()
    for rec in records:
        key, variant, outcome, diffs = rec["program"], rec["variant"], rec["outcome"], rec["diffs"]
        suite = _suite(rec)
        s = per_suite[suite]
        cpu_of[suite] += rec.get("cpu_s", 0)
        if outcome != "compared":
            s[next((c for c in ("skipped", "nondeterministic") if outcome.startswith(c)), "not built/run")] += 1
            continue
        progs_of[suite].add(key)
        s["runs"] += 1
        state = "same"
        for kind, fn, detail in diffs:
            rule = explained.match(rules, key, variant, kind, fn, detail)
            if rule is None:
                unexplained.append((key, variant, kind, fn, detail))
                state = "unexplained"
                continue
            used.add(rule.line)
            if rule.open_defect:
                open_defects.append((key, variant, kind, fn, detail, rule.reason))
                if state != "unexplained":
                    state = "open defect"
            elif state == "same":
                state = "explained"
        s[state] += 1

    cols = ["runs", "same", "explained", "open defect", "unexplained", "skipped", "nondeterministic", "not built/run"]
    lines = ["| suite | programs | " + " | ".join(cols) + " | CPU (s) |", "|---" * (len(cols) + 3) + "|"]
    for suite in sorted(per_suite):
        lines.append("| %s | %d | " % (suite, len(progs_of[suite])) +
                     " | ".join(str(per_suite[suite][c]) for c in cols) + " | %.0f |" % cpu_of[suite])
    table = "\n".join(lines)
    print(table)
    if table_file:
        with open(table_file, "w") as f:
            f.write(table + "\n")
    for u in unexplained:
        print("unexplained: %s %s %s %s: %s" % u)
    for d in open_defects:
        print("open defect: %s %s %s %s: %s (%s)" % d)
    if whole:
        for r in rules:
            if r.line not in used:
                print("note: %s:%d matched nothing: %s" % (os.path.basename(explained_file), r.line, r.text))
    runs = sum(per_suite[s]["runs"] for s in per_suite)
    cpu_total = sum(cpu_of.values())
    # The tools' CPU time: what the run takes on an otherwise idle machine.
    print("peer: the tools used %.0f s of CPU (%.1f min on %d cores)" % (cpu_total, cpu_total / 60 / jobs, jobs))
    print("peer: %d programs, %d runs, %d unexplained" % (sum(len(p) for p in progs_of.values()), runs,
                                                          len(unexplained)))
    if open_defects:
        print("peer: %d differences from open defects (explained.txt, section [open defects])" % len(open_defects))
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main())

"""peer.py - the driver of `make peer` and `make peer-quick`: runs every
program of the corpus (corpus.py) at each of its option sets (run_program.py)
on -j workers, judges each difference against the explained differences
(explained.txt), and ends with `peer: N programs, M runs, K unexplained`
(exit 1 when K > 0) after a table per suite.
Usage: python3 peer.py --gcc-testsuite DIR --valgrind DIR [--uftrace DIR]
       --work DIR [--jobs N] [--quick LIST] [--table FILE] [--only SUBSTRING]"""
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
    ap.add_argument("--work", required=True)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--quick", help="file listing the programs of the quick subset")
    ap.add_argument("--table", help="write the per-suite table (Markdown) here")
    ap.add_argument("--only", help="only programs whose suite/name contains this")
    ap.add_argument("--explained", default=os.path.join(os.path.dirname(__file__), "explained.txt"))
    a = ap.parse_args()
    tools = {"inclprof": os.environ["INCLPROF"], "plugin": os.environ["INCLPROF_PLUGIN"]}
    rules = explained.load(a.explained)

    progs = []
    if a.gcc_testsuite:
        progs += corpus.gcc_programs(a.gcc_testsuite)
    if a.valgrind:
        progs += corpus.valgrind_programs(a.valgrind)
    if a.uftrace:
        progs += corpus.uftrace_programs(a.uftrace)
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

    log = open(os.path.join(a.work, "results.jsonl"), "w")
    per_suite = collections.defaultdict(collections.Counter)
    unexplained, open_defects, programs_run = [], [], set()
    used = set()
    cpu_total = 0.0
    with multiprocessing.Pool(a.jobs) as pool:
        for key, suite, variant, outcome, diffs, cpu in pool.imap_unordered(_one, jobs):
            s = per_suite[suite]
            cpu_total += cpu
            log.write(json.dumps({"program": key, "variant": variant, "outcome": outcome, "diffs": diffs,
                                  "cpu_s": round(cpu, 2)}) + "\n")
            log.flush()
            if outcome != "compared":
                s["skipped" if outcome.startswith("skipped") else "not built/run"] += 1
                continue
            programs_run.add(key)
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
    log.close()

    cols = ["runs", "same", "explained", "open defect", "unexplained", "skipped", "not built/run"]
    lines = ["| suite | programs | " + " | ".join(cols) + " |", "|---" * (len(cols) + 2) + "|"]
    progs_of = collections.Counter(p.suite for p in progs if p.key() in programs_run)
    for suite in sorted(per_suite):
        lines.append("| %s | %d | " % (suite, progs_of[suite]) + " | ".join(str(per_suite[suite][c]) for c in cols) + " |")
    table = "\n".join(lines)
    print(table)
    if a.table:
        with open(a.table, "w") as f:
            f.write(table + "\n")
    for u in unexplained:
        print("unexplained: %s %s %s %s: %s" % u)
    for d in open_defects:
        print("open defect: %s %s %s %s: %s (%s)" % d)
    if not a.quick and not a.only:
        for r in rules:
            if r.line not in used:
                print("note: %s:%d matched nothing: %s" % (os.path.basename(a.explained), r.line, r.text))
    runs = sum(per_suite[s]["runs"] for s in per_suite)
    # The tools' CPU time: what the run takes on an otherwise idle machine.
    print("peer: the tools used %.0f s of CPU (%.1f min on %d cores)" % (cpu_total, cpu_total / 60 / a.jobs, a.jobs))
    print("peer: %d programs, %d runs, %d unexplained" % (len(programs_run), runs, len(unexplained)))
    if open_defects:
        print("peer: %d differences from open defects (explained.txt, section [open defects])" % len(open_defects))
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main())

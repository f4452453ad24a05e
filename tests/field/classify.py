#!/usr/bin/env python3
"""classify.py - field.sh's judge of the call-count mismatches with gprof that
gprof-known.txt does not explain.

  classify.py spans CHROME_JSON
      one line per thread: "TID<TAB>FIRST_US<TAB>LAST_US", the time from the
      start of its first kept call to the end of its last (the Chrome export
      keeps the longest calls with their callers, so a thread's outermost
      calls are there).

  classify.py judge PENDING RUNS_DIR THREADS_DIR SPANS LOST
      PENDING: "FUNCTION<US>INCLPROF<US>GPROF" lines (US = \\x1f), the
      unexplained mismatches of the first runs; RUNS_DIR: rec*/prof.csv and
      pg*/gprof.txt, the recorded and -pg runs (rec and pg first);
      THREADS_DIR: thread-TID.csv and process-PID.csv, the first recorded
      run's CSV of each thread and of each process that ended with _exit();
      LOST: what mcount_race showed (empty when gprof lost no call
      there).  Prints "ok|fail<TAB>FUNCTION<TAB>WHY".

A mismatch is put down to
  - processes gprof has no profile of: the calls of processes that ended
    with _exit() (THREADS_DIR/process-PID.csv: gprof writes gmon.out only
    at exit()) make up the difference; else, without those calls, to
  - a count that varies from run to run: the recorded runs of the same build
    count different numbers of calls (or, when lost calls do not explain the
    gap, the -pg runs do); gprof's run is then one more sample and is not
    compared; or else (the count is stable) to
  - calls gprof lost: gprof counts fewer, and a thread that called the
    function ran at the same time as another thread making calls of the
    program's functions (their spans in the Chrome export overlap), and the
    calls made so, each thread's bounded by the other thread's calls, are at
    least as many as gprof lost: glibc's mcount drops a call made while any
    other thread is inside it, as mcount_race shows here.
Anything else fails.
"""
import csv
import glob
import os
import re
import sys

X_EVENT = re.compile(r'"ph":"X","ts":([0-9.]+),"dur":([0-9.]+),"pid":[0-9]+,"tid":([0-9]+),')


def spans(path):
    first, last = {}, {}
    with open(path, encoding='utf-8', errors='replace') as f:
        for line in f:
            m = X_EVENT.search(line)
            if not m:
                continue
            ts, dur, tid = float(m.group(1)), float(m.group(2)), m.group(3)
            first[tid] = min(first.get(tid, ts), ts)
            last[tid] = max(last.get(tid, ts + dur), ts + dur)
    for tid in sorted(first, key=int):
        print(f'{tid}\t{first[tid]:.3f}\t{last[tid]:.3f}')


def calls_by_name(path):
    """Calls per function name (rows of one name in several files summed)."""
    out = {}
    with open(path, newline='') as f:
        for row in csv.DictReader(f):
            out[row['function']] = out.get(row['function'], 0) + int(row['calls'])
    return out


def gprof_counts(path):
    out = {}
    with open(path) as f:
        for line in f:
            name, _, n = line.rstrip('\n').rpartition('\t')
            out[name] = int(n)
    return out


def judge(pending, runs_dir, threads_dir, spans_path, lost):
    recs = sorted(glob.glob(os.path.join(runs_dir, 'rec*', 'prof.csv')))
    pgs = sorted(glob.glob(os.path.join(runs_dir, 'pg*', 'gprof.txt')))
    c = [calls_by_name(p) for p in recs]  # the first is the compared run
    g = [gprof_counts(p) for p in pgs]
    per_thread = {}  # function -> [(tid, calls)]
    own_calls = {}  # tid -> calls of the program's own (instrumented) functions
    for path in glob.glob(os.path.join(threads_dir, 'thread-*.csv')):
        tid = os.path.basename(path)[len('thread-'):-len('.csv')]
        with open(path, newline='') as f:
            for row in csv.DictReader(f):
                n = int(row['calls'])
                if row['file']:
                    own_calls[tid] = own_calls.get(tid, 0) + n
        for name, n in calls_by_name(path).items():
            if n > 0:
                per_thread.setdefault(name, []).append((tid, n))
    unseen = {}  # function -> calls in processes that wrote no gmon file
    gone = []
    for path in glob.glob(os.path.join(threads_dir, 'process-*.csv')):
        gone.append(os.path.basename(path)[len('process-'):-len('.csv')])
        for name, n in calls_by_name(path).items():
            unseen[name] = unseen.get(name, 0) + n
    span = {}
    with open(spans_path) as f:
        for line in f:
            tid, a, b = line.split('\t')
            span[tid] = (float(a), float(b))

    def at_once(t, u):
        return t in span and u in span and span[t][0] < span[u][1] and span[u][0] < span[t][1]

    def secs(t):
        return f'{span[t][0] / 1e6:.2f}-{span[t][1] / 1e6:.2f} s'

    with open(pending) as f:
        for line in f:
            fn, calls, g0 = line.rstrip('\n').split('\x1f')
            calls, g0 = int(calls), int(g0) if g0 != 'none' else 0
            thr = sorted(per_thread.get(fn, []), key=lambda t: int(t[0]))
            on = ', '.join(f'{t} ({n})' for t, n in thr) or 'no thread'
            rec_n = [r.get(fn, 0) for r in c]
            pg_n = [r.get(fn, 0) for r in g]
            runs = (f'{len(c)} recorded runs count {", ".join(map(str, rec_n))}; '
                    f'{len(g)} -pg runs {", ".join(map(str, pg_n))}')
            if unseen.get(fn, 0) and calls - unseen[fn] == g0:
                print(f'ok\t{fn}\tprocesses gprof has no profile of: {unseen[fn]} of the calls were made in '
                      f'process {", ".join(sorted(gone))}, which ended with _exit() (inclprof info), and '
                      f'only exit() writes a gmon file; the other {g0} are gprof\'s count ({runs})')
                continue
            calls -= unseen.get(fn, 0)
            if len(set(rec_n)) > 1:
                print(f'ok\t{fn}\tvaries from run to run, not compared: {runs}')
                continue
            # The threads that called fn while another thread ran the
            # program's code (their spans overlap), each with the busiest
            # such other thread.  Only calls on them can have been lost, and
            # the other thread holds mcount's state at most once per call of
            # its own (longer only when preempted inside mcount).
            exposed = []  # (calls of fn on t, t, other thread's calls, other thread)
            for t, k in thr:
                others = [(n, u) for u, n in own_calls.items() if u != t and n > 0 and at_once(t, u)]
                if others:
                    exposed.append((k, t) + max(others))
            at_risk = sum(min(k, n) for k, _, n, _ in exposed)
            if 0 < g0 < calls and at_risk >= calls - g0 and lost:
                k, t, n, u = max(exposed, key=lambda e: (min(e[0], e[2]), e[0]))
                print(f'ok\t{fn}\tcalls gprof lost: it counts {calls - g0} ({100 * (calls - g0) / calls:.1f} %) '
                      f'fewer ({runs}); called on threads {on}; up to {at_risk} of its calls could be lost (made '
                      f'beside another thread running the program\'s code, at most one per call of that '
                      f'thread), e.g. thread {t} ({k} calls, '
                      f'{secs(t)}) beside thread {u} ({n} calls of the program\'s functions, {secs(u)}), and '
                      f'glibc\'s mcount drops a call made while another thread is inside it ({lost})')
            elif len(set(pg_n)) > 1:
                print(f'ok\t{fn}\tvaries from run to run, not compared: {runs}')
            else:
                why = ('gprof does not count fewer' if g0 >= calls else
                       'gprof does not know the function' if g0 == 0 else
                       'no other thread ran the program\'s code beside a thread calling it' if not exposed else
                       f'too few calls beside another thread ({at_risk}) to lose {calls - g0}'
                       if at_risk < calls - g0 else
                       'mcount_race lost no call here')
                print(f'fail\t{fn}\tthe count is stable ({runs}) and not a call gprof lost '
                      f'({why}; called on threads {on})')


if __name__ == '__main__':
    if len(sys.argv) == 3 and sys.argv[1] == 'spans':
        spans(sys.argv[2])
    elif len(sys.argv) == 7 and sys.argv[1] == 'judge':
        judge(*sys.argv[2:])
    else:
        sys.exit('usage: classify.py spans CHROME_JSON | judge PENDING RUNS_DIR THREADS_DIR SPANS LOST')

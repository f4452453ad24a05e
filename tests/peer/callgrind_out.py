"""callgrind_out.py - the calls in callgrind's output files: how often each
function was called, and each caller-to-callee arc, keyed by object file and
function name (callgrind's name compression undone)."""
import collections
import re

_REF = re.compile(r"\((\d+)\)(?: (.*))?$")


def read(paths):
    """Returns (calls, arcs) summed over the files (one per process):
    calls[(object, function)] and arcs[(caller object, caller, callee object,
    callee)]."""
    calls = collections.Counter()
    arcs = collections.Counter()
    for path in paths:
        objs, fns = {}, {}
        ob = fn = cob = cfn = None

        def name(table, value):
            m = _REF.match(value)
            if not m:
                return value
            if m.group(2) is not None:
                table[m.group(1)] = m.group(2)
            return table.get(m.group(1), value)

        with open(path, errors="replace") as f:
            for line in f:
                key, eq, value = line.rstrip("\n").partition("=")
                if not eq:
                    continue
                if key == "ob":
                    ob, cob = name(objs, value), None
                elif key == "fn":
                    fn, cob = name(fns, value), None
                elif key == "cob":
                    cob = name(objs, value)
                elif key == "cfn":
                    cfn = name(fns, value)
                elif key == "calls":
                    n = int(value.split()[0])
                    callee_ob = cob or ob
                    calls[(callee_ob, cfn)] += n
                    arcs[(ob, fn, callee_ob, cfn)] += n
                    cob = None
    return calls, arcs

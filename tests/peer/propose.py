"""propose.py - drafts explained.txt entries for the unexplained differences
of a run (build/peer-MODE/runs/results.jsonl), with the reason the evidence
gives: a recursion the instrumented build keeps (tail-recursion=keep), a
function GCC splits only without the plugin (partial-inlining=no), a call the
plugin never wraps by design (a __builtin_ name, a constant-size memset or
memcpy).  Differences without such evidence are printed as REVIEW lines for a
person to judge; nothing is written to explained.txt.
Usage: python3 tests/peer/propose.py RESULTS.jsonl GCC_TESTSUITE_DIR"""
import glob
import json
import os
import re
import sys

import explained

MEM = {"memset", "memmove", "memcmp", "memcpy"}


def source_text(root, program):
    suite, name = program.split("/", 1)
    sub = {"torture": "gcc.c-torture/execute", "torture-ieee": "gcc.c-torture/execute/ieee",
           "torture-builtins": "gcc.c-torture/execute/builtins", "tree-prof": "gcc.dg/tree-prof",
           "g++-tree-prof": "g++.dg/tree-prof"}.get(suite)
    if not sub:
        return ""
    text = ""
    for path in glob.glob(os.path.join(root, sub, name + ".[cC]")) + glob.glob(os.path.join(root, sub, name + "-lib.c")):
        text += open(path, errors="replace").read()
    return text


def reason(kind, fn, detail, text):
    m = re.search(r"calls itself (\d+) times plain, (\d+) instrumented", detail)
    if kind == "code-change" and m and int(m.group(2)) > int(m.group(1)):
        return "tail-recursion=keep: the instrumented build keeps the recursion GCC otherwise turns into a loop or inlines into itself"
    m = re.search(r"plain has (\S+\.part\.\d+)", detail)
    if kind == "code-change" and m:
        return "partial-inlining=no: without the plugin GCC splits %s off (%s) and inlines differently" % (fn, m.group(1))
    if kind == "unwrapped" and re.search(r"__builtin_%s\b" % re.escape(fn), text):
        return "written __builtin_%s: the plugin never wraps __builtin_ calls (they expand inline); GCC calls the library here" % fn
    if kind == "unwrapped" and fn in MEM:
        return "constant-size %s: never wrapped (GCC expands it inline from -O1 on); here GCC calls the library" % fn
    return None


def main():
    results, root = sys.argv[1], sys.argv[2]
    rules = explained.load(os.path.join(os.path.dirname(__file__), "explained.txt"))
    for line in open(results):
        r = json.loads(line)
        for kind, fn, detail in r["diffs"]:
            if explained.match(rules, r["program"], r["variant"], kind, fn, detail):
                continue
            why = reason(kind, fn, detail, source_text(root, r["program"]))
            q = '"%s"' % fn if " " in fn else fn
            if why:
                print('%s %s %s %s %s' % (r["program"], r["variant"], kind, q, why))
            else:
                print("REVIEW %s %s %s %s: %s" % (r["program"], r["variant"], kind, q, detail))


if __name__ == "__main__":
    main()

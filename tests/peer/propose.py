"""propose.py - drafts explained.txt entries for the unexplained differences
of a run (build/peer-MODE/runs/results.jsonl), with the reason the evidence
gives: a recursion the instrumented build keeps (tail-recursion=keep), a
function GCC splits only without the plugin (partial-inlining=no).  Differences without such evidence are printed as REVIEW lines for a
person to judge; nothing is written to explained.txt.
Usage: python3 tests/peer/propose.py RESULTS.jsonl"""
import json
import os
import re
import sys

import explained

def reason(kind, fn, detail):
    m = re.search(r"calls itself (\d+) times plain, (\d+) instrumented", detail)
    if kind == "code-change" and m and int(m.group(2)) > int(m.group(1)):
        return ("recursion kept (tail-recursion=keep, no recursive inlining): %s calls itself %s times plain, %s "
                "instrumented" % (fn, m.group(1), m.group(2)))
    m = re.search(r"plain has (\S+\.part\.\d+)", detail)
    if kind == "code-change" and m:
        return "partial-inlining=no: without the plugin GCC splits %s (%s) and inlines its head" % (fn, m.group(1))
    return None


def main():
    results = sys.argv[1]
    rules = explained.load(os.path.join(os.path.dirname(__file__), "explained.txt"))
    for line in open(results):
        r = json.loads(line)
        for kind, fn, detail in r["diffs"]:
            if explained.match(rules, r["program"], r["variant"], kind, fn, detail):
                continue
            why = reason(kind, fn, detail)
            q = '"%s"' % fn if " " in fn else fn
            if why:
                print('%s %s %s %s %s' % (r["program"], r["variant"], kind, q, why))
            else:
                print("REVIEW %s %s %s %s: %s" % (r["program"], r["variant"], kind, q, detail))


if __name__ == "__main__":
    main()

#!/bin/sh
# check-links.sh - every relative link in README.md and docs/**/*.md names a
# file that exists and, with #ANCHOR, a heading (GitHub's anchor of it) or an
# id in that file; prints the broken ones and fails.  Web addresses are not
# fetched.
# Usage: scripts/check-links.sh (from the top of the repository)
set -eu
python3 - README.md docs/*.md docs/*/*.md <<'PY'
import os, re, sys
def anchors(path, cache={}):
    if path not in cache:
        found, fence = set(), False
        seen = {}
        for line in open(path, encoding="utf-8"):
            if line.startswith("```"):
                fence = not fence
            if fence:
                continue
            m = re.match(r"^#{1,6} +(.*?) *#*$", line)
            if m:
                text = re.sub(r"\[([^]]*)\]\([^)]*\)", r"\1", m.group(1))
                slug = re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")
                n = seen.get(slug, 0)
                seen[slug] = n + 1
                found.add(slug if n == 0 else "%s-%d" % (slug, n))
            found.update(re.findall(r'<a id="([^"]+)"', line))
        cache[path] = found
    return cache[path]
bad = 0
for doc in sys.argv[1:]:
    fence = False
    for no, line in enumerate(open(doc, encoding="utf-8"), 1):
        if line.startswith("```"):
            fence = not fence
        if fence:
            continue
        line = re.sub(r"`[^`]*`", "", line)
        for target in re.findall(r"\]\(([^)\s]+)\)", line):
            if re.match(r"^[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            full = os.path.normpath(os.path.join(os.path.dirname(doc), path)) if path else doc
            if not os.path.exists(full):
                print("%s:%d: %s: no such file" % (doc, no, target)); bad += 1
            elif anchor and full.endswith(".md") and anchor not in anchors(full):
                print("%s:%d: %s: no such anchor" % (doc, no, target)); bad += 1
sys.exit(1 if bad else 0)
PY
echo "links: every relative link and anchor in README.md and docs/ resolves"

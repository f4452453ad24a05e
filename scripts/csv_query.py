#!/usr/bin/env python3
"""csv_query.py - read an `inclprof export --format csv` file for the shell tests.

  csv_query.py FILE REGEX COLUMN...   the COLUMNs of the rows whose function
                                      name matches REGEX (re.search), one row
                                      per line, tab-separated
  csv_query.py FILE --all COLUMN...   the COLUMNs of every row
  csv_query.py FILE --header          the column names, one per line

Column names match case-insensitively, ignoring spaces, '_' and '-'
("Elapsed Inclusive" == "elapsed_inclusive").  The function name is the
column named "function", "name" or "pretty", first found.  Errors: one line
on stderr naming the file, exit 2."""
import csv
import re
import sys


def norm(name):
    return re.sub(r"[\s_\-]", "", name).lower()


def main(argv):
    if len(argv) < 3:
        sys.exit("usage: csv_query.py FILE REGEX|--all|--header [COLUMN...]")
    path, what, wanted = argv[1], argv[2], argv[3:]
    try:
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
    except OSError as e:
        print(f"csv_query: {path}: {e.strerror}", file=sys.stderr)
        return 2
    if not rows:
        print(f"csv_query: {path}: empty file", file=sys.stderr)
        return 2
    header = [norm(h) for h in rows[0]]
    if what == "--header":
        print("\n".join(rows[0]))
        return 0
    cols = []
    for w in wanted:
        if norm(w) not in header:
            print(f"csv_query: {path}: no column '{w}' (have: {', '.join(rows[0])})", file=sys.stderr)
            return 2
        cols.append(header.index(norm(w)))
    name_col = next((header.index(n) for n in ("function", "name", "pretty") if n in header), None)
    if what != "--all" and name_col is None:
        print(f"csv_query: {path}: no function name column", file=sys.stderr)
        return 2
    for row in rows[1:]:
        if what == "--all" or re.search(what, row[name_col]):
            print("\t".join(row[c] for c in cols))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

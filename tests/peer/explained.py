"""explained.py - reads explained.txt, the reviewed list of differences that
are not defects, and finds the entry that explains one difference."""
import fnmatch
import re

# PROGRAM VARIANT KIND FUNCTION REASON; a FUNCTION with spaces is quoted
_ENTRY = re.compile(r'^(\S+)\s+(\S+)\s+(\S+)\s+("[^"]*"|\S+)\s+(\S.*)$')


class Rule:
    def __init__(self, line, text, fields, open_defect):
        self.line = line
        self.text = text
        self.program, self.variant, self.kind, self.function, self.reason = fields
        self.open_defect = open_defect


def load(path):
    """Entries: PROGRAM VARIANT KIND FUNCTION REASON..., the function in
    double quotes when its name has spaces; PROGRAM and VARIANT may be patterns
    (fnmatch). Entries after the line `[open defects]` are known defects."""
    rules, open_defect = [], False
    for n, line in enumerate(open(path), 1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        if text == "[open defects]":
            open_defect = True
            continue
        m = _ENTRY.match(text)
        if not m:
            raise SystemExit("%s:%d: expected PROGRAM VARIANT KIND FUNCTION REASON, got '%s'" % (path, n, text))
        fields = list(m.groups())
        fields[3] = fields[3].strip('"')
        rules.append(Rule(n, text, fields, open_defect))
    return rules


def match(rules, program, variant, kind, function, detail):
    """The first entry that names this difference: its program and option
    set, its kind, its function (for `plugin-skip`, the function `*` with the
    reason the plugin's report gave); a FUNCTION with `*` is a pattern (a
    C++ thunk of any class).  KIND and FUNCTION `*` name every
    difference of a run whose program cannot be compared at all (say it
    rewrites its own machine code), with that reason."""
    for r in rules:
        if not fnmatch.fnmatchcase(program, r.program) or not fnmatch.fnmatchcase(variant, r.variant):
            continue
        if not fnmatch.fnmatchcase(kind, r.kind):
            continue
        if kind == "plugin-skip" and r.kind == kind and r.function == "*":
            if detail.startswith(r.reason):
                return r
            continue
        if r.function == function or ("*" in r.function and fnmatch.fnmatchcase(function, r.function)):
            return r
    return None

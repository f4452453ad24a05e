"""dg.py - the DejaGnu directives of a GCC test (dg-options, dg-skip-if, ...)
and the .x files of the older torture directories, read as GCC's own harness
reads them on x86_64-pc-linux-gnu: the options a test asks for, and whether
it is skipped here."""
import fnmatch
import re
import shlex

TARGET = "x86_64-pc-linux-gnu"
# Effective-target keywords that hold on x86-64 GNU/Linux with a hosted libc;
# any other keyword in a selector is taken as false.
TRUE_KEYWORDS = {
    "alloca", "int32plus", "int32", "label_values", "trampolines", "indirect_jumps",
    "untyped_assembly", "return_address", "fileio", "unwrapped", "stdint_types", "mmap",
    "double64plus", "c99_runtime", "longlong64", "int128", "lp64", "freorder", "lto", "fpic",
    "profile_update_atomic", "nonlocal_goto", "signal", "ptr32plus", "size32plus",
    "split_stack", "avx512f", "dfp", "pthread", "sync_int_long", "scalar_all_fma",
    "large_double", "ucn", "tls", "tls_runtime", "weak_undefined", "alias", "ifunc",
    "named_sections", "nonpic", "sse2", "sse", "avx", "avx2", "x86", "int16",
}


def _selector_true(words):
    """A DejaGnu target selector: { target PATTERNS } or a bare list of
    triplet patterns and keywords, with ! negating the next element; the
    elements of a list are alternatives, && binds two of them together."""
    if not words:
        return True
    if words[0] in ("target", "xfail"):
        words = words[1:]
    terms = [[]]  # alternatives, each a list of values that must all hold
    negate = join = False
    for w in words:
        if w == "!":
            negate = True
            continue
        if w == "&&":
            join = True
            continue
        if w == "||":
            continue
        if isinstance(w, list):
            v = _selector_true(w)
        elif "-" in w and "*" in w or w.count("-") >= 2:
            v = fnmatch.fnmatch(TARGET, w.replace("?", "[0-9]"))
        else:
            v = w in TRUE_KEYWORDS
        if negate:
            v = not v
            negate = False
        if join and terms[-1]:
            terms[-1].append(v)
        else:
            terms.append([v])
        join = False
    return any(t and all(t) for t in terms)


def _tcl_list(text):
    """Parses a Tcl list with braces and quotes into nested Python lists."""
    out, stack, word, quoted = [], [], "", False
    cur = out
    i = 0
    while i < len(text):
        c = text[i]
        if quoted:
            if c == '"':
                cur.append(word)
                word, quoted = "", False
            else:
                word += c
        elif c == '"':
            quoted = True
        elif c == "{":
            if word:
                cur.append(word)
                word = ""
            stack.append(cur)
            cur.append([])
            cur = cur[-1]
        elif c == "}":
            if word:
                cur.append(word)
                word = ""
            if stack:
                cur = stack.pop()
        elif c.isspace():
            if word:
                cur.append(word)
                word = ""
        else:
            word += c
        i += 1
    if word:
        cur.append(word)
    return out


def _flatten(x):
    if isinstance(x, list):
        return " ".join(_flatten(y) for y in x)
    return x


def _options_match(opts, patterns):
    """dg-skip-if's option lists: does any pattern match any option given?"""
    pats = [p for p in (_flatten(patterns).split() if patterns else []) if p]
    if not pats or pats == ["*"]:
        return True if pats == ["*"] or not pats else False
    return any(fnmatch.fnmatch(o, p) for p in pats for o in opts)


class Directives:
    """The test's options and whether it runs here, for one set of torture
    options (say ["-O2"])."""

    def __init__(self, text):
        self.items = []
        for m in re.finditer(r"\{\s*(dg-[a-z-]+)(.*?)\}\s*(?:\*/|$|\n)", text, re.M):
            name = m.group(1)
            body = m.group(0)
            inner = body[body.index(name) + len(name):]
            inner = inner[: inner.rfind("}")]
            self.items.append((name, _tcl_list(inner)))

    def what(self):
        """dg-do's action (run by default)."""
        for name, args in self.items:
            if name == "dg-do" and args:
                if len(args) < 2 or _selector_true(args[1]):
                    return args[0]
        return "run"

    def options(self, base):
        """The test's own options: dg-options (for this target), then
        dg-additional-options, as GCC's harness appends them."""
        opts, extra = [], []
        for name, args in self.items:
            if name not in ("dg-options", "dg-additional-options") or not args:
                continue
            if len(args) > 1 and not _selector_true(args[1]):
                continue
            words = shlex.split(_flatten(args[0]))
            (opts if name == "dg-options" else extra).extend(words)
        return opts + extra

    def skipped(self, opts):
        """The reason this test does not run here with these options, or None."""
        for name, args in self.items:
            if name == "dg-skip-if" and len(args) >= 2:
                sel = args[1] if isinstance(args[1], list) else [args[1]]
                inc = args[2] if len(args) > 2 else None
                exc = args[3] if len(args) > 3 else None
                if _selector_true(sel) and (inc is None or _options_match(opts, inc)) and \
                        not (exc and _flatten(exc).strip() and _options_match(opts, exc)):
                    return "dg-skip-if: " + _flatten(args[0])
            elif name == "dg-require-effective-target" and args:
                words = args if not isinstance(args[0], list) else args[0]
                if not _selector_true([w for w in words if isinstance(w, (str, list))][:1] or [""]):
                    return "needs %s" % _flatten(args[0])
            elif name == "dg-require-profiling" or name == "dg-require-alias":
                continue
        return None


def x_file(text):
    """The older .x files (Tcl run by the harness before a test): returns
    (skip, flags). The first `return` reached on this target decides (1
    skips the test); `set` or `lappend additional_flags` reached before it
    add options. A condition holds when it names this target or an effective
    target that holds here."""
    skip, flags = False, []
    depth = 0
    cond_true = [True]
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("#"):
            continue
        m = re.match(r"if\s*[\[{](.*)\{\s*$", s)
        if m:
            c = m.group(1)
            tgt = re.findall(r'istarget\s+"?([^"\]\s]+)"?', c)
            holds = any(fnmatch.fnmatch(TARGET, t.replace("?", "[0-9]")) for t in tgt)
            eff = re.findall(r"(!?)\s*\[check_effective_target_(\w+)\]", c)
            if eff:
                holds = holds or any((k in TRUE_KEYWORDS) != (neg == "!") for neg, k in eff)
            cond_true.append(cond_true[-1] and holds)
            depth += 1
            continue
        opens, closes = s.count("{"), s.count("}")
        if all(cond_true):
            if re.match(r"return\s+1", s):
                skip = True
                break
            if re.match(r"return\s+0", s):
                break
            m = re.match(r"(?:set|lappend)\s+additional_flags\s+(.*)$", s)
            if m:
                # Tcl words, each a list of options: "-a -b" or "-a" "-b"
                flags.extend(f for word in shlex.split(m.group(1)) for f in word.split())
        net = opens - closes
        while net < 0 and depth > 0:
            cond_true.pop()
            depth -= 1
            net += 1
        for _ in range(max(net, 0)):
            cond_true.append(cond_true[-1])
            depth += 1
    return skip, flags

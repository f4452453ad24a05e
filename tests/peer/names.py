"""names.py - one spelling for a function in inclprof's CSV, callgrind's
output and nm's: clone suffixes removed as the plugin removes them (a clone
is counted as the function it was cloned from), the cold part of a function
that GCC moved out (`f.cold`) taken as part of `f`, and a C library
function's optimised variants and aliases (`__strchr_avx2`, `index`) named as
the program calls it; a recursion's deeper levels (`f'2`) as the function."""
import re

_CLONE = re.compile(r"\.(constprop|isra|part|lto_priv|cold|localalias)(\.\d+)?")
_DEMANGLED_CLONE = re.compile(r" \[clone [^\]]*\]")
# callgrind's names for the deeper levels of a recursion (--separate-recs): f'2
_RECURSION_LEVEL = re.compile(r"'\d+$")
# callgrind's name for code outside any object file (a trampoline on the
# stack), and inclprof's
_ADDRESS = re.compile(r"^0x[0-9a-f]+$")
OUTSIDE = "[code outside the recorded modules]"
_VARIANT = re.compile(
    r"_(sse2|sse3|ssse3|sse4_1|sse41|sse4_2|sse42|avx|avx2|avx512|evex|evex512|erms|unaligned|rtm|"
    r"no_vzeroupper|fma|fma4|x86_64|ifunc|generic|nocancel)(_[a-z0-9]+)*$")
# glibc's aliases and the names callgrind reports for what a program calls.
_ALIASES = {
    "index": "strchr", "rindex": "strrchr", "bcmp": "memcmp", "memcpy": "memmove",
    "IO_puts": "puts", "IO_printf": "printf", "IO_fputs": "fputs", "IO_fwrite": "fwrite",
    "IO_fread": "fread", "IO_fopen": "fopen", "IO_fclose": "fclose", "IO_sprintf": "sprintf",
    "IO_fprintf": "fprintf", "IO_putc": "putc", "IO_getc": "getc", "IO_fflush": "fflush",
    "IO_vfprintf": "vfprintf", "IO_vsprintf": "vsprintf", "libc_malloc": "malloc",
    "libc_free": "free", "libc_calloc": "calloc", "libc_realloc": "realloc",
    "memcpy_chk": "memmove_chk", "libc_memalign": "memalign", "fopen64": "fopen",
    "strchr_sse2_no_bsf": "strchr", "GI_strchr": "strchr", "new_fopen": "fopen",
    "isoc99_sscanf": "sscanf", "isoc99_scanf": "scanf", "isoc99_fscanf": "fscanf",
    "fprintf_chk": "fprintf", "printf_chk": "printf", "sprintf_chk": "sprintf",
    "vfprintf_internal": "vfprintf", "libc_start_main": "libc_start_main",
    "putchar_unlocked": "putchar", "IO_putchar": "putchar", "strdup": "strdup",
    "new_exitfn": "new_exitfn", "sigsetjmp": "setjmp", "_setjmp": "setjmp",
    "longjmp_chk": "longjmp", "libc_siglongjmp": "longjmp", "siglongjmp": "longjmp",
    "libc_longjmp": "longjmp", "memset_chk": "memset", "strcpy_chk": "strcpy",
    "mempcpy": "mempcpy", "stpcpy": "stpcpy", "wmemset": "wmemset", "wmemset_chk": "wmemset",
}


_COLD_PART = re.compile(r"(\.cold(\.\d+)?| \[clone \.cold(\.\d+)?\])$")


def cold_part(name):
    """True for the cold part GCC moved out of a function (`f.cold`): it is
    entered by a jump from the function (or from the unwinder, for a landing
    pad), never called, though callgrind counts the jump as a call."""
    return bool(_COLD_PART.search(name))


def program(name):
    """A function of the program: clone and cold-part suffixes removed, the
    C++ deleting destructor named as the destructor (callgrind's demangled
    names do not tell them apart)."""
    name = _RECURSION_LEVEL.sub("", name)
    name = _DEMANGLED_CLONE.sub("", name)
    name = name.replace(" [deleting destructor]", "")
    return _CLONE.sub("", name)


def library(name):
    """A C library function as the program calls it; a recursion's deeper levels (`f'2`) as the function."""
    name = _RECURSION_LEVEL.sub("", name)
    if _ADDRESS.match(name):
        return OUTSIDE
    name = name.split("@")[0]
    name = _CLONE.sub("", name)
    base = name.lstrip("_")
    base = _ALIASES.get(base, base)
    stripped = _VARIANT.sub("", base)
    if stripped != base:
        base = _ALIASES.get(stripped, stripped)
    return base

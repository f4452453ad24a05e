# Makefile - the one entry point: build, test, benchmark, demo, install inclprof.
#   make            build into $(B)/ (runtime, command, plugin)
#   make check      cppcheck, unit + integration tests, then unit and converter tests under ASan+UBSan
#                   (every phase runs; one summary at the end)
#   make check-fresh  make demo + make check in a fresh minimal Debian 12 root (root only;
#                   INCLPROF_FRESH_RELEASE=trixie: Debian 13)
#   make check-gcc  the plugin and runtime tests with GCC 11 to 16, each in a fresh Debian root (root only)
#   make lint       cppcheck, clang-format, the converter's floors, every source file in a docs/*.md table,
#                   the docs' links
#   make peer       other tools' test programs (GCC's torture and tree-prof tests, valgrind's, strace's), plain vs
#                   recorded and against callgrind (tests/peer/; needs the network once); make peer-quick:
#                   its fixed subset, also run by make check
#   make bench      benchmarks (report figures; nothing is asserted)
#   make demo       build, profile examples/, print the report, write demo-out/
#   make install PREFIX=/usr/local   (with the man pages of docs/commands/)
#   make fuzz       run the trace-reader fuzz harness for a while
#   make stress     thread storm, > 4 GiB trace, 10 M fuzz inputs, 10-minute soak (figures)
# Missing Debian packages are installed by scripts/deps.sh (as root).

B       ?= build
SAN     ?= 0
PREFIX  ?= /usr/local
# GCC=gcc-14 builds everything with gcc-14 and g++-14, the plugin for that
# GCC (CC= and CXX= set the two apart).
GCC     ?= gcc
CC      := $(GCC)
CXX     := $(if $(findstring /,$(GCC)),$(dir $(GCC)))$(subst gcc,g++,$(notdir $(GCC)))
NPROC   := $(shell nproc 2>/dev/null || echo 2)

OPT      ?= -O2
WARN     := -Wall -Wextra -Werror
# No include paths here: each component names its own (the shared contracts are
# in include/inclprof/).  -MMD -MP: every object's header dependencies come
# from the compiler, as $(B)/**/*.d next to the object.
CFLAGS   := -std=c11 $(OPT) -g $(WARN) -D_GNU_SOURCE -fPIC -MMD -MP
SHARED_INC := -Iinclude/inclprof
LDFLAGS  :=
ifeq ($(SAN),1)
CFLAGS   += -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
LDFLAGS  += -fsanitize=address,undefined
endif
# Deferred: evaluated after scripts/deps.sh has installed the packages.
PB_CFLAGS    = $(shell pkg-config --cflags libprotobuf-c)
PB_LIBS      = $(shell pkg-config --libs libprotobuf-c)
# The converter names code addresses from module files: elfutils' libdwfl
# (libdw, libelf) and libiberty's demangler; the reader checks crc32 with
# libdeflate's (carry-less multiply, twice zlib's speed).
# report --by address disassembles with capstone when it is installed
# (scripts/deps.sh installs it); without it an instruction shows as bytes.
CS_FLAGS     = $(shell pkg-config --exists capstone 2>/dev/null && echo -DIP_HAVE_CAPSTONE)
CS_LIBS      = $(shell pkg-config --exists capstone 2>/dev/null && echo -lcapstone)
CV_LIBS      = -ldw -lelf -liberty -ldeflate $(CS_LIBS)
CHECK_CFLAGS = $(shell pkg-config --cflags check)
CHECK_LIBS   = $(shell pkg-config --libs check)

DEPS_STAMP := $(B)/.deps-build

# Component fragments append to these.
ALL_TARGETS   :=
CHECK_UNIT    :=   # Check-based test binaries (run in the normal and the sanitizer build)
CHECK_TARGETS :=   # further phony test targets (integration), normal build only
BENCH_TARGETS :=
INSTALL_TARGETS :=

.PHONY: all check check-fresh check-gcc check-san clean deps-test lint
all: build-all

$(DEPS_STAMP): scripts/deps.sh
	@INCLPROF_GCC=$(GCC) scripts/deps.sh build
	@mkdir -p $(B) && touch $@
deps-test:
	@INCLPROF_GCC=$(GCC) scripts/deps.sh test

# --- generated protobuf-c code --------------------------------------------
$(B)/gen/%.pb-c.c $(B)/gen/%.pb-c.h: proto/%.proto | $(DEPS_STAMP)
	@mkdir -p $(B)/gen
	protoc-c --proto_path=proto --c_out=$(B)/gen $<

# --- man pages: each docs/commands/*.md converted by go-md2man (make install) --
MAN_MD := $(wildcard docs/commands/*.md)
$(B)/man/.stamp: $(MAN_MD) scripts/md2man.sh include/inclprof/version.h | $(DEPS_STAMP)
	@rm -rf $(B)/man && sh scripts/md2man.sh $(B)/man $(MAN_MD) && touch $@
INSTALL_TARGETS += $(B)/man/.stamp

include runtime/build.mk
include perfmon/build.mk
include convert/build.mk
include plugin/build.mk
include tests/build.mk
include tests/stress/build.mk
-include bench/build.mk
-include examples/build.mk

.PHONY: build-all
build-all: $(ALL_TARGETS)

# Every phase runs even when one before it failed (tests/run-check.sh).
check: deps-test
	@$(MAKE) --no-print-directory -j$(NPROC) build-all
	@sh tests/run-check.sh B=$(B)

# Static analysis: every C file of the project, no warnings allowed.
CPPCHECK_SRCS = $(filter-out convert/bench/%,$(wildcard trace/*.c runtime/*/*.c convert/*/*.c perfmon/*.c plugin/*.c tests/unit/*.c tests/fuzz/*.c tests/stress/*.c bench/*.c examples/*/*.c))
# The C code in .clang-format's style.  plugin/ is left out: it follows GCC's
# own style (C++ mixed with GCC's macros).
FORMAT_SRCS = $(wildcard trace/*.[ch] convert/*/*.[ch] perfmon/*.[ch] runtime/*.[ch] runtime/*/*.[ch] include/inclprof/*.h tests/unit/*.[ch] \
                bench/*.[ch] examples/*/*.[ch] examples/*/*.cpp examples/*/*.hpp)
# cppcheck 2.17 (Debian 13) says where it limited its branch analysis, a
# line that --error-exitcode counts as a finding: that line is suppressed.
lint: $(B)/gen/inclprof.pb-c.h
	@echo "== cppcheck"
	@cppcheck --enable=warning,style,performance,portability --error-exitcode=1 --inline-suppr -q \
	  --suppress=normalCheckLevelMaxBranches \
	  --std=c11 -D__x86_64__ -D__linux__ -DPROTOBUF_C_VERSION_NUMBER=1004001 \
	  -DPROTOBUF_C_MIN_COMPILER_VERSION=1000000 -I$(B)/gen $(SHARED_INC) -Iruntime -Iconvert -Iperfmon -Iplugin \
	  $(CPPCHECK_SRCS) && echo "cppcheck: no warnings"
	@echo "== clang-format (.clang-format)"
	@if command -v clang-format-14 >/dev/null || apt-cache show clang-format-14 >/dev/null 2>&1; then \
	  clang-format-14 --dry-run --Werror $(FORMAT_SRCS) && echo "clang-format: formatted"; \
	else echo "clang-format: skipped: this release has no clang-format-14 (the style's version; Debian 12 checks it)"; fi
	@echo "== the converter's floors include each other through public headers, downward only"
	@scripts/check-layers.sh
	@echo "== the runtime's calls go down its layers (docs/runtime.md, Layers)"
	@python3 scripts/check-runtime-layers.py
	@echo "== every source file in a docs/*.md Source layout table"
	@scripts/check-source-map.sh
	@echo "== every relative link and #anchor in README.md and docs/ resolves"
	@scripts/check-links.sh

# The unit tests, then the converter's and exports' integration tests, with
# everything built under AddressSanitizer + UBSan in $(B)/san (their time
# limits four times the plain build's: the sanitized code runs 2-4x slower).  The sanitized
# command records with the ordinary runtime (an ASan-built runtime cannot be
# preloaded into programs that are not built with ASan themselves).
check-san:
	@echo "== unit tests under AddressSanitizer + UBSan ($(B)/san)"
	@CK_TIMEOUT_MULTIPLIER=4 $(MAKE) --no-print-directory -j$(NPROC) B=$(B)/san SAN=1 OPT=-O1 check-unit $(B)/san/inclprof
	@mkdir -p $(B)/sancmd && cp $(B)/san/inclprof $(B)/sancmd/inclprof
	@ln -sf $(abspath $(B))/libinclprof.so $(B)/sancmd/libinclprof.so
	@echo "== converter and export integration tests with the sanitized inclprof"
	@INCLPROF=$(abspath $(B)/sancmd/inclprof) INCLPROF_PLUGIN=$(abspath $(B)/inclprof.so) \
	  INCLPROF_LIBDIR=$(abspath $(B)) INCLPROF_SRC=$(abspath .) \
	  sh tests/run-integration.sh tests/integration/convert_*.sh tests/integration/export_*.sh

check-fresh:
	@sh scripts/check-fresh.sh

check-gcc:
	@sh scripts/check-gcc.sh

clean:
	rm -rf $(B) demo-out bench/out

# tests/build.mk - Check unit tests and shell integration tests.
# Unit tests: every tests/unit/test_*.c becomes $(B)/tests/test_*, linked against
# the converter objects ($(B)/libipconvert.a), the runtime ($(B)/libinclprof.a)
# and Check.  Integration tests: every tests/integration/*.sh, run by
# tests/run-integration.sh with INCLPROF, INCLPROF_PLUGIN, INCLPROF_LIB set.

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(B)/tests/%,$(UNIT_SRCS))
CHECK_UNIT += $(UNIT_BINS)
-include $(UNIT_BINS:=.d)

# The tests reach into every component.
TEST_INC := -I$(B)/gen $(SHARED_INC) -Iruntime -Iconvert -Iperfmon -Iplugin -Itests/unit
$(B)/tests/%: tests/unit/%.c $(B)/libipconvert.a $(B)/libipgrant.a $(B)/libinclprof.a $(B)/libipplugin.a | $(CV_GEN) $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(TEST_INC) $(PB_CFLAGS) $(CHECK_CFLAGS) -o $@ $< $(B)/libipconvert.a $(B)/libipgrant.a $(B)/libipplugin.a $(B)/libinclprof.a $(PB_LIBS) $(CV_LIBS) $(CHECK_LIBS) -ldeflate -lz -lm -lpthread -ldl $(LDFLAGS)
# It checks the disassembly the converter was built with.
$(B)/tests/test_convert_lines: CFLAGS += $(CS_FLAGS)

.PHONY: check-unit check-integration
check-unit: $(CHECK_UNIT)
	@sh tests/run-unit.sh $(CHECK_UNIT)

check-integration: $(ALL_TARGETS)
	@INCLPROF=$(abspath $(B)/inclprof) INCLPROF_PLUGIN=$(abspath $(B)/inclprof.so) \
	  INCLPROF_LIBDIR=$(abspath $(B)) INCLPROF_SRC=$(abspath .) \
	  sh tests/run-integration.sh tests/integration/*.sh

# make field: real code bases from Debian's source packages (needs the network
# once, about 10 minutes; not part of make check).  FIELD="lua zstd" picks some.
.PHONY: field
field: $(ALL_TARGETS)
	@scripts/deps.sh field
	@INCLPROF=$(abspath $(B)/inclprof) INCLPROF_PLUGIN=$(abspath $(B)/inclprof.so) \
	  INCLPROF_LIBDIR=$(abspath $(B)) INCLPROF_SRC=$(abspath .) \
	  sh tests/field/field.sh $(FIELD)

# make peer: other tools' test programs (GCC's torture and tree-prof tests,
# valgrind's, strace's and uftrace's programs, from Debian's source packages)
# built plain and with the plugin, compared with callgrind (tests/peer/; needs the
# network once; about 0.4 s of CPU per run).  make peer-quick: a fixed
# subset (tests/peer/quick.txt), also run by make check
# (tests/integration/peer_quick.sh).
.PHONY: peer peer-quick
peer: $(ALL_TARGETS)
	@scripts/deps.sh peer
	@INCLPROF=$(abspath $(B)/inclprof) INCLPROF_PLUGIN=$(abspath $(B)/inclprof.so) \
	  INCLPROF_LIBDIR=$(abspath $(B)) INCLPROF_SRC=$(abspath .) \
	  sh tests/peer/peer.sh full
peer-quick: $(ALL_TARGETS)
	@scripts/deps.sh peer
	@INCLPROF=$(abspath $(B)/inclprof) INCLPROF_PLUGIN=$(abspath $(B)/inclprof.so) \
	  INCLPROF_LIBDIR=$(abspath $(B)) INCLPROF_SRC=$(abspath .) \
	  sh tests/peer/peer.sh quick

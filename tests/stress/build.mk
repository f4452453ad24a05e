# tests/stress/build.mk - `make stress`: the thread storm, a trace larger than
# 4 GiB, 10 M fuzzed trace-reader inputs, the soak and the snapshot soak
# (tests/stress/*.sh).
# Not part of `make check`: it takes about 50 minutes and reports figures
# ("figure:" lines, also written to $(B)/stress-figures.txt); it fails on a
# lost or miscounted call, a damaged trace, unbounded memory or a crash.
# STRESS_SOAK_SECONDS, STRESS_SNAPSHOT_SECONDS, STRESS_FUZZ_RUNS, STRESS_BIG_EVENTS, STRESS_WAVES and
# STRESS_PER_WAVE scale the runs (tests/stress/*.sh say how).
STRESS_SCRIPTS := tests/stress/storm.sh tests/stress/big_trace.sh tests/stress/fuzz.sh \
                  tests/stress/soak.sh tests/stress/snapshot_soak.sh

.PHONY: stress stress-run
# deps.sh first, then make again: the libFuzzer check (FUZZ_CLANG) must see clang.
stress:
	@scripts/deps.sh stress
	@$(MAKE) --no-print-directory stress-run

stress-run: $(ALL_TARGETS) $(B)/gen_trace $(B)/fuzz/fuzz_trace
	@INCLPROF=$(abspath $(B)/inclprof) INCLPROF_PLUGIN=$(abspath $(B)/inclprof.so) \
	  INCLPROF_LIBDIR=$(abspath $(B)) INCLPROF_SRC=$(abspath .) \
	  GEN_TRACE=$(abspath $(B)/gen_trace) FUZZ_TRACE=$(abspath $(B)/fuzz/fuzz_trace) \
	  sh tests/run-integration.sh $(STRESS_SCRIPTS) > $(B)/stress.log 2>&1; \
	  rc=$$?; cat $(B)/stress.log; grep '^figure: ' $(B)/stress.log > $(B)/stress-figures.txt; \
	  echo "== figures ($(B)/stress-figures.txt)"; cat $(B)/stress-figures.txt; exit $$rc

# bench/build.mk - `make bench`: benchmarks that REPORT figures (nothing is
# asserted; tests never time things).  Every benchmark is a phony target added
# to BENCH_TARGETS that writes its figures as a Markdown fragment
# $(BENCH_OUT)/<target>.md (and may print progress).  `make bench` installs the
# bench packages (scripts/deps.sh bench), builds everything, runs each target
# in turn (a failing one is reported, not fatal), then bench/summary.sh joins
# the fragments with a machine description into $(BENCH_OUT)/results.md,
# prints it and refreshes the figures section of docs/benchmarks.md.
BENCH_OUT := bench/out
BENCH_B    = $(B)/bench

.PHONY: bench bench-deps
bench: bench-deps
	@$(MAKE) --no-print-directory -j$(NPROC) build-all
	@rm -rf $(BENCH_OUT) && mkdir -p $(BENCH_OUT)
	@for t in $(BENCH_TARGETS); do \
	  echo "== $$t"; \
	  $(MAKE) --no-print-directory $$t || echo "$$t failed (exit $$?); see the output above" > $(BENCH_OUT)/$$t.failed; \
	done
	@sh bench/summary.sh $(BENCH_OUT) docs/benchmarks.md

bench-deps:
	@scripts/deps.sh bench

# --- cross-tool comparison: inclprof vs bare hooks, -finstrument-functions,
# --- uftrace, LLVM XRay; code size; bytes per event; a real program ---------
BENCH_TARGETS += bench-tools
.PHONY: bench-tools
bench-tools: $(B)/inclprof.so $(B)/libinclprof.so $(B)/inclprof
	@bash bench/tools.sh $(abspath $(B)) $(abspath $(BENCH_B))/tools $(BENCH_OUT)/bench-tools.md

# --- runtime benchmarks (the runtime's owner appends below this line) ----------
# Add:  BENCH_TARGETS += bench-runtime   and a bench-runtime target that writes
# $(BENCH_OUT)/bench-runtime.md.
BENCH_TARGETS += bench-runtime
.PHONY: bench-runtime
$(BENCH_B)/runtime_bench: bench/runtime_bench.c $(B)/libinclprof.a $(B)/libipconvert.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(CV_INC) $(PB_CFLAGS) -o $@ $< $(B)/libinclprof.a $(B)/libipconvert.a $(PB_LIBS) $(CV_LIBS) -lz -lpthread -ldl
bench-runtime: $(BENCH_B)/runtime_bench
	@mkdir -p $(BENCH_OUT) && rm -rf $(BENCH_OUT)/runtime-traces
	@$(BENCH_B)/runtime_bench $(BENCH_OUT)/runtime-traces > $(BENCH_OUT)/bench-runtime.md
	@cat $(BENCH_OUT)/bench-runtime.md
	@rm -rf $(BENCH_OUT)/runtime-traces

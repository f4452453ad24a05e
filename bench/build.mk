# bench/build.mk - `make bench`: benchmarks that REPORT figures (nothing is
# asserted; tests never time things).  Every benchmark is a phony target added
# to BENCH_TARGETS that writes its figures as a Markdown fragment
# $(BENCH_OUT)/<target>.md (and may print progress).  `make bench` installs the
# bench packages (scripts/deps.sh bench), builds everything, runs each target
# in turn (a failing one is reported, not fatal), then bench/summary.sh joins
# the fragments with a machine description into $(BENCH_OUT)/results.md,
# prints it and refreshes docs/accuracy.md's table (docs/benchmarks.md keeps
# the current figure of each target, taken from these results by hand).
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
	@sh bench/summary.sh $(BENCH_OUT) bench-accuracy=docs/accuracy.md

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
	$(CC) $(CFLAGS) $(CV_INC) $(PB_CFLAGS) -o $@ $< $(B)/libinclprof.a $(B)/libipconvert.a $(PB_LIBS) $(CV_LIBS) -ldeflate -lz -lpthread -ldl
bench-runtime: $(BENCH_B)/runtime_bench
	@mkdir -p $(BENCH_OUT) && rm -rf $(BENCH_OUT)/runtime-traces
	@$(BENCH_B)/runtime_bench $(BENCH_OUT)/runtime-traces > $(BENCH_OUT)/bench-runtime.md
	@cat $(BENCH_OUT)/bench-runtime.md
	@rm -rf $(BENCH_OUT)/runtime-traces

# --- cost of a plugin build that is not recording ------------------------------
BENCH_TARGETS += bench-idle
.PHONY: bench-idle
bench-idle: $(B)/inclprof.so $(B)/libinclprof.so $(B)/inclprof
	@bash bench/idle_cost.sh $(abspath $(B)) $(abspath $(BENCH_B))/idle $(BENCH_OUT)/bench-idle.md

# --- call-dense code (CPython, Lua): the values against the plain build's CPU
# --- time, with the defaults, the fast clock and suggest's filter --------------
BENCH_TARGETS += bench-dense
.PHONY: bench-dense
bench-dense: $(B)/inclprof.so $(B)/libinclprof.so $(B)/inclprof
	@bash bench/dense.sh $(abspath $(B)) $(abspath $(BENCH_B))/dense $(BENCH_OUT)/bench-dense.md

# --- profile-guided filters: profile -> inclprof suggest -> rebuild -> profile,
# --- on examples/wordfreq and Debian's Lua (bench/suggest.sh) ----------------
BENCH_TARGETS += bench-suggest
.PHONY: bench-suggest
bench-suggest: $(B)/inclprof.so $(B)/libinclprof.so $(B)/inclprof
	@bash bench/suggest.sh $(abspath $(B)) $(abspath $(BENCH_B))/suggest $(BENCH_OUT)/bench-suggest.md

# --- accuracy against the truth: Application and Elapsed per thread kind, by
# --- the twin method (bench/accuracy.c, bench/accuracy.sh) ---------------------
BENCH_TARGETS += bench-accuracy
.PHONY: bench-accuracy
bench-accuracy: $(B)/inclprof.so $(B)/libinclprof.so $(B)/inclprof
	@mkdir -p $(BENCH_OUT) && bash bench/accuracy.sh $(abspath $(B)) $(abspath $(BENCH_B))/accuracy $(BENCH_OUT)/bench-accuracy.md

# --- inclprof against the floor and the strongest rivals (XRay FDR and basic,
# --- uftrace on -pg and -finstrument-functions, gprof), start-up and exit ------
BENCH_TARGETS += bench-rivals
.PHONY: bench-rivals
bench-rivals: $(B)/inclprof.so $(B)/libinclprof.so $(B)/inclprof
	@bash bench/rivals.sh $(abspath $(B)) $(abspath $(BENCH_B))/rivals $(BENCH_OUT)/bench-rivals.md

# --- the writer thread: stalls of the program's threads, cost on busy cores -----
BENCH_TARGETS += bench-writer
.PHONY: bench-writer
bench-writer: $(B)/inclprof.so $(B)/libinclprof.so $(B)/inclprof
	@bash bench/writer.sh $(abspath $(B)) $(abspath $(BENCH_B))/writer $(BENCH_OUT)/bench-writer.md

# --- the wait breakdown's saving of kevents records at a flush ----------------
BENCH_TARGETS += bench-kevents-save
.PHONY: bench-kevents-save
$(BENCH_B)/kevents_save_bench: bench/kevents_save_bench.c $(B)/libinclprof.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(RT_INC) $(PB_CFLAGS) -o $@ $< $(B)/libinclprof.a $(PB_LIBS) -ldeflate -lz -lpthread -ldl
bench-kevents-save: $(BENCH_B)/kevents_save_bench
	@mkdir -p $(BENCH_OUT)
	@$(BENCH_B)/kevents_save_bench > $(BENCH_OUT)/bench-kevents-save.md
	@cat $(BENCH_OUT)/bench-kevents-save.md

# --- encoding one full buffer: instructions (callgrind) and time per event ------
BENCH_TARGETS += bench-encode
.PHONY: bench-encode
# With the runtime's own mem* and str* functions, as libinclprof.so has them.
$(BENCH_B)/encode_bench: bench/encode_bench.c $(B)/libinclprof.a $(B)/runtime/base/own_string.o
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(RT_INC) $(PB_CFLAGS) -o $@ $< $(B)/runtime/base/own_string.o $(B)/libinclprof.a $(PB_LIBS) -ldeflate -lz -lpthread -ldl
bench-encode: $(BENCH_B)/encode_bench
	@mkdir -p $(BENCH_OUT)
	@bash bench/encode.sh $(abspath $(BENCH_B))/encode_bench $(abspath $(BENCH_B))/encode $(BENCH_OUT)/bench-encode.md
	@cat $(BENCH_OUT)/bench-encode.md

# --- start-up and exit of a traced process, and `inclprof record`'s own cost --
BENCH_TARGETS += bench-startup
.PHONY: bench-startup
bench-startup: $(B)/inclprof.so $(B)/libinclprof.so $(B)/inclprof
	@mkdir -p $(BENCH_OUT) && bash bench/startup.sh $(abspath $(B)) $(abspath $(BENCH_B))/startup $(BENCH_OUT)/bench-startup.md

# --- real programs side by side: Debian's lua, sqlite, zstd and jq plain, under
# --- inclprof (defaults and suggest's filter), uftrace (-pg, -finstrument-functions)
# --- and XRay FDR (bench/programs.sh; the sources as `make field` fetches them) --
BENCH_TARGETS += bench-programs
.PHONY: bench-programs
bench-programs: $(B)/inclprof.so $(B)/libinclprof.so $(B)/inclprof
	@mkdir -p $(BENCH_OUT) && bash bench/programs.sh $(abspath $(B)) $(abspath $(BENCH_B))/programs $(BENCH_OUT)/bench-programs.md

# --- snapshots of slow calls: the ring with and without a watched function -----
BENCH_TARGETS += bench-snapshot
.PHONY: bench-snapshot
bench-snapshot: $(B)/inclprof.so $(B)/libinclprof.so $(B)/inclprof
	@mkdir -p $(BENCH_OUT) && bash bench/snapshot.sh $(abspath $(B)) $(abspath $(BENCH_B))/snapshot $(BENCH_OUT)/bench-snapshot.md

# --- a fork child's start: fork to its first line, fork+exec of /bin/true,
# --- plain, not recording and recorded (bench/fork.sh, bench/fork_bench.c) ----
BENCH_TARGETS += bench-fork
.PHONY: bench-fork
bench-fork: $(B)/inclprof.so $(B)/libinclprof.so $(B)/inclprof
	@mkdir -p $(BENCH_OUT) && bash bench/fork.sh $(abspath $(B)) $(abspath $(BENCH_B))/fork $(BENCH_OUT)/bench-fork.md

# convert/build.mk - the `inclprof` command ($(B)/inclprof): cli/main.c over
# $(B)/libipconvert.a, which holds every stage (read/, model/, analysis/, views/,
# export/, util/ and the command line, cli/) and the trace's framing and
# reading rules (trace/), and which the unit tests link.
CV_PROTOS := $(wildcard proto/*.proto)
CV_GEN    := $(patsubst proto/%.proto,$(B)/gen/%.pb-c.c,$(CV_PROTOS))
.SECONDARY: $(CV_GEN) $(CV_GEN:.c=.h)
CV_STAGES := read model analysis views export util cli
CV_SRCS   := $(filter-out convert/cli/main.c,$(foreach d,$(CV_STAGES),$(wildcard convert/$(d)/*.c)))
CV_OBJS   := $(patsubst convert/%.c,$(B)/convert/%.o,$(CV_SRCS)) \
             $(patsubst trace/%.c,$(B)/convert/trace/%.o,$(wildcard trace/*.c)) \
             $(patsubst $(B)/gen/%.c,$(B)/convert/gen/%.o,$(CV_GEN))
CV_MAIN_OBJ  := $(B)/convert/cli/main.o
CV_INC    := -I$(B)/gen $(SHARED_INC) -Iconvert -Iperfmon
# A build with a SIMD path turned off, for bench-convert to time it:
# CV_NO_AVX2=1 compiles with IP_NO_AVX2 (the scalar code range of
# model/replay_pool.c), CV_NO_SSSE3=1 with IP_NO_SSSE3 (the scalar varints
# of read/batch_decode.c).
CV_SIMD_OFF = $(if $(CV_NO_AVX2),-DIP_NO_AVX2) $(if $(CV_NO_SSSE3),-DIP_NO_SSSE3)
CV_CFLAGS  = $(CFLAGS) $(CV_INC) $(PB_CFLAGS) $(CV_SIMD_OFF)
ALL_TARGETS += $(B)/inclprof

$(B)/convert/%.o: convert/%.c | $(CV_GEN) $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CV_CFLAGS) -c -o $@ $<
$(B)/convert/trace/%.o: trace/%.c | $(CV_GEN) $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CV_CFLAGS) -c -o $@ $<
$(B)/convert/analysis/disasm.o: CV_CFLAGS += $(CS_FLAGS)
# The replay's per-event counters are next to each other in memory: packed
# into vector registers (SLP) they take more instructions than two adds
# (report: 266 -> 261 an event, callgrind).
$(B)/convert/model/replay.o: CV_CFLAGS += -fno-tree-slp-vectorize
$(B)/convert/gen/%.o: $(B)/gen/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CV_CFLAGS) -c -o $@ $<
$(B)/libipconvert.a: $(CV_OBJS)
	rm -f $@ && ar rcs $@ $^
$(B)/inclprof: $(CV_MAIN_OBJ) $(B)/libipconvert.a $(B)/libipgrant.a
	$(CC) -o $@ $^ $(PB_LIBS) $(CV_LIBS) -lz -lm -lpthread -ldl $(LDFLAGS)
-include $(CV_OBJS:.o=.d) $(CV_MAIN_OBJ:.o=.d)

# --- converter benchmark: events/s and peak RSS of `inclprof report` on a
# --- synthetic 100 M-event trace (writes $(BENCH_OUT)/bench-convert.md) ------
$(B)/gen_trace: convert/bench/gen_trace.c convert/bench/gen_frames.h $(B)/libinclprof.a | $(DEPS_STAMP)
	$(CC) $(CV_CFLAGS) -o $@ $< $(B)/libinclprof.a $(PB_LIBS) -ldeflate -lz -lpthread -ldl $(LDFLAGS)
$(B)/gen_session: convert/bench/gen_session.c convert/bench/gen_frames.h $(B)/libinclprof.a | $(DEPS_STAMP)
	$(CC) $(CV_CFLAGS) -o $@ $< $(B)/libinclprof.a $(PB_LIBS) -ldeflate -lz -lpthread -ldl $(LDFLAGS)
# The same command built with each SIMD path off ($(B)/simd-off-avx2/, ...), timed
# in pairs against it.
CV_SIMD_PATHS := avx2 ssse3
$(B)/simd-off-%/inclprof: FORCE
	@$(MAKE) --no-print-directory B=$(B)/simd-off-$* CV_NO_$(shell echo $* | tr a-z A-Z)=1 $@
BENCH_TARGETS += bench-convert
.PHONY: bench-convert FORCE
bench-convert: $(B)/inclprof $(B)/gen_trace $(B)/gen_session $(B)/inclprof.so $(B)/libinclprof.so \
               $(foreach p,$(CV_SIMD_PATHS),$(B)/simd-off-$(p)/inclprof)
	@mkdir -p $(BENCH_OUT)
	@CONVERT_SIMD_OFF="$(foreach p,$(CV_SIMD_PATHS),$(p)=$(abspath $(B)/simd-off-$(p)/inclprof))" \
	  sh convert/bench/bench_convert.sh $(abspath $(B)/inclprof) $(abspath $(B)/gen_trace) \
	  $(abspath $(B))/bench/convert $(BENCH_OUT)/bench-convert.md $(abspath $(B)/inclprof.so)

# --- fuzzing the loader + replay (tests/fuzz/): libFuzzer with clang when it
# --- links, else the standalone mutation driver under ASan+UBSan -------------
# Without comparison tracing (trace-cmp): the structure-aware mutator finds the
# lengths, tags and checksums itself, and each input runs twice as fast.
FUZZ_SECONDS ?= 60
# The loader and replay (ip_session_load and what it calls): the read, model
# and util stages.
FUZZ_SRCS = $(foreach d,read model util,$(wildcard convert/$(d)/*.c)) \
            $(B)/gen/inclprof.pb-c.c $(wildcard trace/*.c)
# The clang that links -fsanitize=fuzzer, looked for only when a goal needs
# it (a compile and a link: every other make run, `make -q` included, skips it).
ifneq ($(filter fuzz stress-run %/fuzz_trace,$(MAKECMDGOALS)),)
FUZZ_CLANG := $(shell for c in clang-$(shell sh scripts/llvm-version.sh) clang; do command -v $$c >/dev/null 2>&1 && \
                echo 'int LLVMFuzzerTestOneInput(const char*d,long n){(void)d;(void)n;return 0;}' | \
                $$c -x c -fsanitize=fuzzer -o /dev/null - 2>/dev/null && { echo $$c; break; }; done)
endif
FUZZ_MUTATOR = tests/fuzz/trace_mutator.c tests/fuzz/trace_mutator.h tests/unit/trace_gen.h
FUZZ_FLAGS = -std=c11 -O1 -g -D_GNU_SOURCE $(CV_INC) -Itests/unit -Itests/fuzz $(PB_CFLAGS) \
             -fsanitize=address,undefined -fno-sanitize-recover=undefined
.PHONY: fuzz
$(B)/fuzz/seed/seed.ipb: $(B)/gen_trace
	@mkdir -p $(dir $@)
	$(B)/gen_trace $@ 3000 2
ifneq ($(FUZZ_CLANG),)
$(B)/fuzz/fuzz_trace: tests/fuzz/fuzz_trace.c $(FUZZ_MUTATOR) $(FUZZ_SRCS)
	@mkdir -p $(dir $@)
	$(FUZZ_CLANG) $(FUZZ_FLAGS) -fsanitize=fuzzer -fno-sanitize-coverage=trace-cmp -o $@ tests/fuzz/fuzz_trace.c tests/fuzz/trace_mutator.c $(FUZZ_SRCS) $(PB_LIBS) $(CV_LIBS) -lz
fuzz: $(B)/fuzz/fuzz_trace $(B)/fuzz/seed/seed.ipb
	@mkdir -p $(B)/fuzz/corpus
	$(B)/fuzz/fuzz_trace -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=10 \
	  $(B)/fuzz/corpus tests/fuzz/corpus $(B)/fuzz/seed
else
$(B)/fuzz/fuzz_standalone: tests/fuzz/fuzz_trace.c tests/fuzz/fuzz_standalone.c $(FUZZ_MUTATOR) $(FUZZ_SRCS)
	@mkdir -p $(dir $@)
	$(CC) $(FUZZ_FLAGS) -o $@ tests/fuzz/fuzz_trace.c tests/fuzz/fuzz_standalone.c tests/fuzz/trace_mutator.c $(FUZZ_SRCS) $(PB_LIBS) $(CV_LIBS) -lz
fuzz: $(B)/fuzz/fuzz_standalone $(B)/fuzz/seed/seed.ipb
	$(B)/fuzz/fuzz_standalone 200000 $(B)/fuzz/seed/seed.ipb
endif

# runtime/build.mk - the recording runtime: $(B)/libinclprof.so and $(B)/libinclprof.a.
# Its layers are folders (docs/runtime.md, "Layers"): entry/, produce/,
# sink/, base/.  With the trace's framing and reading rules (trace/), built
# with its flags.
RT_LAYERS := entry produce sink base
RT_SRCS := $(foreach l,$(RT_LAYERS),$(wildcard runtime/$(l)/*.c))
RT_OBJS := $(patsubst runtime/%.c,$(B)/runtime/%.o,$(RT_SRCS)) $(B)/runtime/inclprof.pb-c.o \
           $(patsubst trace/%.c,$(B)/runtime/trace/%.o,$(wildcard trace/*.c))
# Only in libinclprof.so: the runtime's own mem*/str* functions, malloc,
# snprintf and vsnprintf (onto libc's own vsnprintf), hidden, which the
# runtime's calls and those of protobuf-c and libdeflate
# (linked in from their static archives, their symbols kept out of the
# exports) bind to instead of the program's (docs/runtime.md, "Memory"); in
# libinclprof.a they would clash with a program's own definitions.
RT_SO_ONLY := $(B)/runtime/base/own_string.o $(B)/runtime/base/own_malloc.o \
              $(B)/runtime/base/own_stdio.o
RT_A_OBJS  := $(filter-out $(RT_SO_ONLY),$(RT_OBJS))
RT_STATIC_LIBS = -Wl,--exclude-libs,ALL -Wl,-Bstatic $(PB_LIBS) -ldeflate -Wl,-Bdynamic
RT_INC    := -I$(B)/gen $(SHARED_INC) -Iruntime
RT_CFLAGS = $(CFLAGS) $(RT_INC) $(PB_CFLAGS) -fvisibility=hidden -ftls-model=initial-exec
ALL_TARGETS += $(B)/libinclprof.so $(B)/libinclprof.a

$(B)/runtime/%.o: runtime/%.c | $(B)/gen/inclprof.pb-c.h $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(RT_CFLAGS) -c -o $@ $<
# GCC must not turn their loops back into calls of themselves.
$(B)/runtime/base/own_string.o: RT_CFLAGS += -fno-builtin -fno-tree-loop-distribute-patterns
$(B)/runtime/trace/%.o: trace/%.c | $(B)/gen/inclprof.pb-c.h $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(RT_CFLAGS) -c -o $@ $<
$(B)/runtime/inclprof.pb-c.o: $(B)/gen/inclprof.pb-c.c $(B)/gen/inclprof.pb-c.h
	@mkdir -p $(dir $@)
	$(CC) $(RT_CFLAGS) -c -o $@ $<
$(B)/libinclprof.so: $(RT_OBJS)
	$(CC) -shared -o $@ $^ $(RT_STATIC_LIBS) -lpthread -ldl $(LDFLAGS)
$(B)/libinclprof.a: $(RT_A_OBJS)
	rm -f $@ && ar rcs $@ $^
-include $(RT_OBJS:.o=.d)

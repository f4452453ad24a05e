# runtime/build.mk - the recording runtime: $(B)/libinclprof.so and $(B)/libinclprof.a.
# Its layers are folders (docs/runtime.md, "Layers"): entry/, produce/,
# sink/, base/.  With the trace's framing and reading rules (trace/), built
# with its flags.
RT_LAYERS := entry produce sink base
RT_SRCS := $(foreach l,$(RT_LAYERS),$(wildcard runtime/$(l)/*.c))
RT_OBJS := $(patsubst runtime/%.c,$(B)/runtime/%.o,$(RT_SRCS)) $(B)/runtime/inclprof.pb-c.o \
           $(patsubst trace/%.c,$(B)/runtime/trace/%.o,$(wildcard trace/*.c))
RT_INC    := -I$(B)/gen $(SHARED_INC) -Iruntime
RT_CFLAGS = $(CFLAGS) $(RT_INC) $(PB_CFLAGS) -fvisibility=hidden -ftls-model=initial-exec
ALL_TARGETS += $(B)/libinclprof.so $(B)/libinclprof.a

$(B)/runtime/%.o: runtime/%.c | $(B)/gen/inclprof.pb-c.h $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(RT_CFLAGS) -c -o $@ $<
$(B)/runtime/trace/%.o: trace/%.c | $(B)/gen/inclprof.pb-c.h $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(RT_CFLAGS) -c -o $@ $<
$(B)/runtime/inclprof.pb-c.o: $(B)/gen/inclprof.pb-c.c $(B)/gen/inclprof.pb-c.h
	@mkdir -p $(dir $@)
	$(CC) $(RT_CFLAGS) -c -o $@ $<
$(B)/libinclprof.so: $(RT_OBJS)
	$(CC) -shared -o $@ $^ $(PB_LIBS) -ldeflate -lpthread -ldl $(LDFLAGS)
$(B)/libinclprof.a: $(RT_OBJS)
	rm -f $@ && ar rcs $@ $^
-include $(RT_OBJS:.o=.d)

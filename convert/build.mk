# convert/build.mk - the `inclprof` command ($(B)/inclprof) and its objects as
# $(B)/libipconvert.a (everything but main.o), which the unit tests link.
CV_PROTOS := $(wildcard proto/*.proto)
CV_GEN    := $(patsubst proto/%.proto,$(B)/gen/%.pb-c.c,$(CV_PROTOS))
CV_SRCS   := $(filter-out convert/main.c,$(wildcard convert/*.c))
CV_OBJS   := $(patsubst convert/%.c,$(B)/convert/%.o,$(CV_SRCS)) \
             $(patsubst $(B)/gen/%.c,$(B)/convert/gen/%.o,$(CV_GEN))
CV_CFLAGS  = $(CFLAGS) $(PB_CFLAGS)
ALL_TARGETS += $(B)/inclprof

$(B)/convert/%.o: convert/%.c convert/*.h $(CV_GEN) | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CV_CFLAGS) -c -o $@ $<
$(B)/convert/gen/%.o: $(B)/gen/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CV_CFLAGS) -c -o $@ $<
$(B)/libipconvert.a: $(CV_OBJS)
	rm -f $@ && ar rcs $@ $^
$(B)/inclprof: $(B)/convert/main.o $(B)/libipconvert.a
	$(CC) -o $@ $^ $(PB_LIBS) -lz -lm -lpthread -ldl $(LDFLAGS)

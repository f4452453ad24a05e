# plugin/build.mk - the GCC plugin $(B)/inclprof.so: GCC-facing C++ (plugin/*.cc)
# plus GCC-independent plain C (plugin/*.c: filters, hashing, names).
# PLUGIN_GCC is the compiler that will load the plugin (its headers are
# `$(PLUGIN_GCC) -print-file-name=plugin`/include), PLUGIN_CXX and PLUGIN_CC
# the host compilers of the same GCC version that build it: $(CXX) and $(CC)
# unless the plugin is for a cross compiler.
PLUGIN_GCC ?= $(CXX)
PLUGIN_CXX ?= $(CXX)
PLUGIN_CC  ?= $(CC)
PLUGIN_DIR  = $(shell $(PLUGIN_GCC) -print-file-name=plugin)
PL_CC_SRCS := $(wildcard plugin/*.cc)
PL_C_SRCS  := $(wildcard plugin/*.c)
PL_OBJS    := $(patsubst plugin/%.cc,$(B)/plugin/%.o,$(PL_CC_SRCS)) \
              $(patsubst plugin/%.c,$(B)/plugin/%.o,$(PL_C_SRCS))
PL_CXXFLAGS = -std=gnu++14 -O2 -g -fPIC -fno-rtti -fno-exceptions $(WARN) -Wno-unused-parameter \
              -MMD -MP -I$(PLUGIN_DIR)/include $(SHARED_INC) -Iinclude -Iplugin
ALL_TARGETS += $(B)/inclprof.so

$(B)/plugin/%.o: plugin/%.cc | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(PLUGIN_CXX) $(PL_CXXFLAGS) -c -o $@ $<
$(B)/plugin/%.o: plugin/%.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(PLUGIN_CC) $(CFLAGS) $(SHARED_INC) -Iplugin -c -o $@ $<
$(B)/inclprof.so: $(PL_OBJS)
	$(PLUGIN_CXX) -shared -o $@ $^
-include $(PL_OBJS:.o=.d)

# The plain-C half as a library of its own, for the unit tests.
PL_C_OBJS := $(patsubst plugin/%.c,$(B)/plugin/%.o,$(PL_C_SRCS))
$(B)/libipplugin.a: $(PL_C_OBJS)
	rm -f $@ && ar rcs $@ $^

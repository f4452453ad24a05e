# examples/build.mk - the examples built with the plugin, `make demo` and
# `make install` (the top Makefile includes only the examples/ and bench/
# fragments for these extras, so install lives here too).
#   make examples     build examples/* into $(B)/examples/ with $(B)/inclprof.so
#   make demo         build everything, profile the examples, print the report,
#                     write every export into demo-out/ (scripts/demo.sh)
#   make install PREFIX=/usr/local [DESTDIR=] [PLUGINDIR=]   (scripts/install.sh)
#   make uninstall (same variables) removes those files
EX_B      = $(B)/examples
EX_PLUGIN = $(abspath $(B)/inclprof.so)
EXAMPLES  = $(EX_B)/wordfreq/wordfreq $(EX_B)/cpp-inventory/cpp-inventory \
            $(EX_B)/dlopen-filter/dlopen-host
# Where `-fplugin=inclprof` looks: the plugin directory of the GCC the plugin
# is built for (make install GCC=gcc-14: gcc-14's).
PLUGINDIR ?= $(shell $(PLUGIN_GCC) -print-file-name=plugin)

.PHONY: examples demo install uninstall
examples: $(EXAMPLES)

# Each example is built by its own Makefile (the snippet its README shows),
# rebuilt completely whenever the plugin or a source changes.
$(EX_B)/wordfreq/wordfreq: $(B)/inclprof.so $(wildcard examples/wordfreq/*)
	$(MAKE) --no-print-directory -B -C examples/wordfreq O=$(abspath $(dir $@)) INCLPROF_PLUGIN=$(EX_PLUGIN) INCLPROF_INCLUDE=$(abspath runtime)
$(EX_B)/dlopen-filter/dlopen-host: $(B)/inclprof.so $(wildcard examples/dlopen-filter/*)
	$(MAKE) --no-print-directory -B -C examples/dlopen-filter O=$(abspath $(dir $@)) INCLPROF_PLUGIN=$(EX_PLUGIN)
# The same compile as examples/cpp-inventory/CMakeLists.txt, without needing CMake.
$(EX_B)/cpp-inventory/cpp-inventory: $(B)/inclprof.so $(wildcard examples/cpp-inventory/*)
	@mkdir -p $(dir $@)
	$(CXX) -std=c++17 -O2 -g -Wall -Wextra -fplugin=$(EX_PLUGIN) -o $@ $(wildcard examples/cpp-inventory/*.cpp)

# The build's compiler lines go to a log: the demo shows what it profiles.
demo: $(DEPS_STAMP)
	@mkdir -p $(B)
	@echo "inclprof demo: building the plugin, the runtime, the command and the examples (log: $(B)/demo-build.log)"
	@{ $(MAKE) --no-print-directory -j$(NPROC) build-all && $(MAKE) --no-print-directory examples; } \
	  >$(B)/demo-build.log 2>&1 || { tail -n 20 $(B)/demo-build.log; \
	  echo "inclprof demo: the build failed (above: the end of $(B)/demo-build.log)"; exit 1; }
	@sh scripts/demo.sh $(B) demo-out

install: $(ALL_TARGETS) $(INSTALL_TARGETS)
	@INCLPROF_GCC="$(PLUGIN_GCC)" sh scripts/install.sh --build $(B) --prefix "$(PREFIX)" --plugindir "$(PLUGINDIR)" --destdir "$(DESTDIR)"
uninstall:
	@sh scripts/install.sh --uninstall --prefix "$(PREFIX)" --plugindir "$(PLUGINDIR)" --destdir "$(DESTDIR)"

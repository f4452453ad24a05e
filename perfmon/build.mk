# perfmon/build.mk - the grant server ($(B)/libipgrant.a: grant_check.c,
# grant_server.c), which `inclprof record --user` links, and the helper
# $(B)/inclprof-perfmon that runs it with file capabilities (make install sets
# them).  The helper is built hardened: it runs with a capability its user
# does not have.
PM_INC      := $(SHARED_INC) -Iperfmon
PM_HARDEN   := -fstack-protector-strong -D_FORTIFY_SOURCE=2
PM_CFLAGS    = $(CFLAGS) $(PM_INC) $(PM_HARDEN)
PM_GRANT_OBJS := $(B)/perfmon/grant_check.o $(B)/perfmon/grant_server.o
PM_HELPER_OBJS := $(B)/perfmon/perfmon.o $(B)/perfmon/caps.o
ALL_TARGETS += $(B)/inclprof-perfmon

$(B)/perfmon/%.o: perfmon/%.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(PM_CFLAGS) -c -o $@ $<
$(B)/libipgrant.a: $(PM_GRANT_OBJS)
	rm -f $@ && ar rcs $@ $^
$(B)/inclprof-perfmon: $(PM_HELPER_OBJS) $(B)/libipgrant.a
	$(CC) -pie -Wl,-z,relro,-z,now -o $@ $^ $(LDFLAGS)
-include $(PM_GRANT_OBJS:.o=.d) $(PM_HELPER_OBJS:.o=.d)

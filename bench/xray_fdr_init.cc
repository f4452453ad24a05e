// xray_fdr_init.cc - linked into the XRay build of bench/callheavy.c to run
// XRay in flight-data-recorder mode with every call kept: before main it
// selects "xray-fdr", initialises it with func_duration_threshold_us=0 (no
// call is too short to keep) and buffers large enough for the whole run,
// then patches the sleds; at exit it finalises and flushes the log to
// XRAY_OPTIONS' xray_logfile_base.  A failure is printed and the program
// exits 1, so the benchmark reports it instead of a figure.
#include <cstdio>
#include <cstdlib>
#include <xray/xray_interface.h>
#include <xray/xray_log_interface.h>

__attribute__((constructor)) static void fdr_start() {
  if (__xray_log_select_mode("xray-fdr") != XRayLogRegisterStatus::XRAY_REGISTRATION_OK) {
    std::fprintf(stderr, "xray_fdr_init: xray-fdr mode is not available\n");
    std::exit(1);
  }
  const char *config = "buffer_size=4194304:buffer_max=256:func_duration_threshold_us=0";
  if (__xray_log_init_mode("xray-fdr", config) != XRayLogInitStatus::XRAY_LOG_INITIALIZED) {
    std::fprintf(stderr, "xray_fdr_init: initialising xray-fdr with %s failed\n", config);
    std::exit(1);
  }
  if (__xray_patch() != XRayPatchingStatus::SUCCESS) {
    std::fprintf(stderr, "xray_fdr_init: patching the sleds failed\n");
    std::exit(1);
  }
}

__attribute__((destructor)) static void fdr_stop() {
  __xray_log_finalize();
  if (__xray_log_flushLog() != XRayLogFlushStatus::XRAY_LOG_FLUSHED)
    std::fprintf(stderr, "xray_fdr_init: flushing the log failed\n");
}

/* state.c - the runtime's process state (ip_st) and the calling thread's
 * state (ip_tls, initial-exec TLS so a probe reaches it in one instruction).
 * Their layouts and fields are described in base.h. */
#include "base/base.h"

struct ip_state ip_st = {
    .fd = -1, .dir_fd = -1, .threads_lock = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP};

__thread struct ip_rt_thread ip_tls __attribute__((tls_model("initial-exec")));

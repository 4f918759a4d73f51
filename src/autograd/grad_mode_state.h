// The thread-local mode flags, visible to the library's hot paths without a function call.
#pragma once

// Initial-exec TLS: libember is linked at program start (not dlopen'ed late), so its thread
// locals can live in the static TLS block and be read without a __tls_get_addr call per op.
#define EMBER_FAST_TLS __attribute__((tls_model("initial-exec"))) thread_local

namespace ember::autograd {
extern EMBER_FAST_TLS bool tls_grad_enabled;
extern EMBER_FAST_TLS bool tls_inference_mode;
}  // namespace ember::autograd

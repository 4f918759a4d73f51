// The thread-local mode flags, visible to the library's hot paths without a function call.
#pragma once

namespace ember::autograd {
extern thread_local bool tls_grad_enabled;
extern thread_local bool tls_inference_mode;
}  // namespace ember::autograd

#include "ember/autograd/grad_mode.h"

#include "src/autograd/grad_mode_state.h"

namespace ember {

namespace autograd {
EMBER_FAST_TLS bool tls_grad_enabled = true;
EMBER_FAST_TLS bool tls_inference_mode = false;
}  // namespace autograd

bool GradMode::is_enabled() { return autograd::tls_grad_enabled; }
void GradMode::set_enabled(bool enabled) { autograd::tls_grad_enabled = enabled; }

InferenceMode::InferenceMode(bool enabled)
    : prev_grad_(autograd::tls_grad_enabled), prev_inference_(autograd::tls_inference_mode) {
  autograd::tls_inference_mode = enabled;
  autograd::tls_grad_enabled = !enabled && prev_grad_;
}
InferenceMode::~InferenceMode() {
  autograd::tls_grad_enabled = prev_grad_;
  autograd::tls_inference_mode = prev_inference_;
}
bool InferenceMode::is_enabled() { return autograd::tls_inference_mode; }

}  // namespace ember

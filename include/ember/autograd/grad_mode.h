// Grad mode: whether ops record autograd history on this thread. Thread-local, as in LibTorch.
#pragma once

#include "ember/core/macros.h"

namespace ember {

/// The thread's grad mode switch. Ops record history only while it is enabled.
struct EMBER_API GradMode {
  static bool is_enabled();
  static void set_enabled(bool enabled);
};

/// Sets grad mode for a scope and restores the previous mode on exit.
class EMBER_API AutoGradMode {
 public:
  explicit AutoGradMode(bool enabled) : prev_(GradMode::is_enabled()) {
    GradMode::set_enabled(enabled);
  }
  ~AutoGradMode() { GradMode::set_enabled(prev_); }
  AutoGradMode(const AutoGradMode&) = delete;
  AutoGradMode& operator=(const AutoGradMode&) = delete;

 private:
  bool prev_;
};

/// Disables recording for a scope: `{ ember::NoGradGuard g; w -= lr * w.grad(); }`.
class EMBER_API NoGradGuard : public AutoGradMode {
 public:
  NoGradGuard() : AutoGradMode(false) {}
};

/// Inference scope: no recording, and `InferenceMode::is_enabled()` reports it (LibTorch's
/// c10::InferenceMode). Tensors made inside are ordinary tensors; the guard only switches modes.
class EMBER_API InferenceMode {
 public:
  explicit InferenceMode(bool enabled = true);
  ~InferenceMode();
  InferenceMode(const InferenceMode&) = delete;
  InferenceMode& operator=(const InferenceMode&) = delete;
  static bool is_enabled();

 private:
  bool prev_grad_;
  bool prev_inference_;
};

namespace autograd {
using ember::AutoGradMode;
using ember::GradMode;
using ember::InferenceMode;
using ember::NoGradGuard;
}  // namespace autograd

}  // namespace ember

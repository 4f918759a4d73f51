// A tensor as a backend hands it to the wire: the tensor itself when contiguous, else a
// contiguous copy that write_back() copies into the original once the collective is done.
#pragma once

#include "ember/autograd/grad_mode.h"
#include "ember/core/tensor.h"

namespace ember {
namespace distributed {

struct Staged {
  Tensor original;
  Tensor buffer;
  explicit Staged(const Tensor& t) : original(t) {
    NoGradGuard no_grad;
    buffer = t.is_contiguous() ? t : t.contiguous();
  }
  void write_back() const {
    if (buffer.data_ptr() == original.data_ptr() && original.is_contiguous()) return;
    NoGradGuard no_grad;
    original.copy_(buffer);
  }
};

}  // namespace distributed
}  // namespace ember

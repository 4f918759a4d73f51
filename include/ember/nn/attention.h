// torch.nn.attention for C++: the scoped backend guard of scaled_dot_product_attention, and
// (through attention/flex_attention.h) FlexAttention.
//   {
//     ember::nn::attention::sdpa_kernel only_math({SDPBackend::kMath});
//     out = F::scaled_dot_product_attention(q, k, v);   // runs the math composition
//   }                                                   // previous choice restored
// As Python's, a call that no allowed backend can run throws, naming why each was rejected. The
// setting is per thread (Python's flags are global; a C++ program's threads should not steer
// each other's kernels).
#pragma once

#include <initializer_list>
#include <vector>

#include "ember/core/macros.h"
#include "ember/nn/attention/flex_attention.h"
#include "ember/ops/nn_attention.h"

namespace ember::nn::attention {

using ember::SDPBackend;

class EMBER_API sdpa_kernel {
 public:
  sdpa_kernel(std::initializer_list<SDPBackend> backends);
  explicit sdpa_kernel(SDPBackend backend);
  explicit sdpa_kernel(const std::vector<SDPBackend>& backends);
  ~sdpa_kernel();
  sdpa_kernel(const sdpa_kernel&) = delete;
  sdpa_kernel& operator=(const sdpa_kernel&) = delete;

 private:
  unsigned previous_;
};

/// The backends allowed on this thread now.
EMBER_API std::vector<SDPBackend> allowed_sdpa_backends();

}  // namespace ember::nn::attention

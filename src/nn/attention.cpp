// sdpa_kernel: the per-thread set of backends scaled_dot_product_attention may choose from.
#include "ember/nn/attention.h"

#include "src/core/check.h"
#include "src/ops/nn_attention_impl.h"

namespace ember {
namespace detail {

unsigned& sdpa_allowed_bits() {
  thread_local unsigned bits = ~0U;  // every backend
  return bits;
}

}  // namespace detail

namespace nn::attention {
namespace {

unsigned bits_of(const std::vector<SDPBackend>& backends) {
  unsigned bits = 0;
  for (SDPBackend b : backends) {
    EMBER_CHECK_VALUE(b != SDPBackend::error, "sdpa_kernel: SDPBackend::error is not a backend");
    bits |= 1U << static_cast<unsigned>(b);
  }
  return bits;
}

}  // namespace

sdpa_kernel::sdpa_kernel(std::initializer_list<SDPBackend> backends)
    : sdpa_kernel(std::vector<SDPBackend>(backends)) {}

sdpa_kernel::sdpa_kernel(SDPBackend backend) : sdpa_kernel(std::vector<SDPBackend>{backend}) {}

sdpa_kernel::sdpa_kernel(const std::vector<SDPBackend>& backends)
    : previous_(ember::detail::sdpa_allowed_bits()) {
  ember::detail::sdpa_allowed_bits() = bits_of(backends);
}

sdpa_kernel::~sdpa_kernel() { ember::detail::sdpa_allowed_bits() = previous_; }

std::vector<SDPBackend> allowed_sdpa_backends() {
  std::vector<SDPBackend> out;
  for (SDPBackend b :
       {SDPBackend::math, SDPBackend::flash_attention, SDPBackend::efficient_attention,
        SDPBackend::cudnn_attention, SDPBackend::overrideable})
    if ((ember::detail::sdpa_allowed_bits() >> static_cast<unsigned>(b)) & 1U) out.push_back(b);
  return out;
}

}  // namespace nn::attention
}  // namespace ember

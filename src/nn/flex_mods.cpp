// The non-template parts of the ready-made FlexAttention callables (flex_mods.h).
#include "ember/nn/attention/flex_mods.h"

#include <cmath>

#include "ember/ops/factory.h"
#include "src/core/check.h"

namespace ember::nn::attention {

DocumentMask document_mask(const Tensor& document_ids) {
  EMBER_CHECK(document_ids.dim() == 1 && document_ids.scalar_type() == kInt64,
              "document_mask: document_ids must be a 1-D int64 tensor, got {} of {}",
              document_ids.sizes(), to_string(document_ids.scalar_type()));
  Tensor ids = document_ids.detach().to(kCPU).contiguous();
  const int64_t* p = ids.data_ptr<int64_t>();
  return {std::move(ids), p};
}

Tensor alibi_slopes(int64_t heads) {
  EMBER_CHECK(heads >= 1, "alibi_slopes: heads must be positive, got {}", heads);
  Tensor s = empty({heads}, kFloat);
  float* p = s.data_ptr<float>();
  for (int64_t h = 0; h < heads; ++h)
    p[h] = static_cast<float>(std::exp2(-8.0 * static_cast<double>(h + 1) / heads));
  return s;
}

RelativePositionBias relative_position_bias(const Tensor& table) {
  EMBER_CHECK(table.dim() == 2 && table.size(1) % 2 == 1,
              "relative_position_bias: the table must be [heads, 2·max_distance + 1], got {}",
              table.sizes());
  return {Captured(table), (table.size(1) - 1) / 2};
}

}  // namespace ember::nn::attention

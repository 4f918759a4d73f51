// pixel_shuffle, pixel_unshuffle and channel_shuffle: each is a view, a permutation and one copy
// (reshape of the permuted view), so they need no kernel and autograd comes from the view ops.
// Channels-last inputs give channels-last outputs, as PyTorch's.
#include "ember/ops/nn_pad.h"
#include "src/core/check.h"

namespace ember {
namespace {

// The output in the input's memory format when that is channels-last.
Tensor shuffle_keep_format(const Tensor& self, const Tensor& out) {
  if (self.dim() != 4 && self.dim() != 5) return out;
  const MemoryFormat f = self.suggest_memory_format();
  return f == MemoryFormat::Contiguous ? out : out.contiguous(f);
}

// The dims before the last three ([*] of [*, C, H, W]).
DimVector shuffle_leading_dims(const Tensor& self) {
  DimVector lead;
  for (int64_t d = 0; d < self.dim() - 3; ++d) lead.push_back(self.size(d));
  return lead;
}

void shuffle_check_input(const Tensor& self, const char* op) {
  EMBER_CHECK(self.defined(), "{}: input is an undefined tensor. Hint: pass a tensor", op);
  EMBER_CHECK_VALUE(self.dim() >= 3,
                    "{}: expects input to have at least 3 dimensions, but got input {} with {} "
                    "dimension(s)",
                    op, self.sizes(), self.dim());
}

}  // namespace

Tensor pixel_shuffle(const Tensor& self, int64_t upscale_factor) {
  shuffle_check_input(self, "pixel_shuffle");
  const int64_t r = upscale_factor;
  EMBER_CHECK_VALUE(r > 0, "pixel_shuffle: expects a positive upscale_factor, but got {}", r);
  const int64_t n = self.dim();
  const int64_t c = self.size(n - 3), h = self.size(n - 2), w = self.size(n - 1);
  EMBER_CHECK_VALUE(c % (r * r) == 0,
                    "pixel_shuffle: expects its input's 'channel' dimension to be divisible by "
                    "the square of upscale_factor, but input.size(-3)={} is not divisible by {} "
                    "(input {}, upscale_factor {})",
                    c, r * r, self.sizes(), r);
  // [*, C, r, r, H, W] -> [*, C, H, r, W, r] -> [*, C, H·r, W·r]
  DimVector split = shuffle_leading_dims(self);
  const int64_t lead = static_cast<int64_t>(split.size());
  for (int64_t v : {c / (r * r), r, r, h, w}) split.push_back(v);
  DimVector perm;
  for (int64_t i = 0; i < lead; ++i) perm.push_back(i);
  for (int64_t i : {0, 3, 1, 4, 2}) perm.push_back(lead + i);
  DimVector out = shuffle_leading_dims(self);
  for (int64_t v : {c / (r * r), h * r, w * r}) out.push_back(v);
  return shuffle_keep_format(self, self.reshape(split).permute(perm).reshape(out));
}

Tensor pixel_unshuffle(const Tensor& self, int64_t downscale_factor) {
  shuffle_check_input(self, "pixel_unshuffle");
  const int64_t r = downscale_factor;
  EMBER_CHECK_VALUE(r > 0, "pixel_unshuffle: expects a positive downscale_factor, but got {}", r);
  const int64_t n = self.dim();
  const int64_t c = self.size(n - 3), h = self.size(n - 2), w = self.size(n - 1);
  EMBER_CHECK_VALUE(h % r == 0,
                    "pixel_unshuffle: expects height to be divisible by downscale_factor, but "
                    "input.size(-2)={} is not divisible by {} (input {})",
                    h, r, self.sizes());
  EMBER_CHECK_VALUE(w % r == 0,
                    "pixel_unshuffle: expects width to be divisible by downscale_factor, but "
                    "input.size(-1)={} is not divisible by {} (input {})",
                    w, r, self.sizes());
  // [*, C, H/r, r, W/r, r] -> [*, C, r, r, H/r, W/r] -> [*, C·r², H/r, W/r]
  DimVector split = shuffle_leading_dims(self);
  const int64_t lead = static_cast<int64_t>(split.size());
  for (int64_t v : {c, h / r, r, w / r, r}) split.push_back(v);
  DimVector perm;
  for (int64_t i = 0; i < lead; ++i) perm.push_back(i);
  for (int64_t i : {0, 2, 4, 1, 3}) perm.push_back(lead + i);
  DimVector out = shuffle_leading_dims(self);
  for (int64_t v : {c * r * r, h / r, w / r}) out.push_back(v);
  return shuffle_keep_format(self, self.reshape(split).permute(perm).reshape(out));
}

Tensor channel_shuffle(const Tensor& self, int64_t groups) {
  EMBER_CHECK(self.defined(), "channel_shuffle: input is an undefined tensor. Hint: pass a tensor");
  EMBER_CHECK_VALUE(self.dim() > 2,
                    "channel_shuffle: expects input with > 2 dims ([N, C, *]), but got input {}",
                    self.sizes());
  EMBER_CHECK_VALUE(groups > 0,
                    "channel_shuffle: number of groups to divide channels in must be positive, "
                    "but got groups={}",
                    groups);
  const int64_t c = self.size(1);
  EMBER_CHECK_VALUE(c % groups == 0,
                    "channel_shuffle: number of channels must be divisible by groups, but got {} "
                    "channels and {} groups (input {})",
                    c, groups, self.sizes());
  DimVector split{self.size(0), groups, c / groups};
  for (int64_t d = 2; d < self.dim(); ++d) split.push_back(self.size(d));
  return shuffle_keep_format(self, self.reshape(split).transpose(1, 2).reshape(self.sizes()));
}

}  // namespace ember

// MemoryFormat: how an op should lay out the tensor it allocates, as LibTorch's c10::MemoryFormat.
// Ember's tensors are strided, so ChannelsLast is a stride order, not a kind of tensor:
//
//   Tensor nhwc = x.contiguous(MemoryFormat::ChannelsLast);   // x [N, C, H, W], strides of NHWC
//   nhwc.is_contiguous(MemoryFormat::ChannelsLast);           // true
//
// Only contiguous, clone, empty and suggest_memory_format look at it; every other op returns a
// (row-major) contiguous result whatever its input's layout, with the same values.
#pragma once

#include <cstdint>
#include <ostream>
#include <vector>

#include "ember/core/array_ref.h"
#include "ember/core/macros.h"

namespace ember {

enum class MemoryFormat : int8_t {
  Contiguous,      // row-major (the last dim has stride 1)
  Preserve,        // keep the input's format (channels-last stays so, the rest is contiguous)
  ChannelsLast,    // [N, C, H, W] stored as N, H, W, C
  ChannelsLast3d,  // [N, C, D, H, W] stored as N, D, H, W, C
  NumOptions
};

/// MemoryFormat::Contiguous (LibTorch's spelling of "the default").
constexpr MemoryFormat get_contiguous_memory_format() { return MemoryFormat::Contiguous; }

/// Prints "Contiguous", "Preserve", "ChannelsLast" or "ChannelsLast3d".
EMBER_API std::ostream& operator<<(std::ostream& os, MemoryFormat memory_format);

/// Strides of a channels-last tensor of `sizes` (rank 4, or rank 3 without the batch dim): for
/// [N, C, H, W], {H*W*C, 1, W*C, C}. Throws for another rank.
EMBER_API std::vector<int64_t> get_channels_last_strides_2d(IntArrayRef sizes);
/// The same for ChannelsLast3d: rank 5 (or 4 without the batch dim).
EMBER_API std::vector<int64_t> get_channels_last_strides_3d(IntArrayRef sizes);

}  // namespace ember

// The kernel interface behind the `embedding`, `embedding_bag` and `embedding_backward` slots:
// gathers, weighted sums and maxima of table rows, and the scatter-add of their gradients. Every
// pointer (the per-entry and per-bag arrays included) is in the memory of the device the kernel is
// registered for; every index has been range-checked by the caller. Tables and outputs are dense
// rows of d elements of the dtype the kernel is called with.
#pragma once

#include <cstdint>

#include "ember/core/scalar_type.h"

namespace ember {

/// out[k, :] = table[idx[k], :] for k < n.
struct GatherRowsParams {
  const void* table = nullptr;
  int64_t d = 0;
  const int64_t* idx = nullptr;
  int64_t n = 0;
  void* out = nullptr;
};

/// Bags of table rows. Entries are laid out bag by bag: bag b holds entries
/// [bag_start[b], bag_start[b + 1]) (bag_start has bags + 1 values); entry k looks up row idx[k].
/// An empty bag gives zeros (and arg 0). Summed in float32 (float64 for float64).
struct BagSumRowsParams {
  /// sum: out[b, :] = (Σ_k w[k]·table[idx[k], :]) / div[b]; w (per entry, of the table's dtype)
  /// and div (per bag, float64) may be null (all ones).
  /// max: out[b, j] = max_k table[idx[k], j] (the first entry wins ties, NaN only when first) and
  /// arg[b, j] = the row that gave it; w and div are ignored.
  enum class Mode { Sum, Max };
  Mode mode = Mode::Sum;
  const void* table = nullptr;
  int64_t d = 0;
  const int64_t* idx = nullptr;
  const int64_t* bag_start = nullptr;
  int64_t bags = 0;
  const void* w = nullptr;
  const double* div = nullptr;
  void* out = nullptr;
  int64_t* arg = nullptr;  ///< [bags, d], written in Mode::Max only
};

/// accumulate: dst[idx[k], :] += coef[k]·src[src_row[k], :] for k < n; repeated indices add up.
/// Otherwise: dst[idx[k], :] = coef[k]·src[src_row[k], :], and no index repeats.
/// src_row null: k; coef (float64) null: 1. dst and src have the same dtype; the product is
/// formed in float32 (float64 for float64) and rounded once per add.
struct ScatterAddRowsParams {
  void* dst = nullptr;
  int64_t dst_rows = 0, d = 0;
  const void* src = nullptr;
  const int64_t* idx = nullptr;
  const int64_t* src_row = nullptr;
  const double* coef = nullptr;
  int64_t n = 0;
  bool accumulate = true;
};

}  // namespace ember

// The gradient test table: one entry per differentiable public op, saying how to call it on
// float64 inputs and where its inputs may lie. The generic tests (gradcheck_test.cpp) run
// gradcheck on every entry for contiguous, non-contiguous, broadcast and zero-size inputs, and
// gradgradcheck where `gradgrad` is set; the coverage test fails when a differentiable op of
// op_table.h (or of the lists in gradcheck_test.cpp) has no entry.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "ember/ember.h"

struct GradOpInfo {
  std::string name;  // the public op's name; several entries may share one (variants)
  /// Shapes of the inputs for the plain case, e.g. {{3, 4}, {3, 4}}. Broadcast and non-contiguous
  /// variants are derived from these.
  std::vector<std::vector<int64_t>> shapes;
  /// Calls the op on float64 inputs; returns the differentiable output(s).
  std::function<ember::Tensor(const std::vector<ember::Tensor>&)> fn;
  double low = -2, high = 2;  // inputs are uniform in [low, high] (away from kinks and poles)
  bool gradgrad = false;      // also run gradgradcheck
  bool broadcast = true;      // the op broadcasts its inputs: test a broadcast variant
  bool zero_size = true;      // the op accepts zero-size inputs of these ranks
  /// Inputs at these positions get no gradient (indices, masks); they are made by `make_input`.
  std::vector<size_t> non_differentiable;
  /// Makes input i (for non-differentiable inputs, or special domains); null: uniform.
  std::function<ember::Tensor(size_t i, const std::vector<int64_t>& shape)> make_input;
};

/// float64 values uniform in [lo, hi]: an entry's default input, and the base of its own makers.
inline ember::Tensor uniform_double(const std::vector<int64_t>& shape, double lo = -2,
                                    double hi = 2) {
  return ember::empty(shape, ember::kDouble).uniform_(lo, hi);
}

/// An entry for `fn` over inputs of `shapes`, without the broadcast variant.
GradOpInfo grad_op_entry(std::string name, std::vector<std::vector<int64_t>> shapes,
                         std::function<ember::Tensor(const std::vector<ember::Tensor>&)> fn,
                         bool gradgrad = false);

/// Every entry, from all families.
const std::vector<GradOpInfo>& grad_op_infos();

// Each family appends its entries (one file per family, tests/autograd/grad_ops_<family>.cpp).
void add_elementwise_grad_ops(std::vector<GradOpInfo>& ops);
void add_reduction_grad_ops(std::vector<GradOpInfo>& ops);
void add_shape_grad_ops(std::vector<GradOpInfo>& ops);
void add_indexing_grad_ops(std::vector<GradOpInfo>& ops);
void add_linalg_grad_ops(std::vector<GradOpInfo>& ops);

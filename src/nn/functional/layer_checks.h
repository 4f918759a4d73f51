// Argument checks shared by the layer functionals (linear, dropout, embedding, normalization,
// distance). Private to the library. Messages follow "<op>: <what is wrong>: <values>. Hint: ..."
// and name tensors as "[2, 5] float32".
#pragma once

#include <string>

#include "ember/core/tensor.h"
#include "src/core/check.h"

namespace ember::nn::functional::layer {

/// "[2, 5] float32": a tensor's shape and dtype, for messages.
inline std::string describe(const Tensor& t) { return fmt::format("{} {}", t.sizes(), t.dtype()); }

/// Throws naming the op and argument when `t` is undefined.
inline void check_defined(const Tensor& t, const char* op, const char* arg) {
  EMBER_CHECK(t.defined(), "{}: {} is an undefined tensor. Hint: pass a tensor", op, arg);
}

/// Throws a TypeError unless `t` has a floating dtype.
inline void check_floating(const Tensor& t, const char* op, const char* arg) {
  EMBER_CHECK_TYPE(t.is_floating_point(),
                   "{}: {} must have a floating dtype, but got {}. Hint: convert it with "
                   ".to(ember::kFloat)",
                   op, arg, describe(t));
}

/// Throws a ValueError unless p is a probability.
inline void check_probability(double p, const char* op) {
  EMBER_CHECK_VALUE(p >= 0.0 && p <= 1.0,
                    "{}: dropout probability has to be between 0 and 1, but got {}", op, p);
}

}  // namespace ember::nn::functional::layer

// torch::data::transforms::Collation / Collate: transforms that turn a vector of examples into one
// batch object (Stack<> is the usual one).
#pragma once

#include <vector>

#include "ember/data/transforms/base.h"
#include "ember/data/transforms/lambda.h"

namespace ember::data::transforms {

/// A BatchTransform from a vector of T to one T.
template <typename T, typename BatchType = std::vector<T>>
using Collation = BatchTransform<BatchType, T>;

/// A Collation from a function: `Collate<Example<>>([](std::vector<Example<>> v) { ... })`.
template <typename T, typename BatchType = std::vector<T>>
using Collate = BatchLambda<BatchType, T>;

}  // namespace ember::data::transforms

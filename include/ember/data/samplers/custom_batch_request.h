// torch::data::samplers::CustomBatchRequest: the base of batch requests that are not index lists.
#pragma once

#include <cstddef>

#include "ember/core/macros.h"

namespace ember::data::samplers {

/// A batch request that knows how many examples it asks for.
struct EMBER_API CustomBatchRequest {
  virtual ~CustomBatchRequest() = default;
  /// The number of examples requested.
  virtual size_t size() const = 0;
};

}  // namespace ember::data::samplers

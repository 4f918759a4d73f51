// Many small tensors broadcast as a few flat ones (PyTorch's _broadcast_coalesced): DDP sends
// its parameters at construction and its buffers before every forward this way, one collective
// per dtype and device (up to a bucket size) instead of one per tensor.
#pragma once

#include <cstddef>
#include <vector>

#include "ember/core/macros.h"
#include "ember/core/tensor.h"
#include "ember/distributed/process_group.h"

namespace ember {
namespace distributed {

/// PyTorch's bucket size for the coalesced broadcasts of DDP (250 MiB).
constexpr size_t kBroadcastBucketBytes = size_t{250} << 20;

/// Broadcasts `tensors` from group rank `root`, in place on the other ranks: consecutive
/// tensors of one dtype and device are flattened into buckets of up to `bucket_bytes` (a larger
/// tensor goes alone), one broadcast each, at most two in flight, copied back afterwards on
/// every rank (a lone tensor is broadcast in place). Collective: every rank passes tensors of
/// the same dtypes, devices and sizes in the same order. Exported for
/// tests/distributed/broadcast_coalesced_test.cpp.
EMBER_API void broadcast_coalesced(ProcessGroup& group, const std::vector<Tensor>& tensors,
                                   int root, size_t bucket_bytes = kBroadcastBucketBytes);

}  // namespace distributed
}  // namespace ember

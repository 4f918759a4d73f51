// The Gloo group's all-reduce fast path: Gloo's halving-doubling algorithm on a context of its
// own whose pairs are in Gloo's sync mode (blocking socket reads and writes in the calling
// thread), for float, double, int32 and int64 on power-of-two groups.
//
// Why: the default (async) pairs hand every message to Gloo's event-loop thread, and that
// thread busy-polls epoll while the collective's own thread holds the pair's lock (Gloo's
// Pair::handleEvents only try-locks). On a 2-core machine the spinning thread takes the core
// the peer or the lock holder needs: a 721 KiB all-reduce between 2 ranks took 0.5-0.6 ms at
// the median and 4 ms at the 90th percentile (4 ms at the median with each rank pinned to a
// core), against 0.26 / 0.36 ms in sync mode (raw Gloo, 2-core Zen 4 VM).
//
// Safety of blocking writes: both ranks of a halving-doubling step send, then receive. A
// blocking send can only deadlock if it does not fit the socket's empty send buffer, so every
// message stays within the smallest net.core.wmem_max of the group (Gloo asks for a send
// buffer as large as the message, the kernel grants up to twice wmem_max, and the factor 2
// covers the kernel's per-packet bookkeeping); larger tensors are reduced in pieces.
#pragma once

#include <gloo/rendezvous/context.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "ember/core/macros.h"
#include "ember/core/tensor.h"
#include "ember/distributed/process_group.h"
#include "ember/distributed/store.h"

namespace ember {
namespace distributed {

class BlockingAllreduce {
 public:
  /// Connects the sync-mode context beside `async` (on its device) when the whole group can
  /// use it, else null; collective: every rank of the group calls it at group creation and all
  /// reach the same answer. EMBER_GLOO_BLOCKING_MESSAGE_BYTES overrides the message limit
  /// (0 turns the path off); the group takes the smallest of its ranks' limits.
  static std::unique_ptr<BlockingAllreduce> connect(const std::shared_ptr<Store>& store,
                                                    gloo::rendezvous::Context& async, int rank,
                                                    int size, std::chrono::milliseconds timeout);

  /// Whether run() takes this all-reduce (dtype and op only: sizes are cut into pieces).
  static bool accepts(ScalarType dtype, ReduceOp op);

  /// Reduces the contiguous `buffer` in place across the group (AVG as SUM: the caller
  /// divides). Throws what Gloo throws (a peer gone, a timeout).
  void run(const Tensor& buffer, ReduceOp op);

  size_t max_message_bytes() const { return max_message_bytes_; }

 private:
  BlockingAllreduce(std::shared_ptr<gloo::rendezvous::Context> context, size_t max_message_bytes)
      : context_(std::move(context)), max_message_bytes_(max_message_bytes) {}

  std::shared_ptr<gloo::rendezvous::Context> context_;
  size_t max_message_bytes_;
};

/// All-reduces and pieces this process has run on the blocking path (tests check the path was
/// taken).
struct BlockingAllreduceCounts {
  uint64_t calls = 0;
  uint64_t pieces = 0;
};
EMBER_API BlockingAllreduceCounts blocking_allreduce_counts();

}  // namespace distributed
}  // namespace ember

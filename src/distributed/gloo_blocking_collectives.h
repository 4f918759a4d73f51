// The Gloo group's fast path for all-reduce and broadcast: Gloo's halving-doubling all-reduce
// (float, double, int32 and int64) and one-to-all broadcast (any dtype) on a context of their own
// whose pairs are in Gloo's sync mode (blocking socket reads and writes in the calling thread),
// on power-of-two groups.
//
// Why: the default (async) pairs hand every message to Gloo's event-loop thread, and that
// thread busy-polls epoll while the collective's own thread holds the pair's lock (Gloo's
// Pair::handleEvents only try-locks). On a 2-core machine the spinning thread takes the core
// the peer or the lock holder needs: a 721 KiB all-reduce between 2 ranks took 0.5-0.6 ms at
// the median and 4 ms at the 90th percentile (4 ms at the median with each rank pinned to a
// core), against 0.26 / 0.36 ms in sync mode (raw Gloo programs, 2-core Zen 4 VM).
//
// Safety of blocking writes: both ranks of a halving-doubling step send, then receive, and a
// rank writes data on a pair only after the peer's notification that it read the previous
// message, so every data write starts on an empty socket. A blocking send can then only
// deadlock if the message does not fit the socket: every message stays within the group's
// smallest net.core.wmem_max (Gloo asks for a send buffer as large as the message; the kernel
// grants up to twice wmem_max, the slack covering its per-packet bookkeeping) and, where it is
// set, net.ipv4.tcp_notsent_lowat (the kernel holds a write while that much is unsent); larger
// tensors are reduced in pieces. (A write can also find the tail of an earlier broadcast still
// in the socket: its reader drains that whatever it is doing, so the write goes on.) The
// broadcast needs no such bound: each receiver reads its one message, asked for by its
// clear-to-send, so the root's blocking write always has a reader. It runs on 2 ranks, and on
// more for messages up to 64 KiB: its root sends W - 1 copies in turn, Gloo's own broadcast a
// tree of log2 W rounds.
//
// Broadcast, 2 ranks on loopback, 2-core Zen 5 VM (ember_compare_collectives, medians of 7
// repetitions, A/B interleaved twice): 4 B 86-100 -> 43-44 us on these pairs; 721 KiB and 4 MiB
// within the noise (166-351 -> 139-171 us, 0.75-1.24 -> 0.91-0.94 ms). DDP's buffer broadcast
// before each forward (ember_bench_ddp mlp_bn, 2 ranks): 4.2-5.0 -> 3.4-3.6 ms per step.
#pragma once

#include <gloo/rendezvous/context.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "ember/core/macros.h"
#include "ember/core/tensor.h"
#include "ember/distributed/process_group.h"
#include "ember/distributed/store.h"
#include "src/distributed/gloo_contexts.h"

namespace ember {
namespace distributed {

class SlottedContext;

/// The variable that lowers the blocking all-reduce's message limit (0 turns the blocking
/// collectives off, the broadcast too).
constexpr const char* kBlockingMessageBytesVar = "EMBER_GLOO_BLOCKING_MESSAGE_BYTES";

class BlockingCollectives {
 public:
  /// Connects a sync-mode context beside each of `async` (on its device) when the whole group
  /// can use them, else null; collective: every rank of the group calls it at group creation
  /// and all reach the same answer. EMBER_GLOO_BLOCKING_MESSAGE_BYTES lowers the message limit
  /// (0 turns the path off); the group takes the smallest of its ranks' limits. ValueError on
  /// every rank when one rank's setting is not a byte count.
  static std::unique_ptr<BlockingCollectives> connect(const std::shared_ptr<Store>& store,
                                                      const GlooContexts& async, int rank, int size,
                                                      std::chrono::milliseconds timeout);

  /// Whether allreduce() takes an all-reduce of this dtype (any op, AVG as SUM; any size: sizes are
  /// cut into pieces).
  static bool accepts(ScalarType dtype);

  /// Reduces the contiguous `buffer` in place across the group (AVG as SUM: the caller
  /// divides), on the context and slots the collective's `tag` selects. Throws what Gloo
  /// throws (a peer gone, a timeout, calls that do not pair up).
  void allreduce(const Tensor& buffer, ReduceOp op, uint32_t tag);

  /// Whether broadcast() takes a broadcast of `bytes` (every rank gives the same answer).
  bool takes_broadcast(size_t bytes) const;

  /// Broadcasts the contiguous `buffer` (any dtype, not empty) from group rank `root`, on the
  /// context and slots the collective's `tag` selects. Throws what Gloo throws (as allreduce;
  /// ranks that name different roots do not pair up).
  void broadcast(const Tensor& buffer, int root, uint32_t tag);

 private:
  BlockingCollectives(size_t max_message_bytes, int group_size)
      : max_message_bytes_(max_message_bytes), group_size_(group_size) {}

  std::vector<std::shared_ptr<SlottedContext>> contexts_;
  size_t max_message_bytes_;
  int group_size_;
};

/// All-reduces (and their pieces) and broadcasts this process has run on the blocking path (tests
/// check the path was taken).
struct BlockingCounts {
  uint64_t allreduces = 0;
  uint64_t pieces = 0;
  uint64_t broadcasts = 0;
};
EMBER_API BlockingCounts blocking_counts();

/// This process's bound on one blocking message (net.core.wmem_max, tcp_notsent_lowat and
/// EMBER_GLOO_BLOCKING_MESSAGE_BYTES, as it publishes it at group creation): 0 when the blocking
/// collectives are off here. Tests skip what expects the path where it is 0.
EMBER_API size_t blocking_message_limit_here();

}  // namespace distributed
}  // namespace ember

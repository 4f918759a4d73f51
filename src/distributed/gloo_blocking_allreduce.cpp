#include "src/distributed/gloo_blocking_allreduce.h"

#include <gloo/algorithm.h>
#include <gloo/allreduce_halving_doubling.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "ember/core/error.h"
#include "ember/distributed/errors.h"
#include "src/distributed/gloo_store.h"
#include "src/distributed/reduce_functions.h"

namespace ember {
namespace distributed {
namespace {

// Pieces stay moderate even where wmem_max is large: 2-rank all-reduces of 4 MiB ran faster in
// 416 KiB pieces than whole (7.9 against 10.3 ms), and 4 KiB of 1 MiB makes no difference.
constexpr size_t kMaxMessageBytes = size_t{1} << 20;
// Below this the pieces would be latency-bound to the point of uselessness.
constexpr size_t kMinMessageBytes = 64;

std::atomic<uint64_t> g_calls{0};
std::atomic<uint64_t> g_pieces{0};

// The largest send buffer an unprivileged socket may ask for here (0 if unknown).
size_t wmem_max() {
  std::ifstream in("/proc/sys/net/core/wmem_max");
  unsigned long long value = 0;
  return (in >> value) ? static_cast<size_t>(value) : 0;
}

// This rank's bound on one message (0: the path is off here).
size_t local_message_limit() {
  size_t limit = std::min(wmem_max(), kMaxMessageBytes);
  if (const char* value = std::getenv("EMBER_GLOO_BLOCKING_MESSAGE_BYTES")) {
    char* end = nullptr;
    const unsigned long long requested = std::strtoull(value, &end, 10);
    if (end == value || *end != '\0')
      throw ValueError(fmt::format(
          "ProcessGroupGloo: EMBER_GLOO_BLOCKING_MESSAGE_BYTES must be a byte count (0 turns the "
          "blocking all-reduce off), got '{}'",
          value));
    limit = std::min(limit, static_cast<size_t>(requested));
  }
  return limit < kMinMessageBytes ? 0 : limit;
}

template <class T>
void run_typed(const std::shared_ptr<gloo::rendezvous::Context>& context, T* data, int64_t numel,
               ReduceOp op, size_t max_message_bytes) {
  const gloo::ReductionFunction<T> fn(gloo::CUSTOM, in_place_reduce<T>(op));
  // Halving-doubling's largest message is half the piece (a power-of-two group, pieces a
  // multiple of its size).
  const int64_t world = context->size;
  int64_t piece = static_cast<int64_t>(max_message_bytes / sizeof(T)) * 2;
  piece = std::max(world, piece / world * world);
  for (int64_t offset = 0; offset < numel; offset += piece) {
    const int count = static_cast<int>(std::min(piece, numel - offset));
    gloo::AllreduceHalvingDoubling<T> algorithm(context, {data + offset}, count, &fn);
    algorithm.run();
    g_pieces.fetch_add(1, std::memory_order_relaxed);
  }
}

}  // namespace

std::unique_ptr<BlockingAllreduce> BlockingAllreduce::connect(const std::shared_ptr<Store>& store,
                                                              gloo::rendezvous::Context& async,
                                                              int rank, int size,
                                                              std::chrono::milliseconds timeout) {
  // Halving-doubling's message sizes are bounded as above only on power-of-two groups.
  if (size < 2 || (size & (size - 1)) != 0) return nullptr;
  auto prefixed = std::make_shared<PrefixStore>("blocking_allreduce", store);
  prefixed->set(fmt::format("limit_{}", rank), std::to_string(local_message_limit()));
  std::vector<std::string> keys;
  for (int r = 0; r < size; ++r) keys.push_back(fmt::format("limit_{}", r));
  prefixed->wait(keys, timeout);
  size_t limit = kMaxMessageBytes;
  for (const auto& key : keys) {
    const std::vector<uint8_t> bytes = prefixed->get(key);
    limit = std::min<size_t>(limit, std::stoull(std::string(bytes.begin(), bytes.end())));
  }
  if (limit == 0) return nullptr;

  auto context = std::make_shared<gloo::rendezvous::Context>(rank, size);
  context->setTimeout(timeout);
  GlooStore gloo_store(prefixed);
  try {
    context->connectFullMesh(gloo_store, async.getDevice());
    for (int peer = 0; peer < size; ++peer)
      if (peer != rank) context->getPair(peer)->setSync(/*enable=*/true, /*busyPoll=*/false);
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw DistBackendError(fmt::format(
        "ProcessGroupGloo: rank {} of {} could not connect the blocking all-reduce's pairs: {}",
        rank, size, e.what()));
  }
  return std::unique_ptr<BlockingAllreduce>(new BlockingAllreduce(std::move(context), limit));
}

bool BlockingAllreduce::accepts(ScalarType dtype, ReduceOp op) {
  (void)op;  // every ReduceOp: AVG reduces as SUM
  return dtype == kFloat || dtype == kDouble || dtype == kInt || dtype == kLong;
}

void BlockingAllreduce::run(const Tensor& buffer, ReduceOp op) {
  g_calls.fetch_add(1, std::memory_order_relaxed);
  const int64_t n = buffer.numel();
  switch (buffer.scalar_type()) {
    case kFloat:
      return run_typed(context_, buffer.data_ptr<float>(), n, op, max_message_bytes_);
    case kDouble:
      return run_typed(context_, buffer.data_ptr<double>(), n, op, max_message_bytes_);
    case kInt:
      return run_typed(context_, buffer.data_ptr<int32_t>(), n, op, max_message_bytes_);
    case kLong:
      return run_typed(context_, buffer.data_ptr<int64_t>(), n, op, max_message_bytes_);
    default:
      throw TypeError(
          fmt::format("BlockingAllreduce: unexpected dtype {}", to_string(buffer.scalar_type())));
  }
}

BlockingAllreduceCounts blocking_allreduce_counts() {
  return {g_calls.load(std::memory_order_relaxed), g_pieces.load(std::memory_order_relaxed)};
}

}  // namespace distributed
}  // namespace ember

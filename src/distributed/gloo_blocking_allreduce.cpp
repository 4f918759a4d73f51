#include "src/distributed/gloo_blocking_allreduce.h"

#include <gloo/algorithm.h>
#include <gloo/allreduce_halving_doubling.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <string>
#include <utility>
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

// A number from /proc/sys (0 if unreadable).
size_t sysctl_value(const char* path) {
  std::ifstream in(path);
  unsigned long long value = 0;
  return (in >> value) ? static_cast<size_t>(value) : 0;
}

// This rank's bound on one message (0: the path is off here), and the error that turned it off
// (empty if none). A write into a socket goes on while the send buffer has room (up to twice
// wmem_max) and, where tcp_notsent_lowat is set, while less than that is still unsent: a
// message within both never blocks on an empty socket.
std::pair<size_t, std::string> local_message_limit() {
  size_t limit = std::min({sysctl_value("/proc/sys/net/core/wmem_max"),
                           sysctl_value("/proc/sys/net/ipv4/tcp_notsent_lowat"), kMaxMessageBytes});
  if (const char* value = std::getenv("EMBER_GLOO_BLOCKING_MESSAGE_BYTES")) {
    char* end = nullptr;
    const unsigned long long requested = std::strtoull(value, &end, 10);
    if (end == value || *end != '\0')
      return {0, fmt::format("EMBER_GLOO_BLOCKING_MESSAGE_BYTES must be a byte count (0 turns "
                             "the blocking all-reduce off), got '{}'",
                             value)};
    limit = std::min(limit, static_cast<size_t>(requested));
  }
  return {limit < kMinMessageBytes ? 0 : limit, ""};
}

size_t parse_limit(const std::vector<uint8_t>& bytes) {
  const std::string text(bytes.begin(), bytes.end());
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0')
    throw DistBackendError(fmt::format(
        "ProcessGroupGloo: a rank published '{}' as its blocking all-reduce limit", text));
  return static_cast<size_t>(value);
}

}  // namespace

// Gloo's context with the next slot settable: each piece takes its slots from the call's tag
// and the piece's index instead of a running count, so calls that do not pair up across ranks
// (a rank that skipped an empty all-reduce, say) meet unregistered slots and fail (Gloo's read
// finds no buffer), where counted slots would pair the wrong calls silently; and the count
// never overflows Gloo's int.
class SlottedContext final : public gloo::rendezvous::Context {
 public:
  using gloo::rendezvous::Context::Context;
  void set_next_slot(int slot) { slot_ = slot; }
};

namespace {

template <class T>
void run_typed(SlottedContext& context, const std::shared_ptr<gloo::Context>& shared, T* data,
               int64_t numel, ReduceOp op, uint32_t tag, size_t max_message_bytes) {
  const gloo::ReductionFunction<T> fn(gloo::CUSTOM, in_place_reduce<T>(op));
  // Halving-doubling's largest message is half the piece (a power-of-two group, pieces a
  // multiple of its size).
  const int64_t world = context.size;
  int64_t piece = static_cast<int64_t>(max_message_bytes / sizeof(T)) * 2;
  piece = std::max(world, piece / world * world);
  // Halving-doubling takes 2 W (W - 1) slots; the (tag, piece) pairs wrap within Gloo's int.
  const int64_t stride = 2 * world * (world - 1);
  const int64_t span = std::numeric_limits<int>::max() / stride - 1;
  int64_t index = 0;
  for (int64_t offset = 0; offset < numel; offset += piece, ++index) {
    const int count = static_cast<int>(std::min(piece, numel - offset));
    const int64_t key = (static_cast<int64_t>(tag) << 8) + (index & 0xff);
    context.set_next_slot(static_cast<int>(key % span * stride));
    gloo::AllreduceHalvingDoubling<T> algorithm(shared, {data + offset}, count, &fn);
    algorithm.run();
    g_pieces.fetch_add(1, std::memory_order_relaxed);
  }
}

}  // namespace

std::unique_ptr<BlockingAllreduce> BlockingAllreduce::connect(const std::shared_ptr<Store>& store,
                                                              const GlooContexts& async, int rank,
                                                              int size,
                                                              std::chrono::milliseconds timeout) {
  // Halving-doubling's message sizes are bounded as above only on power-of-two groups.
  if (size < 2 || (size & (size - 1)) != 0) return nullptr;
  auto prefixed = std::make_shared<PrefixStore>("blocking_allreduce", store);
  // Published before a bad setting throws, so the other ranks do not wait out the timeout.
  const auto [local, error] = local_message_limit();
  prefixed->set(fmt::format("limit_{}", rank), std::to_string(local));
  if (!error.empty()) throw ValueError("ProcessGroupGloo: " + error);
  std::vector<std::string> keys;
  for (int r = 0; r < size; ++r) keys.push_back(fmt::format("limit_{}", r));
  prefixed->wait(keys, timeout);
  size_t limit = kMaxMessageBytes;
  for (const auto& key : keys) limit = std::min(limit, parse_limit(prefixed->get(key)));
  if (limit == 0) return nullptr;

  std::unique_ptr<BlockingAllreduce> result(new BlockingAllreduce(limit));
  try {
    // One beside each interface's context, on its device: the tags spread the traffic over
    // them as they do the other collectives'.
    for (size_t i = 0; i < async.size(); ++i) {
      auto context = std::make_shared<SlottedContext>(rank, size);
      context->setTimeout(timeout);
      GlooStore gloo_store(std::make_shared<PrefixStore>(fmt::format("context{}", i), prefixed));
      context->connectFullMesh(gloo_store, async[i]->getDevice());
      for (int peer = 0; peer < size; ++peer)
        if (peer != rank) context->getPair(peer)->setSync(/*enable=*/true, /*busyPoll=*/false);
      result->contexts_.push_back(std::move(context));
    }
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw DistBackendError(fmt::format(
        "ProcessGroupGloo: rank {} of {} could not connect the blocking all-reduce's pairs: {}",
        rank, size, e.what()));
  }
  return result;
}

bool BlockingAllreduce::accepts(ScalarType dtype, ReduceOp op) {
  (void)op;  // every ReduceOp: AVG reduces as SUM
  return dtype == kFloat || dtype == kDouble || dtype == kInt || dtype == kLong;
}

void BlockingAllreduce::run(const Tensor& buffer, ReduceOp op, uint32_t tag) {
  g_calls.fetch_add(1, std::memory_order_relaxed);
  const int64_t n = buffer.numel();
  const auto& shared = contexts_[tag % contexts_.size()];
  SlottedContext& context = *shared;
  const size_t limit = max_message_bytes_;
  switch (buffer.scalar_type()) {
    case kFloat:
      return run_typed(context, shared, buffer.data_ptr<float>(), n, op, tag, limit);
    case kDouble:
      return run_typed(context, shared, buffer.data_ptr<double>(), n, op, tag, limit);
    case kInt:
      return run_typed(context, shared, buffer.data_ptr<int32_t>(), n, op, tag, limit);
    case kLong:
      return run_typed(context, shared, buffer.data_ptr<int64_t>(), n, op, tag, limit);
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

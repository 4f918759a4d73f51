#include "src/distributed/gloo_blocking_collectives.h"

#include <gloo/algorithm.h>
#include <gloo/allreduce_halving_doubling.h>
#include <gloo/common/logging.h>
#include <gloo/transport/buffer.h>
#include <gloo/transport/pair.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
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
// Beyond 2 ranks the one-to-all root sends W - 1 whole copies one after another, where Gloo's
// own broadcast (a tree) takes log2 W rounds: it pays only for small messages (latency-bound).
constexpr size_t kMaxOneToAllBytes = 64 << 10;

std::atomic<uint64_t> g_allreduces{0};
std::atomic<uint64_t> g_pieces{0};
std::atomic<uint64_t> g_broadcasts{0};

// What a rank publishes when its EMBER_GLOO_BLOCKING_MESSAGE_BYTES is not a byte count: every
// rank then fails group creation naming it (rather than the others failing later, vaguely).
constexpr const char* kBadSetting = "bad";

// A number from /proc/sys, or `missing` if the file is absent or unreadable.
size_t sysctl_value(const char* path, size_t missing) {
  std::ifstream in(path);
  unsigned long long value = 0;
  return (in >> value) ? static_cast<size_t>(value) : missing;
}

// A plain decimal byte count (no sign, no spaces), or false.
bool parse_bytes(const std::string& text, size_t* out) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return false;
  errno = 0;
  const unsigned long long value = std::strtoull(text.c_str(), nullptr, 10);
  if (errno == ERANGE) return false;
  *out = static_cast<size_t>(value);
  return true;
}

// This rank's bound on one message as it publishes it: a byte count (0: the path is off here),
// or kBadSetting. A write into a socket goes on while the send buffer has room (up to twice
// wmem_max) and, where tcp_notsent_lowat is set (kernels without it have no such hold), while
// less than that is still unsent: a message within both never blocks on an empty socket. An
// unknown wmem_max turns the path off.
std::string local_message_limit() {
  size_t limit = std::min({sysctl_value("/proc/sys/net/core/wmem_max", 0),
                           sysctl_value("/proc/sys/net/ipv4/tcp_notsent_lowat", kMaxMessageBytes),
                           kMaxMessageBytes});
  if (const char* value = std::getenv(kBlockingMessageBytesVar)) {
    size_t requested = 0;
    if (!parse_bytes(value, &requested)) return kBadSetting;
    limit = std::min(limit, requested);
  }
  return std::to_string(limit < kMinMessageBytes ? 0 : limit);
}

size_t parse_limit(int rank, const std::vector<uint8_t>& bytes) {
  const std::string text(bytes.begin(), bytes.end());
  size_t value = 0;
  if (text == kBadSetting)
    throw ValueError(fmt::format(
        "ProcessGroupGloo: rank {}'s {} is not a byte count (0 turns the blocking collectives off)",
        rank, kBlockingMessageBytesVar));
  if (!parse_bytes(text, &value))
    throw DistBackendError(fmt::format(
        "ProcessGroupGloo: rank {} published '{}' as its blocking collectives' limit", rank, text));
  return value;
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

// Calls f with a null pointer of the C++ type of `dtype` when the path takes that dtype (the
// one list both accepts() and allreduce() read); false otherwise.
template <class F>
bool visit_blocking_dtype(ScalarType dtype, F&& f) {
  switch (dtype) {
    case kFloat:
      return f(static_cast<float*>(nullptr)), true;
    case kDouble:
      return f(static_cast<double*>(nullptr)), true;
    case kInt:
      return f(static_cast<int32_t*>(nullptr)), true;
    case kLong:
      return f(static_cast<int64_t*>(nullptr)), true;
    default:
      return false;
  }
}

// The first of the slots of piece `index` of the collective `tag`. Halving-doubling takes
// 2 W (W - 1) slots (a broadcast two); the (tag, piece) pairs wrap within Gloo's int.
int first_slot(const SlottedContext& context, uint32_t tag, int64_t index) {
  const int64_t world = context.size;
  const int64_t stride = 2 * world * (world - 1);
  const int64_t span = std::numeric_limits<int>::max() / stride - 1;
  const int64_t key = (static_cast<int64_t>(tag) << 8) + (index & 0xff);
  return static_cast<int>(key % span * stride);
}

// One-to-all on the sync pairs: each receiver sends a clear-to-send on `slot` and reads the data
// on slot + 1; the root writes to each receiver after its clear-to-send, so its blocking write
// always has a reader. (Gloo's BroadcastOneToAll uses one slot for both: two ranks that each name
// the other as root would read each other's clear-to-send as the data and go on. Here that
// message finds no buffer, and the call fails as calls that do not pair up do.)
void one_to_all(SlottedContext& context, uint8_t* data, size_t bytes, int root, int slot) {
  const int rank = context.rank, size = context.size;
  if (rank != root) {
    char token = 0;
    auto& pair = context.getPair(root);
    const auto clear = pair->createSendBuffer(slot, &token, 1);
    const auto recv = pair->createRecvBuffer(slot + 1, data, bytes);
    clear->send();
    recv->waitRecv();
    clear->waitSend();
    return;
  }
  std::vector<char> tokens(static_cast<size_t>(size));
  std::vector<std::unique_ptr<gloo::transport::Buffer>> clear(tokens.size()), sends(tokens.size());
  for (int peer = 0; peer < size; ++peer) {
    if (peer == rank) continue;
    auto& pair = context.getPair(peer);
    const auto i = static_cast<size_t>(peer);
    clear[i] = pair->createRecvBuffer(slot, &tokens[i], 1);
    sends[i] = pair->createSendBuffer(slot + 1, data, bytes);
  }
  for (int peer = 0; peer < size; ++peer) {
    if (peer == rank) continue;
    clear[static_cast<size_t>(peer)]->waitRecv();
    sends[static_cast<size_t>(peer)]->send();
  }
  for (int peer = 0; peer < size; ++peer)
    if (peer != rank) sends[static_cast<size_t>(peer)]->waitSend();
}

// In sync mode Gloo reads the next message whatever it is for; one for a slot no piece of this
// call registered means the ranks' calls differ (Gloo's own words say nothing of it).
[[noreturn]] void throw_unpaired(const gloo::EnforceNotMet& e) {
  throw std::runtime_error(fmt::format(
      "{} (a message for another call arrived: the ranks' collectives do not pair up, e.g. "
      "different sizes or a call one rank skipped)",
      e.what()));
}

template <class T>
void run_typed(const std::shared_ptr<SlottedContext>& context, T* data, int64_t numel, ReduceOp op,
               uint32_t tag, size_t max_message_bytes) {
  const gloo::ReductionFunction<T> fn(gloo::CUSTOM, in_place_reduce<T>(op));
  // Halving-doubling's largest message is half the piece (a power-of-two group, pieces a
  // multiple of its size).
  const int64_t world = context->size;
  int64_t piece = static_cast<int64_t>(max_message_bytes / sizeof(T)) * 2;
  piece = std::max(world, piece / world * world);
  int64_t index = 0;
  for (int64_t offset = 0; offset < numel; offset += piece, ++index) {
    const int count = static_cast<int>(std::min(piece, numel - offset));
    context->set_next_slot(first_slot(*context, tag, index));
    gloo::AllreduceHalvingDoubling<T> algorithm(context, {data + offset}, count, &fn);
    algorithm.run();
    g_pieces.fetch_add(1, std::memory_order_relaxed);
  }
}

}  // namespace

std::unique_ptr<BlockingCollectives> BlockingCollectives::connect(
    const std::shared_ptr<Store>& store, const GlooContexts& async, int rank, int size,
    std::chrono::milliseconds timeout) {
  // Halving-doubling's message sizes are bounded as above only on power-of-two groups, and
  // each call's slots need room for 256 pieces within Gloo's int (run_typed).
  if (size < 2 || (size & (size - 1)) != 0) return nullptr;
  if (std::numeric_limits<int>::max() / (2 * int64_t{size} * (size - 1)) < 512) return nullptr;
  auto prefixed = std::make_shared<PrefixStore>("blocking_allreduce", store);
  prefixed->set(fmt::format("limit_{}", rank), local_message_limit());
  std::vector<std::string> keys;
  for (int r = 0; r < size; ++r) keys.push_back(fmt::format("limit_{}", r));
  prefixed->wait(keys, timeout);
  size_t limit = kMaxMessageBytes;
  for (int r = 0; r < size; ++r) {
    const size_t published = parse_limit(r, prefixed->get(keys[static_cast<size_t>(r)]));
    limit = std::min(limit, published);
  }
  if (limit == 0) return nullptr;

  std::unique_ptr<BlockingCollectives> result(new BlockingCollectives(limit, size));
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
        "ProcessGroupGloo: rank {} of {} could not connect the blocking collectives' pairs: {}",
        rank, size, e.what()));
  }
  return result;
}

size_t blocking_message_limit_here() {
  size_t value = 0;
  return parse_bytes(local_message_limit(), &value) ? value : 0;
}

bool BlockingCollectives::accepts(ScalarType dtype) {
  return visit_blocking_dtype(dtype, [](auto*) {});
}

void BlockingCollectives::allreduce(const Tensor& buffer, ReduceOp op, uint32_t tag) {
  g_allreduces.fetch_add(1, std::memory_order_relaxed);
  const auto& context = contexts_[tag % contexts_.size()];
  try {
    const bool ran = visit_blocking_dtype(buffer.scalar_type(), [&](auto* type) {
      using T = std::remove_pointer_t<decltype(type)>;
      run_typed(context, buffer.data_ptr<T>(), buffer.numel(), op, tag, max_message_bytes_);
    });
    if (!ran)
      throw TypeError(fmt::format("BlockingCollectives: {} is not one of its all-reduce dtypes",
                                  to_string(buffer.scalar_type())));
  } catch (const gloo::EnforceNotMet& e) {
    throw_unpaired(e);
  }
}

bool BlockingCollectives::takes_broadcast(size_t bytes) const {
  return group_size_ == 2 || bytes <= kMaxOneToAllBytes;
}

void BlockingCollectives::broadcast(const Tensor& buffer, int root, uint32_t tag) {
  g_broadcasts.fetch_add(1, std::memory_order_relaxed);
  const auto& context = contexts_[tag % contexts_.size()];
  try {
    one_to_all(*context, static_cast<uint8_t*>(buffer.data_ptr()), buffer.nbytes(), root,
               first_slot(*context, tag, 0));
  } catch (const gloo::EnforceNotMet& e) {
    throw_unpaired(e);
  }
}

BlockingCounts blocking_counts() {
  return {g_allreduces.load(std::memory_order_relaxed), g_pieces.load(std::memory_order_relaxed),
          g_broadcasts.load(std::memory_order_relaxed)};
}

}  // namespace distributed
}  // namespace ember

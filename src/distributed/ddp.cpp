// DistributedDataParallelImpl: construction (checks across ranks, rank 0's state to everyone,
// the reducer), the work around forward, no_sync.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ember/autograd/grad_mode.h"
#include "ember/distributed/distributed.h"
#include "ember/nn/parallel/distributed.h"
#include "ember/ops/factory.h"
#include "src/distributed/broadcast_coalesced.h"
#include "src/distributed/ddp_reducer.h"

namespace ember {
namespace nn {
namespace parallel {

namespace {

// Per parameter: a name hash, the dtype, the rank and up to 8 sizes (-1 beyond the rank).
constexpr int64_t kMetaWidth = 11;
constexpr int64_t kMaxDims = 8;

int64_t name_hash(const std::string& s) {  // FNV-1a: the same on every rank and build
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return static_cast<int64_t>(h >> 1);
}

std::string shape_of(const int64_t* row) {
  std::vector<int64_t> sizes;
  for (int64_t d = 0; d < std::min(row[2], kMaxDims); ++d) sizes.push_back(row[3 + d]);
  return fmt::format("[{}] {}", fmt::join(sizes, ", "), to_string(static_cast<ScalarType>(row[1])));
}

// Every rank must hold the same parameters (names, shapes, dtypes) before rank 0's values are
// broadcast over them; each rank learns every rank's list, so all of them report the mismatch.
void verify_same_parameters(distributed::ProcessGroup& group,
                            const OrderedDict<std::string, Tensor>& named, Device device) {
  const int world = group.size();
  const int64_t n = static_cast<int64_t>(named.size());
  Tensor count = full({1}, n, TensorOptions().dtype(kLong).device(device));
  Tensor counts = empty({world}, TensorOptions().dtype(kLong).device(device));
  group.allgather_into_tensor(counts, count)->wait();
  counts = counts.to(kCPU);
  for (int r = 0; r < world; ++r)
    if (counts.data_ptr<int64_t>()[r] != n)
      throw ValueError(fmt::format(
          "DistributedDataParallel: rank {} has {} parameters but rank {} has {}; every rank must "
          "wrap the same model",
          r, counts.data_ptr<int64_t>()[r], group.rank(), n));
  if (n == 0) return;
  Tensor meta = full({n, kMetaWidth}, int64_t{-1}, TensorOptions().dtype(kLong));
  int64_t* m = meta.data_ptr<int64_t>();
  int64_t i = 0;
  for (const auto& item : named) {
    const Tensor& p = item.value();
    int64_t* row = m + i * kMetaWidth;
    row[0] = name_hash(item.key());
    row[1] = static_cast<int64_t>(p.scalar_type());
    row[2] = p.dim();
    for (int64_t d = 0; d < std::min<int64_t>(p.dim(), kMaxDims); ++d) row[3 + d] = p.size(d);
    ++i;
  }
  Tensor all = empty({world, n, kMetaWidth}, TensorOptions().dtype(kLong).device(device));
  group.allgather_into_tensor(all, meta.to(device))->wait();
  all = all.to(kCPU);
  const int64_t* a = all.data_ptr<int64_t>();
  for (int r = 1; r < world; ++r) {
    i = 0;
    for (const auto& item : named) {
      const int64_t* r0 = a + i * kMetaWidth;
      const int64_t* rr = a + (r * n + i) * kMetaWidth;
      if (!std::equal(r0, r0 + kMetaWidth, rr)) {
        if (r0[0] != rr[0])
          throw ValueError(fmt::format(
              "DistributedDataParallel: parameter {} ('{}' here) has a different name on rank "
              "{} than on rank 0; every rank must wrap the same model",
              i, item.key(), r));
        throw ValueError(fmt::format(
            "DistributedDataParallel: parameter '{}' is {} on rank {} but {} on rank 0; every "
            "rank must wrap the same model",
            item.key(), shape_of(rr), r, shape_of(r0)));
      }
      ++i;
    }
  }
}

}  // namespace

NoSyncGuard::NoSyncGuard(std::shared_ptr<detail::Reducer> reducer) : reducer_(std::move(reducer)) {
  previous_ = reducer_->sync();
  reducer_->set_sync(false);
}

NoSyncGuard::~NoSyncGuard() {
  if (reducer_) reducer_->set_sync(previous_);
}

NoSyncGuard::NoSyncGuard(NoSyncGuard&& other) noexcept
    : reducer_(std::move(other.reducer_)), previous_(other.previous_) {}

DistributedDataParallelImpl::DistributedDataParallelImpl(AnyModule module,
                                                         DistributedDataParallelOptions options,
                                                         int)
    : Module("DistributedDataParallel"), module_(std::move(module)), options_(std::move(options)) {
  if (module_.is_empty()) throw ValueError("DistributedDataParallel: the module is empty");
  if (!(options_.bucket_cap_mb() > 0))
    throw ValueError(fmt::format("DistributedDataParallel: bucket_cap_mb must be positive, got {}",
                                 options_.bucket_cap_mb()));
  group_ = options_.process_group() ? options_.process_group() : distributed::group_world();
  if (!group_)
    throw distributed::DistError(
        "DistributedDataParallel: the default process group is not initialized. Hint: call "
        "ember::distributed::init_process_group first, or pass process_group in the options");
  if (group_->rank() < 0)
    throw distributed::DistError(
        "DistributedDataParallel: this process is not a member of the given process group");
  register_module("module", module_.ptr());

  const auto named = module_.ptr()->named_parameters();
  verify_same_parameters(*group_, named, group_->tensor_device());
  // Rank 0's parameters and buffers to every rank.
  {
    std::vector<Tensor> state;
    for (const auto& item : named) state.push_back(item.value());
    for (const auto& b : module_.ptr()->buffers()) state.push_back(b);
    distributed::broadcast_coalesced(*group_, state, 0);
  }
  std::vector<Tensor> params;
  std::vector<std::string> names;
  for (const auto& item : named) {
    if (!item.value().requires_grad()) continue;
    params.push_back(item.value());
    names.push_back(item.key());
  }
  reducer_ =
      std::make_shared<detail::Reducer>(std::move(params), std::move(names), group_, options_);
  reducer_->install_hooks();
}

DistributedDataParallelImpl::~DistributedDataParallelImpl() = default;

void DistributedDataParallelImpl::pre_forward() {
  reducer_->prepare_for_forward();
  if (GradMode::is_enabled() && reducer_->sync()) reducer_->maybe_rebuild_buckets();
  if (options_.broadcast_buffers() && require_forward_param_sync_ && group_->size() > 1)
    distributed::broadcast_coalesced(*group_, module_.ptr()->buffers(), 0);
}

void DistributedDataParallelImpl::post_forward(const std::vector<Tensor>& outputs) {
  if (GradMode::is_enabled() && reducer_->sync()) {
    require_forward_param_sync_ = true;
    reducer_->prepare_for_backward(outputs);
  } else {
    require_forward_param_sync_ = false;
  }
}

NoSyncGuard DistributedDataParallelImpl::no_sync() { return NoSyncGuard(reducer_); }

void DistributedDataParallelImpl::register_comm_hook(CommHook hook) {
  reducer_->set_comm_hook(std::move(hook));
}

std::vector<std::vector<std::string>> DistributedDataParallelImpl::bucket_parameter_names() const {
  return reducer_->bucket_names();
}

void DistributedDataParallelImpl::pretty_print(std::ostream& stream) const {
  stream << "DistributedDataParallel";
}

}  // namespace parallel
}  // namespace nn
}  // namespace ember

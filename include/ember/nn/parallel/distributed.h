// DistributedDataParallel: data-parallel training over a process group (Python's
// torch.nn.parallel.DistributedDataParallel, which LibTorch's C++ lacks). In libember_distributed
// (link Ember::distributed).
//
//   dist::init_process_group("gloo", "env://");
//   nn::parallel::DistributedDataParallel ddp(
//       model, nn::parallel::DistributedDataParallelOptions().bucket_cap_mb(25));
//   optim::SGD opt(ddp->parameters(), 0.1);
//   auto loss = F::cross_entropy(ddp(x), y);   // this rank's shard of the batch
//   loss.backward();                           // gradients averaged over the ranks
//   opt.step();
//
// At construction rank 0's parameters and buffers are broadcast to every rank, after checking
// that every rank's parameters have the same names, shapes and dtypes. Gradients are gathered
// into buckets (bucket_cap_mb each, the first one 1 MiB so communication starts early), in the
// reverse order of the parameters (roughly the order backward produces them); each bucket's
// all-reduce starts as soon as its last gradient is accumulated, on the group's thread, while
// backward goes on. After the first iteration the buckets are rebuilt once in the order the
// gradients actually arrived (rank 0's order, for every rank). As in Python, every rank calls
// forward alike (a forward may broadcast buffers); evaluate one rank alone through module().
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "ember/core/arg.h"
#include "ember/distributed/process_group.h"
#include "ember/nn/module.h"
#include "ember/nn/modules/container/any.h"
#include "ember/nn/pimpl.h"

namespace ember {
namespace nn {
namespace parallel {

struct DistributedDataParallelOptions {
  /// Bucket size in MiB (Python's default 25).
  EMBER_ARG(double, bucket_cap_mb) = 25;
  /// Broadcast rank 0's buffers (running statistics) before each forward.
  EMBER_ARG(bool, broadcast_buffers) = true;
  /// Find the parameters the forward did not use (walking the output's graph), so their
  /// buckets do not wait for gradients that never come.
  EMBER_ARG(bool, find_unused_parameters) = false;
  /// Make each parameter's .grad a view into its bucket, saving a copy each way.
  EMBER_ARG(bool, gradient_as_bucket_view) = false;
  /// The graph is the same every iteration: the parameters the first iteration left unused
  /// are taken as unused in every later one, without walking the graph again.
  EMBER_ARG(bool, static_graph) = false;
  /// The group to reduce over (the default group when null).
  EMBER_ARG(distributed::ProcessGroupPtr, process_group) = nullptr;
};

/// One bucket of gradients, as a communication hook sees it (Python's GradBucket).
class EMBER_API GradBucket {
 public:
  GradBucket(size_t index, bool is_last, Tensor buffer, std::vector<Tensor> parameters,
             std::vector<Tensor> gradients)
      : index_(index),
        is_last_(is_last),
        buffer_(std::move(buffer)),
        parameters_(std::move(parameters)),
        gradients_(std::move(gradients)) {}
  size_t index() const { return index_; }
  bool is_last() const { return is_last_; }
  /// The bucket's gradients, flattened into one tensor (reduce it, in place or not).
  const Tensor& buffer() const { return buffer_; }
  /// The bucket's parameters, and their gradients as views of buffer().
  const std::vector<Tensor>& parameters() const { return parameters_; }
  const std::vector<Tensor>& gradients() const { return gradients_; }

 private:
  size_t index_;
  bool is_last_;
  Tensor buffer_;
  std::vector<Tensor> parameters_;
  std::vector<Tensor> gradients_;
};

/// A communication hook: starts the reduction of a bucket and returns its Work; once waited,
/// the Work's result()[0] holds the reduced bucket (the buffer itself, or a tensor DDP copies
/// into it). Python's register_comm_hook(state, hook): state is whatever the callable captures.
using CommHook =
    std::function<distributed::WorkPtr(distributed::ProcessGroup& group, GradBucket& bucket)>;

/// The built-in hooks (Python's ddp_comm_hooks.default_hooks).
namespace comm_hooks {
/// The default: divide by the group size, all-reduce (sum).
EMBER_API distributed::WorkPtr allreduce_hook(distributed::ProcessGroup& group, GradBucket& bucket);
/// All-reduce in float16 (half the bytes), back to the bucket's dtype afterwards.
EMBER_API distributed::WorkPtr fp16_compress_hook(distributed::ProcessGroup& group,
                                                  GradBucket& bucket);
/// The same in bfloat16.
EMBER_API distributed::WorkPtr bf16_compress_hook(distributed::ProcessGroup& group,
                                                  GradBucket& bucket);
}  // namespace comm_hooks

namespace detail {
class Reducer;
}

class DistributedDataParallelImpl;

/// While alive, backward accumulates gradients locally without communicating (Python's
/// `with ddp.no_sync():`); the first backward after it reduces the accumulated gradients.
class EMBER_API NoSyncGuard {
 public:
  explicit NoSyncGuard(std::shared_ptr<detail::Reducer> reducer);
  ~NoSyncGuard();
  NoSyncGuard(NoSyncGuard&& other) noexcept;
  NoSyncGuard(const NoSyncGuard&) = delete;
  NoSyncGuard& operator=(const NoSyncGuard&) = delete;
  NoSyncGuard& operator=(NoSyncGuard&&) = delete;

 private:
  std::shared_ptr<detail::Reducer> reducer_;
  bool previous_ = true;
};

class EMBER_API DistributedDataParallelImpl : public Module {
 public:
  /// Wraps `module` (a module holder, a shared_ptr to a module, or an AnyModule).
  template <typename M>
  explicit DistributedDataParallelImpl(M module, DistributedDataParallelOptions options = {})
      : DistributedDataParallelImpl(AnyModule(std::move(module)), std::move(options), 0) {}
  DistributedDataParallelImpl(AnyModule module, DistributedDataParallelOptions options, int);
  ~DistributedDataParallelImpl() override;

  /// The wrapped module's forward, with DDP's work before (buffers, bucket rebuild, checks)
  /// and after it (the unused parameters, when asked to find them).
  template <typename R = Tensor, typename... Args>
  R forward(Args&&... args) {
    pre_forward();
    R out = module_.forward<R>(std::forward<Args>(args)...);
    std::vector<Tensor> outputs;
    collect_tensors(out, outputs);
    post_forward(outputs);
    return out;
  }

  /// The wrapped module.
  const std::shared_ptr<Module>& module() const { return module_.ptr(); }
  template <typename T>
  std::shared_ptr<T> module() const {
    return module_.ptr<T>();
  }
  const DistributedDataParallelOptions& options() const { return options_; }
  const distributed::ProcessGroupPtr& process_group() const { return group_; }

  /// `auto guard = ddp->no_sync();` skips gradient communication while guard lives.
  NoSyncGuard no_sync();
  /// Replaces the bucket reduction (before the first backward), as Python's register_comm_hook.
  void register_comm_hook(CommHook hook);

  /// The number of buckets and the parameter names in each, for tests and logs.
  std::vector<std::vector<std::string>> bucket_parameter_names() const;

  void pretty_print(std::ostream& stream) const override;

 private:
  void pre_forward();
  void post_forward(const std::vector<Tensor>& outputs);
  static void collect_tensors(const Tensor& t, std::vector<Tensor>& out) { out.push_back(t); }
  static void collect_tensors(const std::vector<Tensor>& v, std::vector<Tensor>& out) {
    out.insert(out.end(), v.begin(), v.end());
  }
  template <typename... Ts>
  static void collect_tensors(const std::tuple<Ts...>& t, std::vector<Tensor>& out) {
    std::apply([&](const auto&... e) { (collect_tensors(e, out), ...); }, t);
  }
  template <typename T>
  static void collect_tensors(const T&, std::vector<Tensor>&) {}

  AnyModule module_;
  DistributedDataParallelOptions options_;
  distributed::ProcessGroupPtr group_;
  std::shared_ptr<detail::Reducer> reducer_;
  bool require_forward_param_sync_ = true;  // Python's: buffers sync before the next forward
};

EMBER_MODULE(DistributedDataParallel);

}  // namespace parallel
}  // namespace nn
}  // namespace ember

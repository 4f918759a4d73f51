#include "src/distributed/ddp_reducer.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <unordered_map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ember/autograd/grad_mode.h"
#include "ember/autograd/node.h"
#include "ember/ops/factory.h"

namespace ember {
namespace nn {
namespace parallel {
namespace detail {

namespace {

// Python's dist._DEFAULT_FIRST_BUCKET_BYTES: a small first bucket starts communication early.
constexpr int64_t kFirstBucketBytes = 1024 * 1024;

}  // namespace

Reducer::Reducer(std::vector<Tensor> params, std::vector<std::string> names,
                 distributed::ProcessGroupPtr group, const DistributedDataParallelOptions& options)
    : params_(std::move(params)),
      names_(std::move(names)),
      group_(std::move(group)),
      options_(options),
      ready_(params_.size(), 0),
      locally_used_(params_.size(), 0) {
  // Gradients arrive roughly in the reverse order of the parameters.
  std::vector<size_t> order(params_.size());
  std::iota(order.rbegin(), order.rend(), size_t{0});
  build_buckets(order);
}

Reducer::~Reducer() {
  for (size_t i = 0; i < params_.size() && i < hook_handles_.size(); ++i)
    params_[i].remove_hook(hook_handles_[i]);
}

void Reducer::install_hooks() {
  std::weak_ptr<Reducer> weak = weak_from_this();
  for (size_t i = 0; i < params_.size(); ++i) {
    hook_handles_.push_back(params_[i].register_post_accumulate_grad_hook([weak, i](const Tensor&) {
      if (auto self = weak.lock()) self->on_grad_ready(i);
    }));
  }
}

void Reducer::build_buckets(const std::vector<size_t>& order) {
  const int64_t cap =
      std::max<int64_t>(1, static_cast<int64_t>(options_.bucket_cap_mb() * 1024.0 * 1024.0));
  // Buckets fill per dtype, in `order`; the first bucket of each dtype is the small one.
  struct Open {
    std::vector<size_t> params;
    int64_t bytes = 0;
    bool first = true;
  };
  std::map<std::pair<int, std::string>, Open> open;  // per (dtype, device)
  std::vector<std::vector<size_t>> closed;
  for (size_t i : order) {
    const Tensor& p = params_[i];
    auto& o = open[{static_cast<int>(p.scalar_type()), p.device().str()}];
    o.params.push_back(i);
    o.bytes += p.numel() * p.element_size();
    if (o.bytes >= (o.first ? std::min(kFirstBucketBytes, cap) : cap)) {
      closed.push_back(std::move(o.params));
      o = Open{{}, 0, false};
    }
  }
  for (auto& [dtype, o] : open)
    if (!o.params.empty()) closed.push_back(std::move(o.params));
  // Bucket index order: by the position of each bucket's first parameter in `order`.
  std::vector<size_t> position(params_.size());
  for (size_t k = 0; k < order.size(); ++k) position[order[k]] = k;
  std::sort(closed.begin(), closed.end(), [&](const auto& a, const auto& b) {
    return position[a.front()] < position[b.front()];
  });

  NoGradGuard no_grad;
  std::vector<Bucket> buckets;
  bucket_of_.assign(params_.size(), 0);
  grad_views_.assign(params_.size(), Tensor());
  for (auto& members : closed) {
    Bucket b;
    b.dtype = params_[members.front()].scalar_type();
    int64_t total = 0;
    for (size_t i : members) total += params_[i].numel();
    b.buffer =
        zeros({total}, TensorOptions().dtype(b.dtype).device(params_[members.front()].device()));
    int64_t offset = 0;
    for (size_t i : members) {
      const Tensor& p = params_[i];
      grad_views_[i] = b.buffer.narrow(0, offset, p.numel()).view(p.sizes());
      offset += p.numel();
      bucket_of_[i] = buckets.size();
      if (options_.gradient_as_bucket_view() && p.grad().defined()) {
        grad_views_[i].copy_(p.grad());
        p.mutable_grad() = grad_views_[i];
      }
    }
    b.params = std::move(members);
    buckets.push_back(std::move(b));
  }
  buckets_ = std::move(buckets);
}

void Reducer::set_comm_hook(CommHook hook) {
  if (iterations_ > 0 || armed_)
    throw Error(
        "DistributedDataParallel.register_comm_hook: register the hook before the first "
        "backward");
  if (comm_hook_)
    throw Error("DistributedDataParallel.register_comm_hook: a hook is already registered");
  comm_hook_ = std::move(hook);
}

std::vector<std::vector<std::string>> Reducer::bucket_names() const {
  std::vector<std::vector<std::string>> out;
  for (const auto& b : buckets_) {
    out.emplace_back();
    for (size_t i : b.params) out.back().push_back(names_[i]);
  }
  return out;
}

std::string Reducer::unready_names() const {
  std::vector<std::string> missing;
  for (size_t i = 0; i < params_.size(); ++i)
    if (!ready_[i]) missing.push_back(names_[i]);
  return fmt::format("{}", fmt::join(missing, ", "));
}

void Reducer::prepare_for_forward() {
  if (armed_ && std::any_of(ready_.begin(), ready_.end(), [](char r) { return r != 0; }))
    throw Error(fmt::format(
        "DistributedDataParallel: the previous iteration's gradient reduction did not finish "
        "(expected to have finished reduction in the prior iteration before starting a new "
        "one): these parameters received no gradient: [{}]. Hint: construct DDP with "
        "find_unused_parameters(true) when the forward does not use every parameter, and make "
        "every forward output take part in the loss",
        unready_names()));
  armed_ = false;
}

void Reducer::maybe_rebuild_buckets() {
  // Rebuild once, after the first full iteration, in the order gradients arrived there. Every
  // rank takes rank 0's order, so the buckets agree. Called only for forwards that will sync
  // (grad mode on, no no_sync), as Python's, so that a forward one rank alone makes (an
  // evaluation under NoGradGuard) issues no collective the others do not.
  if (!rebuilt_ && iterations_ >= 1 && !ready_order_.empty()) {
    rebuilt_ = true;
    std::vector<size_t> order = ready_order_;
    std::vector<char> seen(params_.size(), 0);
    for (size_t i : order) seen[i] = 1;
    for (size_t i = params_.size(); i-- > 0;)
      if (!seen[i]) order.push_back(i);
    Tensor wire = empty({static_cast<int64_t>(order.size())}, TensorOptions().dtype(kLong));
    for (size_t k = 0; k < order.size(); ++k)
      wire.data_ptr<int64_t>()[k] = static_cast<int64_t>(order[k]);
    Tensor sent = wire.to(group_->tensor_device());
    group_->broadcast(sent, 0)->wait();
    wire = sent.to(kCPU);
    for (size_t k = 0; k < order.size(); ++k)
      order[k] = static_cast<size_t>(wire.data_ptr<int64_t>()[k]);
    build_buckets(order);
  }
}

void Reducer::reset_iteration() {
  std::fill(ready_.begin(), ready_.end(), 0);
  std::fill(locally_used_.begin(), locally_used_.end(), 0);
  for (auto& b : buckets_) {
    b.pending = b.params.size();
    b.work.reset();
  }
  next_bucket_ = 0;
  marked_unused_ = false;
  unused_.clear();
}

void Reducer::prepare_for_backward(const std::vector<Tensor>& outputs) {
  reset_iteration();
  armed_ = true;
  // static_graph: the first iteration's unused parameters stand for every iteration (Python's
  // static_graph also finds them once, with or without find_unused_parameters).
  if (options_.static_graph() && iterations_ > 0) {
    unused_ = static_unused_;
    return;
  }
  if (!options_.find_unused_parameters() && !options_.static_graph()) return;
  // Every node the outputs' graph reaches; a parameter whose gradient accumulator is not among
  // them gets no gradient from this backward.
  std::unordered_set<const autograd::Node*> reached;
  std::vector<const autograd::Node*> stack;
  for (const auto& out : outputs)
    if (out.defined() && out.grad_fn()) stack.push_back(out.grad_fn().get());
  while (!stack.empty()) {
    const autograd::Node* n = stack.back();
    stack.pop_back();
    if (!reached.insert(n).second) continue;
    for (const auto& e : n->next_edges())
      if (e.function) stack.push_back(e.function.get());
  }
  AutoGradMode grad_on(true);
  for (size_t i = 0; i < params_.size(); ++i) {
    // A view of the leaf records an edge to the leaf's accumulator: the same node the graph
    // holds when the forward used the parameter.
    Tensor probe = params_[i].view_as(params_[i]);
    const auto& fn = probe.grad_fn();
    const autograd::Node* acc =
        fn && fn->num_outputs() > 0 ? fn->next_edge(0).function.get() : nullptr;
    if (!acc || !reached.count(acc)) unused_.push_back(i);
  }
  if (options_.static_graph()) static_unused_ = unused_;
}

void Reducer::on_grad_ready(size_t index) {
  if (!armed_ || !sync_) return;
  try {
    // The unused parameters are marked at the first gradient of the backward, not at forward,
    // so no bucket's reduction starts before backward does on this rank.
    if (!marked_unused_) {
      marked_unused_ = true;
      for (size_t i : unused_) mark_ready(i);
    }
    locally_used_[index] = 1;
    mark_ready(index);
  } catch (...) {
    // A failed reduction (a peer gone, a timeout) ends this iteration: the next forward starts
    // afresh instead of reporting parameters that "received no gradient".
    armed_ = false;
    std::fill(ready_.begin(), ready_.end(), 0);
    throw;
  }
}

void Reducer::mark_ready(size_t index) {
  if (ready_[index])
    throw Error(fmt::format(
        "DistributedDataParallel: parameter '{}' got a gradient twice in one backward (expected "
        "to mark a variable ready only once). Hint: a parameter used in two backward passes "
        "per forward needs no_sync() around the extra pass",
        names_[index]));
  ready_[index] = 1;
  if (iterations_ == 0 && !rebuilt_) ready_order_.push_back(index);
  {
    NoGradGuard no_grad;
    Tensor& view = grad_views_[index];
    const Tensor& param = params_[index];
    const Tensor& grad = param.grad();
    if (!grad.defined()) {
      view.zero_();  // unused here: this rank contributes nothing
    } else if (options_.gradient_as_bucket_view()) {
      if (grad.data_ptr() != view.data_ptr()) {
        view.copy_(grad);
        param.mutable_grad() = view;
      }
    } else {
      view.copy_(grad);
    }
  }
  Bucket& b = buckets_[bucket_of_[index]];
  if (--b.pending == 0) launch_ready_buckets();
}

void Reducer::launch_ready_buckets() {
  while (next_bucket_ < buckets_.size() && buckets_[next_bucket_].pending == 0) {
    Bucket& b = buckets_[next_bucket_];
    std::vector<Tensor> params, grads;
    for (size_t i : b.params) {
      params.push_back(params_[i]);
      grads.push_back(grad_views_[i]);
    }
    GradBucket gb(next_bucket_, next_bucket_ + 1 == buckets_.size(), b.buffer, params, grads);
    b.work = comm_hook_ ? comm_hook_(*group_, gb) : comm_hooks::allreduce_hook(*group_, gb);
    if (!b.work)
      throw Error(fmt::format(
          "DistributedDataParallel: the communication hook returned no Work for bucket {}",
          next_bucket_));
    ++next_bucket_;
  }
  if (next_bucket_ == buckets_.size()) finalize();
}

void Reducer::finalize() {
  armed_ = false;
  // With unused parameters: which ones some rank used (a parameter no rank used keeps .grad).
  std::vector<char> globally_used(params_.size(), 1);
  if (options_.find_unused_parameters() || (options_.static_graph() && iterations_ == 0)) {
    Tensor used = empty({static_cast<int64_t>(params_.size())}, TensorOptions().dtype(kInt));
    for (size_t i = 0; i < params_.size(); ++i) used.data_ptr<int32_t>()[i] = locally_used_[i];
    Tensor sent = used.to(group_->tensor_device());
    group_->allreduce(sent, distributed::ReduceOp::MAX)->wait();
    used = sent.to(kCPU);
    for (size_t i = 0; i < params_.size(); ++i) globally_used[i] = used.data_ptr<int32_t>()[i] != 0;
    if (options_.static_graph()) static_globally_used_ = globally_used;
  } else if (options_.static_graph()) {
    globally_used = static_globally_used_;
  }
  NoGradGuard no_grad;
  for (auto& b : buckets_) {
    b.work->wait();
    auto result = b.work->result();
    if (!result.empty() && result[0].defined() && result[0].data_ptr() != b.buffer.data_ptr())
      b.buffer.copy_(result[0].reshape({b.buffer.numel()}));
    b.work.reset();
  }
  for (size_t i = 0; i < params_.size(); ++i) {
    if (!globally_used[i]) continue;
    const Tensor& param = params_[i];
    const Tensor& grad = param.grad();
    if (options_.gradient_as_bucket_view()) {
      if (!grad.defined() || grad.data_ptr() != grad_views_[i].data_ptr())
        param.mutable_grad() = grad_views_[i];
    } else if (grad.defined()) {
      param.grad().copy_(grad_views_[i]);
    } else {
      param.mutable_grad() = grad_views_[i].clone();
    }
  }
  ++iterations_;
}

}  // namespace detail
}  // namespace parallel
}  // namespace nn
}  // namespace ember

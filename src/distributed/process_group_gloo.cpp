// The Gloo backend: ProcessGroup's collectives on Gloo's TCP transport (Debian's libgloo-dev).
//
// Arguments are checked on the caller's thread, so a wrong call throws at once; the collective
// itself runs on the group's own thread, in the order of the calls, which is the order every
// rank must issue them in (Gloo pairs messages by the tag each call takes from a counter).
// Non-contiguous tensors go through a contiguous copy that is written back afterwards.
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/alltoall.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/common/error.h>
#include <gloo/gather.h>
#include <gloo/reduce.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/store.h>
#include <gloo/scatter.h>
#include <gloo/transport/unbound_buffer.h>

#include "ember/autograd/grad_mode.h"
#include "ember/distributed/process_group.h"
#include "ember/ops/factory.h"
#include "kernels/common/visit_width.h"
#include "src/distributed/gloo_blocking_collectives.h"
#include "src/distributed/gloo_contexts.h"
#include "src/distributed/gloo_p2p_work.h"
#include "src/distributed/reduce_functions.h"
#include "src/distributed/staged.h"

namespace ember {
namespace distributed {

ProcessGroup::~ProcessGroup() = default;

namespace {

// All-reduces up to this size use Gloo's bcube algorithm, larger ones its ring (run_allreduce).
constexpr size_t kBcubeMaxBytes = size_t{4} << 20;

std::string describe(const Tensor& t) {
  return fmt::format("[{}] {}", fmt::join(t.sizes(), ", "), to_string(t.scalar_type()));
}

template <class T>
T* ptr_as(const Tensor& t) {
  return static_cast<T*>(t.data_ptr());
}

class ProcessGroupGloo final : public ProcessGroup {
 public:
  ProcessGroupGloo(std::shared_ptr<Store> store, int rank, int size, std::vector<int> global_ranks,
                   std::chrono::milliseconds timeout, const std::string& hostname)
      : ProcessGroup(rank, size, std::move(global_ranks)),
        timeout_(timeout),
        contexts_(connect_gloo_contexts(store, rank, size, timeout, hostname)),
        blocking_(BlockingCollectives::connect(store, contexts_, rank, size, timeout)) {
    worker_ = std::thread([this] { run_worker(); });
  }

  ~ProcessGroupGloo() override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    queue_cv_.notify_all();
    if (worker_.joinable()) worker_.join();
  }

  std::string backend_name() const override { return "gloo"; }

  WorkPtr allreduce(const Tensor& tensor, ReduceOp op) override {
    const char* name = "all_reduce";
    check_tensor(name, tensor);
    check_reduce_op(name, tensor, op);
    Staged s(tensor);
    return enqueue(name, [this, s, op](uint32_t tag) {
      run_allreduce(s.buffer, op, tag);
      s.write_back();
      return std::vector<Tensor>{s.original};
    });
  }

  WorkPtr broadcast(const Tensor& tensor, int root) override {
    const char* name = "broadcast";
    check_tensor(name, tensor);
    check_rank(name, "src", root);
    Staged s(tensor);
    return enqueue(name, [this, s, root](uint32_t tag) {
      if (s.buffer.numel() > 0 && blocking_ && blocking_->takes_broadcast(s.buffer.nbytes())) {
        blocking_->broadcast(s.buffer, root, tag);
      } else if (s.buffer.numel() > 0) {
        gloo::BroadcastOptions opts(context_for(tag));
        opts.setOutput(ptr_as<uint8_t>(s.buffer), bytes(s.buffer));
        opts.setRoot(root);
        opts.setTag(tag);
        opts.setTimeout(timeout_);
        gloo::broadcast(opts);
      }
      s.write_back();
      return std::vector<Tensor>{s.original};
    });
  }

  WorkPtr reduce(const Tensor& tensor, int root, ReduceOp op) override {
    const char* name = "reduce";
    check_tensor(name, tensor);
    check_rank(name, "dst", root);
    check_reduce_op(name, tensor, op);
    Staged s(tensor);
    // Off the root Gloo uses the buffer as scratch: reduce a copy there, so the caller's tensor
    // keeps its value.
    Tensor work_buffer;
    {
      NoGradGuard no_grad;
      work_buffer = rank() == root ? s.buffer : s.buffer.clone();
    }
    return enqueue(name, [this, s, work_buffer, root, op](uint32_t tag) {
      if (work_buffer.numel() > 0) {
        visit_width(element_size(work_buffer.scalar_type()), [&](auto carrier) {
          using T = decltype(carrier);
          gloo::ReduceOptions opts(context_for(tag));
          opts.setOutput(ptr_as<T>(work_buffer), static_cast<size_t>(work_buffer.numel()));
          opts.setRoot(root);
          opts.setReduceFunction(reduce_function(work_buffer.scalar_type(), op));
          opts.setTag(tag);
          opts.setTimeout(timeout_);
          gloo::reduce(opts);
        });
      }
      if (rank() == root) {
        finish_average(work_buffer, op);
        s.write_back();
      }
      return std::vector<Tensor>{s.original};
    });
  }

  WorkPtr allgather(const std::vector<Tensor>& outputs, const Tensor& input) override {
    const char* name = "all_gather";
    check_tensor(name, input);
    check_list(name, "output", outputs, input, size());
    Staged in(input);
    Tensor flat = empty_like_flat(input, size());
    return enqueue(name, [this, in, flat, outputs](uint32_t tag) {
      run_allgather(in.buffer, flat, tag);
      copy_chunks(flat, outputs);
      return outputs;
    });
  }

  WorkPtr allgather_into_tensor(const Tensor& output, const Tensor& input) override {
    const char* name = "all_gather_into_tensor";
    check_tensor(name, input);
    check_tensor(name, output);
    check_flat_output(name, output, input, size());
    Staged in(input);
    Staged out(output);
    return enqueue(name, [this, in, out](uint32_t tag) {
      run_allgather(in.buffer, out.buffer, tag);
      out.write_back();
      return std::vector<Tensor>{out.original};
    });
  }

  WorkPtr gather(const std::vector<Tensor>& outputs, const Tensor& input, int root) override {
    const char* name = "gather";
    check_tensor(name, input);
    check_rank(name, "dst", root);
    if (rank() == root) {
      check_list(name, "gather_list", outputs, input, size());
    } else if (!outputs.empty()) {
      throw ValueError(fmt::format(
          "gather: gather_list must be empty on rank {} (only the destination rank {} receives)",
          rank(), root));
    }
    Staged in(input);
    Tensor flat = rank() == root ? empty_like_flat(input, size()) : Tensor();
    return enqueue(name, [this, in, flat, outputs, root](uint32_t tag) {
      if (in.buffer.numel() > 0) {
        gloo::GatherOptions opts(context_for(tag));
        opts.setInput(ptr_as<uint8_t>(in.buffer), bytes(in.buffer));
        if (rank() == root) opts.setOutput(ptr_as<uint8_t>(flat), bytes(flat));
        opts.setRoot(root);
        opts.setTag(tag);
        opts.setTimeout(timeout_);
        gloo::gather(opts);
      }
      if (rank() == root) copy_chunks(flat, outputs);
      return outputs;
    });
  }

  WorkPtr scatter(const Tensor& output, const std::vector<Tensor>& inputs, int root) override {
    const char* name = "scatter";
    check_tensor(name, output);
    check_rank(name, "src", root);
    if (rank() == root) {
      check_list(name, "scatter_list", inputs, output, size());
    } else if (!inputs.empty()) {
      throw ValueError(fmt::format(
          "scatter: scatter_list must be empty on rank {} (only the source rank {} sends)", rank(),
          root));
    }
    Staged out(output);
    std::vector<Tensor> staged_inputs;
    {
      NoGradGuard no_grad;
      for (const auto& t : inputs) staged_inputs.push_back(t.contiguous());
    }
    return enqueue(name, [this, out, staged_inputs, root](uint32_t tag) {
      if (out.buffer.numel() > 0) {
        gloo::ScatterOptions opts(context_for(tag));
        if (rank() == root) {
          std::vector<uint8_t*> ptrs;
          for (const auto& t : staged_inputs) ptrs.push_back(ptr_as<uint8_t>(t));
          opts.setInputs(ptrs, bytes(out.buffer));
        }
        opts.setOutput(ptr_as<uint8_t>(out.buffer), bytes(out.buffer));
        opts.setRoot(root);
        opts.setTag(tag);
        opts.setTimeout(timeout_);
        gloo::scatter(opts);
      }
      out.write_back();
      return std::vector<Tensor>{out.original};
    });
  }

  WorkPtr reduce_scatter(const Tensor& output, const std::vector<Tensor>& inputs,
                         ReduceOp op) override {
    const char* name = "reduce_scatter";
    check_tensor(name, output);
    check_list(name, "input_list", inputs, output, size());
    check_reduce_op(name, output, op);
    // Gloo has no reduce-scatter with a custom reduction: all-reduce the concatenated inputs and
    // keep this rank's part (what PyTorch's Gloo backend does too).
    Tensor flat = empty_like_flat(output, size());
    {
      NoGradGuard no_grad;
      for (int r = 0; r < size(); ++r) flat[r].copy_(inputs[static_cast<size_t>(r)].reshape({-1}));
    }
    Staged out(output);
    return enqueue(name, [this, flat, out, op](uint32_t tag) {
      run_allreduce(flat, op, tag);
      {
        NoGradGuard no_grad;
        out.original.copy_(flat[rank()].view(out.original.sizes()));
      }
      return std::vector<Tensor>{out.original};
    });
  }

  WorkPtr alltoall(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs) override {
    const char* name = "all_to_all";
    if (inputs.empty())
      throw ValueError(fmt::format("all_to_all: input_list is empty; expected {} tensors", size()));
    check_tensor(name, inputs[0]);
    check_list(name, "input_list", inputs, inputs[0], size());
    check_list(name, "output_list", outputs, inputs[0], size());
    Tensor in_flat = empty_like_flat(inputs[0], size());
    {
      NoGradGuard no_grad;
      for (int r = 0; r < size(); ++r)
        in_flat[r].copy_(inputs[static_cast<size_t>(r)].reshape({-1}));
    }
    Tensor out_flat = empty_like_flat(inputs[0], size());
    return enqueue(name, [this, in_flat, out_flat, outputs](uint32_t tag) {
      if (in_flat.numel() > 0) {
        gloo::AlltoallOptions opts(context_for(tag));
        opts.setInput(ptr_as<uint8_t>(in_flat), bytes(in_flat));
        opts.setOutput(ptr_as<uint8_t>(out_flat), bytes(out_flat));
        opts.setTag(tag);
        opts.setTimeout(timeout_);
        gloo::alltoall(opts);
      }
      copy_chunks(out_flat, outputs);
      return outputs;
    });
  }

  WorkPtr barrier() override {
    return enqueue("barrier", [this](uint32_t tag) {
      gloo::BarrierOptions opts(context_for(tag));
      opts.setTag(tag);
      opts.setTimeout(timeout_);
      gloo::barrier(opts);
      return std::vector<Tensor>{};
    });
  }

  // Point to point is posted at once (Gloo's transfers are not collective: a send that waited
  // in the queue behind the peer's own send would never meet its receive) and completed in the
  // Work's wait(), as PyTorch's Gloo backend does.
  WorkPtr send(const Tensor& tensor, int dst, int tag) override {
    const char* name = "send";
    check_tensor(name, tensor);
    check_peer(name, "dst", dst);
    check_tag(name, tag);
    if (auto refused = refuse_if_broken(name)) return refused;
    Tensor buffer;
    {
      NoGradGuard no_grad;
      buffer = tensor.contiguous();
    }
    const auto& context = context_for(static_cast<uint32_t>(tag));
    auto ub = context->createUnboundBuffer(buffer.data_ptr(), bytes(buffer));
    if (buffer.numel() > 0) ub->send(dst, p2p_slot(tag));
    return std::make_shared<P2PWork>(context, std::move(ub),
                                     /*is_send=*/true, buffer.numel() > 0, Staged(buffer), timeout_,
                                     error_context(name));
  }

  WorkPtr recv(const Tensor& tensor, int src, int tag) override {
    const char* name = "recv";
    check_tensor(name, tensor);
    check_peer(name, "src", src);
    check_tag(name, tag);
    if (auto refused = refuse_if_broken(name)) return refused;
    Staged s(tensor);
    const auto& context = context_for(static_cast<uint32_t>(tag));
    auto ub = context->createUnboundBuffer(s.buffer.data_ptr(), bytes(s.buffer));
    if (s.buffer.numel() > 0) ub->recv(src, p2p_slot(tag));
    return std::make_shared<P2PWork>(context, std::move(ub),
                                     /*is_send=*/false, s.buffer.numel() > 0, s, timeout_,
                                     error_context(name));
  }

 private:
  using Body = std::function<std::vector<Tensor>(uint32_t tag)>;
  struct Job {
    std::string op;
    uint32_t tag;
    Body body;
    WorkPtr work;
  };

  static size_t bytes(const Tensor& t) {
    return static_cast<size_t>(t.numel()) * static_cast<size_t>(t.element_size());
  }

  // Point-to-point messages live in slots of their own (Gloo's collectives build theirs from
  // small prefixes), keyed by the user's tag.
  static uint64_t p2p_slot(int tag) { return gloo::Slot::build(0xE3, static_cast<uint32_t>(tag)); }

  // ---- argument checks (caller's thread) ----

  void check_tensor(const char* op, const Tensor& t) const {
    if (!t.defined()) throw ValueError(fmt::format("{}: the tensor is undefined", op));
    if (!t.is_cpu())
      throw ValueError(fmt::format(
          "{}: the Gloo backend takes CPU tensors, got a tensor on {} ({}). Hint: use the NCCL "
          "backend for CUDA tensors",
          op, t.device().str(), describe(t)));
  }

  void check_rank(const char* op, const char* what, int r) const {
    if (r < 0 || r >= size())
      throw ValueError(fmt::format("{}: {} rank {} is out of range for a group of {} ranks", op,
                                   what, r, size()));
  }

  void check_peer(const char* op, const char* what, int r) const {
    check_rank(op, what, r);
    if (r == rank())
      throw ValueError(fmt::format(
          "{}: {} is this rank ({}); point-to-point transfers need another rank", op, what, r));
  }

  static void check_tag(const char* op, int tag) {
    if (tag < 0) throw ValueError(fmt::format("{}: tag must be non-negative, got {}", op, tag));
  }

  std::string error_context(const char* op) const {
    return fmt::format("{} (Gloo, rank {} of {})", op, rank(), size());
  }

  void check_reduce_op(const char* op, const Tensor& t, ReduceOp rop) const {
    if (rop == ReduceOp::AVG && !is_floating_point(t.scalar_type()))
      throw TypeError(fmt::format(
          "{}: ReduceOp::AVG needs a floating-point tensor, got {} (Gloo averages as a sum "
          "divided by the group size)",
          op, describe(t)));
  }

  void check_list(const char* op, const char* what, const std::vector<Tensor>& list,
                  const Tensor& like, int n) const {
    if (static_cast<int>(list.size()) != n)
      throw ValueError(fmt::format("{}: {} has {} tensors; expected one per rank ({})", op, what,
                                   list.size(), n));
    for (size_t i = 0; i < list.size(); ++i) {
      check_tensor(op, list[i]);
      if (list[i].scalar_type() != like.scalar_type() || list[i].numel() != like.numel())
        throw ValueError(fmt::format("{}: {}[{}] is {}; expected {} elements of {} (as {})", op,
                                     what, i, describe(list[i]), like.numel(),
                                     to_string(like.scalar_type()), describe(like)));
    }
  }

  void check_flat_output(const char* op, const Tensor& out, const Tensor& in, int n) const {
    if (out.scalar_type() != in.scalar_type() || out.numel() != in.numel() * n)
      throw ValueError(fmt::format(
          "{}: the output is {}; expected {} elements of {} (the group's {} inputs of {} together)",
          op, describe(out), in.numel() * n, to_string(in.scalar_type()), n, describe(in)));
  }

  static Tensor empty_like_flat(const Tensor& like, int n) {
    return empty({n, like.numel()}, TensorOptions().dtype(like.scalar_type()));
  }

  static void copy_chunks(const Tensor& flat, const std::vector<Tensor>& outputs) {
    NoGradGuard no_grad;
    for (size_t r = 0; r < outputs.size(); ++r)
      outputs[r].copy_(flat[static_cast<int64_t>(r)].view(outputs[r].sizes()));
  }

  // ---- the collectives (group thread) ----

  void run_allreduce(const Tensor& buffer, ReduceOp op, uint32_t tag) {
    if (buffer.numel() > 0 && blocking_ && BlockingCollectives::accepts(buffer.scalar_type())) {
      blocking_->allreduce(buffer, op, tag);
    } else if (buffer.numel() > 0) {
      // Gloo sizes its segments by the element width; our reduce functions read the dtype.
      visit_width(element_size(buffer.scalar_type()), [&](auto carrier) {
        using T = decltype(carrier);
        gloo::AllreduceOptions opts(context_for(tag));
        // Gloo's ring takes 2 (size - 1) dependent steps, its bcube log2(size): below a few
        // MiB the all-reduce is latency-bound (each step is a loopback round trip and two
        // thread wake-ups), and bcube measured 1.5-3x faster there (2 ranks on this 2-core VM:
        // 64 KiB 1.65 -> 0.35-0.65 ms, 1 MiB 1.5-2.4 -> 1.0-2.1 ms); above, both move the same
        // bytes and the ring's even load suits more ranks. At most one element per rank (a
        // loss or a metric being averaged) the ring is the faster again: 1 float 100-125 us
        // against bcube's 180-340, 2 floats 160-190 against 240-290 (raw Gloo, same VM).
        if (bytes(buffer) <= kBcubeMaxBytes && buffer.numel() > size())
          opts.setAlgorithm(gloo::AllreduceOptions::Algorithm::BCUBE);
        opts.setOutput(ptr_as<T>(buffer), static_cast<size_t>(buffer.numel()));
        opts.setReduceFunction(reduce_function(buffer.scalar_type(), op));
        opts.setTag(tag);
        opts.setTimeout(timeout_);
        gloo::allreduce(opts);
      });
    }
    finish_average(buffer, op);
  }

  void finish_average(const Tensor& buffer, ReduceOp op) const {
    if (op != ReduceOp::AVG) return;
    NoGradGuard no_grad;
    buffer.div_(size());
  }

  void run_allgather(const Tensor& in, const Tensor& out, uint32_t tag) {
    if (in.numel() == 0) return;
    gloo::AllgatherOptions opts(context_for(tag));
    opts.setInput(ptr_as<uint8_t>(in), bytes(in));
    opts.setOutput(ptr_as<uint8_t>(out), bytes(out));
    opts.setTag(tag);
    opts.setTimeout(timeout_);
    gloo::allgather(opts);
  }

  // ---- the queue ----

  WorkPtr enqueue(const std::string& op, Body body) {
    auto work = std::make_shared<Work>();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stopping_) throw DistError(fmt::format("{}: the process group is being destroyed", op));
      if (auto error = refusal_locked(op)) {
        work->finish_with_error(error);
        return work;
      }
      queue_.push_back(Job{op, next_tag_++, std::move(body), work});
    }
    queue_cv_.notify_one();
    return work;
  }

  void run_worker() {
    for (;;) {
      Job job;
      std::exception_ptr refusal;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        queue_cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
        if (queue_.empty()) return;  // stopping, and every queued collective has run
        job = std::move(queue_.front());
        queue_.pop_front();
        refusal = refusal_locked(job.op);
      }
      if (refusal) {  // queued behind the failure
        job.work->finish_with_error(refusal);
        continue;
      }
      try {
        job.work->finish(job.body(job.tag));
      } catch (const Error&) {
        job.work->finish_with_error(std::current_exception());
      } catch (const std::exception& e) {
        job.work->finish_with_error(
            backend_error(error_context(job.op.c_str()), e.what(), timeout_));
        // Gloo failed (a peer gone, a timeout): the ranks' calls no longer pair up, so every
        // later collective of this group fails at once instead of waiting out its own timeout
        // (a dead peer would otherwise hold the queue, and the destructor, for queued x timeout).
        std::lock_guard<std::mutex> lock(mutex_);
        broken_ = fmt::format("{} failed: {}", job.op, e.what());
      }
    }
  }

  // Point to point after a failure fails at once too: its peer is as likely gone as the
  // collective's was, and a send to it would wait out the whole timeout. (A failed send or
  // receive itself does not break the group: transfers pair up by tag, not by order.)
  WorkPtr refuse_if_broken(const std::string& op) {
    std::lock_guard<std::mutex> lock(mutex_);
    const std::exception_ptr error = refusal_locked(op);
    if (!error) return nullptr;
    auto work = std::make_shared<Work>();
    work->finish_with_error(error);
    return work;
  }

  // After a failure, the error every later call of `op` fails with; null before (mutex_ held).
  std::exception_ptr refusal_locked(const std::string& op) const {
    return broken_.empty() ? nullptr : unusable_error(op);
  }

  // The context of the collective (or point-to-point transfer) with this tag: the ranks agree
  // on tags, so they agree on the interface too.
  const std::shared_ptr<gloo::rendezvous::Context>& context_for(uint32_t tag) const {
    return contexts_[tag % contexts_.size()];
  }

  std::exception_ptr unusable_error(const std::string& op) const {
    return std::make_exception_ptr(DistBackendError(fmt::format(
        "{}: the process group is unusable after an earlier failure ({}). Hint: destroy it "
        "(destroy_process_group) and create a new one",
        error_context(op.c_str()), broken_)));
  }

  std::chrono::milliseconds timeout_;
  GlooContexts contexts_;  // one per interface; the collectives take them in turn by tag
  std::unique_ptr<BlockingCollectives>
      blocking_;  // all-reduce and broadcast fast path, where it applies
  std::mutex mutex_;
  std::condition_variable queue_cv_;
  std::deque<Job> queue_;
  uint32_t next_tag_ = 0;
  bool stopping_ = false;
  std::string broken_;  // set (under mutex_) by the first Gloo failure: what failed
  std::thread worker_;
};

}  // namespace

ProcessGroupPtr make_gloo_process_group(std::shared_ptr<Store> store, int rank, int size,
                                        std::vector<int> global_ranks,
                                        std::chrono::milliseconds timeout,
                                        const std::string& hostname) {
  if (size < 1 || rank < 0 || rank >= size)
    throw ValueError(fmt::format(
        "ProcessGroupGloo: rank {} is out of range for world_size {} (expected 0 <= rank < "
        "world_size)",
        rank, size));
  if (!store) throw ValueError("ProcessGroupGloo: the store is null");
  return std::make_shared<ProcessGroupGloo>(std::move(store), rank, size, std::move(global_ranks),
                                            timeout, hostname);
}

}  // namespace distributed
}  // namespace ember

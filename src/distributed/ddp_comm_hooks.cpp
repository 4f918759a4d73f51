// The built-in DDP communication hooks (Python's ddp_comm_hooks.default_hooks).
#include <mutex>

#include "ember/autograd/grad_mode.h"
#include "ember/nn/parallel/distributed.h"

namespace ember {
namespace nn {
namespace parallel {

namespace {

// A Work that runs `then` once `inner` has finished (Python's future.then): the compressing
// hooks copy the reduced low-precision tensor back into the bucket there.
class ThenWork final : public distributed::Work {
 public:
  ThenWork(distributed::WorkPtr inner, std::function<Tensor()> then)
      : inner_(std::move(inner)), then_(std::move(then)) {}
  bool is_completed() const override {
    return Work::is_completed() || inner_->is_completed();  // `then` is cheap; wait() runs it
  }
  bool wait(std::chrono::milliseconds timeout) override {
    {
      std::lock_guard<std::mutex> lock(then_mutex_);
      if (!Work::is_completed()) {
        try {
          inner_->wait();
          finish({then_()});
        } catch (...) {
          finish_with_error(std::current_exception());
        }
      }
    }
    return Work::wait(timeout);
  }

 private:
  distributed::WorkPtr inner_;
  std::function<Tensor()> then_;
  std::mutex then_mutex_;
};

distributed::WorkPtr compress_hook(distributed::ProcessGroup& group, GradBucket& bucket,
                                   ScalarType wire_dtype) {
  NoGradGuard no_grad;
  Tensor buffer = bucket.buffer();
  Tensor compressed = buffer.to(wire_dtype).div_(group.size());
  auto work = group.allreduce(compressed, distributed::ReduceOp::SUM);
  return std::make_shared<ThenWork>(work, [buffer, compressed] {
    NoGradGuard inner_no_grad;
    buffer.copy_(compressed);
    return buffer;
  });
}

}  // namespace

namespace comm_hooks {

distributed::WorkPtr allreduce_hook(distributed::ProcessGroup& group, GradBucket& bucket) {
  NoGradGuard no_grad;
  bucket.buffer().div_(group.size());
  return group.allreduce(bucket.buffer(), distributed::ReduceOp::SUM);
}

distributed::WorkPtr fp16_compress_hook(distributed::ProcessGroup& group, GradBucket& bucket) {
  return compress_hook(group, bucket, kHalf);
}

distributed::WorkPtr bf16_compress_hook(distributed::ProcessGroup& group, GradBucket& bucket) {
  return compress_hook(group, bucket, kBFloat16);
}

}  // namespace comm_hooks

}  // namespace parallel
}  // namespace nn
}  // namespace ember

// The NCCL backend, for CUDA tensors (built where the CUDA toolkit has NCCL; see
// CMakeLists.txt). The communicator is made from a unique id that rank 0 publishes in the
// group's store; each rank drives the GPU its LOCAL_RANK names (else rank % device count).
//
// Collectives are queued on the group's own CUDA stream, created blocking, so they run after
// what the caller queued on the (legacy) default stream that Ember's kernels use, and the
// kernels queued later run after them. Work::wait waits for the stream's event on the host,
// polling NCCL's asynchronous error state and the group's timeout: a peer that died or hangs
// aborts the communicator and fails the call with a DistBackendError instead of hanging.
#include <cuda_runtime.h>
#include <nccl.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ember/autograd/grad_mode.h"
#include "ember/distributed/process_group.h"
#include "ember/ops/factory.h"
#include "src/distributed/backends.h"
#include "src/distributed/staged.h"

namespace ember {
namespace distributed {

namespace {

void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw DistBackendError(
        fmt::format("ProcessGroupNCCL: {} failed: {}", what, cudaGetErrorString(e)));
}

void check_nccl(ncclResult_t r, const char* what) {
  if (r != ncclSuccess)
    throw DistBackendError(
        fmt::format("ProcessGroupNCCL: {} failed: {}", what, ncclGetErrorString(r)));
}

ncclDataType_t nccl_dtype(const char* op, ScalarType t) {
  switch (t) {
    case kByte:
    case kBool:
      return ncclUint8;
    case kChar:
      return ncclInt8;
    case kInt:
      return ncclInt32;
    case kLong:
      return ncclInt64;
    case kHalf:
      return ncclFloat16;
    case kFloat:
      return ncclFloat32;
    case kDouble:
      return ncclFloat64;
    case kBFloat16:
      return ncclBfloat16;
    default:
      throw TypeError(
          fmt::format("{}: NCCL has no {} type (supported: uint8, int8, int32, int64, "
                      "float16, bfloat16, float32, float64, bool)",
                      op, to_string(t)));
  }
}

ncclRedOp_t nccl_op(ReduceOp op, ScalarType t) {
  if (t == kBool) {  // bool as uint8: or = max, and = min
    return (op == ReduceOp::PRODUCT || op == ReduceOp::MIN) ? ncclMin : ncclMax;
  }
  switch (op) {
    case ReduceOp::SUM:
      return ncclSum;
    case ReduceOp::AVG:
      return ncclAvg;
    case ReduceOp::PRODUCT:
      return ncclProd;
    case ReduceOp::MIN:
      return ncclMin;
    case ReduceOp::MAX:
      return ncclMax;
  }
  return ncclSum;
}

size_t count_of(const Tensor& t) { return static_cast<size_t>(t.numel()); }

// The communicator and whether a failure aborted it, shared by the group and its Works: after
// an abort nothing may touch the communicator again (not even to destroy it).
struct Comm {
  std::mutex mutex;  // collectives go out in call order; abort excludes them
  ncclComm_t comm = nullptr;
  bool aborted = false;

  void abort() {
    std::lock_guard<std::mutex> lock(mutex);
    if (aborted) return;
    aborted = true;
    ncclCommAbort(comm);
    comm = nullptr;
  }
  // NCCL's asynchronous error (ncclSuccess once aborted: the abort's cause was reported).
  ncclResult_t async_error() {
    std::lock_guard<std::mutex> lock(mutex);
    if (aborted) return ncclSuccess;
    ncclResult_t e = ncclSuccess;
    ncclCommGetAsyncError(comm, &e);
    return e;
  }
};

class NcclWork final : public Work {
 public:
  NcclWork(std::shared_ptr<Comm> comm, cudaEvent_t event, std::chrono::milliseconds timeout,
           std::string context, std::function<std::vector<Tensor>()> after)
      : comm_(std::move(comm)),
        event_(event),
        timeout_(timeout),
        context_(std::move(context)),
        after_(std::move(after)),
        deadline_(std::chrono::steady_clock::now() + timeout) {}
  ~NcclWork() override { cudaEventDestroy(event_); }

  bool is_completed() const override {
    return Work::is_completed() || cudaEventQuery(event_) == cudaSuccess;
  }

  // Waits up to `timeout` (false if the collective still runs then); the group's own timeout,
  // counted from the launch, fails the collective and aborts the communicator.
  bool wait(std::chrono::milliseconds timeout) override {
    const auto until = timeout == std::chrono::milliseconds::max()
                           ? std::chrono::steady_clock::time_point::max()
                           : std::chrono::steady_clock::now() + timeout;
    {
      std::lock_guard<std::mutex> lock(wait_mutex_);
      if (!Work::is_completed()) {
        try {
          for (;;) {
            cudaError_t q = cudaEventQuery(event_);
            if (q == cudaSuccess) break;
            if (q != cudaErrorNotReady) check_cuda(q, "waiting for the collective");
            const ncclResult_t async_error = comm_->async_error();
            if (async_error != ncclSuccess) {
              comm_->abort();
              throw DistBackendError(
                  fmt::format("{} failed: {}. Hint: another rank may have failed or exited",
                              context_, ncclGetErrorString(async_error)));
            }
            const auto now = std::chrono::steady_clock::now();
            if (now > deadline_) {
              comm_->abort();
              throw DistBackendError(fmt::format(
                  "{} timed out after {} ms. Hint: another rank may have exited, failed or "
                  "stopped calling collectives (every rank must call the same collectives in "
                  "the same order)",
                  context_, timeout_.count()));
            }
            if (now > until) return false;
            std::this_thread::sleep_for(std::chrono::microseconds(50));
          }
          finish(after_());
        } catch (...) {
          finish_with_error(std::current_exception());
        }
      }
    }
    return Work::wait(timeout);
  }

 private:
  std::shared_ptr<Comm> comm_;
  cudaEvent_t event_;
  std::chrono::milliseconds timeout_;
  std::string context_;
  std::function<std::vector<Tensor>()> after_;
  std::chrono::steady_clock::time_point deadline_;
  std::mutex wait_mutex_;
};

class ProcessGroupNCCL final : public ProcessGroup {
 public:
  ProcessGroupNCCL(std::shared_ptr<Store> store, int rank, int size, std::vector<int> global_ranks,
                   std::chrono::milliseconds timeout)
      : ProcessGroup(rank, size, std::move(global_ranks)), timeout_(timeout) {
    int devices = 0;
    check_cuda(cudaGetDeviceCount(&devices), "cudaGetDeviceCount");
    if (devices == 0)
      throw DistBackendError("ProcessGroupNCCL: no CUDA device is visible; use the gloo backend");
    const char* local = std::getenv("LOCAL_RANK");
    device_ = (local ? std::atoi(local) : rank) % devices;
    check_cuda(cudaSetDevice(device_), "cudaSetDevice");
    ncclUniqueId id;
    if (rank == 0) {
      check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
      const auto* p = reinterpret_cast<const uint8_t*>(&id);
      store->set("nccl_unique_id", std::vector<uint8_t>(p, p + sizeof(id)));
    } else {
      auto bytes = store->get("nccl_unique_id");
      if (bytes.size() != sizeof(id))
        throw DistBackendError("ProcessGroupNCCL: the store holds a malformed NCCL id");
      std::memcpy(&id, bytes.data(), sizeof(id));
    }
    comm_ = std::make_shared<Comm>();
    check_nccl(ncclCommInitRank(&comm_->comm, size, id, rank), "ncclCommInitRank");
    check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamDefault), "cudaStreamCreate");
  }

  ~ProcessGroupNCCL() override {
    cudaSetDevice(device_);
    {
      std::lock_guard<std::mutex> lock(comm_->mutex);
      if (!comm_->aborted) {
        cudaStreamSynchronize(stream_);
        ncclCommDestroy(comm_->comm);
        comm_->aborted = true;  // gone: a Work still held must not touch it
      }
    }
    cudaStreamDestroy(stream_);
  }

  std::string backend_name() const override { return "nccl"; }
  Device tensor_device() const override { return Device(kCUDA, static_cast<int8_t>(device_)); }

  WorkPtr allreduce(const Tensor& tensor, ReduceOp op) override {
    check_tensor("all_reduce", tensor);
    Staged s(tensor);
    const auto dt = nccl_dtype("all_reduce", tensor.scalar_type());
    if (op == ReduceOp::AVG && !is_floating_point(tensor.scalar_type()))
      throw TypeError(fmt::format("all_reduce: ReduceOp::AVG needs a floating-point tensor, got {}",
                                  to_string(tensor.scalar_type())));
    return launch(
        "all_reduce",
        [&] {
          check_nccl(ncclAllReduce(s.buffer.data_ptr(), s.buffer.data_ptr(), count_of(s.buffer), dt,
                                   nccl_op(op, tensor.scalar_type()), comm_->comm, stream_),
                     "ncclAllReduce");
        },
        [s] {
          s.write_back();
          return std::vector<Tensor>{s.original};
        });
  }

  WorkPtr broadcast(const Tensor& tensor, int root) override {
    check_tensor("broadcast", tensor);
    check_rank("broadcast", root);
    Staged s(tensor);
    const auto dt = nccl_dtype("broadcast", tensor.scalar_type());
    return launch(
        "broadcast",
        [&] {
          check_nccl(ncclBroadcast(s.buffer.data_ptr(), s.buffer.data_ptr(), count_of(s.buffer), dt,
                                   root, comm_->comm, stream_),
                     "ncclBroadcast");
        },
        [s] {
          s.write_back();
          return std::vector<Tensor>{s.original};
        });
  }

  WorkPtr reduce(const Tensor& tensor, int root, ReduceOp op) override {
    check_tensor("reduce", tensor);
    check_rank("reduce", root);
    Staged s(tensor);
    const auto dt = nccl_dtype("reduce", tensor.scalar_type());
    Tensor scratch;
    {
      NoGradGuard no_grad;
      scratch = rank() == root ? s.buffer : s.buffer.clone();
    }
    return launch(
        "reduce",
        [&] {
          check_nccl(ncclReduce(scratch.data_ptr(), scratch.data_ptr(), count_of(scratch), dt,
                                nccl_op(op, tensor.scalar_type()), root, comm_->comm, stream_),
                     "ncclReduce");
        },
        [s, scratch, root, r = rank()] {
          if (r == root) s.write_back();
          return std::vector<Tensor>{s.original};
        });
  }

  WorkPtr allgather(const std::vector<Tensor>& outputs, const Tensor& input) override {
    check_tensor("all_gather", input);
    check_list("all_gather", outputs, input);
    Staged in(input);
    Tensor flat = empty({size(), input.numel()}, input.options());
    const auto dt = nccl_dtype("all_gather", input.scalar_type());
    return launch(
        "all_gather",
        [&] {
          check_nccl(ncclAllGather(in.buffer.data_ptr(), flat.data_ptr(), count_of(in.buffer), dt,
                                   comm_->comm, stream_),
                     "ncclAllGather");
        },
        [in, flat, outputs] {
          NoGradGuard no_grad;
          for (size_t r = 0; r < outputs.size(); ++r)
            outputs[r].copy_(flat[static_cast<int64_t>(r)].view(outputs[r].sizes()));
          return outputs;
        });
  }

  WorkPtr allgather_into_tensor(const Tensor& output, const Tensor& input) override {
    check_tensor("all_gather_into_tensor", input);
    check_tensor("all_gather_into_tensor", output);
    if (output.numel() != input.numel() * size() || output.scalar_type() != input.scalar_type())
      throw ValueError(
          fmt::format("all_gather_into_tensor: the output has {} elements of {}; expected {} of {}",
                      output.numel(), to_string(output.scalar_type()), input.numel() * size(),
                      to_string(input.scalar_type())));
    Staged in(input), out(output);
    const auto dt = nccl_dtype("all_gather_into_tensor", input.scalar_type());
    return launch(
        "all_gather_into_tensor",
        [&] {
          check_nccl(ncclAllGather(in.buffer.data_ptr(), out.buffer.data_ptr(), count_of(in.buffer),
                                   dt, comm_->comm, stream_),
                     "ncclAllGather");
        },
        [in, out] {
          out.write_back();
          return std::vector<Tensor>{out.original};
        });
  }

  WorkPtr gather(const std::vector<Tensor>& outputs, const Tensor& input, int root) override {
    check_tensor("gather", input);
    check_rank("gather", root);
    if (rank() == root) check_list("gather", outputs, input);
    Staged in(input);
    std::vector<Tensor> staged;
    for (const auto& o : outputs) staged.push_back(o.is_contiguous() ? o : empty_like(o));
    const auto dt = nccl_dtype("gather", input.scalar_type());
    return launch(
        "gather",
        [&] {
          check_nccl(ncclGroupStart(), "ncclGroupStart");
          if (rank() == root) {
            for (int r = 0; r < size(); ++r)
              check_nccl(ncclRecv(staged[static_cast<size_t>(r)].data_ptr(), count_of(in.buffer),
                                  dt, r, comm_->comm, stream_),
                         "ncclRecv");
          }
          check_nccl(
              ncclSend(in.buffer.data_ptr(), count_of(in.buffer), dt, root, comm_->comm, stream_),
              "ncclSend");
          check_nccl(ncclGroupEnd(), "ncclGroupEnd");
        },
        [in, staged, outputs] {
          NoGradGuard no_grad;
          for (size_t r = 0; r < outputs.size(); ++r)
            if (staged[r].data_ptr() != outputs[r].data_ptr()) outputs[r].copy_(staged[r]);
          return outputs;
        });
  }

  WorkPtr scatter(const Tensor& output, const std::vector<Tensor>& inputs, int root) override {
    check_tensor("scatter", output);
    check_rank("scatter", root);
    if (rank() == root) check_list("scatter", inputs, output);
    Staged out(output);
    std::vector<Tensor> staged;
    {
      NoGradGuard no_grad;
      for (const auto& t : inputs) staged.push_back(t.contiguous());
    }
    const auto dt = nccl_dtype("scatter", output.scalar_type());
    return launch(
        "scatter",
        [&] {
          check_nccl(ncclGroupStart(), "ncclGroupStart");
          if (rank() == root) {
            for (int r = 0; r < size(); ++r)
              check_nccl(ncclSend(staged[static_cast<size_t>(r)].data_ptr(), count_of(out.buffer),
                                  dt, r, comm_->comm, stream_),
                         "ncclSend");
          }
          check_nccl(
              ncclRecv(out.buffer.data_ptr(), count_of(out.buffer), dt, root, comm_->comm, stream_),
              "ncclRecv");
          check_nccl(ncclGroupEnd(), "ncclGroupEnd");
        },
        [out, staged] {
          out.write_back();
          return std::vector<Tensor>{out.original};
        });
  }

  WorkPtr reduce_scatter(const Tensor& output, const std::vector<Tensor>& inputs,
                         ReduceOp op) override {
    check_tensor("reduce_scatter", output);
    check_list("reduce_scatter", inputs, output);
    Tensor flat = empty({size(), output.numel()}, output.options());
    {
      NoGradGuard no_grad;
      for (int r = 0; r < size(); ++r) flat[r].copy_(inputs[static_cast<size_t>(r)].reshape({-1}));
    }
    Staged out(output);
    const auto dt = nccl_dtype("reduce_scatter", output.scalar_type());
    return launch(
        "reduce_scatter",
        [&] {
          check_nccl(ncclReduceScatter(flat.data_ptr(), out.buffer.data_ptr(), count_of(out.buffer),
                                       dt, nccl_op(op, output.scalar_type()), comm_->comm, stream_),
                     "ncclReduceScatter");
        },
        [flat, out] {
          out.write_back();
          return std::vector<Tensor>{out.original};
        });
  }

  WorkPtr alltoall(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs) override {
    if (inputs.empty()) throw ValueError("all_to_all: input_list is empty");
    check_tensor("all_to_all", inputs[0]);
    check_list("all_to_all", inputs, inputs[0]);
    check_list("all_to_all", outputs, inputs[0]);
    std::vector<Tensor> in, out;
    {
      NoGradGuard no_grad;
      for (const auto& t : inputs) in.push_back(t.contiguous());
      for (const auto& t : outputs) out.push_back(t.is_contiguous() ? t : empty_like(t));
    }
    const auto dt = nccl_dtype("all_to_all", inputs[0].scalar_type());
    return launch(
        "all_to_all",
        [&] {
          check_nccl(ncclGroupStart(), "ncclGroupStart");
          for (int r = 0; r < size(); ++r) {
            const auto i = static_cast<size_t>(r);
            check_nccl(ncclSend(in[i].data_ptr(), count_of(in[i]), dt, r, comm_->comm, stream_),
                       "ncclSend");
            check_nccl(ncclRecv(out[i].data_ptr(), count_of(out[i]), dt, r, comm_->comm, stream_),
                       "ncclRecv");
          }
          check_nccl(ncclGroupEnd(), "ncclGroupEnd");
        },
        [in, out, outputs] {
          NoGradGuard no_grad;
          for (size_t r = 0; r < outputs.size(); ++r)
            if (out[r].data_ptr() != outputs[r].data_ptr()) outputs[r].copy_(out[r]);
          return outputs;
        });
  }

  WorkPtr barrier() override {
    Tensor one = ones({1}, TensorOptions().device(Device(kCUDA, static_cast<int8_t>(device_))));
    return launch(
        "barrier",
        [&] {
          check_nccl(ncclAllReduce(one.data_ptr(), one.data_ptr(), 1, ncclFloat32, ncclSum,
                                   comm_->comm, stream_),
                     "ncclAllReduce");
        },
        [one] { return std::vector<Tensor>{}; });
  }

  WorkPtr send(const Tensor& tensor, int dst, int /*tag*/) override {
    check_tensor("send", tensor);
    check_rank("send", dst);
    Tensor buffer;
    {
      NoGradGuard no_grad;
      buffer = tensor.contiguous();
    }
    const auto dt = nccl_dtype("send", tensor.scalar_type());
    return launch(
        "send",
        [&] {
          check_nccl(ncclSend(buffer.data_ptr(), count_of(buffer), dt, dst, comm_->comm, stream_),
                     "ncclSend");
        },
        [buffer] { return std::vector<Tensor>{buffer}; });
  }

  WorkPtr recv(const Tensor& tensor, int src, int /*tag*/) override {
    check_tensor("recv", tensor);
    check_rank("recv", src);
    Staged s(tensor);
    const auto dt = nccl_dtype("recv", tensor.scalar_type());
    return launch(
        "recv",
        [&] {
          check_nccl(
              ncclRecv(s.buffer.data_ptr(), count_of(s.buffer), dt, src, comm_->comm, stream_),
              "ncclRecv");
        },
        [s] {
          s.write_back();
          return std::vector<Tensor>{s.original};
        });
  }

 private:
  // Queues `enqueue` on the group's stream behind the caller's default-stream work, and
  // returns the Work that completes when the stream gets past it.
  template <class Enqueue>
  WorkPtr launch(const char* op, Enqueue&& enqueue, std::function<std::vector<Tensor>()> after) {
    std::lock_guard<std::mutex> lock(comm_->mutex);  // collectives go out in call order
    if (comm_->aborted)
      throw DistBackendError(fmt::format(
          "{} (NCCL, rank {} of {}): the communicator was aborted after an earlier failure", op,
          rank(), size()));
    check_cuda(cudaSetDevice(device_), "cudaSetDevice");
    enqueue();
    cudaEvent_t event;
    check_cuda(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "cudaEventCreate");
    check_cuda(cudaEventRecord(event, stream_), "cudaEventRecord");
    return std::make_shared<NcclWork>(comm_, event, timeout_,
                                      fmt::format("{} (NCCL, rank {} of {})", op, rank(), size()),
                                      std::move(after));
  }

  void check_tensor(const char* op, const Tensor& t) const {
    if (!t.defined()) throw ValueError(fmt::format("{}: the tensor is undefined", op));
    if (!t.device().is_cuda() || (t.device().has_index() && t.device().index() != device_))
      throw ValueError(fmt::format(
          "{}: the NCCL backend takes CUDA tensors on this rank's device cuda:{}, got a tensor on "
          "{}. Hint: use the gloo backend for CPU tensors",
          op, device_, t.device().str()));
  }

  void check_rank(const char* op, int r) const {
    if (r < 0 || r >= size())
      throw ValueError(
          fmt::format("{}: rank {} is out of range for a group of {} ranks", op, r, size()));
  }

  void check_list(const char* op, const std::vector<Tensor>& list, const Tensor& like) const {
    if (static_cast<int>(list.size()) != size())
      throw ValueError(fmt::format("{}: the list has {} tensors; expected one per rank ({})", op,
                                   list.size(), size()));
    for (const auto& t : list) {
      check_tensor(op, t);
      if (t.numel() != like.numel() || t.scalar_type() != like.scalar_type())
        throw ValueError(fmt::format("{}: a list tensor has {} elements of {}; expected {} of {}",
                                     op, t.numel(), to_string(t.scalar_type()), like.numel(),
                                     to_string(like.scalar_type())));
    }
  }

  std::chrono::milliseconds timeout_;
  int device_ = 0;
  std::shared_ptr<Comm> comm_;
  cudaStream_t stream_ = nullptr;
};

}  // namespace

ProcessGroupPtr make_nccl_process_group(std::shared_ptr<Store> store, int rank, int size,
                                        std::vector<int> global_ranks,
                                        std::chrono::milliseconds timeout) {
  if (size < 1 || rank < 0 || rank >= size)
    throw ValueError(
        fmt::format("ProcessGroupNCCL: rank {} is out of range for world_size {}", rank, size));
  if (!store) throw ValueError("ProcessGroupNCCL: the store is null");
  return std::make_shared<ProcessGroupNCCL>(std::move(store), rank, size, std::move(global_ranks),
                                            timeout);
}

bool nccl_compiled() { return true; }

}  // namespace distributed
}  // namespace ember

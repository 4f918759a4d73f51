// A process group: the ranks that take part in collectives together, over one backend (Gloo
// for CPU tensors, NCCL for CUDA tensors). The methods take ranks within the group and return
// a Work; the module-level functions of distributed.h take global ranks and wait by default.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "ember/core/tensor.h"
#include "ember/distributed/store.h"
#include "ember/distributed/work.h"

namespace ember {
namespace distributed {

/// The reductions of all_reduce / reduce / reduce_scatter (torch.distributed.ReduceOp).
enum class ReduceOp { SUM, AVG, PRODUCT, MIN, MAX };
EMBER_API const char* reduce_op_name(ReduceOp op);

/// The timeout of a process group when none is given (Python's default_pg_timeout: 30 min).
constexpr std::chrono::milliseconds kDefaultPGTimeout = std::chrono::minutes(30);

class EMBER_API ProcessGroup {
 public:
  ProcessGroup(int rank, int size, std::vector<int> global_ranks)
      : rank_(rank), size_(size), global_ranks_(std::move(global_ranks)) {}
  virtual ~ProcessGroup();
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  /// This process's rank in the group, and the number of ranks.
  int rank() const { return rank_; }
  int size() const { return size_; }
  /// The global rank (in the default group) of each group rank.
  const std::vector<int>& global_ranks() const { return global_ranks_; }
  /// "gloo" or "nccl".
  virtual std::string backend_name() const = 0;
  /// Where this group's tensors live (the CPU for Gloo, this rank's GPU for NCCL): callers that
  /// exchange tensors of their own making (DDP's checks and bookkeeping) put them there.
  virtual Device tensor_device() const { return kCPU; }

  /// In place on every rank: tensor = op over the ranks' tensors.
  virtual WorkPtr allreduce(const Tensor& tensor, ReduceOp op = ReduceOp::SUM) = 0;
  /// In place: every rank's tensor becomes root's.
  virtual WorkPtr broadcast(const Tensor& tensor, int root) = 0;
  /// root's tensor = op over the ranks' tensors (the others' tensors are left as they were).
  virtual WorkPtr reduce(const Tensor& tensor, int root, ReduceOp op = ReduceOp::SUM) = 0;
  /// outputs[r] = rank r's input, on every rank (outputs: size() tensors like input).
  virtual WorkPtr allgather(const std::vector<Tensor>& outputs, const Tensor& input) = 0;
  /// output = the ranks' inputs concatenated along dim 0 (output: size() x input's numel).
  virtual WorkPtr allgather_into_tensor(const Tensor& output, const Tensor& input) = 0;
  /// On root, outputs[r] = rank r's input; elsewhere outputs must be empty.
  virtual WorkPtr gather(const std::vector<Tensor>& outputs, const Tensor& input, int root) = 0;
  /// output = root's inputs[rank()]; inputs are given on root only.
  virtual WorkPtr scatter(const Tensor& output, const std::vector<Tensor>& inputs, int root) = 0;
  /// output = op over the ranks' inputs[rank()] (inputs: size() tensors like output).
  virtual WorkPtr reduce_scatter(const Tensor& output, const std::vector<Tensor>& inputs,
                                 ReduceOp op = ReduceOp::SUM) = 0;
  /// outputs[r] = rank r's inputs[rank()].
  virtual WorkPtr alltoall(const std::vector<Tensor>& outputs,
                           const std::vector<Tensor>& inputs) = 0;
  /// Returns once every rank has called it.
  virtual WorkPtr barrier() = 0;
  /// Point to point, matched by (peer, tag).
  virtual WorkPtr send(const Tensor& tensor, int dst, int tag = 0) = 0;
  virtual WorkPtr recv(const Tensor& tensor, int src, int tag = 0) = 0;

 private:
  int rank_;
  int size_;
  std::vector<int> global_ranks_;
};

using ProcessGroupPtr = std::shared_ptr<ProcessGroup>;

/// The Gloo backend over TCP, for CPU tensors of every dtype. Rendezvous goes through `store`
/// (keys under the group's own prefix); collectives run in order on a thread of the group, each
/// bounded by `timeout`: a peer that dies or hangs fails the collective with a
/// DistBackendError instead of blocking the program.
/// `hostname` is the address this rank listens on for its peers (127.0.0.1 for a local job).
EMBER_API ProcessGroupPtr make_gloo_process_group(std::shared_ptr<Store> store, int rank, int size,
                                                  std::vector<int> global_ranks,
                                                  std::chrono::milliseconds timeout,
                                                  const std::string& hostname);

/// The NCCL backend for CUDA tensors (built where the CUDA toolkit has NCCL; elsewhere it throws
/// NotImplementedError). Each rank drives the GPU its LOCAL_RANK names (else rank modulo the
/// device count); the communicator's id goes through `store`.
EMBER_API ProcessGroupPtr make_nccl_process_group(std::shared_ptr<Store> store, int rank, int size,
                                                  std::vector<int> global_ranks,
                                                  std::chrono::milliseconds timeout);

}  // namespace distributed
}  // namespace ember

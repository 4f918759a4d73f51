// ember::distributed: Python's torch.distributed module-level API in C++, on a default process
// group (or a group given as the last arguments).
//
//   namespace dist = ember::distributed;
//   dist::init_process_group("gloo", "env://");                 // MASTER_ADDR/PORT, RANK,
//   WORLD_SIZE dist::init_process_group("gloo", "tcp://127.0.0.1:29500", world_size, rank,
//                            std::chrono::seconds(60));
//   dist::all_reduce(grad, dist::ReduceOp::SUM);                // waits; in place
//   auto work = dist::all_reduce(grad, dist::ReduceOp::AVG, nullptr, /*async_op=*/true);
//   work->wait();
//
// Ranks given to these functions (src, dst) are global ranks, as in Python; the methods of a
// ProcessGroup take ranks within the group. Every rank of a group must call its collectives in
// the same order. A rank that fails or hangs makes the others' collectives fail with a
// DistBackendError once the group's timeout passes, never hang for good.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "ember/distributed/errors.h"
#include "ember/distributed/process_group.h"
#include "ember/distributed/store.h"
#include "ember/distributed/work.h"

namespace ember {
namespace distributed {

EMBER_API bool is_available();
EMBER_API bool is_gloo_available();
EMBER_API bool is_nccl_available();

/// Starts the default group. backend: "gloo" (CPU tensors) or "nccl" (CUDA tensors).
/// init_method: "env://" reads MASTER_ADDR, MASTER_PORT and, where world_size / rank are not
/// given (-1), WORLD_SIZE and RANK; "tcp://HOST:PORT" needs world_size and rank. Rank 0 serves
/// the rendezvous store at that address. Waits until every rank has joined, up to `timeout`,
/// which then also bounds every collective of the group.
EMBER_API void init_process_group(const std::string& backend,
                                  const std::string& init_method = "env://", int world_size = -1,
                                  int rank = -1,
                                  std::chrono::milliseconds timeout = kDefaultPGTimeout);
/// The same with a store the caller made (a TCPStore, say).
EMBER_API void init_process_group(const std::string& backend, std::shared_ptr<Store> store,
                                  int world_size, int rank,
                                  std::chrono::milliseconds timeout = kDefaultPGTimeout);
EMBER_API bool is_initialized();
/// Ends the default group and every group made by new_group (group null), or one group.
EMBER_API void destroy_process_group(const ProcessGroupPtr& group = nullptr);

/// The default group (Python's group.WORLD); null before init_process_group.
EMBER_API ProcessGroupPtr group_world();
/// This process's rank in `group` (the default group when null); -1 when not a member.
EMBER_API int get_rank(const ProcessGroupPtr& group = nullptr);
/// The number of ranks in `group`; -1 when this process is not a member.
EMBER_API int get_world_size(const ProcessGroupPtr& group = nullptr);
EMBER_API std::string get_backend(const ProcessGroupPtr& group = nullptr);
/// Global rank <-> rank within `group`.
EMBER_API int get_group_rank(const ProcessGroupPtr& group, int global_rank);
EMBER_API int get_global_rank(const ProcessGroupPtr& group, int group_rank);
/// Whether this process belongs to `group`.
EMBER_API bool is_member(const ProcessGroupPtr& group);

/// A group of some global ranks (every rank when empty). Every rank of the default group must
/// call it, members or not, in the same order; a non-member gets a group it is not in
/// (is_member false), on which collectives warn and do nothing, as in Python.
EMBER_API ProcessGroupPtr new_group(const std::vector<int>& ranks = {},
                                    std::chrono::milliseconds timeout = kDefaultPGTimeout,
                                    const std::string& backend = "");

// ---- collectives: synchronous unless async_op; the returned Work is then still running ----

EMBER_API WorkPtr all_reduce(const Tensor& tensor, ReduceOp op = ReduceOp::SUM,
                             const ProcessGroupPtr& group = nullptr, bool async_op = false);
EMBER_API WorkPtr broadcast(const Tensor& tensor, int src, const ProcessGroupPtr& group = nullptr,
                            bool async_op = false);
EMBER_API WorkPtr reduce(const Tensor& tensor, int dst, ReduceOp op = ReduceOp::SUM,
                         const ProcessGroupPtr& group = nullptr, bool async_op = false);
/// tensor_list: one preallocated tensor per rank, shaped as `tensor`.
EMBER_API WorkPtr all_gather(const std::vector<Tensor>& tensor_list, const Tensor& tensor,
                             const ProcessGroupPtr& group = nullptr, bool async_op = false);
EMBER_API WorkPtr all_gather_into_tensor(const Tensor& output_tensor, const Tensor& input_tensor,
                                         const ProcessGroupPtr& group = nullptr,
                                         bool async_op = false);
/// gather_list: given (one tensor per rank) on dst only.
EMBER_API WorkPtr gather(const Tensor& tensor, const std::vector<Tensor>& gather_list = {},
                         int dst = 0, const ProcessGroupPtr& group = nullptr,
                         bool async_op = false);
/// scatter_list: given (one tensor per rank) on src only.
EMBER_API WorkPtr scatter(const Tensor& tensor, const std::vector<Tensor>& scatter_list = {},
                          int src = 0, const ProcessGroupPtr& group = nullptr,
                          bool async_op = false);
EMBER_API WorkPtr reduce_scatter(const Tensor& output, const std::vector<Tensor>& input_list,
                                 ReduceOp op = ReduceOp::SUM,
                                 const ProcessGroupPtr& group = nullptr, bool async_op = false);
EMBER_API WorkPtr all_to_all(const std::vector<Tensor>& output_tensor_list,
                             const std::vector<Tensor>& input_tensor_list,
                             const ProcessGroupPtr& group = nullptr, bool async_op = false);
EMBER_API WorkPtr barrier(const ProcessGroupPtr& group = nullptr, bool async_op = false);

/// Point to point (blocking); isend/irecv return the running Work.
EMBER_API void send(const Tensor& tensor, int dst, const ProcessGroupPtr& group = nullptr,
                    int tag = 0);
EMBER_API void recv(const Tensor& tensor, int src, const ProcessGroupPtr& group = nullptr,
                    int tag = 0);
EMBER_API WorkPtr isend(const Tensor& tensor, int dst, const ProcessGroupPtr& group = nullptr,
                        int tag = 0);
EMBER_API WorkPtr irecv(const Tensor& tensor, int src, const ProcessGroupPtr& group = nullptr,
                        int tag = 0);

}  // namespace distributed
}  // namespace ember

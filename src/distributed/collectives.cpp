// The module-level collectives: resolve the group, turn global ranks into group ranks, skip
// (with Python's warning) on a group this process is not in, and wait unless async_op.
#include <fmt/format.h>

#include "ember/core/warning.h"
#include "ember/distributed/distributed.h"
#include "src/distributed/state.h"

namespace ember {
namespace distributed {

namespace {

// Python's _warn_not_in_group: the call does nothing on a rank outside the group.
WorkPtr skipped(const char* op) {
  ember::warn(fmt::format("Running {} on global rank {} which does not belong to the given group.",
                          op, get_rank(nullptr)));
  auto work = std::make_shared<Work>();
  work->finish();
  return work;
}

WorkPtr finish(WorkPtr work, bool async_op) {
  if (!async_op) work->wait();
  return work;
}

}  // namespace

WorkPtr all_reduce(const Tensor& tensor, ReduceOp op, const ProcessGroupPtr& group, bool async_op) {
  auto g = resolve_group(group, "all_reduce");
  if (g->rank() < 0) return skipped("all_reduce");
  return finish(g->allreduce(tensor, op), async_op);
}

WorkPtr broadcast(const Tensor& tensor, int src, const ProcessGroupPtr& group, bool async_op) {
  auto g = resolve_group(group, "broadcast");
  if (g->rank() < 0) return skipped("broadcast");
  return finish(g->broadcast(tensor, get_group_rank(g, src)), async_op);
}

WorkPtr reduce(const Tensor& tensor, int dst, ReduceOp op, const ProcessGroupPtr& group,
               bool async_op) {
  auto g = resolve_group(group, "reduce");
  if (g->rank() < 0) return skipped("reduce");
  return finish(g->reduce(tensor, get_group_rank(g, dst), op), async_op);
}

WorkPtr all_gather(const std::vector<Tensor>& tensor_list, const Tensor& tensor,
                   const ProcessGroupPtr& group, bool async_op) {
  auto g = resolve_group(group, "all_gather");
  if (g->rank() < 0) return skipped("all_gather");
  return finish(g->allgather(tensor_list, tensor), async_op);
}

WorkPtr all_gather_into_tensor(const Tensor& output_tensor, const Tensor& input_tensor,
                               const ProcessGroupPtr& group, bool async_op) {
  auto g = resolve_group(group, "all_gather_into_tensor");
  if (g->rank() < 0) return skipped("all_gather_into_tensor");
  return finish(g->allgather_into_tensor(output_tensor, input_tensor), async_op);
}

WorkPtr gather(const Tensor& tensor, const std::vector<Tensor>& gather_list, int dst,
               const ProcessGroupPtr& group, bool async_op) {
  auto g = resolve_group(group, "gather");
  if (g->rank() < 0) return skipped("gather");
  return finish(g->gather(gather_list, tensor, get_group_rank(g, dst)), async_op);
}

WorkPtr scatter(const Tensor& tensor, const std::vector<Tensor>& scatter_list, int src,
                const ProcessGroupPtr& group, bool async_op) {
  auto g = resolve_group(group, "scatter");
  if (g->rank() < 0) return skipped("scatter");
  return finish(g->scatter(tensor, scatter_list, get_group_rank(g, src)), async_op);
}

WorkPtr reduce_scatter(const Tensor& output, const std::vector<Tensor>& input_list, ReduceOp op,
                       const ProcessGroupPtr& group, bool async_op) {
  auto g = resolve_group(group, "reduce_scatter");
  if (g->rank() < 0) return skipped("reduce_scatter");
  return finish(g->reduce_scatter(output, input_list, op), async_op);
}

WorkPtr all_to_all(const std::vector<Tensor>& output_tensor_list,
                   const std::vector<Tensor>& input_tensor_list, const ProcessGroupPtr& group,
                   bool async_op) {
  auto g = resolve_group(group, "all_to_all");
  if (g->rank() < 0) return skipped("all_to_all");
  return finish(g->alltoall(output_tensor_list, input_tensor_list), async_op);
}

WorkPtr barrier(const ProcessGroupPtr& group, bool async_op) {
  auto g = resolve_group(group, "barrier");
  if (g->rank() < 0) return skipped("barrier");
  return finish(g->barrier(), async_op);
}

WorkPtr isend(const Tensor& tensor, int dst, const ProcessGroupPtr& group, int tag) {
  auto g = resolve_group(group, "isend");
  if (g->rank() < 0) return skipped("isend");
  return g->send(tensor, get_group_rank(g, dst), tag);
}

WorkPtr irecv(const Tensor& tensor, int src, const ProcessGroupPtr& group, int tag) {
  auto g = resolve_group(group, "irecv");
  if (g->rank() < 0) return skipped("irecv");
  return g->recv(tensor, get_group_rank(g, src), tag);
}

void send(const Tensor& tensor, int dst, const ProcessGroupPtr& group, int tag) {
  isend(tensor, dst, group, tag)->wait();
}

void recv(const Tensor& tensor, int src, const ProcessGroupPtr& group, int tag) {
  irecv(tensor, src, group, tag)->wait();
}

}  // namespace distributed
}  // namespace ember

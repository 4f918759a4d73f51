// DDP's reducer: buckets of gradients, the hooks that fill them during backward, and the
// reductions that start as each bucket completes (Python's C++ Reducer, in small).
//
// Per iteration: forward arms the reducer (prepare_for_backward); each parameter's
// post-accumulate-grad hook copies its gradient into its bucket slot (or finds it already
// there, with gradient_as_bucket_view) and, when a bucket's last gradient arrives, starts the
// all-reduce of that bucket and of every later-indexed bucket already complete: buckets start
// in index order on every rank, so the ranks' collectives pair up. When the last bucket starts,
// the reducer waits for all of them and writes the averaged gradients back (finalize).
#pragma once

#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "ember/nn/parallel/distributed.h"

namespace ember {
namespace nn {
namespace parallel {
namespace detail {

class Reducer : public std::enable_shared_from_this<Reducer> {
 public:
  Reducer(std::vector<Tensor> params, std::vector<std::string> names,
          distributed::ProcessGroupPtr group, const DistributedDataParallelOptions& options);
  ~Reducer();
  /// Registers the gradient hooks (they hold a weak reference to the reducer).
  void install_hooks();

  /// Before forward: refuses to start when the last backward left buckets unreduced.
  void prepare_for_forward();
  /// After forward (grad mode on, sync on): arms the hooks for one backward; with
  /// find_unused_parameters, walks the outputs' graph for the parameters it does not reach.
  void prepare_for_backward(const std::vector<Tensor>& outputs);
  /// Before a forward that will sync: the one-time rebuild of the buckets in the order the first
  /// iteration's gradients arrived (a broadcast from rank 0).
  void maybe_rebuild_buckets();

  bool sync() const { return sync_; }
  void set_sync(bool on) { sync_ = on; }
  void set_comm_hook(CommHook hook);
  std::vector<std::vector<std::string>> bucket_names() const;

 private:
  struct Bucket {
    ScalarType dtype = kFloat;
    Tensor buffer;
    std::vector<size_t> params;  // indices into params_
    size_t pending = 0;
    distributed::WorkPtr work;
  };

  void build_buckets(const std::vector<size_t>& order);
  void on_grad_ready(size_t index);
  void mark_ready(size_t index);
  void launch_ready_buckets();
  void finalize();
  void reset_iteration();
  std::string unready_names() const;

  std::vector<Tensor> params_;
  std::vector<std::string> names_;
  distributed::ProcessGroupPtr group_;
  DistributedDataParallelOptions options_;
  CommHook comm_hook_;
  std::vector<unsigned> hook_handles_;

  std::vector<Bucket> buckets_;
  std::vector<size_t> bucket_of_;   // per parameter
  std::vector<Tensor> grad_views_;  // per parameter: its slot in its bucket, shaped as it

  bool sync_ = true;
  bool armed_ = false;
  bool marked_unused_ = false;
  size_t next_bucket_ = 0;
  std::vector<char> ready_;
  std::vector<char> locally_used_;
  std::vector<size_t> unused_;
  std::vector<size_t> static_unused_;       // static_graph: the first iteration's
  std::vector<char> static_globally_used_;  // static_graph: the first iteration's
  std::vector<size_t> ready_order_;         // the first iteration's order, for the rebuild
  int64_t iterations_ = 0;
  bool rebuilt_ = false;
};

}  // namespace detail
}  // namespace parallel
}  // namespace nn
}  // namespace ember

// A tensor a backward formula needs, saved at forward time with the storage version it had, so
// that modifying it in place before backward is caught instead of giving wrong gradients.
#pragma once

#include <memory>

#include "ember/core/tensor.h"

namespace ember::autograd {

class Node;

class EMBER_API SavedVariable {
 public:
  SavedVariable() = default;
  /// Saves `t`. `is_output` marks a tensor the saving node itself produced: it is stored without
  /// its grad_fn (which would be a reference cycle) and reattached when unpacked.
  SavedVariable(const Tensor& t, bool is_output);

  // Copies and moves register with the node being built (see record.h), so that node can free
  // exactly its saved tensors after backward.
  SavedVariable(const SavedVariable& o);
  SavedVariable(SavedVariable&& o) noexcept;
  SavedVariable& operator=(const SavedVariable&) = default;
  SavedVariable& operator=(SavedVariable&&) noexcept = default;

  /// While a collector is installed on this thread, every SavedVariable copied or moved into
  /// place reports its address to it.
  struct Collector {
    virtual void add(SavedVariable* v) = 0;
  };
  static void set_collector(Collector* c);

  /// The saved tensor; throws when it was modified in place since it was saved, or was released.
  Tensor unpack() const;
  bool defined() const { return data_.defined() || !was_defined_; }
  /// Frees the tensor (after a backward without retain_graph).
  void reset();
  /// An output saved before its node was attached learns which output of `fn` it is, when `out`
  /// is that output (same memory and geometry).
  void bind_output(const Tensor& out, const std::shared_ptr<Node>& fn, uint32_t output_nr);

 private:
  Tensor data_;
  std::weak_ptr<Node> weak_grad_fn_;  // outputs: the node that made them, if known
  uint32_t saved_version_ = 0;
  uint32_t output_nr_ = 0;
  bool is_output_ = false;
  bool was_defined_ = false;
  bool requires_grad_ = false;
};

}  // namespace ember::autograd

// Backward formulas of the indexing ops, after PyTorch's derivatives.yaml: what a gather reads,
// its backward adds back (index_put_ with accumulate, index_add, scatter_add), and the other way
// round, so every formula is itself differentiable and double backward works.
#include "src/autograd/derivatives/indexing.h"

#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "ember/ops/indexing.h"
#include "ember/ops/reduction.h"
#include "ember/ops/shape.h"
#include "src/autograd/grad_utils.h"

namespace ember::autograd::derivatives {

namespace {

// An index list whose tensors are saved with version checks.
class SavedIndices {
 public:
  explicit SavedIndices(ArrayRef<TensorIndex> indices) {
    for (const TensorIndex& ix : indices) {
      if (ix.is_tensor()) {
        slots_.push_back(static_cast<int>(tensors_.size()));
        tensors_.push_back(save(ix.tensor()));
        list_.emplace_back(indexing::None);  // filled again by unpack()
      } else {
        slots_.push_back(-1);
        list_.push_back(ix);
      }
    }
  }
  // Copies and moves go element by element, so that each SavedVariable is copied or moved into
  // its final place (where the node being built registers it; a moved vector would not tell it).
  SavedIndices(const SavedIndices& o) : list_(o.list_), slots_(o.slots_) { take(o.tensors_); }
  SavedIndices(SavedIndices&& o) noexcept : list_(std::move(o.list_)), slots_(std::move(o.slots_)) {
    take(std::move(o.tensors_));
  }
  SavedIndices& operator=(const SavedIndices&) = delete;
  SavedIndices& operator=(SavedIndices&&) = delete;

  std::vector<TensorIndex> unpack() const {
    std::vector<TensorIndex> out;
    out.reserve(list_.size());
    for (size_t i = 0; i < list_.size(); ++i)
      out.push_back(slots_[i] < 0 ? list_[i] : TensorIndex(tensors_[slots_[i]].unpack()));
    return out;
  }

 private:
  void take(const std::vector<SavedVariable>& from) {
    tensors_.reserve(from.size());
    for (const SavedVariable& v : from) tensors_.push_back(v);
  }
  void take(std::vector<SavedVariable>&& from) {
    tensors_.reserve(from.size());
    for (SavedVariable& v : from) tensors_.push_back(std::move(v));
  }
  std::vector<TensorIndex> list_;
  std::vector<int> slots_;  // which saved tensor stands at each position, or -1
  std::vector<SavedVariable> tensors_;
};

// The gradient of values written (broadcast) over an indexing result: index_put_ drops leading
// size-1 dims of values beyond the result's rank, then broadcasts.
Tensor sum_to_values(const Tensor& g, IntArrayRef values_sizes) {
  size_t lead = 0;
  while (values_sizes.size() - lead > static_cast<size_t>(g.dim()) && values_sizes[lead] == 1)
    ++lead;
  Tensor r = sum_to(g, values_sizes.slice(lead));
  return lead ? r.reshape(values_sizes) : r;
}

// A gradient laid over index's shape, grown to src's (scatter reads only the leading part of a
// larger src) or moved between 0-dim and 1-element 1-D (which index the same way).
Tensor to_source_shape(Tensor g, IntArrayRef sizes) {
  if (g.sizes() == sizes) return g;
  if (g.dim() != static_cast<int64_t>(sizes.size()))
    g = sizes.empty() ? g.reshape({}) : g.reshape({-1});
  if (g.sizes() == sizes) return g;
  DimVector pad;
  for (int64_t d = g.dim() - 1; d >= 0; --d) {
    pad.push_back(0);
    pad.push_back(sizes[static_cast<size_t>(d)] - g.size(d));
  }
  return constant_pad_nd(g, pad);
}

}  // namespace

void index(const Tensor& result, const Tensor& self, ArrayRef<TensorIndex> indices) {
  record("IndexBackward0", result, edges_of(self),
         [sizes = DimVector(self.sizes()), ix = SavedIndices(indices)](const Tensor& grad) {
           Tensor g = zeros(sizes, grad.options());
           ember::index_put_(g, ix.unpack(), grad, /*accumulate=*/true);
           return g;
         });
}

void index_put_(const Tensor& self, ArrayRef<TensorIndex> indices, const Tensor& values,
                bool accumulate, Edges edges) {
  record_inplace(
      "IndexPutBackward0", self, std::move(edges),
      [ix = SavedIndices(indices), values_sizes = DimVector(values.sizes()), accumulate](
          const Tensor& grad, NeedsGrad needs) -> Grads {
        std::vector<TensorIndex> list = ix.unpack();
        Tensor grad_self, grad_values;
        if (needs[0]) {  // overwritten positions lose their gradient; added-to ones keep it
          grad_self = accumulate ? grad : grad.clone();
          if (!accumulate) grad_self.index_put_(list, Scalar(0.0));
        }
        if (needs[1]) grad_values = sum_to_values(grad.index(list), values_sizes);
        return {grad_self, grad_values};
      });
}

void index_select(const Tensor& result, const Tensor& self, int64_t dim, const Tensor& index) {
  record("IndexSelectBackward0", result, edges_of(self),
         [sizes = DimVector(self.sizes()), dim, index = save(index)](const Tensor& grad) {
           Tensor grad_self = zeros(sizes, grad.options());
           grad_self.index_add_(dim, index.unpack(), grad);  // in place: no clone of the zeros
           return grad_self;
         });
}

void gather(const Tensor& result, const Tensor& self, int64_t dim, const Tensor& index) {
  record("GatherBackward0", result, edges_of(self),
         [sizes = DimVector(self.sizes()), dim, index = save(index)](const Tensor& grad) {
           Tensor grad_self = zeros(sizes, grad.options());
           grad_self.scatter_add_(dim, index.unpack(), grad);  // in place: no clone of the zeros
           return grad_self;
         });
}

void scatter_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
              Edges edges) {
  const bool has_src = src.defined();
  record_inplace(
      has_src ? "ScatterBackward0" : "ScatterBackward1", self, std::move(edges),
      [dim, index = save(index), has_src,
       src_sizes = has_src ? DimVector(src.sizes()) : DimVector()](const Tensor& grad,
                                                                   NeedsGrad needs) -> Grads {
        Tensor i = index.unpack();
        Tensor grad_self = needs[0] ? grad.scatter(dim, i, Scalar(0.0)) : Tensor();
        if (!has_src) return grad_self;
        return {grad_self, needs[1] ? to_source_shape(grad.gather(dim, i), src_sizes) : Tensor()};
      });
}

void scatter_add_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                  Edges edges) {
  record_inplace(
      "ScatterAddBackward0", self, std::move(edges),
      [dim, index = save(index), src_sizes = DimVector(src.sizes())](const Tensor& grad,
                                                                     NeedsGrad needs) -> Grads {
        return {needs[0] ? grad : Tensor(),
                needs[1] ? to_source_shape(grad.gather(dim, index.unpack()), src_sizes) : Tensor()};
      });
}

void index_add_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                const Scalar& alpha, Edges edges) {
  record_inplace("IndexAddBackward0", self, std::move(edges),
                 [dim, index = save(index), alpha, source_sizes = DimVector(source.sizes())](
                     const Tensor& grad, NeedsGrad needs) -> Grads {
                   Tensor grad_source;
                   if (needs[1]) {
                     grad_source = grad.index_select(dim, index.unpack());
                     if (alpha.toDouble() != 1.0) grad_source = grad_source.mul(alpha);
                     grad_source = to_source_shape(grad_source, source_sizes);
                   }
                   return {needs[0] ? grad : Tensor(), grad_source};
                 });
}

namespace {
// masked_fill's formula, shared by the out-of-place and in-place forms.
Grads masked_fill_grads(const Tensor& grad, const Tensor& mask, bool has_value, NeedsGrad needs) {
  Tensor grad_self = needs[0] ? grad.masked_fill(mask, Scalar(0.0)) : Tensor();
  if (!has_value) return grad_self;
  return {grad_self, needs[1] ? grad.masked_select(mask).sum() : Tensor()};
}
}  // namespace

void masked_fill(const Tensor& result, const Tensor& self, const Tensor& mask,
                 const Tensor& value) {
  const bool has_value = value.defined();
  auto formula = [mask = save(mask), has_value](const Tensor& grad, NeedsGrad needs) {
    return masked_fill_grads(grad, mask.unpack(), has_value, needs);
  };
  if (has_value)
    record("MaskedFillBackward1", result, edges_of(self, value), std::move(formula));
  else
    record("MaskedFillBackward0", result, edges_of(self), std::move(formula));
}

void masked_fill_(const Tensor& self, const Tensor& mask, const Tensor& value, Edges edges) {
  const bool has_value = value.defined();
  record_inplace(has_value ? "MaskedFillBackward1" : "MaskedFillBackward0", self, std::move(edges),
                 [mask = save(mask), has_value](const Tensor& grad, NeedsGrad needs) {
                   return masked_fill_grads(grad, mask.unpack(), has_value, needs);
                 });
}

void masked_select(const Tensor& result, const Tensor& self, const Tensor& mask) {
  // The selected elements go back to their places in the broadcast shape; the engine sums the
  // broadcast away.
  const DimVector shape(IntArrayRef(broadcast_shapes(self.sizes(), mask.sizes())));
  record("MaskedSelectBackward0", result, edges_of(self),
         [shape, mask = save(mask)](const Tensor& grad) {
           Tensor g = zeros(shape, grad.options());
           ember::index_put_(g, {mask.unpack().expand(shape)}, grad, /*accumulate=*/true);
           return g;
         });
}

void take(const Tensor& result, const Tensor& self, const Tensor& index) {
  record("TakeBackward0", result, edges_of(self),
         [sizes = DimVector(self.sizes()), numel = self.numel(),
          index = save(index)](const Tensor& grad) {
           Tensor flat = zeros({numel}, grad.options());
           ember::index_put_(flat, {index.unpack().reshape({-1})}, grad.reshape({-1}),
                             /*accumulate=*/true);
           return flat.view(sizes);
         });
}

}  // namespace ember::autograd::derivatives

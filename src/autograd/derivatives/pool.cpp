// Backward formulas of the pool family, one short function per primitive.
#include "src/autograd/derivatives/pool.h"

namespace ember::autograd::derivatives {

void max_pool(const char* node, const Tensor& result, const Tensor& indices, const Tensor& self) {
  record(node, result, edges_of(self),
         [idx = indices, sizes = DimVector(self.sizes())](const Tensor& grad) -> Grads {
           return pool::pool_scatter("max_pool_backward", grad, idx, sizes, /*assign=*/false);
         });
}

void max_pool_2x2(const char* node, const Tensor& result, const Tensor& offsets,
                  const Tensor& self) {
  record(node, result, edges_of(self),
         [offsets, sizes = DimVector(self.sizes())](const Tensor& grad) {
           return Grads(pool::max_pool_2x2_backward(grad, offsets, sizes));
         });
}

void max_pool_2x2_backward(const Tensor& result, const Tensor& grad, const Tensor& offsets) {
  // PyTorch's name for this node (the index path's pool_scatter calls its own MaxPoolBackward0).
  record("MaxPool2DWithIndicesBackwardBackward0", result, edges_of(grad),
         [offsets](const Tensor& gg) { return Grads(pool::gather_at_offsets(gg, offsets)); });
}

void avg_pool(const char* node, const Tensor& result, const Tensor& self, const pool::PoolSpec& s) {
  record(node, result, edges_of(self), [s, sizes = DimVector(self.sizes())](const Tensor& grad) {
    return Grads(pool::avg_pool_backward(grad, s, sizes));
  });
}

void avg_pool_backward(const Tensor& result, const Tensor& grad, const pool::PoolSpec& s) {
  record("AvgPoolBackwardBackward0", result, edges_of(grad),
         [s](const Tensor& gg) { return Grads(pool::avg_pool("AvgPoolBackward0", gg, s)); });
}

void pool_scatter(const char* node, const Tensor& result, const Tensor& src,
                  const Tensor& indices) {
  record(node, result, edges_of(src), [idx = indices](const Tensor& gg) {
    return Grads(pool::pool_gather("pool_scatter_backward", gg, idx));
  });
}

void pool_gather(const Tensor& result, const Tensor& large, const Tensor& indices) {
  record("PoolGatherBackward0", result, edges_of(large),
         [idx = indices, sizes = DimVector(large.sizes())](const Tensor& gg) {
           return Grads(pool::pool_scatter("pool_gather_backward", gg, idx, sizes, false));
         });
}

}  // namespace ember::autograd::derivatives

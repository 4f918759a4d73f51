// Backward formulas of the copying shape ops, in shape_copy.cpp's order, after PyTorch's
// derivatives.yaml. Each is written with differentiable ops, so create_graph works.
#include "src/autograd/derivatives/shape.h"

#include "ember/ops/factory.h"
#include "ember/ops/reduction.h"
#include "ember/ops/shape.h"

namespace ember::autograd::derivatives {

void cat(const Tensor& result, TensorList tensors, int64_t dim) {
  // Each input's extent along dim; -1 marks a skipped 1-D empty input.
  DimVector extents;
  for (const Tensor& t : tensors)
    extents.push_back(t.dim() == 1 && t.size(0) == 0 ? -1 : t.size(dim));
  record("CatBackward0", result, edges_of(tensors),
         [extents, dim](const Tensor& grad, NeedsGrad needs) -> Grads {
           variable_list grads(extents.size());
           int64_t offset = 0;
           for (size_t i = 0; i < extents.size(); ++i) {
             if (extents[i] < 0) {
               if (needs[i]) grads[i] = zeros({0}, grad.options());
               continue;
             }
             if (needs[i]) grads[i] = grad.narrow(dim, offset, extents[i]);
             offset += extents[i];
           }
           return grads;
         });
}

void stack(const Tensor& result, TensorList tensors, int64_t dim) {
  record("StackBackward0", result, edges_of(tensors),
         [n = tensors.size(), dim](const Tensor& grad, NeedsGrad needs) -> Grads {
           variable_list grads(n);
           for (size_t i = 0; i < n; ++i)
             if (needs[i]) grads[i] = grad.select(dim, static_cast<int64_t>(i));
           return grads;
         });
}

void repeat(const Tensor& result, const Tensor& self, IntArrayRef repeats) {
  record("RepeatBackward0", result, edges_of(self),
         [sizes = DimVector(self.sizes()), repeats = DimVector(repeats)](const Tensor& grad) {
           // Output dim i is (repeats[i], size[i]) read row-major: split it so, and sum the
           // repeat halves away (leading repeats of dims self does not have included).
           const size_t pad = repeats.size() - sizes.size();
           DimVector split, summed;
           for (size_t i = 0; i < repeats.size(); ++i) {
             summed.push_back(static_cast<int64_t>(split.size()));
             split.push_back(repeats[i]);
             if (i >= pad) split.push_back(sizes[i - pad]);
           }
           if (summed.empty()) return grad;  // a 0-dim self repeated by {}
           return grad.reshape(split).sum(summed);
         });
}

void flip(const Tensor& result, const Tensor& self, IntArrayRef dims) {
  record("FlipBackward0", result, edges_of(self),
         [dims = DimVector(dims)](const Tensor& grad) { return grad.flip(dims); });
}

void roll(const Tensor& result, const Tensor& self, IntArrayRef shifts, IntArrayRef dims) {
  // The inverse shift, reduced modulo the rolled size first: -s itself overflows for INT64_MIN.
  DimVector back;
  for (size_t i = 0; i < shifts.size(); ++i) {
    const int64_t n = dims.empty() ? self.numel() : self.size(dims[i]);
    const int64_t m = n == 0 ? 0 : ((shifts[i] % n) + n) % n;
    back.push_back(m == 0 ? 0 : n - m);
  }
  record("RollBackward0", result, edges_of(self),
         [back, dims = DimVector(dims)](const Tensor& grad) { return grad.roll(back, dims); });
}

void tril(const Tensor& result, const Tensor& self, int64_t diagonal) {
  record("TrilBackward0", result, edges_of(self),
         [diagonal](const Tensor& grad) { return grad.tril(diagonal); });
}

void triu(const Tensor& result, const Tensor& self, int64_t diagonal) {
  record("TriuBackward0", result, edges_of(self),
         [diagonal](const Tensor& grad) { return grad.triu(diagonal); });
}

void constant_pad_nd(const Tensor& result, const Tensor& self, IntArrayRef pad) {
  // Padding by -pad crops what was padded and zero-pads what was cropped.
  DimVector back;
  for (int64_t p : pad) back.push_back(-p);
  record("ConstantPadNdBackward0", result, edges_of(self),
         [back](const Tensor& grad) { return ember::constant_pad_nd(grad, back); });
}

}  // namespace ember::autograd::derivatives

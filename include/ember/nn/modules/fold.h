// Fold and Unfold (LibTorch's torch/nn/modules/fold.h): col2im and im2col as modules.
//   nn::Unfold unfold(nn::UnfoldOptions({2, 3}).stride(2));   // [N, C, H, W] -> [N, C·6, L]
//   nn::Fold fold(nn::FoldOptions({4, 5}, {2, 3}).stride(2)); // [N, C·6, L] -> [N, C, 4, 5]
#pragma once

#include "ember/nn/cloneable.h"
#include "ember/nn/options/fold.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {

/// Columns [N, C·kh·kw, L] (or [C·kh·kw, L]) summed into images of output_size.
class EMBER_API FoldImpl : public Cloneable<FoldImpl> {
 public:
  FoldImpl(ExpandingArray<2> output_size, ExpandingArray<2> kernel_size)
      : FoldImpl(FoldOptions(output_size, kernel_size)) {}
  explicit FoldImpl(const FoldOptions& options_) : options(options_) {}
  void reset() override {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  FoldOptions options;
};
EMBER_MODULE(Fold);

/// Images [N, C, H, W] (or [C, H, W]) as columns of sliding blocks.
class EMBER_API UnfoldImpl : public Cloneable<UnfoldImpl> {
 public:
  UnfoldImpl(ExpandingArray<2> kernel_size)  // NOLINT
      : UnfoldImpl(UnfoldOptions(kernel_size)) {}
  explicit UnfoldImpl(const UnfoldOptions& options_) : options(options_) {}
  void reset() override {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  UnfoldOptions options;
};
EMBER_MODULE(Unfold);

}  // namespace ember::nn

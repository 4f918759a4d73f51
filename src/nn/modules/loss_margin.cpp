// Loss modules: margin, embedding and sequence losses (the math is in
// src/nn/functional/loss_*.cpp).
#include <ostream>

#include "ember/nn/functional/loss.h"
#include "ember/nn/modules/loss.h"
#include "src/nn/modules/module_errors.h"

namespace ember::nn {
namespace F = functional;
using detail::describe;
using detail::named_call;

Tensor SoftMarginLossImpl::forward(const Tensor& input, const Tensor& target) {
  return named_call("SoftMarginLoss", [&] { return F::soft_margin_loss(input, target, options); });
}
void SoftMarginLossImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::SoftMarginLoss()";
}

MultiLabelSoftMarginLossImpl::MultiLabelSoftMarginLossImpl(
    const MultiLabelSoftMarginLossOptions& options_)
    : options(options_) {
  reset();
}
void MultiLabelSoftMarginLossImpl::reset() { weight = register_buffer("weight", options.weight()); }
Tensor MultiLabelSoftMarginLossImpl::forward(const Tensor& input, const Tensor& target) {
  return named_call("MultiLabelSoftMarginLoss", [&] {
    return F::multilabel_soft_margin_loss(input, target,
                                          MultiLabelSoftMarginLossOptions(options).weight(weight));
  });
}
void MultiLabelSoftMarginLossImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::MultiLabelSoftMarginLoss()";
}

MultiMarginLossImpl::MultiMarginLossImpl(const MultiMarginLossOptions& options_)
    : options(options_) {
  reset();
}
// Checked at construction, as Python and LibTorch do, so the mistake surfaces where it is made.
void MultiMarginLossImpl::reset() {
  EMBER_CHECK_VALUE(options.p() == 1 || options.p() == 2,
                    "MultiMarginLoss: only p == 1 and p == 2 are supported, but got p = {}",
                    options.p());
  EMBER_CHECK_VALUE(!options.weight().defined() || options.weight().dim() == 1,
                    "MultiMarginLoss: weight must be a 1-D tensor of one weight per class [C], "
                    "but got {}",
                    describe(options.weight()));
  weight = register_buffer("weight", options.weight());
}
Tensor MultiMarginLossImpl::forward(const Tensor& input, const Tensor& target) {
  return named_call("MultiMarginLoss", [&] {
    return F::multi_margin_loss(input, target, MultiMarginLossOptions(options).weight(weight));
  });
}
// LibTorch's form: the weight printed with Tensor's operator<< ("[ Tensor (undefined) ]" when
// there is none) and the reduction by its tag name.
void MultiMarginLossImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::MultiMarginLoss(p=" << options.p() << ", margin=" << options.margin()
         << ", weight=" << weight << ", reduction=" << enumtype::get_enum_name(options.reduction())
         << ")";
}

Tensor MultiLabelMarginLossImpl::forward(const Tensor& input, const Tensor& target) {
  return named_call("MultiLabelMarginLoss",
                    [&] { return F::multilabel_margin_loss(input, target, options); });
}
void MultiLabelMarginLossImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::MultiLabelMarginLoss()";
}

Tensor MarginRankingLossImpl::forward(const Tensor& input1, const Tensor& input2,
                                      const Tensor& target) {
  return named_call("MarginRankingLoss",
                    [&] { return F::margin_ranking_loss(input1, input2, target, options); });
}
void MarginRankingLossImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::MarginRankingLoss()";
}

Tensor HingeEmbeddingLossImpl::forward(const Tensor& input, const Tensor& target) {
  return named_call("HingeEmbeddingLoss",
                    [&] { return F::hinge_embedding_loss(input, target, options); });
}
void HingeEmbeddingLossImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::HingeEmbeddingLoss(margin=" << options.margin() << ")";
}

Tensor CosineEmbeddingLossImpl::forward(const Tensor& input1, const Tensor& input2,
                                        const Tensor& target) {
  return named_call("CosineEmbeddingLoss",
                    [&] { return F::cosine_embedding_loss(input1, input2, target, options); });
}
void CosineEmbeddingLossImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::CosineEmbeddingLoss(margin=" << options.margin() << ")";
}

Tensor TripletMarginLossImpl::forward(const Tensor& anchor, const Tensor& positive,
                                      const Tensor& negative) {
  return named_call("TripletMarginLoss",
                    [&] { return F::triplet_margin_loss(anchor, positive, negative, options); });
}
void TripletMarginLossImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "ember::nn::TripletMarginLoss(margin=" << options.margin()
         << ", p=" << options.p() << ", eps=" << options.eps() << ", swap=" << options.swap()
         << ")";
}

Tensor TripletMarginWithDistanceLossImpl::forward(const Tensor& anchor, const Tensor& positive,
                                                  const Tensor& negative) {
  return named_call("TripletMarginWithDistanceLoss", [&] {
    return F::triplet_margin_with_distance_loss(anchor, positive, negative, options);
  });
}
void TripletMarginWithDistanceLossImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "ember::nn::TripletMarginWithDistanceLoss(margin=" << options.margin()
         << ", swap=" << options.swap() << ")";
}

Tensor CTCLossImpl::forward(const Tensor& log_probs, const Tensor& targets,
                            const Tensor& input_lengths, const Tensor& target_lengths) {
  return named_call("CTCLoss", [&] {
    return F::ctc_loss(log_probs, targets, input_lengths, target_lengths, options);
  });
}
void CTCLossImpl::pretty_print(std::ostream& stream) const { stream << "ember::nn::CTCLoss()"; }

}  // namespace ember::nn

// CosineSimilarity and PairwiseDistance modules (the math is in src/nn/functional/distance.cpp).
#include "ember/nn/modules/distance.h"

#include <ostream>

#include "ember/nn/functional/distance.h"
#include "src/nn/modules/module_errors.h"

namespace ember::nn {
namespace F = functional;
using detail::named_call;

Tensor CosineSimilarityImpl::forward(const Tensor& x1, const Tensor& x2) {
  return named_call("CosineSimilarity", [&] { return F::cosine_similarity(x1, x2, options); });
}
void CosineSimilarityImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::CosineSimilarity(dim=" << options.dim() << ", eps=" << options.eps() << ")";
}

Tensor PairwiseDistanceImpl::forward(const Tensor& x1, const Tensor& x2) {
  return named_call("PairwiseDistance", [&] { return F::pairwise_distance(x1, x2, options); });
}
void PairwiseDistanceImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "ember::nn::PairwiseDistance(p=" << options.p()
         << ", eps=" << options.eps() << ", keepdim=" << options.keepdim() << ")";
}

}  // namespace ember::nn

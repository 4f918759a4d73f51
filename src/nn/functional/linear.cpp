// F::linear and F::bilinear, composed from the BLAS-backed products so autograd needs no formula.
#include "ember/nn/functional/linear.h"

#include "ember/ops/elementwise.h"
#include "ember/ops/linalg.h"
#include "ember/ops/shape.h"
#include "src/nn/functional/layer_checks.h"

namespace ember::nn::functional {
namespace {

using layer::describe;

// The checks are a handful of integer compares: linear sits on the hot path of every model, and
// the products' own messages ("mat1 and mat2 shapes cannot be multiplied") do not name the layer.
void check_linear(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  layer::check_defined(input, "linear", "input");
  layer::check_defined(weight, "linear", "weight");
  EMBER_CHECK(weight.dim() == 2,
              "linear: weight must be 2-D [out_features, in_features], but got {}. Hint: a "
              "Linear layer's weight has shape [out, in]",
              describe(weight));
  EMBER_CHECK(input.dim() >= 1,
              "linear: input must have at least 1 dim [*, in_features], but got {}. Hint: "
              "unsqueeze a scalar input",
              describe(input));
  // sizes() is inline; size(-1) would wrap and range-check the dim once more.
  EMBER_CHECK(input.sizes().back() == weight.sizes()[1],
              "linear: input {} has {} features but weight {} expects {}: expected input of shape "
              "[*, {}]. Hint: the last dim of the input must equal in_features",
              describe(input), input.size(-1), describe(weight), weight.size(1), weight.size(1));
  EMBER_CHECK_TYPE(input.dtype() == weight.dtype(),
                   "linear: input {} and weight {} have different dtypes. Hint: convert the "
                   "input with .to(weight.dtype()) or the module with .to()",
                   describe(input), describe(weight));
  if (bias.defined()) {
    EMBER_CHECK(bias.dim() <= 1 && (bias.numel() == weight.size(0) || bias.numel() == 1),
                "linear: bias {} does not match weight {}: expected bias of shape [{}]",
                describe(bias), describe(weight), weight.size(0));
    EMBER_CHECK_TYPE(bias.dtype() == weight.dtype(),
                     "linear: bias {} and weight {} have different dtypes. Hint: convert the "
                     "bias with .to(weight.dtype())",
                     describe(bias), describe(weight));
  }
}

}  // namespace

Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  check_linear(input, weight, bias);
  // weight.t() is a strided view: the GEMM reads it transposed, no copy.
  if (input.dim() == 2)
    return bias.defined() ? addmm(bias, input, weight.t()) : mm(input, weight.t());
  if (input.dim() > 2 && input.is_contiguous()) {
    // Fold the batch dims into rows: one GEMM with the bias fused, instead of a batched matmul
    // and a separate add over the whole output.
    const int64_t in = weight.size(1), out = weight.size(0);
    Tensor rows = input.view({-1, in});
    Tensor y = bias.defined() ? addmm(bias, rows, weight.t()) : mm(rows, weight.t());
    DimVector sizes(input.sizes());
    sizes.back() = out;
    return y.view(sizes);
  }
  // 1-D or strided N-D input: matmul walks the batch in place; the bias is added in place into
  // its fresh output.
  Tensor y = matmul(input, weight.t());
  if (bias.defined()) y.add_(bias);
  return y;
}

Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight,
                const Tensor& bias) {
  layer::check_defined(input1, "bilinear", "input1");
  layer::check_defined(input2, "bilinear", "input2");
  layer::check_defined(weight, "bilinear", "weight");
  EMBER_CHECK(weight.dim() == 3,
              "bilinear: weight must be 3-D [out_features, in1_features, in2_features], but got "
              "{}",
              describe(weight));
  const int64_t out = weight.size(0), in1 = weight.size(1), in2 = weight.size(2);
  EMBER_CHECK(input1.dim() >= 1 && input1.dim() == input2.dim(),
              "bilinear: input1 {} and input2 {} must have the same number of dims (at least 1): "
              "expected [*, {}] and [*, {}]",
              describe(input1), describe(input2), in1, in2);
  for (int64_t d = 0; d + 1 < input1.dim(); ++d)
    EMBER_CHECK(input1.size(d) == input2.size(d),
                "bilinear: input1 {} and input2 {} differ in batch dim {}: expected [*, {}] and "
                "[*, {}] with the same leading dims",
                describe(input1), describe(input2), d, in1, in2);
  EMBER_CHECK(input1.size(-1) == in1,
              "bilinear: input1 {} has {} features but weight {} expects {}: expected input1 of "
              "shape [*, {}]",
              describe(input1), input1.size(-1), describe(weight), in1, in1);
  EMBER_CHECK(input2.size(-1) == in2,
              "bilinear: input2 {} has {} features but weight {} expects {}: expected input2 of "
              "shape [*, {}]",
              describe(input2), input2.size(-1), describe(weight), in2, in2);
  EMBER_CHECK_TYPE(input1.dtype() == weight.dtype() && input2.dtype() == weight.dtype(),
                   "bilinear: input1 {}, input2 {} and weight {} must share one dtype",
                   describe(input1), describe(input2), describe(weight));
  if (bias.defined())
    EMBER_CHECK(bias.dim() == 1 && bias.size(0) == out,
                "bilinear: bias {} does not match weight {}: expected bias of shape [{}]",
                describe(bias), describe(weight), out);

  // y[n, o] = Σ_i x1[n, i]·(Σ_j A[o, i, j]·x2[n, j]): one GEMM against A viewed as [out·in1, in2]
  // (contiguous A: no copy), then a batched matrix-vector product with x1.
  Tensor x1 = input1.reshape({-1, in1});
  Tensor x2 = input2.reshape({-1, in2});
  const int64_t n = x1.size(0);
  Tensor t = mm(x2, weight.reshape({out * in1, in2}).t()).view({n, out, in1});
  Tensor y = bmm(t, x1.unsqueeze(2)).view({n, out});
  if (bias.defined()) y = y + bias;
  DimVector sizes(input1.sizes());
  sizes.back() = out;
  return y.view(sizes);
}

}  // namespace ember::nn::functional

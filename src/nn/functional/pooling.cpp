// Functional pooling: options unpacked onto the ATen-style functions of src/ops/nn_pool.cpp;
// LP pooling composed of avg_pool as PyTorch composes it; the unpooling size and fractional
// samples resolved as LibTorch resolves them.
#include "ember/nn/functional/pooling.h"

#include <vector>

#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "ember/ops/nn_pool.h"
#include "src/core/check.h"

namespace ember::nn::functional {
namespace {

// An adaptive output size with std::nullopt elements replaced by the input's size there.
template <size_t D>
std::vector<int64_t> pool_fill_output_size(const Tensor& input,
                                           const ExpandingArrayWithOptionalElem<D>& size,
                                           const char* op) {
  EMBER_CHECK(input.defined(), "{}: input is an undefined tensor", op);
  EMBER_CHECK(input.dim() >= static_cast<int64_t>(D),
              "{}: expected an input with at least {} dims, but got {}", op, D, input.sizes());
  std::vector<int64_t> out;
  for (size_t i = 0; i < D; ++i) {
    const auto& v = (*size)[i];
    out.push_back(v ? *v : input.size(input.dim() - static_cast<int64_t>(D) + i));
  }
  return out;
}

template <size_t D>
std::vector<int64_t> pool_vec(const ExpandingArray<D>& a) {
  return std::vector<int64_t>(a->begin(), a->end());
}

template <size_t D, class Opts>
std::tuple<Tensor, Tensor> pool_fractional(const Tensor& input, const Opts& options,
                                           const char* op) {
  EMBER_CHECK(input.defined(), "{}: input is an undefined tensor", op);
  EMBER_CHECK_VALUE(options.output_size() || options.output_ratio(),
                    "{}: requires specifying either an output_size or an output_ratio", op);
  std::vector<int64_t> out;
  if (options.output_size()) {
    out = pool_vec<D>(*options.output_size());
  } else {
    EMBER_CHECK(input.dim() >= static_cast<int64_t>(D + 1),
                "{}: expected a {}-D or {}-D input, but got {}", op, D + 1, D + 2, input.sizes());
    const auto& ratio = **options.output_ratio();
    for (size_t i = 0; i < D; ++i) {
      EMBER_CHECK_VALUE(ratio[i] > 0 && ratio[i] < 1,
                        "{}: output_ratio must be between 0 and 1 (exclusive), but got {}", op,
                        ratio[i]);
      out.push_back(static_cast<int64_t>(
          static_cast<double>(input.size(input.dim() - static_cast<int64_t>(D) + i)) * ratio[i]));
    }
  }
  Tensor samples = options._random_samples();
  if (!samples.defined()) {
    EMBER_CHECK(input.dim() >= static_cast<int64_t>(D + 1),
                "{}: expected a {}-D or {}-D input, but got {}", op, D + 1, D + 2, input.sizes());
    const int64_t n = input.dim() == static_cast<int64_t>(D + 1) ? 1 : input.size(0);
    samples =
        rand({n, input.size(input.dim() - static_cast<int64_t>(D) - 1), static_cast<int64_t>(D)},
             input.options());
  }
  const std::vector<int64_t> k = pool_vec<D>(options.kernel_size());
  if constexpr (D == 2)
    return fractional_max_pool2d(input, k, out, samples);
  else
    return fractional_max_pool3d(input, k, out, samples);
}

template <size_t D>
Tensor lp_pool_impl(const Tensor& input, const LPPoolOptions<D>& options, const char* op) {
  EMBER_CHECK(input.defined(), "{}: input is an undefined tensor", op);
  const std::vector<int64_t> k = pool_vec<D>(options.kernel_size());
  const std::vector<int64_t> s = pool_vec<D>(options.stride());
  const Tensor powered = input.pow(options.norm_type());
  Tensor out;
  if constexpr (D == 1)
    out = ember::avg_pool1d(powered, k, s, 0, options.ceil_mode());
  else if constexpr (D == 2)
    out = ember::avg_pool2d(powered, k, s, 0, options.ceil_mode());
  else
    out = ember::avg_pool3d(powered, k, s, 0, options.ceil_mode());
  int64_t volume = 1;
  for (int64_t v : k) volume *= v;
  // PyTorch's formula: sign(out)·relu(|out|) is out with its sign kept for the gradient at 0.
  return (sign(out) * relu(abs(out)))
      .mul(static_cast<double>(volume))
      .pow(1.0 / options.norm_type());
}

template <size_t D>
Tensor pool_unpool(const Tensor& input, const Tensor& indices,
                   const MaxUnpoolFuncOptions<D>& options) {
  EMBER_CHECK(input.defined(), "max_unpool{}d: input is an undefined tensor", D);
  const std::vector<int64_t> size =
      _unpool_output_size(input, pool_vec<D>(options.kernel_size()), pool_vec<D>(options.stride()),
                          pool_vec<D>(options.padding()), options.output_size());
  if constexpr (D == 1)
    return max_unpool1d(input, indices, size);
  else if constexpr (D == 2)
    return max_unpool2d(input, indices, size);
  else
    return max_unpool3d(input, indices, size, pool_vec<D>(options.stride()),
                        pool_vec<D>(options.padding()));
}

}  // namespace

Tensor avg_pool1d(const Tensor& input, const AvgPool1dFuncOptions& o) {
  return ember::avg_pool1d(input, pool_vec<1>(o.kernel_size()), pool_vec<1>(o.stride()),
                           pool_vec<1>(o.padding()), o.ceil_mode(), o.count_include_pad());
}
Tensor avg_pool2d(const Tensor& input, const AvgPool2dFuncOptions& o) {
  return ember::avg_pool2d(input, pool_vec<2>(o.kernel_size()), pool_vec<2>(o.stride()),
                           pool_vec<2>(o.padding()), o.ceil_mode(), o.count_include_pad(),
                           o.divisor_override());
}
Tensor avg_pool3d(const Tensor& input, const AvgPool3dFuncOptions& o) {
  return ember::avg_pool3d(input, pool_vec<3>(o.kernel_size()), pool_vec<3>(o.stride()),
                           pool_vec<3>(o.padding()), o.ceil_mode(), o.count_include_pad(),
                           o.divisor_override());
}

Tensor max_pool1d(const Tensor& input, const MaxPool1dFuncOptions& o) {
  return ember::max_pool1d(input, pool_vec<1>(o.kernel_size()), pool_vec<1>(o.stride()),
                           pool_vec<1>(o.padding()), pool_vec<1>(o.dilation()), o.ceil_mode());
}
Tensor max_pool2d(const Tensor& input, const MaxPool2dFuncOptions& o) {
  return ember::max_pool2d(input, pool_vec<2>(o.kernel_size()), pool_vec<2>(o.stride()),
                           pool_vec<2>(o.padding()), pool_vec<2>(o.dilation()), o.ceil_mode());
}
Tensor max_pool3d(const Tensor& input, const MaxPool3dFuncOptions& o) {
  return ember::max_pool3d(input, pool_vec<3>(o.kernel_size()), pool_vec<3>(o.stride()),
                           pool_vec<3>(o.padding()), pool_vec<3>(o.dilation()), o.ceil_mode());
}
std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input,
                                                   const MaxPool1dFuncOptions& o) {
  return ember::max_pool1d_with_indices(input, pool_vec<1>(o.kernel_size()),
                                        pool_vec<1>(o.stride()), pool_vec<1>(o.padding()),
                                        pool_vec<1>(o.dilation()), o.ceil_mode());
}
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input,
                                                   const MaxPool2dFuncOptions& o) {
  return ember::max_pool2d_with_indices(input, pool_vec<2>(o.kernel_size()),
                                        pool_vec<2>(o.stride()), pool_vec<2>(o.padding()),
                                        pool_vec<2>(o.dilation()), o.ceil_mode());
}
std::tuple<Tensor, Tensor> max_pool3d_with_indices(const Tensor& input,
                                                   const MaxPool3dFuncOptions& o) {
  return ember::max_pool3d_with_indices(input, pool_vec<3>(o.kernel_size()),
                                        pool_vec<3>(o.stride()), pool_vec<3>(o.padding()),
                                        pool_vec<3>(o.dilation()), o.ceil_mode());
}

std::tuple<Tensor, Tensor> adaptive_max_pool1d_with_indices(const Tensor& input,
                                                            const AdaptiveMaxPool1dFuncOptions& o) {
  return ember::adaptive_max_pool1d(input, pool_vec<1>(o.output_size()));
}
std::tuple<Tensor, Tensor> adaptive_max_pool2d_with_indices(const Tensor& input,
                                                            const AdaptiveMaxPool2dFuncOptions& o) {
  return ember::adaptive_max_pool2d(
      input, pool_fill_output_size<2>(input, o.output_size(), "adaptive_max_pool2d"));
}
std::tuple<Tensor, Tensor> adaptive_max_pool3d_with_indices(const Tensor& input,
                                                            const AdaptiveMaxPool3dFuncOptions& o) {
  return ember::adaptive_max_pool3d(
      input, pool_fill_output_size<3>(input, o.output_size(), "adaptive_max_pool3d"));
}
Tensor adaptive_max_pool1d(const Tensor& input, const AdaptiveMaxPool1dFuncOptions& o) {
  return std::get<0>(adaptive_max_pool1d_with_indices(input, o));
}
Tensor adaptive_max_pool2d(const Tensor& input, const AdaptiveMaxPool2dFuncOptions& o) {
  return std::get<0>(adaptive_max_pool2d_with_indices(input, o));
}
Tensor adaptive_max_pool3d(const Tensor& input, const AdaptiveMaxPool3dFuncOptions& o) {
  return std::get<0>(adaptive_max_pool3d_with_indices(input, o));
}

Tensor adaptive_avg_pool1d(const Tensor& input, const AdaptiveAvgPool1dFuncOptions& o) {
  return ember::adaptive_avg_pool1d(input, pool_vec<1>(o.output_size()));
}
Tensor adaptive_avg_pool2d(const Tensor& input, const AdaptiveAvgPool2dFuncOptions& o) {
  return ember::adaptive_avg_pool2d(
      input, pool_fill_output_size<2>(input, o.output_size(), "adaptive_avg_pool2d"));
}
Tensor adaptive_avg_pool3d(const Tensor& input, const AdaptiveAvgPool3dFuncOptions& o) {
  return ember::adaptive_avg_pool3d(
      input, pool_fill_output_size<3>(input, o.output_size(), "adaptive_avg_pool3d"));
}

std::vector<int64_t> _unpool_output_size(const Tensor& input, IntArrayRef kernel_size,
                                         IntArrayRef stride, IntArrayRef padding,
                                         const std::optional<std::vector<int64_t>>& output_size) {
  const int64_t nd = static_cast<int64_t>(kernel_size.size());
  EMBER_CHECK(input.dim() >= nd,
              "max_unpool{}d: expected an input with at least {} dims, but got {}", nd, nd,
              input.sizes());
  std::vector<int64_t> dflt;
  for (int64_t d = 0; d < nd; ++d)
    dflt.push_back((input.size(input.dim() - nd + d) - 1) * stride[d] + kernel_size[d] -
                   2 * padding[d]);
  if (!output_size) return dflt;
  std::vector<int64_t> out = *output_size;
  if (static_cast<int64_t>(out.size()) == nd + 2) out.erase(out.begin(), out.begin() + 2);
  EMBER_CHECK_VALUE(static_cast<int64_t>(out.size()) == nd,
                    "max_unpool{}d: output_size should be a sequence containing {} or {} "
                    "elements, but it has a length of {}",
                    nd, nd, nd + 2, output_size->size());
  for (int64_t d = 0; d < nd; ++d) {
    // Python's bounds (strict): the sizes a pooling with this stride could have come from.
    const int64_t lo = dflt[d] - stride[d], hi = dflt[d] + stride[d];
    EMBER_CHECK_VALUE(lo < out[d] && out[d] < hi,
                      "max_unpool{}d: invalid output_size {} (dim {} must be between {} and {}, "
                      "exclusive)",
                      nd, IntArrayRef(out), d, lo, hi);
  }
  return out;
}

Tensor max_unpool1d(const Tensor& input, const Tensor& indices,
                    const MaxUnpool1dFuncOptions& options) {
  return pool_unpool<1>(input, indices, options);
}
Tensor max_unpool2d(const Tensor& input, const Tensor& indices,
                    const MaxUnpool2dFuncOptions& options) {
  return pool_unpool<2>(input, indices, options);
}
Tensor max_unpool3d(const Tensor& input, const Tensor& indices,
                    const MaxUnpool3dFuncOptions& options) {
  return pool_unpool<3>(input, indices, options);
}

std::tuple<Tensor, Tensor> fractional_max_pool2d_with_indices(
    const Tensor& input, const FractionalMaxPool2dFuncOptions& options) {
  return pool_fractional<2>(input, options, "fractional_max_pool2d");
}
std::tuple<Tensor, Tensor> fractional_max_pool3d_with_indices(
    const Tensor& input, const FractionalMaxPool3dFuncOptions& options) {
  return pool_fractional<3>(input, options, "fractional_max_pool3d");
}
Tensor fractional_max_pool2d(const Tensor& input, const FractionalMaxPool2dFuncOptions& options) {
  return std::get<0>(fractional_max_pool2d_with_indices(input, options));
}
Tensor fractional_max_pool3d(const Tensor& input, const FractionalMaxPool3dFuncOptions& options) {
  return std::get<0>(fractional_max_pool3d_with_indices(input, options));
}

Tensor lp_pool1d(const Tensor& input, const LPPool1dFuncOptions& options) {
  return lp_pool_impl<1>(input, options, "lp_pool1d");
}
Tensor lp_pool2d(const Tensor& input, const LPPool2dFuncOptions& options) {
  return lp_pool_impl<2>(input, options, "lp_pool2d");
}
Tensor lp_pool3d(const Tensor& input, const LPPool3dFuncOptions& options) {
  return lp_pool_impl<3>(input, options, "lp_pool3d");
}

}  // namespace ember::nn::functional

// nn op table entries of the convolutions (golden family "nn_conv"; the layout of each op's record
// is documented in tests/golden/gen/nn_conv.py).
#include "ember/nn/functional/conv.h"
#include "ember/ops/nn_conv.h"
#include "tests/nn/nn_op_info.h"

namespace F = ember::nn::functional;
using ember::Tensor;
using ember_test::Args;
using ember_test::nn_op;
using ember_test::NnOpInfo;

namespace {

const char* const kConvFamily = "nn_conv";

Tensor conv_golden_bias(const GoldenCase& c, const Tensor& b) {
  return c.has_flag("no_bias") ? Tensor() : b;
}

// F::conv{D}d with the case's options (padding amounts or "same"/"valid").
template <size_t D, class Fn>
NnOpInfo conv_entry(const char* name, Fn fn) {
  return nn_op(name, kConvFamily, {0, 1, 2}, [fn](const Args& a, const GoldenCase& c) {
    F::ConvFuncOptions<D> o;
    o.bias(conv_golden_bias(c, a[2]))
        .stride(ember::ExpandingArray<D>(c.int_lists.at(0)))
        .dilation(ember::ExpandingArray<D>(c.int_lists.at(2)))
        .groups(c.ints.at(0));
    if (!c.has_flag("str_padding"))
      o.padding(ember::ExpandingArray<D>(c.int_lists.at(1)));
    else if (c.strs.at(0) == "same")
      o.padding(ember::kSame);
    else
      o.padding(ember::kValid);
    return fn(a[0], a[1], o);
  });
}

template <size_t D, class Fn>
NnOpInfo conv_transpose_entry(const char* name, Fn fn) {
  return nn_op(name, kConvFamily, {0, 1, 2}, [fn](const Args& a, const GoldenCase& c) {
    return fn(a[0], a[1],
              F::ConvTransposeFuncOptions<D>()
                  .bias(conv_golden_bias(c, a[2]))
                  .stride(ember::ExpandingArray<D>(c.int_lists.at(0)))
                  .padding(ember::ExpandingArray<D>(c.int_lists.at(1)))
                  .dilation(ember::ExpandingArray<D>(c.int_lists.at(2)))
                  .output_padding(ember::ExpandingArray<D>(c.int_lists.at(3)))
                  .groups(c.ints.at(0)));
  });
}

}  // namespace

EMBER_NN_OP_FAMILY(conv) {
  return {
      conv_entry<1>("conv1d", [](const Tensor& x, const Tensor& w,
                                 const F::Conv1dFuncOptions& o) { return F::conv1d(x, w, o); }),
      conv_entry<2>("conv2d", [](const Tensor& x, const Tensor& w,
                                 const F::Conv2dFuncOptions& o) { return F::conv2d(x, w, o); }),
      conv_entry<3>("conv3d", [](const Tensor& x, const Tensor& w,
                                 const F::Conv3dFuncOptions& o) { return F::conv3d(x, w, o); }),
      conv_transpose_entry<1>(
          "conv_transpose1d",
          [](const Tensor& x, const Tensor& w, const F::ConvTranspose1dFuncOptions& o) {
            return F::conv_transpose1d(x, w, o);
          }),
      conv_transpose_entry<2>(
          "conv_transpose2d",
          [](const Tensor& x, const Tensor& w, const F::ConvTranspose2dFuncOptions& o) {
            return F::conv_transpose2d(x, w, o);
          }),
      conv_transpose_entry<3>(
          "conv_transpose3d",
          [](const Tensor& x, const Tensor& w, const F::ConvTranspose3dFuncOptions& o) {
            return F::conv_transpose3d(x, w, o);
          }),
  };
}

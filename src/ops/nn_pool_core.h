// The differentiable primitives the pool family is built from (private to the library). Each
// takes batched (N, C, *spatial) operands with nd = 1..3 spatial dims, runs its kernel row through
// the dispatcher, and records its backward (src/autograd/derivatives/pool.cpp) written with the
// others, so gradients of gradients work: max pooling's backward is pool_scatter, whose backward
// is pool_gather, and avg_pool's backward is avg_pool_backward, whose backward is avg_pool.
#pragma once

#include <tuple>

#include "ember/core/tensor.h"
#include "kernels/common/pool_params.h"

namespace ember::pool {

/// A pooling window description with nd spatial dims stored right-aligned in D, H, W slots (the
/// unused leading slots are kernel 1, stride 1, pad 0, dilation 1).
struct PoolSpec {
  int nd = 2;
  int64_t kernel[kPoolMaxDims] = {1, 1, 1};
  int64_t stride[kPoolMaxDims] = {1, 1, 1};
  int64_t pad[kPoolMaxDims] = {0, 0, 0};
  int64_t dilation[kPoolMaxDims] = {1, 1, 1};
  bool adaptive = false;
  bool count_include_pad = true;
  int64_t divisor_override = 0;
  /// The output's spatial sizes (right-aligned too; leading slots 1).
  int64_t out[kPoolMaxDims] = {1, 1, 1};
};

/// Sizes and strides of a batched (N, C, *spatial) tensor with nd spatial dims.
PoolGeometry geometry_of(const Tensor& t, int nd);

/// An uninitialised (N, C, *out) tensor like `ref`, channels-last when `ref` is.
Tensor empty_pooled(const Tensor& ref, IntArrayRef sizes, ScalarType dtype);

/// Max pooling (windowed or adaptive): the values and their int64 flat spatial indices. With
/// need_indices false the indices are undefined: not computed at all without a gradient to
/// record, and replaced by window offsets for the backward where max_pool_2x2_applies.
std::tuple<Tensor, Tensor> max_pool(const char* node, const Tensor& x, const PoolSpec& s,
                                    bool need_indices = true);

/// Whether max_pool with spec `s` on `x` takes the 2x2 path that keeps one byte per output for
/// the backward (max_pool_2x2 row): 2x2 windows at stride 2, no padding or dilation, over a dense
/// NCHW x of even height and width, on a backend with both rows for x's dtype.
bool max_pool_2x2_applies(const Tensor& x, const PoolSpec& s);

/// The input gradient of that pooling for an input of `input_sizes` (N, C, 2·OH, 2·OW) from the
/// window offsets its forward kept; linear in `grad`.
Tensor max_pool_2x2_backward(const Tensor& grad, const Tensor& offsets, IntArrayRef input_sizes);

/// large's element at each window offset (shaped as offsets): max_pool_2x2_backward's derivative,
/// composed of differentiable ops (view, permute, gather).
Tensor gather_at_offsets(const Tensor& large, const Tensor& offsets);

/// Average pooling (windowed or adaptive).
Tensor avg_pool(const char* node, const Tensor& x, const PoolSpec& s);

/// The input gradient of avg_pool for an input of `input_sizes`; linear in `grad`.
Tensor avg_pool_backward(const Tensor& grad, const PoolSpec& s, IntArrayRef input_sizes);

/// A (N, C, *large_spatial) tensor holding `src` at `indices` (zeros elsewhere): summed where
/// indices repeat, or the last one written with `assign` (max_unpool). `op` names the caller in
/// the error thrown for an index outside the output.
Tensor pool_scatter(const char* op, const Tensor& src, const Tensor& indices,
                    IntArrayRef large_sizes, bool assign);

/// The elements of `large` at `indices` (shaped as indices).
Tensor pool_gather(const char* op, const Tensor& large, const Tensor& indices);

/// Fractional max pooling (nd 2 or 3): values and indices; samples [N, C, nd] in the input's
/// dtype, already checked.
std::tuple<Tensor, Tensor> fractional_max_pool(const char* node, const Tensor& x, int nd,
                                               const int64_t* kernel, const int64_t* out,
                                               const Tensor& samples);

}  // namespace ember::pool

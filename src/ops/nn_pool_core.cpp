// The pool family's differentiable primitives: allocation in the input's layout, the call through
// the dispatcher, and the recording of the backward.
#include "src/ops/nn_pool_core.h"

#include <limits>
#include <string>

#include "ember/ops/factory.h"
#include "src/autograd/derivatives/pool.h"
#include "src/autograd/record.h"
#include "src/core/check.h"
#include "src/dispatch/dispatch.h"

namespace ember::pool {

PoolGeometry geometry_of(const Tensor& t, int nd) {
  PoolGeometry g;
  g.stride_n = t.stride(0);
  g.stride_c = t.stride(1);
  for (int i = 0; i < nd; ++i) {
    g.size[kPoolMaxDims - nd + i] = t.size(2 + i);
    g.stride[kPoolMaxDims - nd + i] = t.stride(2 + i);
  }
  return g;
}

Tensor empty_pooled(const Tensor& ref, IntArrayRef sizes, ScalarType dtype) {
  std::optional<MemoryFormat> fmt;
  // Channels-last stays channels-last (PyTorch's pooling keeps the suggested format).
  if (ref.dim() == 4 && ref.suggest_memory_format() == MemoryFormat::ChannelsLast)
    fmt = MemoryFormat::ChannelsLast;
  if (ref.dim() == 5 && ref.suggest_memory_format() == MemoryFormat::ChannelsLast3d)
    fmt = MemoryFormat::ChannelsLast3d;
  return empty(sizes, ref.options().dtype(dtype), fmt);
}

namespace {

PoolParams params_of(const PoolSpec& s, const Tensor& in, const Tensor& out) {
  PoolParams p;
  p.batch = in.size(0);
  p.channels = in.size(1);
  p.in = geometry_of(in, s.nd);
  p.out = geometry_of(out, s.nd);
  for (int i = 0; i < kPoolMaxDims; ++i) {
    p.kernel[i] = s.kernel[i];
    p.stride[i] = s.stride[i];
    p.pad[i] = s.pad[i];
    p.dilation[i] = s.dilation[i];
  }
  p.adaptive = s.adaptive;
  p.count_include_pad = s.count_include_pad;
  p.divisor_override = s.divisor_override;
  return p;
}

DimVector pooled_sizes(const Tensor& x, const PoolSpec& s) {
  DimVector sizes{x.size(0), x.size(1)};
  for (int i = kPoolMaxDims - s.nd; i < kPoolMaxDims; ++i) sizes.push_back(s.out[i]);
  return sizes;
}

}  // namespace

bool max_pool_2x2_applies(const Tensor& x, const PoolSpec& s) {
  if (s.nd != 2 || s.adaptive || x.dim() != 4 || x.numel() == 0 || !x.is_contiguous()) return false;
  for (int i = 1; i < kPoolMaxDims; ++i)
    if (s.kernel[i] != 2 || s.stride[i] != 2 || s.pad[i] != 0 || s.dilation[i] != 1 ||
        x.size(1 + i) != 2 * s.out[i])
      return false;
  const DeviceType dev = x.device().type();
  return supports(OpId::max_pool_2x2, dev, x.dtype()) &&
         supports(OpId::max_pool_2x2_backward, dev, x.dtype());
}

namespace {

// Training's 2x2 max pool: values, and one byte per output naming its window's winning tap, which
// is all the backward needs. A LeNet step keeps 64x32x12x12 of them: 0.3 MiB instead of 2.4 MiB
// of int64 indices, written in the forward and read back in the backward.
Tensor max_pool_2x2_with_offsets(const char* node, const Tensor& x, const PoolSpec& s) {
  const DimVector sizes = pooled_sizes(x, s);
  Tensor y = empty(sizes, x.options());
  Tensor offsets = empty(sizes, x.options().dtype(kByte));
  PoolParams p = params_of(s, x, y);
  p.input = const_cast<void*>(x.data_ptr());
  p.output = y.data_ptr();
  p.offsets = offsets.data_ptr<uint8_t>();
  get_kernel<OpId::max_pool_2x2>(x.device().type(), x.dtype())(x.dtype(), p);
  autograd::derivatives::max_pool_2x2(node, y, offsets, x);
  return y;
}

}  // namespace

Tensor max_pool_2x2_backward(const Tensor& grad_in, const Tensor& offsets,
                             IntArrayRef input_sizes) {
  // The engine passes a gradient shaped as the forward's output, but a node can be called by
  // hand: the kernel trusts these sizes.
  EMBER_CHECK(grad_in.dim() == 4 && grad_in.sizes() == offsets.sizes() &&
                  grad_in.device() == offsets.device() && input_sizes.size() == 4 &&
                  input_sizes[0] == offsets.size(0) && input_sizes[1] == offsets.size(1) &&
                  input_sizes[2] == 2 * offsets.size(2) && input_sizes[3] == 2 * offsets.size(3),
              "max_pool2d backward: expected a gradient of the pooled size {} on {} for an input "
              "of size {}, got {} on {}",
              offsets.sizes(), offsets.device(), input_sizes, grad_in.sizes(), grad_in.device());
  autograd::OpRecording rec(grad_in);
  const Tensor grad = grad_in.contiguous();
  Tensor gx = empty(input_sizes, grad.options());
  PoolSpec s;
  for (int i = 1; i < kPoolMaxDims; ++i) {
    s.kernel[i] = s.stride[i] = 2;
    s.out[i] = grad.size(1 + i);
  }
  PoolParams p = params_of(s, gx, grad);
  p.input = gx.data_ptr();
  p.output = const_cast<void*>(grad.data_ptr());
  p.offsets = const_cast<uint8_t*>(offsets.data_ptr<uint8_t>());
  get_kernel<OpId::max_pool_2x2_backward>(grad.device().type(), grad.dtype())(grad.dtype(), p);
  if (rec) autograd::derivatives::max_pool_2x2_backward(gx, grad_in, offsets);
  return gx;
}

Tensor gather_at_offsets(const Tensor& large, const Tensor& offsets) {
  const int64_t n = offsets.size(0), c = offsets.size(1), oh = offsets.size(2),
                ow = offsets.size(3);
  // [N, C, OH, 2, OW, 2] -> [N, C, OH, OW, 4]: a window's taps in offset order.
  const Tensor taps =
      large.reshape({n, c, oh, 2, ow, 2}).permute({0, 1, 2, 4, 3, 5}).reshape({n, c, oh, ow, 4});
  return taps.gather(4, offsets.to(kLong).unsqueeze(4)).squeeze(4);
}

std::tuple<Tensor, Tensor> max_pool(const char* node, const Tensor& x, const PoolSpec& s,
                                    bool need_indices) {
  autograd::OpRecording rec(x);
  if (rec && !need_indices && max_pool_2x2_applies(x, s))
    return {max_pool_2x2_with_offsets(node, x, s), Tensor()};
  const DimVector sizes = pooled_sizes(x, s);
  Tensor y = empty_pooled(x, sizes, x.dtype());
  // Inference without indices skips writing them (8 bytes per output, 2x the values' traffic).
  Tensor idx = need_indices || rec ? empty_pooled(x, sizes, kLong) : Tensor();
  if (y.numel() > 0) {
    PoolParams p = params_of(s, x, y);
    p.input = const_cast<void*>(x.data_ptr());
    p.output = y.data_ptr();
    p.indices = idx.defined() ? idx.data_ptr<int64_t>() : nullptr;
    get_kernel<OpId::max_pool>(x.device().type(), x.dtype())(x.dtype(), p);
  }
  if (rec) autograd::derivatives::max_pool(node, y, idx, x);
  return {y, idx};
}

Tensor avg_pool(const char* node, const Tensor& x, const PoolSpec& s) {
  autograd::OpRecording rec(x);
  Tensor y = empty_pooled(x, pooled_sizes(x, s), x.dtype());
  if (y.numel() > 0) {
    PoolParams p = params_of(s, x, y);
    p.input = const_cast<void*>(x.data_ptr());
    p.output = y.data_ptr();
    get_kernel<OpId::avg_pool>(x.device().type(), x.dtype())(x.dtype(), p);
  }
  if (rec) autograd::derivatives::avg_pool(node, y, x, s);
  return y;
}

namespace {

// `t` laid out densely (channels-last kept): a gradient may arrive expanded (stride 0, from
// sum()), which the strided loops handle but oneDNN runs through its slow reference kernel.
Tensor pool_dense(const Tensor& t) {
  if (t.dim() == 4 && t.suggest_memory_format() == MemoryFormat::ChannelsLast)
    return t.contiguous(MemoryFormat::ChannelsLast);
  if (t.dim() == 5 && t.suggest_memory_format() == MemoryFormat::ChannelsLast3d)
    return t.contiguous(MemoryFormat::ChannelsLast3d);
  return t.contiguous();
}

}  // namespace

Tensor avg_pool_backward(const Tensor& grad_in, const PoolSpec& s, IntArrayRef input_sizes) {
  autograd::OpRecording rec(grad_in);
  const Tensor grad = pool_dense(grad_in);
  Tensor gx = empty_pooled(grad, input_sizes, grad.dtype());
  if (gx.numel() > 0) {
    if (grad.numel() == 0) {
      gx.zero_();
    } else {
      PoolParams p = params_of(s, gx, grad);
      p.input = gx.data_ptr();
      p.output = const_cast<void*>(grad.data_ptr());
      get_kernel<OpId::avg_pool_backward>(grad.device().type(), grad.dtype())(grad.dtype(), p);
    }
  }
  if (rec) autograd::derivatives::avg_pool_backward(gx, grad_in, s);
  return gx;
}

namespace {

PoolIndexParams index_params(const Tensor& small, const Tensor& indices, const Tensor& large,
                             int nd) {
  PoolIndexParams p;
  p.batch = small.size(0);
  p.channels = small.size(1);
  p.small = geometry_of(small, nd);
  p.large = geometry_of(large, nd);
  p.indices = indices.data_ptr<int64_t>();
  p.small_data = const_cast<void*>(small.data_ptr());
  p.large_data = const_cast<void*>(large.data_ptr());
  return p;
}

std::string volume_text(const Tensor& t) {
  std::string s;
  for (int64_t d = 2; d < t.dim(); ++d) s += (d > 2 ? "x" : "") + std::to_string(t.size(d));
  return s;
}

}  // namespace

Tensor pool_scatter(const char* op, const Tensor& src, const Tensor& indices,
                    IntArrayRef large_sizes, bool assign) {
  autograd::OpRecording rec(src);
  const int nd = static_cast<int>(src.dim()) - 2;
  // Strides must match between values and indices: lay both out as the indices are.
  const Tensor v = src.strides() == indices.strides() ? src : src.contiguous();
  const Tensor i = v.strides() == indices.strides() ? indices : indices.contiguous();
  Tensor large = empty_pooled(indices, large_sizes, src.dtype());
  if (large.numel() > 0) {
    if (v.numel() == 0) {
      large.zero_();
    } else {
      int64_t invalid = 0;
      bool bad = false;
      PoolIndexParams p = index_params(v, i, large, nd);
      p.assign = assign;
      p.invalid_index = &invalid;
      p.has_invalid_index = &bad;
      get_kernel<OpId::pool_scatter>(src.device().type(), src.dtype())(src.dtype(), p);
      EMBER_CHECK_INDEX(!bad,
                        "{}: found an invalid max index: {} (the output's spatial size is {}, "
                        "so indices must be in [0, {})). Hint: pass the indices that the "
                        "matching max pooling returned",
                        op, invalid, volume_text(large), p.large.volume());
    }
  }
  if (rec)
    autograd::derivatives::pool_scatter(assign ? "MaxUnpoolBackward0" : "MaxPoolBackward0", large,
                                        src, indices);
  return large;
}

Tensor pool_gather(const char* op, const Tensor& large, const Tensor& indices) {
  autograd::OpRecording rec(large);
  const int nd = static_cast<int>(large.dim()) - 2;
  const Tensor i = indices.contiguous();
  Tensor small = empty(i.sizes(), large.options());
  if (small.numel() > 0) {
    int64_t invalid = 0;
    bool bad = false;
    PoolIndexParams p = index_params(small, i, large, nd);
    p.invalid_index = &invalid;
    p.has_invalid_index = &bad;
    get_kernel<OpId::pool_gather>(large.device().type(), large.dtype())(large.dtype(), p);
    EMBER_CHECK_INDEX(!bad,
                      "{}: found an invalid max index: {} (the spatial size is {}, so indices "
                      "must be in [0, {}))",
                      op, invalid, volume_text(large), p.large.volume());
  }
  if (rec) autograd::derivatives::pool_gather(small, large, indices);
  return small;
}

std::tuple<Tensor, Tensor> fractional_max_pool(const char* node, const Tensor& x, int nd,
                                               const int64_t* kernel, const int64_t* out,
                                               const Tensor& samples) {
  autograd::OpRecording rec(x);
  DimVector sizes{x.size(0), x.size(1)};
  for (int i = 0; i < nd; ++i) sizes.push_back(out[i]);
  Tensor y = empty_pooled(x, sizes, x.dtype());
  Tensor idx = empty_pooled(x, sizes, kLong);
  if (y.numel() > 0) {
    const Tensor u = samples.contiguous();
    FractionalPoolParams p;
    p.batch = x.size(0);
    p.channels = x.size(1);
    p.nd = nd;
    p.in = geometry_of(x, nd);
    p.out = geometry_of(y, nd);
    for (int i = 0; i < nd; ++i) p.kernel[kPoolMaxDims - nd + i] = kernel[i];
    p.samples = u.data_ptr();
    p.input = x.data_ptr();
    p.output = y.data_ptr();
    p.indices = idx.data_ptr<int64_t>();
    get_kernel<OpId::fractional_max_pool>(x.device().type(), x.dtype())(x.dtype(), p);
  }
  if (rec) autograd::derivatives::max_pool(node, y, idx, x);
  return {y, idx};
}

}  // namespace ember::pool

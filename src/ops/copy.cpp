// Copies and conversions: copy_, to(dtype/device), contiguous, clone, fill_, zero_, item().
#include <cstring>

#include "ember/ops/factory.h"
#include "ember/ops/shape.h"
#include "src/autograd/derivatives/copy.h"
#include "src/ops/op_common.h"

namespace ember {

namespace {
// Same-device copy through the cast kernel (which also handles broadcasting and strides).
void copy_same_device(const Tensor& dst, const Tensor& src) {
  Tensor s = src;
  run_elementwise(OpId::cast, dst, {&s}, src.dtype());
}
}  // namespace

const Tensor& Tensor::copy_(const Tensor& src, bool /*non_blocking*/) const {
  check_defined(*this, "copy_");
  check_defined(src, "copy_", "src");
  check_no_internal_overlap(*this, "copy_");
  check_writable(*this, "copy_");
  autograd::InplaceRecording rec("copy_", *this, src);
  autograd::Edges edges;
  if (rec) edges = autograd::edges_of(*this, src);
  EMBER_CHECK(
      src.dim() <= dim() && broadcast_shape(sizes(), src.sizes(), "copy_") == DimVector(sizes()),
      "copy_: the source of shape {} cannot be broadcast to the destination shape {}", src.sizes(),
      sizes());
  if (is_same(src)) return *this;
  if (device().type() == src.device().type()) {
    copy_same_device(*this, src);
  } else {
    // Across devices: make a dense buffer of the destination dtype on the source side, move the
    // bytes, then scatter into the destination's layout on its side.
    Tensor dense_src = src.to(dtype()).expand(sizes()).contiguous();
    Tensor staging = is_contiguous() ? *this : empty(sizes(), options());
    auto mover = get_kernel<OpId::copy>(kCUDA, dtype());
    mover(staging.data_ptr(), device(), dense_src.data_ptr(), src.device(), nbytes());
    if (!staging.is_same(*this)) copy_same_device(*this, staging);
  }
  bump_version(*this);
  if (rec) autograd::derivatives::copy_(*this, src, std::move(edges));
  return *this;
}

Tensor Tensor::to(const TensorOptions& options, bool non_blocking, bool copy) const {
  check_defined(*this, "to");
  EMBER_CHECK(!options.requires_grad(),
              "to: operators taking TensorOptions cannot take a TensorOptions with "
              "requires_grad set (as in LibTorch). Hint: call .requires_grad_() on the result");
  ScalarType t = options.has_dtype() ? options.dtype() : dtype();
  Device d = options.has_device() ? options.device() : device();
  // cuda:1 from cuda:0 is a move; plain kCUDA means "any CUDA device", as in LibTorch.
  const bool same_device =
      d.type() == device().type() && (!d.has_index() || d.index() == device().index());
  if (!copy && t == dtype() && same_device) return *this;
  Tensor out = empty(sizes(), TensorOptions().dtype(t).device(d));
  out.copy_(*this, non_blocking);
  return out;
}
Tensor Tensor::to(ScalarType t, bool nb, bool copy) const {
  return to(TensorOptions().dtype(t), nb, copy);
}
Tensor Tensor::to(Device d, bool nb, bool copy) const {
  return to(TensorOptions().device(d), nb, copy);
}
Tensor Tensor::to(Device d, ScalarType t, bool nb, bool copy) const {
  return to(TensorOptions().device(d).dtype(t), nb, copy);
}
Tensor Tensor::to(const Tensor& other, bool nb, bool copy) const {
  return to(TensorOptions().device(other.device()).dtype(other.dtype()), nb, copy);
}

Tensor Tensor::contiguous() const {
  check_defined(*this, "contiguous");
  if (is_contiguous()) return *this;
  return clone();
}

Tensor clone_into(const Tensor& self, const Tensor& out) {
  autograd::OpRecording rec(self);
  copy_same_device(out, self);
  if (rec) autograd::derivatives::clone(out, self);
  return out;
}

Tensor Tensor::clone() const {
  check_defined(*this, "clone");
  return clone_into(*this, empty(sizes(), options()));
}

const Tensor& Tensor::fill_(const Scalar& value) const {
  check_defined(*this, "fill_");
  check_writable(*this, "fill_");
  autograd::InplaceRecording rec("fill_", *this);
  autograd::Edges edges;
  if (rec) edges = autograd::edges_of(*this);
  OpScalars s;
  s.s[0] = value.toDouble();
  s.i[0] = value.toLong();
  s.is_integral = !value.isFloatingPoint();
  run_elementwise(OpId::fill, *this, {}, dtype(), s);
  bump_version(*this);
  if (rec) autograd::derivatives::fill_(*this, Tensor(), std::move(edges));
  return *this;
}
const Tensor& Tensor::fill_(const Tensor& value) const {
  check_defined(value, "fill_", "value");
  EMBER_CHECK(value.dim() == 0,
              "fill_: only supports 0-dimension value tensor but got tensor with {} dimensions",
              value.dim());
  autograd::InplaceRecording rec("fill_", *this, value);
  autograd::Edges edges;
  if (rec) edges = autograd::edges_of(*this, value);
  fill_(value.item());
  if (rec) autograd::derivatives::fill_(*this, value, std::move(edges));
  return *this;
}
const Tensor& Tensor::zero_() const { return fill_(0); }

Scalar Tensor::item() const {
  check_defined(*this, "item");
  EMBER_CHECK(numel() == 1,
              "item: a Tensor with {} elements cannot be converted to Scalar. Hint: only "
              "one-element tensors have an item",
              numel());
  Tensor host = is_cpu() ? *this : to(Device(kCPU));
  switch (dtype()) {
#define EMBER_ITEM_CASE(ctype, name, short_name) \
  case ScalarType::name:                         \
    return Scalar(*static_cast<const ctype*>(host.data_ptr()));
    EMBER_FORALL_SCALAR_TYPES(EMBER_ITEM_CASE)
#undef EMBER_ITEM_CASE
    default:
      EMBER_FAIL("item: undefined dtype");
  }
}

}  // namespace ember

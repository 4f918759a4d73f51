// Matrix products: mm, mm_out, bmm, matmul, mv, dot, outer, addmm, baddbmm and their Tensor
// methods. Every product becomes GEMM calls described by data pointers and strides
// (kernels/common/gemm_params.h), so transposed, sliced and broadcast operands reach the BLAS
// without copies, and matmul's broadcast batch dims are walked in place rather than materialised.
#include <string>

#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "ember/ops/linalg.h"
#include "ember/ops/shape.h"
#include "kernels/common/gemm_params.h"
#include "src/autograd/derivatives/linalg.h"
#include "src/ops/op_common.h"

namespace ember {
namespace {

// "2x3": how PyTorch prints shapes in product errors.
std::string dims_str(IntArrayRef s) {
  std::string r;
  for (size_t i = 0; i < s.size(); ++i) r += (i ? "x" : "") + std::to_string(s[i]);
  return r;
}

void check_gemm_dtype(const char* op, const Tensor& t) {
  EMBER_CHECK_TYPE(supports(OpId::mm, t.device().type(), t.dtype()),
                   "{}: not implemented for dtype {} on {}. Hint: use a floating-point or integer "
                   "dtype",
                   op, t.dtype(), t.device());
}

// The argument checks every product shares: defined, rank, one device, one dtype.
void check_operands(const char* op, const Tensor& a, const char* a_name, int64_t a_dim,
                    const Tensor& b, const char* b_name, int64_t b_dim) {
  check_defined(a, op, a_name);
  check_defined(b, op, b_name);
  EMBER_CHECK(a.dim() == a_dim,
              "{}: expected {} to be a {}-D tensor, but got a {}-D tensor of shape {}", op, a_name,
              a_dim, a.dim(), a.sizes());
  EMBER_CHECK(b.dim() == b_dim,
              "{}: expected {} to be a {}-D tensor, but got a {}-D tensor of shape {}", op, b_name,
              b_dim, b.dim(), b.sizes());
  check_same_device({&a, &b}, op);
  EMBER_CHECK_TYPE(
      a.dtype() == b.dtype(),
      "{}: expected {} and {} to have the same dtype, but got {} and {}. Hint: convert "
      "one with .to({})",
      op, a_name, b_name, a.dtype(), b.dtype(), a.dtype());
  check_gemm_dtype(op, a);
}

// PyTorch refuses a floating beta/alpha on integer tensors rather than truncating it.
void check_coefficients(const char* op, ScalarType dtype, const Scalar& beta, const Scalar& alpha) {
  if (is_floating_point(dtype)) return;
  EMBER_CHECK_TYPE(!beta.isFloatingPoint() && !alpha.isFloatingPoint(),
                   "{}: for integral input tensors, beta and alpha must not be floating point "
                   "numbers, got beta={} alpha={}",
                   op, beta, alpha);
}

// One matrix operand: element strides of its rows and columns, and of each batch dim of the call
// (0 where it broadcasts).
struct MatArg {
  const Tensor* t = nullptr;
  int64_t rs = 0, cs = 0;
  DimVector batch_strides;
};

// C = alpha·A·B + beta·C over the broadcast `batch` dims. Batch dims that are contiguous with each
// other in all three operands are merged; the innermost remaining one becomes the kernel's batch,
// the outer ones are looped here. A B shared by the whole batch with A's rows evenly spaced across
// it folds into one tall product (matmul(3-D, 2-D) is a single GEMM).
void run_gemm(const MatArg& a, const MatArg& b, const MatArg& c, IntArrayRef batch, int64_t m,
              int64_t n, int64_t k, const Scalar& alpha, const Scalar& beta) {
  int64_t total = m * n;
  for (int64_t s : batch) total *= s;
  if (total == 0) return;

  // Coalesce batch dims (outermost first); size-1 dims drop out.
  DimVector sizes, sa, sb, sc;
  for (size_t d = 0; d < batch.size(); ++d) {
    if (batch[d] == 1) continue;
    const int64_t xa = a.batch_strides[d], xb = b.batch_strides[d], xc = c.batch_strides[d];
    if (!sizes.empty()) {
      const int64_t s = batch[d];
      if (sa.back() == xa * s && sb.back() == xb * s && sc.back() == xc * s) {
        sizes.back() *= s;
        sa.back() = xa;
        sb.back() = xb;
        sc.back() = xc;
        continue;
      }
    }
    sizes.push_back(batch[d]);
    sa.push_back(xa);
    sb.push_back(xb);
    sc.push_back(xc);
  }

  GemmParams p;
  p.m = m;
  p.n = n;
  p.k = k;
  p.a_rs = a.rs;
  p.a_cs = a.cs;
  p.b_rs = b.rs;
  p.b_cs = b.cs;
  p.c_rs = c.rs;
  p.c_cs = c.cs;
  p.alpha = alpha;
  p.beta = beta;
  if (!sizes.empty()) {
    p.batch = sizes.back();
    p.a_bs = sa.back();
    p.b_bs = sb.back();
    p.c_bs = sc.back();
    sizes.pop_back();
    sa.pop_back();
    sb.pop_back();
    sc.pop_back();
  }
  if (p.batch > 1 && p.b_bs == 0 && p.a_bs != 0 && (m == 1 || p.a_bs == m * p.a_rs) &&
      (m == 1 || p.c_bs == m * p.c_rs)) {
    if (m == 1) {
      p.a_rs = p.a_bs;
      p.c_rs = p.c_bs;
    }
    p.m = m * p.batch;
    p.batch = 1;
    p.a_bs = p.c_bs = 0;
  }

  const ScalarType dtype = c.t->dtype();
  const auto kernel =
      get_kernel<GemmKernel>(p.batch > 1 ? OpId::bmm : OpId::mm, c.t->device().type(), dtype);
  const int64_t item = c.t->element_size();
  const char* a0 = static_cast<const char*>(a.t->data_ptr());
  const char* b0 = static_cast<const char*>(b.t->data_ptr());
  char* c0 = static_cast<char*>(c.t->data_ptr());
  // Walk the outer batch dims with an odometer (usually there are none).
  const size_t outer = sizes.size();
  DimVector idx(outer, 0);
  while (true) {
    int64_t oa = 0, ob = 0, oc = 0;
    for (size_t d = 0; d < outer; ++d) {
      oa += idx[d] * sa[d];
      ob += idx[d] * sb[d];
      oc += idx[d] * sc[d];
    }
    p.a = a0 + oa * item;
    p.b = b0 + ob * item;
    p.c = c0 + oc * item;
    kernel(dtype, p);
    size_t d = outer;
    while (d > 0 && ++idx[d - 1] == sizes[d - 1]) idx[--d] = 0;
    if (d == 0) break;
  }
}

MatArg matrix_arg(const Tensor& t, size_t nbatch = 0) {
  return {&t, t.stride(-2), t.stride(-1), DimVector(nbatch, 0)};
}

// out[...] = beta·self + alpha·(a @ b) for 2-D a, b and a fresh (m, n) out.
void gemm_2d(const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha,
             const Scalar& beta) {
  run_gemm(matrix_arg(a), matrix_arg(b), matrix_arg(out), {}, a.size(0), b.size(1), a.size(1),
           alpha, beta);
}

void check_mm_shapes(const char* op, const Tensor& a, const Tensor& b) {
  EMBER_CHECK(a.size(1) == b.size(0),
              "{}: mat1 and mat2 shapes cannot be multiplied ({} and {}). Hint: mat1.size(1) must "
              "equal mat2.size(0)",
              op, dims_str(a.sizes()), dims_str(b.sizes()));
}

void check_bmm_shapes(const char* op, const Tensor& a, const Tensor& b) {
  EMBER_CHECK(a.size(0) == b.size(0),
              "{}: batch1 and batch2 must have the same batch size, but got {} and {} (shapes {} "
              "and {})",
              op, a.size(0), b.size(0), dims_str(a.sizes()), dims_str(b.sizes()));
  EMBER_CHECK(a.size(2) == b.size(1),
              "{}: batch1 and batch2 shapes cannot be multiplied ({} and {}). Hint: "
              "batch1.size(2) must equal batch2.size(1)",
              op, dims_str(a.sizes()), dims_str(b.sizes()));
}

void bmm_into(const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha,
              const Scalar& beta) {
  MatArg ma = matrix_arg(a), mb = matrix_arg(b), mc = matrix_arg(out);
  ma.batch_strides = {a.size(0) == 1 ? 0 : a.stride(0)};
  mb.batch_strides = {b.size(0) == 1 ? 0 : b.stride(0)};
  mc.batch_strides = {out.stride(0)};
  DimVector batch{out.size(0)};
  run_gemm(ma, mb, mc, batch, a.size(1), b.size(2), a.size(2), alpha, beta);
}

// Fills a fresh `out` with beta·self (broadcast), or leaves it for the GEMM to overwrite when
// beta == 0 (self is then not read at all, so NaN in it does not leak, as in PyTorch).
void init_bias(const char* op, const Tensor& out, const Tensor& self, const Scalar& beta) {
  check_defined(self, op, "self");
  check_same_device({&out, &self}, op);
  EMBER_CHECK_TYPE(self.dtype() == out.dtype(),
                   "{}: expected self and the product to have the same dtype, but got {} and {}",
                   op, self.dtype(), out.dtype());
  const bool ok = self.dim() <= out.dim() && [&] {
    for (int64_t i = 1; i <= self.dim(); ++i) {
      const int64_t s = self.size(-i), o = out.size(-i);
      if (s != o && s != 1) return false;
    }
    return true;
  }();
  EMBER_CHECK(ok, "{}: self of shape {} cannot be broadcast to the product's shape {}", op,
              self.sizes(), out.sizes());
  if (beta.toDouble() != 0) out.copy_(self);
}

}  // namespace

Tensor mm(const Tensor& self, const Tensor& mat2) {
  check_operands("mm", self, "mat1", 2, mat2, "mat2", 2);
  check_mm_shapes("mm", self, mat2);
  autograd::OpRecording rec(self, mat2);
  Tensor out = empty({self.size(0), mat2.size(1)}, self.options());
  gemm_2d(out, self, mat2, 1, 0);
  if (rec) autograd::derivatives::mm(out, self, mat2);
  return out;
}

const Tensor& mm_out(const Tensor& out, const Tensor& self, const Tensor& mat2) {
  check_operands("mm_out", self, "mat1", 2, mat2, "mat2", 2);
  check_mm_shapes("mm_out", self, mat2);
  check_defined(out, "mm_out", "out");
  autograd::check_out_not_differentiable("mm_out", self, mat2);
  check_same_device({&out, &self}, "mm_out");
  EMBER_CHECK_TYPE(out.dtype() == self.dtype(),
                   "mm_out: expected out to have dtype {}, but got {}. Hint: allocate out with the "
                   "inputs' dtype",
                   self.dtype(), out.dtype());
  resize_output(out, {self.size(0), mat2.size(1)}, "mm_out");
  // BLAS must not write into memory it is still reading: compute aside when out aliases an input.
  const auto& st = out.unsafeGetTensorImpl()->storage();
  if (st == self.unsafeGetTensorImpl()->storage() || st == mat2.unsafeGetTensorImpl()->storage()) {
    out.copy_(mm(self, mat2));
  } else {
    gemm_2d(out, self, mat2, 1, 0);
  }
  bump_version(out);
  return out;
}

Tensor bmm(const Tensor& self, const Tensor& mat2) {
  check_operands("bmm", self, "batch1", 3, mat2, "batch2", 3);
  check_bmm_shapes("bmm", self, mat2);
  autograd::OpRecording rec(self, mat2);
  Tensor out = empty({self.size(0), self.size(1), mat2.size(2)}, self.options());
  bmm_into(out, self, mat2, 1, 0);
  if (rec) autograd::derivatives::bmm(out, self, mat2);
  return out;
}

Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
             const Scalar& alpha) {
  check_operands("addmm", mat1, "mat1", 2, mat2, "mat2", 2);
  check_mm_shapes("addmm", mat1, mat2);
  check_coefficients("addmm", mat1.dtype(), beta, alpha);
  autograd::OpRecording rec(self, mat1, mat2);
  Tensor out = empty({mat1.size(0), mat2.size(1)}, mat1.options());
  init_bias("addmm", out, self, beta);
  gemm_2d(out, mat1, mat2, alpha, beta);
  if (rec) autograd::derivatives::addmm(out, self, mat1, mat2, beta, alpha);
  return out;
}

Tensor baddbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
               const Scalar& alpha) {
  check_operands("baddbmm", batch1, "batch1", 3, batch2, "batch2", 3);
  check_bmm_shapes("baddbmm", batch1, batch2);
  check_coefficients("baddbmm", batch1.dtype(), beta, alpha);
  autograd::OpRecording rec(self, batch1, batch2);
  Tensor out = empty({batch1.size(0), batch1.size(1), batch2.size(2)}, batch1.options());
  init_bias("baddbmm", out, self, beta);
  bmm_into(out, batch1, batch2, alpha, beta);
  if (rec) autograd::derivatives::baddbmm(out, self, batch1, batch2, beta, alpha);
  return out;
}

Tensor mv(const Tensor& self, const Tensor& vec) {
  check_operands("mv", self, "self", 2, vec, "vec", 1);
  EMBER_CHECK(self.size(1) == vec.size(0),
              "mv: size mismatch, got input ({}) and vec ({}). Hint: self.size(1) must equal "
              "vec.size(0)",
              dims_str(self.sizes()), vec.size(0));
  autograd::OpRecording rec(self, vec);
  Tensor out = empty({self.size(0)}, self.options());
  // vec is a k x 1 matrix, out an m x 1 one.
  run_gemm(matrix_arg(self), {&vec, vec.stride(0), 1, {}}, {&out, out.stride(0), 1, {}}, {},
           self.size(0), 1, self.size(1), 1, 0);
  if (rec) autograd::derivatives::mv(out, self, vec);
  return out;
}

Tensor dot(const Tensor& self, const Tensor& other) {
  check_operands("dot", self, "self", 1, other, "other", 1);
  EMBER_CHECK(self.size(0) == other.size(0),
              "dot: expected both vectors to have the same number of elements, but got {} and {}",
              self.size(0), other.size(0));
  autograd::OpRecording rec(self, other);
  Tensor out = empty({}, self.options());
  // A 1 x k row times a k x 1 column.
  run_gemm({&self, 1, self.stride(0), {}}, {&other, other.stride(0), 1, {}}, {&out, 1, 1, {}}, {},
           1, 1, self.size(0), 1, 0);
  if (rec) autograd::derivatives::dot(out, self, other);
  return out;
}

Tensor outer(const Tensor& self, const Tensor& vec2) {
  check_defined(self, "outer", "self");
  check_defined(vec2, "outer", "vec2");
  EMBER_CHECK(self.dim() == 1 && vec2.dim() == 1,
              "outer: expected two 1-D tensors, but got shapes {} and {}", self.sizes(),
              vec2.sizes());
  check_same_device({&self, &vec2}, "outer");
  // outer is elementwise multiplication in PyTorch, so it promotes mixed dtypes.
  const ScalarType dtype = result_type_of({&self, &vec2}, {});
  if (dtype == kBool) return mul(self.unsqueeze(1), vec2);
  autograd::OpRecording rec(self, vec2);  // before the casts, which must not record
  const Tensor a = cast_to(self, dtype), b = cast_to(vec2, dtype);
  check_gemm_dtype("outer", a);
  Tensor out = empty({a.size(0), b.size(0)}, a.options());
  // An m x 1 column times a 1 x n row (k = 1).
  run_gemm({&a, a.stride(0), 1, {}}, {&b, 1, b.stride(0), {}}, matrix_arg(out), {}, a.size(0),
           b.size(0), 1, 1, 0);
  if (rec) autograd::derivatives::outer(out, self, vec2);
  return out;
}

// numpy semantics: a 1-D operand is a row (left) or column (right) that is dropped from the result;
// all dims before the last two are batch dims, broadcast against each other.
Tensor matmul(const Tensor& self, const Tensor& other) {
  check_defined(self, "matmul", "self");
  check_defined(other, "matmul", "other");
  const int64_t d1 = self.dim(), d2 = other.dim();
  EMBER_CHECK(d1 >= 1 && d2 >= 1,
              "matmul: both arguments need to be at least 1-D, but they are {}-D and {}-D", d1, d2);
  // Checked here, before dot/mv/mm take the 1-D and 2-D cases, so errors name matmul.
  check_same_device({&self, &other}, "matmul");
  EMBER_CHECK_TYPE(self.dtype() == other.dtype(),
                   "matmul: expected self and other to have the same dtype, but got {} and {}. "
                   "Hint: convert one with .to({})",
                   self.dtype(), other.dtype(), self.dtype());
  check_gemm_dtype("matmul", self);
  const int64_t m = d1 >= 2 ? self.size(-2) : 1, k = self.size(-1);
  const int64_t k2 = d2 >= 2 ? other.size(-2) : other.size(0), n = d2 >= 2 ? other.size(-1) : 1;
  EMBER_CHECK(k == k2,
              "matmul: shapes cannot be multiplied ({} and {}). Hint: self.size(-1) must equal "
              "other.size({})",
              dims_str(self.sizes()), dims_str(other.sizes()), d2 >= 2 ? -2 : 0);
  if (d1 == 1 && d2 == 1) return dot(self, other);
  if (d1 == 2 && d2 == 1) return mv(self, other);
  if (d1 == 2 && d2 == 2) return mm(self, other);
  const IntArrayRef batch1 = self.sizes().slice(0, std::max<int64_t>(0, d1 - 2));
  const IntArrayRef batch2 = other.sizes().slice(0, std::max<int64_t>(0, d2 - 2));
  const DimVector batch = broadcast_shape(batch1, batch2, "matmul");
  const size_t nb = batch.size();

  DimVector out_shape = batch;
  if (d1 >= 2) out_shape.push_back(m);
  if (d2 >= 2) out_shape.push_back(n);
  autograd::OpRecording rec(self, other);
  Tensor out = empty(out_shape, self.options());

  // Broadcast batch strides: right-aligned, 0 where the operand lacks the dim or has size 1.
  auto batch_strides = [&](const Tensor& t, IntArrayRef tb) {
    DimVector s(nb, 0);
    for (size_t i = 0; i < tb.size(); ++i)
      if (tb[i] != 1) s[nb - tb.size() + i] = t.stride(static_cast<int64_t>(i));
    return s;
  };
  MatArg a{&self, d1 >= 2 ? self.stride(-2) : 0, self.stride(-1), batch_strides(self, batch1)};
  MatArg b{&other, d2 >= 2 ? other.stride(-2) : other.stride(0), d2 >= 2 ? other.stride(-1) : 1,
           batch_strides(other, batch2)};
  // out is contiguous: its rows are n apart (1 apart when other is a vector and n == 1).
  MatArg c{&out, d2 >= 2 ? n : 1, 1, {}};
  c.batch_strides.assign(out.strides().begin(), out.strides().begin() + nb);
  run_gemm(a, b, c, batch, m, n, k, 1, 0);
  if (rec) autograd::derivatives::matmul(out, self, other);
  return out;
}

// ---- Tensor methods ----
Tensor Tensor::mm(const Tensor& mat2) const { return ember::mm(*this, mat2); }
Tensor Tensor::bmm(const Tensor& mat2) const { return ember::bmm(*this, mat2); }
Tensor Tensor::matmul(const Tensor& other) const { return ember::matmul(*this, other); }
Tensor Tensor::mv(const Tensor& vec) const { return ember::mv(*this, vec); }
Tensor Tensor::dot(const Tensor& other) const { return ember::dot(*this, other); }
Tensor Tensor::outer(const Tensor& vec2) const { return ember::outer(*this, vec2); }
Tensor Tensor::addmm(const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
                     const Scalar& alpha) const {
  return ember::addmm(*this, mat1, mat2, beta, alpha);
}
Tensor Tensor::baddbmm(const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
                       const Scalar& alpha) const {
  return ember::baddbmm(*this, batch1, batch2, beta, alpha);
}

}  // namespace ember

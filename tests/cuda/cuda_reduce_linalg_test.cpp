// Reductions (sum, mean, max and friends) and matrix products (mm, bmm through cuBLAS) on CUDA
// against the CPU. Inputs are small integers stored in the tested dtype, so float sums and
// products are exact on both sides and the comparison can be tight; one test per family also runs
// random data with tolerances.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "tests/cuda/cuda_test_util.h"

using namespace ember;
using namespace ember_cuda_test;

namespace {

// Integer-valued data in [-3, 3] (bool: a pattern; uint8: [0, 6]), deterministic.
Tensor ints_like(IntArrayRef shape, ScalarType t, int64_t seed = 0) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  Tensor i = remainder(add(mul(arange(n, TensorOptions().dtype(kLong)), 7), seed), 13);
  Tensor v = remainder(i, 7);  // 0..6
  if (t == kBool) return gt(v, 3).reshape(shape);
  if (t == kByte) return v.to(t).reshape(shape);
  return sub(v, 3).to(t).reshape(shape);
}

int64_t reduced_numel_for(const Tensor& t, const std::vector<int64_t>& dims) {
  if (dims.empty()) return t.numel();
  int64_t n = 1;
  for (int64_t d : dims) n *= t.size(d);
  return n;
}

std::string shape_str(IntArrayRef s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? "," : "") + std::to_string(s[i]);
  return out + "]";
}

struct ReduceCase {
  std::vector<int64_t> shape;
  std::vector<int64_t> dims;  // empty: all
  bool keepdim;
};

// Inner, outer, mixed and full reductions; a long one that splits across blocks; an empty dim.
const std::vector<ReduceCase> kCases = {
    {{1000}, {}, false},          {{37, 129}, {1}, false}, {{37, 129}, {0}, true},
    {{8, 9, 10}, {0, 2}, false},  {{8, 9, 10}, {1}, true}, {{4, 1, 6}, {1}, false},
    {{3, 5, 7, 2}, {1, 3}, true}, {{1 << 20}, {}, false},  {{2000, 600}, {0}, false},
    {{16, 65536}, {1}, false},    {{0, 4}, {0}, false},
};

}  // namespace

TEST(CudaReduce, SumMeanProdMatchCpuForEveryDtype) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  for (ScalarType t : all_dtypes()) {
    for (const ReduceCase& c : kCases) {
      Tensor h = ints_like(c.shape, t);
      Tensor d = on_cuda(h);
      const std::string what = std::string(to_string(t)) + " " + shape_str(c.shape) + " dims " +
                               shape_str(c.dims) + (c.keepdim ? " keepdim" : "");
      expect_matches_cpu(sum(h, c.dims, c.keepdim), sum(d, c.dims, c.keepdim), "sum " + what);
      if (is_floating_point(t))
        expect_matches_cpu(mean(h, c.dims, c.keepdim), mean(d, c.dims, c.keepdim), "mean " + what);
      if (h.numel() <= 4096 && c.dims.size() == 1)
        expect_matches_cpu(prod(h, c.dims[0], c.keepdim), prod(d, c.dims[0], c.keepdim),
                           "prod " + what);
    }
    Tensor h = ints_like({6, 7}, t);
    expect_matches_cpu(sum(h), sum(on_cuda(h)), std::string("sum all ") + to_string(t));
  }
}

TEST(CudaReduce, MaxMinAndTheirIndicesMatchCpu) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  for (ScalarType t : all_dtypes()) {
    for (const ReduceCase& c : kCases) {
      if (c.shape[0] == 0) continue;  // max of nothing is an error, checked below
      Tensor h = ints_like(c.shape, t, 5);
      Tensor d = on_cuda(h);
      const std::string what = std::string(to_string(t)) + " " + shape_str(c.shape);
      expect_matches_cpu(amax(h, c.dims, c.keepdim), amax(d, c.dims, c.keepdim), "amax " + what);
      expect_matches_cpu(amin(h, c.dims, c.keepdim), amin(d, c.dims, c.keepdim), "amin " + what);
      if (c.dims.size() == 1) {
        // Many ties: the index must be the first occurrence on both devices.
        auto [hv, hi] = max(h, c.dims[0], c.keepdim);
        auto [dv, di] = max(d, c.dims[0], c.keepdim);
        expect_matches_cpu(hv, dv, "max(dim) values " + what);
        expect_matches_cpu(hi, di, "max(dim) indices " + what);
        auto [hv2, hi2] = min(h, c.dims[0], c.keepdim);
        auto [dv2, di2] = min(d, c.dims[0], c.keepdim);
        expect_matches_cpu(hi2, di2, "min(dim) indices " + what);
      }
    }
    Tensor h = ints_like({33, 17}, t, 2);
    expect_matches_cpu(max(h), max(on_cuda(h)), std::string("max all ") + to_string(t));
    expect_matches_cpu(min(h), min(on_cuda(h)), std::string("min all ") + to_string(t));
    if (t != kBool) {
      expect_matches_cpu(argmax(h), argmax(on_cuda(h)), std::string("argmax all ") + to_string(t));
      expect_matches_cpu(argmin(h, 1), argmin(on_cuda(h), 1),
                         std::string("argmin ") + to_string(t));
    }
  }
  EXPECT_THROW(max(on_cuda(empty({0}))), Error);
}

TEST(CudaReduce, NanPropagatesThroughMaxAndSum) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  for (ScalarType t : float_dtypes()) {
    Tensor h = ints_like({5, 300}, t);
    h.index_put_({2, 77}, std::nan(""));
    Tensor d = on_cuda(h);
    expect_matches_cpu(max(h), max(d), "max with NaN");
    expect_matches_cpu(amax(h, {1}), amax(d, {1}), "amax(1) with NaN");
    expect_matches_cpu(std::get<1>(max(h, 1)), std::get<1>(max(d, 1)), "argmax with NaN");
    expect_matches_cpu(sum(h, {0}), sum(d, {0}), "sum(0) with NaN");
  }
}

TEST(CudaReduce, RandomDataWithinTolerance) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  manual_seed(3);
  for (ScalarType t : float_dtypes()) {
    Tensor h = randn({512, 3000}, TensorOptions().dtype(kDouble)).to(t);
    Tensor d = on_cuda(h);
    // Sums of random data round differently in different orders: compare in float64 with a
    // tolerance scaled to the sum's magnitude (~sqrt(n)).
    for (auto dims : {std::vector<int64_t>{}, std::vector<int64_t>{0}, std::vector<int64_t>{1}}) {
      Tensor hs = sum(h.to(kDouble), dims), ds = sum(d, dims).cpu().to(kDouble);
      const double scale = std::sqrt(static_cast<double>(reduced_numel_for(h, dims)));
      const double eps = t == kDouble ? 1e-13 : (t == kFloat ? 1e-5 : (t == kHalf ? 2e-3 : 1.6e-2));
      EXPECT_TRUE(allclose(ds, hs, eps, 4 * eps * scale))
          << to_string(t) << " sum " << shape_str(dims);
    }
    expect_matches_cpu(amax(h, {1}), amax(d, {1}), "amax random");
    if (t == kFloat || t == kDouble) {
      Tensor hv = var(h, std::vector<int64_t>{1}), dv = var(d, std::vector<int64_t>{1});
      EXPECT_TRUE(allclose(dv.cpu(), hv, 1e-4, 1e-6)) << "var";
      EXPECT_TRUE(allclose(norm(d).cpu(), norm(h), 1e-4, 1e-6)) << "norm";
    }
  }
}

TEST(CudaLinalg, MmMatchesCpuForFloatDtypes) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  for (ScalarType t : float_dtypes()) {
    Tensor a = ints_like({37, 48}, t, 1), b = ints_like({48, 29}, t, 4);
    Tensor da = on_cuda(a), db = on_cuda(b);
    const std::string ts = to_string(t);
    expect_matches_cpu(mm(a, b), mm(da, db), "mm " + ts);
    // Transposed and sliced operands reach cuBLAS as OP_T / a leading dimension, no copies.
    expect_matches_cpu(mm(b.t(), a.t()), mm(db.t(), da.t()), "mm transposed " + ts);
    expect_matches_cpu(mm(a.slice(1, 0, 48, 2), b.slice(0, 0, 48, 2)),
                       mm(da.slice(1, 0, 48, 2), db.slice(0, 0, 48, 2)), "mm stepped " + ts);
    expect_matches_cpu(mm(a.narrow(1, 3, 20), b.narrow(0, 5, 20)),
                       mm(da.narrow(1, 3, 20), db.narrow(0, 5, 20)), "mm narrowed " + ts);
    // Vectors as matrices, and an empty inner dim (all zeros).
    expect_matches_cpu(mm(a.narrow(0, 0, 1), b), mm(da.narrow(0, 0, 1), db), "mm 1xk " + ts);
    expect_matches_cpu(mm(a, b.narrow(1, 0, 1)), mm(da, db.narrow(1, 0, 1)), "mm kx1 " + ts);
    Tensor e1 = empty({5, 0}, t), e2 = empty({0, 4}, t);
    expect_matches_cpu(mm(e1, e2), mm(on_cuda(e1), on_cuda(e2)), "mm k=0 " + ts);
  }
}

TEST(CudaLinalg, BmmMatchesCpuForFloatDtypes) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  for (ScalarType t : float_dtypes()) {
    Tensor a = ints_like({6, 17, 32}, t, 1), b = ints_like({6, 32, 9}, t, 2);
    Tensor da = on_cuda(a), db = on_cuda(b);
    const std::string ts = to_string(t);
    expect_matches_cpu(bmm(a, b), bmm(da, db), "bmm " + ts);
    expect_matches_cpu(bmm(b.transpose(1, 2), a.transpose(1, 2)),
                       bmm(db.transpose(1, 2), da.transpose(1, 2)), "bmm transposed " + ts);
    // A broadcast batch (stride 0) and a batch-major permutation.
    Tensor a1 = a.narrow(0, 0, 1).expand({6, 17, 32});
    expect_matches_cpu(bmm(a1, b), bmm(on_cuda(a.narrow(0, 0, 1)).expand({6, 17, 32}), db),
                       "bmm broadcast batch " + ts);
    Tensor ap = ints_like({17, 6, 32}, t, 3);
    expect_matches_cpu(bmm(ap.permute({1, 0, 2}), b), bmm(on_cuda(ap).permute({1, 0, 2}), db),
                       "bmm permuted " + ts);
    expect_matches_cpu(matmul(a, b), matmul(da, db), "matmul 3-D " + ts);
  }
}

TEST(CudaLinalg, RandomMatricesWithinTolerance) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  manual_seed(11);
  for (ScalarType t : float_dtypes()) {
    Tensor a = randn({128, 256}, TensorOptions().dtype(kDouble));
    Tensor b = randn({256, 64}, TensorOptions().dtype(kDouble));
    Tensor got = mm(on_cuda(a.to(t)), on_cuda(b.to(t))).cpu().to(kDouble);
    Tensor ref = mm(a.to(t), b.to(t)).to(kDouble);
    // Both sides round their inputs the same way; they differ only in summation order.
    const double tol = t == kDouble ? 1e-12 : (t == kFloat ? 1e-4 : (t == kHalf ? 3e-2 : 2e-1));
    EXPECT_TRUE(allclose(got, ref, tol, tol)) << to_string(t);
  }
}

TEST(CudaLinalg, IntegerAndMixedDeviceProductsAreErrors) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  Tensor a = on_cuda(ones({2, 3}, kLong)), b = on_cuda(ones({3, 2}, kLong));
  EXPECT_THROW(mm(a, b), Error);  // as PyTorch: no integer GEMM on CUDA
  try {
    mm(ones({2, 3}), on_cuda(ones({3, 2})));
    ADD_FAILURE() << "mm of a CPU and a CUDA tensor did not throw";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("cpu"), std::string::npos) << msg;
    EXPECT_NE(msg.find("cuda"), std::string::npos) << msg;
  }
}

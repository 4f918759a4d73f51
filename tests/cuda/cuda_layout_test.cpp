// The CUDA paths the op-by-op tests reach least: non-contiguous and broadcast (stride-0) inputs to
// reductions, argmax ties split across blocks and grid slices, empty reductions, var/std/norm
// variants, GEMM outputs cuBLAS cannot write directly, float -> uint8 casts, more than 2^32
// elements, printing, and the errors of out-of-memory and of outputs on the wrong device. All of
// it against the CPU; every test but the first skips without a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cuda/cuda_test_util.h"

using namespace ember;
using namespace ember_cuda_test;

namespace {

// Small integers in [-3, 3] (bool: a pattern) with many ties, deterministic.
Tensor tied(IntArrayRef shape, ScalarType t) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  Tensor v = sub(remainder(mul(arange(n, TensorOptions().dtype(kLong)), 5), 7), 3);
  if (t == kBool) return gt(v, 0).reshape(shape);
  if (t == kByte) return add(v, 3).to(t).reshape(shape);
  return v.to(t).reshape(shape);
}

}  // namespace

// Runs everywhere: parsing a device index past int8_t is an error, not a wrap to "current".
TEST(CudaDevice, IndexPastInt8IsAnErrorNotTheCurrentDevice) {
  EXPECT_EQ(Device("cuda:127").index(), 127);
  EXPECT_THROW(Device("cuda:200"), Error);
  EXPECT_THROW(Device("cuda:999"), Error);
}

TEST(CudaCopy, FloatToUint8WrapsNegativeValuesLikeTheCpu) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  // The GPU's own conversion saturates (-3 -> 0); the CPU and PyTorch wrap (-3 -> 253).
  Tensor base = linspace(-130, 130, 53, TensorOptions().dtype(kDouble));
  for (ScalarType t : float_dtypes()) {
    Tensor h = base.to(t);
    expect_matches_cpu(h.to(kByte), on_cuda(h).to(kByte),
                       std::string("to uint8 from ") + to_string(t));
    // In range, int8 agrees anyway (out of range both conversions are undefined behaviour).
    Tensor r = clamp(h, Scalar(-128), Scalar(127));
    expect_matches_cpu(r.to(kChar), on_cuda(r).to(kChar),
                       std::string("to int8 from ") + to_string(t));
  }
}

TEST(CudaReduce, NonContiguousAndBroadcastInputsMatchCpu) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  struct View {
    const char* name;
    Tensor (*make)(const Tensor&);  // from a [6, 40, 9] tensor
  };
  const std::vector<View> views = {
      {"permuted",
       [](const Tensor& x) {
         return x.permute({2, 0, 1});
       }},
      {"transposed", [](const Tensor& x) { return x.transpose(0, 1); }},
      {"stepped", [](const Tensor& x) { return x.slice(1, 1, 40, 3); }},
      {"expanded",
       [](const Tensor& x) {
         return x.narrow(1, 0, 1).expand({6, 300, 9});
       }},
      {"expanded inner",
       [](const Tensor& x) {
         return x.narrow(2, 4, 1).expand({6, 40, 500});
       }},
  };
  for (ScalarType t : {kFloat, kDouble, kHalf, kBFloat16, kLong, kByte, kBool}) {
    Tensor base = tied({6, 40, 9}, t);
    Tensor dbase = on_cuda(base);
    for (const View& v : views) {
      Tensor h = v.make(base), d = v.make(dbase);
      const std::string what = std::string(v.name) + " " + to_string(t);
      for (auto dims : {std::vector<int64_t>{}, std::vector<int64_t>{0}, std::vector<int64_t>{1},
                        std::vector<int64_t>{2}, std::vector<int64_t>{0, 2}}) {
        expect_matches_cpu(sum(h, dims), sum(d, dims), "sum " + what);
        expect_matches_cpu(amax(h, dims, true), amax(d, dims, true), "amax keepdim " + what);
        expect_matches_cpu(amin(h, dims), amin(d, dims), "amin " + what);
      }
      for (int64_t dim = 0; dim < 3; ++dim) {
        auto [hv, hi] = max(h, dim);
        auto [dv, di] = max(d, dim);
        expect_matches_cpu(hv, dv, "max(dim) values " + what);
        expect_matches_cpu(hi, di, "max(dim) indices " + what);
        expect_matches_cpu(all(h, dim), all(d, dim), "all " + what);
        expect_matches_cpu(any(h, dim), any(d, dim), "any " + what);
        if (t != kBool) expect_matches_cpu(argmin(h, dim), argmin(d, dim), "argmin " + what);
      }
      if (t != kBool) expect_matches_cpu(argmax(h), argmax(d), "argmax all " + what);
      if (is_floating_point(t)) {
        expect_matches_cpu(var(h, std::vector<int64_t>{1}), var(d, std::vector<int64_t>{1}),
                           "var " + what);
        expect_matches_cpu(norm(h, 2, {0, 2}), norm(d, 2, {0, 2}), "norm " + what);
      }
    }
  }
}

TEST(CudaReduce, ArgmaxTiesAcrossBlocksAndSlicesPickTheFirst) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  // Long enough that grid.y splits every range; the maxima sit in different lanes and slices,
  // the earliest one not in lane 0 nor in the first slice.
  const int64_t n = int64_t(1) << 22;
  for (ScalarType t : {kFloat, kHalf, kLong, kByte}) {
    Tensor h = zeros({2, n}, TensorOptions().dtype(t));
    for (int64_t at : {n - 1, int64_t(3000001), int64_t(1234567), int64_t(300001)}) {
      h.index_put_({0, at}, 7);
      h.index_put_({1, n - 1 - at}, 7);
    }
    Tensor d = on_cuda(h);
    const std::string ts = to_string(t);
    expect_matches_cpu(argmax(h), argmax(d), "argmax all " + ts);
    expect_matches_cpu(argmax(h, 1), argmax(d, 1), "argmax(1) " + ts);
    expect_matches_cpu(std::get<1>(max(h, 1)), std::get<1>(max(d, 1)), "max(1) indices " + ts);
    expect_matches_cpu(argmin(neg(h.to(kFloat)), 1), argmin(neg(d.to(kFloat)), 1),
                       "argmin(1) " + ts);
    // The transposed layout: the reduced dim is the slow one.
    Tensor ht = h.t().contiguous(), dt = on_cuda(ht);
    expect_matches_cpu(argmax(ht, 0), argmax(dt, 0), "argmax(0) of [n, 2] " + ts);
  }
  // NaN beats everything and the first NaN wins, also across slices.
  Tensor h = zeros({n});
  h.index_put_({int64_t(2000000)}, std::nan(""));
  h.index_put_({int64_t(700001)}, std::nan(""));
  h.index_put_({int64_t(5)}, 100.0);
  expect_matches_cpu(argmax(h), argmax(on_cuda(h)), "argmax with two NaN");
  expect_matches_cpu(argmin(h), argmin(on_cuda(h)), "argmin with two NaN");
  expect_matches_cpu(max(h), max(on_cuda(h)), "max with two NaN");
  expect_matches_cpu(min(h), min(on_cuda(h)), "min with two NaN");
}

TEST(CudaReduce, EmptyReductionsGiveTheIdentity) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  for (ScalarType t : all_dtypes()) {
    Tensor h = empty({3, 0, 4}, TensorOptions().dtype(t));
    Tensor d = on_cuda(h);
    const std::string ts = to_string(t);
    expect_matches_cpu(sum(h, {1}), sum(d, {1}), "sum over an empty dim " + ts);
    expect_matches_cpu(sum(h), sum(d), "sum of nothing " + ts);
    expect_matches_cpu(prod(h, 1), prod(d, 1), "prod over an empty dim " + ts);
    expect_matches_cpu(all(h, 1), all(d, 1), "all over an empty dim " + ts);
    expect_matches_cpu(any(h, 1), any(d, 1), "any over an empty dim " + ts);
    expect_matches_cpu(sum(h, {0}), sum(d, {0}), "empty result " + ts);
    expect_matches_cpu(count_nonzero(h, {1}), count_nonzero(d, {1}), "count_nonzero " + ts);
    if (is_floating_point(t)) {
      expect_matches_cpu(mean(h, {1}), mean(d, {1}), "mean over an empty dim " + ts);
      expect_matches_cpu(norm(h, 2, {1}), norm(d, 2, {1}), "norm over an empty dim " + ts);
      expect_matches_cpu(var(h, std::vector<int64_t>{1}), var(d, std::vector<int64_t>{1}),
                         "var over an empty dim " + ts);
    }
    EXPECT_THROW(amax(d, {1}), Error) << ts;
    EXPECT_THROW(max(d, 1), Error) << ts;
  }
}

TEST(CudaReduce, VarStdNormVariantsMatchCpu) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  manual_seed(21);
  for (ScalarType t : float_dtypes()) {
    // [3, 300000]: few outputs, long ranges (the split path); [3000, 7]: many short ones.
    for (auto shape : {std::vector<int64_t>{3, 300000}, std::vector<int64_t>{3000, 7}}) {
      Tensor h = add(randn(shape, TensorOptions().dtype(kDouble)), 2).to(t);
      Tensor d = on_cuda(h);
      const std::string what = std::string(to_string(t)) + " " + std::to_string(shape[1]);
      const std::vector<int64_t> last{1}, first{0};
      auto [hv, hm] = var_mean(h, IntArrayRef(last), 0.0, true);
      auto [dv, dm] = var_mean(d, IntArrayRef(last), 0.0, true);
      expect_matches_cpu(hv, dv, "var_mean var " + what);
      expect_matches_cpu(hm, dm, "var_mean mean " + what);
      expect_matches_cpu(ember::std(h, IntArrayRef(first)), ember::std(d, IntArrayRef(first)),
                         "std(0) " + what);
      expect_matches_cpu(var(h), var(d), "var all " + what);
      for (double p : {1.0, 2.0, 3.0, 0.0, double(INFINITY), -double(INFINITY)})
        expect_matches_cpu(norm(h, p, {1}), norm(d, p, {1}),
                           "norm p=" + std::to_string(p) + " " + what);
    }
  }
}

TEST(CudaLinalg, OutputsCublasCannotWriteAndBetaMatchCpu) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  for (ScalarType t : float_dtypes()) {
    const std::string ts = to_string(t);
    Tensor a = tied({19, 24}, t), b = tied({24, 13}, t);
    Tensor da = on_cuda(a), db = on_cuda(b);
    // mm_out into a transposed destination: computed aside, then scattered.
    Tensor hout = zeros({13, 19}, TensorOptions().dtype(t)).t();
    Tensor dout = zeros({13, 19}, TensorOptions().dtype(t).device(kCUDA)).t();
    mm_out(hout, a, b);
    mm_out(dout, da, db);
    expect_matches_cpu(hout, dout, "mm_out transposed " + ts);
    // addmm with a broadcast bias, beta and alpha; beta = 0 ignores a NaN bias.
    Tensor bias = tied({13}, t);
    expect_matches_cpu(addmm(bias, a, b, 0.5, 2), addmm(on_cuda(bias), da, db, 0.5, 2),
                       "addmm " + ts);
    Tensor nan_bias = full({19, 13}, std::nan(""), TensorOptions().dtype(t));
    expect_matches_cpu(addmm(nan_bias, a, b, 0, 1), addmm(on_cuda(nan_bias), da, db, 0, 1),
                       "addmm beta=0 " + ts);
    // k = 0: the product is all zeros, so the result is beta * bias (the scale-only path).
    Tensor e1 = empty({19, 0}, t), e2 = empty({0, 13}, t);
    Tensor full_bias = tied({19, 13}, t);
    expect_matches_cpu(addmm(full_bias, e1, e2, 3, 1),
                       addmm(on_cuda(full_bias), on_cuda(e1), on_cuda(e2), 3, 1),
                       "addmm k=0 " + ts);
    // baddbmm over a batch, with a transposed batch operand.
    Tensor x = tied({5, 19, 24}, t), y = tied({5, 13, 24}, t), c = tied({5, 19, 13}, t);
    expect_matches_cpu(baddbmm(c, x, y.transpose(1, 2), 2, 0.5),
                       baddbmm(on_cuda(c), on_cuda(x), on_cuda(y).transpose(1, 2), 2, 0.5),
                       "baddbmm " + ts);
    // Empty batch and empty m.
    Tensor eb = empty({0, 4, 5}, t), fb = empty({0, 5, 3}, t);
    expect_matches_cpu(bmm(eb, fb), bmm(on_cuda(eb), on_cuda(fb)), "bmm empty batch " + ts);
    Tensor em = empty({0, 24}, t);
    expect_matches_cpu(mm(em, b), mm(on_cuda(em), db), "mm m=0 " + ts);
  }
}

TEST(CudaElementwise, EmptyZeroDimAndBroadcastScalarsMatchCpu) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  for (ScalarType t : all_dtypes()) {
    const std::string ts = to_string(t);
    Tensor e = empty({4, 0, 3}, TensorOptions().dtype(t));
    Tensor de = on_cuda(e);
    expect_matches_cpu(mul(e.transpose(0, 2), e.transpose(0, 2)),
                       mul(de.transpose(0, 2), de.transpose(0, 2)), "empty transposed " + ts);
    expect_matches_cpu(e.to(kDouble), de.to(kDouble), "empty cast " + ts);
    Tensor s = sample(t, 1).reshape({});
    Tensor v = sample2(t, 37);
    expect_matches_cpu(mul(s, v), mul(on_cuda(s), on_cuda(v)), "0-dim * vector " + ts);
    expect_matches_cpu(mul(s, s), mul(on_cuda(s), on_cuda(s)), "0-dim * 0-dim " + ts);
    expect_matches_cpu(where(gt(v, 0), s, v), where(gt(on_cuda(v), 0), on_cuda(s), on_cuda(v)),
                       "where with a 0-dim branch " + ts);
  }
}

TEST(CudaElementwise, Past2To32ElementsIndexIn64Bits) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  // A [65536, 1] column broadcast to [65536, 65537]: 2^32 + 2^16 elements (4 GiB of uint8), so
  // the strided kernel takes its 64-bit path and the sum reduces more than 2^32 values.
  const int64_t rows = 65536, cols = 65537;
  try {
    Tensor col = on_cuda(remainder(arange(rows, TensorOptions().dtype(kLong)), 7).to(kByte))
                     .reshape({rows, 1});
    Tensor big = add(col.expand({rows, cols}), 1);
    EXPECT_EQ(big.numel(), rows * cols);
    // Row r holds r % 7 + 1 everywhere: spot checks at both ends and past 2^31 and 2^32.
    for (int64_t r : {int64_t(0), int64_t(32768), int64_t(65535)})
      for (int64_t c : {int64_t(0), int64_t(65536)})
        EXPECT_EQ(big[r][c].item<int64_t>(), r % 7 + 1) << r << "," << c;
    int64_t per_row = 0;
    for (int64_t r = 0; r < rows; ++r) per_row += r % 7 + 1;
    EXPECT_EQ(sum(big).item<int64_t>(), per_row * cols);
    EXPECT_EQ(sum(big, {1}).cpu()[65535].item<int64_t>(), (65535 % 7 + 1) * cols);
    EXPECT_EQ(amax(big).item<int64_t>(), 7);
    EXPECT_EQ(argmax(big.view({-1})).item<int64_t>(), 6 * cols);
  } catch (const Error& e) {
    if (contains(e.what(), "out of memory")) GTEST_SKIP() << "needs ~5 GiB of GPU memory";
    throw;
  }
}

TEST(CudaErrors, OutOfMemoryIsAClearErrorAndTheDeviceStaysUsable) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  try {
    Tensor huge = empty({int64_t(1) << 50}, TensorOptions().dtype(kByte).device(kCUDA));
    ADD_FAILURE() << "a 1 PiB allocation did not throw";
  } catch (const Error& e) {
    EXPECT_TRUE(contains(e.what(), "CUDA out of memory")) << e.what();
  }
  // The failed cudaMalloc leaves no sticky error behind.
  Tensor ok = on_cuda(sample(kFloat));
  expect_matches_cpu(exp(sample(kFloat)), exp(ok), "exp after an out-of-memory error");
}

TEST(CudaErrors, OutOnAnotherDeviceThanTheInputsIsAnError) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  Tensor hc = sample(kFloat), dc = on_cuda(hc);
  Tensor host_out = empty({97}), dev_out = on_cuda(empty({97}));
  for (auto run : {+[](const Tensor&o, const Tensor&x) { add_out(o, x, x); },
                   +[](const Tensor&o, const Tensor&x) { sin_out(o, x); }}) {
    try {
      run(host_out, dc);
      ADD_FAILURE() << "a CPU out for CUDA inputs did not throw";
    } catch (const Error& e) {
      EXPECT_TRUE(contains(e.what(), "cuda") && contains(e.what(), "cpu")) << e.what();
    }
    EXPECT_THROW(run(dev_out, hc), Error);
  }
  // The device is still usable (nothing read a host pointer on the GPU).
  expect_matches_cpu(add(hc, hc), add(dc, dc), "add after the errors");
}

TEST(CudaPrint, ACudaTensorPrintsItsValuesAndType) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  for (ScalarType t : all_dtypes()) {
    Tensor h = tied({2, 3, 4}, t).transpose(0, 2);
    std::ostringstream hs, ds;
    hs << h;
    ds << on_cuda(h);
    std::string want = hs.str();
    want.replace(want.find("[ CPU"), 5, "[ CUDA");
    EXPECT_EQ(ds.str(), want) << to_string(t);
  }
}

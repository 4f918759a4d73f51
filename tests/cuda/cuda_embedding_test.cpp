// F::embedding and F::embedding_bag on CUDA (kernels/cuda/embedding_kernels.cu) against the CPU:
// outputs, weight gradients (and per-sample-weight gradients), max_norm's in-place rescaling and
// torch::embedding_bag's bookkeeping, for every floating dtype. Gradients with repeated indices
// are summed with atomics on the GPU, in another order than the CPU's: the comparison uses the
// dtype's tolerance.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ember/nn/functional/embedding.h"
#include "ember/ops/nn_ops.h"
#include "tests/cuda/cuda_test_util.h"

using namespace ember;
using namespace ember_cuda_test;
namespace F = ember::nn::functional;

namespace {

Tensor longs(const std::vector<int64_t>& v) { return tensor(v, kLong); }

// A [v, d] table of `dtype` with values of both signs, the same on every call for a seed.
Tensor table(int64_t v, int64_t d, ScalarType dtype, uint64_t seed) {
  manual_seed(seed);
  return randn({v, d}, TensorOptions().dtype(kDouble)).to(dtype);
}

std::string name_of(ScalarType t, int64_t d) {
  return std::string(to_string(t)) + " d=" + std::to_string(d);
}

// Runs f on a CPU leaf and on its CUDA copy, backpropagates the same gradient through both and
// compares the outputs and the weight gradients.
template <class Fn>
void expect_forward_and_grad_match(const Tensor& w0, const Fn& f, const std::string& what,
                                   uint64_t seed = 7) {
  Tensor w = w0.clone().requires_grad_();
  Tensor wc = on_cuda(w0).requires_grad_();
  Tensor y = f(w, Device(kCPU));
  Tensor yc = f(wc, Device(kCUDA, 0));
  expect_matches_cpu(y.detach(), yc.detach(), what + " forward");
  manual_seed(seed);
  Tensor g = randn(y.sizes(), TensorOptions().dtype(kDouble)).to(y.dtype());
  y.backward(g);
  yc.backward(on_cuda(g));
  ASSERT_TRUE(wc.grad().defined()) << what;
  expect_matches_cpu(w.grad(), wc.grad(), what + " weight grad");
}

}  // namespace

TEST(CudaEmbedding, LookupAndGradientMatchCpu) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  // Row widths: a single element, shorter than a warp, 16-byte rows, odd rows, several blocks.
  for (ScalarType dt : float_dtypes()) {
    for (int64_t d : {1, 3, 8, 128, 130, 1000}) {
      const Tensor w0 = table(50, d, dt, 1);
      manual_seed(2);
      const Tensor x = randint(0, 50, {6, 37}, TensorOptions().dtype(kLong));
      expect_forward_and_grad_match(
          w0, [&](const Tensor& w, Device dev) { return F::embedding(x.to(dev), w); },
          "embedding " + name_of(dt, d));
      // int32 indices, a padding row that gets no gradient, gradients scaled by 1/frequency.
      expect_forward_and_grad_match(
          w0,
          [&](const Tensor& w, Device dev) {
            return F::embedding(x.to(dev, kInt), w,
                                F::EmbeddingFuncOptions().padding_idx(3).scale_grad_by_freq(true));
          },
          "embedding padding/freq " + name_of(dt, d));
    }
  }
}

TEST(CudaEmbedding, ManyRepeatedIndicesAddUp) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  // 200k lookups into 1000 rows: each row's gradient is ~200 atomic adds.
  for (ScalarType dt : {kFloat, kDouble, kHalf}) {
    const Tensor w0 = table(1000, 64, dt, 3);
    manual_seed(4);
    const Tensor x = randint(0, 1000, {200000}, TensorOptions().dtype(kLong));
    Tensor w = w0.clone().requires_grad_(), wc = on_cuda(w0).requires_grad_();
    // Integer gradients: the sums are exact in float32 whatever the order.
    const Tensor g = remainder(arange(200000 * 64, TensorOptions().dtype(kLong)), 5)
                         .sub(2)
                         .view({200000, 64})
                         .to(dt);
    F::embedding(x, w).backward(g);
    F::embedding(on_cuda(x), wc).backward(on_cuda(g));
    expect_matches_cpu(w.grad(), wc.grad(), std::string("repeated ") + to_string(dt));
  }
}

TEST(CudaEmbedding, StridedWeightAndEmptyInput) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const Tensor w0 = table(20, 9, kFloat, 5).t().contiguous().t();  // column-major [20, 9]
  const Tensor x = longs({4, 19, 0, 4});
  expect_matches_cpu(F::embedding(x, w0), F::embedding(on_cuda(x), on_cuda(w0)), "strided");
  const Tensor empty_ids = zeros({0, 3}, TensorOptions().dtype(kLong));
  expect_matches_cpu(F::embedding(empty_ids, w0), F::embedding(on_cuda(empty_ids), on_cuda(w0)),
                     "empty input");
}

TEST(CudaEmbedding, MaxNormRescalesTheSameRowsInPlace) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  for (ScalarType dt : float_dtypes()) {
    for (double norm_type : {2.0, 1.0}) {
      const std::string what =
          std::string("max_norm ") + to_string(dt) + " p=" + std::to_string(norm_type);
      const Tensor w0 = table(30, 16, dt, 6).mul(2);  // norms ~8 (p=2), ~26 (p=1)
      const Tensor x = longs({0, 5, 5, 29, 7, 0});
      Tensor w = w0.clone(), wc = on_cuda(w0);
      const auto version = wc._version();
      auto o = F::EmbeddingFuncOptions().max_norm(1.5).norm_type(norm_type);
      Tensor y = F::embedding(x, w, o);
      Tensor yc = F::embedding(on_cuda(x), wc, o);
      EXPECT_GT(wc._version(), version) << what;
      expect_matches_cpu(y, yc, what + " output");
      expect_matches_cpu(w, wc, what + " weight");
      // Rows not looked up are untouched.
      EXPECT_TRUE(wc.to(Device(kCPU))[1].equal(w0[1])) << what;
    }
  }
}

TEST(CudaEmbeddingBag, SumMeanMaxMatchCpu) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  // Bags of 3, 0 (empty), 5, 1, 0, 9 and the rest (11) of 29 indices.
  const Tensor x = remainder(arange(29, TensorOptions().dtype(kLong)).mul(7), 40);
  const Tensor offsets = longs({0, 3, 3, 8, 9, 9, 18});
  for (ScalarType dt : float_dtypes()) {
    for (int64_t d : {1, 5, 64, 300}) {
      const Tensor w0 = table(40, d, dt, 8);
      for (const char* mode : {"sum", "mean", "max"}) {
        const nn::EmbeddingBagMode m = std::string(mode) == "sum"    ? nn::EmbeddingBagMode(kSum)
                                       : std::string(mode) == "mean" ? nn::EmbeddingBagMode(kMean)
                                                                     : nn::EmbeddingBagMode(kMax);
        for (bool last : {false, true}) {
          const std::string what = std::string("embedding_bag ") + mode +
                                   (last ? " include_last_offset " : " ") + name_of(dt, d);
          expect_forward_and_grad_match(
              w0,
              [&](const Tensor& w, Device dev) {
                return F::embedding_bag(x.to(dev), w,
                                        F::EmbeddingBagFuncOptions()
                                            .offsets(offsets.to(dev))
                                            .mode(m)
                                            .include_last_offset(last));
              },
              what);
        }
        // Padding entries leave their bags (bag 1 of the 2-D input is all padding).
        const Tensor x2 = longs({2, 7, 7, 7, 7, 7, 31, 2, 7}).view({3, 3});
        expect_forward_and_grad_match(
            w0,
            [&](const Tensor& w, Device dev) {
              return F::embedding_bag(x2.to(dev), w,
                                      F::EmbeddingBagFuncOptions().mode(m).padding_idx(7));
            },
            std::string("embedding_bag 2-D padding ") + mode + " " + name_of(dt, d));
      }
    }
  }
}

TEST(CudaEmbeddingBag, ScaleGradByFreqMatchesCpu) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const Tensor x = longs({1, 1, 4, 2, 1, 4, 0, 3});
  const Tensor offsets = longs({0, 2, 2, 5});
  for (ScalarType dt : float_dtypes()) {
    const Tensor w0 = table(6, 33, dt, 9);
    for (bool mean : {false, true}) {
      expect_forward_and_grad_match(
          w0,
          [&](const Tensor& w, Device dev) {
            auto o = F::EmbeddingBagFuncOptions().offsets(offsets.to(dev)).scale_grad_by_freq(true);
            o.mode(mean ? nn::EmbeddingBagMode(kMean) : nn::EmbeddingBagMode(kSum));
            return F::embedding_bag(x.to(dev), w, o);
          },
          std::string("scale_grad_by_freq ") + (mean ? "mean " : "sum ") + to_string(dt));
    }
  }
}

TEST(CudaEmbeddingBag, PerSampleWeightsAndTheirGradientMatchCpu) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const Tensor x = longs({3, 0, 9, 9, 2, 5, 3, 1, 8, 0});
  for (ScalarType dt : float_dtypes()) {
    for (bool padding : {false, true}) {
      const std::string what =
          std::string("per_sample_weights ") + to_string(dt) + (padding ? " padding" : "");
      const Tensor w0 = table(10, 24, dt, 10);
      manual_seed(11);
      const Tensor psw0 = randn({10}, TensorOptions().dtype(kDouble)).to(dt);
      Tensor w = w0.clone().requires_grad_(), wc = on_cuda(w0).requires_grad_();
      Tensor p = psw0.clone().requires_grad_(), pc = on_cuda(psw0).requires_grad_();
      auto opts = [&](const Tensor& psw, Device dev) {
        auto o = F::EmbeddingBagFuncOptions()
                     .offsets(longs({0, 4, 4, 7}).to(dev))
                     .mode(kSum)
                     .per_sample_weights(psw);
        if (padding) o.padding_idx(9);
        return o;
      };
      Tensor y = F::embedding_bag(x, w, opts(p, Device(kCPU)));
      Tensor yc = F::embedding_bag(on_cuda(x), wc, opts(pc, Device(kCUDA, 0)));
      expect_matches_cpu(y.detach(), yc.detach(), what + " forward");
      manual_seed(12);
      const Tensor g = randn(y.sizes(), TensorOptions().dtype(kDouble)).to(dt);
      y.backward(g);
      yc.backward(on_cuda(g));
      expect_matches_cpu(w.grad(), wc.grad(), what + " weight grad");
      expect_matches_cpu(p.grad(), pc.grad(), what + " per_sample_weights grad");
    }
  }
}

TEST(CudaEmbeddingBag, AtenFormReturnsTheSameBookkeepingAsTheCpu) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const Tensor w0 = table(6, 4, kFloat, 13);
  const Tensor x = longs({0, 2, 1, 3, 3, 5});
  const Tensor offsets = longs({0, 2, 2});
  for (int64_t mode : {0, 1, 2}) {
    auto cpu = embedding_bag(w0, x, offsets, false, mode, false, {}, false, 0);
    auto gpu =
        embedding_bag(on_cuda(w0), on_cuda(x), on_cuda(offsets), false, mode, false, {}, false, 0);
    const std::string what = "aten embedding_bag mode " + std::to_string(mode);
    expect_matches_cpu(std::get<0>(cpu), std::get<0>(gpu), what + " output");
    EXPECT_TRUE(std::get<1>(gpu).is_cuda()) << what;
    EXPECT_TRUE(std::get<1>(gpu).to(Device(kCPU)).equal(std::get<1>(cpu))) << what << " offset2bag";
    EXPECT_TRUE(std::get<2>(gpu).to(Device(kCPU)).equal(std::get<2>(cpu))) << what << " bag_size";
    EXPECT_TRUE(std::get<3>(gpu).to(Device(kCPU)).equal(std::get<3>(cpu)))
        << what << " max_indices";
  }
}

TEST(CudaEmbeddingBag, RecordedBackwardMatchesTheKernelOne) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  // create_graph with a gradient that requires grad runs the backward through differentiable
  // index ops instead of the row kernels.
  const Tensor w = on_cuda(table(7, 3, kDouble, 14)).requires_grad_();
  const Tensor x = on_cuda(longs({1, 4, 4, 0, 6, 2, 4, 1}));
  const Tensor offsets = on_cuda(longs({0, 3, 3}));
  manual_seed(15);
  const Tensor g = on_cuda(randn({3, 3}, TensorOptions().dtype(kDouble)));
  for (const nn::EmbeddingBagMode& m :
       {nn::EmbeddingBagMode(kSum), nn::EmbeddingBagMode(kMean), nn::EmbeddingBagMode(kMax)}) {
    auto o = F::EmbeddingBagFuncOptions().offsets(offsets).mode(m).padding_idx(6);
    auto plain = autograd::grad({F::embedding_bag(x, w, o)}, {w}, {g});
    auto recorded =
        autograd::grad({F::embedding_bag(x, w, o)}, {w}, {g.clone().requires_grad_()}, true, true);
    EXPECT_TRUE(recorded[0].requires_grad());
    expect_matches_cpu(plain[0].to(Device(kCPU)), recorded[0], "create_graph");
  }
}

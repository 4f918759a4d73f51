// The CUDA backend: device queries, host<->device copies for every dtype and layout, the caching
// allocator, and the errors of mixed-device ops. Every test but the first skips without a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "ember/core/storage.h"
#include "tests/cuda/cuda_test_util.h"

using namespace ember;
using namespace ember_cuda_test;

namespace {}  // namespace

// Runs everywhere: without a GPU the queries report none and a CUDA tensor is an Error, not a
// crash; with one, a CUDA tensor just works.
TEST(CudaAvailability, QueriesMatchTheMachineAndAllocationWithoutGpuThrows) {
  EXPECT_NO_THROW(cuda::synchronize());
  EXPECT_NO_THROW(cuda::manual_seed_all(7));
  EXPECT_NO_THROW(cuda::manual_seed(7));
  EXPECT_FALSE(cuda::cudnn_is_available());  // until Ember's convolutions use cuDNN
  if (cuda::is_available()) {
    EXPECT_GT(cuda::device_count(), 0);
    EXPECT_NO_THROW(cuda::synchronize(0));
    EXPECT_THROW(cuda::synchronize(cuda::device_count()), Error);
    Tensor t = zeros({2}, kCUDA);
    EXPECT_TRUE(t.is_cuda());
    EXPECT_EQ(t.sum().item<float>(), 0.0f);
    return;
  }
  EXPECT_EQ(cuda::device_count(), 0);
  try {
    zeros({2}, kCUDA);
    FAIL() << "zeros on CUDA without a GPU did not throw";
  } catch (const Error& e) {
    EXPECT_TRUE(contains(e.what(), "CUDA is not available")) << e.what();
  }
  EXPECT_THROW(ones({3}).to(Device(kCUDA, 0)), Error);
}

TEST(CudaCopy, RoundTripsEveryDtype) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  for (ScalarType t : all_dtypes()) {
    Tensor host = sample(t, 1000).reshape({10, 100});
    Tensor dev = host.to(Device(kCUDA));
    EXPECT_TRUE(dev.is_cuda());
    EXPECT_EQ(dev.dtype(), t);
    Tensor back = dev.to(Device(kCPU));
    EXPECT_TRUE(back.is_cpu());
    EXPECT_TRUE(equal(back, host)) << t;
    EXPECT_TRUE(equal(dev.cpu(), host.cuda().cpu())) << t;
    // Same-device clone and a device-side dtype conversion.
    EXPECT_TRUE(equal(dev.clone().cpu(), host)) << t;
    EXPECT_TRUE(equal(dev.to(kDouble).cpu(), host.to(kDouble))) << t;
  }
}

TEST(CudaCopy, ConvertsEveryDtypePairOnTheDevice) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  // Non-negative values with fractions: float -> unsigned and float -> int are well defined.
  Tensor base = linspace(0, 9.75, 40, TensorOptions().dtype(kDouble));
  for (ScalarType from : all_dtypes()) {
    Tensor src = base.to(from);
    Tensor dev = on_cuda(src);
    for (ScalarType to : all_dtypes())
      expect_matches_cpu(src.to(to), dev.to(to),
                         std::string("cast ") + to_string(from) + " -> " + to_string(to));
  }
}

TEST(CudaCopy, NonContiguousSourcesAndDestinations) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  Tensor host = arange(0, 6 * 7 * 8, TensorOptions().dtype(kFloat)).reshape({6, 7, 8});
  Tensor dev = on_cuda(host);
  // Device-side strided reads: permuted, sliced with a step, and expanded views.
  EXPECT_TRUE(
      equal(dev.permute({2, 0, 1}).contiguous().cpu(), host.permute({2, 0, 1}).contiguous()));
  EXPECT_TRUE(equal(dev.slice(2, 1, 8, 3).cpu(), host.slice(2, 1, 8, 3)));
  EXPECT_TRUE(equal(dev.select(1, 3).cpu(), host.select(1, 3)));
  EXPECT_TRUE(
      equal(dev.slice(0, 0, 1).expand({4, 7, 8}).cpu(), host.slice(0, 0, 1).expand({4, 7, 8})));
  // A host view goes up, a device view comes down.
  EXPECT_TRUE(equal(on_cuda(host.transpose(0, 2)).cpu(), host.transpose(0, 2)));
  // Into a non-contiguous device destination (staged, then scattered on the device).
  Tensor dst = zeros({8, 7, 6}, TensorOptions().dtype(kFloat).device(kCUDA)).permute({2, 1, 0});
  dst.copy_(host);
  EXPECT_TRUE(equal(dst.cpu(), host));
  // Into a non-contiguous host destination, with broadcasting and a dtype change.
  Tensor row = on_cuda(arange(0, 8, TensorOptions().dtype(kLong)));
  Tensor hdst = zeros({8, 5}, TensorOptions().dtype(kDouble)).t();
  hdst.copy_(row);
  EXPECT_TRUE(equal(hdst, arange(0, 8, TensorOptions().dtype(kDouble)).expand({5, 8})));
  // Views at an odd element offset take the unaligned path of the contiguous kernel.
  Tensor big = on_cuda(arange(0, 4099, TensorOptions().dtype(kFloat)));
  Tensor odd = big.narrow(0, 1, 4097);
  EXPECT_TRUE(equal(add(odd, 1).cpu(), add(arange(1, 4098, TensorOptions().dtype(kFloat)), 1)));
}

TEST(CudaCopy, ScalarsAndEmptyTensors) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  Tensor s = on_cuda(full({}, 2.5, kDouble));
  EXPECT_EQ(s.item<double>(), 2.5);
  Tensor e = on_cuda(empty({0, 3}));
  EXPECT_EQ(e.numel(), 0);
  EXPECT_EQ(e.cpu().sizes(), IntArrayRef({0, 3}));
  EXPECT_EQ(add(e, 1).numel(), 0);
  // fill_ writes exact int64 values (beyond 2^53) and -0.0 keeps its sign.
  const int64_t big = (int64_t(1) << 53) + 1;
  Tensor l = full({5}, big, TensorOptions().dtype(kLong).device(kCUDA));
  EXPECT_EQ(l.cpu()[3].item<int64_t>(), big);
  Tensor z = full({4}, -0.0, TensorOptions().dtype(kFloat).device(kCUDA));
  EXPECT_TRUE(std::signbit(z.cpu()[1].item<float>()));
}

TEST(CudaAllocator, ReusesFreedBlocksFromItsCache) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  Allocator* alloc = get_allocator(kCUDA);
  cuda::synchronize();
  alloc->empty_cache();
  EXPECT_EQ(alloc->cached_bytes(), 0u);
  void* first = nullptr;
  {
    Tensor t = empty({1 << 20}, TensorOptions().dtype(kFloat).device(kCUDA));
    first = t.data_ptr();
  }
  const size_t cached = alloc->cached_bytes();
  EXPECT_GE(cached, size_t(4) << 20);  // the 4 MiB block went to the cache, not to cudaFree
  Tensor again = empty({1 << 20}, TensorOptions().dtype(kFloat).device(kCUDA));
  EXPECT_EQ(again.data_ptr(), first);
  EXPECT_EQ(alloc->cached_bytes(), cached - (size_t(4) << 20));
  // A slightly smaller request lands in the same bin and reuses the block too.
  void* p = again.data_ptr();
  again.reset();
  Tensor smaller = empty({(1 << 20) - 100}, TensorOptions().dtype(kFloat).device(kCUDA));
  EXPECT_EQ(smaller.data_ptr(), p);
  smaller.reset();
  cuda::synchronize();
  alloc->empty_cache();
  EXPECT_EQ(alloc->cached_bytes(), 0u);
}

TEST(CudaAllocator, ManySizesStayCorrectUnderReuse) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  for (int round = 0; round < 3; ++round) {
    for (int64_t n : {1, 3, 127, 128, 1000, 65537, 1 << 18, (1 << 20) + 7}) {
      Tensor h = sample(kFloat, n);
      Tensor d = on_cuda(h);
      EXPECT_TRUE(equal(mul(d, 2).cpu(), mul(h, 2))) << n;
    }
  }
}

TEST(CudaErrors, MixedDeviceOperandsNameBothDevices) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  Tensor a = ones({3});
  Tensor b = on_cuda(ones({3}));
  for (auto fn : {+[](const Tensor&x, const Tensor&y) { return add(x, y); },
                  +[](const Tensor&x, const Tensor&y) { return mul(y, x); },
                  +[](const Tensor&x, const Tensor&y) { return where(gt(y, 0), x, y); }}) {
    try {
      fn(a, b);
      ADD_FAILURE() << "a CPU + CUDA op did not throw";
    } catch (const Error& e) {
      const std::string msg = e.what();
      EXPECT_TRUE(contains(msg, "cpu")) << msg;
      EXPECT_TRUE(contains(msg, "cuda")) << msg;
    }
  }
}

TEST(CudaErrors, InvalidDeviceIndexIsAnError) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  Tensor h = ones({2});
  const int bad = static_cast<int>(cuda::device_count());
  if (bad > 127) GTEST_SKIP() << "too many devices to name an invalid one";
  EXPECT_THROW(h.to(Device(kCUDA, static_cast<int8_t>(bad))), Error);
}

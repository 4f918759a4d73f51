// Tensor handles, storage sharing, copies across dtypes, item/accessor checks, printing, allocator.
#include <gtest/gtest.h>

#include <cstring>
#include <sstream>

#include "ember/ember.h"

using namespace ember;

TEST(TensorCore, CopiesShareStorageAndCloneDoesNot) {
  Tensor a = zeros({3});
  Tensor b = a;
  b.fill_(2);
  EXPECT_EQ(a[0].item<float>(), 2.0f);
  Tensor c = a.clone();
  c.fill_(5);
  EXPECT_EQ(a[0].item<float>(), 2.0f);
  EXPECT_NE(c.data_ptr(), a.data_ptr());
}

TEST(TensorCore, ViewsShareTheVersionCounter) {
  Tensor a = zeros({4});
  Tensor v = a.view({2, 2});
  uint32_t before = a._version();
  v.add_(1);
  EXPECT_GT(a._version(), before);
  EXPECT_EQ(a._version(), v._version());
}

TEST(TensorCore, CopyConvertsDtypesAndBroadcasts) {
  Tensor dst = zeros({2, 3}, kInt);
  dst.copy_(tensor({1.9, -2.9, 3.0}, kDouble));
  EXPECT_EQ((dst.accessor<int32_t, 2>()[1][0]), 1);
  EXPECT_EQ((dst.accessor<int32_t, 2>()[1][1]), -2);  // truncation toward zero, as C++ casts
  Tensor h = tensor({1.0, 2.5, -0.0}).to(kHalf);
  EXPECT_EQ(h.to(kFloat)[1].item<float>(), 2.5f);
  Tensor b = tensor({0.0, 0.5}).to(kBool);
  EXPECT_FALSE(b[0].item<bool>());
  EXPECT_TRUE(b[1].item<bool>());
  EXPECT_THROW(zeros({2}).copy_(zeros({3})), Error);
}

TEST(TensorCore, ContiguousCopiesOnlyWhenNeeded) {
  Tensor a = arange(6).view({2, 3});
  EXPECT_TRUE(a.contiguous().is_same(a));
  Tensor t = a.t();
  EXPECT_FALSE(t.is_contiguous());
  Tensor c = t.contiguous();
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_EQ((c.accessor<int64_t, 2>()[2][1]), 5);
}

TEST(TensorCore, TypedAccessChecksDtypeAndRank) {
  Tensor a = zeros({2, 2});
  EXPECT_THROW(a.data_ptr<double>(), TypeError);
  EXPECT_THROW((a.accessor<float, 3>()), Error);
  EXPECT_THROW(zeros({2}).item(), Error);
  Tensor undefined;
  EXPECT_FALSE(undefined.defined());
  EXPECT_THROW(undefined.item(), Error);
}

TEST(TensorCore, SizeWrapsNegativeDimsAndRejectsBadOnes) {
  Tensor a = zeros({2, 3, 4});
  EXPECT_EQ(a.size(-1), 4);
  EXPECT_EQ(a.stride(0), 12);
  try {
    a.size(3);
    FAIL();
  } catch (const IndexError& e) {
    EXPECT_NE(std::string(e.what()).find("[-3, 2]"), std::string::npos) << e.what();
  }
}

TEST(TensorCore, PrintsInLibTorchLayout) {
  std::ostringstream os;
  os << tensor({{1, 2}, {3, 4}});
  EXPECT_NE(os.str().find("[ CPULongType{2,2} ]"), std::string::npos) << os.str();
  std::ostringstream os2;
  os2 << tensor(2.5);
  EXPECT_NE(os2.str().find("2.5"), std::string::npos) << os2.str();
  EXPECT_NE(os2.str().find("CPUFloatType{}"), std::string::npos) << os2.str();
}

TEST(TensorCore, LargeBuffersAreReusedByTheAllocator) {
  Allocator* alloc = get_allocator(kCPU);
  void* first;
  {
    Tensor big = empty({1 << 20});  // 4 MiB
    first = big.data_ptr();
  }
  EXPECT_GE(alloc->cached_bytes(), size_t(4) << 20);
  Tensor again = empty({1 << 20});
  EXPECT_EQ(again.data_ptr(), first);
}

TEST(TensorCore, MediumBuffersAreReusedWithinTheirSizeClass) {
  Allocator* alloc = get_allocator(kCPU);
  alloc->empty_cache();
  void* first;
  {
    Tensor c = empty({128, 128});  // 64 KiB: an mm output at n = 128
    first = c.data_ptr();
  }
  EXPECT_EQ(alloc->cached_bytes(), size_t(64) << 10);
  {
    Tensor again = empty({128 * 128 - 100});  // a little smaller: the same 64 KiB class
    EXPECT_EQ(again.data_ptr(), first);
    EXPECT_EQ(alloc->cached_bytes(), 0u);
  }
  Tensor other = empty({128 * 128 + 100});  // a little larger: the 80 KiB class, a new block
  EXPECT_NE(other.data_ptr(), first);
  Tensor small = empty({1024});  // 4 KiB: plain malloc, never cached
  small = Tensor();
  EXPECT_EQ(alloc->cached_bytes(), size_t(64) << 10);
  alloc->empty_cache();
  EXPECT_EQ(alloc->cached_bytes(), 0u);
}

TEST(TensorCore, EveryCachedSizeClassHoldsItsRequest) {
  // Sizes around every class boundary from 16 KiB to past 1 MiB, each written to its last byte
  // (the ASan build reports a class smaller than its request), then reused from the cache.
  for (int64_t bytes = (16 << 10) - 3; bytes < (1 << 20) + (5 << 17); bytes += 4093) {
    for (int pass = 0; pass < 2; ++pass) {
      Tensor t = empty({bytes}, kByte);
      std::memset(t.data_ptr(), pass, static_cast<size_t>(bytes));
      EXPECT_EQ(t.data_ptr<uint8_t>()[bytes - 1], pass);
    }
  }
  get_allocator(kCPU)->empty_cache();
}

TEST(TensorCore, DeviceParsingAndCudaQueriesWorkWithoutAGpu) {
  EXPECT_EQ(Device("cuda:1").index(), 1);
  EXPECT_TRUE(Device("cpu").is_cpu());
  EXPECT_THROW(Device("tpu"), Error);
  EXPECT_THROW(Device("cuda:x"), Error);
  if (!cuda::is_available()) {
    EXPECT_EQ(cuda::device_count(), 0);
    EXPECT_THROW(zeros({2}, Device(kCUDA)), Error);
  }
}

TEST(TensorCore, ThreadCountIsSettable) {
  int before = get_num_threads();
  set_num_threads(1);
  EXPECT_EQ(get_num_threads(), 1);
  Tensor a = ones({1 << 18});
  EXPECT_EQ(a.sum().item<float>(), float(1 << 18));
  set_num_threads(before);
  EXPECT_THROW(set_num_threads(0), ValueError);
}

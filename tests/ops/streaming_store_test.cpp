// The dense elementwise loop writes outputs larger than the last-level cache with streaming
// stores (kernels/cpu/streaming_store.h): 4 KiB blocks computed into a buffer, plain stores for
// the part before the first 64-byte boundary and after the last whole block. With the threshold
// lowered so every output takes that path, every result must equal the plain path's, for every
// 4- and 8-byte dtype, lengths around the block, misaligned views, in-place and out=, on one
// and two threads; and the real threshold must take a real 64 MiB output through it too.
#include <gtest/gtest.h>

#include "ember/ember.h"
#include "kernels/cpu/streaming_store.h"
#include "tests/support/threads.h"

using namespace ember;

namespace {

// Runs `body` with every dense output streamed, then restores the default threshold.
template <class Body>
void with_streaming_everywhere(const Body& body) {
  kernels::set_streaming_store_threshold(1);
  body();
  kernels::set_streaming_store_threshold(0);
}

TEST(StreamingStores, ThresholdDefaultsToTheCacheSizeAndCanBeOverridden) {
  const size_t def = kernels::streaming_store_threshold();
  EXPECT_GE(def, size_t(1) << 20);
  kernels::set_streaming_store_threshold(4096);
  EXPECT_EQ(kernels::streaming_store_threshold(), 4096u);
  kernels::set_streaming_store_threshold(0);
  EXPECT_EQ(kernels::streaming_store_threshold(), def);
}

TEST(StreamingStores, EveryResultEqualsThePlainPath) {
  manual_seed(5);
  // Around one 4 KiB block of floats (1024) and of doubles (512), and many blocks with a tail.
  const int64_t lengths[] = {1, 15, 16, 17, 511, 512, 513, 1023, 1024, 1025, 4096 + 7, 70001};
  for (int64_t n : lengths) {
    const Tensor base = randn({n + 16});
    for (int64_t offset : {0, 1, 3, 15}) {  // 4, 12 and 60 bytes past a 64-byte boundary
      const Tensor x = base.slice(0, offset, offset + n), y = randn({n});
      const Tensor xd = x.to(kDouble), xi = (x * 100).to(kInt), xl = (x * 100).to(kLong);
      // The plain path's results first.
      const std::vector<Tensor> expected = {x.relu(),      x + y,         x.exp(),    x.gelu(),
                                            xd * 3,        xd.sin(),      xi + 7,     xl * xl,
                                            x.to(kDouble), xd.to(kFloat), x.add(y, 2)};
      ember_test::with_thread_counts([&] {
        with_streaming_everywhere([&] {
          const std::vector<Tensor> got = {x.relu(),      x + y,         x.exp(),    x.gelu(),
                                           xd * 3,        xd.sin(),      xi + 7,     xl * xl,
                                           x.to(kDouble), xd.to(kFloat), x.add(y, 2)};
          for (size_t k = 0; k < got.size(); ++k)
            EXPECT_TRUE(equal(got[k], expected[k]))
                << "n " << n << " offset " << offset << " #" << k;
          // out= into a misaligned view, and in-place on one.
          Tensor out_base = zeros({n + 16});
          Tensor out = out_base.slice(0, offset, offset + n);
          add_out(out, x, y);
          EXPECT_TRUE(equal(out, expected[1])) << "add_out, n " << n << " offset " << offset;
          EXPECT_EQ(out_base.slice(0, 0, offset).abs().sum().item<float>(), 0.0f);
          EXPECT_EQ(out_base.slice(0, offset + n, n + 16).abs().sum().item<float>(), 0.0f);
          Tensor z = base.clone().slice(0, offset, offset + n);
          z.relu_();
          EXPECT_TRUE(equal(z, expected[0])) << "relu_, n " << n << " offset " << offset;
        });
      });
    }
  }
}

TEST(StreamingStores, BroadcastRowsEqualThePlainPath) {
  // Rows whose inputs are dense or stationary (a [3, 1] column, a wrapped scalar) stream too.
  manual_seed(6);
  for (int64_t m : {2047, 2048, 2049, 5000}) {
    const Tensor a = randn({3, m}), col = randn({3, 1}), ad = a.to(kDouble);
    const std::vector<Tensor> expected = {a + col, a * col, ad - 0.5, col.expand({3, m}) + 1};
    ember_test::with_thread_counts([&] {
      with_streaming_everywhere([&] {
        const std::vector<Tensor> got = {a + col, a * col, ad - 0.5, col.expand({3, m}) + 1};
        for (size_t k = 0; k < got.size(); ++k)
          EXPECT_TRUE(equal(got[k], expected[k])) << "m " << m << " #" << k;
      });
    });
  }
}

TEST(StreamingStores, AnOutputLargerThanTheCacheTakesThePathByDefault) {
  // The default threshold is the last-level cache; an output just above it streams.
  const int64_t n = static_cast<int64_t>(kernels::streaming_store_threshold() / sizeof(float)) + 3;
  if (n > (int64_t(1) << 25)) GTEST_SKIP() << "last-level cache too large for a test tensor";
  const Tensor x = arange(n, kFloat).remainder(1000.0f) - 500.0f;
  const Tensor r = x.relu();
  const float* p = r.data_ptr<float>();
  const float* q = x.data_ptr<float>();
  int64_t bad = 0;
  for (int64_t i = 0; i < n; ++i) bad += p[i] != (q[i] > 0 ? q[i] : 0.0f);
  EXPECT_EQ(bad, 0);
}

}  // namespace

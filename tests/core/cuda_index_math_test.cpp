// The index arithmetic of the CUDA kernels (kernels/cuda/index_math.h) checked on the CPU, so that
// it is tested on every machine: the elementwise offset calculator against a plain
// multi-index walk (32- and 64-bit paths, broadcast and negative strides), and the reduction's
// launch plan against the hardware limits and the promise that every (output, reduced position)
// pair is visited exactly once.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "kernels/cuda/index_math.h"

using namespace ember;
using namespace ember::kernels::cuda;

namespace {

// The offsets of element `linear` by a plain walk over the multi-index (innermost dim first).
template <int kN>
std::vector<int64_t> naive_offsets(const StridedGeometry<kN>& g, int64_t linear) {
  std::vector<int64_t> off(kN, 0);
  for (int d = 0; d < g.ndim; ++d) {
    const int64_t i = linear % g.sizes[d];
    linear /= g.sizes[d];
    for (int k = 0; k < kN; ++k) off[k] += i * g.strides[k][d];
  }
  return off;
}

template <int kN>
StridedGeometry<kN> geometry(const std::vector<int64_t>& sizes,
                             const std::vector<std::vector<int64_t>>& strides) {
  StridedGeometry<kN> g{};
  g.ndim = static_cast<int>(sizes.size());
  int64_t numel = 1;
  for (int d = 0; d < kMaxLoopDims; ++d) {
    g.sizes[d] = d < g.ndim ? sizes[d] : 1;
    if (d < g.ndim) numel *= sizes[d];
    for (int k = 0; k < kN; ++k) g.strides[k][d] = d < g.ndim ? strides[k][d] : 0;
  }
  g.index32 = numel <= static_cast<int64_t>(UINT32_MAX);
  return g;
}

template <int kN>
void expect_offsets_match(const StridedGeometry<kN>& g, int64_t linear) {
  int64_t off[kN];
  offsets_of<kN>(g, linear, off);
  const std::vector<int64_t> want = naive_offsets(g, linear);
  for (int k = 0; k < kN; ++k)
    EXPECT_EQ(off[k], want[k]) << "operand " << k << " element " << linear << " ndim " << g.ndim;
}

}  // namespace

TEST(CudaIndexMath, OffsetsMatchAPlainWalkForRandomLayouts) {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 300; ++trial) {
    const int ndim = static_cast<int>(rng() % (kMaxLoopDims + 1));
    std::vector<int64_t> sizes;
    int64_t numel = 1;
    for (int d = 0; d < ndim; ++d) {
      const int64_t s = numel > 4096 ? 1 : 1 + static_cast<int64_t>(rng() % 5);
      sizes.push_back(s);
      numel *= s;
    }
    // Operand 0 dense, 1 broadcast along some dims (stride 0), 2 with negative and gapped strides.
    std::vector<std::vector<int64_t>> strides(3, std::vector<int64_t>(ndim));
    int64_t dense = 4;
    for (int d = 0; d < ndim; ++d) {
      strides[0][d] = dense;
      dense *= sizes[d];
      strides[1][d] = rng() % 2 ? 0 : 8 * (1 + static_cast<int64_t>(rng() % 7));
      strides[2][d] = (rng() % 2 ? -2 : 3) * static_cast<int64_t>(1 + rng() % 11);
    }
    const auto g = geometry<3>(sizes, strides);
    for (int64_t i = 0; i < numel; ++i) expect_offsets_match(g, i);
  }
}

TEST(CudaIndexMath, OffsetsPast32BitElementCountsUse64BitArithmetic) {
  // 3 x 2^20 x 2^11 + a broadcast operand: 6.4e9 elements, beyond both int32 and uint32.
  const std::vector<int64_t> sizes = {3, int64_t(1) << 20, int64_t(1) << 11};
  const std::vector<std::vector<int64_t>> strides = {
      {1, 3, 3 << 20}, {0, 2, 0}, {-8, 24, int64_t(24) << 20}};
  const auto g = geometry<3>(sizes, strides);
  EXPECT_FALSE(g.index32);
  const int64_t numel = sizes[0] * sizes[1] * sizes[2];
  for (int64_t i : {int64_t(0), int64_t(INT32_MAX), int64_t(INT32_MAX) + 1, int64_t(UINT32_MAX),
                    int64_t(UINT32_MAX) + 1, int64_t(UINT32_MAX) + 12345, numel / 2, numel - 1})
    expect_offsets_match(g, i);
  // Exactly 2^32 - 1 elements still takes the 32-bit path, and its last element is right.
  const auto g32 = geometry<2>({65535, 65537}, {{1, 65535}, {65537, 1}});
  EXPECT_TRUE(g32.index32);
  for (int64_t i : {int64_t(0), int64_t(INT32_MAX) + 7, int64_t(UINT32_MAX) - 1})
    expect_offsets_match(g32, i);
  // One dim: a plain multiply, also past 2^32.
  const auto g1 = geometry<2>({int64_t(5) << 32}, {{2}, {-4}});
  for (int64_t i : {int64_t(0), (int64_t(5) << 32) - 1}) expect_offsets_match(g1, i);
}

TEST(CudaIndexMath, ReductionOffsetsMatchAPlainWalk) {
  ReduceGeometry g{};
  g.out_ndim = 2;
  g.out_sizes[0] = 3, g.out_sizes[1] = 4;
  g.out_in_strides[0] = 4, g.out_in_strides[1] = 60;  // bytes
  g.out_strides[0] = 4, g.out_strides[1] = 1;         // elements (a transposed output)
  g.red_ndim = 2;
  g.red_sizes[0] = 5, g.red_sizes[1] = 2;
  g.red_strides[0] = 12, g.red_strides[1] = -240;
  for (int64_t o = 0; o < 12; ++o) {
    int64_t in_off = -1, out_off = -1;
    output_offsets(g, o, in_off, out_off);
    EXPECT_EQ(in_off, (o % 3) * 4 + (o / 3) * 60) << o;
    EXPECT_EQ(out_off, (o % 3) * 4 + (o / 3)) << o;
  }
  for (int64_t r = 0; r < 10; ++r) EXPECT_EQ(reduced_offset(g, r), (r % 5) * 12 - (r / 5) * 240);
}

namespace {

bool is_pow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

// Hardware limits and the slicing promises of one plan.
void expect_valid_plan(int64_t out_numel, int64_t red_numel, int64_t red_stride, int64_t out_stride,
                       int sms) {
  const ReducePlan p = plan_reduction(out_numel, red_numel, red_stride, out_stride, sms);
  SCOPED_TRACE(::testing::Message() << "out " << out_numel << " red " << red_numel << " strides "
                                    << red_stride << "/" << out_stride << " sms " << sms);
  EXPECT_TRUE(is_pow2(p.lanes)) << p.lanes;  // the shared-memory tree needs powers of two
  EXPECT_TRUE(is_pow2(p.slots)) << p.slots;
  EXPECT_LE(p.lanes * p.slots, kReduceThreads);  // fits __launch_bounds__ and the shared memory
  EXPECT_GE(p.blocks_x, 1);
  EXPECT_LE(p.blocks_x, int64_t(INT32_MAX));         // gridDim.x
  EXPECT_GE(p.blocks_x * p.slots, out_numel);        // every output has a block ...
  EXPECT_LT((p.blocks_x - 1) * p.slots, out_numel);  // ... and no block is idle
  EXPECT_GE(p.splits, 1);
  EXPECT_LE(p.splits, kMaxGridY);  // gridDim.y
  if (red_numel == 0) {
    EXPECT_EQ(p.splits, 1);  // the identity, written once
  } else {
    EXPECT_GE(p.chunk * p.splits, red_numel);        // the slices cover the range ...
    EXPECT_LT((p.splits - 1) * p.chunk, red_numel);  // ... and none is empty
  }
  if (p.along_x) {
    EXPECT_GT(red_numel, 1);
  }
}

}  // namespace

TEST(CudaIndexMath, ReductionPlansRespectLaunchLimitsForEveryShape) {
  const std::vector<int64_t> counts = {0,
                                       1,
                                       2,
                                       3,
                                       31,
                                       32,
                                       33,
                                       255,
                                       256,
                                       257,
                                       1000,
                                       65535,
                                       65536,
                                       1 << 20,
                                       (1 << 20) + 1,
                                       int64_t(INT32_MAX) + 1,
                                       int64_t(1) << 36};
  for (int sms : {1, 132})
    for (int64_t out : counts) {
      if (out == 0) continue;  // reduce_cuda returns before planning
      for (int64_t red : counts) {
        // Past 2^40 elements (1 TiB of bytes) no GPU holds the input.
        if (red > 0 && out > (int64_t(1) << 40) / red) continue;
        expect_valid_plan(out, red, 4, 4 * std::max<int64_t>(red, 1), sms);  // inner reduction
        expect_valid_plan(out, red, 4 * out, 4, sms);                        // outer reduction
        expect_valid_plan(out, red, 0, 4, sms);  // a broadcast (stride-0) reduced dim
      }
    }
}

TEST(CudaIndexMath, ReductionPlansVisitEveryPairExactlyOnce) {
  // Walks the grid as the kernel does (reduce_loops.cuh): block (bx, by), thread (slot, lane).
  for (int64_t out : {1, 2, 3, 7, 64, 300})
    for (int64_t red : {0, 1, 2, 5, 33, 257, 5000, 40000})
      for (bool inner : {true, false}) {
        const ReducePlan p = plan_reduction(out, red, inner ? 4 : 4 * out,
                                            inner ? 4 * std::max<int64_t>(red, 1) : 4, 132);
        std::vector<int> seen(static_cast<size_t>(out * red), 0);
        for (int64_t bx = 0; bx < p.blocks_x; ++bx)
          for (int64_t by = 0; by < p.splits; ++by)
            for (int64_t slot = 0; slot < p.slots; ++slot)
              for (int64_t lane = 0; lane < p.lanes; ++lane) {
                const int64_t o = bx * p.slots + slot;
                if (o >= out) continue;
                const int64_t r_end = std::min(red, by * p.chunk + p.chunk);
                for (int64_t r = by * p.chunk + lane; r < r_end; r += p.lanes)
                  ++seen[static_cast<size_t>(o * red + r)];
              }
        for (size_t i = 0; i < seen.size(); ++i)
          ASSERT_EQ(seen[i], 1) << "out " << out << " red " << red << " pair " << i;
      }
}

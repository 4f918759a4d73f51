// Indexing on CUDA (kernels/cuda/index_kernels.cu, reached through the index_gather, index_put and
// masked_fill slots) against the CPU kernels: index_select, gather, take, advanced indexing
// (negative indices, broadcasting, masks, host indices), index_put_ with and without accumulate,
// scatter / scatter_add / index_add_, masked_fill, over every dtype and non-contiguous operands;
// the atomics under heavy contention (narrow types share one 32-bit word); out-of-range device
// indices and mixed devices as errors; and a backward through index_select. Values are small
// integers, so every result is exact whatever order the atomics add in.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "src/dispatch/dispatch.h"
#include "tests/cuda/cuda_test_util.h"
#include "tests/support/expect_error.h"

using namespace ember;
using namespace ember::indexing;
using namespace ember_cuda_test;

namespace {

// Integer-valued data of `shape` in any dtype: signed types in [-5, 5], uint8 in [0, 10], bool a
// pattern; consecutive elements differ, so a wrong offset shows.
Tensor ix_data(IntArrayRef shape, ScalarType t) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  Tensor v = remainder(mul(arange(n, TensorOptions().dtype(kLong)), 7), 11);
  if (t == kBool) return remainder(v, 2).to(kBool).reshape(shape);
  if (t == kByte) return v.to(t).reshape(shape);
  return sub(v, 5).to(t).reshape(shape);
}

// An int64 index tensor from a list.
Tensor ix_long(std::vector<int64_t> v) { return tensor(TensorDataContainer(std::move(v)), kLong); }

// Index values in [0, size) of `shape`, deterministic, with repeats.
Tensor ix_random(IntArrayRef shape, int64_t size) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return remainder(mul(arange(n, TensorOptions().dtype(kLong)), 37), size).reshape(shape);
}

std::string ix_what(const char* op, ScalarType t, const char* layout) {
  return std::string(op) + " " + to_string(t) + " " + layout;
}

// A [5, 12] tensor as itself and as non-contiguous views of the same logical shape.
struct IxLayout {
  const char* name;
  Tensor (*make)(const Tensor&);  // from a [12, 10] base
};
const std::vector<IxLayout> kIxLayouts = {
    {"contiguous", [](const Tensor& b) { return b.narrow(1, 0, 5).t().contiguous(); }},
    {"transposed", [](const Tensor& b) { return b.narrow(1, 0, 5).t(); }},
    {"stepped", [](const Tensor& b) { return b.slice(1, 0, 10, 2).t(); }},
};

}  // namespace

TEST(CudaIndex, EveryDtypeHasKernelsOnCuda) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  for (ScalarType t : all_dtypes()) {
    EXPECT_TRUE(supports(OpId::index_gather, kCUDA, t)) << t;
    EXPECT_TRUE(supports(OpId::index_put, kCUDA, t)) << t;
    EXPECT_TRUE(supports(OpId::masked_fill, kCUDA, t)) << t;
  }
}

TEST(CudaIndex, IndexSelectGatherAndTakeMatchCpu) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const Tensor sel = ix_long({4, 0, 2, 2, 1});
  const Tensor sel_cols = ix_long({11, 0, 5, 5});
  const Tensor gidx = ix_random({5, 7}, 12);  // gather along dim 1: index larger than self there
  const Tensor tidx = ix_long({0, -1, 59, -60, 7, 7, 30}).reshape({7, 1});
  for (ScalarType t : all_dtypes()) {
    const Tensor base = ix_data({12, 10}, t);
    const Tensor dbase = on_cuda(base);
    for (const IxLayout& l : kIxLayouts) {
      const Tensor h = l.make(base), d = l.make(dbase);
      expect_matches_cpu(index_select(h, 0, sel), index_select(d, 0, on_cuda(sel)),
                         ix_what("index_select dim 0", t, l.name));
      expect_matches_cpu(index_select(h, 1, sel_cols), index_select(d, 1, on_cuda(sel_cols)),
                         ix_what("index_select dim 1", t, l.name));
      expect_matches_cpu(gather(h, 1, gidx), gather(d, 1, on_cuda(gidx)),
                         ix_what("gather", t, l.name));
      // A transposed (non-contiguous) index.
      const Tensor gt_idx = ix_random({4, 5}, 5).t();
      expect_matches_cpu(gather(h, 0, gt_idx), gather(d, 0, on_cuda(gt_idx)),
                         ix_what("gather, transposed index", t, l.name));
      expect_matches_cpu(take(h, tidx), take(d, on_cuda(tidx)), ix_what("take", t, l.name));
    }
    // 0-dim self and index.
    const Tensor s = base.flatten().select(0, 3);
    expect_matches_cpu(index_select(s, 0, ix_long({0})),
                       index_select(on_cuda(s), 0, on_cuda(ix_long({0}))),
                       ix_what("index_select 0-dim", t, ""));
  }
}

// More elements than one grid holds: every thread runs several trips of the grid-stride loop.
TEST(CudaIndex, LargeGatherAndScatterAddMatchCpu) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const Tensor x = ix_data({1000, 3000}, kFloat);
  const Tensor index = ix_random({1000, 3000}, 3000);
  expect_matches_cpu(gather(x, 1, index), gather(on_cuda(x), 1, on_cuda(index)), "large gather");
  const Tensor z = zeros({1000, 64}, kFloat);
  const Tensor sidx = ix_random({1000, 3000}, 64);
  expect_matches_cpu(scatter_add(z, 1, sidx, x),
                     scatter_add(on_cuda(z), 1, on_cuda(sidx), on_cuda(x)), "large scatter_add");
}

TEST(CudaIndex, AdvancedIndexingWithNegativeIndicesAndBroadcastingMatchesCpu) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const Tensor i = ix_long({-1, 0, 2, -4}).reshape({4, 1});  // broadcasts against j
  const Tensor j = ix_long({4, -5, -1});
  const Tensor mask = gt(ix_data({4, 5}, kLong), 0);
  for (ScalarType t : all_dtypes()) {
    const Tensor h = ix_data({4, 5, 6}, t), d = on_cuda(h);
    auto check = [&](std::vector<TensorIndex> hl, std::vector<TensorIndex> dl, const char* what) {
      expect_matches_cpu(h.index(hl), d.index(dl), ix_what(what, t, ""));
    };
    const Tensor di = on_cuda(i), dj = on_cuda(j), dmask = on_cuda(mask);
    check({i}, {di}, "one index");
    check({i, j}, {di, dj}, "two broadcast indices");
    check({Slice(), j}, {Slice(), dj}, "after a slice");
    check({i, Slice(), ix_long({-1, 1, 0})}, {di, Slice(), on_cuda(ix_long({-1, 1, 0}))},
          "separated (dims go first)");
    check({Slice(), Slice(2, 6, 2), j.narrow(0, 0, 2)},
          {Slice(), Slice(2, 6, 2), dj.narrow(0, 0, 2)}, "after a stepped slice");
    check({mask}, {dmask}, "mask");
    check({mask, ix_long({-6})}, {dmask, on_cuda(ix_long({-6}))}, "mask then index");
    check({None, 1, j}, {None, 1, dj}, "None and an integer first");
    check({true, i}, {true, di}, "a bool scalar");
    // Host indices for a device tensor are moved over, as LibTorch does.
    check({i, j}, {i, j}, "host indices");
    // A non-contiguous source.
    expect_matches_cpu(h.transpose(0, 2).index({j, i}), d.transpose(0, 2).index({dj, di}),
                       ix_what("transposed source", t, ""));
    expect_matches_cpu(masked_select(h, mask.unsqueeze(2)), masked_select(d, dmask.unsqueeze(2)),
                       ix_what("masked_select", t, ""));
    expect_matches_cpu(nonzero(h), nonzero(d), ix_what("nonzero", t, ""));
  }
}

TEST(CudaIndex, IndexPutWithAndWithoutAccumulateMatchesCpu) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const Tensor unique_i = ix_long({-1, 0, 2}).reshape({3, 1});
  const Tensor unique_j = ix_long({4, -5});
  const Tensor dup_i = ix_long({1, -3, 1, 0, 1, 2, -3});  // 1 three times, -3 == 1 twice more
  const Tensor mask = gt(ix_data({4, 5}, kLong), 1);
  for (ScalarType t : all_dtypes()) {
    const Tensor base = ix_data({4, 5, 6}, t);
    for (bool strided : {false, true}) {
      // A transposed destination: the writes land through a non-contiguous view.
      auto dst_of = [&](const Tensor& b) {
        return strided ? b.transpose(0, 2).contiguous().transpose(0, 2) : b.clone();
      };
      auto run = [&](std::vector<TensorIndex> hl, std::vector<TensorIndex> dl, const Tensor& v,
                     bool acc, const char* what) {
        Tensor h = dst_of(base), d = dst_of(on_cuda(base));
        ember::index_put_(h, hl, v, acc);
        ember::index_put_(d, dl, on_cuda(v), acc);
        expect_matches_cpu(h, d, ix_what(what, t, strided ? "strided" : "contiguous"));
      };
      run({unique_i, unique_j}, {on_cuda(unique_i), on_cuda(unique_j)}, ix_data({3, 2, 6}, t),
          false, "put, broadcast indices");
      run({unique_i, unique_j}, {on_cuda(unique_i), on_cuda(unique_j)}, ix_data({3, 2, 6}, t), true,
          "accumulate, broadcast indices");
      run({dup_i}, {on_cuda(dup_i)}, ix_data({7, 5, 6}, t), true, "accumulate, duplicates");
      run({Slice(), Slice(), dup_i.narrow(0, 0, 4)},
          {Slice(), Slice(), on_cuda(dup_i).narrow(0, 0, 4)}, ix_data({4, 5, 4}, t), true,
          "accumulate, duplicates in the last dim");
      run({mask}, {on_cuda(mask)}, ix_data({6}, t), false, "put, mask, broadcast value");
      run({mask}, {on_cuda(mask)}, ix_data({6}, t), true, "accumulate, mask");
      run({Slice(), 2}, {Slice(), 2}, ix_data({6}, t), true, "accumulate, basic indices only");
      // A 0-dim host value for a device tensor acts as a scalar.
      {
        Tensor h = dst_of(base), d = dst_of(on_cuda(base));
        const Tensor v = ix_data({}, t);
        ember::index_put_(h, {dup_i}, v, true);
        ember::index_put_(d, {on_cuda(dup_i)}, v, true);
        expect_matches_cpu(h, d, ix_what("accumulate, 0-dim host value", t, ""));
      }
    }
  }
}

// Many threads add into a few elements at once: for 1- and 2-byte types the four (two) elements
// of one 32-bit word are all targets, so the compare-and-swap loops retry against each other.
// Integer sums wrap (int8, int16, uint8) the same in any order; float sums stay exact (<= 256).
TEST(CudaIndex, AccumulateUnderContentionMatchesCpu) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  for (ScalarType t : all_dtypes()) {
    const int64_t n = is_floating_point(t) ? 1000 : 200000;  // floats: 250 adds of 1 per slot
    const Tensor index = remainder(arange(n, TensorOptions().dtype(kLong)), 4);
    const Tensor ones_v = ones({n}, TensorOptions().dtype(t));
    const Tensor data_v = ix_data({n}, t);
    for (const Tensor& v : {ones_v, data_v}) {
      if (is_floating_point(t) && !v.is_same(ones_v)) continue;  // keep float sums exact
      const Tensor h = zeros({4}, TensorOptions().dtype(t));
      const Tensor d = on_cuda(h);
      ember::index_put_(h, {index}, v, true);
      ember::index_put_(d, {on_cuda(index)}, on_cuda(v), true);
      expect_matches_cpu(h, d, ix_what("contended accumulate", t, ""));
      // An odd offset: the four targets straddle two words.
      const Tensor h2 = zeros({7}, TensorOptions().dtype(t));
      const Tensor d2 = on_cuda(h2);
      h2.narrow(0, 1, 4).index_add_(0, index, v);
      d2.narrow(0, 1, 4).index_add_(0, on_cuda(index), on_cuda(v));
      expect_matches_cpu(h2, d2, ix_what("contended index_add_ at an odd offset", t, ""));
    }
  }
}

TEST(CudaIndex, ScatterScatterAddAndIndexAddMatchCpu) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  // Each row's index a permutation (scatter without duplicates is deterministic), and one with
  // repeats for scatter_add.
  const Tensor perm = remainder(add(mul(arange(5, TensorOptions().dtype(kLong)).unsqueeze(1), 3),
                                    mul(arange(4, TensorOptions().dtype(kLong)), 7)),
                                10);  // [5, 4]: 4 distinct columns of 10 per row
  const Tensor rep = ix_random({5, 8}, 10);
  const Tensor sel = ix_long({4, 0, 2, 2, 1, 4});
  for (ScalarType t : all_dtypes()) {
    const Tensor base = ix_data({10, 5}, t).t();  // [5, 10], non-contiguous
    const Tensor dbase = on_cuda(ix_data({10, 5}, t)).t();
    const Tensor src = ix_data({6, 9}, t);  // larger than the index: read in its leading part
    const Tensor dsrc = on_cuda(src);
    expect_matches_cpu(scatter(base, 1, perm, src), scatter(dbase, 1, on_cuda(perm), dsrc),
                       ix_what("scatter", t, ""));
    const Scalar value = t == kBool ? Scalar(true) : Scalar(3);
    expect_matches_cpu(scatter(base, 1, perm, value), scatter(dbase, 1, on_cuda(perm), value),
                       ix_what("scatter value", t, ""));
    expect_matches_cpu(scatter_add(base, 1, rep, ix_data({5, 8}, t)),
                       scatter_add(dbase, 1, on_cuda(rep), on_cuda(ix_data({5, 8}, t))),
                       ix_what("scatter_add", t, ""));
    const Tensor src_t = ix_data({9, 6}, t);  // read as [6, 9] through .t(): non-contiguous
    expect_matches_cpu(scatter_add(base, 1, rep, src_t.t()),
                       scatter_add(dbase, 1, on_cuda(rep), on_cuda(src_t).t()),
                       ix_what("scatter_add, transposed src", t, ""));
    {
      Tensor h = base.clone(), d = dbase.clone();
      const Tensor rows = remainder(perm.narrow(1, 0, 1), 5);  // distinct rows
      h.scatter_(0, rows, src);
      d.scatter_(0, on_cuda(rows), dsrc);
      expect_matches_cpu(h, d, ix_what("scatter_ dim 0", t, ""));
    }
    const Tensor source = ix_data({5, 6}, t);
    const Scalar alpha = is_floating_point(t) ? Scalar(2.0) : Scalar(2);
    if (t != kBool) {  // index_add with alpha multiplies, which bool does not
      expect_matches_cpu(index_add(base, 1, sel, source, alpha),
                         index_add(dbase, 1, on_cuda(sel), on_cuda(source), alpha),
                         ix_what("index_add", t, ""));
    }
    expect_matches_cpu(index_add(base, 1, sel, source),
                       index_add(dbase, 1, on_cuda(sel), on_cuda(source)),
                       ix_what("index_add alpha 1", t, ""));
  }
}

TEST(CudaIndex, MaskedFillMatchesCpu) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const Tensor mask = gt(ix_data({6, 5}, kLong), 0);
  const Tensor row_mask = gt(ix_data({5}, kLong), -2);  // broadcast over rows
  for (ScalarType t : all_dtypes()) {
    const Tensor base = ix_data({5, 6}, t).t();  // [6, 5], non-contiguous
    const Tensor dbase = on_cuda(ix_data({5, 6}, t)).t();
    const Scalar value = t == kBool ? Scalar(true) : Scalar(7);
    expect_matches_cpu(masked_fill(base, mask, value), masked_fill(dbase, on_cuda(mask), value),
                       ix_what("masked_fill", t, ""));
    expect_matches_cpu(masked_fill(base, row_mask, value),
                       masked_fill(dbase, on_cuda(row_mask), value),
                       ix_what("masked_fill, broadcast mask", t, ""));
    // The Tensor overload: a 0-dim value, on the host or the device.
    const Tensor v = full({}, value, TensorOptions().dtype(t));
    expect_matches_cpu(masked_fill(base, mask, v), masked_fill(dbase, on_cuda(mask), v),
                       ix_what("masked_fill, host value tensor", t, ""));
    expect_matches_cpu(masked_fill(base, mask, v), masked_fill(dbase, on_cuda(mask), on_cuda(v)),
                       ix_what("masked_fill, device value tensor", t, ""));
    Tensor h = base.clone(), d = dbase.clone();  // in place, through a stepped view
    h.slice(0, 0, 6, 2).masked_fill_(mask.slice(0, 0, 6, 2), value);
    d.slice(0, 0, 6, 2).masked_fill_(on_cuda(mask).slice(0, 0, 6, 2), value);
    expect_matches_cpu(h, d, ix_what("masked_fill_ through a view", t, ""));
  }
  // Dense and long: the contiguous path of more than one grid.
  const Tensor big = ix_data({3000000}, kFloat), big_mask = gt(ix_data({3000000}, kLong), 2);
  expect_matches_cpu(masked_fill(big, big_mask, -1.5),
                     masked_fill(on_cuda(big), on_cuda(big_mask), -1.5), "large masked_fill");
}

TEST(CudaIndex, OutOfRangeDeviceIndicesAreErrors) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  using ember_test::expect_error;
  const Tensor x = on_cuda(ix_data({5, 4}, kFloat));
  const Tensor bad = on_cuda(ix_long({0, 7, 1}));
  const Tensor neg = on_cuda(ix_long({0, -6}));
  expect_error<IndexError>(
      [&] { index_select(x, 0, bad); },
      {"index_select", "index 7 is out of bounds for dimension 0 with size 5"});
  expect_error<IndexError>([&] { index_select(x, 0, neg); }, {"index_select", "index -6"});
  expect_error<IndexError>(
      [&] {
        gather(x, 0, bad.reshape({3, 1}));
      },
      {"gather", "index 7 is out of bounds"});
  expect_error<IndexError>([&] { take(x, on_cuda(ix_long({20}))); },
                           {"take", "index 20 is out of bounds"});
  expect_error<IndexError>([&] { take(x, on_cuda(ix_long({-21}))); }, {"take", "index -21"});
  expect_error<IndexError>([&] { x.index({bad}); },
                           {"index", "index 7 is out of bounds for dimension 0 with size 5"});
  expect_error<IndexError>([&] { x.index({Slice(), neg}); }, {"index", "index -6"});
  Tensor y = x.clone();
  const Tensor before = y.to(Device(kCPU));
  expect_error<IndexError>(
      [&] {
        ember::index_put_(y, {bad}, on_cuda(ones({3, 4})), true);
      },
      {"index_put_", "index 7"});
  expect_error<IndexError>(
      [&] {
        y.scatter_(1, on_cuda(ix_long({4}).reshape({1, 1})), 1.0);
      },
      {"scatter_", "index 4 is out of bounds for dimension 1 with size 4"});
  expect_error<IndexError>(
      [&] {
        y.index_add_(0, bad, on_cuda(ones({3, 4})));
      },
      {"index_add_", "index 7"});
  // Nothing was written by the failed calls.
  EXPECT_TRUE(equal(y.to(Device(kCPU)), before));
}

TEST(CudaIndex, MixedDevicesAreErrorsNamingTheOpAndDevices) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  using ember_test::expect_error;
  const Tensor h = ix_data({5, 4}, kFloat), d = on_cuda(h);
  const Tensor i = ix_long({0, 1});
  expect_error([&] { index_select(d, 0, i); }, {"index_select", "cpu", "cuda"});
  expect_error([&] { gather(d, 0, i.reshape({2, 1})); }, {"gather", "cpu", "cuda"});
  expect_error([&] { take(h, on_cuda(i)); }, {"take", "cpu", "cuda"});
  expect_error([&] { masked_fill(d, gt(h, 0), 1.0); }, {"masked_fill", "cpu", "cuda"});
  expect_error([&] { d.clone().masked_fill_(gt(h, 0), 1.0); }, {"masked_fill_", "cpu", "cuda"});
  expect_error(
      [&] {
        d.clone().scatter_add_(0, i.reshape({2, 1}), d);
      },
      {"scatter_add_", "cpu", "cuda"});
  expect_error(
      [&] {
        d.clone().index_put_({on_cuda(i)}, ones({2, 4}));
      },
      {"index_put_", "cpu", "cuda"});
  expect_error([&] { h.index({on_cuda(i)}); }, {"index", "cpu", "cuda"});
}

TEST(CudaIndex, BackwardThroughIndexSelectMatchesCpu) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const Tensor sel = ix_long({3, 0, 3, 1, 3});  // duplicates: their gradients add up
  for (ScalarType t : float_dtypes()) {
    const Tensor x0 = ix_data({4, 6}, t), w0 = ix_data({5, 6}, t);
    Tensor hx = x0.clone().requires_grad_(), dx = on_cuda(x0).requires_grad_();
    (index_select(hx, 0, sel) * w0).sum().backward();
    (index_select(dx, 0, on_cuda(sel)) * on_cuda(w0)).sum().backward();
    ASSERT_TRUE(dx.grad().defined());
    expect_matches_cpu(hx.grad(), dx.grad(), ix_what("index_select backward", t, ""));
    // And through advanced indexing (its backward is an accumulating index_put_).
    Tensor hy = x0.clone().requires_grad_(), dy = on_cuda(x0).requires_grad_();
    (hy.index({Slice(), ix_long({-1, 2, -1})}) * 3).sum().backward();
    (dy.index({Slice(), on_cuda(ix_long({-1, 2, -1}))}) * 3).sum().backward();
    expect_matches_cpu(hy.grad(), dy.grad(), ix_what("index backward", t, ""));
  }
}

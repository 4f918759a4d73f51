// broadcast_coalesced (DDP's parameters at construction, its buffers before each forward):
// tensors of several dtypes, shapes and layouts reach every rank from rank 0, with buckets
// that hold one tensor each (16 bytes), some together (32: the two floats, 12 + 20 bytes, and
// the two int64s, 8 + 16; 128: also the two strided doubles and the two bools), and the
// default bucket.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ember/distributed/distributed.h"
#include "src/distributed/broadcast_coalesced.h"
#include "tests/distributed/harness.h"

namespace dist_broadcast_coalesced_test {

namespace dist = ember::distributed;
using ember::Tensor;

// Distinct values per rank and per tensor (index `which`), in `dtype`.
Tensor values(int rank, int which, std::vector<int64_t> shape, ember::ScalarType dtype) {
  Tensor t = ember::arange(0, ember::ones(shape).numel(), ember::TensorOptions().dtype(dtype));
  return (t + (100 * which + 10 * rank)).to(dtype).reshape(shape);
}

// A fresh set: float, int64 (0-dim), a transposed double matrix, an empty float, a second
// float, a bool, a second int64, a second transposed double and a second bool (each joins its
// dtype's open bucket when it fits).
std::vector<Tensor> make_set(int rank) {
  return {values(rank, 0, {3}, ember::kFloat),
          values(rank, 1, {}, ember::kLong),
          values(rank, 2, {2, 3}, ember::kDouble).t(),
          ember::zeros({0}),
          values(rank, 4, {5}, ember::kFloat),
          values(rank, 5, {4}, ember::kLong) > 500 + 11 * rank,  // true from element rank + 1
          values(rank, 6, {2}, ember::kLong),
          values(rank, 7, {3, 2}, ember::kDouble).t(),
          values(rank, 8, {3}, ember::kLong) > 800 + 11 * rank};
}

EMBER_DIST_WORKER(broadcast_coalesced) {
  dist::init_process_group("gloo", "env://", -1, -1, std::chrono::seconds(60));
  const int rank = dist::get_rank();
  auto group = dist::group_world();
  for (size_t bucket_bytes : {size_t{16}, size_t{32}, size_t{128}, dist::kBroadcastBucketBytes}) {
    std::vector<Tensor> mine = make_set(rank);
    const std::vector<Tensor> want = make_set(0);
    dist::broadcast_coalesced(*group, mine, 0, bucket_bytes);
    // Every rank, the root too, writes back the same way: the version counters agree (else a
    // backward that checks them could fail on some ranks only and leave the others waiting).
    int64_t versions = 0;
    for (const Tensor& t : mine) versions += t._version();
    Tensor low = ember::full({1}, static_cast<double>(versions), ember::kLong);
    Tensor high = low.clone();
    dist::all_reduce(low, dist::ReduceOp::MIN);
    dist::all_reduce(high, dist::ReduceOp::MAX);
    DIST_CHECK(ember::equal(low, high), "version counters differ across ranks ({} here)", versions);
    for (size_t i = 0; i < mine.size(); ++i) {
      DIST_CHECK(
          mine[i].scalar_type() == want[i].scalar_type() && mine[i].sizes() == want[i].sizes(),
          "tensor {} changed dtype or shape", i);
      DIST_CHECK(ember::equal(mine[i], want[i]), "tensor {} (bucket {} bytes) is not rank 0's", i,
                 bucket_bytes);
    }
  }
  dist::destroy_process_group();
}

TEST(BroadcastCoalesced, EveryDtypeAndLayoutOnThreeRanks) {
  dist_test::expect_ranks_ok(dist_test::run_ranks({"broadcast_coalesced", 3}));
}

}  // namespace dist_broadcast_coalesced_test

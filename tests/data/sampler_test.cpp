// Samplers: the index sequences LibTorch 1.13 yields for the same arguments (the distributed
// splits were printed by a LibTorch program; the random orders by torch.randperm after
// torch.manual_seed), reset, and save/load round trips through an in-memory archive.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <set>
#include <vector>

#include "ember/ember.h"
#include "tests/support/expect_error.h"

using namespace ember;
using ember_test::expect_error;

namespace {

using SamplerIndexBatches = std::vector<std::vector<size_t>>;

template <class S>
SamplerIndexBatches sampler_drain(S& sampler, size_t batch_size) {
  SamplerIndexBatches out;
  while (auto batch = sampler.next(batch_size)) out.push_back(*batch);
  return out;
}

std::vector<size_t> sampler_flat(const SamplerIndexBatches& batches) {
  std::vector<size_t> out;
  for (const auto& b : batches) out.insert(out.end(), b.begin(), b.end());
  return out;
}

// An archive written by one sampler, read back by another.
template <class S>
void sampler_round_trip(const S& from, S& to) {
  serialize::OutputArchive out;
  from.save(out);
  serialize::InputArchive in(std::make_shared<serialize::ArchiveNode>(out.root()));
  to.load(in);
}

TEST(SequentialSampler, YieldsIndicesInOrderAndResets) {
  data::samplers::SequentialSampler s(7);
  EXPECT_EQ(sampler_drain(s, 3), (SamplerIndexBatches{{0, 1, 2}, {3, 4, 5}, {6}}));
  EXPECT_FALSE(s.next(3).has_value());
  s.reset();
  EXPECT_EQ(s.next(2), (std::vector<size_t>{0, 1}));
  s.reset(3);
  EXPECT_EQ(sampler_drain(s, 5), (SamplerIndexBatches{{0, 1, 2}}));
  data::samplers::SequentialSampler empty(0);
  EXPECT_FALSE(empty.next(1).has_value());
}

TEST(SequentialSampler, SaveLoadRoundTrip) {
  data::samplers::SequentialSampler a(10), b(10);
  a.next(4);
  sampler_round_trip(a, b);
  EXPECT_EQ(b.index(), 4u);
  EXPECT_EQ(b.next(100), (std::vector<size_t>{4, 5, 6, 7, 8, 9}));
}

TEST(RandomSampler, SeededPermutationsMatchPyTorch) {
  // torch 1.13: torch.manual_seed(7); torch.randperm(10) -> [5, 0, 3, 4, 1, 7, 9, 6, 8, 2], and
  // the next torch.randperm(10) -> [1, 8, 9, 5, 7, 4, 0, 3, 6, 2]. The constructor draws the
  // first, reset() the second, as LibTorch's RandomSampler.
  manual_seed(7);
  data::samplers::RandomSampler s(10);
  EXPECT_EQ(sampler_drain(s, 4), (SamplerIndexBatches{{5, 0, 3, 4}, {1, 7, 9, 6}, {8, 2}}));
  s.reset();
  EXPECT_EQ(sampler_flat(sampler_drain(s, 3)), (std::vector<size_t>{1, 8, 9, 5, 7, 4, 0, 3, 6, 2}));
  manual_seed(7);
  data::samplers::RandomSampler again(10, kInt32);
  again.reset();
  EXPECT_EQ(sampler_flat(sampler_drain(again, 10)),
            (std::vector<size_t>{1, 8, 9, 5, 7, 4, 0, 3, 6, 2}));
}

TEST(RandomSampler, ResetToNewSizeIsAPermutation) {
  data::samplers::RandomSampler s(5);
  s.reset(1000);
  std::vector<size_t> all = sampler_flat(sampler_drain(s, 64));
  ASSERT_EQ(all.size(), 1000u);
  std::sort(all.begin(), all.end());
  for (size_t i = 0; i < all.size(); ++i) ASSERT_EQ(all[i], i);
}

TEST(RandomSampler, SaveLoadRoundTripResumesTheSamePermutation) {
  manual_seed(3);
  data::samplers::RandomSampler a(50), b(7);
  a.next(20);
  sampler_round_trip(a, b);
  EXPECT_EQ(b.index(), 20u);
  EXPECT_EQ(sampler_drain(b, 8), sampler_drain(a, 8));
}

TEST(RandomSampler, RejectsBadArguments) {
  expect_error<ValueError>([] { data::samplers::RandomSampler(-1); }, {"RandomSampler", "-1"});
  expect_error<TypeError>([] { data::samplers::RandomSampler(3, kFloat); },
                          {"RandomSampler", "float32"});
}

// LibTorch 1.13's DistributedRandomSampler(10, 3, rank, allow_duplicates), batches of 4, epochs
// 0 and 1 (set_epoch(1); reset()), and DistributedSequentialSampler(10, 3, rank, ...).
struct DistributedCase {
  bool dup;
  size_t rank;
  std::vector<size_t> random_e0, random_e1, sequential;
};

const std::vector<DistributedCase>& distributed_cases() {
  static const std::vector<DistributedCase> cases = {
      {true, 0, {0, 2, 1, 5}, {9, 0, 2, 5}, {0, 1, 2, 3}},
      {true, 1, {9, 1, 4, 7}, {1, 4, 6, 3}, {4, 5, 6, 7}},
      {true, 2, {6, 0, 3, 8}, {1, 8, 0, 7}, {8, 9, 0, 1}},
      {false, 0, {2, 4, 6}, {1, 0, 6}, {0, 1, 2}},
      {false, 1, {0, 5, 1}, {3, 8, 4}, {3, 4, 5}},
      {false, 2, {8, 3, 7}, {2, 7, 5}, {6, 7, 8}},
  };
  return cases;
}

TEST(DistributedSampler, SplitsMatchLibTorch) {
  for (const DistributedCase& c : distributed_cases()) {
    SCOPED_TRACE(::testing::Message() << "dup=" << c.dup << " rank=" << c.rank);
    data::samplers::DistributedRandomSampler r(10, 3, c.rank, c.dup);
    EXPECT_EQ(sampler_flat(sampler_drain(r, 4)), c.random_e0);
    r.set_epoch(1);
    r.reset();
    EXPECT_EQ(sampler_flat(sampler_drain(r, 4)), c.random_e1);
    data::samplers::DistributedSequentialSampler q(10, 3, c.rank, c.dup);
    EXPECT_EQ(sampler_flat(sampler_drain(q, 4)), c.sequential);
  }
}

TEST(DistributedSampler, ReplicasCoverTheDataSet) {
  for (bool dup : {true, false}) {
    std::multiset<size_t> seen;
    for (size_t rank = 0; rank < 4; ++rank) {
      data::samplers::DistributedRandomSampler r(10, 4, rank, dup);
      r.set_epoch(5);
      r.reset();
      std::vector<size_t> mine = sampler_flat(sampler_drain(r, 3));
      EXPECT_EQ(mine.size(), dup ? 3u : 2u);  // ceil(10 / 4) or floor(10 / 4)
      seen.insert(mine.begin(), mine.end());
    }
    std::set<size_t> distinct(seen.begin(), seen.end());
    if (dup) {
      EXPECT_EQ(seen.size(), 12u);
      EXPECT_EQ(distinct.size(), 10u);  // every index, two of them twice
    } else {
      EXPECT_EQ(seen.size(), 8u);
      EXPECT_EQ(distinct.size(), 8u);  // no index twice
    }
  }
}

TEST(DistributedSampler, SaveLoadRoundTrip) {
  data::samplers::DistributedRandomSampler a(100, 2, 1), b(100, 2, 1);
  a.set_epoch(4);
  a.reset();
  a.next(10);
  sampler_round_trip(a, b);
  EXPECT_EQ(b.epoch(), 4u);
  EXPECT_EQ(b.index(), a.index());
  EXPECT_EQ(sampler_drain(b, 7), sampler_drain(a, 7));

  data::samplers::DistributedSequentialSampler c(10, 3, 2), d(10, 3, 2);
  c.next(2);
  sampler_round_trip(c, d);
  EXPECT_EQ(sampler_drain(d, 4), sampler_drain(c, 4));
}

TEST(DistributedSampler, RejectsBadRanks) {
  expect_error<Error>([] { data::samplers::DistributedSequentialSampler(10, 2, 2); },
                      {"rank 2", "2 replicas"});
  expect_error<ValueError>([] { data::samplers::DistributedRandomSampler(10, 0, 0); },
                           {"num_replicas"});
}

TEST(StreamSampler, RequestsBatchSizesUpToTheEpochSize) {
  data::samplers::StreamSampler s(10);
  std::vector<size_t> sizes;
  while (auto b = s.next(4)) sizes.push_back(b->size());
  EXPECT_EQ(sizes, (std::vector<size_t>{4, 4, 2}));
  s.reset(5);
  ASSERT_TRUE(s.next(8).has_value());
  EXPECT_FALSE(s.next(8).has_value());

  data::samplers::StreamSampler a(10), b(10);
  a.next(3);
  sampler_round_trip(a, b);
  EXPECT_EQ(static_cast<size_t>(*b.next(100)), 7u);
}

TEST(Sampler, LoadRejectsAnArchiveWithoutItsKeys) {
  serialize::InputArchive empty;
  data::samplers::SequentialSampler s(3);
  expect_error<Error>([&] { s.load(empty); }, {"index"});
}

}  // namespace

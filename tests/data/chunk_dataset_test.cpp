// ChunkDataset with a small in-memory ChunkDataReader, through the stateful loader: every example
// once per epoch (0, 1 and 3 workers; 1 and 3 preloaders), batch sizes, cross-chunk shuffling,
// a reader's exception reaching the caller, and stopping mid-epoch.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <numeric>
#include <vector>

#include "ember/ember.h"
#include "tests/support/expect_error.h"

using namespace ember;
using ember_test::expect_error;
namespace datasets = ember::data::datasets;
namespace samplers = ember::data::samplers;

namespace {

// Chunk c holds the ints [10 c, 10 c + sizes[c]).
struct ChunkTestReader : datasets::ChunkDataReader<int> {
  explicit ChunkTestReader(std::vector<size_t> sizes) : sizes(std::move(sizes)) {}
  std::vector<int> read_chunk(size_t c) override {
    if (fail_chunk && c == *fail_chunk)
      throw Error("ChunkTestReader: chunk " + std::to_string(c) + " is corrupt");
    std::vector<int> out(sizes.at(c));
    std::iota(out.begin(), out.end(), static_cast<int>(10 * c));
    return out;
  }
  size_t chunk_count() override { return sizes.size(); }
  void reset() override { ++*resets; }

  std::vector<size_t> sizes;
  std::optional<size_t> fail_chunk;
  std::shared_ptr<std::atomic<int>> resets = std::make_shared<std::atomic<int>>(0);
};

std::vector<int> chunk_test_expected(const std::vector<size_t>& sizes) {
  std::vector<int> out;
  for (size_t c = 0; c < sizes.size(); ++c)
    for (size_t i = 0; i < sizes[c]; ++i) out.push_back(static_cast<int>(10 * c + i));
  return out;
}

using ChunkTestDataset = datasets::ChunkDataset<ChunkTestReader>;

TEST(ChunkDataset, EveryExampleOncePerEpoch) {
  const std::vector<size_t> sizes = {7, 3, 0, 9, 5, 8};  // an empty chunk is skipped
  for (size_t preloaders : {1u, 3u}) {
    for (size_t workers : {0u, 1u, 3u}) {
      SCOPED_TRACE(::testing::Message() << preloaders << " preloaders, " << workers << " workers");
      ChunkTestReader reader(sizes);
      auto resets = reader.resets;
      auto ds = datasets::make_shared_dataset<ChunkTestDataset>(
          reader, samplers::RandomSampler(0), samplers::RandomSampler(0),
          datasets::ChunkDatasetOptions(preloaders, /*batch_size=*/4, /*cache_size=*/8));
      auto loader = data::make_data_loader(ds, data::DataLoaderOptions(4).workers(workers));
      for (int epoch = 0; epoch < 2; ++epoch) {
        std::vector<int> seen;
        size_t short_batches = 0;
        for (std::vector<int>& batch : *loader) {
          ASSERT_GE(batch.size(), 1u);
          ASSERT_LE(batch.size(), 4u);
          if (batch.size() < 4) ++short_batches;
          seen.insert(seen.end(), batch.begin(), batch.end());
        }
        std::sort(seen.begin(), seen.end());
        EXPECT_EQ(seen, chunk_test_expected(sizes));
        // Batches are topped up across chunks; only the last ones of the epoch can be short.
        EXPECT_LE(short_batches, preloaders);
      }
      EXPECT_EQ(resets->load(), 2);
    }
  }
}

TEST(ChunkDataset, SequentialSamplersKeepChunkOrder) {
  const std::vector<size_t> sizes = {3, 4, 2};
  datasets::ChunkDataset<ChunkTestReader, samplers::SequentialSampler, samplers::SequentialSampler>
      ds(ChunkTestReader(sizes), samplers::SequentialSampler(0), samplers::SequentialSampler(0),
         datasets::ChunkDatasetOptions(1, 2));
  expect_error<Error>([&] { ds.get_batch(); }, {"before reset"});
  ds.reset();
  std::vector<std::vector<int>> batches;
  while (auto b = ds.get_batch()) batches.push_back(*b);
  EXPECT_EQ(batches, (std::vector<std::vector<int>>{{0, 1}, {2, 10}, {11, 12}, {13, 20}, {21}}));
  expect_error<ValueError>([&] { ds.get_batch(3); }, {"batch_size 2"});
}

TEST(ChunkDataset, CrossChunkShuffleAndPreprocessing) {
  const std::vector<size_t> sizes = {4, 4, 4, 4};
  std::atomic<int> policy_calls{0};
  datasets::ChunkDataset<ChunkTestReader, samplers::SequentialSampler, samplers::SequentialSampler>
      ds(ChunkTestReader(sizes), samplers::SequentialSampler(0), samplers::SequentialSampler(0),
         datasets::ChunkDatasetOptions(1, 8, 64, /*cross_chunk_shuffle_count=*/2),
         [&](std::vector<int>& data) {
           ++policy_calls;
           std::reverse(data.begin(), data.end());
         });
  ds.reset();
  std::vector<std::vector<int>> batches;
  while (auto b = ds.get_batch()) batches.push_back(*b);
  // Chunks 0 and 1 are read together, then reversed by the policy; likewise 2 and 3.
  EXPECT_EQ(batches, (std::vector<std::vector<int>>{{13, 12, 11, 10, 3, 2, 1, 0},
                                                    {33, 32, 31, 30, 23, 22, 21, 20}}));
  EXPECT_EQ(policy_calls.load(), 2);
}

TEST(ChunkDataset, ReaderExceptionReachesTheCaller) {
  ChunkTestReader reader({5, 5, 5});
  reader.fail_chunk = 1;
  auto ds = datasets::make_shared_dataset<
      datasets::ChunkDataset<ChunkTestReader, samplers::SequentialSampler>>(
      reader, samplers::SequentialSampler(0), samplers::RandomSampler(0),
      datasets::ChunkDatasetOptions(1, 5));
  auto loader = data::make_data_loader(ds, data::DataLoaderOptions(5));
  expect_error<data::WorkerException>(
      [&] {
        for (auto& batch : *loader) (void)batch;
      },
      {"chunk 1 is corrupt"});
}

TEST(ChunkDataset, StoppingMidEpochAndDestroyingDoesNotHang) {
  // A cache of one batch: the preloaders block on it; reset() and the destructor must wake them.
  std::vector<size_t> sizes(50, 10);
  auto ds = datasets::make_shared_dataset<ChunkTestDataset>(
      ChunkTestReader(sizes), samplers::RandomSampler(0), samplers::RandomSampler(0),
      datasets::ChunkDatasetOptions(4, 10, 10));
  {
    auto loader = data::make_data_loader(ds, data::DataLoaderOptions(10).workers(2));
    int taken = 0;
    for (auto& batch : *loader) {
      (void)batch;
      if (++taken == 3) break;
    }
  }
  ds->reset();
  EXPECT_TRUE(ds->get_batch().has_value());
}

TEST(ChunkDataset, SaveLoadResumesTheChunkSampler) {
  // A RandomSampler picks the chunks: its archive holds the permutation and the position (a
  // SequentialSampler's holds only the position, as LibTorch's, so it resumes only over a sampler
  // of the right size).
  using Resumable =
      datasets::ChunkDataset<ChunkTestReader, samplers::RandomSampler, samplers::SequentialSampler>;
  Resumable a(ChunkTestReader({2, 2, 2}), samplers::RandomSampler(0),
              samplers::SequentialSampler(0), datasets::ChunkDatasetOptions(1, 2));
  a.chunk_sampler().reset(3);
  const size_t handed_out = a.chunk_sampler().next(1)->at(0);  // no preloader: a was never reset
  serialize::OutputArchive out;
  out << a;
  Resumable b(ChunkTestReader({2, 2, 2}), samplers::RandomSampler(0),
              samplers::SequentialSampler(0), datasets::ChunkDatasetOptions(1, 2));
  serialize::InputArchive in(std::make_shared<serialize::ArchiveNode>(out.root()));
  in >> b;
  b.reset();  // resumes after the loaded position instead of starting over
  std::vector<int> seen;
  while (auto batch = b.get_batch()) seen.insert(seen.end(), batch->begin(), batch->end());
  std::sort(seen.begin(), seen.end());
  std::vector<int> rest;
  for (int c = 0; c < 3; ++c)
    if (static_cast<size_t>(c) != handed_out) rest.insert(rest.end(), {10 * c, 10 * c + 1});
  EXPECT_EQ(seen, rest);
  b.reset();  // the loaded position is used once: the next epoch has every chunk
  seen.clear();
  while (auto batch = b.get_batch()) seen.insert(seen.end(), batch->begin(), batch->end());
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(seen, (std::vector<int>{0, 1, 10, 11, 20, 21}));
}

TEST(ChunkDatasetOptions, RejectsBadValues) {
  expect_error<ValueError>([] { datasets::ChunkDatasetOptions(0, 1); }, {"preloader_count"});
  expect_error<ValueError>([] { datasets::ChunkDatasetOptions(1, 0); }, {"batch_size"});
  expect_error<ValueError>([] { datasets::ChunkDatasetOptions(1, 8, 4); }, {"cache_size 4"});
  expect_error<ValueError>([] { datasets::ChunkDatasetOptions(1, 1, 4, 0); },
                           {"cross_chunk_shuffle_count"});
}

}  // namespace

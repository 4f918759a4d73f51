// The data loader: batch counts (with and without drop_last), every index exactly once per epoch
// over several epochs with 0, 2 and 4 workers, enforce_ordering, worker exceptions reaching the
// caller, timeouts, iterator semantics, and destroying a loader mid-epoch under a slow data set.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "ember/ember.h"
#include "tests/support/expect_error.h"

using namespace ember;
using ember_test::expect_error;
namespace datasets = ember::data::datasets;

namespace {

// Example i is {[i] float, i int64}; optionally sleeps per batch, throws for one index, and counts
// the batches it served (shared by the loader's copies).
struct LoaderTestDataset : datasets::Dataset<LoaderTestDataset> {
  explicit LoaderTestDataset(size_t n) : n(n) {}
  data::Example<> get(size_t i) override {
    if (throw_at && i == *throw_at)
      throw ValueError("LoaderTestDataset: bad example " + std::to_string(i));
    return {full({1}, static_cast<double>(i)), tensor(static_cast<int64_t>(i))};
  }
  std::vector<data::Example<>> get_batch(ArrayRef<size_t> indices) override {
    if (delay) std::this_thread::sleep_for(*delay);
    // A later batch sleeps less, so without ordering batches finish out of order.
    if (decreasing_delay && !indices.empty())
      std::this_thread::sleep_for(std::chrono::milliseconds(20 - std::min<size_t>(indices[0], 19)));
    ++*served;
    return datasets::Dataset<LoaderTestDataset>::get_batch(indices);
  }
  std::optional<size_t> size() const override { return n; }

  size_t n;
  std::optional<size_t> throw_at;
  std::optional<std::chrono::milliseconds> delay;
  bool decreasing_delay = false;
  std::shared_ptr<std::atomic<int>> served = std::make_shared<std::atomic<int>>(0);
};

using LoaderTestBatch = std::vector<data::Example<>>;

std::vector<int64_t> loader_test_targets(const LoaderTestBatch& batch) {
  std::vector<int64_t> out;
  for (const auto& e : batch) out.push_back(e.target.item<int64_t>());
  return out;
}

TEST(DataLoader, BatchCountsWithAndWithoutDropLast) {
  for (size_t workers : {0u, 2u}) {
    auto loader =
        data::make_data_loader(LoaderTestDataset(10), data::DataLoaderOptions(3).workers(workers));
    std::vector<size_t> sizes;
    for (auto& batch : *loader) sizes.push_back(batch.size());
    EXPECT_EQ(sizes, (std::vector<size_t>{3, 3, 3, 1})) << workers << " workers";

    auto dropping = data::make_data_loader(
        LoaderTestDataset(10), data::DataLoaderOptions(3).workers(workers).drop_last(true));
    sizes.clear();
    for (auto& batch : *dropping) sizes.push_back(batch.size());
    EXPECT_EQ(sizes, (std::vector<size_t>{3, 3, 3})) << workers << " workers";
  }
}

TEST(DataLoader, EveryIndexOncePerEpochOverSeveralEpochs) {
  for (size_t workers : {0u, 2u, 4u}) {
    LoaderTestDataset ds(103);
    auto served = ds.served;
    auto loader = data::make_data_loader(
        data::datasets::map(std::move(ds), data::transforms::Stack<>()),
        data::DataLoaderOptions().batch_size(8).workers(workers).enforce_ordering(false));
    std::vector<std::vector<int64_t>> orders;
    for (int epoch = 0; epoch < 3; ++epoch) {
      std::vector<int64_t> seen;
      for (auto& batch : *loader) {
        ASSERT_EQ(batch.data.size(0), batch.target.size(0));
        for (int64_t i = 0; i < batch.target.size(0); ++i) {
          seen.push_back(batch.target[i].item<int64_t>());
          ASSERT_EQ(batch.data[i][0].item<double>(), static_cast<double>(seen.back()));
        }
      }
      orders.push_back(seen);
      std::sort(seen.begin(), seen.end());
      ASSERT_EQ(seen.size(), 103u) << workers << " workers, epoch " << epoch;
      for (int64_t i = 0; i < 103; ++i) ASSERT_EQ(seen[static_cast<size_t>(i)], i);
    }
    EXPECT_NE(orders[0], orders[1]) << "RandomSampler draws a new order each epoch";
    EXPECT_EQ(served->load(), 3 * 13) << workers << " workers";
  }
}

TEST(DataLoader, RandomOrderFollowsTheSeedAsLibTorch) {
  // LibTorch 1.13: torch::manual_seed(7); make_data_loader(TensorDataset(arange(10)), 4) yields
  // [1, 8, 9, 5], [7, 4, 0, 3], [6, 2] in its first epoch (the sampler's second randperm).
  manual_seed(7);
  auto loader = data::make_data_loader(datasets::TensorDataset(arange(10)), 4);
  std::vector<int64_t> order;
  for (auto& batch : *loader)
    for (auto& e : batch) order.push_back(e.data.item<int64_t>());
  EXPECT_EQ(order, (std::vector<int64_t>{1, 8, 9, 5, 7, 4, 0, 3, 6, 2}));
}

TEST(DataLoader, EnforceOrderingGivesSamplerOrder) {
  LoaderTestDataset ds(40);
  ds.decreasing_delay = true;
  auto ordered = data::make_data_loader<data::samplers::SequentialSampler>(
      ds, data::DataLoaderOptions(2).workers(4).max_jobs(8));
  std::vector<int64_t> got;
  for (auto& batch : *ordered) {
    auto t = loader_test_targets(batch);
    got.insert(got.end(), t.begin(), t.end());
  }
  std::vector<int64_t> expected(40);
  for (int64_t i = 0; i < 40; ++i) expected[static_cast<size_t>(i)] = i;
  EXPECT_EQ(got, expected);

  auto unordered = data::make_data_loader<data::samplers::SequentialSampler>(
      ds, data::DataLoaderOptions(2).workers(4).max_jobs(8).enforce_ordering(false));
  got.clear();
  for (auto& batch : *unordered) {
    auto t = loader_test_targets(batch);
    got.insert(got.end(), t.begin(), t.end());
  }
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, expected);  // all there, in whatever order the workers finished
}

TEST(DataLoader, WorkerExceptionReachesTheCallerWithItsMessage) {
  LoaderTestDataset ds(20);
  ds.throw_at = 13;
  auto loader = data::make_data_loader<data::samplers::SequentialSampler>(
      ds, data::DataLoaderOptions(5).workers(2));
  int batches = 0;
  try {
    for (auto& batch : *loader) {
      (void)batch;
      ++batches;
    }
    ADD_FAILURE() << "no exception";
  } catch (const data::WorkerException& e) {
    EXPECT_EQ(batches, 2);  // batches 0 and 1 arrive, batch 2 holds index 13
    const std::string what = e.what();
    EXPECT_NE(what.find("Caught exception in DataLoader worker thread"), std::string::npos);
    EXPECT_NE(what.find("LoaderTestDataset: bad example 13"), std::string::npos) << what;
    EXPECT_THROW(std::rethrow_exception(e.original_exception), ValueError);
  }
  // On the caller's thread (no workers) the data set's own exception arrives unwrapped.
  LoaderTestDataset direct(4);
  direct.throw_at = 1;
  auto inline_loader = data::make_data_loader(direct, data::DataLoaderOptions(2));
  expect_error<ValueError>(
      [&] {
        for (auto& batch : *inline_loader) (void)batch;
      },
      {"bad example 1"});
}

TEST(DataLoader, TimeoutIsAnError) {
  LoaderTestDataset ds(8);
  ds.delay = std::chrono::milliseconds(300);
  auto loader = data::make_data_loader(
      ds, data::DataLoaderOptions(4).workers(1).timeout(std::chrono::milliseconds(20)));
  expect_error<Error>(
      [&] {
        for (auto& batch : *loader) (void)batch;
      },
      {"timed out after 20 ms"});
}

TEST(DataLoader, IteratorSemantics) {
  auto loader = data::make_data_loader<data::samplers::SequentialSampler>(LoaderTestDataset(4), 2);
  auto it = loader->begin();
  EXPECT_TRUE(it != loader->end());
  EXPECT_EQ(loader_test_targets(*it), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(it->size(), 2u);
  auto copy = it;  // copies share the position
  EXPECT_TRUE(copy == it);
  ++it;
  EXPECT_EQ(loader_test_targets(*copy), (std::vector<int64_t>{2, 3}));
  ++it;
  EXPECT_TRUE(it == loader->end());
  EXPECT_TRUE(loader->end() == it);
  EXPECT_TRUE(loader->end() == loader->end());
  expect_error<Error>([&] { ++it; }, {"past the end"});
  expect_error<Error>([&] { *it; }, {"past the end"});
  auto end = loader->end();
  expect_error<Error>([&] { ++end; }, {"past-the-end"});
  expect_error<Error>([&] { *end; }, {"past-the-end"});
}

TEST(DataLoader, NewEpochWhileBatchesAreInFlightIsAnError) {
  auto loader =
      data::make_data_loader(LoaderTestDataset(100), data::DataLoaderOptions(2).workers(2));
  auto it = loader->begin();
  (void)*it;
  expect_error<Error>([&] { loader->begin(); }, {"not yet exhausted"});
}

TEST(DataLoader, WithASamplerInstance) {
  auto loader = data::make_data_loader(LoaderTestDataset(10),
                                       data::samplers::DistributedSequentialSampler(10, 2, 1),
                                       data::DataLoaderOptions(4));
  std::vector<int64_t> got;
  for (auto& batch : *loader) {
    auto t = loader_test_targets(batch);
    got.insert(got.end(), t.begin(), t.end());
  }
  EXPECT_EQ(got, (std::vector<int64_t>{5, 6, 7, 8, 9}));
  EXPECT_EQ(loader->options().batch_size, 4u);
  EXPECT_EQ(loader->options().max_jobs, 0u);
}

TEST(DataLoader, DestroyedMidEpochWithSlowWorkersJoinsPromptly) {
  for (size_t workers : {1u, 4u}) {
    LoaderTestDataset ds(10000);
    ds.delay = std::chrono::milliseconds(20);
    auto served = ds.served;
    auto loader = data::make_data_loader(ds, data::DataLoaderOptions(4).workers(workers));
    int taken = 0;
    for (auto& batch : *loader) {
      (void)batch;
      if (++taken == 3) break;
    }
    const auto start = std::chrono::steady_clock::now();
    loader.reset();  // queued jobs are dropped; only the batches being loaded are waited for
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    EXPECT_LT(ms, 500.0) << workers << " workers";
    // Never more than the batches taken plus max_jobs (2 * workers) in flight.
    EXPECT_LE(served->load(), 3 + 2 * static_cast<int>(workers));
  }
}

TEST(DataLoader, JoinStopsTheLoader) {
  auto loader =
      data::make_data_loader(LoaderTestDataset(10), data::DataLoaderOptions(2).workers(2));
  loader->join();
  loader->join();  // twice is fine
  int batches = 0;
  for (auto& batch : *loader) {
    (void)batch;
    ++batches;
  }
  EXPECT_EQ(batches, 0);
}

TEST(DataLoader, RejectsBadOptions) {
  expect_error<ValueError>(
      [] { data::make_data_loader(LoaderTestDataset(3), data::DataLoaderOptions(0)); },
      {"batch_size is 0"});
  expect_error<ValueError>(
      [] {
        data::make_data_loader(LoaderTestDataset(3),
                               data::DataLoaderOptions(1).workers(2).max_jobs(0));
      },
      {"max_jobs is 0"});
}

}  // namespace

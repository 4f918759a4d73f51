// The stateful loader over a hand-written StatefulDataset (also through map(), whose batches stay
// optional), and a StreamDataset driven by a StreamSampler.
#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <optional>
#include <vector>

#include "ember/ember.h"

using namespace ember;
namespace datasets = ember::data::datasets;

namespace {

// Hands out 0, 1, ..., n - 1 in batches until they run out; thread-safe, as workers share it.
struct StatefulTestCounter : datasets::StatefulDataset<StatefulTestCounter, std::vector<int>> {
  explicit StatefulTestCounter(int n) : n(n) {}
  std::optional<std::vector<int>> get_batch(size_t batch_size) override {
    std::lock_guard<std::mutex> lock(*mutex);
    if (next >= n) return std::nullopt;
    std::vector<int> out;
    while (out.size() < batch_size && next < n) out.push_back(next++);
    return out;
  }
  std::optional<size_t> size() const override { return std::nullopt; }
  void reset() override { next = 0; }
  void save(serialize::OutputArchive& archive) const override {
    archive.write("next", tensor(static_cast<int64_t>(next)));
  }
  void load(serialize::InputArchive& archive) override {
    Tensor t;
    archive.read("next", t);
    next = static_cast<int>(t.item<int64_t>());
  }
  int n, next = 0;
  std::shared_ptr<std::mutex> mutex = std::make_shared<std::mutex>();
};

TEST(StatefulDataLoader, RunsUntilTheDataSetIsExhaustedEachEpoch) {
  for (size_t workers : {0u, 3u}) {
    auto loader = data::make_data_loader(StatefulTestCounter(10),
                                         data::DataLoaderOptions(4).workers(workers));
    for (int epoch = 0; epoch < 2; ++epoch) {
      std::vector<int> seen;
      for (std::vector<int>& batch : *loader) seen.insert(seen.end(), batch.begin(), batch.end());
      std::sort(seen.begin(), seen.end());
      EXPECT_EQ(seen, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})) << workers << " workers";
    }
  }
}

TEST(StatefulDataLoader, MapKeepsBatchesOptional) {
  auto mapped = StatefulTestCounter(5).map(
      data::transforms::BatchLambda<std::vector<int>, int>([](std::vector<int> v) {
        int sum = 0;
        for (int x : v) sum += x;
        return sum;
      }));
  static_assert(decltype(mapped)::is_stateful, "a map of a stateful data set is stateful");
  mapped.reset();
  EXPECT_EQ(mapped.get_batch(3), std::optional<int>(0 + 1 + 2));
  EXPECT_EQ(mapped.get_batch(3), std::optional<int>(3 + 4));
  EXPECT_EQ(mapped.get_batch(3), std::nullopt);

  auto loader = data::make_data_loader(std::move(mapped), data::DataLoaderOptions(2));
  std::vector<int> sums;
  for (int s : *loader) sums.push_back(s);
  EXPECT_EQ(sums, (std::vector<int>{1, 5, 4}));
}

TEST(StatefulDataset, SaveLoadThroughArchiveOperators) {
  StatefulTestCounter a(10), b(10);
  a.get_batch(3);
  serialize::OutputArchive out;
  out << a;
  serialize::InputArchive in(std::make_shared<serialize::ArchiveNode>(out.root()));
  in >> b;
  EXPECT_EQ(b.get_batch(2), (std::optional<std::vector<int>>{{3, 4}}));
}

// A stream: each request is a batch size; the values continue across batches.
struct StreamTestSource : datasets::StreamDataset<StreamTestSource, std::vector<int>> {
  std::vector<int> get_batch(size_t n) override {
    std::vector<int> out;
    for (size_t i = 0; i < n; ++i) out.push_back(next++);
    return out;
  }
  std::optional<size_t> size() const override { return std::nullopt; }
  int next = 0;
};

TEST(StreamDataset, StreamSamplerBoundsTheEpoch) {
  auto loader = data::make_data_loader(StreamTestSource(), data::samplers::StreamSampler(10),
                                       data::DataLoaderOptions(4));
  std::vector<size_t> sizes;
  std::vector<int> values;
  for (std::vector<int>& batch : *loader) {
    sizes.push_back(batch.size());
    values.insert(values.end(), batch.begin(), batch.end());
  }
  EXPECT_EQ(sizes, (std::vector<size_t>{4, 4, 2}));
  EXPECT_EQ(values, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
}

}  // namespace

// Data sets and transforms: TensorDataset, map() chains, Normalize / Stack / Lambda results, and
// SharedBatchDataset.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ember/ember.h"
#include "tests/support/expect_error.h"

using namespace ember;
using ember_test::expect_error;
namespace datasets = ember::data::datasets;
namespace transforms = ember::data::transforms;

namespace {

// Example i is {data: [i, i + 0.5] (float), target: i (int64)}.
struct DatasetTestCounting : datasets::Dataset<DatasetTestCounting> {
  explicit DatasetTestCounting(size_t n) : n(n) {}
  data::Example<> get(size_t i) override {
    const double v = static_cast<double>(i);
    return {tensor({v, v + 0.5}, kFloat), tensor(static_cast<int64_t>(i))};
  }
  std::optional<size_t> size() const override { return n; }
  size_t n;
};

TEST(TensorDataset, YieldsRows) {
  Tensor t = arange(12).view({4, 3});
  datasets::TensorDataset ds(t);
  EXPECT_EQ(ds.size(), std::optional<size_t>(4));
  data::TensorExample e = ds.get(2);
  EXPECT_TRUE(equal(e.data, t[2]));
  const Tensor& as_tensor = e;  // NoTarget examples convert to their data
  EXPECT_EQ(as_tensor.size(0), 3);
  auto batch = ds.get_batch({3, 0});
  ASSERT_EQ(batch.size(), 2u);
  EXPECT_TRUE(equal(batch[0].data, t[3]));
  EXPECT_TRUE(equal(batch[1].data, t[0]));

  datasets::TensorDataset from_list({ones({2}), zeros({2})});
  EXPECT_EQ(from_list.tensor.sizes().vec(), (std::vector<int64_t>{2, 2}));
  EXPECT_THROW(ds.get(4), IndexError);
}

TEST(MapDataset, ChainsTransformsInOrder) {
  // x -> x * 10 (TensorLambda), then + 1 (Lambda on the example), then Stack.
  auto ds = DatasetTestCounting(5)
                .map(transforms::TensorLambda<>([](Tensor x) { return x * 10; }))
                .map(transforms::Lambda<data::Example<>>([](data::Example<> e) {
                  e.data = e.data + 1;
                  return e;
                }))
                .map(transforms::Stack<>());
  EXPECT_EQ(ds.size(), std::optional<size_t>(5));
  data::Example<> b = ds.get_batch({4, 1});
  EXPECT_EQ(b.data.sizes().vec(), (std::vector<int64_t>{2, 2}));
  EXPECT_TRUE(allclose(b.data, tensor({{41.0, 46.0}, {11.0, 16.0}}, kFloat)));
  EXPECT_TRUE(equal(b.target, tensor({int64_t{4}, int64_t{1}})));
  // The free function is the same thing.
  auto direct = datasets::map(DatasetTestCounting(2), transforms::Stack<>());
  EXPECT_EQ(direct.get_batch({0, 1}).data.size(0), 2);
}

TEST(Transforms, NormalizeScalarAndPerChannel) {
  // One channel: (x - 0.5) / 0.25.
  transforms::Normalize<> one(0.5, 0.25);
  Tensor x = tensor({{{0.0, 1.0}, {0.25, 0.75}}}, kFloat);  // [1, 2, 2]
  EXPECT_TRUE(allclose(one(x), (x - 0.5) / 0.25));
  EXPECT_EQ(one.mean.sizes().vec(), (std::vector<int64_t>{1, 1, 1}));
  // Three channels, each with its own mean and stddev; compare with the per-channel formula.
  transforms::Normalize<> rgb({0.1, 0.2, 0.3}, {1.0, 2.0, 4.0});
  manual_seed(0);
  Tensor img = rand({3, 4, 5});
  Tensor got = rgb(img);
  const double mean[3] = {0.1, 0.2, 0.3}, stddev[3] = {1.0, 2.0, 4.0};
  for (int64_t c = 0; c < 3; ++c)
    EXPECT_TRUE(allclose(got[c], (img[c] - mean[c]) / stddev[c])) << "channel " << c;
  // Through a data set: the target is untouched.
  auto ds = DatasetTestCounting(3).map(transforms::Normalize<>(1.0, 2.0));
  auto batch = ds.get_batch({2});
  EXPECT_TRUE(allclose(batch[0].data, tensor({0.5, 0.75}, kFloat)));
  EXPECT_EQ(batch[0].target.item<int64_t>(), 2);
  expect_error<ValueError>([] { transforms::Normalize<>(std::vector<double>{}, 1.0); },
                           {"Normalize"});
}

TEST(Transforms, StackTensorExamplesAndCollate) {
  auto ds =
      datasets::TensorDataset(arange(6).view({3, 2})).map(transforms::Stack<data::TensorExample>());
  data::TensorExample b = ds.get_batch({2, 0});
  EXPECT_TRUE(equal(b.data, tensor({{int64_t{4}, int64_t{5}}, {int64_t{0}, int64_t{1}}})));
  // A Collate made from a function: the sum of the targets of a batch.
  auto summed =
      DatasetTestCounting(4).map(transforms::Collate<Tensor, std::vector<data::Example<>>>(
          [](std::vector<data::Example<>> examples) {
            Tensor s = zeros({}, kLong);
            for (auto& e : examples) s = s + e.target;
            return s;
          }));
  EXPECT_EQ(summed.get_batch({1, 2, 3}).item<int64_t>(), 6);
  // BatchLambda sees the whole batch.
  auto counted =
      DatasetTestCounting(4).map(transforms::BatchLambda<std::vector<data::Example<>>, size_t>(
          [](std::vector<data::Example<>> v) { return v.size(); }));
  EXPECT_EQ(counted.get_batch({0, 1, 2}), 3u);
}

TEST(SharedBatchDataset, CopiesShareOneDataSet) {
  auto shared = datasets::make_shared_dataset<DatasetTestCounting>(3);
  auto copy = shared;
  copy->n = 9;
  EXPECT_EQ(shared.size(), std::optional<size_t>(9));
  EXPECT_EQ((*shared).n, 9u);
  EXPECT_EQ(shared.get_batch({8})[0].target.item<int64_t>(), 8);
}

}  // namespace

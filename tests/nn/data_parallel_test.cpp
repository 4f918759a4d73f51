// DataParallel over a list of CPU devices: the mechanics a multi-GPU run uses (split, replicas
// on threads, join, gradients summed into the module), checked against the module alone.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ember/ember.h"
#include "ember/nn/parallel/data_parallel.h"
#include "tests/support/expect_error.h"

namespace data_parallel_test {

namespace nn = ember::nn;
using ember::Tensor;

struct DpNetImpl : nn::Cloneable<DpNetImpl> {
  DpNetImpl() {
    fc1 = register_module("fc1", nn::Linear(6, 8));
    fc2 = register_module("fc2", nn::Linear(8, 3));
  }
  Tensor forward(const Tensor& x) { return fc2->forward(ember::tanh(fc1->forward(x))); }
  nn::Linear fc1{nullptr}, fc2{nullptr};
};
EMBER_MODULE(DpNet);

std::vector<ember::Device> cpus(int n) { return std::vector<ember::Device>(n, ember::kCPU); }

void expect_close(const Tensor& a, const Tensor& b, double tol, const std::string& what) {
  ASSERT_EQ(a.sizes(), b.sizes()) << what;
  const double worst = (a - b).abs().max().item<double>();
  EXPECT_LE(worst, tol * (1 + b.abs().max().item<double>())) << what;
}

// The gradient `loss` gives `param`, the module's gradients reset first (so the order in which
// two calls are evaluated does not matter).
Tensor grad_from(nn::Module& module, const Tensor& param, const Tensor& loss) {
  module.zero_grad();
  loss.backward();
  return param.grad().clone();
}

TEST(DataParallel, MatchesTheModuleForwardAndBackward) {
  ember::manual_seed(0);
  DpNet model;
  DpNet reference = std::dynamic_pointer_cast<DpNetImpl>(model->clone());
  nn::parallel::DataParallel dp(model, nn::parallel::DataParallelOptions().device_ids(cpus(3)));
  ember::optim::SGD opt(dp->parameters(), 0.1);
  ember::optim::SGD ref_opt(reference->parameters(), 0.1);
  for (int step = 0; step < 3; ++step) {
    Tensor x = ember::randn({10, 6});  // 4 + 3 + 3 rows
    Tensor y = dp->forward(x);
    Tensor want = reference->forward(x);
    expect_close(y, want, 1e-6, "forward");
    opt.zero_grad();
    ref_opt.zero_grad();
    y.square().sum().backward();
    want.square().sum().backward();
    for (const auto& item : reference->named_parameters())
      expect_close(model->named_parameters()[item.key()].grad(), item.value().grad(), 1e-5,
                   "grad of " + item.key());
    opt.step();
    ref_opt.step();
  }
  // The replicas were cloned once; on the module's own device they read its parameters in place.
  EXPECT_EQ(dp->clones(), 2);
  EXPECT_EQ(dp->parameter_refreshes(), 0);
  EXPECT_TRUE(dp->named_parameters().contains("module.fc1.weight"));
}

TEST(DataParallel, FewerRowsThanDevicesAndOtherDims) {
  ember::manual_seed(1);
  DpNet model;
  nn::parallel::DataParallel dp(model, nn::parallel::DataParallelOptions().device_ids(cpus(4)));
  Tensor x = ember::randn({2, 6});  // two replicas run
  expect_close(dp->forward(x), model->forward(x), 1e-6, "2 rows over 4 devices");
  // Split along dim 1 of a [5, 4, 6] input: Linear acts on the last dim, so the join is exact.
  nn::parallel::DataParallel dp1(model,
                                 nn::parallel::DataParallelOptions().device_ids(cpus(2)).dim(1));
  Tensor x3 = ember::randn({5, 4, 6});
  expect_close(dp1->forward(x3), model->forward(x3), 1e-6, "dim 1");
}

TEST(DataParallel, FunctionalFormAndErrors) {
  ember::manual_seed(2);
  DpNet model;
  Tensor x = ember::randn({6, 6});
  expect_close(nn::parallel::data_parallel(model, x, cpus(2)), model->forward(x), 1e-6,
               "data_parallel");
  nn::parallel::DataParallel dp(model, nn::parallel::DataParallelOptions().device_ids(cpus(2)));
  ember_test::expect_error([&] { dp->forward(ember::tensor(1.0)); }, {"0-dimensional"});
  // An error inside a replica's thread reaches the caller.
  ember_test::expect_error([&] { dp->forward(ember::randn({4, 5})); }, {"5"});
}

// Arguments other than one tensor: a vector of tensors (each split), a number (given to every
// replica), and a vector of tensors back (each joined).
struct PairNetImpl : nn::Cloneable<PairNetImpl> {
  PairNetImpl() { fc = register_module("fc", nn::Linear(6, 3)); }
  std::vector<Tensor> forward(const std::vector<Tensor>& ab, double scale) {
    Tensor h = fc->forward(ab[0]) * scale;
    return {h, h + ab[1]};
  }
  nn::Linear fc{nullptr};
};
EMBER_MODULE(PairNet);

TEST(DataParallel, VectorsOfTensorsAndOtherArguments) {
  ember::manual_seed(3);
  PairNet model;
  nn::parallel::DataParallel dp(model, nn::parallel::DataParallelOptions().device_ids(cpus(3)));
  std::vector<Tensor> ab = {ember::randn({7, 6}), ember::randn({7, 3})};
  auto got = dp->forward<std::vector<Tensor>>(ab, 0.5);
  auto want = model->forward(ab, 0.5);
  ASSERT_EQ(got.size(), 2u);
  expect_close(got[0], want[0], 1e-6, "first output");
  expect_close(got[1], want[1], 1e-6, "second output");
  const Tensor& w = model->fc->weight;
  expect_close(grad_from(*model, w, got[0].sum() + got[1].square().sum()),
               grad_from(*model, w, want[0].sum() + want[1].square().sum()), 1e-5,
               "gradient through vector outputs");
}

// Nested arguments and results (Python's scatter/gather of tuples, lists and dicts): a tuple
// holding a tensor and a map of tensors, a pair with a number, back as a tuple of a tensor, a
// vector and an unordered_map.
struct NestedNetImpl : nn::Cloneable<NestedNetImpl> {
  NestedNetImpl() { fc = register_module("fc", nn::Linear(4, 2)); }
  using In = std::tuple<Tensor, std::map<std::string, Tensor>>;
  using Out = std::tuple<Tensor, std::vector<Tensor>, std::unordered_map<std::string, Tensor>>;
  Out forward(const In& in, const std::pair<Tensor, double>& shift) {
    const auto& [x, extra] = in;
    Tensor h = fc->forward(x) + extra.at("bias") * shift.second + shift.first;
    std::unordered_map<std::string, Tensor> named{{"h", h}, {"x2", x * 2}};
    return {h.tanh(), {h, extra.at("bias")}, named};
  }
  nn::Linear fc{nullptr};
};
EMBER_MODULE(NestedNet);

TEST(DataParallel, NestedTuplesVectorsAndMaps) {
  ember::manual_seed(4);
  NestedNet model;
  nn::parallel::DataParallel dp(model, nn::parallel::DataParallelOptions().device_ids(cpus(3)));
  NestedNetImpl::In in{ember::randn({8, 4}), {{"bias", ember::randn({8, 2})}}};
  std::pair<Tensor, double> shift{ember::randn({8, 2}), 0.5};
  auto got = dp->forward<NestedNetImpl::Out>(in, shift);
  auto want = model->forward(in, shift);
  expect_close(std::get<0>(got), std::get<0>(want), 1e-6, "tuple element 0");
  ASSERT_EQ(std::get<1>(got).size(), 2u);
  expect_close(std::get<1>(got)[0], std::get<1>(want)[0], 1e-6, "vector element 0");
  expect_close(std::get<1>(got)[1], std::get<1>(want)[1], 0, "vector element 1 (passed through)");
  ASSERT_EQ(std::get<2>(got).size(), 2u);
  expect_close(std::get<2>(got).at("h"), std::get<2>(want).at("h"), 1e-6, "map value h");
  expect_close(std::get<2>(got).at("x2"), std::get<2>(want).at("x2"), 0, "map value x2");
  // Backward through every level of nesting reaches the module's parameters.
  const Tensor& w = model->fc->weight;
  expect_close(grad_from(*model, w,
                         std::get<0>(got).sum() + std::get<1>(got)[0].square().sum() +
                             std::get<2>(got).at("h").sum()),
               grad_from(*model, w,
                         std::get<0>(want).sum() + std::get<1>(want)[0].square().sum() +
                             std::get<2>(want).at("h").sum()),
               1e-5, "gradient through nested outputs");
  // Fewer rows in one nested tensor than devices: as Python's zip, only that many replicas run.
  NestedNetImpl::In two_rows{ember::randn({2, 4}), {{"bias", ember::randn({2, 2})}}};
  auto small = dp->forward<NestedNetImpl::Out>(two_rows, std::make_pair(ember::randn({2, 2}), 1.0));
  EXPECT_EQ(std::get<0>(small).size(0), 2);
}

// A replica result whose containers differ between replicas cannot be joined.
struct RaggedNetImpl : nn::Cloneable<RaggedNetImpl> {
  std::map<std::string, Tensor> forward(const Tensor& x) {
    if (x.size(0) > 2) return {{"big", x}};
    return {{"small", x}};
  }
};
EMBER_MODULE(RaggedNet);

TEST(DataParallel, ResultsThatDifferBetweenReplicasAreAnError) {
  RaggedNet model;
  nn::parallel::DataParallel dp(model, nn::parallel::DataParallelOptions().device_ids(cpus(2)));
  using Map = std::map<std::string, Tensor>;
  ember_test::expect_error(
      [&] {
        dp->forward<Map>(ember::randn({5, 1}));
      },
      {"DataParallel", "different keys"});
  EXPECT_EQ(dp->forward<Map>(ember::randn({4, 1})).at("small").size(0), 4);
}

// Replica 0 returns an empty map, replica 1 one entry: not joinable (the size is checked before
// the keys of replica 0 are walked).
struct EmptyFirstNetImpl : nn::Cloneable<EmptyFirstNetImpl> {
  std::map<std::string, Tensor> forward(const Tensor& x) {
    if (x.size(0) > 2) return {};
    return {{"a", x}};
  }
};
EMBER_MODULE(EmptyFirstNet);

TEST(DataParallel, AnEmptyMapBesideAFullOneIsAnError) {
  EmptyFirstNet model;
  nn::parallel::DataParallel dp(model, nn::parallel::DataParallelOptions().device_ids(cpus(2)));
  ember_test::expect_error(
      [&] {
        dp->forward<std::map<std::string, Tensor>>(ember::randn({5, 1}));
      },
      {"DataParallel", "different keys"});
}

// std::optional<Tensor>: a value is split as a tensor, nullopt (Python's None) goes to every
// replica; the result is nullopt when every replica returns it.
struct MaybeNetImpl : nn::Cloneable<MaybeNetImpl> {
  std::optional<Tensor> forward(const Tensor& x, const std::optional<Tensor>& bias) {
    if (!bias) return std::nullopt;
    return x + *bias;
  }
};
EMBER_MODULE(MaybeNet);

TEST(DataParallel, OptionalTensorsAreSplitAndNulloptIsReplicated) {
  MaybeNet model;
  nn::parallel::DataParallel dp(model, nn::parallel::DataParallelOptions().device_ids(cpus(3)));
  Tensor x = ember::randn({6, 2}), b = ember::randn({6, 2});
  auto with_bias = dp->forward<std::optional<Tensor>>(x, std::optional<Tensor>(b));
  ASSERT_TRUE(with_bias.has_value());
  expect_close(*with_bias, x + b, 0, "split optional");
  EXPECT_FALSE(dp->forward<std::optional<Tensor>>(x, std::optional<Tensor>()).has_value());
}

}  // namespace data_parallel_test

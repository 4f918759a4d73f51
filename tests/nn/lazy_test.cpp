// Lazy modules: shapes inferred at the first call and the initial values PyTorch draws from the
// same seed (tests/golden/nn_lazy.golden, written by tests/golden/gen/nn_lazy.py); loading a
// state_dict into an uninitialised module; what has_uninitialized_params reports.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <string>

#include "ember/ember.h"
#include "tests/support/expect_error.h"
#include "tests/support/golden.h"

using namespace ember;

// A named namespace: the test sources are compiled as unity files.
namespace lazy_test {

struct Built {
  std::shared_ptr<nn::Module> module;
  std::function<Tensor(const Tensor&)> call;
  std::function<bool()> uninitialized;
};

template <class Holder>
Built built(Holder h) {
  return {h.ptr(), [h](const Tensor& x) mutable { return h(x); },
          [h] { return h->has_uninitialized_params(); }};
}

// One builder per variant of gen/nn_lazy.py, with the same arguments.
const std::map<std::string, std::function<Built()>>& builders() {
  static const std::map<std::string, std::function<Built()>> table = {
      {"linear", [] { return built(nn::LazyLinear(5)); }},
      {"linear_nobias", [] { return built(nn::LazyLinear(4, false)); }},
      {"conv1d", [] { return built(nn::LazyConv1d(nn::Conv1dOptions(0, 4, 3))); }},
      {"conv2d",
       [] {
         return built(nn::LazyConv2d(nn::Conv2dOptions(0, 6, 3).stride(2).padding(1).groups(2)));
       }},
      {"conv2d_unbatched", [] { return built(nn::LazyConv2d(nn::Conv2dOptions(0, 3, 2))); }},
      {"conv3d", [] { return built(nn::LazyConv3d(nn::Conv3dOptions(0, 2, 2).bias(false))); }},
      {"conv_transpose1d",
       [] {
         return built(nn::LazyConvTranspose1d(nn::ConvTranspose1dOptions(0, 3, 3).stride(2)));
       }},
      {"conv_transpose2d",
       [] {
         return built(nn::LazyConvTranspose2d(nn::ConvTranspose2dOptions(0, 4, 3).groups(2)));
       }},
      {"conv_transpose3d",
       [] { return built(nn::LazyConvTranspose3d(nn::ConvTranspose3dOptions(0, 2, 2))); }},
      {"batch_norm1d", [] { return built(nn::LazyBatchNorm1d()); }},
      {"batch_norm2d", [] { return built(nn::LazyBatchNorm2d()); }},
      {"batch_norm3d",
       [] { return built(nn::LazyBatchNorm3d(nn::BatchNormOptions(0).momentum(0.3))); }},
      {"instance_norm1d_affine",
       [] { return built(nn::LazyInstanceNorm1d(nn::InstanceNormOptions(0).affine(true))); }},
      {"instance_norm2d_stats",
       [] {
         return built(nn::LazyInstanceNorm2d(nn::InstanceNormOptions(0).track_running_stats(true)));
       }},
      {"instance_norm3d_defaults", [] { return built(nn::LazyInstanceNorm3d()); }},
  };
  return table;
}

TEST(LazyGolden, FirstCallShapesValuesAndOutputs) {
  auto cases = golden_cases_for(load_golden("nn_lazy"), "lazy");
  ASSERT_EQ(cases.size(), builders().size());
  for (const auto& c : cases) {
    SCOPED_TRACE(c.location);
    auto it = builders().find(c.variant());
    ASSERT_TRUE(it != builders().end()) << "no builder for " << c.variant();
    manual_seed(static_cast<uint64_t>(c.ints.at(0)));
    Built b = it->second();
    b.module->train();
    Tensor y = b.call(c.args.at(0));
    EXPECT_FALSE(b.uninitialized());
    expect_close(y, c.outs.at(0), c.name + ": output");
    auto sd = b.module->state_dict();
    EXPECT_EQ(sd.keys(), c.strs) << c.name << ": state_dict keys differ from PyTorch's";
    for (size_t k = 0; k < c.strs.size() && k + 1 < c.outs.size(); ++k)
      if (sd.contains(c.strs[k]))
        expect_close(sd[c.strs[k]], c.outs[k + 1], c.name + ": " + c.strs[k]);
  }
}

TEST(Lazy, UninitializedUntilTheFirstCall) {
  nn::LazyLinear lin(3);
  EXPECT_TRUE(lin->has_uninitialized_params());
  EXPECT_TRUE(lin->parameters().empty());  // nothing to optimise yet
  EXPECT_TRUE(lin->state_dict().is_empty());
  Tensor y = lin(ember::randn({2, 5}));
  EXPECT_EQ(y.sizes().vec(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(lin->options.in_features(), 5);
  EXPECT_EQ(lin->weight.sizes().vec(), (std::vector<int64_t>{3, 5}));
  EXPECT_TRUE(lin->weight.requires_grad());
  // Later calls keep the shapes; a wrong width is the ordinary Linear's error.
  EXPECT_THROW(lin(ember::randn({2, 4})), Error);
  // In a Sequential, through AnyModule.
  nn::Sequential seq(nn::LazyConvTranspose2d(nn::ConvTranspose2dOptions(0, 2, 3)),
                     nn::LazyBatchNorm2d());
  EXPECT_EQ(seq->forward(ember::randn({1, 4, 5, 5})).sizes().vec(),
            (std::vector<int64_t>{1, 2, 7, 7}));
}

TEST(Lazy, LoadingAStateDictMaterializesWithoutDrawing) {
  manual_seed(9);
  nn::Linear ref(6, 4);
  nn::BatchNorm2d bn_ref(3);
  nn::LazyLinear lin(4);
  nn::LazyBatchNorm2d bn;
  Tensor before = default_generator().get_state();
  lin->load_state_dict(ref->state_dict());
  bn->load_state_dict(bn_ref->state_dict());
  EXPECT_TRUE(ember::equal(default_generator().get_state(), before));
  EXPECT_FALSE(lin->has_uninitialized_params());
  EXPECT_TRUE(ember::equal(lin->weight, ref->weight));
  EXPECT_TRUE(ember::equal(lin->bias, ref->bias));
  EXPECT_EQ(bn->options.num_features(), 3);
  Tensor x = ember::randn({2, 6});
  EXPECT_TRUE(ember::equal(lin(x), ref(x)));
}

}  // namespace lazy_test

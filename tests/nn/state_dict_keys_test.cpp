// state_dict(), named_parameters() and named_buffers() of architectures built from Ember's
// modules against the same architectures built in Python (tests/golden/nn_module.golden, written
// by tests/golden/gen/nn_module.py): the same dotted keys in the same order, with the same shapes
// and dtypes, so checkpoints move between the two.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <set>

#include "tests/nn/modules_test_util.h"
#include "tests/support/golden.h"

using namespace ember;

namespace {

// Python's Custom (gen/nn_module.py), registered in the same order.
struct CustomImpl : nn::Cloneable<CustomImpl> {
  CustomImpl() {
    embed = register_module("embed", nn::Embedding(nn::EmbeddingOptions(10, 6).padding_idx(0)));
    norm = register_module("norm", nn::LayerNorm(nn::LayerNormOptions({6})));
    layers = register_module(
        "layers",
        nn::ModuleList(nn::Linear(6, 6), nn::Linear(nn::LinearOptions(6, 6).bias(false))));
    heads = register_module("heads", nn::ModuleDict({{"reg", nn::Linear(6, 1).ptr()},
                                                     {"cls", nn::Linear(6, 3).ptr()}}));
    scales = register_module("scales", nn::ParameterList(ones({6}), zeros({2, 3})));
    extras = register_module("extras", nn::ParameterDict({{"z", ones({1})}, {"a", ones({2})}}));
    register_buffer("step", zeros({}, kLong));
    register_buffer("cache", zeros({4}), /*persistent=*/false);
    temperature = register_parameter("temperature", ones({1}));
  }
  nn::Embedding embed{nullptr};
  nn::LayerNorm norm{nullptr};
  nn::ModuleList layers{nullptr};
  nn::ModuleDict heads{nullptr};
  nn::ParameterList scales{nullptr};
  nn::ParameterDict extras{nullptr};
  Tensor temperature;
};
EMBER_MODULE(Custom);

struct WithLossImpl : nn::Cloneable<WithLossImpl> {
  WithLossImpl() {
    fc = register_module("fc", nn::Linear(3, 5));
    criterion = register_module(
        "criterion", nn::CrossEntropyLoss(nn::CrossEntropyLossOptions().weight(ones({5}))));
  }
  nn::Linear fc{nullptr};
  nn::CrossEntropyLoss criterion{nullptr};
};
EMBER_MODULE(WithLoss);

using Builder = std::function<std::shared_ptr<nn::Module>()>;

// One builder per architecture of gen/nn_module.py (same names).
const std::map<std::string, Builder>& builders() {
  static const std::map<std::string, Builder> b = {
      {"mlp",
       [] {
         return nn::Sequential(nn::Linear(4, 8), nn::ReLU(), nn::Dropout(0.1), nn::Linear(8, 2))
             .ptr();
       }},
      {"nested",
       [] {
         return nn::Sequential(nn::Sequential(nn::Linear(3, 4), nn::ReLU()),
                               nn::Sequential({{"fc", nn::Linear(4, 5)},
                                               {"norm", nn::LayerNorm(nn::LayerNormOptions({5}))},
                                               {"drop", nn::Dropout2d()}}),
                               nn::Linear(nn::LinearOptions(5, 1).bias(false)))
             .ptr();
       }},
      {"custom", [] { return Custom().ptr(); }},
      {"shared",
       [] {
         nn::Linear lin(3, 3);
         return nn::Sequential(lin, nn::ReLU(), lin).ptr();
       }},
      {"layer_norm_no_affine",
       [] {
         return nn::Sequential(nn::Linear(2, 3),
                               nn::LayerNorm(nn::LayerNormOptions({3}).elementwise_affine(false)))
             .ptr();
       }},
      {"embedding_bag",
       [] {
         return nn::EmbeddingBag(nn::EmbeddingBagOptions(10, 3).mode(ember::kSum).padding_idx(2))
             .ptr();
       }},
      {"embedding_pretrained",
       [] {
         return nn::Embedding::from_pretrained(zeros({7, 2})).ptr();
       }},
      {"cross_entropy_weight",
       [] { return nn::CrossEntropyLoss(nn::CrossEntropyLossOptions().weight(ones({5}))).ptr(); }},
      {"cross_entropy_plain", [] { return nn::CrossEntropyLoss().ptr(); }},
      {"bce_with_logits_pos_weight",
       [] {
         return nn::BCEWithLogitsLoss(nn::BCEWithLogitsLossOptions().pos_weight(ones({3}))).ptr();
       }},
      {"bce_with_logits_both",
       [] {
         return nn::BCEWithLogitsLoss(
                    nn::BCEWithLogitsLossOptions().weight(ones({2, 3})).pos_weight(ones({3})))
             .ptr();
       }},
      {"weighted_losses",
       [] {
         return nn::ModuleDict(
                    {{"nll", nn::NLLLoss(nn::NLLLossOptions().weight(ones({4}))).ptr()},
                     {"bce", nn::BCELoss(nn::BCELossOptions().weight(ones({4}))).ptr()},
                     {"mlsm", nn::MultiLabelSoftMarginLoss(
                                  nn::MultiLabelSoftMarginLossOptions().weight(ones({4})))
                                  .ptr()},
                     {"mm",
                      nn::MultiMarginLoss(nn::MultiMarginLossOptions().weight(ones({4}))).ptr()},
                     {"l1", nn::L1Loss().ptr()}})
             .ptr();
       }},
      {"with_loss", [] { return WithLoss().ptr(); }},
      {"bilinear", [] { return nn::Bilinear(3, 4, 5).ptr(); }},
      {"prelu",
       [] {
         return nn::Sequential(nn::Linear(4, 4), nn::PReLU(nn::PReLUOptions().num_parameters(4)))
             .ptr();
       }},
      {"rms_norm",
       [] {
         return nn::RMSNorm(nn::RMSNormOptions({2, 3})).ptr();
       }},
      {"rms_norm_in_mlp",
       [] {
         return nn::Sequential(nn::Linear(4, 4), nn::RMSNorm(nn::RMSNormOptions({4})),
                               nn::RMSNorm(nn::RMSNormOptions({4}).elementwise_affine(false)))
             .ptr();
       }},
  };
  return b;
}

OrderedDict<std::string, Tensor> entries(const nn::Module& m, const std::string& kind) {
  if (kind == "state_dict") return m.state_dict();
  if (kind == "named_parameters") return m.named_parameters();
  return m.named_buffers();
}

// Runs every golden case of `kind`, comparing keys (in order), shapes and dtypes.
void check_kind(const std::string& kind) {
  int checked = 0;
  for (const GoldenCase& c : load_golden("nn_module")) {
    if (c.op() != kind) continue;
    SCOPED_TRACE(c.location + ": " + c.call);
    auto it = builders().find(c.variant());
    ASSERT_NE(it, builders().end()) << "no Ember builder for architecture " << c.variant();
    std::shared_ptr<nn::Module> module = it->second();
    OrderedDict<std::string, Tensor> got = entries(*module, kind);
    ASSERT_EQ(c.strs.size(), c.args.size());
    ASSERT_EQ(c.strs.size(), c.outs.size());
    EXPECT_EQ(got.keys(), c.strs) << c.name;
    if (got.keys() != c.strs) continue;
    for (size_t i = 0; i < c.strs.size(); ++i) {
      const Tensor& shape = c.args[i];
      std::vector<int64_t> want(shape.data_ptr<int64_t>(),
                                shape.data_ptr<int64_t>() + shape.numel());
      EXPECT_EQ(got[c.strs[i]].sizes().vec(), want) << c.name << " " << c.strs[i];
      EXPECT_EQ(got[c.strs[i]].dtype(), c.outs[i].dtype()) << c.name << " " << c.strs[i];
    }
    ++checked;
  }
  EXPECT_EQ(checked, static_cast<int>(builders().size())) << kind;
}

TEST(StateDictKeys, StateDictMatchesPython) { check_kind("state_dict"); }
TEST(StateDictKeys, NamedParametersMatchPython) { check_kind("named_parameters"); }
TEST(StateDictKeys, NamedBuffersMatchPython) { check_kind("named_buffers"); }

TEST(StateDictKeys, EveryArchitectureHasGoldenRecords) {
  std::set<std::string> golden;
  for (const GoldenCase& c : load_golden("nn_module")) golden.insert(c.variant());
  std::set<std::string> ours;
  for (const auto& [name, build] : builders()) ours.insert(name);
  EXPECT_EQ(golden, ours);
}

// A state_dict produced from the Python-shaped keys loads back strictly into a fresh module of
// the same architecture: the round trip a checkpoint from PyTorch takes.
TEST(StateDictKeys, LoadsItsOwnStateDictStrictly) {
  for (const auto& [name, build] : builders()) {
    SCOPED_TRACE(name);
    std::shared_ptr<nn::Module> a = build(), b = build();
    nn::StateDict sd = a->state_dict();
    for (auto& item : sd) {
      NoGradGuard g;
      if (item.value().is_floating_point()) item.value().fill_(0.5);
    }
    EXPECT_TRUE(b->load_state_dict(sd).empty());
    for (const auto& item : b->state_dict()) {
      if (item.value().is_floating_point()) {
        EXPECT_TRUE(equal(item.value(), full_like(item.value(), 0.5))) << item.key();
      }
    }
  }
}

}  // namespace

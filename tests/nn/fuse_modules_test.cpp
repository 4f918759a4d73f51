// nn::utils::fuse_modules / fuse_modules_qat and the fused modules (nn::intrinsic): Python's
// module structure, state_dict and outputs (tests/golden/nn_fuse.golden, written by
// tests/golden/gen/nn_fuse.py); member-held layers of a C++ model run the fusion; hooks move;
// ember::convolution_relu (the fused kernel) against relu(conv) for every dtype and layout; the
// errors Python raises.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "ember/nn/utils/fusion.h"
#include "tests/support/expect_error.h"
#include "tests/support/golden.h"

using namespace ember;
using ember_test::expect_error;

// A named namespace: the test sources are compiled as unity files.
namespace fuse_modules_test {

// gen/nn_fuse.py's Net, written as a LibTorch user writes it: member holders, called both as
// `m(x)` and `m->forward(x)`.
struct NetImpl : nn::Module {
  NetImpl()
      : conv1(register_module("conv1", nn::Conv2d(nn::Conv2dOptions(3, 8, 3).padding(1)))),
        bn1(register_module("bn1", nn::BatchNorm2d(8))),
        relu1(register_module("relu1", nn::ReLU())),
        conv2(register_module(
            "conv2",
            nn::Conv2d(
                nn::Conv2dOptions(8, 4, 3).padding(1).padding_mode(ember::kReflect).bias(false)))),
        relu2(register_module("relu2", nn::ReLU())),
        fc1(register_module("fc1", nn::Linear(4 * 5 * 5, 6))),
        bn3(register_module("bn3", nn::BatchNorm1d(6))),
        fc2(register_module("fc2", nn::Linear(6, 5))),
        relu3(register_module("relu3", nn::ReLU())) {}
  Tensor forward(const Tensor& input) {
    Tensor x = relu2(conv2->forward(relu1(bn1->forward(conv1(input)))));
    return relu3->forward(fc2(bn3(fc1->forward(x.flatten(1)))));
  }
  nn::Conv2d conv1;
  nn::BatchNorm2d bn1;
  nn::ReLU relu1;
  nn::Conv2d conv2;
  nn::ReLU relu2;
  nn::Linear fc1;
  nn::BatchNorm1d bn3;
  nn::Linear fc2;
  nn::ReLU relu3;
};
EMBER_MODULE(Net);

const std::vector<std::vector<std::string>> kNetGroups = {
    {"conv1", "bn1", "relu1"}, {"conv2", "relu2"}, {"fc1", "bn3"}, {"fc2", "relu3"}};

struct Model {
  std::shared_ptr<nn::Module> module;
  std::function<Tensor(const Tensor&)> call;
  std::vector<std::vector<std::string>> groups;
};

Model net_model() {
  Net net;
  return {net.ptr(), [net](const Tensor& x) mutable { return net(x); }, kNetGroups};
}
Model seq_model(nn::Sequential seq, std::vector<std::vector<std::string>> groups) {
  return {seq.ptr(), [seq](const Tensor& x) mutable { return seq->forward(x); }, std::move(groups)};
}

// One builder per model of gen/nn_fuse.py.
const std::map<std::string, std::function<Model()>>& builders() {
  static const std::map<std::string, std::function<Model()>> table = {
      {"net", net_model},
      {"net_qat", net_model},
      {"seq1d",
       [] {
         return seq_model(
             nn::Sequential(nn::Conv1d(2, 4, 3), nn::BatchNorm1d(4), nn::ReLU(),
                            nn::ConvTranspose1d(nn::ConvTranspose1dOptions(4, 3, 3).stride(2)),
                            nn::BatchNorm1d(3)),
             {{"0", "1", "2"}, {"3", "4"}});
       }},
      {"seq3d",
       [] {
         return seq_model(nn::Sequential(nn::Conv3d(2, 3, 2), nn::ReLU(), nn::BatchNorm3d(3),
                                         nn::ReLU(), nn::Conv3d(3, 2, 1), nn::BatchNorm3d(2)),
                          {{"0", "1"}, {"2", "3"}, {"4", "5"}});
       }},
      {"seq2d_qat",
       [] {
         return seq_model(nn::Sequential(nn::Conv2d(2, 4, 3), nn::BatchNorm2d(4),
                                         nn::Conv2d(4, 3, 1), nn::BatchNorm2d(3), nn::ReLU()),
                          {{"0", "1"}, {"2", "3", "4"}});
       }},
  };
  return table;
}

bool is_qat(const std::string& model) {
  return model.size() > 4 && model.substr(model.size() - 4) == "_qat";
}

// |a - b| <= 1e-5 * max|b| (+ 1e-5 relative per element): the fused model against the unfused one.
void expect_same(const Tensor& fused, const Tensor& ref, const std::string& what) {
  const double scale = ref.abs().max().item<double>();
  EXPECT_GT(scale, 0.0) << what;
  expect_close(fused, ref, 1e-5, 1e-5 * scale, what);
}

TEST(FuseModulesGolden, StructureStateDictAndOutputsMatchPython) {
  auto cases = golden_cases_for(load_golden("nn_fuse"), "fuse");
  ASSERT_EQ(cases.size(), builders().size());
  for (const auto& c : cases) {
    SCOPED_TRACE(c.location);
    auto it = builders().find(c.variant());
    ASSERT_TRUE(it != builders().end()) << "no builder for " << c.variant();
    Model m = it->second();
    const auto n_before = static_cast<size_t>(c.ints.at(0));
    const auto n_after = static_cast<size_t>(c.ints.at(1));
    ASSERT_EQ(c.strs.size(), n_before + n_after);
    nn::StateDict before;
    for (size_t k = 0; k < n_before; ++k) before.insert(c.strs[k], c.args.at(k + 1));
    m.module->load_state_dict(before);
    const Tensor x = c.args.at(0);
    const bool qat = is_qat(c.variant());
    Tensor ref;
    if (qat) {
      m.module->train();
      nn::utils::fuse_modules_qat(*m.module, m.groups);
    } else {
      m.module->eval();
      {
        NoGradGuard ng;
        ref = m.call(x);
      }
      nn::utils::fuse_modules(*m.module, m.groups);
    }
    Tensor y;
    {
      NoGradGuard ng;
      y = m.call(x);
    }
    expect_close(y, c.outs.at(0), c.name + ": output");
    if (!qat) expect_same(y, ref, c.name + ": fused vs unfused");
    const auto sd = m.module->state_dict();
    const std::vector<std::string> keys(c.strs.begin() + static_cast<std::ptrdiff_t>(n_before),
                                        c.strs.end());
    EXPECT_EQ(sd.keys(), keys) << c.name << ": state_dict keys differ from PyTorch's";
    for (size_t k = 0; k < keys.size() && k + 1 < c.outs.size(); ++k)
      if (sd.contains(keys[k])) expect_close(sd[keys[k]], c.outs[k + 1], c.name + ": " + keys[k]);
  }
}

// Running statistics and affine parameters away from their defaults.
void randomize_bns(nn::Module& m) {
  NoGradGuard ng;
  for (auto& item : m.named_buffers())
    if (item.key().find("running_var") != std::string::npos)
      item.value().copy_(ember::rand(item.value().sizes()) + 0.5);
    else if (item.key().find("running_mean") != std::string::npos)
      item.value().copy_(ember::randn(item.value().sizes()));
  for (auto& item : m.named_parameters()) item.value().copy_(ember::randn(item.value().sizes()));
}

TEST(FuseModules, MemberHeldLayersRunTheFusion) {
  manual_seed(3);
  Net net;
  randomize_bns(*net);
  net->eval();
  const Tensor x = ember::randn({2, 3, 5, 5});
  NoGradGuard ng;
  const Tensor ref = net(x);
  nn::utils::fuse_modules(net, kNetGroups);
  // The members still hold the old layers: the first of each group runs the fused module, the
  // others pass their input through.
  EXPECT_TRUE(net->conv1->_fused_forward.active());
  EXPECT_TRUE(net->relu1->_fused_forward.active());  // relu after relu would hide it
  EXPECT_TRUE(ember::equal(net->bn1->forward(x.narrow(1, 0, 1).expand({2, 8, 5, 5})),
                           x.narrow(1, 0, 1).expand({2, 8, 5, 5})));
  EXPECT_FALSE(net->fc1->_fused_forward.active());  // folded in place: still itself
  expect_same(net(x), ref, "member-held model");
  // The registry holds Python's types.
  EXPECT_TRUE(
      std::dynamic_pointer_cast<nn::intrinsic::ConvReLU2dImpl>(net->get_submodule("conv1")));
  EXPECT_TRUE(std::dynamic_pointer_cast<nn::IdentityImpl>(net->get_submodule("bn1")));
  EXPECT_TRUE(std::dynamic_pointer_cast<nn::intrinsic::LinearReLUImpl>(net->get_submodule("fc2")));
  EXPECT_EQ(net->get_submodule("fc1").get(), net->fc1.get());
  // The fused module holds the very layer objects (folded), so its parameters are the members'.
  auto conv_relu =
      std::dynamic_pointer_cast<nn::intrinsic::ConvReLU2dImpl>(net->get_submodule("conv1"));
  EXPECT_EQ(conv_relu->conv.get(), net->conv1.get());
  EXPECT_EQ((*conv_relu)[0].get(), net->conv1.get());
  EXPECT_TRUE(net->conv1->bias.defined());
}

TEST(FuseModules, SequentialCallsTheFusedModules) {
  manual_seed(4);
  nn::Sequential seq(nn::Conv2d(3, 4, 3), nn::BatchNorm2d(4), nn::ReLU(), nn::Linear(4, 2),
                     nn::ReLU());
  randomize_bns(*seq);
  seq->eval();
  const Tensor x = ember::randn({2, 3, 6, 6});
  NoGradGuard ng;
  const Tensor ref = seq->forward(x.narrow(3, 0, 6));
  nn::utils::fuse_modules(seq, {{"0", "1", "2"}, {"3", "4"}});
  EXPECT_TRUE(seq->ptr<nn::intrinsic::ConvReLU2dImpl>(0));
  EXPECT_TRUE(seq->ptr<nn::IdentityImpl>(1));
  EXPECT_TRUE(seq->ptr<nn::IdentityImpl>(2));
  EXPECT_TRUE(seq->ptr<nn::intrinsic::LinearReLUImpl>(3));
  expect_same(seq->forward(x), ref, "Sequential");
}

// Python moves the first layer's forward pre-hooks and the last one's forward hooks to the fused
// module; here they are on both, and each runs once per call whichever path the model takes.
// Containers with their own entry lists see the fused modules when iterated, as Python's do.
TEST(FuseModules, ModuleListAndModuleDictEntriesReplaced) {
  nn::ModuleList list(nn::Conv2d(2, 3, 1), nn::ReLU());
  list->eval();
  nn::utils::fuse_modules(list, {{"0", "1"}});
  EXPECT_TRUE(list->ptr<nn::intrinsic::ConvReLU2dImpl>(0));
  EXPECT_TRUE(list->ptr<nn::IdentityImpl>(1));
  EXPECT_EQ((*list->begin()).get(), list->named_children()["0"].get());
  nn::ModuleDict dict(
      {{"fc", std::make_shared<nn::LinearImpl>(3, 2)}, {"act", std::make_shared<nn::ReLUImpl>()}});
  nn::utils::fuse_modules(dict, {{"fc", "act"}});
  EXPECT_TRUE(std::dynamic_pointer_cast<nn::intrinsic::LinearReLUImpl>(dict["fc"]));
  EXPECT_TRUE(std::dynamic_pointer_cast<nn::IdentityImpl>(dict["act"]));
  EXPECT_EQ(dict["fc"].get(), dict->named_children()["fc"].get());
  auto fused = std::dynamic_pointer_cast<nn::intrinsic::LinearReLUImpl>(dict["fc"]);
  EXPECT_THROW((*fused)[2], IndexError);
}

TEST(FuseModules, HooksRunOncePerCall) {
  manual_seed(5);
  int pre = 0, post = 0;
  auto count_pre = [&](nn::Module&,
                       const std::vector<IValue>&) -> std::optional<std::vector<IValue>> {
    ++pre;
    return std::nullopt;
  };
  auto count_post = [&](nn::Module&, const std::vector<IValue>&,
                        const IValue&) -> std::optional<IValue> {
    ++post;
    return std::nullopt;
  };
  NoGradGuard ng;
  {
    Net net;
    net->eval();
    net->conv1->register_forward_pre_hook(count_pre);
    net->relu1->register_forward_hook(count_post);
    nn::utils::fuse_modules(net, kNetGroups);
    EXPECT_TRUE(net->get_submodule("conv1")->has_call_hooks());
    net(ember::randn({1, 3, 5, 5}));  // the member layers
    EXPECT_EQ(pre, 1);
    EXPECT_EQ(post, 1);
  }
  {
    nn::Sequential seq(nn::Conv2d(3, 4, 3), nn::ReLU());
    seq[0]->register_forward_pre_hook(count_pre);
    seq[1]->register_forward_hook(count_post);
    nn::utils::fuse_modules(seq, {{"0", "1"}});
    seq->forward(ember::randn({1, 3, 5, 5}));  // the fused module
    EXPECT_EQ(pre, 2);
    EXPECT_EQ(post, 2);
  }
}

// A clone of a fused model computes the same and owns its parameters (the layers' fused forward
// refers to nothing outside the layer).
TEST(FuseModules, CloneOfAFusedModel) {
  manual_seed(9);
  nn::Sequential seq(nn::Conv2d(3, 4, 3), nn::BatchNorm2d(4), nn::ReLU());
  randomize_bns(*seq);
  seq->eval();
  nn::utils::fuse_modules(seq, {{"0", "1", "2"}});
  auto copy = std::dynamic_pointer_cast<nn::SequentialImpl>(seq->clone());
  ASSERT_TRUE(copy);
  const Tensor x = ember::randn({2, 3, 6, 6});
  NoGradGuard ng;
  const Tensor y = seq->forward(x);
  expect_close(copy->forward(x), y, 0, 0, "clone");
  auto copy_conv = copy->ptr<nn::intrinsic::ConvReLU2dImpl>(0)->conv;
  EXPECT_TRUE(copy_conv->_fused_forward.active());
  expect_close(copy_conv->forward(x), y, 0, 0, "the clone's conv layer");
  copy_conv->weight.zero_();
  expect_close(seq->forward(x), y, 0, 0, "original after changing the clone");
}

TEST(FuseModules, QatKeepsTrainingBatchNorms) {
  manual_seed(6);
  Net net, ref;
  randomize_bns(*net);
  ref->load_state_dict(net->state_dict());
  nn::utils::fuse_modules_qat(net, kNetGroups);
  EXPECT_TRUE(
      std::dynamic_pointer_cast<nn::intrinsic::ConvBnReLU2dImpl>(net->get_submodule("conv1")));
  EXPECT_TRUE(std::dynamic_pointer_cast<nn::intrinsic::LinearBn1dImpl>(net->get_submodule("fc1")));
  const Tensor x = ember::randn({4, 3, 5, 5});
  Tensor y = net(x), y_ref = ref(x);
  expect_same(y, y_ref, "QAT forward");
  // The batch norms updated their running statistics once, as the unfused ones did.
  expect_same(net->bn1->running_mean, ref->bn1->running_mean, "running_mean");
  EXPECT_EQ(net->bn1->num_batches_tracked.item<int64_t>(), 1);
  // Gradients flow to the same parameters.
  y.sum().backward();
  y_ref.sum().backward();
  expect_same(net->conv1->weight.grad(), ref->conv1->weight.grad(), "conv1 grad");
  expect_same(net->bn3->weight.grad(), ref->bn3->weight.grad(), "bn3 grad");
}

TEST(FuseModules, Errors) {
  {
    nn::Sequential seq(nn::Conv2d(2, 2, 1), nn::ReLU6());
    expect_error<NotImplementedError>(
        [&] {
          nn::utils::fuse_modules(seq, {{"0", "1"}});
        },
        {"fuse_modules", "cannot fuse", "Conv2d", "ReLU6"});
  }
  {
    nn::Sequential seq(nn::Conv2d(2, 2, 1), nn::BatchNorm2d(2));
    expect_error<ValueError>(
        [&] {
          nn::utils::fuse_modules(seq, {{"0", "1"}});
        },
        {"fuse_modules", "eval"});
    seq[0]->eval();
    expect_error<ValueError>([&] { nn::utils::fuse_modules(seq, {{"0", "1"}}); }, {"same mode"});
    expect_error<ValueError>(
        [&] {
          nn::utils::fuse_modules(seq, {{"0", "7"}});
        },
        {"fuse_modules", "'7'"});
    // Nothing was changed by the failed calls.
    EXPECT_TRUE(seq->ptr<nn::BatchNorm2dImpl>(1));
  }
  {
    nn::Sequential seq(nn::Conv2d(2, 2, 1), nn::BatchNorm1d(2));
    seq->eval();
    expect_error<NotImplementedError>(
        [&] {
          nn::utils::fuse_modules(seq, {{"0", "1"}});
        },
        {"BatchNorm1d"});
  }
  {
    nn::Sequential seq(nn::ConvTranspose2d(2, 2, 1), nn::BatchNorm2d(2));
    expect_error<NotImplementedError>(
        [&] {
          nn::utils::fuse_modules_qat(seq, {{"0", "1"}});
        },
        {"ConvTranspose", "QAT"});
  }
  {
    nn::Sequential seq(nn::Conv2d(2, 3, 1), nn::BatchNorm2d(nn::BatchNormOptions(3).affine(false)));
    expect_error<ValueError>([&] { nn::utils::fuse_modules_qat(seq, {{"0", "1"}}); }, {"affine"});
  }
}

// The fused kernel against relu(conv): every dtype, both layouts, padded and grouped, unbatched,
// and (with gradients wanted) the differentiable path.
TEST(ConvolutionRelu, MatchesReluOfConvolution) {
  manual_seed(7);
  for (ScalarType dt : {kFloat, kDouble, kBFloat16}) {
    for (bool channels_last : {false, true}) {
      SCOPED_TRACE(::testing::Message() << dt << (channels_last ? " channels-last" : ""));
      Tensor x = ember::randn({2, 4, 7, 6}).to(dt);
      if (channels_last) x = x.contiguous(MemoryFormat::ChannelsLast);
      Tensor w = ember::randn({6, 2, 3, 3}).to(dt), b = ember::randn({6}).to(dt);
      Tensor ref = ember::relu(ember::conv2d(x, w, b, 2, 1, 1, 2));
      Tensor y = ember::convolution_relu(x, w, b, {2}, {1}, {1}, 2);
      expect_close(y, ref, dt == kBFloat16 ? 1e-2 : 1e-6, dt == kBFloat16 ? 1e-2 : 1e-6,
                   "convolution_relu");
      EXPECT_EQ(y.is_contiguous(MemoryFormat::ChannelsLast), channels_last);
      EXPECT_GT((y == 0).sum().item<int64_t>(), 0);  // the ReLU did clip something
    }
  }
  // One input channel (the direct float32 kernel), 1-D and 3-D, no bias, unbatched.
  Tensor x1 = ember::randn({3, 1, 9, 9}), w1 = ember::randn({4, 1, 3, 3});
  expect_close(ember::convolution_relu(x1, w1, Tensor(), {1}, {0}, {1}, 1),
               ember::relu(ember::conv2d(x1, w1)), 1e-6, 1e-6, "c1");
  Tensor x2 = ember::randn({3, 8}), w2 = ember::randn({5, 3, 2});
  expect_close(ember::convolution_relu(x2, w2, Tensor(), {1}, {1}, {2}, 1),
               ember::relu(ember::conv1d(x2, w2, {}, 1, 1, 2)), 1e-6, 1e-6, "1-d unbatched");
  Tensor x3 = ember::randn({1, 2, 4, 4, 4}), w3 = ember::randn({3, 2, 2, 2, 2});
  expect_close(ember::convolution_relu(x3, w3, Tensor(), {1}, {0}, {1}, 1),
               ember::relu(ember::conv3d(x3, w3)), 1e-6, 1e-6, "3-d");
  // 16 input channels into an 8-wide output: the channels-last (brgconv) forward with the ReLU
  // post-op, against relu(conv) computed in float64.
  Tensor x5 = ember::randn({2, 16, 8, 8}), w5 = ember::randn({8, 16, 3, 3}), b5 = ember::randn({8});
  expect_close(
      ember::convolution_relu(x5, w5, b5, {1}, {1}, {1}, 1),
      ember::relu(ember::conv2d(x5.to(kDouble), w5.to(kDouble), b5.to(kDouble), 1, 1)).to(kFloat),
      1e-5, 1e-5, "16 channels, channels-last forward");
  // An empty batch and a zero-channel input: relu(bias) / empty.
  Tensor b4 = ember::randn({4});
  Tensor y4 = ember::convolution_relu(ember::randn({2, 0, 5, 5}), ember::randn({4, 0, 3, 3}), b4,
                                      {1}, {0}, {1}, 1);
  expect_close(y4.select(0, 1).select(1, 2).select(1, 2), ember::relu(b4), 0, 0, "no channels");
  EXPECT_EQ(
      ember::convolution_relu(ember::randn({0, 2, 5, 5}), w1.expand({4, 2, 3, 3}).contiguous(),
                              Tensor(), {1}, {0}, {1}, 1)
          .sizes()
          .vec(),
      (std::vector<int64_t>{0, 4, 3, 3}));
}

TEST(ConvolutionRelu, GradientsThroughTheTwoOps) {
  manual_seed(8);
  Tensor x = ember::randn({2, 2, 5, 5}, kDouble).requires_grad_(true);
  Tensor w = ember::randn({3, 2, 3, 3}, kDouble).requires_grad_(true);
  Tensor b = ember::randn({3}, kDouble).requires_grad_(true);
  auto fn = [](const autograd::variable_list& v) {
    return autograd::variable_list{ember::convolution_relu(v[0], v[1], v[2], {1}, {1}, {1}, 1)};
  };
  EXPECT_TRUE(autograd::gradcheck(fn, {x, w, b}));
  // A fused module under autograd: the same gradients as conv then relu.
  nn::Conv2d conv(nn::Conv2dOptions(2, 3, 3).padding(1));
  nn::intrinsic::ConvReLU2d fused(conv, nn::ReLU());
  Tensor xf = ember::randn({2, 2, 5, 5}).requires_grad_(true);
  fused(xf).sum().backward();
  Tensor g_fused = xf.grad().clone(), gw_fused = conv->weight.grad().clone();
  xf.mutable_grad() = Tensor();
  conv->weight.mutable_grad() = Tensor();
  ember::relu(conv(xf)).sum().backward();
  expect_close(g_fused, xf.grad(), 1e-6, 1e-6, "input grad");
  expect_close(gw_fused, conv->weight.grad(), 1e-6, 1e-6, "weight grad");
}

}  // namespace fuse_modules_test

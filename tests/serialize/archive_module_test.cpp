// ember::save / ember::load of tensors, modules (Module::save / load: parameters, buffers, nested
// submodules, all-or-nothing loads) and optimizers, and of a state_dict file Python wrote.
#include <gtest/gtest.h>

#include <sstream>

#include "ember/ember.h"
#include "tests/serialize/safetensors_test_util.h"
#include "tests/support/expect_error.h"

using ember::Tensor;
namespace nn = ember::nn;

namespace {

// BatchNorm1d's state: affine parameters, running statistics and an int64 counter as buffers.
struct ArchiveTestNormImpl : nn::Module {
  explicit ArchiveTestNormImpl(int64_t n) {
    weight = register_parameter("weight", ember::ones({n}));
    bias = register_parameter("bias", ember::zeros({n}));
    running_mean = register_buffer("running_mean", ember::zeros({n}));
    running_var = register_buffer("running_var", ember::ones({n}));
    num_batches_tracked = register_buffer("num_batches_tracked", ember::tensor(int64_t{0}));
    scratch = register_buffer("scratch", ember::zeros({n}), /*persistent=*/false);
  }
  Tensor weight, bias, running_mean, running_var, num_batches_tracked, scratch;
};
EMBER_MODULE(ArchiveTestNorm);

// The architecture of gen_safetensors_files.py's state_dict: fc1, bn, fc2.
struct ArchiveTestNetImpl : nn::Module {
  explicit ArchiveTestNetImpl(int64_t hidden = 4)
      : fc1(register_module("fc1", nn::Linear(3, hidden))),
        bn(register_module("bn", ArchiveTestNorm(hidden))),
        fc2(register_module("fc2", nn::Linear(hidden, 2))) {}
  nn::Linear fc1;
  ArchiveTestNorm bn;
  nn::Linear fc2;
};
EMBER_MODULE(ArchiveTestNet);

void archive_test_randomize(nn::Module& m) {
  ember::NoGradGuard no_grad;
  for (auto& p : m.named_parameters()) p.value().copy_(ember::randn(p.value().sizes()));
  for (auto& b : m.named_buffers())
    if (b.value().is_floating_point()) b.value().copy_(ember::rand(b.value().sizes()));
}

void archive_test_expect_equal_state(const nn::Module& a, const nn::Module& b) {
  const auto sa = a.state_dict();
  const auto sb = b.state_dict();
  ASSERT_EQ(sa.keys(), sb.keys());
  for (const auto& item : sa) {
    SCOPED_TRACE(item.key());
    EXPECT_TRUE(ember::equal(item.value(), sb[item.key()]));
  }
}

}  // namespace

TEST(ArchiveModule, SaveLoadRoundTripKeepsParametersBuffersAndIdentity) {
  st_test::ScratchDir dir;
  ArchiveTestNet a;
  archive_test_randomize(*a);
  {
    ember::NoGradGuard g;
    a->bn->num_batches_tracked.fill_(12);
  }
  ember::save(a, dir.path("net.safetensors"));

  ArchiveTestNet b;
  const Tensor w_before = b->fc1->weight;  // the object a user or optimizer holds
  ember::load(b, dir.path("net.safetensors"));
  archive_test_expect_equal_state(*a, *b);
  EXPECT_TRUE(b->fc1->weight.is_same(w_before)) << "loaded in place";
  EXPECT_TRUE(b->fc1->weight.requires_grad());
  EXPECT_EQ(b->bn->num_batches_tracked.item<int64_t>(), 12);

  // Python sees a state_dict: the same keys as Module::state_dict() (non-persistent excluded).
  auto flat = ember::serialize::load_safetensors(dir.path("net.safetensors"));
  std::vector<std::string> keys = flat.keys(), want = a->state_dict().keys();
  std::sort(keys.begin(), keys.end());
  std::sort(want.begin(), want.end());
  EXPECT_EQ(keys, want);
}

TEST(ArchiveModule, StreamsAndSharedPtrsWork) {
  auto a = std::make_shared<ArchiveTestNetImpl>();
  archive_test_randomize(*a);
  std::stringstream s;
  ember::save(std::static_pointer_cast<nn::Module>(a), s);
  auto b = std::make_shared<ArchiveTestNetImpl>();
  ember::load(b, s);
  archive_test_expect_equal_state(*a, *b);
}

TEST(ArchiveModule, MismatchIsAnErrorAndLeavesTheModuleUntouched) {
  st_test::ScratchDir dir;
  ArchiveTestNet small(4);
  archive_test_randomize(*small);
  ember::save(small, dir.path("small.safetensors"));

  ArchiveTestNet wide(5);  // every hidden size differs
  archive_test_randomize(*wide);
  const auto before = wide->state_dict();
  std::map<std::string, Tensor> copies;
  for (const auto& item : before) copies[item.key()] = item.value().clone();
  ember_test::expect_error([&] { ember::load(wide, dir.path("small.safetensors")); },
                           {"Module::load", "shape mismatch for parameter 'fc1.weight'",
                            "the archive has [4, 3], the module [5, 3]", "buffer 'bn.running_mean'",
                            "Nothing was loaded"});
  for (const auto& item : wide->state_dict()) {
    SCOPED_TRACE(item.key());
    EXPECT_TRUE(ember::equal(item.value(), copies.at(item.key())));
  }

  // A missing submodule and a missing parameter are named too.
  ember::serialize::OutputArchive partial, fc1;
  fc1.write("weight", ember::zeros({4, 3}));
  partial.write("fc1", fc1);
  std::stringstream s;
  partial.save_to(s);
  ArchiveTestNet c;
  ember_test::expect_error(
      [&] { ember::load(c, s); },
      {"missing parameter 'fc1.bias'", "missing submodule 'bn'", "missing submodule 'fc2'"});

  // A buffer where a parameter is expected.
  ember::serialize::OutputArchive swapped;
  swapped.write("weight", ember::zeros({2, 3}), /*is_buffer=*/true);
  swapped.write("bias", ember::zeros({2}));
  std::stringstream s2;
  swapped.save_to(s2);
  nn::Linear lin(3, 2);
  ember_test::expect_error([&] { ember::load(lin, s2); },
                           {"'weight' was saved as a buffer, the module has a parameter"});
}

TEST(ArchiveModule, LoadsAStateDictPythonWrote) {
  ArchiveTestNet net;
  ember::load(net, st_test::data_path("state_dict.safetensors"));
  const st_test::Expected want = st_test::read_expected("state_dict");
  const auto sd = net->state_dict();
  ASSERT_EQ(sd.size(), want.tensors.size());
  for (const auto& t : want.tensors) {
    SCOPED_TRACE(t.name);
    const std::vector<char> got = st_test::tensor_bytes(sd[t.name]);
    EXPECT_EQ(std::string(got.begin(), got.end()), t.bytes);
  }
  EXPECT_EQ(net->bn->num_batches_tracked.item<int64_t>(), 1);
}

TEST(ArchiveModule, TensorsAndTensorVectors) {
  std::stringstream s;
  const Tensor x = ember::arange(6, ember::kDouble).reshape({2, 3}).t();
  ember::save(x, s);
  Tensor y = ember::zeros({7});  // replaced, whatever its shape
  ember::load(y, s);
  EXPECT_TRUE(ember::equal(x, y));

  std::stringstream sv;
  ember::save(std::vector<Tensor>{ember::ones({1}), ember::tensor(int64_t{5}), ember::zeros({0})},
              sv);
  std::vector<Tensor> v;
  ember::load(v, sv);
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[1].item<int64_t>(), 5);
  EXPECT_EQ(v[2].numel(), 0);
}

TEST(ArchiveModule, OptimizerSaveLoadThroughEmberSave) {
  ArchiveTestNet net;
  archive_test_randomize(*net);
  ember::optim::SGD opt(net->parameters(), ember::optim::SGDOptions(0.1).momentum(0.9));
  for (int step = 0; step < 2; ++step) {
    opt.zero_grad();
    net->fc2(net->fc1(ember::randn({5, 3}))).sum().backward();
    opt.step();
  }
  std::stringstream s;
  ember::save(opt, s);
  ember::optim::SGD opt2(net->parameters(), ember::optim::SGDOptions(0.5));
  ember::load(opt2, s);
  EXPECT_EQ(opt2.param_groups()[0].options().get_lr(), 0.1);
}

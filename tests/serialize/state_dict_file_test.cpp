// ember::load_state_dict / save_state_dict: the format chosen by content when reading and by
// extension when writing, and the user's first request: a state_dict Python's torch.save wrote,
// loaded into a module (through load_state_dict and through ember::load).
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "ember/ember.h"
#include "tests/support/expect_error.h"

namespace state_dict_file_test {

using namespace ember;

std::string sd_data_path(const std::string& name) {
  return std::string(EMBER_SOURCE_DIR) + "/tests/serialize/data/" + name;
}

// gen_torch_files.py's model: Sequential(Linear(3, 4), BatchNorm1d(4), ReLU(), Linear(4, 2)) after
// manual_seed(0). Ember has no BatchNorm yet: a ReLU holds its place (no parameters), and the
// Linear layers draw PyTorch's initial weights after manual_seed(0).
nn::Sequential python_like_model() {
  return nn::Sequential{nn::Linear(3, 4), nn::ReLU(), nn::ReLU(), nn::Linear(4, 2)};
}

TEST(StateDictFile, TorchSaveFileLoadsIntoAModule) {
  const auto sd = load_state_dict(sd_data_path("sequential.pt"));
  ASSERT_TRUE(sd.contains("0.weight"));
  EXPECT_EQ(sd["0.weight"].sizes(), IntArrayRef({4, 3}));
  EXPECT_TRUE(sd.contains("1.running_mean"));
  manual_seed(0);
  nn::Sequential same_init = python_like_model();
  // (Ember's uniform_ draws agree with PyTorch's to one float32 ulp, not bit for bit.)
  EXPECT_TRUE(allclose(sd["0.weight"], same_init->named_parameters()["0.weight"], 1e-6, 0));
  EXPECT_TRUE(allclose(sd["3.bias"], same_init->named_parameters()["3.bias"], 1e-6, 0));

  manual_seed(1);
  nn::Sequential model = python_like_model();
  ASSERT_FALSE(equal(model->named_parameters()["0.weight"], sd["0.weight"]));
  const nn::IncompatibleKeys keys = model->load_state_dict(sd, /*strict=*/false);
  EXPECT_TRUE(keys.missing_keys.empty());
  EXPECT_NE(std::find(keys.unexpected_keys.begin(), keys.unexpected_keys.end(), "1.running_mean"),
            keys.unexpected_keys.end());
  for (const auto& p : model->named_parameters()) EXPECT_TRUE(equal(p.value(), sd[p.key()]));

  // The same file through ember::load (the archive reader): keys the module lacks are ignored,
  // as LibTorch's Module::load does.
  manual_seed(2);
  nn::Sequential again = python_like_model();
  ember::load(again, sd_data_path("sequential.pt"));
  for (const auto& p : again->named_parameters()) EXPECT_TRUE(equal(p.value(), sd[p.key()]));
}

TEST(StateDictFile, SaveChoosesTheFormatByExtensionAndLoadByContent) {
  ember::TempDir dir = *ember::try_make_tempdir("state-dict-file-");
  manual_seed(0);
  nn::Sequential model = python_like_model();
  const auto sd = model->state_dict();
  for (const char* name : {"m.pt", "m.pth", "m.bin", "m.safetensors"}) {
    SCOPED_TRACE(name);
    const std::string path = dir.name + "/" + name;
    save_state_dict(sd, path);
    char head[4] = {0, 0, 0, 0};
    std::ifstream(path, std::ios::binary).read(head, 4);
    const bool zip = std::string(head, 4) == std::string("PK\x03\x04", 4);
    EXPECT_EQ(zip, std::string(name) != "m.safetensors");
    const auto back = load_state_dict(path);
    ASSERT_EQ(back.size(), sd.size());
    for (const auto& item : sd) EXPECT_TRUE(equal(back[item.key()], item.value()));
    std::remove(path.c_str());
  }
  ember_test::expect_error([&] { save_state_dict(sd, dir.name + "/m.ckpt"); },
                           {"cannot tell the format from the name"});
  ember_test::expect_error([&] { load_state_dict(dir.name + "/absent.pt"); }, {"cannot open"});
  // A bare pickle: torch.save's pre-1.6 format.
  const std::string legacy = dir.name + "/legacy.pt";
  std::ofstream(legacy, std::ios::binary) << std::string("\x80\x02\x8a\x0a", 4);
  ember_test::expect_error([&] { load_state_dict(legacy); }, {"legacy format"});
  std::remove(legacy.c_str());
}

}  // namespace state_dict_file_test

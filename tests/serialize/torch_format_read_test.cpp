// Reading files Python's torch.save wrote (tests/serialize/gen_torch_files.py made them), compared
// with the manifest it wrote alongside.
#include <gtest/gtest.h>

#include "tests/serialize/torch_format_test_util.h"

namespace {

using ember::serialize::load_torch_state_dict;
using torch_format_test::data_path;
using torch_format_test::expect_matches_manifest;

TEST(TorchFormatRead, EveryDtypeMatchesPyTorch) {
  expect_matches_manifest(load_torch_state_dict(data_path("dtypes.pt")), "dtypes.pt");
}

TEST(TorchFormatRead, PickleProtocol4) {
  // FRAME, SHORT_BINUNICODE, MEMOIZE and STACK_GLOBAL instead of protocol 2's opcodes.
  expect_matches_manifest(load_torch_state_dict(data_path("dtypes_p4.pt")), "dtypes_p4.pt");
}

TEST(TorchFormatRead, ViewsKeepStridesOffsetsAndSharing) {
  expect_matches_manifest(load_torch_state_dict(data_path("views.pt")), "views.pt");
}

TEST(TorchFormatRead, SequentialStateDictWithBuffersAndMetadata) {
  auto sd = load_torch_state_dict(data_path("sequential.pt"));
  expect_matches_manifest(sd, "sequential.pt");
  EXPECT_TRUE(sd.contains("1.running_mean"));
  EXPECT_EQ(sd["1.num_batches_tracked"].scalar_type(), ember::kLong);
}

TEST(TorchFormatRead, ParameterKeepsRequiresGrad) {
  auto sd = load_torch_state_dict(data_path("param.pt"));
  expect_matches_manifest(sd, "param.pt");
  EXPECT_TRUE(sd["p"].requires_grad());
  EXPECT_FALSE(sd["q"].requires_grad());
}

TEST(TorchFormatRead, WritingThroughOneViewShowsInTheOthersButNotInTheFile) {
  auto sd = load_torch_state_dict(data_path("views.pt"));
  sd["base"].fill_(7.0);
  for (const char* key : {"transposed", "sliced", "row"}) {
    EXPECT_TRUE(ember::equal(sd[key], ember::full_like(sd[key], 7.0))) << key;
  }
  EXPECT_EQ(sd["other"].to(ember::kDouble).sum().item<double>(), 0.0 + 6.0 + 12.0);
  // The map is copy-on-write: the file (and a fresh load of it) still holds PyTorch's values.
  expect_matches_manifest(load_torch_state_dict(data_path("views.pt")), "views.pt");
}

TEST(TorchFormatRead, FromMemoryMatchesFromFile) {
  const std::vector<char> bytes = torch_format_test::read_bytes(data_path("dtypes.pt"));
  expect_matches_manifest(load_torch_state_dict(bytes.data(), bytes.size()), "dtypes.pt");
}

TEST(TorchFormatRead, ToDeviceOption) {
  auto sd = load_torch_state_dict(data_path("dtypes.pt"), ember::Device(ember::kCPU));
  EXPECT_TRUE(sd["float32"].device().is_cpu());
}

TEST(TorchFormatRead, PickleLoadReadsGenericValues) {
  const ember::IValue v =
      ember::pickle_load(torch_format_test::read_bytes(data_path("generic.pt")));
  ASSERT_TRUE(v.isGenericDict());
  const ember::GenericDict& d = v.toGenericDict();
  ASSERT_EQ(d.size(), 5u);
  std::vector<std::string> keys;
  for (const auto& e : d) keys.push_back(e.key().toStringRef());
  EXPECT_EQ(keys, (std::vector<std::string>{"ints", "floats", "strs", "flags", "nested"}));
  const auto ints = d.at("ints").toList();
  ASSERT_EQ(ints->size(), 5u);
  EXPECT_EQ(ints->get(2).toInt(), 300);
  EXPECT_EQ(ints->get(3).toInt(), 70000);
  EXPECT_EQ(ints->get(4).toInt(), -(int64_t{1} << 40));
  EXPECT_EQ(ints->get(1).toInt(), -2);
  const auto& floats = d.at("floats").toTuple()->elements();
  ASSERT_EQ(floats.size(), 2u);
  EXPECT_EQ(floats[0].toDouble(), 0.5);
  EXPECT_EQ(floats[1].toDouble(), -1e10);
  EXPECT_EQ(d.at("strs").toList()->get(1).toStringRef(), "\xc3\xa9t\xc3\xa9");
  const auto flags = d.at("flags").toList();
  EXPECT_TRUE(flags->get(0).toBool());
  EXPECT_FALSE(flags->get(1).toBool());
  EXPECT_TRUE(flags->get(2).isNone());
  const ember::GenericDict& nested = d.at("nested").toGenericDict();
  const ember::Tensor t = nested.at("t").toTensor();
  EXPECT_EQ(t.scalar_type(), ember::kInt);
  EXPECT_EQ(torch_format_test::tensor_hex(t), "0100000002000000");
  EXPECT_TRUE(nested.at("e").toGenericDict().empty());
}

TEST(TorchFormatRead, PickleLoadOfAStateDictIsAnOrderedDict) {
  const ember::IValue v =
      ember::pickle_load(torch_format_test::read_bytes(data_path("sequential.pt")));
  ASSERT_TRUE(v.isGenericDict());
  EXPECT_EQ(v.toGenericDict().begin()->key().toStringRef(), "0.weight");
}

}  // namespace

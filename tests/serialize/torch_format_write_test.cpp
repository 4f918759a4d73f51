// Writing torch.save files: Ember -> Ember round trips, and the files under data/ember_written/
// (which `gen_torch_files.py verify` loads with torch.load(weights_only=True)) still produced
// byte for byte. Set EMBER_UPDATE_TORCH_FILES=1 to rewrite those files after a deliberate change,
// then run the verify mode.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "ember/core/tempfile.h"
#include "ember/core/tensor_impl.h"
#include "src/serialize/zip_reader.h"
#include "tests/serialize/torch_format_test_util.h"
#include "tests/support/expect_error.h"

namespace {

using ember::serialize::load_torch_state_dict;
using ember::serialize::save_torch_state_dict;
using torch_format_test::data_path;
using torch_format_test::expect_matches_manifest;
using TorchStateDict = ember::OrderedDict<std::string, ember::Tensor>;

TorchStateDict write_read_round_trip(const TorchStateDict& sd) {
  ember::TempFile tmp = ember::make_tempfile("torch-format-");
  save_torch_state_dict(sd, tmp.name);
  return load_torch_state_dict(tmp.name);
}

TEST(TorchFormatWrite, RoundTripEveryDtype) {
  for (const char* file : {"dtypes.pt", "dtypes_p4.pt", "views.pt", "sequential.pt", "param.pt"}) {
    SCOPED_TRACE(file);
    expect_matches_manifest(write_read_round_trip(load_torch_state_dict(data_path(file))), file);
  }
}

TEST(TorchFormatWrite, TensorsMadeInEmberRoundTrip) {
  TorchStateDict sd;
  for (ember::ScalarType t :
       {ember::kFloat, ember::kDouble, ember::kHalf, ember::kBFloat16, ember::kChar, ember::kShort,
        ember::kInt, ember::kLong, ember::kByte, ember::kBool}) {
    sd.insert(ember::to_string(t), ember::arange(12).reshape({3, 4}).to(t));
  }
  const TorchStateDict back = write_read_round_trip(sd);
  ASSERT_EQ(back.size(), sd.size());
  for (size_t i = 0; i < sd.size(); ++i) {
    EXPECT_EQ(back[i].key(), sd[i].key());
    EXPECT_EQ(back[i].value().scalar_type(), sd[i].value().scalar_type());
    EXPECT_TRUE(ember::equal(back[i].value(), sd[i].value())) << sd[i].key();
  }
}

TEST(TorchFormatWrite, ViewsAreWrittenOnceWithTheirStrides) {
  ember::Tensor base = ember::arange(20, ember::kFloat).reshape({4, 5});
  TorchStateDict sd;
  sd.insert("t", base.t());
  sd.insert("slice", base.narrow(0, 1, 2).narrow(1, 2, 3));
  sd.insert("base", base);
  ember::TempFile tmp = ember::make_tempfile("torch-format-");
  save_torch_state_dict(sd, tmp.name);
  const TorchStateDict back = load_torch_state_dict(tmp.name);
  EXPECT_EQ(back["t"].strides(), base.t().strides());
  EXPECT_EQ(back["slice"].storage_offset(), 7);
  EXPECT_TRUE(ember::equal(back["slice"], sd["slice"]));
  EXPECT_EQ(back["t"].impl()->storage().get(), back["base"].impl()->storage().get());
  back["base"].fill_(1.0);
  EXPECT_EQ(back["slice"].sum().item<double>(), 6.0);
  // One storage record: data.pkl, byteorder, data/0, version.
  const std::vector<char> bytes = torch_format_test::read_bytes(tmp.name);
  ember::serialize::detail::ZipReader zip(reinterpret_cast<const uint8_t*>(bytes.data()),
                                          bytes.size(), tmp.name);
  ASSERT_EQ(zip.records().size(), 4u);
  EXPECT_EQ(zip.records()[2].name, "archive/data/0");
  EXPECT_EQ(zip.records()[2].size, 80u);
  for (const auto& r : zip.records()) EXPECT_EQ(r.data_offset % 64, 0u) << r.name;
}

TEST(TorchFormatWrite, OneStorageAsTwoDtypesIsAnError) {
  ember::Tensor f = ember::zeros({4}, ember::kFloat);
  ember::Tensor i(ember::make_intrusive<ember::TensorImpl>(f.impl()->storage(), ember::kInt,
                                                           std::vector<int64_t>{4}));
  TorchStateDict sd;
  sd.insert("f", f);
  sd.insert("i", i);
  ember::TempFile tmp = ember::make_tempfile("torch-format-");
  ember_test::expect_error([&] { save_torch_state_dict(sd, tmp.name); },
                           {"share one storage as float32 and as int32"});
}

TEST(TorchFormatWrite, PickleSaveLoadGenericValues) {
  ember::Tensor t = ember::arange(6, ember::kLong);
  auto inner = std::make_shared<ember::GenericDict>();
  inner->insert_or_assign(ember::IValue(int64_t{7}), ember::IValue(t.narrow(0, 2, 3)));
  auto list = std::make_shared<ember::GenericList>();
  for (int64_t v : {int64_t{0}, int64_t{255}, int64_t{256}, int64_t{65536}, int64_t{-70000},
                    int64_t{1} << 40, INT64_MIN})
    list->push_back(ember::IValue(v));
  ember::GenericDict d;
  d.insert_or_assign(ember::IValue("list"), ember::IValue(list));
  d.insert_or_assign(
      ember::IValue("tuple"),
      ember::IValue(ember::Tuple::create({ember::IValue(1.25), ember::IValue(), ember::IValue(true),
                                          ember::IValue("s"), ember::IValue(t)})));
  d.insert_or_assign(ember::IValue("inner"), ember::IValue(inner));
  d.insert_or_assign(ember::IValue("ints"), ember::IValue(std::vector<int64_t>{1, 2}));
  const ember::IValue back = ember::pickle_load(ember::pickle_save(ember::IValue(d)));
  const ember::GenericDict& b = back.toGenericDict();
  ASSERT_EQ(b.size(), 4u);
  const auto l = b.at("list").toList();
  ASSERT_EQ(l->size(), list->size());
  for (size_t i = 0; i < l->size(); ++i) EXPECT_EQ(l->get(i).toInt(), list->get(i).toInt());
  const auto& el = b.at("tuple").toTuple()->elements();
  ASSERT_EQ(el.size(), 5u);
  EXPECT_EQ(el[0].toDouble(), 1.25);
  EXPECT_TRUE(el[1].isNone());
  EXPECT_TRUE(el[2].toBool());
  EXPECT_EQ(el[3].toStringRef(), "s");
  const ember::Tensor view = b.at("inner").toGenericDict().at(int64_t{7}).toTensor();
  EXPECT_EQ(view.storage_offset(), 2);
  EXPECT_EQ(view.impl()->storage().get(), el[4].toTensor().impl()->storage().get());
  EXPECT_EQ(b.at("ints").toList()->get(1).toInt(), 2);
}

// The files gen_torch_files.py verify checks with PyTorch: Ember must keep writing them exactly.
void expect_written_bytes(const std::string& name, const std::vector<char>& got) {
  const std::string path = data_path("ember_written/" + name);
  if (std::getenv("EMBER_UPDATE_TORCH_FILES") != nullptr) {
    std::ofstream(path, std::ios::binary)
        .write(got.data(), static_cast<std::streamsize>(got.size()));
    return;
  }
  EXPECT_TRUE(torch_format_test::read_bytes(path) == got)
      << name << ": Ember no longer writes the bytes PyTorch verified";
}

TEST(TorchFormatWrite, EmberWrittenFilesAreByteIdentical) {
  for (const char* file : {"dtypes.pt", "dtypes_p4.pt", "views.pt", "sequential.pt", "param.pt"}) {
    ember::TempFile tmp = ember::make_tempfile("torch-format-");
    save_torch_state_dict(load_torch_state_dict(data_path(file)), tmp.name);
    expect_written_bytes(file, torch_format_test::read_bytes(tmp.name));
  }
  expect_written_bytes("generic.pt", ember::pickle_save(ember::pickle_load(
                                         torch_format_test::read_bytes(data_path("generic.pt")))));
}

}  // namespace

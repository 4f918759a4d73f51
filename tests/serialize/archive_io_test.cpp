// OutputArchive::save_to / InputArchive::load_from: every kind of entry round-trips exactly
// through files, streams, functions and bytes; plain safetensors files load as flat archives;
// corrupt trees are refused.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

#include "ember/ember.h"
#include "tests/serialize/safetensors_test_util.h"
#include "tests/support/expect_error.h"

using ember::IValue;
using ember::Tensor;
namespace ser = ember::serialize;

namespace {

double archive_test_bits(uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}
uint64_t archive_test_bits_of(double d) {
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  return bits;
}

// An archive with every kind of entry, nested two levels, keys with dots and odd bytes.
ser::OutputArchive archive_test_sample() {
  ser::OutputArchive inner, deeper, out;
  deeper.write("w", ember::arange(6, ember::kFloat).reshape({2, 3}).t());  // non-contiguous
  inner.write("weight", ember::tensor({1.0, -0.0}, ember::kDouble));
  inner.write("running_mean", ember::tensor({0.5f}), /*is_buffer=*/true);
  inner.write("deeper", deeper);
  out.write("fc", inner);
  out.write("step", IValue(int64_t{std::numeric_limits<int64_t>::min()}));
  out.write("lr", IValue(archive_test_bits(0x7ff8000000000abcULL)));  // NaN with a payload
  out.write("neg_zero", IValue(-0.0));
  out.write("flag", IValue(true));
  out.write("name", IValue(std::string("adam \"w\"\n\xc3\xbc")));
  out.write("raw", IValue(std::string("\xff\x00\x01", 3)));  // not UTF-8
  out.write("sizes", IValue(std::vector<int64_t>{1, -2, std::numeric_limits<int64_t>::max()}));
  out.write("betas", IValue(std::vector<double>{0.9, 0.999, -0.0}));
  out.write("list", IValue(std::vector<Tensor>{ember::ones({2}, ember::kInt), Tensor(),
                                               ember::tensor(3L)}));
  out.write("none", IValue());
  out.write("undefined", Tensor());
  out.write("a.b", ember::zeros({1}));  // a dotted key whose joined name collides with...
  ser::OutputArchive a;
  a.write("b", ember::ones({1}));  // ...this one's ("a.b")
  out.write("a", a);
  out.write("empty", ember::zeros({0, 2}, ember::kHalf));
  out.write("scalar", ember::tensor(true));
  out.write("bf16", ember::tensor({1.5f, -2.0f}).to(ember::kBFloat16));
  return out;
}

void archive_test_expect_tensor(ser::InputArchive& in, const std::string& key, const Tensor& want,
                                bool is_buffer = false) {
  SCOPED_TRACE(key);
  Tensor got;
  in.read(key, got, is_buffer);
  ASSERT_TRUE(got.defined());
  EXPECT_EQ(got.scalar_type(), want.scalar_type());
  EXPECT_EQ(got.sizes().vec(), want.sizes().vec());
  EXPECT_EQ(st_test::tensor_bytes(got), st_test::tensor_bytes(want));
}

void archive_test_check_sample(ser::InputArchive& in) {
  EXPECT_EQ(in.keys(), (std::vector<std::string>{
                           "fc", "step", "lr", "neg_zero", "flag", "name", "raw", "sizes", "betas",
                           "list", "none", "undefined", "a.b", "a", "empty", "scalar", "bf16"}));
  ser::InputArchive fc, deeper, a;
  in.read("fc", fc);
  archive_test_expect_tensor(fc, "weight", ember::tensor({1.0, -0.0}, ember::kDouble));
  archive_test_expect_tensor(fc, "running_mean", ember::tensor({0.5f}), true);
  Tensor t;
  EXPECT_FALSE(fc.try_read("running_mean", t, /*is_buffer=*/false)) << "kind kept";
  fc.read("deeper", deeper);
  archive_test_expect_tensor(deeper, "w", ember::arange(6, ember::kFloat).reshape({2, 3}).t());
  IValue v;
  in.read("step", v);
  EXPECT_EQ(v.toInt(), std::numeric_limits<int64_t>::min());
  in.read("lr", v);
  EXPECT_EQ(archive_test_bits_of(v.toDouble()), 0x7ff8000000000abcULL);
  in.read("neg_zero", v);
  EXPECT_EQ(archive_test_bits_of(v.toDouble()), 0x8000000000000000ULL);
  in.read("flag", v);
  EXPECT_TRUE(v.toBool());
  in.read("name", v);
  EXPECT_EQ(v.toStringRef(), "adam \"w\"\n\xc3\xbc");
  in.read("raw", v);
  EXPECT_EQ(v.toStringRef(), std::string("\xff\x00\x01", 3));
  in.read("sizes", v);
  EXPECT_EQ(v.toIntVector(), (std::vector<int64_t>{1, -2, std::numeric_limits<int64_t>::max()}));
  in.read("betas", v);
  ASSERT_EQ(v.toDoubleVector().size(), 3u);
  EXPECT_EQ(v.toDoubleVector()[1], 0.999);
  EXPECT_TRUE(std::signbit(v.toDoubleVector()[2]));
  in.read("list", v);
  ASSERT_EQ(v.toTensorList().size(), 3u);
  EXPECT_TRUE(ember::equal(v.toTensorList()[0], ember::ones({2}, ember::kInt)));
  EXPECT_FALSE(v.toTensorList()[1].defined());
  EXPECT_EQ(v.toTensorList()[2].item<int64_t>(), 3);
  in.read("none", v);
  EXPECT_TRUE(v.isNone());
  in.read("undefined", v);
  EXPECT_FALSE(v.toTensor().defined());
  archive_test_expect_tensor(in, "a.b", ember::zeros({1}));
  in.read("a", a);
  archive_test_expect_tensor(a, "b", ember::ones({1}));
  archive_test_expect_tensor(in, "empty", ember::zeros({0, 2}, ember::kHalf));
  archive_test_expect_tensor(in, "scalar", ember::tensor(true));
  archive_test_expect_tensor(in, "bf16", ember::tensor({1.5f, -2.0f}).to(ember::kBFloat16));
}

// A safetensors file whose "ember.archive" metadata is `tree`, over `tensors`.
std::vector<char> archive_test_file(const std::string& tree,
                                    const ember::OrderedDict<std::string, Tensor>& tensors) {
  return ser::save_safetensors_to_bytes(tensors, {{"ember.archive", tree}});
}
std::vector<char> archive_test_file(const std::string& tree) {
  return archive_test_file(tree, ember::OrderedDict<std::string, Tensor>());
}

}  // namespace

TEST(ArchiveIO, FileRoundTripIsExact) {
  st_test::ScratchDir dir;
  ser::OutputArchive out = archive_test_sample();
  out.save_to(dir.path("a.safetensors"));
  ser::InputArchive in;
  in.load_from(dir.path("a.safetensors"));
  archive_test_check_sample(in);
  EXPECT_EQ(dir.files(), std::vector<std::string>{"a.safetensors"});
}

TEST(ArchiveIO, StreamFunctionAndBytesGiveTheSameFile) {
  ser::OutputArchive out = archive_test_sample();
  std::ostringstream os;
  out.save_to(os);
  const std::string bytes = os.str();
  std::string via_func;
  out.save_to([&](const void* p, size_t n) {
    via_func.append(static_cast<const char*>(p), n);
    return n;
  });
  EXPECT_EQ(via_func, bytes);

  std::istringstream is(bytes);
  ser::InputArchive from_stream;
  from_stream.load_from(is);
  archive_test_check_sample(from_stream);

  ser::InputArchive from_bytes;
  from_bytes.load_from(bytes.data(), bytes.size());
  archive_test_check_sample(from_bytes);

  ser::InputArchive from_func;
  from_func.load_from(
      [&](uint64_t pos, void* buf, size_t n) {
        std::memcpy(buf, bytes.data() + pos, n);
        return n;
      },
      [&] { return bytes.size(); }, ember::Device(ember::kCPU));
  archive_test_check_sample(from_func);
}

TEST(ArchiveIO, PythonSeesTheTensorsUnderDottedNames) {
  ser::OutputArchive out = archive_test_sample();
  std::ostringstream os;
  out.save_to(os);
  const std::string bytes = os.str();
  auto flat = ser::load_safetensors_from_bytes(bytes.data(), bytes.size());
  EXPECT_TRUE(flat.contains("fc.weight"));
  EXPECT_TRUE(flat.contains("fc.deeper.w"));
  EXPECT_TRUE(flat.contains("list.0"));
  EXPECT_TRUE(flat.contains("list.2"));
  EXPECT_TRUE(flat.contains("a.b"));
  EXPECT_TRUE(flat.contains("a.b~1")) << "the colliding name made unique";
  auto meta = ser::load_safetensors_metadata_from_bytes(bytes.data(), bytes.size());
  EXPECT_EQ(meta.at("format"), "pt");
  EXPECT_EQ(meta.count("ember.archive"), 1u);
}

TEST(ArchiveIO, PlainSafetensorsLoadsAsNestedArchives) {
  ser::InputArchive in;
  in.load_from(st_test::data_path("state_dict.safetensors"));
  EXPECT_EQ(in.keys(), (std::vector<std::string>{"bn", "fc1", "fc2"}));  // file order
  ser::InputArchive bn;
  in.read("bn", bn);
  Tensor mean, tracked;
  bn.read("running_mean", mean, /*is_buffer=*/true);  // the file does not say: either kind reads
  bn.read("num_batches_tracked", tracked);
  EXPECT_EQ(mean.sizes().vec(), std::vector<int64_t>{4});
  EXPECT_EQ(tracked.item<int64_t>(), 1);
}

TEST(ArchiveIO, GenericListsTuplesAndDictsRoundTrip) {
  ember::GenericDict dict;
  dict.insert_or_assign(IValue("lr"), IValue(0.5));
  dict.insert_or_assign(IValue(int64_t{3}), IValue(ember::arange(3)));
  dict.insert_or_assign(IValue(), IValue(ember::Tuple::create({IValue(true), IValue("x")})));
  ser::OutputArchive out;
  out.write("state", IValue(ember::GenericList(std::vector<IValue>{
                         IValue(dict), IValue(ember::GenericList()), IValue()})));
  std::ostringstream os;
  out.save_to(os);
  const std::string bytes = os.str();
  ser::InputArchive in;
  in.load_from(bytes.data(), bytes.size());
  IValue v;
  in.read("state", v);
  ASSERT_TRUE(v.isGenericList());
  const auto list = v.toList();
  ASSERT_EQ(list->size(), 3u);
  const ember::GenericDict& d = list->get(0).toGenericDict();
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d.at(IValue("lr")).toDouble(), 0.5);
  EXPECT_TRUE(ember::equal(d.at(IValue(int64_t{3})).toTensor(), ember::arange(3)));
  const auto& tuple = d.at(IValue()).toTuple()->elements();
  ASSERT_EQ(tuple.size(), 2u);
  EXPECT_TRUE(tuple[0].toBool());
  EXPECT_EQ(tuple[1].toStringRef(), "x");
  EXPECT_TRUE(list->get(1).toList()->empty());
  EXPECT_TRUE(list->get(2).isNone());
  // Python sees the tensor inside under its position.
  EXPECT_TRUE(ser::load_safetensors_from_bytes(bytes.data(), bytes.size()).contains("state.0.1"));

  IValue deep = IValue(ember::GenericList());
  for (int i = 0; i < 20; ++i) deep = IValue(ember::GenericList(std::vector<IValue>{deep}));
  ser::OutputArchive too_deep;
  too_deep.write("deep", deep);
  std::ostringstream sink;
  ember_test::expect_error([&] { too_deep.save_to(sink); }, {"deeper than 16 levels"});
}

// A zip is a torch.save file: its state_dict loads as nested archives split on '.'; a broken one
// is the .pt reader's error.
TEST(ArchiveIO, ZipFilesAreReadAsTorchStateDicts) {
  const std::string zip = std::string("PK\x03\x04", 4) + std::string(26, '\0');
  ser::InputArchive in;
  ember_test::expect_error([&] { in.load_from(zip.data(), zip.size()); }, {"zip"});

  ser::InputArchive pt;
  pt.load_from(std::string(EMBER_SOURCE_DIR) + "/tests/serialize/data/sequential.pt");
  EXPECT_EQ(pt.keys(), (std::vector<std::string>{"0", "1", "3"}));
  ser::InputArchive first;
  pt.read("0", first);
  Tensor weight;
  first.read("weight", weight);
  EXPECT_EQ(weight.sizes(), ember::IntArrayRef({4, 3}));
  Tensor running_mean;
  ser::InputArchive bn;
  pt.read("1", bn);
  bn.read("running_mean", running_mean, /*is_buffer=*/true);  // .pt files do not say which
  EXPECT_EQ(running_mean.sizes(), ember::IntArrayRef({4}));
}

TEST(ArchiveIO, CorruptTreesAreErrors) {
  ember::OrderedDict<std::string, Tensor> one;
  one.insert("x", ember::ones({1}));
  const std::pair<std::vector<char>, const char*> cases[] = {
      {archive_test_file("{\"format\":\"ember.archive\",\"version\":2,\"entries\":[]}"),
       "version 2 is not 1"},
      {archive_test_file("not json"), "invalid JSON"},
      {archive_test_file("{\"format\":\"ember.archive\",\"version\":1,\"entries\":[]}", one),
       "tensor 'x' of the file is not in the archive tree"},
      {archive_test_file(
           "{\"format\":\"ember.archive\",\"version\":1,\"entries\":[{\"path\":[\"a\","
           "\"b\"],\"kind\":\"none\"}]}"),
       "before (or without) the archive"},
      {archive_test_file(
           "{\"format\":\"ember.archive\",\"version\":1,\"entries\":[{\"path\":[\"a\"]"
           ",\"kind\":\"none\"},{\"path\":[\"a\"],\"kind\":\"none\"}]}"),
       "entry 'a' appears twice"},
      {archive_test_file(
           "{\"format\":\"ember.archive\",\"version\":1,\"entries\":[{\"path\":[\"a\"]"
           ",\"kind\":\"tensor\",\"name\":\"missing\"}]}"),
       "names tensor 'missing', which the file lacks"},
      {archive_test_file(
           "{\"format\":\"ember.archive\",\"version\":1,\"entries\":[{\"path\":[\"a\"]"
           ",\"kind\":\"tensor\",\"name\":\"x\"},{\"path\":[\"b\"],\"kind\":\"tensor\""
           ",\"name\":\"x\"}]}",
           one),
       "already used"},
      {archive_test_file(
           "{\"format\":\"ember.archive\",\"version\":1,\"entries\":[{\"path\":[\"a\"]"
           ",\"kind\":\"complex\"}]}"),
       "unknown kind 'complex'"},
      {archive_test_file(
           "{\"format\":\"ember.archive\",\"version\":1,\"entries\":[{\"path\":[\"a\"]"
           ",\"kind\":\"int\",\"value\":9223372036854775808}]}"),
       "not a 64-bit integer"},
      {archive_test_file(
           "{\"format\":\"ember.archive\",\"version\":1,\"entries\":[{\"path\":[\"a\"]"
           ",\"kind\":\"double\",\"bits\":\"3FF0000000000000\"}]}"),
       "16 lowercase hex digits"},
  };
  for (const auto& [bytes, part] : cases) {
    SCOPED_TRACE(part);
    ser::InputArchive in;
    ember_test::expect_error([&] { in.load_from(bytes.data(), bytes.size()); },
                             {part, "InputArchive::load_from(data)"});
  }
  // A plain file whose names make a tensor also a prefix.
  ember::OrderedDict<std::string, Tensor> clash;
  clash.insert("a", ember::ones({1}));
  clash.insert("a.b", ember::ones({1}));
  const std::vector<char> bytes = ser::save_safetensors_to_bytes(clash);
  ser::InputArchive in;
  ember_test::expect_error([&] { in.load_from(bytes.data(), bytes.size()); }, {"'a' is a tensor"});
}

TEST(ArchiveIO, WriterFailuresAreErrors) {
  ser::OutputArchive out;
  out.write("x", ember::ones({4}));
  ember_test::expect_error(
      [&] { out.save_to([](const void*, size_t n) { return n > 8 ? n - 1 : n; }); },
      {"writer took"});
  std::ostringstream bad;
  bad.setstate(std::ios::badbit);
  ember_test::expect_error([&] { out.save_to(bad); }, {"save_to(stream)"});
  ser::InputArchive in;
  ember_test::expect_error(
      [&] {
        in.load_from([](uint64_t, void*, size_t n) { return n / 2; }, [] { return size_t{100}; });
      },
      {"read 50 of 100 bytes"});
  std::istringstream empty;
  ember_test::expect_error([&] { in.load_from(empty); }, {"too short"});
}

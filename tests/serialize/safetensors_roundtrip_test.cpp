// Safetensors written by Ember and read back: exact bits for every dtype, layouts, memory-mapped
// loads, atomic writes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "ember/ember.h"
#include "tests/serialize/safetensors_test_util.h"
#include "tests/support/expect_error.h"

using ember::Tensor;
namespace ser = ember::serialize;

namespace {

// Tensors of every dtype with the values a lossy path would change: -0.0, NaN with a payload,
// infinities, subnormals, integer extremes.
ember::OrderedDict<std::string, Tensor> st_rt_tensors() {
  ember::OrderedDict<std::string, Tensor> out;
  const ember::ScalarType types[] = {ember::kDouble, ember::kFloat, ember::kHalf,  ember::kBFloat16,
                                     ember::kLong,   ember::kInt,   ember::kShort, ember::kChar,
                                     ember::kByte,   ember::kBool};
  for (ember::ScalarType t : types) {
    // Random bytes reinterpreted as the dtype: covers NaN payloads, -0.0 and subnormals alike.
    const int64_t n = 37;
    const int64_t high = t == ember::kBool ? 2 : 256;  // a bool byte must be 0 or 1
    Tensor bytes = ember::randint(0, high, {n * ember::element_size(t)},
                                  ember::TensorOptions().dtype(ember::kByte));
    Tensor x = ember::empty({n}, ember::TensorOptions().dtype(t));
    std::memcpy(x.data_ptr(), bytes.data_ptr(), static_cast<size_t>(bytes.numel()));
    out.insert(std::string("rand_") + ember::to_string(t), x);
  }
  const double nan_payload = [] {
    uint64_t bits = 0x7ff0000000000123ULL;  // a signalling-style NaN with a payload
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d;
  }();
  out.insert("special_f64",
             ember::tensor({-0.0, nan_payload, std::numeric_limits<double>::infinity(),
                            std::numeric_limits<double>::denorm_min()},
                           ember::TensorOptions().dtype(ember::kDouble)));
  out.insert("scalar", ember::tensor(2.5));
  out.insert("empty", ember::zeros({0, 3}));
  out.insert("transposed", ember::arange(12).reshape({3, 4}).t());  // non-contiguous
  out.insert("strided",
             ember::arange(20, ember::TensorOptions().dtype(ember::kFloat)).slice(0, 1, 20, 3));
  return out;
}

void st_rt_expect_same(const ember::OrderedDict<std::string, Tensor>& a,
                       const ember::OrderedDict<std::string, Tensor>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (const auto& item : a) {
    SCOPED_TRACE(item.key());
    const Tensor* other = b.find(item.key());
    ASSERT_NE(other, nullptr);
    EXPECT_EQ(other->scalar_type(), item.value().scalar_type());
    EXPECT_EQ(other->sizes().vec(), item.value().sizes().vec());
    EXPECT_EQ(st_test::tensor_bytes(*other), st_test::tensor_bytes(item.value()));  // bits
  }
}

}  // namespace

TEST(SafetensorsRoundTrip, BytesAreExactForEveryDtype) {
  const auto tensors = st_rt_tensors();
  const std::map<std::string, std::string> meta{{"format", "pt"}, {"k\"ey", "v\nalue \xc3\xbc"}};
  const std::vector<char> bytes = ser::save_safetensors_to_bytes(tensors, meta);
  uint64_t header_len = 0;
  std::memcpy(&header_len, bytes.data(), 8);
  EXPECT_EQ((8 + header_len) % 8, 0u) << "header padded: the data starts aligned";
  st_rt_expect_same(tensors, ser::load_safetensors_from_bytes(bytes.data(), bytes.size()));
  EXPECT_EQ(ser::load_safetensors_metadata_from_bytes(bytes.data(), bytes.size()), meta);
  // Writing what was read gives the same bytes again.
  EXPECT_EQ(ser::save_safetensors_to_bytes(
                ser::load_safetensors_from_bytes(bytes.data(), bytes.size()), meta),
            bytes);
}

TEST(SafetensorsRoundTrip, FileLoadsShareTheMappingAndNeverWriteTheFile) {
  st_test::ScratchDir dir;
  const std::string path = dir.path("m.safetensors");
  const auto tensors = st_rt_tensors();
  ser::save_safetensors(tensors, path);
  const std::vector<char> before = st_test::read_file(path);
  auto loaded = ser::load_safetensors(path);
  st_rt_expect_same(tensors, loaded);
  // Ember's own files keep every tensor aligned, so all of them map; writing into one changes
  // this process's copy only.
  Tensor w = loaded["rand_float32"];
  w.fill_(7.0);
  EXPECT_EQ(w[3].item<float>(), 7.0f);
  EXPECT_EQ(st_test::read_file(path), before);
  // The tensors outlive the dict that loaded them (they hold the mapping).
  Tensor kept = loaded["special_f64"];
  loaded.clear();
  EXPECT_TRUE(std::signbit(kept[0].item<double>()));
}

TEST(SafetensorsRoundTrip, UnalignedTensorsAreCopiedCorrectly) {
  // legacy_layout's tensors start at odd file offsets: loaded through copies, values intact.
  auto l = ser::load_safetensors(st_test::data_path("legacy_layout.safetensors"));
  EXPECT_EQ(l["a"][0].item<int64_t>(), -3);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(l["a"].data_ptr()) % 8, 0u);
}

TEST(SafetensorsRoundTrip, LoadMovesToTheGivenDevice) {
  auto l = ser::load_safetensors(st_test::data_path("state_dict.safetensors"),
                                 ember::Device(ember::kCPU));
  EXPECT_TRUE(l["fc1.weight"].is_cpu());
}

TEST(SafetensorsRoundTrip, AtomicWriteKeepsTheOldFileOnFailure) {
  st_test::ScratchDir dir;
  const std::string path = dir.path("a.safetensors");
  ember::OrderedDict<std::string, Tensor> good;
  good.insert("x", ember::ones({2}));
  ser::save_safetensors(good, path);
  const std::vector<char> before = st_test::read_file(path);

  ember::OrderedDict<std::string, Tensor> bad;
  bad.insert("x", ember::ones({3}));
  bad.insert("undefined", Tensor());
  ember_test::expect_error([&] { ser::save_safetensors(bad, path); },
                           {"save_safetensors", "tensor 'undefined' is undefined"});
  EXPECT_EQ(st_test::read_file(path), before);
  EXPECT_EQ(dir.files(), std::vector<std::string>{"a.safetensors"}) << "no temporary file left";

  ember::OrderedDict<std::string, Tensor> bad_name;
  bad_name.insert("\xff", ember::ones({1}));
  ember_test::expect_error([&] { ser::save_safetensors(bad_name, path); }, {"not valid UTF-8"});
  EXPECT_EQ(dir.files(), std::vector<std::string>{"a.safetensors"});

  ember::OrderedDict<std::string, Tensor> reserved;
  reserved.insert("__metadata__", ember::ones({1}));
  ember_test::expect_error([&] { ser::save_safetensors(reserved, path); }, {"reserved"});

  ember_test::expect_error([&] { ser::save_safetensors(good, dir.path("no/such/dir/x")); },
                           {"no/such/dir"});
  ember_test::expect_error([&] { ser::load_safetensors(dir.path("missing")); }, {"missing"});
}

TEST(SafetensorsRoundTrip, EmptyDictAndMetadataOnly) {
  const ember::OrderedDict<std::string, Tensor> none;
  const std::vector<char> bytes = ser::save_safetensors_to_bytes(none);
  EXPECT_EQ(std::string(bytes.begin() + 8, bytes.end()), "{}      ");
  EXPECT_EQ(ser::load_safetensors_from_bytes(bytes.data(), bytes.size()).size(), 0u);
  const auto with_meta = ser::save_safetensors_to_bytes(none, {{"a", "b"}});
  EXPECT_EQ(std::string(with_meta.begin() + 8, with_meta.end()),
            "{\"__metadata__\":{\"a\":\"b\"}}      ");
}

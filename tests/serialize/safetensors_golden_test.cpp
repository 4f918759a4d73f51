// Safetensors against files written by the reference layout (gen_safetensors_files.py): every
// tensor read exactly, Ember's writer reproducing the same bytes, hostile files refused.
#include <gtest/gtest.h>

#include <cmath>

#include "ember/ember.h"
#include "tests/serialize/safetensors_test_util.h"
#include "tests/support/expect_error.h"

using ember::Tensor;
namespace ser = ember::serialize;

namespace {

const char* st_golden_dtype_name(ember::ScalarType t) {
  switch (t) {
    case ember::kDouble:
      return "F64";
    case ember::kFloat:
      return "F32";
    case ember::kHalf:
      return "F16";
    case ember::kBFloat16:
      return "BF16";
    case ember::kLong:
      return "I64";
    case ember::kInt:
      return "I32";
    case ember::kShort:
      return "I16";
    case ember::kChar:
      return "I8";
    case ember::kByte:
      return "U8";
    case ember::kBool:
      return "BOOL";
    default:
      return "?";
  }
}

// Checks a loaded dict against the .expected description: names in header order, dtype, shape,
// bytes.
void st_golden_check(const ember::OrderedDict<std::string, Tensor>& loaded,
                     const st_test::Expected& want) {
  ASSERT_EQ(loaded.size(), want.tensors.size());
  for (size_t i = 0; i < want.tensors.size(); ++i) {
    const auto& w = want.tensors[i];
    SCOPED_TRACE(w.name);
    EXPECT_EQ(loaded[i].key(), w.name);
    const Tensor& t = loaded[i].value();
    EXPECT_STREQ(st_golden_dtype_name(t.scalar_type()), w.dtype.c_str());
    EXPECT_EQ(t.sizes().vec(), w.shape);
    const std::vector<char> bytes = st_test::tensor_bytes(t);
    EXPECT_EQ(std::string(bytes.begin(), bytes.end()), w.bytes);
  }
}

const char* const kStGoldenFiles[] = {"all_dtypes", "scalar_and_empty", "unicode_names",
                                      "state_dict", "legacy_layout"};

}  // namespace

TEST(SafetensorsGolden, FilesReadExactly) {
  for (const char* name : kStGoldenFiles) {
    SCOPED_TRACE(name);
    const st_test::Expected want = st_test::read_expected(name);
    const std::string path = st_test::data_path(std::string(name) + ".safetensors");
    st_golden_check(ser::load_safetensors(path), want);
    const std::vector<char> bytes = st_test::read_file(path);
    st_golden_check(ser::load_safetensors_from_bytes(bytes.data(), bytes.size()), want);
    EXPECT_EQ(ser::load_safetensors_metadata(path), want.metadata);
    EXPECT_EQ(ser::load_safetensors_metadata_from_bytes(bytes.data(), bytes.size()), want.metadata);
  }
}

TEST(SafetensorsGolden, ValuesMeanWhatPythonMeant) {
  // The bytes match; this checks Ember reads them as the same numbers (dtype and byte order).
  auto t = ser::load_safetensors(st_test::data_path("all_dtypes.safetensors"));
  for (const char* name : {"f64", "f32", "f16", "bf16"}) {
    SCOPED_TRACE(name);
    const Tensor f = t[name].to(ember::kDouble);
    EXPECT_EQ(f[0][0].item<double>(), -2.5);
    EXPECT_TRUE(std::signbit(f[0][1].item<double>()));
    EXPECT_EQ(f[0][1].item<double>(), 0.0);
    EXPECT_FALSE(std::signbit(f[0][2].item<double>()));
    EXPECT_EQ(f[1][0].item<double>(), 1.5);
    EXPECT_EQ(f[1][1].item<double>(), INFINITY);
    EXPECT_EQ(f[1][2].item<double>(), -INFINITY);
    EXPECT_TRUE(std::isnan(f[1][3].item<double>()));
  }
  EXPECT_EQ(t["f64"][0][3].item<double>(), 1.0 / 3);
  EXPECT_EQ(t["i64"][0][0].item<int64_t>(), INT64_MIN);
  EXPECT_EQ(t["i64"][1][2].item<int64_t>(), INT64_MAX);
  EXPECT_EQ(t["i32"][0][0].item<int64_t>(), INT32_MIN);
  EXPECT_EQ(t["i16"][1][2].item<int64_t>(), 32767);
  EXPECT_EQ(t["i8"][0][0].item<int64_t>(), -128);
  EXPECT_EQ(t["u8"][1][2].item<int64_t>(), 255);
  EXPECT_TRUE(t["bool"][0][0].item<bool>());
  EXPECT_FALSE(t["bool"][0][1].item<bool>());
  // Saved from a transposed view: the file holds it row-major.
  EXPECT_TRUE(ember::equal(t["f32_transposed"],
                           ember::arange(6, ember::kFloat).reshape({2, 3}).t().contiguous()));
  auto s = ser::load_safetensors(st_test::data_path("scalar_and_empty.safetensors"));
  EXPECT_EQ(s["scalar_f32"].dim(), 0);
  EXPECT_EQ(s["scalar_f32"].item<float>(), 3.25f);
  EXPECT_EQ(s["scalar_i64"].item<int64_t>(), -7);
  EXPECT_EQ(s["empty_i64_2x0"].sizes().vec(), (std::vector<int64_t>{2, 0}));
  auto l = ser::load_safetensors(st_test::data_path("legacy_layout.safetensors"));
  EXPECT_EQ(l["a"][1].item<int64_t>(), 5);
  EXPECT_EQ(l["b"][0].item<float>(), 1.5f);
}

TEST(SafetensorsGolden, WriterReproducesReferenceBytes) {
  // Tensors inserted in header order (not the writer's order): the writer must sort them itself.
  for (const char* name : {"all_dtypes", "scalar_and_empty", "unicode_names", "state_dict"}) {
    SCOPED_TRACE(name);
    const std::string path = st_test::data_path(std::string(name) + ".safetensors");
    const st_test::Expected want = st_test::read_expected(name);
    ember::OrderedDict<std::string, Tensor> tensors;
    // Reverse insertion order, to show the order given does not matter.
    auto loaded = ser::load_safetensors(path);
    for (size_t i = loaded.size(); i-- > 0;) tensors.insert(loaded[i].key(), loaded[i].value());
    const std::vector<char> reference = st_test::read_file(path);
    EXPECT_EQ(ser::save_safetensors_to_bytes(tensors, want.metadata), reference);
    st_test::ScratchDir dir;
    ser::save_safetensors(tensors, dir.path("out.safetensors"), want.metadata);
    EXPECT_EQ(st_test::read_file(dir.path("out.safetensors")), reference);
  }
}

TEST(SafetensorsGolden, HostileFilesAreErrors) {
  const std::pair<const char*, const char*> cases[] = {
      {"too_short", "too short"},
      {"header_past_end", "runs past the end"},
      {"header_too_large", "larger than"},
      {"header_not_object", "does not start with '{'"},
      {"bad_json", "invalid JSON"},
      {"bad_utf8", "invalid UTF-8"},
      {"duplicate_key", "duplicate key \"x\""},
      {"deep_json", "nested deeper than 64"},
      {"unknown_dtype", "unknown dtype 'F128'"},
      {"unsupported_dtype", "U16 is not supported"},
      {"negative_shape", "not a non-negative"},
      {"huge_shape", "too many elements"},
      {"size_mismatch", "needs 12 bytes"},
      {"offsets_out_of_range", "outside the data buffer"},
      {"offsets_reversed", "outside the data buffer"},
      {"overlap", "overlaps tensor 'x'"},
      {"gap", "belong to no tensor"},
      {"trailing_bytes", "cover 4 bytes of the 8-byte"},
      {"bad_bool", "must be 0 or 1"},
      {"metadata_not_string", "not a string"},
      {"offsets_not_pair", "data_offsets"},
  };
  for (const auto& [name, part] : cases) {
    SCOPED_TRACE(name);
    const std::string file = std::string("hostile_") + name + ".safetensors";
    const std::string path = st_test::data_path(file);
    ember_test::expect_error([&] { ser::load_safetensors(path); }, {part, file});
    const std::vector<char> bytes = st_test::read_file(path);
    ember_test::expect_error([&] { ser::load_safetensors_from_bytes(bytes.data(), bytes.size()); },
                             {part, "safetensors bytes"});
  }
  // Errors name the tensor too.
  ember_test::expect_error(
      [&] { ser::load_safetensors(st_test::data_path("hostile_size_mismatch.safetensors")); },
      {"tensor 'x'", "data_offsets [0, 8] hold 8"});
}

TEST(SafetensorsGolden, EveryTruncationIsAnError) {
  // A file cut anywhere is refused (never read past the end): each prefix of a valid file.
  const std::vector<char> bytes =
      st_test::read_file(st_test::data_path("scalar_and_empty.safetensors"));
  for (size_t n = 0; n < bytes.size(); ++n) {
    SCOPED_TRACE(n);
    EXPECT_THROW(ser::load_safetensors_from_bytes(bytes.data(), n), ember::Error);
  }
}

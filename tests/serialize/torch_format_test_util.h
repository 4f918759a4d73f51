// Shared by the torch.save format tests: the data folder, the manifest gen_torch_files.py writes,
// and byte-level tensor comparison.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "ember/core/ordered_dict.h"
#include "ember/core/tensor.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "ember/ops/reduction.h"
#include "ember/serialize/pickle.h"
#include "ember/serialize/torch_format.h"

namespace torch_format_test {

inline std::string data_path(const std::string& name) {
  return std::string(EMBER_SOURCE_DIR) + "/tests/serialize/data/" + name;
}

inline std::vector<char> read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  EXPECT_TRUE(f.good()) << "cannot open " << path;
  return std::vector<char>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

/// One manifest line: a tensor PyTorch wrote and what Ember must read.
struct ManifestTensor {
  std::string file, key, dtype, sizes, strides, hex;
  int64_t offset = 0, group = 0;
  bool requires_grad = false;
};

inline std::vector<ManifestTensor> manifest(const std::string& file) {
  std::ifstream f(data_path("manifest.txt"));
  EXPECT_TRUE(f.good());
  std::vector<ManifestTensor> out;
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream in(line);
    ManifestTensor t;
    int rg = 0;
    in >> t.file >> t.key >> t.dtype >> t.sizes >> t.strides >> t.offset >> t.group >> rg >> t.hex;
    t.requires_grad = rg != 0;
    if (t.file == file) out.push_back(t);
  }
  return out;
}

inline std::string join_ints(ember::IntArrayRef v) {
  if (v.empty()) return "-";
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}

/// The elements of `t` in row-major order as little-endian bytes, in hex ("-" when empty).
inline std::string tensor_hex(const ember::Tensor& t) {
  if (t.numel() == 0) return "-";
  ember::Tensor c = t.contiguous();
  const auto* p = static_cast<const uint8_t*>(c.data_ptr());
  static const char* kDigits = "0123456789abcdef";
  std::string s;
  for (int64_t i = 0; i < c.numel() * c.element_size(); ++i) {
    s += kDigits[p[i] >> 4];
    s += kDigits[p[i] & 15];
  }
  return s;
}

/// Checks `sd` against the manifest of `file`: keys in order, dtype, sizes, strides, offset,
/// requires_grad, every element's bytes, and storage sharing exactly as PyTorch had it.
inline void expect_matches_manifest(const ember::OrderedDict<std::string, ember::Tensor>& sd,
                                    const std::string& file) {
  const std::vector<ManifestTensor> want = manifest(file);
  ASSERT_FALSE(want.empty()) << file;
  ASSERT_EQ(sd.size(), want.size()) << file;
  std::vector<const void*> group_storage;
  for (size_t i = 0; i < want.size(); ++i) {
    const ManifestTensor& m = want[i];
    SCOPED_TRACE(file + " " + m.key);
    ASSERT_EQ(sd[i].key(), m.key);
    const ember::Tensor& t = sd[i].value();
    EXPECT_EQ(ember::to_string(t.scalar_type()), m.dtype);
    EXPECT_EQ(join_ints(t.sizes()), m.sizes);
    EXPECT_EQ(join_ints(t.strides()), m.strides);
    EXPECT_EQ(t.storage_offset(), m.offset);
    EXPECT_EQ(t.requires_grad(), m.requires_grad);
    EXPECT_EQ(tensor_hex(t), m.hex);
    const void* storage = t.impl()->storage().get();
    if (static_cast<size_t>(m.group) == group_storage.size()) {
      for (const void* s : group_storage) EXPECT_NE(s, storage) << "shares a storage it should not";
      group_storage.push_back(storage);
    } else {
      ASSERT_LT(static_cast<size_t>(m.group), group_storage.size());
      EXPECT_EQ(group_storage[m.group], storage) << "does not share its storage";
    }
  }
}

}  // namespace torch_format_test

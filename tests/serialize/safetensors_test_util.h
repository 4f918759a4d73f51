// Helpers of the safetensors and archive tests: the committed files of data/safetensors/ and
// their .expected descriptions (written by gen_safetensors_files.py), raw tensor bytes, and a
// scratch folder that removes what the test left in it.
#pragma once

#include <dirent.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "ember/core/tempfile.h"
#include "ember/core/tensor.h"

namespace st_test {

inline std::string data_path(const std::string& name) {
  return std::string(EMBER_SOURCE_DIR) + "/tests/serialize/data/safetensors/" + name;
}

inline std::vector<char> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  return std::vector<char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline void write_file(const std::string& path, const std::vector<char>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

/// A tensor's bytes in row-major order (what a safetensors file stores).
inline std::vector<char> tensor_bytes(const ember::Tensor& t) {
  const ember::Tensor c = t.cpu().contiguous();
  const char* p = static_cast<const char*>(c.data_ptr());
  return c.nbytes() ? std::vector<char>(p, p + c.nbytes()) : std::vector<char>();
}

inline std::string unhex(const std::string& hex) {
  std::string out;
  if (hex == "-") return out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2)
    out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  return out;
}

struct ExpectedTensor {
  std::string name, dtype;
  std::vector<int64_t> shape;
  std::string bytes;
};
struct Expected {
  std::map<std::string, std::string> metadata;
  std::vector<ExpectedTensor> tensors;  // header order
};

/// Reads data/safetensors/<name>.expected.
inline Expected read_expected(const std::string& name) {
  Expected e;
  std::ifstream in(data_path(name + ".expected"));
  EXPECT_TRUE(in.good()) << "cannot open " << name << ".expected";
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream s(line);
    std::string kind;
    s >> kind;
    if (kind == "metadata") {
      std::string k, v;
      s >> k >> v;
      e.metadata[unhex(k)] = unhex(v);
    } else if (kind == "tensor") {
      ExpectedTensor t;
      std::string name_hex, data_hex;
      int ndim = 0;
      s >> name_hex >> t.dtype >> ndim;
      for (int i = 0; i < ndim; ++i) {
        int64_t d = 0;
        s >> d;
        t.shape.push_back(d);
      }
      s >> data_hex;
      t.name = unhex(name_hex);
      t.bytes = unhex(data_hex);
      e.tensors.push_back(t);
    }
  }
  return e;
}

/// A temporary folder whose files are removed with it.
struct ScratchDir {
  ember::TempDir dir = ember::make_tempdir("ember-st-test-");
  std::string path(const std::string& file) const { return dir.name + "/" + file; }
  std::vector<std::string> files() const {
    std::vector<std::string> out;
    if (DIR* d = ::opendir(dir.name.c_str())) {
      while (dirent* e = ::readdir(d))
        if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0)
          out.push_back(e->d_name);
      ::closedir(d);
    }
    return out;
  }
  ~ScratchDir() {
    for (const std::string& f : files()) ::unlink(path(f).c_str());
  }
};

}  // namespace st_test

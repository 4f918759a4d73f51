// The Fashion-MNIST reader of BENCHMARKS.md §6, shared by epoch_ember.cpp and epoch_torch.cpp so
// both libraries train on bit-identical inputs: gzip-compressed IDX files read with zlib's gzread,
// headers checked, images turned into normalised floats with plain C++ (no tensor library here).
//
// IDX: a big-endian u32 magic (0x00000803 for u8 images [N, rows, cols], 0x00000801 for u8 labels
// [N]), one big-endian u32 per dim, then the bytes.
#pragma once

#include <zlib.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace idx_gz {

/// Images as float [n, 1, rows, cols] (row-major, normalised) and labels as int64 [n].
struct Split {
  std::vector<float> images;
  std::vector<int64_t> labels;
  int64_t n = 0, rows = 0, cols = 0;
};

namespace detail {

/// Closes the gzFile on every path out of the reader, exceptions included.
struct GzCloser {
  gzFile f;
  ~GzCloser() {
    if (f != nullptr) gzclose(f);
  }
};

inline void read_exact(gzFile f, void* dst, size_t bytes, const std::string& path) {
  auto* out = static_cast<unsigned char*>(dst);
  while (bytes > 0) {
    // gzread takes an unsigned count: read in chunks well below its limit.
    const unsigned chunk = static_cast<unsigned>(bytes < (1u << 30) ? bytes : (1u << 30));
    const int got = gzread(f, out, chunk);
    if (got <= 0) {
      int errnum = 0;
      const char* msg = gzerror(f, &errnum);
      throw std::runtime_error("idx_gz: " + path + ": truncated or unreadable (" +
                               (errnum != 0 && msg != nullptr ? msg : "end of file") + ")");
    }
    out += got;
    bytes -= static_cast<size_t>(got);
  }
}

inline uint32_t read_be32(gzFile f, const std::string& path) {
  unsigned char b[4];
  read_exact(f, b, 4, path);
  return (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) | (uint32_t{b[2]} << 8) | uint32_t{b[3]};
}

/// Reads one IDX file of unsigned bytes with `ndim` dims; returns the dims, fills `bytes`.
inline std::vector<int64_t> read_idx_u8(const std::string& path, uint32_t ndim,
                                        std::vector<unsigned char>& bytes) {
  GzCloser file{gzopen(path.c_str(), "rb")};
  if (file.f == nullptr) throw std::runtime_error("idx_gz: cannot open " + path);
  const uint32_t magic = read_be32(file.f, path);
  const uint32_t expected = 0x0800u | ndim;  // type 0x08 = unsigned byte
  if (magic != expected) {
    throw std::runtime_error("idx_gz: " + path + ": magic " + std::to_string(magic) +
                             ", expected " + std::to_string(expected) + " (u8, " +
                             std::to_string(ndim) + " dims)");
  }
  std::vector<int64_t> dims;
  size_t total = 1;
  for (uint32_t d = 0; d < ndim; ++d) {
    dims.push_back(read_be32(file.f, path));
    total *= static_cast<size_t>(dims.back());
  }
  bytes.resize(total);
  read_exact(file.f, bytes.data(), total, path);
  unsigned char extra;
  if (gzread(file.f, &extra, 1) != 0) {
    throw std::runtime_error("idx_gz: " + path + ": data beyond the sizes in its header");
  }
  return dims;
}

}  // namespace detail

/// Reads `<dir>/<prefix>-images-idx3-ubyte.gz` and `<dir>/<prefix>-labels-idx1-ubyte.gz`
/// (prefix "train" or "t10k"); images become (x / 255 - mean) / std. Throws std::runtime_error
/// naming the file on a missing file, a bad header, a count mismatch or a label outside 0..9.
inline Split load(const std::string& dir, const std::string& prefix, float mean, float std_dev) {
  std::vector<unsigned char> raw_images, raw_labels;
  const auto idims =
      detail::read_idx_u8(dir + "/" + prefix + "-images-idx3-ubyte.gz", 3, raw_images);
  const auto ldims =
      detail::read_idx_u8(dir + "/" + prefix + "-labels-idx1-ubyte.gz", 1, raw_labels);
  if (idims[0] != ldims[0]) {
    throw std::runtime_error("idx_gz: " + prefix + ": " + std::to_string(idims[0]) +
                             " images but " + std::to_string(ldims[0]) + " labels");
  }
  if (idims[1] != 28 || idims[2] != 28) {
    throw std::runtime_error("idx_gz: " + prefix + ": images are " + std::to_string(idims[1]) +
                             "x" + std::to_string(idims[2]) + ", expected 28x28");
  }
  Split s;
  s.n = idims[0];
  s.rows = idims[1];
  s.cols = idims[2];
  s.images.resize(raw_images.size());
  for (size_t i = 0; i < raw_images.size(); ++i) {
    s.images[i] = (static_cast<float>(raw_images[i]) / 255.0f - mean) / std_dev;
  }
  s.labels.resize(raw_labels.size());
  for (size_t i = 0; i < raw_labels.size(); ++i) {
    if (raw_labels[i] > 9) {
      throw std::runtime_error("idx_gz: " + prefix + ": label " + std::to_string(raw_labels[i]) +
                               " at " + std::to_string(i) + ", expected 0..9");
    }
    s.labels[i] = raw_labels[i];
  }
  return s;
}

}  // namespace idx_gz

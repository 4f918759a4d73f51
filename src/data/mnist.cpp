#include "ember/data/datasets/mnist.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "ember/ops/factory.h"
#include "src/core/check.h"
#include "src/core/checked_math.h"

namespace ember::data {

namespace {
// gzread reads plain files too, so one path covers both forms.
struct GzFile {
  gzFile f;
  explicit GzFile(const std::string& path) : f(gzopen(path.c_str(), "rb")) {}
  ~GzFile() {
    if (f) gzclose(f);
  }
};

bool read_exact(gzFile f, void* dst, size_t n) {
  char* p = static_cast<char*>(dst);
  while (n > 0) {
    unsigned chunk = static_cast<unsigned>(std::min<size_t>(n, 1u << 30));
    int got = gzread(f, p, chunk);
    if (got <= 0) return false;
    p += got;
    n -= static_cast<size_t>(got);
  }
  return true;
}

uint32_t big_endian(const unsigned char* b) {
  return (uint32_t(b[0]) << 24) | (uint32_t(b[1]) << 16) | (uint32_t(b[2]) << 8) | uint32_t(b[3]);
}

std::string existing(const std::string& root, const std::string& name) {
  for (const std::string& candidate : {root + "/" + name + ".gz", root + "/" + name}) {
    if (FILE* f = std::fopen(candidate.c_str(), "rb")) {
      std::fclose(f);
      return candidate;
    }
  }
  EMBER_FAIL(
      "MNIST: neither {0}/{1}.gz nor {0}/{1} exists. Hint: for Fashion-MNIST install the "
      "Debian package dataset-fashion-mnist (root /usr/share/datasets/fashion-mnist)",
      root, name);
}
}  // namespace

Tensor read_idx(const std::string& path) {
  GzFile file(path);
  EMBER_CHECK(file.f != nullptr, "read_idx: cannot open '{}'", path);
  unsigned char header[4];
  EMBER_CHECK(read_exact(file.f, header, 4), "read_idx: '{}' is empty or truncated", path);
  EMBER_CHECK(
      header[0] == 0 && header[1] == 0 && header[2] == 0x08,
      "read_idx: '{}' is not an IDX file of unsigned bytes (magic {:02x}{:02x}{:02x}{:02x})", path,
      header[0], header[1], header[2], header[3]);
  int ndim = header[3];
  EMBER_CHECK(ndim >= 1 && ndim <= 4, "read_idx: '{}' has {} dims; expected 1 to 4", path, ndim);
  std::vector<int64_t> sizes(ndim);
  for (int i = 0; i < ndim; ++i) {
    unsigned char b[4];
    EMBER_CHECK(read_exact(file.f, b, 4), "read_idx: '{}' header is truncated", path);
    sizes[i] = big_endian(b);
  }
  const int64_t numel = detail::checked_numel(sizes, "read_idx");
  // The header is the file's word, not a fact: read in bounded chunks and allocate only what
  // arrived, so a hostile header claiming terabytes costs nothing before the data runs out.
  std::vector<uint8_t> data;
  constexpr int64_t kChunk = int64_t{1} << 24;
  while (static_cast<int64_t>(data.size()) < numel) {
    const size_t have = data.size();
    const size_t want = static_cast<size_t>(std::min<int64_t>(kChunk, numel - int64_t(have)));
    data.resize(have + want);
    EMBER_CHECK(read_exact(file.f, data.data() + have, want),
                "read_idx: '{}' is truncated: its header promises {} data bytes for sizes {}, "
                "the file has fewer",
                path, numel, IntArrayRef(sizes));
  }
  unsigned char extra;
  EMBER_CHECK(gzread(file.f, &extra, 1) == 0,
              "read_idx: '{}' has data past the {} bytes its header promises for sizes {}", path,
              numel, IntArrayRef(sizes));
  Tensor out = empty(sizes, TensorOptions().dtype(kByte));
  if (numel > 0) std::memcpy(out.data_ptr<uint8_t>(), data.data(), static_cast<size_t>(numel));
  return out;
}

namespace datasets {

MNIST::MNIST(const std::string& root, Mode mode) : is_train_(mode == Mode::kTrain) {
  const std::string prefix = is_train_ ? "train" : "t10k";
  const std::string images_file = existing(root, prefix + "-images-idx3-ubyte");
  const std::string labels_file = existing(root, prefix + "-labels-idx1-ubyte");
  Tensor images = read_idx(images_file);
  Tensor labels = read_idx(labels_file);
  EMBER_CHECK(images.dim() == 3 && images.size(1) == 28 && images.size(2) == 28,
              "MNIST: the images in '{}' have sizes {}; expected [N, 28, 28]", images_file,
              images.sizes());
  EMBER_CHECK(labels.dim() == 1, "MNIST: the labels in '{}' have sizes {}; expected [N]",
              labels_file, labels.sizes());
  EMBER_CHECK(images.size(0) == labels.size(0),
              "MNIST: '{}' has {} images but '{}' has {} labels; expected one label per image",
              images_file, images.size(0), labels_file, labels.size(0));
  EMBER_CHECK(labels.numel() == 0 || labels.max().item<int64_t>() <= 9,
              "MNIST: the labels in '{}' go up to {}; expected classes 0 to 9", labels_file,
              labels.numel() ? labels.max().item<int64_t>() : 0);
  images_ = images.to(kFloat).div_(255.0).view({images.size(0), 1, images.size(1), images.size(2)});
  targets_ = labels.to(kLong);
}

Example<> MNIST::get(size_t index) {
  const int64_t n = targets_.size(0);
  EMBER_CHECK_INDEX(index < static_cast<size_t>(n),
                    "MNIST::get: index {} is out of range for {} examples", index, n);
  const auto i = static_cast<int64_t>(index);
  return {images_[i], targets_[i]};
}

std::optional<size_t> MNIST::size() const { return static_cast<size_t>(targets_.size(0)); }
bool MNIST::is_train() const noexcept { return is_train_; }
const Tensor& MNIST::images() const { return images_; }
const Tensor& MNIST::targets() const { return targets_; }

}  // namespace datasets
}  // namespace ember::data

// MNIST through the data API: Fashion-MNIST from /usr/share/datasets/fashion-mnist (skipped when
// the Debian package dataset-fashion-mnist is missing), and bad IDX files written to TempFiles:
// each gives an Error naming the file and what is wrong, never a crash or a huge allocation.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "tests/support/expect_error.h"

using namespace ember;
using ember_test::expect_error;
namespace datasets = ember::data::datasets;

namespace {

const char* const kMnistTestFashionRoot = "/usr/share/datasets/fashion-mnist";

bool mnist_test_have_fashion() {
  return std::filesystem::exists(std::string(kMnistTestFashionRoot) +
                                 "/train-images-idx3-ubyte.gz");
}

// Bytes of an IDX file of unsigned bytes: magic 00 00 08 <ndim>, big-endian sizes, `data`.
std::vector<uint8_t> mnist_test_idx(const std::vector<uint32_t>& sizes,
                                    const std::vector<uint8_t>& data, uint8_t type = 0x08) {
  std::vector<uint8_t> out = {0, 0, type, static_cast<uint8_t>(sizes.size())};
  for (uint32_t s : sizes)
    for (int shift : {24, 16, 8, 0}) out.push_back(static_cast<uint8_t>(s >> shift));
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

void mnist_test_write(const std::string& path, const std::vector<uint8_t>& bytes) {
  FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr) << path;
  if (!bytes.empty()) {
    ASSERT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), f), bytes.size());
  }
  std::fclose(f);
}

// A TempDir holding the four MNIST files (removed again at the end of the test).
struct MnistTestDir {
  TempDir dir = make_tempdir("ember-mnist-");
  std::vector<std::string> files;
  std::string put(const std::string& name, const std::vector<uint8_t>& bytes) {
    const std::string path = dir.name + "/" + name;
    mnist_test_write(path, bytes);
    files.push_back(path);
    return path;
  }
  ~MnistTestDir() {
    for (const auto& f : files) ::unlink(f.c_str());
  }
};

TEST(MnistDataset, FashionMnistSizesLabelsAndPixels) {
  if (!mnist_test_have_fashion()) GTEST_SKIP() << "dataset-fashion-mnist is not installed";
  datasets::MNIST train(kMnistTestFashionRoot);
  datasets::MNIST test(kMnistTestFashionRoot, datasets::MNIST::Mode::kTest);
  EXPECT_TRUE(train.is_train());
  EXPECT_FALSE(test.is_train());
  EXPECT_EQ(train.size(), std::optional<size_t>(60000));
  EXPECT_EQ(test.size(), std::optional<size_t>(10000));
  // torchvision.datasets.FashionMNIST: train[0] is an ankle boot (9), test[0] too.
  data::Example<> first = train.get(0);
  EXPECT_EQ(first.target.item<int64_t>(), 9);
  EXPECT_EQ(test.get(0).target.item<int64_t>(), 9);
  EXPECT_EQ(first.data.sizes().vec(), (std::vector<int64_t>{1, 28, 28}));
  EXPECT_EQ(train.images().scalar_type(), kFloat);
  EXPECT_EQ(train.targets().scalar_type(), kLong);
  EXPECT_EQ(train.images().min().item<double>(), 0.0);
  EXPECT_EQ(train.images().max().item<double>(), 1.0);
  for (int64_t c = 0; c < 10; ++c)  // 6000 of each class
    EXPECT_EQ(train.targets().eq(c).sum().item<int64_t>(), 6000) << "class " << c;
  EXPECT_THROW(train.get(60000), IndexError);
}

TEST(MnistDataset, FashionMnistThroughALoader) {
  if (!mnist_test_have_fashion()) GTEST_SKIP() << "dataset-fashion-mnist is not installed";
  auto ds = datasets::MNIST(kMnistTestFashionRoot, datasets::MNIST::Mode::kTest)
                .map(data::transforms::Normalize<>(0.2860, 0.3530))
                .map(data::transforms::Stack<>());
  auto loader = data::make_data_loader(std::move(ds), data::DataLoaderOptions(64).workers(2));
  size_t batches = 0, examples = 0;
  for (auto& batch : *loader) {
    ++batches;
    examples += static_cast<size_t>(batch.data.size(0));
    ASSERT_EQ(batch.data.sizes().vec()[1], 1);
    ASSERT_EQ(batch.target.scalar_type(), kLong);
  }
  EXPECT_EQ(batches, 157u);  // ceil(10000 / 64)
  EXPECT_EQ(examples, 10000u);
}

TEST(MnistDataset, SmallFilesGetAndGetBatch) {
  MnistTestDir d;
  std::vector<uint8_t> pixels(3 * 28 * 28);
  for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<uint8_t>(i % 256);
  d.put("train-images-idx3-ubyte", mnist_test_idx({3, 28, 28}, pixels));
  d.put("train-labels-idx1-ubyte", mnist_test_idx({3}, {4, 0, 7}));
  datasets::MNIST m(d.dir.name);
  EXPECT_EQ(m.size(), std::optional<size_t>(3));
  auto batch = m.get_batch({2, 0});
  ASSERT_EQ(batch.size(), 2u);
  EXPECT_EQ(batch[0].target.item<int64_t>(), 7);
  EXPECT_EQ(batch[1].target.item<int64_t>(), 4);
  // Pixel 5 of image 2 is byte (2 * 784 + 5) % 256, scaled by 1/255.
  EXPECT_FLOAT_EQ(batch[0].data[0][0][5].item<float>(),
                  static_cast<float>((2 * 784 + 5) % 256) / 255.0f);
  expect_error<IndexError>([&] { m.get_batch({1, 3}); }, {"index 3", "3 examples"});
}

TEST(MnistDataset, BadFilesNameTheFileAndTheProblem) {
  const std::vector<uint8_t> image(28 * 28, 7);
  struct Case {
    const char* what;
    std::vector<uint8_t> images, labels;
    std::vector<std::string> parts;  // in the message, besides the file's name
    bool labels_file_named;
  };
  std::vector<uint8_t> two_images(2 * 28 * 28, 1);
  std::vector<uint8_t> truncated = mnist_test_idx({2, 28, 28}, two_images);
  truncated.resize(truncated.size() - 100);
  std::vector<uint8_t> wrong_magic = mnist_test_idx({2, 28, 28}, two_images, 0x0d);
  const std::vector<Case> cases = {
      {"truncated images", truncated, mnist_test_idx({2}, {1, 2}), {"truncated"}, false},
      {"header only",
       mnist_test_idx({2, 28, 28}, {}),
       mnist_test_idx({2}, {1, 2}),
       {"truncated"},
       false},
      {"empty file", {}, mnist_test_idx({2}, {1, 2}), {"empty"}, false},
      {"wrong magic", wrong_magic, mnist_test_idx({2}, {1, 2}), {"not an IDX"}, false},
      {"huge count",
       mnist_test_idx({0x7fffffffu, 28, 28}, image),
       mnist_test_idx({1}, {1}),
       {"truncated"},
       false},
      {"count mismatch",
       mnist_test_idx({2, 28, 28}, two_images),
       mnist_test_idx({3}, {1, 2, 3}),
       {"2 images", "3 labels"},
       true},
      {"not 28x28",
       mnist_test_idx({2, 28, 27}, std::vector<uint8_t>(2 * 28 * 27)),
       mnist_test_idx({2}, {1, 2}),
       {"[2, 28, 27]"},
       false},
      {"labels not 1-d",
       mnist_test_idx({2, 28, 28}, two_images),
       mnist_test_idx({2, 1}, {1, 2}),
       {"[2, 1]"},
       true},
      {"label 10",
       mnist_test_idx({2, 28, 28}, two_images),
       mnist_test_idx({2}, {1, 10}),
       {"up to 10"},
       true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    MnistTestDir d;
    const std::string images = d.put("train-images-idx3-ubyte", c.images);
    const std::string labels = d.put("train-labels-idx1-ubyte", c.labels);
    try {
      datasets::MNIST m(d.dir.name);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find(c.labels_file_named ? labels : images), std::string::npos) << msg;
      for (const auto& p : c.parts)
        EXPECT_NE(msg.find(p), std::string::npos) << p << " in: " << msg;
    }
  }
  MnistTestDir none;
  expect_error<Error>([&] { datasets::MNIST(none.dir.name); },
                      {"train-images-idx3-ubyte", "neither"});
}

TEST(MnistDataset, GzippedFilesAreReadToo) {
  if (!mnist_test_have_fashion()) GTEST_SKIP() << "dataset-fashion-mnist is not installed";
  // The installed files are .gz; read_idx gives the raw bytes behind them.
  Tensor labels = data::read_idx(std::string(kMnistTestFashionRoot) + "/t10k-labels-idx1-ubyte.gz");
  EXPECT_EQ(labels.dtype(), kByte);
  EXPECT_EQ(labels.sizes().vec(), (std::vector<int64_t>{10000}));
}

}  // namespace

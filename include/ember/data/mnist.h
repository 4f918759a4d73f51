// The MNIST family of data sets (MNIST, Fashion-MNIST) from IDX files, gzipped or not, as
// LibTorch's torch::data::datasets::MNIST: images as float [N, 1, 28, 28] scaled to [0, 1],
// labels as int64 [N].
//
//   ember::data::datasets::MNIST train("/usr/share/datasets/fashion-mnist");
//   ember::Tensor x = train.images(), y = train.targets();
#pragma once

#include <string>

#include "ember/core/tensor.h"

namespace ember::data {

/// Reads an IDX file (`.gz` read through zlib): uint8 tensor with the file's dims.
/// Throws ember::Error naming the file when it is missing, truncated or not IDX.
EMBER_API Tensor read_idx(const std::string& path);

namespace datasets {

class EMBER_API MNIST {
 public:
  enum class Mode { kTrain, kTest };
  /// Loads `root`/{train,t10k}-{images-idx3,labels-idx1}-ubyte[.gz].
  explicit MNIST(const std::string& root, Mode mode = Mode::kTrain);

  /// Images [N, 1, 28, 28] float32 in [0, 1].
  const Tensor& images() const { return images_; }
  /// Labels [N] int64.
  const Tensor& targets() const { return targets_; }
  int64_t size() const { return targets_.size(0); }
  bool is_train() const { return is_train_; }

 private:
  Tensor images_, targets_;
  bool is_train_;
};

}  // namespace datasets
}  // namespace ember::data

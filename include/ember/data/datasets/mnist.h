// torch::data::datasets::MNIST: the MNIST family (MNIST, Fashion-MNIST) from IDX files, gzipped or
// not: images float32 [N, 1, 28, 28] scaled to [0, 1], targets int64 [N].
//
//   ember::data::datasets::MNIST train("/usr/share/datasets/fashion-mnist");
//   auto loader = ember::data::make_data_loader(
//       train.map(ember::data::transforms::Stack<>()), 64);
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "ember/core/macros.h"
#include "ember/core/tensor.h"
#include "ember/data/datasets/base.h"
#include "ember/data/example.h"

namespace ember::data {

/// Reads an IDX file (`.gz` read through zlib): uint8 tensor with the file's dims.
/// Throws ember::Error naming the file when it is missing, truncated or not IDX.
EMBER_API Tensor read_idx(const std::string& path);

namespace datasets {

/// The train or test split of an MNIST-format data set in `root`.
class EMBER_API MNIST : public Dataset<MNIST> {
 public:
  enum class Mode { kTrain, kTest };

  /// Loads `root`/{train,t10k}-{images-idx3,labels-idx1}-ubyte[.gz]. Error naming the file when
  /// one is missing or malformed, or when the images and labels do not match.
  explicit MNIST(const std::string& root, Mode mode = Mode::kTrain);

  /// {image [1, 28, 28], label []} of example `index`: views into images() and targets(), so a
  /// batch copies no pixel until Stack<> (or a transform) makes its own tensor.
  Example<> get(size_t index) override;
  /// The number of examples.
  std::optional<size_t> size() const override;
  /// Whether this is the train split.
  bool is_train() const noexcept;
  /// Images [N, 1, 28, 28] float32 in [0, 1].
  const Tensor& images() const;
  /// Labels [N] int64.
  const Tensor& targets() const;

 private:
  Tensor images_, targets_;
  bool is_train_;
};

}  // namespace datasets
}  // namespace ember::data

// What the trainer leaves in --out besides the checkpoint: metrics.csv (one row per epoch) and
// curves.svg (loss and accuracy against the epoch, a file any browser opens). Both are rewritten
// whole after every epoch, through a temporary file and a rename, so a reader never sees half.
#pragma once

#include <string>
#include <vector>

namespace trainer {

struct EpochMetrics {
  int epoch = 0;  // 1-based
  double train_loss = 0, test_loss = 0, test_accuracy = 0, lr = 0, seconds = 0;
};

/// metrics.csv: a header line, then one line per epoch.
void write_metrics_csv(const std::string& path, const std::vector<EpochMetrics>& rows);
/// curves.svg: train and test loss (left), test accuracy in % (right).
void write_curves_svg(const std::string& path, const std::vector<EpochMetrics>& rows);
/// Reads back what write_metrics_csv wrote (for --resume); an empty list if the file is absent.
std::vector<EpochMetrics> read_metrics_csv(const std::string& path);

}  // namespace trainer

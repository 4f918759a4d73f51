// Anomaly detection: while a DetectAnomalyGuard lives, backward checks every node's results and
// names the forward op whose backward produced NaN.
#pragma once

#include "ember/core/macros.h"

namespace ember::autograd {

struct EMBER_API AnomalyMode {
  static bool is_enabled();
  static void set_enabled(bool enabled);
};

class EMBER_API DetectAnomalyGuard {
 public:
  DetectAnomalyGuard();
  ~DetectAnomalyGuard();
  DetectAnomalyGuard(const DetectAnomalyGuard&) = delete;
  DetectAnomalyGuard& operator=(const DetectAnomalyGuard&) = delete;

 private:
  bool prev_;
};

}  // namespace ember::autograd

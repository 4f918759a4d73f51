// Python's LambdaLR and MultiplicativeLR: the schedule is a user function of the epoch, one for
// every param group or one per group.
//   ember::optim::LambdaLR sched(opt, [](int64_t epoch) { return 0.95 * epoch; });
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "ember/optim/schedulers/lr_scheduler.h"

namespace ember::optim {

/// The function a lambda scheduler calls with the epoch.
using LRLambda = std::function<double(int64_t epoch)>;

/// lr = base_lr * lr_lambda(epoch).
class EMBER_API LambdaLR : public LRScheduler {
 public:
  /// One function for every group.
  LambdaLR(Optimizer& optimizer, LRLambda lr_lambda);
  /// One function per group; Error when the count differs from the number of groups.
  LambdaLR(Optimizer& optimizer, std::vector<LRLambda> lr_lambdas);

 protected:
  std::vector<double> get_lrs() override;

 private:
  std::vector<LRLambda> lr_lambdas_;
};

/// lr = previous lr * lr_lambda(epoch), for epoch > 0.
class EMBER_API MultiplicativeLR : public LRScheduler {
 public:
  MultiplicativeLR(Optimizer& optimizer, LRLambda lr_lambda);
  MultiplicativeLR(Optimizer& optimizer, std::vector<LRLambda> lr_lambdas);

 protected:
  std::vector<double> get_lrs() override;

 private:
  std::vector<LRLambda> lr_lambdas_;
};

}  // namespace ember::optim

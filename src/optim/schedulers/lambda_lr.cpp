#include "ember/optim/schedulers/lambda_lr.h"

#include "src/core/check.h"

namespace ember::optim {

namespace {
// One function per group: `fns` as given, checked against the group count.
std::vector<LRLambda> lambda_lr_per_group(const Optimizer& optimizer, std::vector<LRLambda> fns,
                                          const char* scheduler) {
  const size_t groups = optimizer.param_groups().size();
  EMBER_CHECK_VALUE(fns.size() == groups, "{}: Expected {} lr_lambdas, but got {}", scheduler,
                    groups, fns.size());
  for (size_t i = 0; i < fns.size(); ++i) {
    EMBER_CHECK_VALUE(static_cast<bool>(fns[i]), "{}: lr_lambda {} is empty", scheduler, i);
  }
  return fns;
}
std::vector<LRLambda> lambda_lr_broadcast(const Optimizer& optimizer, const LRLambda& fn) {
  return std::vector<LRLambda>(optimizer.param_groups().size(), fn);
}
}  // namespace

LambdaLR::LambdaLR(Optimizer& optimizer, LRLambda lr_lambda)
    : LambdaLR(optimizer, lambda_lr_broadcast(optimizer, lr_lambda)) {}

LambdaLR::LambdaLR(Optimizer& optimizer, std::vector<LRLambda> lr_lambdas)
    : LRScheduler(optimizer),
      lr_lambdas_(lambda_lr_per_group(optimizer, std::move(lr_lambdas), "LambdaLR")) {
  initial_step();
}

std::vector<double> LambdaLR::get_lrs() {
  std::vector<double> lrs(base_lrs_.size());
  for (size_t i = 0; i < lrs.size(); ++i) lrs[i] = base_lrs_[i] * lr_lambdas_[i](last_epoch_);
  return lrs;
}

MultiplicativeLR::MultiplicativeLR(Optimizer& optimizer, LRLambda lr_lambda)
    : MultiplicativeLR(optimizer, lambda_lr_broadcast(optimizer, lr_lambda)) {}

MultiplicativeLR::MultiplicativeLR(Optimizer& optimizer, std::vector<LRLambda> lr_lambdas)
    : LRScheduler(optimizer),
      lr_lambdas_(lambda_lr_per_group(optimizer, std::move(lr_lambdas), "MultiplicativeLR")) {
  initial_step();
}

std::vector<double> MultiplicativeLR::get_lrs() {
  std::vector<double> lrs = get_current_lrs();
  if (last_epoch_ > 0) {
    for (size_t i = 0; i < lrs.size(); ++i) lrs[i] *= lr_lambdas_[i](last_epoch_);
  }
  return lrs;
}

}  // namespace ember::optim

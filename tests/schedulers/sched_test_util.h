// Shared by the scheduler tests: optimizers over one tiny parameter per param group, and the
// learning rates / momenta of their groups.
#pragma once

#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "ember/ember.h"

namespace sched_test {

/// SGD (momentum 0.9) or Adam ("adam") with one param group per lr, each with its own options.
inline std::unique_ptr<ember::optim::Optimizer> make_optimizer(const std::vector<double>& lrs,
                                                               const std::string& kind = "sgd") {
  using namespace ember::optim;
  std::vector<OptimizerParamGroup> groups;
  for (double lr : lrs) {
    std::vector<ember::Tensor> params{ember::zeros({1}).requires_grad_(true)};
    if (kind == "adam") {
      groups.emplace_back(params, std::make_unique<AdamOptions>(AdamOptions(lr)));
    } else {
      groups.emplace_back(params, std::make_unique<SGDOptions>(SGDOptions(lr).momentum(0.9)));
    }
  }
  if (kind == "adam") return std::make_unique<Adam>(groups, AdamOptions(lrs.at(0)));
  return std::make_unique<SGD>(groups, SGDOptions(lrs.at(0)).momentum(0.9));
}

/// The lr of every group.
inline std::vector<double> group_lrs(const ember::optim::Optimizer& opt) {
  std::vector<double> out;
  for (const auto& g : opt.param_groups()) out.push_back(g.options().get_lr());
  return out;
}

/// SGD's momentum or Adam's beta1 of every group.
inline std::vector<double> group_momenta(const ember::optim::Optimizer& opt) {
  using namespace ember::optim;
  std::vector<double> out;
  for (const auto& g : opt.param_groups()) {
    if (auto* sgd = dynamic_cast<const SGDOptions*>(&g.options())) {
      out.push_back(sgd->momentum());
    } else {
      out.push_back(std::get<0>(dynamic_cast<const AdamOptions&>(g.options()).betas()));
    }
  }
  return out;
}

}  // namespace sched_test

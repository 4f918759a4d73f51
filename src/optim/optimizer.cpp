#include "ember/optim/optimizer.h"

#include <unordered_set>

#include "ember/autograd/grad_mode.h"
#include "src/core/check.h"

namespace ember::optim {

std::unique_ptr<OptimizerParamState> OptimizerParamState::clone() const {
  return std::make_unique<OptimizerParamState>(*this);
}

std::unique_ptr<OptimizerOptions> OptimizerOptions::clone() const {
  return std::make_unique<OptimizerOptions>(*this);
}

double OptimizerOptions::get_lr() const {
  EMBER_FAIL(
      "OptimizerOptions::get_lr: not overridden by this options class. Hint: override get_lr() "
      "and set_lr() in your subclass of ember::optim::OptimizerOptions");
}

void OptimizerOptions::set_lr(const double) {
  EMBER_FAIL(
      "OptimizerOptions::set_lr: not overridden by this options class. Hint: override get_lr() "
      "and set_lr() in your subclass of ember::optim::OptimizerOptions");
}

OptimizerParamGroup::OptimizerParamGroup(const OptimizerParamGroup& other)
    : params_(other.params_), options_(other.has_options() ? other.options_->clone() : nullptr) {}

OptimizerParamGroup& OptimizerParamGroup::operator=(const OptimizerParamGroup& other) {
  if (this != &other) {
    params_ = other.params_;
    options_ = other.has_options() ? other.options_->clone() : nullptr;
  }
  return *this;
}

OptimizerOptions& OptimizerParamGroup::options() {
  EMBER_CHECK(options_ != nullptr,
              "OptimizerParamGroup::options: this group has no options. Hint: check "
              "has_options(), or add the group to an optimizer, which gives it the defaults");
  return *options_;
}

const OptimizerOptions& OptimizerParamGroup::options() const {
  return const_cast<OptimizerParamGroup*>(this)->options();
}

Optimizer::Optimizer(std::vector<OptimizerParamGroup> param_groups,
                     std::unique_ptr<OptimizerOptions> defaults)
    : defaults_(std::move(defaults)) {
  EMBER_CHECK(defaults_ != nullptr, "Optimizer: the default options are null");
  for (const auto& group : param_groups) add_param_group(group);
}

Optimizer::Optimizer(std::vector<Tensor> parameters, std::unique_ptr<OptimizerOptions> defaults)
    : Optimizer(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(parameters))},
                std::move(defaults)) {}

void Optimizer::add_param_group(const OptimizerParamGroup& param_group) {
  // Parameters already owned by some group; a parameter in two groups (or twice in one) would be
  // stepped twice per step() and share one state entry.
  std::unordered_set<const TensorImpl*> seen;
  for (const auto& group : param_groups_)
    for (const auto& p : group.params()) seen.insert(p.unsafeGetTensorImpl());
  for (size_t i = 0; i < param_group.params().size(); ++i) {
    const Tensor& p = param_group.params()[i];
    EMBER_CHECK(p.defined(),
                "Optimizer::add_param_group: parameter {} is an undefined tensor. Hint: pass "
                "initialised parameters",
                i);
    EMBER_CHECK(p.is_leaf(),
                "Optimizer::add_param_group: can't optimize a non-leaf Tensor: parameter {} ({} "
                "{}) was computed by an op. Hint: optimize the leaf it came from, or pass "
                ".detach().requires_grad_()",
                i, p.dtype(), p.sizes());
    EMBER_CHECK_VALUE(seen.insert(p.unsafeGetTensorImpl()).second,
                      "Optimizer::add_param_group: some parameters appear in more than one "
                      "parameter group: parameter {} ({} {}) is already optimized. Hint: list "
                      "each parameter once",
                      i, p.dtype(), p.sizes());
  }
  OptimizerParamGroup group(param_group.params());
  group.set_options(param_group.has_options() ? param_group.options().clone() : defaults_->clone());
  param_groups_.push_back(std::move(group));
}

void Optimizer::add_parameters(const std::vector<Tensor>& parameters) {
  if (param_groups_.empty()) {
    add_param_group(OptimizerParamGroup(parameters));
    return;
  }
  // Checked as a group of its own, then moved into the first group.
  OptimizerParamGroup probe(parameters);
  add_param_group(probe);
  auto& first = param_groups_.front().params();
  first.insert(first.end(), parameters.begin(), parameters.end());
  param_groups_.pop_back();
}

void Optimizer::zero_grad(bool set_to_none) {
  NoGradGuard no_grad;
  for (auto& group : param_groups_) {
    for (auto& p : group.params()) {
      if (!p.grad().defined()) continue;
      Tensor& grad = p.mutable_grad();
      if (set_to_none) {
        grad.reset();
      } else {
        // A gradient made with create_graph has history; cut it so zeroing it records nothing.
        grad.detach_();
        grad.zero_();
      }
    }
  }
}

const std::vector<Tensor>& Optimizer::parameters() const {
  EMBER_CHECK(!param_groups_.empty(),
              "Optimizer::parameters: the optimizer has no param groups. Hint: add one with "
              "add_param_group()");
  return param_groups_.front().params();
}

std::vector<Tensor>& Optimizer::parameters() {
  return const_cast<std::vector<Tensor>&>(static_cast<const Optimizer*>(this)->parameters());
}

size_t Optimizer::size() const noexcept {
  size_t count = 0;
  for (const auto& group : param_groups_) count += group.params().size();
  return count;
}

}  // namespace ember::optim

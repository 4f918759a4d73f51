// The optimizer base classes, as LibTorch's torch/optim/optimizer.h: parameters live in param
// groups, each with its own options (a clone of the optimizer's defaults unless given), and
// per-parameter state (momentum buffers, moment estimates) is keyed by the parameter's TensorImpl.
//   ember::optim::SGD opt(params, ember::optim::SGDOptions(0.1).momentum(0.9));
//   for (...) { opt.zero_grad(); loss_fn().backward(); opt.step(); }
//   opt.param_groups()[0].options().set_lr(0.01);            // a schedule changes lr like this
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "ember/core/macros.h"
#include "ember/core/tensor.h"

namespace ember::serialize {
class OutputArchive;
class InputArchive;
}  // namespace ember::serialize

namespace ember::optim {

/// Per-parameter state of an optimizer (subclassed by each optimizer: SGDParamState, ...).
class EMBER_API OptimizerParamState {
 public:
  /// A deep-enough copy for copying param groups and state.
  virtual std::unique_ptr<OptimizerParamState> clone() const;
  virtual ~OptimizerParamState() = default;
  /// Writes the state's counters and tensors into `archive` (Optimizer::save); each optimizer's
  /// state overrides both, the base throws.
  virtual void serialize(ember::serialize::OutputArchive& archive) const;
  /// Reads what serialize(OutputArchive&) wrote; Error naming the key when one is missing or of
  /// the wrong kind.
  virtual void serialize(ember::serialize::InputArchive& archive);
};

/// CRTP helper that implements clone() by copying the derived state.
template <typename Derived>
class OptimizerCloneableParamState : public OptimizerParamState {
 public:
  std::unique_ptr<OptimizerParamState> clone() const override {
    return std::make_unique<Derived>(static_cast<const Derived&>(*this));
  }
};

/// Hyper-parameters of an optimizer or of one param group (subclassed: SGDOptions, ...).
class EMBER_API OptimizerOptions {
 public:
  virtual std::unique_ptr<OptimizerOptions> clone() const;
  virtual ~OptimizerOptions() = default;
  /// The learning rate; subclasses override both (the base throws, as LibTorch's).
  virtual double get_lr() const;
  virtual void set_lr(const double lr);
  /// Writes every option under its name into `archive` (Optimizer::save); each optimizer's
  /// options override both, the base throws.
  virtual void serialize(ember::serialize::OutputArchive& archive) const;
  /// Reads what serialize(OutputArchive&) wrote; Error naming the key when one is missing or of
  /// the wrong kind.
  virtual void serialize(ember::serialize::InputArchive& archive);
};

/// CRTP helper that implements clone() by copying the derived options.
template <typename Derived>
class OptimizerCloneableOptions : public OptimizerOptions {
 public:
  std::unique_ptr<OptimizerOptions> clone() const override {
    return std::make_unique<Derived>(static_cast<const Derived&>(*this));
  }
};

/// A list of parameters and (optionally) the options that apply to them. Copying clones the
/// options, so every group owns its own.
class EMBER_API OptimizerParamGroup {
 public:
  OptimizerParamGroup(std::vector<Tensor> params) : params_(std::move(params)) {}
  OptimizerParamGroup(std::vector<Tensor> params, std::unique_ptr<OptimizerOptions> options)
      : params_(std::move(params)), options_(std::move(options)) {}
  OptimizerParamGroup(const OptimizerParamGroup& other);
  OptimizerParamGroup(OptimizerParamGroup&& other) noexcept = default;
  OptimizerParamGroup& operator=(const OptimizerParamGroup& other);
  OptimizerParamGroup& operator=(OptimizerParamGroup&& other) noexcept = default;

  bool has_options() const { return options_ != nullptr; }
  /// The group's options; Error when it has none (a group inside an optimizer always has).
  OptimizerOptions& options();
  const OptimizerOptions& options() const;
  void set_options(std::unique_ptr<OptimizerOptions> options) { options_ = std::move(options); }
  std::vector<Tensor>& params() { return params_; }
  const std::vector<Tensor>& params() const { return params_; }

 protected:
  std::vector<Tensor> params_;
  std::unique_ptr<OptimizerOptions> options_;
};

/// Base of every optimizer. Subclasses implement step().
class EMBER_API Optimizer {
 public:
  /// Per-parameter state, keyed by the parameter's TensorImpl (LibTorch keys by a string of the
  /// same address). Parameters are held by the param groups, so a key never dangles.
  using StateMap = std::unordered_map<const TensorImpl*, std::unique_ptr<OptimizerParamState>>;
  /// A closure that recomputes the loss (zero_grad, forward, backward) and returns it.
  using LossClosure = std::function<Tensor()>;

  /// Copying is deleted, as in LibTorch: copy param groups and state explicitly if needed.
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;
  Optimizer(Optimizer&&) = default;
  Optimizer& operator=(Optimizer&&) = default;

  /// Adds each group (groups without options get a clone of `defaults`).
  explicit Optimizer(std::vector<OptimizerParamGroup> param_groups,
                     std::unique_ptr<OptimizerOptions> defaults);
  /// One group holding `parameters`, with the default options.
  explicit Optimizer(std::vector<Tensor> parameters, std::unique_ptr<OptimizerOptions> defaults);
  virtual ~Optimizer() = default;

  /// Appends a group. Error when a parameter is undefined, not a leaf, or already optimized
  /// (in this or another group), as Python's add_param_group.
  void add_param_group(const OptimizerParamGroup& param_group);
  /// Appends parameters to the first group (LibTorch's deprecated add_parameters).
  void add_parameters(const std::vector<Tensor>& parameters);

  /// One optimization step. With a closure, calls it first with grad mode on and returns its
  /// loss; otherwise returns an undefined tensor.
  virtual Tensor step(LossClosure closure = nullptr) = 0;

  /// Clears every parameter's gradient: resets it to undefined (set_to_none, the default, as
  /// LibTorch 2 and Python), or detaches it from any graph and fills it with zeros.
  void zero_grad(bool set_to_none = true);

  /// The parameters of the first group (Error when there is no group).
  const std::vector<Tensor>& parameters() const;
  std::vector<Tensor>& parameters();
  /// The number of parameters over all groups.
  size_t size() const noexcept;

  OptimizerOptions& defaults() noexcept { return *defaults_; }
  const OptimizerOptions& defaults() const noexcept { return *defaults_; }
  std::vector<OptimizerParamGroup>& param_groups() noexcept { return param_groups_; }
  const std::vector<OptimizerParamGroup>& param_groups() const noexcept { return param_groups_; }
  StateMap& state() noexcept { return state_; }
  const StateMap& state() const noexcept { return state_; }

  /// Writes the param groups' options and the per-parameter state into `archive` (LibTorch's
  /// Optimizer::save; ember::save(optimizer, path) calls it). Layout: "param_groups" holds one
  /// archive per group ("0", "1", ...) with its "options" and "param_count"; "state" holds one
  /// archive per parameter with state, keyed by the parameter's index over all groups' params
  /// in order. State tensors are written as copies, so later steps do not change the archive.
  virtual void save(serialize::OutputArchive& archive) const;
  /// Restores what save() wrote into an optimizer of the same kind over the same parameters
  /// (same groups, counts and shapes). Everything is read and checked first and only then
  /// swapped in: on Error (naming the key and what was expected) the optimizer is untouched.
  virtual void load(serialize::InputArchive& archive);

 protected:
  /// A fresh, empty state of this optimizer's kind, for load() to read into (the base throws:
  /// an optimizer that keeps state overrides it).
  virtual std::unique_ptr<OptimizerParamState> make_param_state() const;
  /// Error unless the state archive `state` fits `param` (`where` names it in the message). The
  /// base requires every tensor (and every tensor of a list) in it to have the parameter's shape.
  virtual void check_state_archive(serialize::InputArchive& state, const Tensor& param,
                                   const std::string& where) const;

  std::vector<OptimizerParamGroup> param_groups_;
  StateMap state_;
  std::unique_ptr<OptimizerOptions> defaults_;
};

}  // namespace ember::optim

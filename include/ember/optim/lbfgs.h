// L-BFGS (limited-memory BFGS, after minFunc), LibTorch's torch::optim::LBFGS with Python's
// torch.optim.LBFGS algorithm: each step(closure) runs up to max_iter quasi-Newton iterations on
// the parameters flattened into one vector, with a fixed step length (lr, the first iteration
// scaled by min(1, 1 / |g|_1)) or a strong-Wolfe line search. One param group only.
//   ember::optim::LBFGS opt(params, ember::optim::LBFGSOptions(1).line_search_fn("strong_wolfe"));
//   opt.step([&] { opt.zero_grad(); auto loss = f(params); loss.backward(); return loss; });
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "ember/core/arg.h"
#include "ember/optim/optimizer.h"

namespace ember::optim {

/// LBFGS's options (LibTorch's LBFGSOptions): LBFGSOptions(1).max_iter(20).history_size(10).
struct EMBER_API LBFGSOptions : public OptimizerCloneableOptions<LBFGSOptions> {
  LBFGSOptions(double lr = 1);  // NOLINT: implicit, as LibTorch's
  EMBER_ARG(double, lr) = 1;
  EMBER_ARG(int64_t, max_iter) = 20;
  /// The most closure calls per step; unset: max_iter * 5 / 4 (filled in by the constructor).
  EMBER_ARG(std::optional<int64_t>, max_eval) = std::nullopt;
  EMBER_ARG(double, tolerance_grad) = 1e-7;
  EMBER_ARG(double, tolerance_change) = 1e-9;
  EMBER_ARG(int64_t, history_size) = 100;
  /// "strong_wolfe", or unset for fixed steps of length lr.
  EMBER_ARG(std::optional<std::string>, line_search_fn) = std::nullopt;

 public:
  double get_lr() const override { return lr(); }
  void set_lr(const double value) override { lr(value); }
  /// Writes / reads every option under its name (unset optionals are not written).
  void serialize(ember::serialize::OutputArchive& archive) const override;
  void serialize(ember::serialize::InputArchive& archive) override;
};
/// Equal when every option is equal.
EMBER_API bool operator==(const LBFGSOptions& lhs, const LBFGSOptions& rhs);

/// LBFGS's state (LibTorch's LBFGSParamState), kept for the whole optimizer under its first
/// parameter, as Python and LibTorch do: the evaluation and iteration counts, the last step
/// length t and loss, the last direction d, the initial inverse-Hessian scale H_diag, the last
/// flat gradient, and the history of gradient differences (old_dirs), steps (old_stps) and
/// 1 / (y . s) (ro); al is the two-loop recursion's scratch space.
struct EMBER_API LBFGSParamState : public OptimizerCloneableParamState<LBFGSParamState> {
  EMBER_ARG(int64_t, func_evals) = 0;
  EMBER_ARG(int64_t, n_iter) = 0;
  EMBER_ARG(double, t) = 0;
  EMBER_ARG(double, prev_loss) = 0;
  EMBER_ARG(Tensor, d) = {};
  EMBER_ARG(Tensor, H_diag) = {};
  EMBER_ARG(Tensor, prev_flat_grad) = {};
  EMBER_ARG(std::deque<Tensor>, old_dirs);
  EMBER_ARG(std::deque<Tensor>, old_stps);
  EMBER_ARG(std::deque<Tensor>, ro);
  EMBER_ARG(std::optional<std::vector<Tensor>>, al) = std::nullopt;

 public:
  /// Writes / reads every field (undefined tensors and an unset al are not written).
  void serialize(ember::serialize::OutputArchive& archive) const override;
  void serialize(ember::serialize::InputArchive& archive) override;
};
/// Equal when every field is equal (tensors: undefined in both or equal in both).
EMBER_API bool operator==(const LBFGSParamState& lhs, const LBFGSParamState& rhs);

/// The L-BFGS optimizer. Error when constructed with more than one param group, and at step()
/// when a group was added later or no closure is given.
class EMBER_API LBFGS : public Optimizer {
 public:
  explicit LBFGS(std::vector<OptimizerParamGroup> param_groups, LBFGSOptions defaults = {});
  explicit LBFGS(std::vector<Tensor> params, LBFGSOptions defaults = {});

  /// Runs up to max_iter iterations (max_eval closure calls) and returns the closure's loss at
  /// the start of the step. `closure` must zero the gradients, compute the loss, call backward
  /// and return the loss; it is called with grad mode on. Parameters without a gradient count
  /// as zero gradient.
  Tensor step(LossClosure closure) override;

 protected:
  std::unique_ptr<OptimizerParamState> make_param_state() const override;
  /// The state's flat tensors must have as many elements as all parameters together.
  void check_state_archive(ember::serialize::InputArchive& state, const Tensor& param,
                           const std::string& where) const override;

 private:
  int64_t numel() const;
  Tensor gather_flat_grad() const;
  void add_grad(double step_size, const Tensor& update);
  std::vector<Tensor> clone_params() const;
  void set_params(const std::vector<Tensor>& values);
  std::tuple<double, Tensor> directional_evaluate(const LossClosure& closure,
                                                  const std::vector<Tensor>& x, double t,
                                                  const Tensor& d);
};

}  // namespace ember::optim

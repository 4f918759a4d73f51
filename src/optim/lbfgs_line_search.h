// The strong-Wolfe line search of LBFGS (src/optim/lbfgs.cpp), as Python's
// torch.optim.lbfgs._strong_wolfe: bracket a step length satisfying the strong Wolfe conditions,
// then zoom in with cubic interpolation. Private to the library.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "ember/core/tensor.h"

namespace ember::optim::detail {

/// The minimiser of the cubic interpolating (x1, f1, g1) and (x2, f2, g2), clamped to `bounds`
/// (default: [min(x1, x2), max(x1, x2)]); the bounds' midpoint when the cubic has no minimum.
double lbfgs_cubic_interpolate(double x1, double f1, double g1, double x2, double f2, double g2,
                               std::optional<std::pair<double, double>> bounds = std::nullopt);

/// What the line search found: the loss and flat gradient at the accepted step length t, and
/// how many times it evaluated the objective.
struct LbfgsLineSearchResult {
  double loss;
  Tensor flat_grad;
  double t;
  int64_t func_evals;
};

/// f(x + t d) and its flat gradient, leaving the parameters at x.
using LbfgsDirectionalEval = std::function<std::tuple<double, Tensor>(const std::vector<Tensor>& x,
                                                                      double t, const Tensor& d)>;

/// The strong-Wolfe search from x along d, starting at step length t, where the loss is f, the
/// flat gradient g and the directional derivative gtd = g . d.
LbfgsLineSearchResult lbfgs_strong_wolfe(const LbfgsDirectionalEval& obj_func,
                                         const std::vector<Tensor>& x, double t, const Tensor& d,
                                         double f, const Tensor& g, double gtd, double c1 = 1e-4,
                                         double c2 = 0.9, double tolerance_change = 1e-9,
                                         int64_t max_ls = 25);

}  // namespace ember::optim::detail

// Python's torch.optim.lbfgs._cubic_interpolate and _strong_wolfe, step for step (the same
// comparisons in the same order, so the same step lengths are taken).
#include "src/optim/lbfgs_line_search.h"

#include <algorithm>
#include <cmath>

namespace ember::optim::detail {

double lbfgs_cubic_interpolate(double x1, double f1, double g1, double x2, double f2, double g2,
                               std::optional<std::pair<double, double>> bounds) {
  const auto [xmin_bound, xmax_bound] =
      bounds ? *bounds : (x1 <= x2 ? std::make_pair(x1, x2) : std::make_pair(x2, x1));
  // The most common case: the cubic through both points and slopes has a minimum in between.
  const double d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2);
  const double d2_square = d1 * d1 - g1 * g2;
  if (d2_square >= 0) {
    const double d2 = std::sqrt(d2_square);
    const double min_pos = x1 <= x2 ? x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
                                    : x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2));
    return std::min(std::max(min_pos, xmin_bound), xmax_bound);
  }
  return (xmin_bound + xmax_bound) / 2.;
}

LbfgsLineSearchResult lbfgs_strong_wolfe(const LbfgsDirectionalEval& obj_func,
                                         const std::vector<Tensor>& x, double t, const Tensor& d,
                                         double f, const Tensor& g, double gtd, double c1,
                                         double c2, double tolerance_change, int64_t max_ls) {
  const double d_norm = d.abs().max().item<double>();
  auto [f_new, g_new] = obj_func(x, t, d);
  int64_t ls_func_evals = 1;
  double gtd_new = g_new.dot(d).item<double>();

  // Bracketing phase: find an interval that contains a point satisfying the conditions.
  double t_prev = 0, f_prev = f, gtd_prev = gtd;
  Tensor g_prev = g.clone();
  bool done = false;
  int64_t ls_iter = 0;
  std::vector<double> bracket, bracket_f, bracket_gtd;
  std::vector<Tensor> bracket_g;
  while (ls_iter < max_ls) {
    // Armijo condition fails, or the loss stopped decreasing: the minimum is behind us.
    if (f_new > (f + c1 * t * gtd) || (ls_iter > 1 && f_new >= f_prev)) {
      bracket = {t_prev, t};
      bracket_f = {f_prev, f_new};
      bracket_g = {g_prev, g_new.clone()};
      bracket_gtd = {gtd_prev, gtd_new};
      break;
    }
    if (std::abs(gtd_new) <= -c2 * gtd) {  // strong Wolfe holds at t
      bracket = {t};
      bracket_f = {f_new};
      bracket_g = {g_new};
      done = true;
      break;
    }
    if (gtd_new >= 0) {  // the slope turned: a minimum lies between t_prev and t
      bracket = {t_prev, t};
      bracket_f = {f_prev, f_new};
      bracket_g = {g_prev, g_new.clone()};
      bracket_gtd = {gtd_prev, gtd_new};
      break;
    }
    // Extrapolate.
    const double min_step = t + 0.01 * (t - t_prev);
    const double max_step = t * 10;
    const double tmp = t;
    t = lbfgs_cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new,
                                std::make_pair(min_step, max_step));
    t_prev = tmp;
    f_prev = f_new;
    g_prev = g_new.clone();
    gtd_prev = gtd_new;
    std::tie(f_new, g_new) = obj_func(x, t, d);
    ls_func_evals += 1;
    gtd_new = g_new.dot(d).item<double>();
    ls_iter += 1;
  }
  if (ls_iter == max_ls) {  // out of evaluations: the bracket is [0, t]
    bracket = {0, t};
    bracket_f = {f, f_new};
    bracket_g = {g, g_new};
  }

  // Zoom phase: shrink the bracket until a point satisfies the conditions.
  bool insuf_progress = false;
  size_t low_pos = 0, high_pos = 1;
  if (!(bracket_f.front() <= bracket_f.back())) std::swap(low_pos, high_pos);
  while (!done && ls_iter < max_ls) {
    if (std::abs(bracket[1] - bracket[0]) * d_norm < tolerance_change) break;  // too small
    t = lbfgs_cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1],
                                bracket_gtd[1]);
    // A trial point at (or too near) the bracket's edge twice running makes no progress: move
    // it 10% of the bracket inside.
    const double hi = std::max(bracket[0], bracket[1]);
    const double lo = std::min(bracket[0], bracket[1]);
    const double eps = 0.1 * (hi - lo);
    if (std::min(hi - t, t - lo) < eps) {
      if (insuf_progress || t >= hi || t <= lo) {
        t = std::abs(t - hi) < std::abs(t - lo) ? hi - eps : lo + eps;
        insuf_progress = false;
      } else {
        insuf_progress = true;
      }
    } else {
      insuf_progress = false;
    }
    std::tie(f_new, g_new) = obj_func(x, t, d);
    ls_func_evals += 1;
    gtd_new = g_new.dot(d).item<double>();
    ls_iter += 1;

    if (f_new > (f + c1 * t * gtd) || f_new >= bracket_f[low_pos]) {
      // Armijo fails or no lower than the lowest point: t becomes the high end.
      bracket[high_pos] = t;
      bracket_f[high_pos] = f_new;
      bracket_g[high_pos] = g_new.clone();
      bracket_gtd[high_pos] = gtd_new;
      low_pos = bracket_f[0] <= bracket_f[1] ? 0 : 1;
      high_pos = 1 - low_pos;
    } else {
      if (std::abs(gtd_new) <= -c2 * gtd) {
        done = true;  // the Wolfe conditions hold
      } else if (gtd_new * (bracket[high_pos] - bracket[low_pos]) >= 0) {
        // The old high end becomes the new low end.
        bracket[high_pos] = bracket[low_pos];
        bracket_f[high_pos] = bracket_f[low_pos];
        bracket_g[high_pos] = bracket_g[low_pos];
        bracket_gtd[high_pos] = bracket_gtd[low_pos];
      }
      // The new point becomes the low end.
      bracket[low_pos] = t;
      bracket_f[low_pos] = f_new;
      bracket_g[low_pos] = g_new.clone();
      bracket_gtd[low_pos] = gtd_new;
    }
  }
  return {bracket_f[low_pos], bracket_g[low_pos], bracket[low_pos], ls_func_evals};
}

}  // namespace ember::optim::detail

#include "ember/autograd/gradcheck.h"

#include <cmath>
#include <vector>

#include "ember/autograd/autograd.h"
#include "ember/autograd/grad_mode.h"
#include "ember/ops/factory.h"
#include "src/core/check.h"

namespace ember::autograd {

namespace {
// Element k (row-major order) of `t`, addressed through its strides.
double* element(const Tensor& t, int64_t k) {
  int64_t offset = 0;
  for (int64_t d = t.dim() - 1; d >= 0; --d) {
    int64_t size = t.size(d);
    offset += (k % size) * t.stride(d);
    k /= size;
  }
  return t.data_ptr<double>() + offset;
}

std::vector<int64_t> unravel(IntArrayRef sizes, int64_t k) {
  std::vector<int64_t> idx(sizes.size());
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    idx[d] = k % sizes[d];
    k /= sizes[d];
  }
  return idx;
}

// Outputs as dense float64 host tensors (undefined outputs stay undefined).
variable_list evaluate(const GradcheckFn& fn, const variable_list& inputs) {
  variable_list outs = fn(inputs);
  for (Tensor& o : outs)
    if (o.defined()) o = o.detach().to(kDouble).contiguous().clone();
  return outs;
}

bool fail(const GradcheckOptions& opt, const std::string& msg) {
  if (opt.raise_exception) EMBER_CHECK(false, "{}", msg);
  return false;
}
}  // namespace

bool gradcheck(const GradcheckFn& fn, const variable_list& inputs, const GradcheckOptions& opt) {
  std::vector<size_t> diff_inputs;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& in = inputs[i];
    if (!in.defined() || !in.requires_grad()) continue;
    EMBER_CHECK_TYPE(in.dtype() == kDouble && in.is_cpu(),
                     "gradcheck: input {} must be a float64 CPU tensor (got {} on {}). Hint: "
                     "finite differences in lower precision are too noisy to check",
                     i, in.dtype(), in.device());
    diff_inputs.push_back(i);
  }
  EMBER_CHECK(!diff_inputs.empty(), "gradcheck: no input requires grad");

  variable_list outputs = fn(inputs);
  variable_list diff_tensors;
  for (size_t i : diff_inputs) diff_tensors.push_back(inputs[i]);

  for (size_t o = 0; o < outputs.size(); ++o) {
    const Tensor& out = outputs[o];
    if (!out.defined() || !out.is_floating_point()) continue;
    const int64_t n_out = out.numel();
    // Analytical Jacobian, one backward per output element: jac[input][out_elem][in_elem].
    std::vector<std::vector<double>> analytical(diff_inputs.size());
    for (size_t j = 0; j < diff_inputs.size(); ++j)
      analytical[j].assign(static_cast<size_t>(n_out * inputs[diff_inputs[j]].numel()), 0.0);
    if (out.requires_grad()) {
      for (int64_t r = 0; r < n_out; ++r) {
        Tensor onehot = zeros(out.sizes(), out.options());
        {
          NoGradGuard g;
          onehot.view({-1})[r].fill_(1);
        }
        variable_list grads = grad({out}, diff_tensors, {onehot}, /*retain_graph=*/true,
                                   /*create_graph=*/false, /*allow_unused=*/true);
        for (size_t j = 0; j < grads.size(); ++j) {
          if (!grads[j].defined()) continue;
          const Tensor& in = inputs[diff_inputs[j]];
          if (grads[j].sizes() != in.sizes())
            return fail(opt, fmt::format("gradcheck: the gradient of input {} has shape {} but the "
                                         "input has shape {}",
                                         diff_inputs[j], grads[j].sizes(), in.sizes()));
          Tensor g = grads[j].to(kDouble).contiguous();
          const double* p = g.data_ptr<double>();
          for (int64_t c = 0; c < in.numel(); ++c)
            analytical[j][static_cast<size_t>(r * in.numel() + c)] = p[c];
        }
      }
    }
    // Numerical Jacobian by central differences, perturbing each input element in place.
    for (size_t j = 0; j < diff_inputs.size(); ++j) {
      const Tensor& in = inputs[diff_inputs[j]];
      double worst = -1, worst_a = 0, worst_n = 0;
      int64_t worst_r = 0, worst_c = 0;
      for (int64_t c = 0; c < in.numel(); ++c) {
        double* x = element(in, c);
        const double orig = *x;
        *x = orig + opt.eps;
        Tensor plus = evaluate(fn, inputs)[o];
        *x = orig - opt.eps;
        Tensor minus = evaluate(fn, inputs)[o];
        *x = orig;
        const double* pp = plus.data_ptr<double>();
        const double* pm = minus.data_ptr<double>();
        for (int64_t r = 0; r < n_out; ++r) {
          double num = (pp[r] - pm[r]) / (2 * opt.eps);
          double ana = analytical[j][static_cast<size_t>(r * in.numel() + c)];
          double err = std::abs(ana - num) - (opt.atol + opt.rtol * std::abs(num));
          bool bad = err > 0 || std::isnan(ana) != std::isnan(num);
          if (bad && (err > worst || std::isnan(err))) {
            worst = std::isnan(err) ? INFINITY : err;
            worst_a = ana;
            worst_n = num;
            worst_r = r;
            worst_c = c;
          }
        }
      }
      if (worst >= 0) {
        return fail(
            opt, fmt::format("gradcheck: Jacobian mismatch for output {} with respect to input {}: "
                             "worst at output element {} / input element {}: numerical {} vs "
                             "analytical {} (atol {}, rtol {})",
                             o, diff_inputs[j], fmt::join(unravel(out.sizes(), worst_r), ","),
                             fmt::join(unravel(in.sizes(), worst_c), ","), worst_n, worst_a,
                             opt.atol, opt.rtol));
      }
    }
  }
  return true;
}

bool gradgradcheck(const GradcheckFn& fn, const variable_list& inputs,
                   const variable_list& grad_outputs, const GradcheckOptions& opt) {
  variable_list outputs = fn(inputs);
  variable_list gos = grad_outputs;
  if (gos.empty()) {
    for (const Tensor& o : outputs) {
      if (!o.defined() || !o.requires_grad()) {
        gos.emplace_back();
        continue;
      }
      gos.push_back(randn(o.sizes(), o.options().dtype(kDouble)).requires_grad_(true));
    }
  }
  size_t n_in = inputs.size();
  GradcheckFn first_derivative = [&](const variable_list& all) {
    variable_list ins(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(n_in));
    variable_list outs = fn(ins), used_outs, used_gos;
    for (size_t i = 0; i < outs.size(); ++i)
      if (outs[i].defined() && outs[i].requires_grad()) {
        used_outs.push_back(outs[i]);
        used_gos.push_back(all[n_in + i]);
      }
    variable_list diff;
    for (const Tensor& t : ins)
      if (t.defined() && t.requires_grad()) diff.push_back(t);
    if (used_outs.empty()) return variable_list{};
    variable_list g = grad(used_outs, diff, used_gos, /*retain_graph=*/true,
                           /*create_graph=*/true, /*allow_unused=*/true);
    for (size_t i = 0; i < g.size(); ++i)
      if (!g[i].defined()) g[i] = zeros_like(diff[i]);
    return g;
  };
  variable_list all = inputs;
  for (const Tensor& g : gos) all.push_back(g.defined() ? g : Tensor());
  return gradcheck(first_derivative, all, opt);
}

}  // namespace ember::autograd

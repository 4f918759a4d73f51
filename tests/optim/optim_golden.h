// The golden-trajectory check every optimizer test shares: each case of tests/golden/optim.golden
// (layout: tests/golden/gen/optim.py) whose op is `kind` is replayed through Opt, group g's options
// built by options_of from sargs [width * g, width * (g + 1)), and every parameter is compared
// with PyTorch's after every step.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "tests/support/golden.h"

namespace ember_optim_test {

/// float32 rtol: each step is the same in-place ops as PyTorch 1.13's single-tensor loop, so
/// trajectories agree to a few ulp (scalar arguments rounded once more or less); a wrong update
/// rule is off by 1e-3 or more.
constexpr double kFloatRtol = 2e-6;
constexpr double kDoubleRtol = 1e-14;

/// Replays every case of `kind`; returns how many ran. SGD passes tighter tolerances (its
/// trajectories are bit-identical to PyTorch's here).
template <class Opt, class Options>
int check_trajectories(const std::string& kind, size_t width,
                       const std::function<Options(const double*)>& options_of,
                       double float_rtol = kFloatRtol, double double_rtol = kDoubleRtol) {
  using namespace ember;
  using namespace ember::optim;
  int checked = 0;
  for (const GoldenCase& c : load_golden("optim")) {
    if (c.op() != kind) continue;
    SCOPED_TRACE(c.location + " " + c.name + ": " + c.call);
    const auto nparam = static_cast<size_t>(c.ints.at(0));
    const auto nsteps = static_cast<size_t>(c.ints.at(1));
    const std::vector<int64_t>& group_of = c.int_lists.at(0);
    const size_t ngroups = c.scalars.size() / width;
    EXPECT_EQ(c.args.size(), nparam * (nsteps + 1));
    EXPECT_EQ(c.outs.size(), nparam * nsteps);
    std::vector<Tensor> params;
    for (size_t i = 0; i < nparam; ++i) params.push_back(c.args[i].clone().requires_grad_());
    std::vector<OptimizerParamGroup> groups;
    for (size_t g = 0; g < ngroups; ++g) {
      std::vector<Tensor> members;
      for (size_t i = 0; i < nparam; ++i)
        if (static_cast<size_t>(group_of[i]) == g) members.push_back(params[i]);
      groups.emplace_back(members,
                          std::make_unique<Options>(options_of(c.scalars.data() + width * g)));
    }
    Opt opt(groups, options_of(c.scalars.data()));
    EXPECT_EQ(opt.param_groups().size(), ngroups);
    const bool dbl = c.args[0].dtype() == kDouble;
    for (size_t k = 0; k < nsteps; ++k) {
      for (size_t i = 0; i < nparam; ++i)
        params[i].mutable_grad() = c.args[nparam + k * nparam + i].clone();
      opt.step();
      for (size_t i = 0; i < nparam; ++i)
        expect_close(params[i].detach(), c.outs[k * nparam + i], dbl ? double_rtol : float_rtol,
                     dbl ? 1e-16 : 1e-8,
                     "step " + std::to_string(k) + " param " + std::to_string(i));
    }
    ++checked;
  }
  return checked;
}

}  // namespace ember_optim_test

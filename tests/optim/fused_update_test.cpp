// The fused optimizer updates (kernels/cpu/optim_*.cpp, reached from src/optim/*.cpp through
// src/optim/update_common.h) against the op chain they replace: for every optimizer and option
// combination, two optimizers over equal parameters and gradients, one stepping through the fused
// kernels and one through the op chain (the test switch off), must hold bit-identical parameters
// and state after every step, in float32, float64 and the 16-bit types; with many small
// parameters (one multi-tensor call), empty and 0-dim ones, a large one split over threads, and
// groups that mix fused and op-chain parameters.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "ember/ember.h"
#include "src/optim/update_common.h"

namespace {

using ember::kBFloat16;
using ember::kDouble;
using ember::kFloat;
using ember::kHalf;
using ember::ScalarType;
using ember::Tensor;
namespace eo = ember::optim;

// Turns the fused path off for a scope (the op chain is the reference), back on after.
class FusedOffScope {
 public:
  FusedOffScope() { eo::detail::set_fused_updates_enabled(false); }
  ~FusedOffScope() { eo::detail::set_fused_updates_enabled(true); }
  FusedOffScope(const FusedOffScope&) = delete;
  FusedOffScope& operator=(const FusedOffScope&) = delete;
};

// Same dtype, shape and bytes (so -0.0 against 0.0 or two NaN payloads count as different).
::testing::AssertionResult fused_bits_equal(const Tensor& a, const Tensor& b) {
  if (a.defined() != b.defined()) return ::testing::AssertionFailure() << "one is undefined";
  if (!a.defined()) return ::testing::AssertionSuccess();
  if (a.dtype() != b.dtype() || a.sizes() != b.sizes())
    return ::testing::AssertionFailure() << "dtype/shape differ: " << a.dtype() << " " << a.sizes()
                                         << " vs " << b.dtype() << " " << b.sizes();
  const Tensor ca = a.contiguous(), cb = b.contiguous();
  if (ca.nbytes() != 0 && std::memcmp(ca.data_ptr(), cb.data_ptr(), ca.nbytes()) != 0) {
    const Tensor diff = (ca.to(kDouble) - cb.to(kDouble)).abs().max();
    return ::testing::AssertionFailure()
           << "bits differ (max |diff| " << diff.item<double>() << ")";
  }
  return ::testing::AssertionSuccess();
}

// The optimizer's state (every field of every optimizer is saved) as the bytes of its archive:
// equal bytes, equal state, bit for bit.
std::string fused_state_bytes(eo::Optimizer& opt) {
  ember::serialize::OutputArchive archive;
  opt.save(archive);
  std::ostringstream stream;
  archive.save_to(stream);
  return stream.str();
}

struct FusedCase {
  std::vector<std::vector<int64_t>> shapes;
  ScalarType dtype = kFloat;
  int steps = 4;
  // Parameter indices whose gradient is given non-contiguous (those take the op chain in the
  // fused run too, next to fused ones in the same group).
  std::vector<size_t> strided_grads;
  // Split the parameters over two groups, the second with `second` options.
  bool two_groups = false;
};

// Runs `opt_of` twice over the same parameters and gradients, fused and op chain, and compares
// every parameter after every step and the state at the end. Returns how many parameter updates
// the fused kernels made.
template <class Opt, class Options>
int64_t expect_fused_equals_op_chain(const FusedCase& c, const Options& first,
                                     const Options& second, const std::string& label) {
  SCOPED_TRACE(label + " dtype " + std::string(ember::toString(c.dtype)));
  ember::manual_seed(1234);
  const size_t n = c.shapes.size();
  std::vector<Tensor> init;
  for (const auto& s : c.shapes) init.push_back(ember::randn(s, kDouble).to(c.dtype));
  std::vector<std::vector<Tensor>> grads(static_cast<size_t>(c.steps));
  for (auto& step : grads)
    for (const auto& s : c.shapes) step.push_back(ember::randn(s, kDouble).to(c.dtype));

  auto make_params = [&] {
    std::vector<Tensor> ps;
    for (const Tensor& t : init) ps.push_back(t.clone().requires_grad_());
    return ps;
  };
  std::vector<Tensor> pf = make_params(), pr = make_params();
  auto make_opt = [&](const std::vector<Tensor>& ps) {
    std::vector<eo::OptimizerParamGroup> groups;
    if (c.two_groups) {
      std::vector<Tensor> a(ps.begin(), ps.begin() + static_cast<std::ptrdiff_t>(n / 2));
      std::vector<Tensor> b(ps.begin() + static_cast<std::ptrdiff_t>(n / 2), ps.end());
      groups.emplace_back(a, std::make_unique<Options>(first));
      groups.emplace_back(b, std::make_unique<Options>(second));
    } else {
      groups.emplace_back(ps, std::make_unique<Options>(first));
    }
    return std::make_unique<Opt>(groups, first);
  };
  auto of = make_opt(pf), orf = make_opt(pr);
  auto set_grads = [&](std::vector<Tensor>& ps, int k) {
    for (size_t i = 0; i < n; ++i) {
      const Tensor& g = grads[static_cast<size_t>(k)][i];
      bool strided = false;
      for (size_t j : c.strided_grads) strided = strided || j == i;
      if (strided) {
        // The same values, every other element of a buffer twice as long.
        Tensor wide = ember::zeros({g.numel() * 2}, ember::TensorOptions().dtype(c.dtype));
        Tensor view = wide.slice(0, 0, g.numel() * 2, 2);
        view.copy_(g.reshape({-1}));
        ps[i].mutable_grad() = view.view(g.sizes());
        if (g.numel() > 1) {
          EXPECT_FALSE(ps[i].grad().is_contiguous());
        }
      } else {
        ps[i].mutable_grad() = g.clone();
      }
    }
  };
  const int64_t before = eo::detail::fused_update_count();
  int64_t fused_updates = 0;
  for (int k = 0; k < c.steps; ++k) {
    set_grads(pf, k);
    set_grads(pr, k);
    const int64_t at = eo::detail::fused_update_count();
    of->step();
    fused_updates += eo::detail::fused_update_count() - at;
    {
      FusedOffScope off;
      const int64_t at_ref = eo::detail::fused_update_count();
      orf->step();
      EXPECT_EQ(eo::detail::fused_update_count(), at_ref) << "the op chain ran a fused kernel";
    }
    for (size_t i = 0; i < n; ++i)
      EXPECT_TRUE(fused_bits_equal(pf[i].detach(), pr[i].detach()))
          << "step " << k << " param " << i << " shape " << pf[i].sizes();
  }
  const std::string state_fused = fused_state_bytes(*of);
  EXPECT_FALSE(state_fused.empty());
  EXPECT_TRUE(state_fused == fused_state_bytes(*orf)) << "the optimizer states differ";
  EXPECT_EQ(eo::detail::fused_update_count() - before, fused_updates);
  return fused_updates;
}

// Shapes: a matrix, a vector, a 0-dim, an empty one and a few odd lengths (vector tails).
const std::vector<std::vector<int64_t>> kFusedShapes = {{7, 5}, {13}, {}, {0}, {3, 0}, {33}, {1}};

// Many small parameters: the multi-tensor case.
std::vector<std::vector<int64_t>> fused_many_small() {
  std::vector<std::vector<int64_t>> s;
  for (int64_t i = 0; i < 64; ++i) s.push_back({1 + i % 9});
  return s;
}

const ScalarType kFusedDtypes[] = {kFloat, kDouble, kBFloat16, kHalf};

// Every dtype; the plain case, many small parameters, a mixed group and two groups.
template <class Opt, class Options>
void fused_check_all(const Options& o, const Options& second, const std::string& label) {
  for (ScalarType dt : kFusedDtypes) {
    FusedCase plain;
    plain.shapes = kFusedShapes;
    plain.dtype = dt;
    // Every parameter, empty ones included, is one fused update per step.
    EXPECT_EQ(expect_fused_equals_op_chain<Opt>(plain, o, o, label + " plain"),
              static_cast<int64_t>(plain.shapes.size()) * plain.steps);

    FusedCase many;
    many.shapes = fused_many_small();
    many.dtype = dt;
    many.steps = 3;
    EXPECT_EQ(expect_fused_equals_op_chain<Opt>(many, o, o, label + " many small"),
              static_cast<int64_t>(many.shapes.size()) * many.steps);

    FusedCase mixed;
    mixed.shapes = kFusedShapes;
    mixed.dtype = dt;
    mixed.strided_grads = {0, 5};
    mixed.two_groups = true;
    EXPECT_EQ(expect_fused_equals_op_chain<Opt>(mixed, o, second, label + " mixed, two groups"),
              static_cast<int64_t>(mixed.shapes.size() - 2) * mixed.steps);
  }
}

}  // namespace

TEST(FusedUpdate, SgdMatchesOpChain) {
  using eo::SGDOptions;
  const SGDOptions other = SGDOptions(0.05).momentum(0.5).weight_decay(0.1);
  fused_check_all<eo::SGD>(SGDOptions(0.1), other, "plain");
  fused_check_all<eo::SGD>(SGDOptions(0.1).momentum(0.9), other, "momentum");
  fused_check_all<eo::SGD>(SGDOptions(0.1).momentum(0.9).dampening(0.3).weight_decay(0.01), other,
                           "dampening, weight_decay");
  fused_check_all<eo::SGD>(SGDOptions(0.1).momentum(0.9).nesterov(true), other, "nesterov");
  fused_check_all<eo::SGD>(SGDOptions(0.1).momentum(0.5).weight_decay(1.0).maximize(true), other,
                           "maximize, weight_decay 1");
  fused_check_all<eo::SGD>(SGDOptions(1.0).momentum(1.0).dampening(0.0), other, "lr 1, momentum 1");
}

TEST(FusedUpdate, AdamAndAdamWMatchOpChain) {
  using eo::AdamOptions;
  using eo::AdamWOptions;
  const AdamOptions other = AdamOptions(2e-3).betas(std::make_tuple(0.8, 0.99)).weight_decay(0.1);
  fused_check_all<eo::Adam>(AdamOptions(1e-2), other, "Adam");
  fused_check_all<eo::Adam>(AdamOptions(1e-2).amsgrad(true), other, "Adam amsgrad");
  fused_check_all<eo::Adam>(AdamOptions(1e-2).weight_decay(0.1).maximize(true), other,
                            "Adam weight_decay maximize");
  fused_check_all<eo::Adam>(
      AdamOptions(1e-1).betas(std::make_tuple(0.5, 0.6)).eps(1e-3).amsgrad(true).weight_decay(1),
      other, "Adam betas eps amsgrad weight_decay 1");
  const AdamWOptions otherw = AdamWOptions(2e-3).weight_decay(0.5);
  fused_check_all<eo::AdamW>(AdamWOptions(1e-2), otherw, "AdamW");
  fused_check_all<eo::AdamW>(AdamWOptions(1e-2).weight_decay(0.1).amsgrad(true), otherw,
                             "AdamW amsgrad");
  fused_check_all<eo::AdamW>(AdamWOptions(1e-2).maximize(true).weight_decay(0), otherw,
                             "AdamW maximize no decay");
}

TEST(FusedUpdate, AdagradMatchesOpChain) {
  using eo::AdagradOptions;
  const AdagradOptions other = AdagradOptions(0.05).lr_decay(0.2);
  fused_check_all<eo::Adagrad>(AdagradOptions(0.1), other, "plain");
  fused_check_all<eo::Adagrad>(AdagradOptions(0.1).lr_decay(0.1).weight_decay(0.1), other,
                               "lr_decay weight_decay");
  fused_check_all<eo::Adagrad>(
      AdagradOptions(0.1).maximize(true).initial_accumulator_value(0.5).eps(1e-3), other,
      "maximize initial_accumulator_value eps");
}

TEST(FusedUpdate, RmspropMatchesOpChain) {
  using eo::RMSpropOptions;
  const RMSpropOptions other = RMSpropOptions(0.02).centered(true);
  fused_check_all<eo::RMSprop>(RMSpropOptions(0.01), other, "plain");
  fused_check_all<eo::RMSprop>(RMSpropOptions(0.01).centered(true), other, "centered");
  fused_check_all<eo::RMSprop>(RMSpropOptions(0.01).momentum(0.9), other, "momentum");
  fused_check_all<eo::RMSprop>(
      RMSpropOptions(0.01).centered(true).momentum(0.5).weight_decay(0.1).maximize(true).alpha(0.9),
      other, "centered momentum weight_decay maximize alpha");
}

TEST(FusedUpdate, AdamaxAdadeltaMatchOpChain) {
  using eo::AdadeltaOptions;
  using eo::AdamaxOptions;
  const AdamaxOptions other = AdamaxOptions(1e-3).weight_decay(0.2);
  fused_check_all<eo::Adamax>(AdamaxOptions(2e-2), other, "Adamax");
  fused_check_all<eo::Adamax>(
      AdamaxOptions(2e-2).weight_decay(0.1).maximize(true).betas(std::make_tuple(0.7, 0.8)), other,
      "Adamax weight_decay maximize betas");
  const AdadeltaOptions otherd = AdadeltaOptions(0.5).rho(0.5);
  fused_check_all<eo::Adadelta>(AdadeltaOptions(1.0), otherd, "Adadelta");
  fused_check_all<eo::Adadelta>(
      AdadeltaOptions(0.5).weight_decay(0.1).maximize(true).rho(0.8).eps(1e-4), otherd,
      "Adadelta weight_decay maximize rho eps");
}

TEST(FusedUpdate, NadamRadamMatchOpChain) {
  using eo::NAdamOptions;
  using eo::RAdamOptions;
  const NAdamOptions other = NAdamOptions(1e-3).momentum_decay(0.1);
  fused_check_all<eo::NAdam>(NAdamOptions(2e-2), other, "NAdam");
  fused_check_all<eo::NAdam>(NAdamOptions(2e-2).weight_decay(0.1).momentum_decay(0.01), other,
                             "NAdam weight_decay momentum_decay");
  // beta2 0.5: rho_t passes 5 at the second step, so both branches run.
  const RAdamOptions otherr = RAdamOptions(1e-3).betas(std::make_tuple(0.9, 0.5));
  fused_check_all<eo::RAdam>(RAdamOptions(1e-2).betas(std::make_tuple(0.9, 0.5)), otherr,
                             "RAdam rectified");
  fused_check_all<eo::RAdam>(RAdamOptions(1e-2).weight_decay(0.1), otherr,
                             "RAdam weight_decay (unrectified)");
}

// A parameter large enough for the kernel to split over two threads, next to small ones: the
// chunks end inside parameters, and the result must not depend on where.
TEST(FusedUpdate, LargeParameterSplitOverThreadsMatches) {
  const int saved = ember::get_num_threads();
  ember::set_num_threads(2);
  for (ScalarType dt : {kFloat, kDouble, kBFloat16}) {
    FusedCase c;
    c.shapes = {{5}, {300, 131}, {17}, {40000}, {3}};
    c.dtype = dt;
    c.steps = 2;
    expect_fused_equals_op_chain<eo::Adam>(c, eo::AdamOptions(1e-2).amsgrad(true),
                                           eo::AdamOptions(1e-2), "Adam large");
    expect_fused_equals_op_chain<eo::SGD>(c, eo::SGDOptions(0.1).momentum(0.9), eo::SGDOptions(0.1),
                                          "SGD large");
  }
  ember::set_num_threads(saved);
}

// Parameters the kernel cannot take stay with the op chain: a non-contiguous parameter, a
// gradient of another dtype, and a group mixing dtypes (the first dtype's parameters are fused).
TEST(FusedUpdate, IneligibleParametersTakeTheOpChain) {
  ember::manual_seed(3);
  const Tensor s0 = ember::randn({6, 4}), p0 = ember::randn({5}), d0 = ember::randn({5}, kDouble);
  const Tensor gs = ember::randn({4, 6}), gp = ember::randn({5}), gd = ember::randn({5}, kDouble);
  auto run = [&](bool fused) {
    eo::detail::set_fused_updates_enabled(fused);
    Tensor strided = s0.clone().t().requires_grad_();  // column-major
    Tensor plain = p0.clone().requires_grad_();
    Tensor dbl = d0.clone().requires_grad_();
    eo::Adam opt({strided, plain, dbl}, eo::AdamOptions(1e-2));
    for (int k = 0; k < 3; ++k) {
      strided.mutable_grad() = gs.clone();
      plain.mutable_grad() = gp.clone();
      dbl.mutable_grad() = gd.clone();
      opt.step();
    }
    eo::detail::set_fused_updates_enabled(true);
    return std::vector<Tensor>{strided.detach(), plain.detach(), dbl.detach()};
  };
  const int64_t before = eo::detail::fused_update_count();
  const std::vector<Tensor> fused = run(true);
  EXPECT_EQ(eo::detail::fused_update_count() - before, 3);  // `plain`, 3 steps
  const std::vector<Tensor> chain = run(false);
  EXPECT_EQ(eo::detail::fused_update_count() - before, 3);
  for (size_t i = 0; i < fused.size(); ++i) EXPECT_TRUE(fused_bits_equal(fused[i], chain[i])) << i;
  EXPECT_FALSE(fused[0].is_contiguous());
}

// Parameters sharing memory (views of one flat buffer, as some frameworks keep them) are updated
// by one kernel call at once, split over threads: only the first of them is fused, the others
// take the op chain, and the results equal the op chain's.
TEST(FusedUpdate, ParametersSharingStorageAreNotFusedTogether) {
  ember::manual_seed(4);
  const Tensor flat0 = ember::randn({10}), g0 = ember::randn({5}), g1 = ember::randn({5});
  auto run = [&](bool fused) {
    eo::detail::set_fused_updates_enabled(fused);
    const Tensor flat = flat0.clone();
    Tensor a = flat.narrow(0, 0, 5).detach().requires_grad_();
    Tensor b = flat.narrow(0, 5, 5).detach().requires_grad_();
    eo::SGD opt({a, b}, eo::SGDOptions(0.1).momentum(0.9));
    for (int k = 0; k < 3; ++k) {
      a.mutable_grad() = g0.clone();
      b.mutable_grad() = g1.clone();
      opt.step();
    }
    eo::detail::set_fused_updates_enabled(true);
    return flat;
  };
  const int64_t before = eo::detail::fused_update_count();
  const Tensor fused = run(true);
  EXPECT_EQ(eo::detail::fused_update_count() - before, 3);  // `a` only, 3 steps
  const Tensor chain = run(false);
  EXPECT_TRUE(fused_bits_equal(fused, chain));
}

// The fused path bumps the version of the parameter and of each state tensor it writes (once per
// step), and records nothing for autograd.
TEST(FusedUpdate, BumpsVersionsAndRecordsNoGraph) {
  ember::manual_seed(5);
  Tensor p = ember::randn({8}).requires_grad_();
  eo::Adam opt({p}, eo::AdamOptions(1e-2));
  p.mutable_grad() = ember::randn({8});
  const uint32_t v0 = p._version();
  const int64_t before = eo::detail::fused_update_count();
  opt.step();
  EXPECT_EQ(eo::detail::fused_update_count() - before, 1);
  EXPECT_GT(p._version(), v0);
  EXPECT_TRUE(p.is_leaf());
  EXPECT_FALSE(p.grad_fn());
  EXPECT_TRUE(p.requires_grad());
  // A tensor saved for backward before the step sees the change.
  const auto& state =
      static_cast<const eo::AdamParamState&>(*opt.state().at(p.unsafeGetTensorImpl()));
  EXPECT_EQ(state.exp_avg()._version(), 1u);
  EXPECT_EQ(state.exp_avg_sq()._version(), 1u);
  Tensor y = (p * p).sum();
  opt.step();
  EXPECT_EQ(state.exp_avg()._version(), 2u);
  EXPECT_THROW(y.backward(), ember::Error);
}

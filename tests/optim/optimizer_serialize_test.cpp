// Optimizer::save / load (src/optim/optimizer_serialize.cpp and every optimizer's serialize
// overrides): for every optimizer, a run split by a save and a load into a fresh optimizer over
// cloned parameters follows the uninterrupted run exactly; archives that do not fit are
// rejected with an Error naming the key, and leave the optimizer untouched.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "ember/ember.h"
#include "ember/optim.h"
#include "ember/serialize/archive.h"
#include "tests/support/expect_error.h"

using namespace ember;
using namespace ember::optim;

namespace {

using ember_test::expect_error;

serialize::InputArchive optim_ser_reopen(const serialize::OutputArchive& out) {
  return serialize::InputArchive(std::make_shared<serialize::ArchiveNode>(out.root()));
}

// Three parameters of different shapes with fixed values.
std::vector<Tensor> optim_ser_params(ScalarType dtype = kFloat) {
  return {arange(12, dtype).reshape({3, 4}).div_(7).sub_(0.8).requires_grad_(),
          arange(5, dtype).mul_(0.3).requires_grad_(),
          arange(6, dtype).reshape({2, 3}).mul_(-0.2).add_(0.5).requires_grad_()};
}

std::vector<Tensor> optim_ser_clone(const std::vector<Tensor>& params) {
  std::vector<Tensor> out;
  for (const Tensor& p : params) out.push_back(p.detach().clone().requires_grad_());
  return out;
}

// A gradient that depends on the parameter, so a wrong state shows in the trajectory; the
// last parameter gets no gradient on even steps (the optimizers skip it then).
void optim_ser_set_grads(const std::vector<Tensor>& params, int step) {
  for (size_t i = 0; i < params.size(); ++i) {
    if (i == 2 && step % 2 == 0) {
      params[i].mutable_grad() = Tensor();
      continue;
    }
    params[i].mutable_grad() = params[i].detach().sin().mul(step + 1).add(0.1 * (i + 1));
  }
}

// Group 0 holds params 0 and 2, group 1 param 1, with its own options.
template <class Opt, class Options>
std::unique_ptr<Opt> optim_ser_make(const std::vector<Tensor>& p, const Options& group0,
                                    const Options& group1) {
  std::vector<OptimizerParamGroup> groups;
  groups.emplace_back(std::vector<Tensor>{p[0], p[2]}, std::make_unique<Options>(group0));
  groups.emplace_back(std::vector<Tensor>{p[1]}, std::make_unique<Options>(group1));
  return std::make_unique<Opt>(groups, group0);
}

template <class State>
void optim_ser_expect_same_state(const Optimizer& a, const std::vector<Tensor>& pa,
                                 const Optimizer& b, const std::vector<Tensor>& pb) {
  ASSERT_EQ(a.state().size(), b.state().size());
  for (size_t i = 0; i < pa.size(); ++i) {
    auto ia = a.state().find(pa[i].unsafeGetTensorImpl());
    auto ib = b.state().find(pb[i].unsafeGetTensorImpl());
    ASSERT_EQ(ia == a.state().end(), ib == b.state().end()) << "param " << i;
    if (ia == a.state().end()) continue;
    EXPECT_TRUE(static_cast<const State&>(*ia->second) == static_cast<const State&>(*ib->second))
        << "param " << i;
  }
}

// The round trip of the file's header comment, for an optimizer with two param groups.
template <class Opt, class Options, class State>
void optim_ser_round_trip(const Options& group0, const Options& group1, const Options& other) {
  std::vector<Tensor> pa = optim_ser_params();
  auto a = optim_ser_make<Opt>(pa, group0, group1);
  for (int k = 0; k < 3; ++k) {
    optim_ser_set_grads(pa, k);
    a->step();
  }
  serialize::OutputArchive out;
  a->save(out);

  // A fresh optimizer with other options everywhere: load must bring the saved ones back.
  std::vector<Tensor> pb = optim_ser_clone(pa);
  auto b = optim_ser_make<Opt>(pb, other, other);
  serialize::InputArchive in = optim_ser_reopen(out);
  b->load(in);
  for (size_t g = 0; g < 2; ++g)
    EXPECT_TRUE(static_cast<const Options&>(b->param_groups()[g].options()) ==
                static_cast<const Options&>(a->param_groups()[g].options()))
        << "group " << g;
  optim_ser_expect_same_state<State>(*a, pa, *b, pb);

  for (int k = 3; k < 7; ++k) {
    optim_ser_set_grads(pa, k);
    optim_ser_set_grads(pb, k);
    a->step();
    b->step();
    for (size_t i = 0; i < pa.size(); ++i)
      EXPECT_TRUE(pa[i].detach().equal(pb[i].detach())) << "step " << k << " param " << i;
  }
  optim_ser_expect_same_state<State>(*a, pa, *b, pb);
}

}  // namespace

TEST(OptimizerSerialize, SGDRoundTripIsExact) {
  optim_ser_round_trip<SGD, SGDOptions, SGDParamState>(
      SGDOptions(0.1).momentum(0.9).nesterov(true), SGDOptions(0.05).momentum(0.5).dampening(0.1),
      SGDOptions(1.0));
}

TEST(OptimizerSerialize, AdamRoundTripIsExact) {
  optim_ser_round_trip<Adam, AdamOptions, AdamParamState>(
      AdamOptions(0.01).amsgrad(true), AdamOptions(0.02).betas(std::make_tuple(0.8, 0.9)),
      AdamOptions(1.0));
}

TEST(OptimizerSerialize, AdamWRoundTripIsExact) {
  optim_ser_round_trip<AdamW, AdamWOptions, AdamWParamState>(
      AdamWOptions(0.01), AdamWOptions(0.02).amsgrad(true).maximize(true), AdamWOptions(1.0));
}

TEST(OptimizerSerialize, RMSpropRoundTripIsExact) {
  optim_ser_round_trip<RMSprop, RMSpropOptions, RMSpropParamState>(
      RMSpropOptions(0.01).momentum(0.9).centered(true), RMSpropOptions(0.02).alpha(0.9),
      RMSpropOptions(1.0));
}

TEST(OptimizerSerialize, AdagradRoundTripIsExact) {
  optim_ser_round_trip<Adagrad, AdagradOptions, AdagradParamState>(
      AdagradOptions(0.1).initial_accumulator_value(0.2),
      AdagradOptions(0.05).lr_decay(0.1).weight_decay(0.01), AdagradOptions(1.0));
}

TEST(OptimizerSerialize, AdadeltaRoundTripIsExact) {
  optim_ser_round_trip<Adadelta, AdadeltaOptions, AdadeltaParamState>(
      AdadeltaOptions(1.0).rho(0.8), AdadeltaOptions(0.5).weight_decay(0.1).maximize(true),
      AdadeltaOptions(3.0));
}

TEST(OptimizerSerialize, AdamaxRoundTripIsExact) {
  optim_ser_round_trip<Adamax, AdamaxOptions, AdamaxParamState>(
      AdamaxOptions(0.01), AdamaxOptions(0.05).betas(std::make_tuple(0.5, 0.9)).eps(1e-3),
      AdamaxOptions(1.0));
}

TEST(OptimizerSerialize, NAdamRoundTripIsExact) {
  optim_ser_round_trip<NAdam, NAdamOptions, NAdamParamState>(NAdamOptions(0.01).momentum_decay(0.1),
                                                             NAdamOptions(0.05).weight_decay(0.01),
                                                             NAdamOptions(1.0));
}

TEST(OptimizerSerialize, RAdamRoundTripIsExact) {
  optim_ser_round_trip<RAdam, RAdamOptions, RAdamParamState>(
      RAdamOptions(0.01).betas(std::make_tuple(0.9, 0.5)), RAdamOptions(0.05).weight_decay(0.1),
      RAdamOptions(1.0));
}

TEST(OptimizerSerialize, LBFGSRoundTripIsExact) {
  // Rosenbrock over the flattened parameters; a strong-Wolfe run with a short history, so the
  // history lists are full and shifting when the state is saved.
  auto run = [](std::vector<Tensor>& p, LBFGS& opt) {
    return opt.step([&] {
      opt.zero_grad();
      std::vector<Tensor> flat;
      for (const Tensor& t : p) flat.push_back(t.reshape({-1}));
      const Tensor x = cat(flat, 0).mul(0.5);
      const int64_t n = x.size(0);
      const Tensor head = x.narrow(0, 0, n - 1), tail = x.narrow(0, 1, n - 1);
      Tensor loss = (100 * (tail - head * head).square() + (1 - head).square()).sum();
      loss.backward();
      return loss;
    });
  };
  const LBFGSOptions options =
      LBFGSOptions(1).max_iter(4).history_size(3).line_search_fn("strong_wolfe");
  std::vector<Tensor> pa = optim_ser_params(kDouble);
  LBFGS a(pa, options);
  for (int k = 0; k < 3; ++k) run(pa, a);
  serialize::OutputArchive out;
  a.save(out);
  std::vector<Tensor> pb = optim_ser_clone(pa);
  LBFGS b(pb, LBFGSOptions(0.5));
  serialize::InputArchive in = optim_ser_reopen(out);
  b.load(in);
  const auto& sa = static_cast<const LBFGSParamState&>(*a.state().at(pa[0].unsafeGetTensorImpl()));
  const auto& sb = static_cast<const LBFGSParamState&>(*b.state().at(pb[0].unsafeGetTensorImpl()));
  EXPECT_EQ(sa.old_dirs().size(), 3u);
  EXPECT_TRUE(sa.al().has_value());
  EXPECT_TRUE(sa == sb);
  EXPECT_TRUE(static_cast<const LBFGSOptions&>(b.param_groups()[0].options()) ==
              static_cast<const LBFGSOptions&>(a.param_groups()[0].options()));
  for (int k = 0; k < 3; ++k) {
    const Tensor la = run(pa, a), lb = run(pb, b);
    EXPECT_TRUE(la.equal(lb)) << "step " << k;
    for (size_t i = 0; i < pa.size(); ++i)
      EXPECT_TRUE(pa[i].detach().equal(pb[i].detach())) << "step " << k << " param " << i;
  }
  EXPECT_TRUE(sa == sb);
}

TEST(OptimizerSerialize, LayoutIsGroupsThenStateByFlatIndex) {
  std::vector<Tensor> p = optim_ser_params();
  auto opt = optim_ser_make<Adam>(p, AdamOptions(0.1), AdamOptions(0.2));
  optim_ser_set_grads(p, 0);  // param 2 has no gradient at step 0: no state
  opt->step();
  serialize::OutputArchive out;
  opt->save(out);
  serialize::InputArchive in = optim_ser_reopen(out);
  EXPECT_EQ(in.keys(), (std::vector<std::string>{"param_groups", "state"}));
  serialize::InputArchive groups, group1, options, states, state1;
  in.read("param_groups", groups);
  EXPECT_EQ(groups.keys(), (std::vector<std::string>{"0", "1"}));
  groups.read("1", group1);
  IValue count, lr;
  group1.read("param_count", count);
  EXPECT_EQ(count.toInt(), 1);
  group1.read("options", options);
  options.read("lr", lr);
  EXPECT_EQ(lr.toDouble(), 0.2);
  in.read("state", states);
  // Flat order over the groups: group 0's p0, p2 are 0 and 1, group 1's p1 is 2.
  EXPECT_EQ(states.keys(), (std::vector<std::string>{"0", "2"}));
  states.read("2", state1);
  Tensor exp_avg;
  state1.read("exp_avg", exp_avg);
  EXPECT_TRUE(exp_avg.sizes().equals(p[1].sizes()));
  // The archive holds copies: stepping after save does not change it.
  const Tensor saved = exp_avg.clone();
  optim_ser_set_grads(p, 1);
  opt->step();
  EXPECT_TRUE(exp_avg.equal(saved));
}

TEST(OptimizerSerialize, MismatchedArchivesLeaveTheOptimizerUntouched) {
  std::vector<Tensor> p = optim_ser_params();
  auto source = optim_ser_make<Adam>(p, AdamOptions(0.1), AdamOptions(0.2));
  optim_ser_set_grads(p, 1);
  source->step();
  serialize::OutputArchive adam_out;
  source->save(adam_out);

  // The target has taken a step of its own; every failed load must leave that as it was.
  std::vector<Tensor> q = optim_ser_clone(p);
  auto target = optim_ser_make<Adam>(q, AdamOptions(0.5), AdamOptions(0.6));
  optim_ser_set_grads(q, 3);  // odd: every parameter gets a gradient
  target->step();
  const AdamParamState before =
      static_cast<const AdamParamState&>(*target->state().at(q[1].unsafeGetTensorImpl()));
  auto expect_untouched = [&] {
    EXPECT_EQ(target->state().size(), 3u);
    EXPECT_TRUE(static_cast<const AdamParamState&>(
                    *target->state().at(q[1].unsafeGetTensorImpl())) == before);
    EXPECT_EQ(target->param_groups()[0].options().get_lr(), 0.5);
    EXPECT_EQ(target->param_groups()[1].options().get_lr(), 0.6);
  };

  // Another optimizer's archive: its options lack Adam's keys.
  {
    std::vector<Tensor> s = optim_ser_clone(p);
    auto sgd = optim_ser_make<SGD>(s, SGDOptions(0.1).momentum(0.9), SGDOptions(0.1));
    optim_ser_set_grads(s, 1);
    sgd->step();
    serialize::OutputArchive out;
    sgd->save(out);
    serialize::InputArchive in = optim_ser_reopen(out);
    expect_error([&] { target->load(in); }, {"param_groups/0/options", "'betas'"});
    expect_untouched();
  }
  // A different number of groups.
  {
    std::vector<Tensor> s = optim_ser_clone(p);
    Adam one(s, AdamOptions(0.1));
    serialize::OutputArchive out;
    one.save(out);
    serialize::InputArchive in = optim_ser_reopen(out);
    expect_error([&] { target->load(in); }, {"param_groups holds 1 groups, expected 2"});
    expect_untouched();
  }
  // The same groups over parameters of other shapes: the state no longer fits.
  {
    std::vector<Tensor> s = {zeros({3, 4}).requires_grad_(), zeros({7}).requires_grad_(),
                             zeros({2, 3}).requires_grad_()};
    auto other = optim_ser_make<Adam>(s, AdamOptions(0.1), AdamOptions(0.2));
    for (auto& t : s) t.mutable_grad() = ones_like(t);
    other->step();
    serialize::OutputArchive out;
    other->save(out);
    serialize::InputArchive in = optim_ser_reopen(out);
    expect_error([&] { target->load(in); },
                 {"state/2/exp_avg has shape [7], expected the parameter's shape [5]"});
    expect_untouched();
  }
  // A group with a different parameter count.
  {
    std::vector<Tensor> s = optim_ser_clone(p);
    std::vector<OptimizerParamGroup> groups;
    groups.emplace_back(std::vector<Tensor>{s[0]});
    groups.emplace_back(std::vector<Tensor>{s[1], s[2]});
    Adam other(groups, AdamOptions(0.1));
    serialize::OutputArchive out;
    other.save(out);
    serialize::InputArchive in = optim_ser_reopen(out);
    expect_error([&] { target->load(in); }, {"param_groups/0/param_count is 1, expected 2"});
    expect_untouched();
  }
  // Hand-made damage: a missing state field, a wrong kind, a bad state key, a missing part.
  {
    auto damaged = [&](const std::function<void(serialize::ArchiveNode&)>& edit) {
      auto root = std::make_shared<serialize::ArchiveNode>(adam_out.root());
      // Deep-copy the nested nodes so editing does not touch adam_out.
      std::function<void(serialize::ArchiveNode&)> deep = [&](serialize::ArchiveNode& node) {
        for (auto& e : node.entries)
          if (e.nested) {
            e.nested = std::make_shared<serialize::ArchiveNode>(*e.nested);
            deep(*e.nested);
          }
      };
      deep(*root);
      edit(*root);
      return serialize::InputArchive(root);
    };
    serialize::InputArchive no_step = damaged([](serialize::ArchiveNode& root) {
      auto& entries = root.find("state")->nested->find("0")->nested->entries;
      entries.erase(entries.begin());  // "step"
    });
    expect_error([&] { target->load(no_step); }, {"state/0", "'step'"});
    expect_untouched();
    serialize::InputArchive wrong_kind = damaged([](serialize::ArchiveNode& root) {
      root.find("param_groups")
          ->nested->find("1")
          ->nested->find("options")
          ->nested->find("lr")
          ->value = IValue("fast");
    });
    expect_error([&] { target->load(wrong_kind); },
                 {"param_groups/1/options", "'lr'", "expected a Double"});
    expect_untouched();
    serialize::InputArchive bad_key = damaged(
        [](serialize::ArchiveNode& root) { root.find("state")->nested->entries[0].key = "9"; });
    expect_error([&] { target->load(bad_key); }, {"state/9 is not a parameter index"});
    expect_untouched();
    serialize::InputArchive no_state =
        damaged([](serialize::ArchiveNode& root) { root.entries.pop_back(); });
    expect_error([&] { target->load(no_state); }, {"'state'"});
    expect_untouched();
  }
  // The archive's own data is unharmed by all this: it still loads.
  serialize::InputArchive in = optim_ser_reopen(adam_out);
  target->load(in);
  EXPECT_EQ(target->param_groups()[1].options().get_lr(), 0.2);
}

TEST(OptimizerSerialize, CustomClassesWithoutOverridesSayWhatIsMissing) {
  struct PlainOptions : public OptimizerCloneableOptions<PlainOptions> {
    double get_lr() const override { return 0.1; }
    void set_lr(const double) override {}
  };
  struct PlainOptimizer : public Optimizer {
    explicit PlainOptimizer(std::vector<Tensor> p)
        : Optimizer(std::move(p), std::make_unique<PlainOptions>()) {}
    Tensor step(LossClosure) override { return Tensor(); }
  };
  PlainOptimizer opt({ones({2}).requires_grad_()});
  serialize::OutputArchive out;
  expect_error([&] { opt.save(out); },
               {"OptimizerOptions::serialize: not overridden by this options class"});
}

TEST(OptimizerSerialize, LoadCastsFloatingStateToTheParameterDtype) {
  // As PyTorch's load_state_dict: state saved for float32 parameters loads into an optimizer over
  // float64 ones as float64 (the model was converted with to(kDouble) in between), and the run
  // goes on in float64.
  std::vector<Tensor> p32 = optim_ser_params(kFloat);
  auto a = optim_ser_make<Adam>(p32, AdamOptions(0.1).amsgrad(true), AdamOptions(0.2));
  optim_ser_set_grads(p32, 1);
  a->step();
  serialize::OutputArchive out;
  a->save(out);

  std::vector<Tensor> p64;
  for (const Tensor& t : p32) p64.push_back(t.detach().to(kDouble).requires_grad_());
  auto b = optim_ser_make<Adam>(p64, AdamOptions(0.5), AdamOptions(0.5));
  serialize::InputArchive in = optim_ser_reopen(out);
  b->load(in);
  for (size_t i = 0; i < p64.size(); ++i) {
    const auto& sa =
        static_cast<const AdamParamState&>(*a->state().at(p32[i].unsafeGetTensorImpl()));
    const auto& sb =
        static_cast<const AdamParamState&>(*b->state().at(p64[i].unsafeGetTensorImpl()));
    EXPECT_EQ(sb.step(), sa.step());
    for (auto [x, y] : {std::pair{sa.exp_avg(), sb.exp_avg()},
                        {sa.exp_avg_sq(), sb.exp_avg_sq()},
                        {sa.max_exp_avg_sq(), sb.max_exp_avg_sq()}}) {
      ASSERT_EQ(x.defined(), y.defined()) << "param " << i;
      if (!x.defined()) continue;  // max_exp_avg_sq of the group without amsgrad
      EXPECT_EQ(y.scalar_type(), kDouble) << "param " << i;
      EXPECT_TRUE(y.equal(x.to(kDouble))) << "param " << i;
    }
  }
  optim_ser_set_grads(p64, 3);
  b->step();
  for (const Tensor& t : p64) EXPECT_EQ(t.scalar_type(), kDouble);
}

// Custom autograd functions (Function<T>) with LibTorch's API and semantics.
#include <gtest/gtest.h>

#include "ember/ember.h"

using namespace ember;
using autograd::AutogradContext;
using autograd::variable_list;

namespace {
struct MulAdd : autograd::Function<MulAdd> {
  static Tensor forward(AutogradContext* ctx, Tensor a, int64_t k, Tensor b) {
    ctx->saved_data["k"] = k;
    ctx->save_for_backward({a, b});
    return a * k + a * b;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    auto saved = ctx->get_saved_variables();
    int64_t k = ctx->saved_data["k"].toInt();
    return {grads[0] * (saved[1] + k), Tensor(), grads[0] * saved[0]};
  }
};

// Saves its own output and is differentiable twice (exp).
struct MyExp : autograd::Function<MyExp> {
  static Tensor forward(AutogradContext* ctx, Tensor x) {
    Tensor y = x.exp();
    ctx->save_for_backward({y});
    return y;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    return {grads[0] * ctx->get_saved_variables()[0]};
  }
};

// Two outputs, one of them non-differentiable; checks needs_input_grad.
struct MaxWithIndex : autograd::Function<MaxWithIndex> {
  static variable_list forward(AutogradContext* ctx, Tensor x) {
    auto [values, indices] = x.max(0);
    ctx->mark_non_differentiable({indices});
    ctx->save_for_backward({indices});
    ctx->saved_data["n"] = x.size(0);
    return {values, indices};
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    EXPECT_TRUE(ctx->needs_input_grad(0));
    Tensor idx = ctx->get_saved_variables()[0];
    Tensor g = zeros({ctx->saved_data["n"].toInt()}, grads[0].options());
    g.index_put_({idx}, grads[0]);
    return {g};
  }
};

// Modifies its input in place.
struct AddOneInPlace : autograd::Function<AddOneInPlace> {
  static Tensor forward(AutogradContext* ctx, Tensor x) {
    x.add_(1);
    ctx->mark_dirty({x});
    return x;
  }
  static variable_list backward(AutogradContext*, variable_list grads) { return {grads[0]}; }
};

struct WrongCount : autograd::Function<WrongCount> {
  static Tensor forward(AutogradContext*, Tensor x, double) { return x * 2; }
  static variable_list backward(AutogradContext*, variable_list grads) { return {grads[0]}; }
};

double value(const Tensor& t, int64_t i = 0) {
  return t.to(kDouble).contiguous().data_ptr<double>()[i];
}
}  // namespace

TEST(CustomFunction, ForwardAndBackwardWithSavedDataAndNonTensorArgs) {
  Tensor a = tensor(std::vector<double>{1, 2}, kDouble).requires_grad_();
  Tensor b = tensor(std::vector<double>{3, 4}, kDouble).requires_grad_();
  Tensor y = MulAdd::apply(a, 5, b);
  EXPECT_EQ(y.grad_fn()->name(), "(anonymous namespace)::MulAdd");
  y.sum().backward();
  EXPECT_EQ(value(a.grad(), 0), 8);
  EXPECT_EQ(value(a.grad(), 1), 9);
  EXPECT_EQ(value(b.grad(), 0), 1);
  EXPECT_EQ(value(b.grad(), 1), 2);
}

TEST(CustomFunction, PassesGradcheckAndGradgradcheck) {
  Tensor x = empty({3}, kDouble).uniform_(-1, 1).requires_grad_();
  auto f = [](const variable_list& in) { return variable_list{MyExp::apply(in[0])}; };
  EXPECT_TRUE(autograd::gradcheck(f, {x}));
  EXPECT_TRUE(autograd::gradgradcheck(f, {x}));
}

TEST(CustomFunction, NonDifferentiableOutputHasNoGrad) {
  Tensor x = tensor(std::vector<double>{1, 5, 3}, kDouble).requires_grad_();
  variable_list out = MaxWithIndex::apply(x);
  EXPECT_TRUE(out[0].requires_grad());
  EXPECT_FALSE(out[1].requires_grad());
  out[0].backward();
  EXPECT_EQ(value(x.grad(), 1), 1);
  EXPECT_EQ(value(x.grad(), 0), 0);
}

TEST(CustomFunction, MarkDirtyRewritesHistory) {
  Tensor x = tensor(std::vector<double>{1, 2}, kDouble).requires_grad_();
  Tensor y = x * 2;
  Tensor z = AddOneInPlace::apply(y);
  EXPECT_TRUE(z.is_same(y));
  EXPECT_EQ(value(y, 0), 3);
  (z * z).sum().backward();
  EXPECT_EQ(value(x.grad(), 0), 12);  // d/dx (2x+1)^2 = 4(2x+1)
  Tensor leaf = ones({2}, kDouble).requires_grad_();
  EXPECT_THROW(AddOneInPlace::apply(leaf), Error);
}

TEST(CustomFunction, WrongNumberOfGradientsIsAnError) {
  Tensor x = ones({2}, kDouble).requires_grad_();
  Tensor y = WrongCount::apply(x, 1.0);
  try {
    y.sum().backward();
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("incorrect number of gradients (expected 2, got 1)"),
              std::string::npos)
        << e.what();
  }
}

TEST(CustomFunction, WithoutGradModeNothingIsRecorded) {
  Tensor x = ones({2}, kDouble).requires_grad_();
  NoGradGuard g;
  Tensor y = MyExp::apply(x);
  EXPECT_FALSE(y.requires_grad());
}

TEST(CustomFunction, LibTorchsAutogradNamesNeedNoCompatHeader) {
  static_assert(std::is_same_v<autograd::Variable, Tensor>);
  static_assert(std::is_same_v<autograd::tensor_list, std::vector<Tensor>>);
}

namespace {
// needs_input_grad counts tensor inputs only, as LibTorch's C++ API: here 0 is `a`, 1 is `b`.
struct ScaleAB : autograd::Function<ScaleAB> {
  static Tensor forward(AutogradContext*, double k, Tensor a, std::optional<Tensor> b) {
    return b ? a * *b * k : a * k;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    EXPECT_TRUE(ctx->needs_input_grad(0));
    EXPECT_THROW((void)ctx->needs_input_grad(2), IndexError);
    return {Tensor(), grads[0], ctx->needs_input_grad(1) ? grads[0] : Tensor()};
  }
};
}  // namespace

TEST(CustomFunction, NeedsInputGradIndexesTensorInputs) {
  Tensor a = ones({2}, kDouble).requires_grad_();
  Tensor b = ones({2}, kDouble).requires_grad_();
  ScaleAB::apply(3.0, a, std::optional<Tensor>(b)).sum().backward();
  EXPECT_EQ(value(b.grad(), 0), 1);
}

TEST(IValue, HoldsWhatItWasGivenAndNamesMismatches) {
  IValue i = 3, d = 2.5, b = true, s = "name", t = ones({1});
  EXPECT_EQ(i.toInt(), 3);
  EXPECT_EQ(d.toDouble(), 2.5);
  EXPECT_TRUE(b.toBool());
  EXPECT_EQ(s.toStringRef(), "name");
  EXPECT_TRUE(t.isTensor());
  try {
    (void)i.toDouble();
    FAIL();
  } catch (const TypeError& e) {
    EXPECT_NE(std::string(e.what()).find("expected Double but the value holds Int"),
              std::string::npos);
  }
}

// Custom autograd functions written as LibTorch users write them (torch::autograd::Function<T>
// with static forward/backward, AutogradContext), with the gradients PyTorch 1.13 gives. The file
// also builds and passes against LibTorch 1.13 itself, which is how its expectations were checked;
// only the wording of Ember's error messages sits in EMBER_API blocks.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <string>
#include <vector>

// A named namespace: test files are compiled together in unity batches.
namespace custom_fn_test {

using namespace torch::autograd;
using torch::Tensor;

void expect_grad(const Tensor& t, const std::vector<double>& expected) {
  ASSERT_TRUE(t.defined());
  const Tensor flat = t.detach().to(torch::kDouble).contiguous().view({-1});
  ASSERT_EQ(flat.numel(), static_cast<int64_t>(expected.size())) << t;
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_NEAR(flat[static_cast<int64_t>(i)].item<double>(), expected[i], 1e-6) << "at " << i;
}

// The message of the exception `f` throws, or "" when it throws none.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Non-tensor arguments of every kind beside two tensor inputs: y = sign * k * s * x (+ bias),
// summed over `dims` when mode is "sum".
struct ScaleShift : public Function<ScaleShift> {
  static Tensor forward(AutogradContext* ctx, Tensor x, int64_t k, double s, bool negate,
                        std::string mode, c10::optional<Tensor> bias, torch::IntArrayRef dims) {
    const double factor = (negate ? -1.0 : 1.0) * static_cast<double>(k) * s;
    ctx->saved_data["factor"] = factor;
    ctx->saved_data["mode"] = mode;
    ctx->saved_data["dims"] = dims;
    ctx->saved_data["sizes"] = x.sizes();
    ctx->saved_data["has_bias"] = bias.has_value();
    Tensor y = x * factor;
    if (bias) y = y + *bias;
    return mode == "sum" ? y.sum(dims) : y;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    Tensor g = grad_outputs[0];
    if (ctx->saved_data["mode"].toStringRef() == "sum") {
      for (int64_t d : ctx->saved_data["dims"].toIntVector()) g = g.unsqueeze(d);
      g = g.expand(ctx->saved_data["sizes"].toIntVector());
    }
    Tensor grad_bias = ctx->saved_data["has_bias"].toBool() ? g : Tensor();
    // One entry per forward argument: undefined for the non-tensor ones (and for a nullopt bias).
    return {g * ctx->saved_data["factor"].toDouble(),
            Tensor(),
            Tensor(),
            Tensor(),
            Tensor(),
            grad_bias,
            Tensor()};
  }
};

// forward taking std::vector<int64_t> (rather than IntArrayRef) and an int.
struct SumDims : public Function<SumDims> {
  static Tensor forward(AutogradContext* ctx, Tensor x, std::vector<int64_t> dims, int scale) {
    ctx->saved_data["dims"] = dims;
    ctx->saved_data["scale"] = scale;
    ctx->saved_data["sizes"] = x.sizes().vec();
    return x.sum(dims) * scale;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    Tensor g = grads[0] * ctx->saved_data["scale"].toInt();
    for (int64_t d : ctx->saved_data["dims"].toIntVector()) g = g.unsqueeze(d);
    return {g.expand(ctx->saved_data["sizes"].toIntVector()), Tensor(), Tensor()};
  }
};

// Every kind of saved_data value, read back in backward.
struct SavedKinds : public Function<SavedKinds> {
  static Tensor forward(AutogradContext* ctx, Tensor x) {
    ctx->saved_data["x"] = 3.5;
    ctx->saved_data["n"] = 2;
    ctx->saved_data["flag"] = true;
    ctx->saved_data["t"] = torch::full({1}, 4.0, torch::kDouble);
    ctx->saved_data["shape"] = std::vector<int64_t>{7, 8};
    ctx->saved_data["name"] = std::string("kinds");
    return x * 3.5 * 2 * 4.0;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    EXPECT_EQ(ctx->saved_data["shape"].toIntVector(), (std::vector<int64_t>{7, 8}));
    EXPECT_EQ(ctx->saved_data["name"].toStringRef(), "kinds");
    EXPECT_TRUE(ctx->saved_data["flag"].toBool());
    EXPECT_TRUE(ctx->saved_data["t"].isTensor());
    const double k = ctx->saved_data["x"].toDouble() * ctx->saved_data["n"].toInt() *
                     ctx->saved_data["t"].toTensor().item<double>();
    return {grads[0] * k};
  }
};

// y = a * b with both inputs saved.
struct Mul : public Function<Mul> {
  static Tensor forward(AutogradContext* ctx, Tensor a, Tensor b) {
    ctx->save_for_backward({a, b});
    return a * b;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    variable_list saved = ctx->get_saved_variables();
    return {grads[0] * saved[1], grads[0] * saved[0]};
  }
};

// Doubles x in place and returns it.
struct DoubleInPlace : public Function<DoubleInPlace> {
  static Tensor forward(AutogradContext* ctx, Tensor x) {
    x.mul_(2);
    ctx->mark_dirty({x});
    return x;
  }
  static variable_list backward(AutogradContext*, variable_list grads) { return {grads[0] * 2}; }
};

// The row-wise max with its index; the index has no gradient.
struct RowMax : public Function<RowMax> {
  static variable_list forward(AutogradContext* ctx, Tensor x) {
    auto max = x.max(1);
    Tensor values = std::get<0>(max), indices = std::get<1>(max);
    ctx->mark_non_differentiable({indices});
    ctx->save_for_backward({indices});
    ctx->saved_data["sizes"] = x.sizes();
    return {values, indices};
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    EXPECT_EQ(grads.size(), 2u);
    Tensor indices = ctx->get_saved_variables()[0];
    Tensor g = torch::zeros(ctx->saved_data["sizes"].toIntVector(), grads[0].options());
    return {g.scatter(1, indices.unsqueeze(1), grads[0].unsqueeze(1))};
  }
};

// Two outputs, 2x and 3x; records which gradients backward received.
int two_outputs_defined_grads = -1;
double two_outputs_grad1_sum = -1;
template <bool kMaterialize>
struct TwoOutputs : public Function<TwoOutputs<kMaterialize>> {
  static variable_list forward(AutogradContext* ctx, Tensor x) {
    ctx->set_materialize_grads(kMaterialize);
    return {x * 2, x * 3};
  }
  static variable_list backward(AutogradContext*, variable_list grads) {
    two_outputs_defined_grads = static_cast<int>(grads[0].defined()) + grads[1].defined();
    if (grads[1].defined()) two_outputs_grad1_sum = grads[1].sum().item<double>();
    Tensor g = grads[0] * 2;
    if (grads[1].defined()) g = g + grads[1] * 3;
    return {g};
  }
};

// k * a * b with an int first: needs_input_grad counts the tensor inputs only.
std::vector<bool> seen_needs_input_grad;
struct ScaledMul : public Function<ScaledMul> {
  static Tensor forward(AutogradContext* ctx, int64_t k, Tensor a, Tensor b) {
    ctx->save_for_backward({a, b});
    ctx->saved_data["k"] = k;
    return a * b * k;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    seen_needs_input_grad = {ctx->needs_input_grad(0), ctx->needs_input_grad(1)};
    variable_list saved = ctx->get_saved_variables();
    Tensor g = grads[0] * ctx->saved_data["k"].toInt();
    return {Tensor(), ctx->needs_input_grad(0) ? g * saved[1] : Tensor(),
            ctx->needs_input_grad(1) ? g * saved[0] : Tensor()};
  }
};

// x^3 whose backward differentiates a graph of its own, through autograd::grad or backward().
template <bool kUseGrad>
struct ReentrantCube : public Function<ReentrantCube<kUseGrad>> {
  static Tensor forward(AutogradContext* ctx, Tensor x) {
    ctx->save_for_backward({x});
    return x.pow(3);
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    torch::AutoGradMode enable_grad(true);
    Tensor x = ctx->get_saved_variables()[0].detach().requires_grad_(true);
    Tensor y = x.pow(3);
    if (kUseGrad) return {torch::autograd::grad({y}, {x}, {grads[0]})[0]};
    y.backward(grads[0]);
    return {x.grad()};
  }
};

// x^3 with a backward written in differentiable ops, so it has a second derivative.
struct Cube : public Function<Cube> {
  static Tensor forward(AutogradContext* ctx, Tensor x) {
    ctx->save_for_backward({x});
    return x * x * x;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    Tensor x = ctx->get_saved_variables()[0];
    return {grads[0] * 3 * x * x};
  }
};

// exp, saving its own output.
struct Exp : public Function<Exp> {
  static Tensor forward(AutogradContext* ctx, Tensor x) {
    Tensor y = x.exp();
    ctx->save_for_backward({y});
    return y;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    return {grads[0] * ctx->get_saved_variables()[0]};
  }
};

// Returns its input unchanged.
struct Identity : public Function<Identity> {
  static Tensor forward(AutogradContext*, Tensor x) { return x; }
  static variable_list backward(AutogradContext*, variable_list grads) { return {grads[0]}; }
};

// (xs[0] + xs[1]) * w, the list as a std::vector: LibTorch does not look inside it, so the list
// is one non-tensor argument and its tensors get no gradient.
struct VectorArg : public Function<VectorArg> {
  static Tensor forward(AutogradContext* ctx, std::vector<Tensor> xs, Tensor w) {
    ctx->save_for_backward({xs[0] + xs[1]});
    return (xs[0] + xs[1]) * w;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    return {Tensor(), grads[0] * ctx->get_saved_variables()[0]};
  }
};

// The same with a TensorList: each element is an input of its own.
struct ListArg : public Function<ListArg> {
  static Tensor forward(AutogradContext* ctx, torch::TensorList xs, Tensor w) {
    ctx->save_for_backward({xs[0] + xs[1], w});
    return (xs[0] + xs[1]) * w;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    variable_list saved = ctx->get_saved_variables();
    Tensor gx = grads[0] * saved[1];
    return {gx, gx, grads[0] * saved[0]};
  }
};

// Returns too few, too many, or a gradient for a non-tensor argument.
template <int kCase>
struct BadGrads : public Function<BadGrads<kCase>> {
  static Tensor forward(AutogradContext*, Tensor x, double s) { return x * s; }
  static variable_list backward(AutogradContext*, variable_list grads) {
    if (kCase == 0) return {grads[0]};                      // too few
    if (kCase == 1) return {grads[0], Tensor(), grads[0]};  // too many
    if (kCase == 2) return {grads[0], Tensor(), Tensor()};  // extra undefined: accepted
    return {grads[0], grads[0]};                            // a gradient for `s`
  }
};

Tensor leaf(std::vector<double> values) {
  return torch::tensor(values, torch::kDouble).requires_grad_(true);
}

TEST(CustomFunction, NonTensorArgumentsOfEveryKind) {
  Tensor x = leaf({1, 2, 3, 4}).view({2, 2}).detach().requires_grad_(true);
  Tensor bias = leaf({0.5, 0.5, 0.5, 0.5}).view({2, 2}).detach().requires_grad_(true);
  Tensor y = ScaleShift::apply(x, int64_t{3}, 0.5, true, std::string("sum"),
                               c10::optional<Tensor>(bias), std::vector<int64_t>{1});
  expect_grad(y, {-4.5 + 1, -10.5 + 1});  // -1.5 * row sums + 2 * 0.5
  (y * torch::tensor({1.0, 2.0}, torch::kDouble)).sum().backward();
  expect_grad(x.grad(), {-1.5, -1.5, -3, -3});
  expect_grad(bias.grad(), {1, 1, 2, 2});

  // Without the bias, and with a string literal for the mode.
  Tensor x2 = leaf({1, 2});
  Tensor y2 = ScaleShift::apply(x2, int64_t{2}, 0.25, false, "none", c10::optional<Tensor>(),
                                std::vector<int64_t>{});
  expect_grad(y2, {0.5, 1});
  y2.sum().backward();
  expect_grad(x2.grad(), {0.5, 0.5});
}

TEST(CustomFunction, VectorOfIntsArgument) {
  Tensor x = leaf({1, 2, 3, 4, 5, 6}).view({2, 3}).detach().requires_grad_(true);
  Tensor y = SumDims::apply(x, std::vector<int64_t>{0}, 2);
  expect_grad(y, {10, 14, 18});
  (y * torch::tensor({1.0, 2.0, 3.0}, torch::kDouble)).sum().backward();
  expect_grad(x.grad(), {2, 4, 6, 2, 4, 6});
}

TEST(CustomFunction, SavedDataHoldsEveryKind) {
  Tensor x = leaf({1, 2});
  Tensor y = SavedKinds::apply(x);
  expect_grad(y, {28, 56});
  y.sum().backward();
  expect_grad(x.grad(), {28, 28});
}

TEST(CustomFunction, SaveForBackwardGivesTheSavedTensors) {
  Tensor a = leaf({1, 2}), b = leaf({3, 5});
  Tensor y = Mul::apply(a, b);
  EXPECT_TRUE(y.requires_grad());
  EXPECT_TRUE(contains(y.grad_fn()->name(), "Mul"));
  y.sum().backward();
  expect_grad(a.grad(), {3, 5});
  expect_grad(b.grad(), {1, 2});
}

TEST(CustomFunction, SavedTensorModifiedInPlaceIsAnError) {
  Tensor a = leaf({1, 2});
  Tensor b = torch::tensor({3.0, 5.0}, torch::kDouble);
  Tensor y = Mul::apply(a, b);
  b.mul_(2);
  const std::string message = error_of([&] { y.sum().backward(); });
  EXPECT_TRUE(contains(message, "modified by an inplace operation")) << message;
}

TEST(CustomFunction, SavingItsOutputHasHigherDerivatives) {
  Tensor x = leaf({0, 1});
  Tensor y = Exp::apply(x);
  variable_list g = torch::autograd::grad({y.sum()}, {x}, {}, true, true);
  expect_grad(g[0], {1, std::exp(1.0)});
  g[0].sum().backward();
  expect_grad(x.grad(), {1, std::exp(1.0)});
}

TEST(CustomFunction, MarkDirtyReturnsTheModifiedInputWithNewHistory) {
  Tensor a = leaf({1, 2});
  Tensor x = a * 1;
  Tensor y = DoubleInPlace::apply(x);
  EXPECT_TRUE(y.is_same(x));
  expect_grad(x, {2, 4});
  EXPECT_TRUE(contains(x.grad_fn()->name(), "DoubleInPlace"));
  (y * y).sum().backward();
  expect_grad(a.grad(), {8, 16});  // d/da (2a)^2 = 8a
}

TEST(CustomFunction, MarkDirtyOnALeafThatRequiresGradIsAnError) {
  Tensor a = leaf({1, 2});
  const std::string message = error_of([&] { DoubleInPlace::apply(a); });
  EXPECT_TRUE(contains(message, "a leaf Variable that requires grad")) << message;
}

TEST(CustomFunction, MarkNonDifferentiableOutputHasNoGradient) {
  Tensor x = leaf({1, 5, 3, 4, 2, 0}).view({2, 3}).detach().requires_grad_(true);
  variable_list out = RowMax::apply(x);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(out[0].requires_grad());
  EXPECT_FALSE(out[1].requires_grad());
  EXPECT_EQ(out[1].scalar_type(), torch::kLong);
  (out[0] * torch::tensor({2.0, 3.0}, torch::kDouble)).sum().backward();
  expect_grad(x.grad(), {0, 2, 0, 3, 0, 0});
}

TEST(CustomFunction, MaterializeGradsFalseLeavesUnusedGradsUndefined) {
  Tensor x = leaf({1, 2});
  TwoOutputs<false>::apply(x)[0].sum().backward();
  EXPECT_EQ(two_outputs_defined_grads, 1);
  expect_grad(x.grad(), {2, 2});

  Tensor x2 = leaf({1, 2});
  two_outputs_grad1_sum = -1;
  TwoOutputs<true>::apply(x2)[0].sum().backward();
  EXPECT_EQ(two_outputs_defined_grads, 2);  // the unused output's gradient is zeros
  EXPECT_EQ(two_outputs_grad1_sum, 0);
  expect_grad(x2.grad(), {2, 2});
}

TEST(CustomFunction, NeedsInputGradCountsTensorInputs) {
  Tensor a = leaf({1, 2});
  Tensor b = torch::tensor({3.0, 4.0}, torch::kDouble);
  ScaledMul::apply(int64_t{2}, a, b).sum().backward();
  EXPECT_EQ(seen_needs_input_grad, (std::vector<bool>{true, false}));
  expect_grad(a.grad(), {6, 8});

  Tensor a2 = torch::tensor({1.0, 2.0}, torch::kDouble), b2 = leaf({3, 4});
  ScaledMul::apply(int64_t{2}, a2, b2).sum().backward();
  EXPECT_EQ(seen_needs_input_grad, (std::vector<bool>{false, true}));
  expect_grad(b2.grad(), {2, 4});
}

TEST(CustomFunction, BackwardMayRunAutogradItself) {
  Tensor x = leaf({1, 2});
  ReentrantCube<true>::apply(x).sum().backward();
  expect_grad(x.grad(), {3, 12});

  Tensor x2 = leaf({1, 2});
  (ReentrantCube<false>::apply(x2) * 2).sum().backward();
  expect_grad(x2.grad(), {6, 24});
}

TEST(CustomFunction, DoubleBackwardWithCreateGraph) {
  Tensor x = leaf({1, 2});
  Tensor y = Cube::apply(x);
  variable_list g = torch::autograd::grad({y.sum()}, {x}, {}, c10::nullopt, true);
  EXPECT_TRUE(g[0].requires_grad());
  expect_grad(g[0], {3, 12});
  g[0].sum().backward();
  expect_grad(x.grad(), {6, 12});
}

TEST(CustomFunction, UnderNoGradNothingIsRecorded) {
  Tensor x = leaf({1, 2});
  Tensor y;
  {
    torch::NoGradGuard no_grad;
    y = Cube::apply(x);
  }
  EXPECT_FALSE(y.requires_grad());
  EXPECT_FALSE(y.grad_fn());
  expect_grad(y, {1, 8});
}

TEST(CustomFunction, ReturningAnInputGivesAViewOfIt) {
  Tensor x = leaf({1, 2});
  Tensor y = Identity::apply(x);
  EXPECT_FALSE(y.is_same(x));
  EXPECT_TRUE(y.is_view());
  EXPECT_TRUE(y._base().is_same(x));
  EXPECT_EQ(y.data_ptr(), x.data_ptr());
  EXPECT_TRUE(x.is_leaf());
  EXPECT_TRUE(contains(y.grad_fn()->name(), "Identity"));
  (y * 3).sum().backward();
  expect_grad(x.grad(), {3, 3});

  torch::NoGradGuard no_grad;
  Tensor z = Identity::apply(x);
  EXPECT_FALSE(z.is_same(x));
  EXPECT_FALSE(z.requires_grad());
  EXPECT_EQ(z.data_ptr(), x.data_ptr());
}

TEST(CustomFunction, VectorOfTensorsIsNotLookedInto) {
  Tensor x0 = leaf({1, 2}), x1 = leaf({3, 4}), w = leaf({2, 3});
  Tensor y = VectorArg::apply(std::vector<Tensor>{x0, x1}, w);
  EXPECT_TRUE(y.requires_grad());
  y.sum().backward();
  EXPECT_FALSE(x0.grad().defined());
  EXPECT_FALSE(x1.grad().defined());
  expect_grad(w.grad(), {4, 6});

  Tensor v0 = leaf({1, 2}), v1 = leaf({3, 4});
  EXPECT_FALSE(VectorArg::apply(std::vector<Tensor>{v0, v1}, torch::ones({2})).requires_grad());
}

TEST(CustomFunction, TensorListElementsAreInputs) {
  Tensor x0 = leaf({1, 2}), x1 = leaf({3, 4}), w = leaf({2, 3});
  std::vector<Tensor> xs{x0, x1};
  Tensor y = ListArg::apply(torch::TensorList(xs), w);
  y.sum().backward();
  expect_grad(x0.grad(), {2, 3});
  expect_grad(x1.grad(), {2, 3});
  expect_grad(w.grad(), {4, 6});
}

TEST(CustomFunction, WrongGradientCountsAreErrorsNamingTheFunction) {
  Tensor x = leaf({1, 2});
  std::string message = error_of([&] { BadGrads<0>::apply(x, 2.0).sum().backward(); });
  EXPECT_TRUE(contains(message, "BadGrads")) << message;
  EXPECT_TRUE(contains(message, "incorrect number of gradients (expected 2, got 1)")) << message;

  message = error_of([&] { BadGrads<1>::apply(x, 2.0).sum().backward(); });
  EXPECT_TRUE(contains(message, "BadGrads")) << message;
  EXPECT_TRUE(contains(message, "incorrect number of gradients (expected 2, got 3)")) << message;

  BadGrads<2>::apply(x, 2.0).sum().backward();  // surplus undefined gradients are dropped
  expect_grad(x.grad(), {1, 1});

  message = error_of([&] { BadGrads<3>::apply(x, 2.0).sum().backward(); });
  EXPECT_TRUE(contains(message, "BadGrads")) << message;
#ifdef EMBER_API
  EXPECT_TRUE(contains(message, "returned a defined gradient at position 2")) << message;
#else
  EXPECT_TRUE(contains(message, "defined at position 2")) << message;
#endif
}

}  // namespace custom_fn_test

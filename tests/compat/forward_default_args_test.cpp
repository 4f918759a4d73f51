// FORWARD_HAS_DEFAULT_ARGS in user modules called through nn::AnyModule and nn::Sequential, as a
// LibTorch program writes it. The file also builds and passes against LibTorch 1.13; only the
// wording of Ember's error messages sits in EMBER_API blocks.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <functional>
#include <string>

namespace forward_defaults_test {

using torch::Tensor;

// forward(x, k = 1, s = 2.0) = x * s + k, with the defaults declared in a protected section.
struct ShiftImpl : torch::nn::Module {
  Tensor forward(Tensor x, int k = 1, double s = 2.0) { return x * s + k; }

 protected:
  FORWARD_HAS_DEFAULT_ARGS({1, torch::nn::AnyValue(1)}, {2, torch::nn::AnyValue(2.0)})
};
TORCH_MODULE(Shift);

// A tensor default (an undefined mask), declared in a private section.
struct MaskImpl : torch::nn::Module {
  Tensor forward(Tensor x, Tensor mask = {}) { return mask.defined() ? x * mask : x; }

 private:
  FORWARD_HAS_DEFAULT_ARGS({1, torch::nn::AnyValue(Tensor())})
};
TORCH_MODULE(Mask);

// The same forward as Shift without the macro.
struct PlainShiftImpl : torch::nn::Module {
  Tensor forward(Tensor x, int k = 1, double s = 2.0) { return x * s + k; }
};
TORCH_MODULE(PlainShift);

std::string error_text(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

Tensor input() { return torch::tensor({1.0, 2.0, 3.0}); }

TEST(ForwardDefaultArgs, SequentialFillsTheMissingArguments) {
  torch::nn::Sequential seq(Shift{});
  EXPECT_TRUE(torch::allclose(seq->forward(input()), torch::tensor({3.0, 5.0, 7.0})));
  EXPECT_TRUE(torch::allclose(seq->forward(input(), 5), torch::tensor({7.0, 9.0, 11.0})));
  EXPECT_TRUE(torch::allclose(seq->forward(input(), 5, 3.0), torch::tensor({8.0, 11.0, 14.0})));
}

TEST(ForwardDefaultArgs, AnyModuleFillsTheMissingArguments) {
  torch::nn::AnyModule any(Shift{});
  EXPECT_TRUE(torch::allclose(any.forward(input()), torch::tensor({3.0, 5.0, 7.0})));
  EXPECT_TRUE(torch::allclose(any.forward(input(), 0), torch::tensor({2.0, 4.0, 6.0})));

  torch::nn::AnyModule mask(Mask{});
  EXPECT_TRUE(torch::allclose(mask.forward(input()), input()));
  EXPECT_TRUE(torch::allclose(mask.forward(input(), torch::tensor({0.0, 1.0, 2.0})),
                              torch::tensor({0.0, 2.0, 6.0})));
}

TEST(ForwardDefaultArgs, ModulesAfterTheFirstGetTheirDefaults) {
  torch::nn::Sequential seq(torch::nn::Linear(3, 3), Shift{}, Mask{});
  auto linear = seq->ptr<torch::nn::LinearImpl>(0);
  Tensor expected = linear->forward(input()) * 2 + 1;
  EXPECT_TRUE(torch::allclose(seq->forward(input()), expected));
}

TEST(ForwardDefaultArgs, DirectCallsUseTheCppDefaults) {
  Shift shift;
  EXPECT_TRUE(torch::allclose(shift(input()), torch::tensor({3.0, 5.0, 7.0})));
  EXPECT_TRUE(torch::allclose(shift->forward(input(), 2), torch::tensor({4.0, 6.0, 8.0})));
}

TEST(ForwardDefaultArgs, TooManyArgumentsIsAnError) {
  torch::nn::AnyModule any(Shift{});
  const std::string message = error_text([&] { any.forward(input(), 1, 2.0, 3.0); });
#ifdef EMBER_API
  EXPECT_NE(message.find("forward takes 1 to 3 argument(s), but 4 were given"), std::string::npos)
      << message;
#else
  EXPECT_NE(message.find("at most 3 argument(s), but received 4"), std::string::npos) << message;
#endif
}

TEST(ForwardDefaultArgs, WithoutTheMacroFewerArgumentsNameIt) {
  torch::nn::AnyModule any(PlainShift{});
  const std::string message = error_text([&] { any.forward(input()); });
  EXPECT_NE(message.find("FORWARD_HAS_DEFAULT_ARGS"), std::string::npos) << message;
  EXPECT_TRUE(torch::allclose(any.forward(input(), 1, 2.0), torch::tensor({3.0, 5.0, 7.0})));
}

TEST(ForwardDefaultArgs, AnyValueGetReturnsTheValue) {
  EXPECT_EQ(torch::nn::AnyValue(3).get<int>(), 3);
  EXPECT_EQ(torch::nn::AnyValue(2.5).get<double>(), 2.5);
  EXPECT_TRUE(torch::nn::AnyValue(torch::ones({2})).get<Tensor>().equal(torch::ones({2})));
}

}  // namespace forward_defaults_test

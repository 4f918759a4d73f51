// Calls that compile against both LibTorch and Ember must mean the same: each test here is a
// LibTorch idiom whose Ember meaning once differed (issue #14).
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string printed(c10::ScalarType t) {
  std::ostringstream s;
  s << t;
  return s.str();
}

TEST(LibTorchMeaning, ScalarTypePrintsLibTorchsName) {
  EXPECT_EQ(printed(torch::kFloat), "Float");
  EXPECT_EQ(printed(torch::kLong), "Long");
  EXPECT_EQ(printed(torch::kDouble), "Double");
  EXPECT_EQ(printed(torch::kHalf), "Half");
  EXPECT_EQ(printed(torch::kBFloat16), "BFloat16");
  EXPECT_EQ(printed(torch::kBool), "Bool");
  EXPECT_EQ(printed(torch::kByte), "Byte");
  EXPECT_EQ(printed(torch::kChar), "Char");
  EXPECT_EQ(printed(torch::kInt), "Int");
  EXPECT_EQ(printed(torch::kShort), "Short");
}

TEST(LibTorchMeaning, VarAndStdOfAnIntReduceThatDim) {
  torch::Tensor t = torch::tensor({{1.0, 2.0, 6.0}, {4.0, 4.0, 4.0}});
  EXPECT_EQ(t.var(1).sizes().vec(), std::vector<int64_t>{2});
  EXPECT_EQ(t.std(0).sizes().vec(), std::vector<int64_t>{3});
  EXPECT_FLOAT_EQ(t.var(1)[0].item<float>(), 7.0f);
  EXPECT_FLOAT_EQ(torch::var(t, {1}, false)[0].item<float>(), 14.0f / 3);
  EXPECT_EQ(t.var().dim(), 0);
}

TEST(LibTorchMeaning, ToWithRequiresGradOptionsThrows) {
  torch::Tensor t = torch::ones({2});
  EXPECT_THROW(t.to(torch::TensorOptions().requires_grad(true)), c10::Error);
  EXPECT_THROW(t.to(torch::TensorOptions().dtype(torch::kDouble).requires_grad(true)), c10::Error);
  EXPECT_EQ(t.to(torch::TensorOptions().dtype(torch::kDouble)).dtype(), torch::kDouble);
}

TEST(LibTorchMeaning, ToADeviceTypeIsNotAmbiguous) {
  torch::Tensor t = torch::ones({2});
  EXPECT_TRUE(t.to(torch::kCPU).is_same(t));
  if (!torch::cuda::is_available()) {
    EXPECT_THROW(t.to(torch::kCUDA), c10::Error);
  } else {
    EXPECT_TRUE(t.to(torch::kCUDA).is_cuda());
  }
}

TEST(LibTorchMeaning, ModulesTakeTheirOptionsArgumentsDirectly) {
  torch::nn::Threshold threshold(0.5, -1.0);
  EXPECT_EQ(threshold->options.threshold(), 0.5);
  EXPECT_EQ(threshold->options.value(), -1.0);
  torch::Tensor y = threshold(torch::tensor({0.25, 0.75}));
  EXPECT_FLOAT_EQ(y[0].item<float>(), -1.0f);
  EXPECT_FLOAT_EQ(y[1].item<float>(), 0.75f);
}

TEST(LibTorchMeaning, ZeroGradSetsGradientsToNoneByDefault) {
  torch::nn::Linear linear(2, 1);
  linear(torch::ones({1, 2})).sum().backward();
  ASSERT_TRUE(linear->weight.grad().defined());
  linear->zero_grad(/*set_to_none=*/false);
  EXPECT_TRUE(linear->weight.grad().defined());
  EXPECT_EQ(linear->weight.grad().abs().sum().item<float>(), 0.0f);
  linear->zero_grad();
  EXPECT_FALSE(linear->weight.grad().defined());
}

TEST(LibTorchMeaning, CosineEmbeddingLossTakesInt64Targets) {
  torch::Tensor a = torch::tensor({{1.0, 0.0}, {0.0, 1.0}}, torch::kDouble).requires_grad_();
  torch::Tensor b = torch::tensor({{1.0, 1.0}, {1.0, 0.0}}, torch::kDouble);
  torch::nn::CosineEmbeddingLoss loss(torch::nn::CosineEmbeddingLossOptions().margin(-0.5));
  torch::Tensor with_long = loss(a, b, torch::tensor({1, -1}, torch::kLong));
  torch::Tensor with_float = loss(a, b, torch::tensor({1.0, -1.0}, torch::kDouble));
  // About (1 - cos 45 deg) / 2 + max(0, cos 90 deg + 0.5) / 2, with the 1e-12 that both add to
  // the squared norms: torch 1.13 gives 0.39644660940699145.
  EXPECT_NEAR(with_long.item<double>(), 0.39644660940699145, 1e-16);
  EXPECT_EQ(with_long.item<double>(), with_float.item<double>());
  with_long.backward();
  EXPECT_TRUE(a.grad().defined());
}

TEST(LibTorchMeaning, VersionCountsEachInPlaceWriteOnce) {
  torch::Tensor x = torch::zeros({3});
  std::vector<int64_t> versions = {x._version()};
  x.add_(1);
  versions.push_back(x._version());
  x.copy_(torch::ones({3}));
  versions.push_back(x._version());
  x.index_put_({0}, 5);
  versions.push_back(x._version());
  torch::add_out(x, torch::ones({3}), torch::ones({3}));
  versions.push_back(x._version());
  x.zero_();
  versions.push_back(x._version());
  x.clamp_(0, 1);
  versions.push_back(x._version());
  x.narrow(0, 0, 2).mul_(2);
  versions.push_back(x._version());
  x.fill_(3);
  versions.push_back(x._version());
  x.uniform_();
  versions.push_back(x._version());
  // The same sequence in torch 1.13 gives 0, 1, ..., 9.
  EXPECT_EQ(versions, (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
}

TEST(LibTorchMeaning, LayoutAliasAndInference) {
  torch::Tensor x = torch::ones({2, 3});
  EXPECT_EQ(x.layout(), torch::kStrided);
  EXPECT_EQ(x.options().layout(), torch::kStrided);
  EXPECT_FALSE(x.is_sparse());
  try {
    torch::zeros({2}, torch::TensorOptions().layout(torch::kSparse));
    FAIL() << "a sparse layout was accepted";
  } catch (const c10::Error& e) {
    EXPECT_NE(std::string(e.what()).find("Sparse"), std::string::npos) << e.what();
  }
  std::ostringstream printed_layout;
  printed_layout << torch::kSparseCsr;
  EXPECT_EQ(printed_layout.str(), "SparseCsr");

  torch::Tensor t = x.t();
  torch::Tensor a = t.alias();
  EXPECT_EQ(a.sizes(), t.sizes());
  EXPECT_EQ(a.strides(), t.strides());
  EXPECT_EQ(a.data_ptr(), t.data_ptr());
  EXPECT_FALSE(a.is_same(t));

  EXPECT_FALSE(x.is_inference());
  torch::Tensor made_inside, view_inside;
  {
    c10::InferenceMode guard;
    made_inside = torch::ones({2});
    view_inside = x.view({3, 2});
  }
  EXPECT_TRUE(made_inside.is_inference());
  EXPECT_TRUE(made_inside.narrow(0, 0, 1).is_inference());
  EXPECT_FALSE(view_inside.is_inference());  // a view of a normal tensor stays normal
}

TEST(LibTorchMeaning, InferenceTensorsRefuseWritesAndSavingOutsideInferenceMode) {
  torch::Tensor inf;
  {
    c10::InferenceMode guard;
    inf = torch::ones({3});
    inf.add_(1);  // inside: allowed
  }
  EXPECT_EQ(inf.sum().item<float>(), 6.0f);
  EXPECT_THROW(inf.add_(1), c10::Error);
  EXPECT_THROW(inf.fill_(0), c10::Error);
  EXPECT_THROW(inf.copy_(torch::zeros({3})), c10::Error);
  EXPECT_THROW(inf.narrow(0, 0, 1).mul_(2), c10::Error);
  EXPECT_EQ(inf.sum().item<float>(), 6.0f);  // refused before anything was written
  torch::Tensor w = torch::ones({3}, torch::requires_grad());
  EXPECT_THROW((inf * w).sum(), c10::Error);  // mul would save inf for backward
  torch::Tensor normal = inf.clone();
  EXPECT_FALSE(normal.is_inference());
  (normal * w).sum().backward();
  EXPECT_TRUE(torch::allclose(w.grad(), torch::full({3}, 2.0f)));
}

TEST(LibTorchMeaning, AssigningToATemporaryWritesIntoTheTensor) {
  torch::Tensor x = torch::zeros({2, 3});
  x[0][1] = 5;                                         // fills the element the temporary views
  x.select(0, 1) = torch::tensor({1.0f, 2.0f, 3.0f});  // copies in
  x.index({0, 2}) = 2.5;
  EXPECT_EQ(x[0][1].item<float>(), 5.0f);
  EXPECT_EQ(x[0][2].item<float>(), 2.5f);
  EXPECT_EQ(x[1][2].item<float>(), 3.0f);
  EXPECT_EQ(x.sum().item<float>(), 13.5f);
  torch::Tensor y = x;  // a named tensor rebinds
  y = torch::ones({1});
  EXPECT_EQ(x.numel(), 6);
  EXPECT_EQ(y.numel(), 1);
}

}  // namespace

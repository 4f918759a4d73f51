// Every elementwise row of op_table.h on CUDA against the CPU result, for every dtype: the rows
// come from the table macros, so a new row is tested here without an edit. A dtype the CPU rejects
// must be rejected on CUDA too.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "tests/cuda/cuda_test_util.h"

using namespace ember;
using namespace ember_cuda_test;

namespace {

using Args = std::vector<Tensor>;
using Fn = std::function<Tensor(const Args&)>;

// Runs fn on the CPU arguments and on copies of them on the GPU, and compares.
void compare(const std::string& what, const Args& cpu_args, const Fn& fn) {
  Args dev_args;
  for (const Tensor& a : cpu_args) dev_args.push_back(on_cuda(a));
  Tensor expected;
  try {
    expected = fn(cpu_args);
  } catch (const Error&) {
    EXPECT_THROW(fn(dev_args), Error) << what << ": the CPU rejects it, CUDA must too";
    return;
  }
  Tensor got;
  try {
    got = fn(dev_args);
  } catch (const Error& e) {
    ADD_FAILURE() << what << ": works on the CPU, throws on CUDA: " << e.what();
    return;
  }
  expect_matches_cpu(expected, got, what);
}

std::string label(const char* op, ScalarType t) { return std::string(op) + " " + to_string(t); }

struct Row {
  const char* name;
  Fn fn;
};

std::vector<Row> unary_rows() {
  return {
#define EMBER_TEST_UNARY(name, Name, policy) \
  {#name, [](const Args& a) { return ember::name(a[0]); }},
      EMBER_UNARY_OPS(EMBER_TEST_UNARY)
#undef EMBER_TEST_UNARY
  };
}

std::vector<Row> binary_rows() {
  return {
#define EMBER_TEST_BINARY(name, Name, policy) \
  {#name, [](const Args& a) { return ember::name(a[0], a[1]); }},
      EMBER_BINARY_OPS(EMBER_TEST_BINARY)
#undef EMBER_TEST_BINARY
  };
}

// The rows of EMBER_SPECIAL_ELEMENTWISE_OPS, through their public functions. Arguments: sample,
// sample2 and a third operand in [0, 1].
std::vector<Row> special_rows() {
  return {
      {"add", [](const Args& a) { return add(a[0], a[1], 2); }},
      {"sub", [](const Args& a) { return sub(a[0], a[1], 3); }},
      {"div", [](const Args& a) { return div(a[0], a[1]); }},
      {"div_trunc", [](const Args& a) { return div(a[0], a[1], "trunc"); }},
      {"div_floor", [](const Args& a) { return div(a[0], a[1], "floor"); }},
      {"round", [](const Args& a) { return round(a[0]); }},
      {"round_decimals", [](const Args& a) { return round(a[0], 1); }},
      {"clamp", [](const Args& a) { return clamp(a[0], Scalar(-1), Scalar(2)); }},
      {"clamp_min", [](const Args& a) { return clamp_min(a[0], -1); }},
      {"clamp_max", [](const Args& a) { return clamp_max(a[0], 1); }},
      {"clamp_tensor",
       [](const Args& a) {
         return clamp(a[0], std::optional<Tensor>(a[1]), std::optional<Tensor>(a[2]));
       }},
      {"gelu", [](const Args& a) { return gelu(a[0]); }},
      {"gelu_tanh", [](const Args& a) { return gelu(a[0], "tanh"); }},
      {"logit", [](const Args& a) { return logit(a[2]); }},
      {"logit_eps", [](const Args& a) { return logit(a[2], 0.25); }},
      {"nan_to_num", [](const Args& a) { return nan_to_num(div(a[0], a[0]), 1.5, 100.0, -100.0); }},
      {"lerp", [](const Args& a) { return lerp(a[0], a[1], 0.3); }},
      {"lerp_tensor", [](const Args& a) { return lerp(a[0], a[1], a[2]); }},
      {"addcmul", [](const Args& a) { return addcmul(a[0], a[1], a[2], 2); }},
      {"addcdiv", [](const Args& a) { return addcdiv(a[0], a[2], a[1], 0.5); }},
      {"threshold_backward", [](const Args& a) { return threshold_backward(a[0], a[1], 0.5); }},
      {"where", [](const Args& a) { return where(gt(a[1], a[0]), a[0], a[1]); }},
      {"cast", [](const Args& a) { return a[2].to(kDouble); }},
      {"fill", [](const Args& a) { return full_like(a[0], 3); }},
  };
}

// The third operand: [0, 1] for floats, 0..3 for integers, and its own pattern for bool.
Tensor sample3(ScalarType t, int64_t n = 97) {
  if (is_floating_point(t)) return linspace(0.02, 0.98, n, TensorOptions().dtype(kDouble)).to(t);
  return remainder(arange(n, TensorOptions().dtype(kLong)), 4).to(t);
}

}  // namespace

TEST(CudaElementwise, EveryUnaryRowMatchesCpu) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  for (ScalarType t : all_dtypes())
    for (const Row& r : unary_rows()) compare(label(r.name, t), {sample(t)}, r.fn);
}

TEST(CudaElementwise, EveryBinaryRowMatchesCpu) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  for (ScalarType t : all_dtypes()) {
    for (const Row& r : binary_rows()) {
      compare(label(r.name, t), {sample(t), sample2(t)}, r.fn);
      // Mixed dtypes promote before the kernel runs.
      compare(label(r.name, t) + " with float32", {sample(t), sample2(kFloat)}, r.fn);
    }
  }
}

TEST(CudaElementwise, BinaryRowsWithScalarOperandsMatchCpu) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
#define EMBER_TEST_BINARY_SCALAR(name, Name, policy)                     \
  for (ScalarType t : all_dtypes()) {                                    \
    compare(label(#name, t) + " tensor-scalar", {sample(t)},             \
            [](const Args& a) { return ember::name(a[0], Scalar(2)); }); \
    compare(label(#name, t) + " scalar-tensor", {sample2(t)},            \
            [](const Args& a) { return ember::name(Scalar(3), a[0]); }); \
  }
  EMBER_BINARY_OPS(EMBER_TEST_BINARY_SCALAR)
#undef EMBER_TEST_BINARY_SCALAR
}

TEST(CudaElementwise, EverySpecialRowMatchesCpu) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  for (ScalarType t : all_dtypes())
    for (const Row& r : special_rows())
      compare(label(r.name, t), {sample(t), sample2(t), sample3(t)}, r.fn);
}

TEST(CudaElementwise, InPlaceAndOutFormsWriteTheCudaTensor) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  Tensor h = sample(kFloat);
  Tensor d = on_cuda(h);
  d.exp_();
  h.exp_();
  expect_matches_cpu(h, d, "exp_");
  Tensor out = empty({97}, TensorOptions().dtype(kFloat).device(kCUDA));
  sin_out(out, d);
  expect_matches_cpu(sin(h), out, "sin_out");
  d.add_(on_cuda(sample2(kFloat)), 0.5);
  h.add_(sample2(kFloat), 0.5);
  expect_matches_cpu(h, d, "add_");
}

TEST(CudaElementwise, StridedAndBroadcastOperandsMatchCpu) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  Tensor a = sample(kFloat, 6 * 8 * 5).reshape({6, 8, 5});
  Tensor b = sample2(kFloat, 5);
  Tensor c = sample3(kFloat, 8).reshape({8, 1});
  const std::vector<std::pair<std::string, Fn>> cases = {
      {"broadcast row", [](const Args& x) { return add(x[0], x[1]); }},
      {"broadcast column", [](const Args& x) { return mul(x[0], x[2]); }},
      {"permuted",
       [](const Args& x) {
         return exp(x[0].permute({2, 0, 1}));
       }},
      {"transposed pair",
       [](const Args& x) { return atan2(x[0].transpose(0, 2), x[0].transpose(0, 2)); }},
      {"stepped slices",
       [](const Args& x) { return sub(x[0].slice(1, 0, 8, 2), x[0].slice(1, 1, 8, 2)); }},
      {"where broadcast", [](const Args& x) { return where(gt(x[2], 0.5), x[0], x[1]); }},
      {"ternary mixed",
       [](const Args& x) { return addcmul(x[0].transpose(1, 2), x[1].unsqueeze(1), x[2].t()); }},
      {"in place on a view",
       [](const Args& x) {
         Tensor y = x[0].clone();
         y.transpose(0, 1).mul_(2);
         return y;
       }},
  };
  for (const auto& [what, fn] : cases) compare(what, {a, b, c}, fn);
}

TEST(CudaElementwise, LargeTensorsTakeTheVectorisedPathAndItsTail) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const int64_t n = (int64_t(1) << 22) + 3;  // not a multiple of any vector width
  for (ScalarType t : {kFloat, kHalf, kBFloat16, kDouble, kByte}) {
    Tensor x = remainder(arange(n, TensorOptions().dtype(kLong)), 201).to(t);
    compare(label("large add", t), {x}, [](const Args& a) { return add(a[0], a[0]); });
    compare(label("large gt", t), {x}, [](const Args& a) { return gt(a[0], 100); });
  }
  Tensor f = linspace(-4, 4, n, TensorOptions().dtype(kFloat));
  compare("large sigmoid float32", {f}, [](const Args& a) { return sigmoid(a[0]); });
}

// LibTorch names beyond the tensor types: c10::MemoryFormat with contiguous / is_contiguous /
// clone / empty, c10::toString(ScalarType), at::parallel_for and the thread count, the
// TORCH_VERSION macros, torch::autograd::Variable. The file also builds and passes against
// LibTorch 1.13; only Ember's error wording and version sit in EMBER_API blocks.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace libtorch_names_test {

using torch::Tensor;

std::vector<int64_t> strides_of(const Tensor& t) { return t.strides().vec(); }

template <class F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

Tensor nchw() { return torch::arange(120, torch::kFloat).view({2, 3, 4, 5}); }

TEST(MemoryFormat, ChannelsLastIsAPermutedStrideCopy) {
  Tensor x = nchw();
  Tensor y = x.contiguous(c10::MemoryFormat::ChannelsLast);
  EXPECT_EQ(strides_of(y), (std::vector<int64_t>{60, 1, 15, 3}));
  EXPECT_TRUE(y.is_contiguous(c10::MemoryFormat::ChannelsLast));
  EXPECT_FALSE(y.is_contiguous());
  EXPECT_FALSE(x.is_contiguous(at::MemoryFormat::ChannelsLast));
  EXPECT_TRUE(torch::equal(x, y));
  // Already in the format: the tensor itself.
  EXPECT_TRUE(y.contiguous(c10::MemoryFormat::ChannelsLast).is_same(y));
  Tensor back = y.contiguous(c10::MemoryFormat::Contiguous);
  EXPECT_EQ(strides_of(back), (std::vector<int64_t>{60, 20, 5, 1}));
  EXPECT_TRUE(torch::equal(back, x));
}

TEST(MemoryFormat, ChannelsLast3dStrides) {
  Tensor v = torch::zeros({2, 3, 4, 5, 6}).contiguous(c10::MemoryFormat::ChannelsLast3d);
  EXPECT_EQ(strides_of(v), (std::vector<int64_t>{360, 1, 90, 18, 3}));
  EXPECT_TRUE(v.is_contiguous(c10::MemoryFormat::ChannelsLast3d));
  EXPECT_FALSE(v.is_contiguous(c10::MemoryFormat::ChannelsLast));
}

TEST(MemoryFormat, SizeOneDimsFitBothFormats) {
  Tensor one_channel = torch::zeros({2, 1, 4, 5});
  EXPECT_TRUE(one_channel.is_contiguous(c10::MemoryFormat::ChannelsLast));
  EXPECT_TRUE(one_channel.is_contiguous());
  EXPECT_EQ(one_channel.suggest_memory_format(), c10::MemoryFormat::Contiguous);
}

TEST(MemoryFormat, ContiguousAndPreserveOnAContiguousTensor) {
  Tensor x = nchw();
  EXPECT_TRUE(x.is_contiguous(c10::MemoryFormat::Contiguous));
  EXPECT_TRUE(x.is_contiguous(c10::MemoryFormat::Preserve));
  EXPECT_TRUE(x.contiguous(c10::MemoryFormat::Contiguous).is_same(x));
  EXPECT_TRUE(x.contiguous(c10::MemoryFormat::Preserve).is_same(x));
  EXPECT_EQ(x.suggest_memory_format(), c10::MemoryFormat::Contiguous);
  EXPECT_EQ(x.contiguous(c10::MemoryFormat::ChannelsLast).suggest_memory_format(),
            c10::MemoryFormat::ChannelsLast);
}

TEST(MemoryFormat, ErrorsNameTheProblem) {
  std::string m = message_of([] {
    torch::zeros({3, 4}).t().contiguous(c10::MemoryFormat::Preserve);
  });
  EXPECT_NE(m.find("preserve memory format is unsupported by the contiguous operator"),
            std::string::npos)
      << m;
  m = message_of([] { torch::zeros({3, 4}).contiguous(c10::MemoryFormat::ChannelsLast); });
  EXPECT_NE(m.find("required rank 4 tensor to use channels_last format"), std::string::npos) << m;
  m = message_of([] { nchw().contiguous(c10::MemoryFormat::ChannelsLast3d); });
  EXPECT_NE(m.find("required rank 5 tensor to use channels_last_3d format"), std::string::npos)
      << m;
  EXPECT_FALSE(torch::zeros({3, 4}).is_contiguous(c10::MemoryFormat::ChannelsLast));
}

TEST(MemoryFormat, ChannelsLastCopyIsDifferentiable) {
  Tensor x = nchw().requires_grad_(true);
  Tensor y = x.contiguous(c10::MemoryFormat::ChannelsLast);
  EXPECT_TRUE(y.requires_grad());
  Tensor w = torch::arange(120, torch::kFloat).view({2, 3, 4, 5}) * 0.5;
  (y * w).sum().backward();
  EXPECT_TRUE(torch::equal(x.grad(), w));
}

TEST(MemoryFormat, CloneTakesAFormat) {
  Tensor x = nchw();
  Tensor cl = x.clone(c10::MemoryFormat::ChannelsLast);
  EXPECT_EQ(strides_of(cl), (std::vector<int64_t>{60, 1, 15, 3}));
  EXPECT_TRUE(torch::equal(cl, x));
  EXPECT_EQ(strides_of(cl.clone(c10::MemoryFormat::Preserve)),
            (std::vector<int64_t>{60, 1, 15, 3}));
  EXPECT_EQ(strides_of(cl.clone(c10::MemoryFormat::Contiguous)),
            (std::vector<int64_t>{60, 20, 5, 1}));
  EXPECT_FALSE(cl.clone(c10::MemoryFormat::Preserve).is_same(cl));
}

TEST(MemoryFormat, EmptyReadsTheOptionOtherFactoriesIgnoreIt) {
  auto options =
      torch::TensorOptions().dtype(torch::kFloat).memory_format(c10::MemoryFormat::ChannelsLast);
  EXPECT_EQ(strides_of(torch::empty({2, 3, 4, 5}, options)), (std::vector<int64_t>{60, 1, 15, 3}));
  EXPECT_EQ(strides_of(torch::empty({2, 3, 4, 5}, torch::kFloat, c10::MemoryFormat::ChannelsLast)),
            (std::vector<int64_t>{60, 1, 15, 3}));
  EXPECT_EQ(strides_of(torch::zeros({2, 3, 4, 5}, options)), (std::vector<int64_t>{60, 20, 5, 1}));
  EXPECT_TRUE(options.has_memory_format());
  EXPECT_EQ(*options.memory_format_opt(), c10::MemoryFormat::ChannelsLast);
  EXPECT_TRUE(torch::ones({2}, torch::TensorOptions().memory_format(c10::MemoryFormat::Contiguous))
                  .is_contiguous());
}

TEST(MemoryFormat, EmptyRefusesPreserveAndResizeTakesAFormat) {
  EXPECT_THROW(torch::empty({2, 3}, torch::kFloat, c10::MemoryFormat::Preserve), c10::Error);
  Tensor t = torch::empty({0});
  t.resize_({2, 3, 4, 5}, c10::MemoryFormat::ChannelsLast);
  EXPECT_EQ(strides_of(t), (std::vector<int64_t>{60, 1, 15, 3}));
  t.resize_({6});
  EXPECT_EQ(strides_of(t), (std::vector<int64_t>{1}));
}

TEST(MemoryFormat, SuggestWithExactStrides) {
  // [2, 3, 4, 1] laid out channels-last except for the size-1 W, whose stride is arbitrary: like
  // channels-last, but not exactly its strides.
  Tensor base = torch::zeros({2 * 3 * 4 * 99});
  Tensor t = base.as_strided({2, 3, 4, 1}, {12, 1, 3, 99});
  EXPECT_EQ(t.suggest_memory_format(), c10::MemoryFormat::ChannelsLast);
  EXPECT_EQ(t.suggest_memory_format(/*channels_last_strides_exact_match=*/true),
            c10::MemoryFormat::Contiguous);
  Tensor exact = torch::empty({2, 3, 4, 1}, torch::kFloat, c10::MemoryFormat::ChannelsLast);
  EXPECT_EQ(exact.suggest_memory_format(true), c10::MemoryFormat::ChannelsLast);
}

TEST(MemoryFormat, PrintsLibTorchsNames) {
  std::ostringstream s;
  s << c10::MemoryFormat::Contiguous << ' ' << c10::MemoryFormat::Preserve << ' '
    << c10::MemoryFormat::ChannelsLast << ' ' << c10::MemoryFormat::ChannelsLast3d;
  EXPECT_EQ(s.str(), "Contiguous Preserve ChannelsLast ChannelsLast3d");
}

TEST(ScalarTypeNames, ToStringGivesLibTorchsNames) {
  EXPECT_EQ(std::string(c10::toString(torch::kFloat)), "Float");
  EXPECT_EQ(std::string(c10::toString(torch::kDouble)), "Double");
  EXPECT_EQ(std::string(c10::toString(torch::kLong)), "Long");
  EXPECT_EQ(std::string(c10::toString(torch::kBFloat16)), "BFloat16");
  EXPECT_EQ(std::string(c10::toString(torch::kBool)), "Bool");
  EXPECT_EQ(std::string(c10::toString(torch::kByte)), "Byte");
}

TEST(Parallel, ParallelForCoversTheRangeOnce) {
  std::vector<int> hits(1000, 0);
  at::parallel_for(0, 1000, 16, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) hits[static_cast<size_t>(i)] += 1;
  });
  EXPECT_EQ(hits, std::vector<int>(1000, 1));
}

TEST(Parallel, AtMostGrainRunsAsOneCallAndEmptyRangesNone) {
  std::vector<std::pair<int64_t, int64_t>> calls;
  std::mutex mu;
  auto record = [&](int64_t b, int64_t e) {
    std::lock_guard<std::mutex> lock(mu);
    calls.emplace_back(b, e);
  };
  at::parallel_for(5, 105, 100, record);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0], std::make_pair(int64_t{5}, int64_t{105}));
  calls.clear();
  at::parallel_for(7, 7, 1, record);
  EXPECT_TRUE(calls.empty());
}

TEST(LinalgNames, AtenSpellingsAreTheLinalgFunctions) {
  const Tensor A = torch::tensor({{4.0, 1.0}, {1.0, 3.0}}, torch::kDouble);
  const Tensor B = torch::tensor({{1.0}, {2.0}}, torch::kDouble);
  EXPECT_TRUE(torch::allclose(torch::linalg_inv(A), torch::linalg::inv(A)));
  EXPECT_TRUE(torch::allclose(torch::linalg_solve(A, B), torch::linalg::solve(A, B, true)));
  EXPECT_TRUE(torch::allclose(torch::linalg_cholesky(A), torch::linalg::cholesky(A)));
  EXPECT_NEAR(torch::linalg_det(A).item<double>(), 11.0, 1e-12);
  EXPECT_NEAR(torch::linalg_matrix_norm(A, "fro").item<double>(), std::sqrt(27.0), 1e-12);
  EXPECT_NEAR(torch::linalg_vector_norm(B, 1, {0}, false).item<double>(), 3.0, 1e-12);
  EXPECT_NEAR(torch::linalg_norm(B, 2).item<double>(), std::sqrt(5.0), 1e-12);
  const Tensor s = torch::linalg_svdvals(A);
  EXPECT_TRUE(torch::allclose(std::get<1>(torch::linalg_svd(A, false)), s));
  EXPECT_TRUE(torch::allclose(std::get<0>(torch::linalg_eigh(A)), torch::linalg_eigvalsh(A)));
  EXPECT_EQ(torch::linalg_matrix_rank(A).item<int64_t>(), 2);
  EXPECT_TRUE(torch::allclose(torch::linalg_pinv(A), torch::linalg_inv(A)));
  EXPECT_TRUE(torch::allclose(torch::linalg_matrix_exp(torch::zeros({2, 2}, torch::kDouble)),
                              torch::eye(2, torch::kDouble)));
}

TEST(Parallel, ParallelReduceCombinesEveryChunk) {
  auto sum_range = [](int64_t b, int64_t e, int64_t ident) {
    int64_t s = ident;
    for (int64_t i = b; i < e; ++i) s += i;
    return s;
  };
  auto plus = [](int64_t a, int64_t b) { return a + b; };
  EXPECT_EQ(at::parallel_reduce(0, 100000, 64, int64_t{0}, sum_range, plus),
            int64_t{100000} * 99999 / 2);
  EXPECT_EQ(at::parallel_reduce(3, 3, 1, int64_t{7}, sum_range, plus), 7);  // empty: ident
  const double max = at::parallel_reduce(
      0, 1000, 10, -1.0,
      [](int64_t b, int64_t e, double ident) {
        double m = ident;
        for (int64_t i = b; i < e; ++i) m = std::max(m, static_cast<double>((i * 37) % 1000));
        return m;
      },
      [](double a, double b) { return std::max(a, b); });
  EXPECT_EQ(max, 999.0);
}

TEST(Parallel, ExceptionsReachTheCaller) {
  EXPECT_THROW(at::parallel_for(0, 1000, 1,
                                [](int64_t, int64_t) { throw std::runtime_error("chunk failed"); }),
               std::runtime_error);
}

TEST(Parallel, ThreadCount) {
  const int before = at::get_num_threads();
  EXPECT_GE(before, 1);
  at::set_num_threads(1);
  EXPECT_EQ(at::get_num_threads(), 1);
  std::atomic<int> calls{0};
  at::parallel_for(0, 1000, 1, [&](int64_t, int64_t) { calls += 1; });
  EXPECT_EQ(calls.load(), 1);
  at::set_num_threads(before);
  EXPECT_EQ(at::get_num_threads(), before);
  EXPECT_FALSE(at::in_parallel_region());
  EXPECT_EQ(at::get_thread_num(), 0);
}

TEST(Version, MacrosAgree) {
  static_assert(TORCH_VERSION_MAJOR >= 1, "TORCH_VERSION_MAJOR");
  EXPECT_EQ(std::string(TORCH_VERSION), std::to_string(TORCH_VERSION_MAJOR) + "." +
                                            std::to_string(TORCH_VERSION_MINOR) + "." +
                                            std::to_string(TORCH_VERSION_PATCH));
#ifdef EMBER_API
  EXPECT_EQ(std::string(TORCH_VERSION), "1.13.0");  // the LibTorch API Ember follows
#endif
}

TEST(AutogradNames, VariableAndTensorListAreTensors) {
  static_assert(std::is_same<torch::autograd::Variable, torch::Tensor>::value, "Variable");
  static_assert(std::is_same<torch::autograd::tensor_list, std::vector<torch::Tensor>>::value,
                "tensor_list");
  static_assert(std::is_same<torch::autograd::variable_list, std::vector<torch::Tensor>>::value,
                "variable_list");
}

}  // namespace libtorch_names_test

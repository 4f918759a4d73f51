// The c10 and torch utility names LibTorch programs use, through LibTorch's header paths: irange,
// str, optional, string_view, OptionalIntArrayRef, TempFile, flat_hash_map, ExpandingArray, Dtype,
// autograd's aliases, and the glog-style logging macros.
#include <c10/util/ArrayRef.h>
#include <c10/util/Logging.h>
#include <c10/util/Optional.h>
#include <c10/util/OptionalArrayRef.h>
#include <c10/util/StringUtil.h>
#include <c10/util/flat_hash_map.h>
#include <c10/util/irange.h>
#include <c10/util/string_view.h>
#include <c10/util/tempfile.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <torch/autograd.h>
#include <torch/expanding_array.h>

#include <array>
#include <cstdint>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace {

template <class Range>
auto collect_range(const Range& range) {
  std::vector<std::decay_t<decltype(*range.begin())>> values;
  for (auto i : range) values.push_back(i);
  return values;
}

bool path_exists(const std::string& path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0;
}

}  // namespace

TEST(C10Irange, CountsFromZeroToEnd) {
  EXPECT_EQ(collect_range(c10::irange(4)), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(collect_range(c10::irange(2, 5)), (std::vector<int>{2, 3, 4}));
  std::vector<int64_t> seen;
  for (const auto i : c10::irange(int64_t{3})) seen.push_back(i * 10);
  EXPECT_EQ(seen, (std::vector<int64_t>{0, 10, 20}));
}

TEST(C10Irange, EmptyWhenEndIsNotAfterBegin) {
  EXPECT_TRUE(collect_range(c10::irange(0)).empty());
  EXPECT_TRUE(collect_range(c10::irange(-3)).empty());
  EXPECT_TRUE(collect_range(c10::irange(5, 5)).empty());
  EXPECT_TRUE(collect_range(c10::irange(7, 2)).empty());
  EXPECT_TRUE(collect_range(c10::irange(size_t{0})).empty());
}

TEST(C10Irange, TakesEndsType) {
  const std::vector<float> v(3);
  static_assert(std::is_same_v<decltype(*c10::irange(1, v.size()).begin()), size_t>);
  static_assert(std::is_same_v<decltype(*c10::irange(int64_t{4}).begin()), int64_t>);
  EXPECT_EQ(collect_range(c10::irange(1, v.size())), (std::vector<size_t>{1, 2}));
  // Ranges beyond 32 bits count in int64_t.
  const int64_t big = int64_t{1} << 40;
  EXPECT_EQ(collect_range(c10::irange(big, big + 2)), (std::vector<int64_t>{big, big + 1}));
  EXPECT_TRUE(collect_range(c10::irange(big, -big)).empty());
  // A negative begin against an unsigned end is empty, not a wrapped-around loop.
  EXPECT_TRUE(collect_range(c10::irange(-1, size_t{3})).empty());
}

TEST(C10Str, StreamsEveryPart) {
  EXPECT_EQ(c10::str("expected ", 3, " dims, got ", 2.5, ' ', c10::IntArrayRef{2, 3}),
            "expected 3 dims, got 2.5 [2, 3]");
  EXPECT_EQ(c10::str(), "");
  EXPECT_EQ(c10::str(std::string("alone")), "alone");
  EXPECT_EQ(c10::Join(", ", std::vector<int>{1, 2, 3}), "1, 2, 3");
  EXPECT_EQ(c10::Join("-", std::vector<int>{}), "");
}

TEST(C10Optional, NamesTheStdOnes) {
  c10::optional<int64_t> dim = c10::nullopt;
  EXPECT_FALSE(dim.has_value());
  dim = c10::make_optional<int64_t>(2);
  EXPECT_EQ(dim.value(), 2);
  torch::optional<double> p;  // torch:: is the same namespace
  EXPECT_EQ(p.value_or(0.5), 0.5);
  static_assert(std::is_same_v<c10::optional<int>, std::optional<int>>);
  static_assert(std::is_same_v<c10::nullopt_t, std::nullopt_t>);
  EXPECT_THROW(c10::optional<int>().value(), c10::bad_optional_access);
}

TEST(C10StringView, NamesTheStdOne) {
  const c10::string_view mode = "reduced";
  EXPECT_EQ(mode.substr(0, 3), "red");
  static_assert(std::is_same_v<c10::string_view, std::string_view>);
}

TEST(C10Optional, OptionalIntArrayRefFromListValueOrNothing) {
  const auto dims_of = [](c10::OptionalIntArrayRef dims) {
    return dims.has_value() ? dims->vec() : std::vector<int64_t>{-1};
  };
  EXPECT_EQ(dims_of({1, 2}), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(dims_of(c10::nullopt), (std::vector<int64_t>{-1}));
  const std::vector<int64_t> kept{0, 3};
  EXPECT_EQ(dims_of(kept), kept);
  c10::OptionalArrayRef<int64_t> none;
  EXPECT_FALSE(none.has_value());
}

TEST(C10TempFile, ExistsWhileAliveAndIsRemovedAfter) {
  std::string name;
  {
    c10::TempFile file = c10::make_tempfile("ember-compat-test-");
    name = file.name;
    EXPECT_NE(name.find("/ember-compat-test-"), std::string::npos) << name;
    EXPECT_GE(file.fd, 0);
    EXPECT_TRUE(path_exists(name));
    c10::TempFile moved = std::move(file);  // the moved-from one removes nothing
    EXPECT_TRUE(file.name.empty());
    EXPECT_EQ(moved.name, name);
    EXPECT_TRUE(path_exists(name));
  }
  EXPECT_FALSE(path_exists(name));
}

TEST(C10TempFile, TwoFilesHaveTwoNamesAndTryMakeReturnsOne) {
  c10::TempFile a = c10::make_tempfile();
  c10::optional<c10::TempFile> b = c10::try_make_tempfile();
  ASSERT_TRUE(b.has_value());
  EXPECT_NE(a.name, b->name);
  const std::string old_name = a.name;
  a = std::move(*b);  // a's old file goes, b's is a's now
  EXPECT_FALSE(path_exists(old_name));
  EXPECT_TRUE(path_exists(a.name));
}

TEST(C10TempFile, TempDirIsRemovedWhenEmpty) {
  std::string name;
  {
    c10::TempDir dir = c10::make_tempdir();
    name = dir.name;
    struct stat info;
    ASSERT_EQ(::stat(name.c_str(), &info), 0);
    EXPECT_TRUE(S_ISDIR(info.st_mode));
  }
  EXPECT_FALSE(path_exists(name));
}

TEST(C10TempFile, UnwritableFolderThrowsNamingIt) {
  const char* old = std::getenv("TMPDIR");
  const std::string saved = old != nullptr ? old : "";
  ::setenv("TMPDIR", "/nonexistent-ember-folder", 1);
  EXPECT_FALSE(c10::try_make_tempfile().has_value());
  try {
    c10::make_tempfile("x-");
    ADD_FAILURE() << "make_tempfile did not throw";
  } catch (const c10::Error& e) {
    EXPECT_NE(e.msg().find("make_tempfile: cannot create /nonexistent-ember-folder/x-XXXXXX"),
              std::string::npos)
        << e.msg();
  }
  if (old != nullptr) {
    ::setenv("TMPDIR", saved.c_str(), 1);
  } else {
    ::unsetenv("TMPDIR");
  }
}

TEST(SkaFlatHashMap, MapsAndSets) {
  ska::flat_hash_map<std::string, int> counts;
  for (const char* word : {"a", "b", "a", "c", "a"}) ++counts[word];
  EXPECT_EQ(counts.size(), 3u);
  EXPECT_EQ(counts.at("a"), 3);
  EXPECT_EQ(counts.find("z"), counts.end());
  EXPECT_EQ(counts.erase("b"), 1u);
  ska::flat_hash_set<int64_t> seen{1, 2, 2, 3};
  EXPECT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen.count(2), 1u);
}

TEST(TorchExpandingArray, OneValueFillsAll) {
  torch::ExpandingArray<2> kernel(3);
  EXPECT_EQ(*kernel, (std::array<int64_t, 2>{3, 3}));
  EXPECT_EQ(kernel.size(), 2u);
  EXPECT_EQ(kernel->size(), 2u);
  torch::ExpandingArray<3, double> scale = 0.5;
  EXPECT_EQ((*scale)[2], 0.5);
}

TEST(TorchExpandingArray, ExactlyDValuesFromListVectorOrArray) {
  torch::ExpandingArray<2> stride = {1, 2};
  EXPECT_EQ(*stride, (std::array<int64_t, 2>{1, 2}));
  torch::ExpandingArray<3> from_vector(std::vector<int64_t>{4, 5, 6});
  EXPECT_EQ((*from_vector)[1], 5);
  torch::ExpandingArray<2> from_array(std::array<int64_t, 2>{7, 8});
  c10::IntArrayRef as_ref = from_array;
  EXPECT_EQ(as_ref.vec(), (std::vector<int64_t>{7, 8}));
  (*stride)[0] = 9;
  EXPECT_EQ(stride->at(0), 9);
  std::ostringstream printed;
  printed << stride << " " << torch::ExpandingArray<1>(4);
  EXPECT_EQ(printed.str(), "[9, 2] 4");
}

TEST(TorchExpandingArray, WrongCountThrowsNamingBoth) {
  try {
    torch::ExpandingArray<2> bad = {1, 2, 3};
    ADD_FAILURE() << "three values for ExpandingArray<2> did not throw: " << bad;
  } catch (const c10::Error& e) {
    EXPECT_NE(e.msg().find("ExpandingArray: expected 2 values, got 3"), std::string::npos)
        << e.msg();
  }
  EXPECT_THROW(torch::ExpandingArray<3>(std::vector<int64_t>{1}), c10::ValueError);
}

TEST(TorchExpandingArray, OptionalElementsMayBeMissing) {
  torch::ExpandingArrayWithOptionalElem<2> size = {4, 5};
  EXPECT_EQ((*size)[0], c10::optional<int64_t>(4));
  torch::ExpandingArrayWithOptionalElem<2> one_missing = {c10::optional<int64_t>(3), c10::nullopt};
  EXPECT_EQ((*one_missing)[0], c10::optional<int64_t>(3));
  EXPECT_FALSE((*one_missing)[1].has_value());
  torch::ExpandingArrayWithOptionalElem<3> all(2);
  EXPECT_EQ((*all)[2], c10::optional<int64_t>(2));
  std::ostringstream printed;
  printed << one_missing;
  EXPECT_EQ(printed.str(), "[3, None]");
  EXPECT_THROW((torch::ExpandingArrayWithOptionalElem<2>{1, 2, 3}), c10::Error);
}

TEST(TorchTypes, DtypeIsScalarType) {
  const torch::Dtype dtype = torch::kFloat64;
  EXPECT_EQ(torch::zeros({1}, dtype).scalar_type(), c10::ScalarType::Double);
}

TEST(TorchAutogradNames, VariableIsTensorAndListsAreVectors) {
  static_assert(std::is_same_v<torch::autograd::Variable, at::Tensor>);
  static_assert(std::is_same_v<torch::autograd::variable_list, std::vector<at::Tensor>>);
  static_assert(std::is_same_v<torch::autograd::tensor_list, std::vector<at::Tensor>>);
  torch::autograd::Variable x = torch::ones({2}, torch::requires_grad());
  torch::autograd::variable_list grads = torch::autograd::grad({(x * 3).sum()}, {x});
  ASSERT_EQ(grads.size(), 1u);
  EXPECT_EQ(grads[0][1].item<float>(), 3.0f);
}

TEST(C10Logging, LogWritesALineAndChecksPassQuietly) {
  testing::internal::CaptureStderr();
  LOG(INFO) << "loaded " << 3 << " shards";
  LOG(WARNING) << "slow";
  LOG_IF(ERROR, false) << "never";
  int evaluated = 0;
  VLOG(1) << "verbose " << ++evaluated;  // off: not evaluated
  CHECK(1 + 1 == 2) << "arithmetic";
  CHECK_EQ(2, 2);
  CHECK_LT(1, 2) << "order";
  DCHECK(true);
  int value = 5;
  int* p = CHECK_NOTNULL(&value);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(*p, 5);
  EXPECT_EQ(evaluated, 0);
  EXPECT_NE(err.find("loaded 3 shards"), std::string::npos) << err;
  EXPECT_NE(err.find("slow"), std::string::npos) << err;
  EXPECT_EQ(err.find("never"), std::string::npos) << err;
  EXPECT_EQ(err.find("arithmetic"), std::string::npos) << err;
}

TEST(C10LoggingDeathTest, FailedCheckAndFatalAbort) {
  testing::FLAGS_gtest_death_test_style = "threadsafe";
  EXPECT_DEATH(CHECK_EQ(1, 2) << "mismatch", "Check failed.*mismatch");
  EXPECT_DEATH(LOG(FATAL) << "bye", "bye");
}

// c10/util/Exception.h as LibTorch programs use it: c10::Error and its subclasses, the TORCH_CHECK
// family, TORCH_INTERNAL_ASSERT, AT_ERROR, and warnings (TORCH_WARN, TORCH_WARN_ONCE, handlers).
#include <c10/macros/Macros.h>
#include <c10/util/Exception.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <thread>
#include <vector>

namespace {

struct CapturedWarning {
  std::string msg;
  bool verbatim;
  std::string function;
  std::string file;
  uint32_t line;
};

// Collects the warnings of the thread it is installed on.
class CaptureWarnings : public c10::WarningHandler {
 public:
  void process(const c10::SourceLocation& where, const std::string& msg, bool verbatim) override {
    warnings.push_back({msg, verbatim, where.function, where.file, where.line});
  }
  std::vector<CapturedWarning> warnings;
};

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// One TORCH_WARN_ONCE call site. Its once-flag lives for the whole process: this file's tests are
// the only callers, and only WarnOnceWarnsOncePerCallSite calls it with warnAlways off.
void warn_once_site(int call) { TORCH_WARN_ONCE("warned at call ", call); }

}  // namespace

TEST(C10Error, CatchesAnEmberOpErrorWithItsMessage) {
  try {
    torch::mm(torch::ones({2, 3}), torch::ones({2, 3}));
    FAIL() << "mm of [2, 3] and [2, 3] did not throw";
  } catch (const c10::Error& e) {
    EXPECT_NE(e.msg().find("mm: mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)"),
              std::string::npos)
        << e.msg();
    EXPECT_EQ(e.msg(), std::string(e.what()));
    EXPECT_STREQ(e.what_without_backtrace(), e.what());
  }
}

TEST(C10Error, CheckFamilyThrowsTheMatchingType) {
  try {
    TORCH_CHECK_INDEX(5 < 3, "index ", 5, " is out of bounds for size ", 3);
    FAIL() << "TORCH_CHECK_INDEX did not throw";
  } catch (const c10::IndexError& e) {
    EXPECT_EQ(e.msg(), "index 5 is out of bounds for size 3");
  }
  EXPECT_THROW(TORCH_CHECK_VALUE(false, "bad value"), c10::ValueError);
  EXPECT_THROW(TORCH_CHECK_TYPE(false, "bad dtype"), c10::TypeError);
  EXPECT_THROW(TORCH_CHECK_NOT_IMPLEMENTED(false, "no kernel"), c10::NotImplementedError);
  EXPECT_THROW(TORCH_CHECK_INDEX(false), c10::Error);  // every one is a c10::Error
  EXPECT_NO_THROW(TORCH_CHECK_VALUE(true, "never"));
  try {
    TORCH_CHECK(1 > 2);
    FAIL() << "TORCH_CHECK did not throw";
  } catch (const c10::Error& e) {
    EXPECT_EQ(e.msg(), "Expected 1 > 2 to be true, but got false.");
  }
  try {
    TORCH_CHECK_ARG(false, 2, "must be positive");
    FAIL() << "TORCH_CHECK_ARG did not throw";
  } catch (const c10::Error& e) {
    EXPECT_EQ(e.msg(), "invalid argument 2: must be positive");
  }
}

TEST(C10Error, InternalAssertAndAtErrorThrowError) {
  const int x = 1;
  try {
    TORCH_INTERNAL_ASSERT(x == 2, "x is ", x);
    FAIL() << "TORCH_INTERNAL_ASSERT did not throw";
  } catch (const c10::Error& e) {
    EXPECT_NE(e.msg().find("x == 2 INTERNAL ASSERT FAILED at"), std::string::npos) << e.msg();
    EXPECT_NE(e.msg().find("c10_exception_test.cpp"), std::string::npos) << e.msg();
    EXPECT_TRUE(ends_with(e.msg(), "x is 1")) << e.msg();
  }
  EXPECT_NO_THROW(TORCH_INTERNAL_ASSERT(x == 1));
  EXPECT_THROW(AT_ASSERT(x == 0), c10::Error);
#ifdef NDEBUG
  EXPECT_NO_THROW(TORCH_INTERNAL_ASSERT_DEBUG_ONLY(x == 2));
#else
  EXPECT_THROW(TORCH_INTERNAL_ASSERT_DEBUG_ONLY(x == 2), c10::Error);
#endif
  try {
    AT_ERROR("unsupported layout ", 3);
  } catch (const c10::Error& e) {
    EXPECT_EQ(e.msg(), "unsupported layout 3");
  }
}

TEST(C10Macros, LikelyUnlikelyAndUnusedCompile) {
  C10_UNUSED const int unused = 3;
  int taken = 0;
  if (C10_LIKELY(taken == 0)) taken += 1;
  if (C10_UNLIKELY(taken == 0)) taken += 10;
  EXPECT_EQ(taken, 1);
}

TEST(C10Warning, TorchWarnReachesTheGuardedHandler) {
  CaptureWarnings capture;
  uint32_t line = 0;
  {
    c10::WarningHandlerGuard guard(&capture);
    line = __LINE__ + 1;
    TORCH_WARN("loss is ", 0.5, " at step ", 3);
    c10::Warning::warn({"caller", "file.cpp", 7}, "said as is", /*verbatim=*/true);
  }
  ASSERT_EQ(capture.warnings.size(), 2u);
  EXPECT_EQ(capture.warnings[0].msg, "loss is 0.5 at step 3");
  EXPECT_FALSE(capture.warnings[0].verbatim);
  EXPECT_EQ(capture.warnings[0].line, line);
  EXPECT_TRUE(ends_with(capture.warnings[0].file, "c10_exception_test.cpp"));
  EXPECT_EQ(capture.warnings[0].function, "TestBody");
  EXPECT_EQ(capture.warnings[1].msg, "said as is");
  EXPECT_TRUE(capture.warnings[1].verbatim);
  EXPECT_EQ(capture.warnings[1].line, 7u);
}

TEST(C10Warning, DefaultHandlerIsBackAfterTheGuardAndPrintsToStderr) {
  c10::WarningHandler* const default_handler = c10::Warning::get_warning_handler();
  CaptureWarnings capture;
  {
    c10::Warning::WarningHandlerGuard guard(&capture);  // 1.13's spelling
    EXPECT_EQ(c10::Warning::get_warning_handler(), &capture);
    {
      CaptureWarnings inner;
      c10::WarningUtils::WarningHandlerGuard inner_guard(&inner);  // 2.x's spelling
      EXPECT_EQ(c10::WarningUtils::get_warning_handler(), &inner);
    }
    EXPECT_EQ(c10::Warning::get_warning_handler(), &capture);
  }
  EXPECT_EQ(c10::Warning::get_warning_handler(), default_handler);
  testing::internal::CaptureStderr();
  const uint32_t line = __LINE__ + 1;
  TORCH_WARN("to stderr");
  const std::string printed = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(capture.warnings.empty());
  EXPECT_EQ(printed, c10::str("[W c10_exception_test.cpp:", line,
                              "] Warning: to stderr (function TestBody)\n"));
  c10::Warning::set_warning_handler(&capture);
  c10::Warning::set_warning_handler(nullptr);  // nullptr: the default again
  EXPECT_EQ(c10::Warning::get_warning_handler(), default_handler);
}

TEST(C10Warning, HandlerIsPerThread) {
  CaptureWarnings capture;
  c10::WarningHandlerGuard guard(&capture);
  c10::WarningHandler* seen_by_other_thread = nullptr;
  std::thread([&] { seen_by_other_thread = c10::Warning::get_warning_handler(); }).join();
  EXPECT_NE(seen_by_other_thread, nullptr);
  EXPECT_NE(seen_by_other_thread, &capture);
  EXPECT_EQ(c10::Warning::get_warning_handler(), &capture);
}

TEST(C10Warning, WarnOnceWarnsOncePerCallSiteAndEveryTimeWithWarnAlways) {
  ASSERT_FALSE(c10::WarningUtils::get_warnAlways());
  CaptureWarnings capture;
  c10::WarningHandlerGuard guard(&capture);
  for (int call = 0; call < 3; ++call) warn_once_site(call);
  ASSERT_EQ(capture.warnings.size(), 1u);
  EXPECT_EQ(capture.warnings[0].msg, "warned at call 0");
  {
    c10::Warning::WarnAlways always;
    EXPECT_TRUE(c10::Warning::get_warnAlways());
    warn_once_site(3);
    warn_once_site(4);
  }
  EXPECT_FALSE(c10::WarningUtils::get_warnAlways());
  warn_once_site(5);
  ASSERT_EQ(capture.warnings.size(), 3u);
  EXPECT_EQ(capture.warnings[1].msg, "warned at call 3");
  EXPECT_EQ(capture.warnings[2].msg, "warned at call 4");
  // Another call site warns on its own once.
  for (int call = 0; call < 2; ++call) TORCH_WARN_ONCE("second site");
  ASSERT_EQ(capture.warnings.size(), 4u);
  EXPECT_EQ(capture.warnings[3].msg, "second site");
  c10::WarningUtils::set_warnAlways(true);
  EXPECT_TRUE(c10::Warning::get_warnAlways());
  c10::WarningUtils::set_warnAlways(false);
}

TEST(EmberWarning, WarnUsesTheCallersLocationAndWarnOnceSkipsItsParts) {
  CaptureWarnings capture;
  ember::WarningHandlerGuard guard(&capture);
  const uint32_t line = __LINE__ + 1;
  ember::warn("from ember");
  int evaluated = 0;
  const auto part = [&] { return ++evaluated; };
  for (int call = 0; call < 3; ++call) EMBER_WARN_ONCE("part ", part());
  ASSERT_EQ(capture.warnings.size(), 2u);
  EXPECT_EQ(capture.warnings[0].msg, "from ember");
  EXPECT_EQ(capture.warnings[0].line, line);
  EXPECT_EQ(capture.warnings[0].function, "TestBody");
  EXPECT_EQ(capture.warnings[1].msg, "part 1");
  EXPECT_EQ(evaluated, 1);
}

// The golden-data reader itself: every family parses, values read back exactly, malformed records
// are rejected with their location, and expect_close reports mismatches.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>
#include <cmath>
#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "tests/support/golden.h"

TEST(Golden, LoadsAllFamilies) {
  for (const char* fam : {"unary", "binary", "reduction", "linalg", "shape"}) {
    auto cases = load_golden(fam);
    std::printf("%s: %zu cases\n", fam, cases.size());
    EXPECT_GT(cases.size(), 50u);
    for (const auto& c : cases) {
      EXPECT_FALSE(c.outs.empty()) << c.name;
      EXPECT_FALSE(c.call.empty()) << c.name;
      EXPECT_EQ(c.scalars.size(), c.scalar_args.size());
      for (const auto& o : c.outs) expect_close(o, o, c.name + " self");
      if (c.has_flag("transposed")) {
        EXPECT_FALSE(c.arg(0).is_contiguous()) << c.name;
      }
    }
  }
}

TEST(Golden, ParsesValuesExactly) {
  auto cases = parse_golden(
      "# c\ncase x/y\ncall torch.foo(a0)\nflag keepdim\nstr floor\nsarg 3\nsarg -2.5\nsarg "
      "true\nsarg -inf\n"
      "iarg -1\nilist\nilist 0 2\n"
      "arg float32 2 2 3 0.1 -0.0 nan inf -inf 3.4028235e+38\n"
      "arg float64 0 0.1\narg float16 1 2 65504.0 5.960464477539063e-08\narg bfloat16 1 1 -1.5\n"
      "arg int64 1 2 9223372036854775807 -9223372036854775808\narg uint8 1 1 255\narg bool 1 3 1 0 "
      "1\n"
      "arg int32 2 0 3\nout float32 1 1 1.0\nend\n",
      "inline");
  ASSERT_EQ(cases.size(), 1u);
  const auto& c = cases[0];
  EXPECT_EQ(c.op(), "x");
  EXPECT_EQ(c.variant(), "y");
  EXPECT_EQ(c.call, "torch.foo(a0)");
  EXPECT_EQ(c.location, "inline:2");
  EXPECT_TRUE(c.has_flag("keepdim"));
  EXPECT_EQ(c.strs[0], "floor");
  EXPECT_TRUE(c.scalar_args[0].isIntegral(false));
  EXPECT_EQ(c.scalar_args[0].toLong(), 3);
  EXPECT_TRUE(c.scalar_args[1].isFloatingPoint());
  EXPECT_EQ(c.scalars[1], -2.5);
  EXPECT_TRUE(c.scalar_args[2].isBoolean());
  EXPECT_TRUE(std::isinf(c.scalars[3]) && c.scalars[3] < 0);
  EXPECT_EQ(c.ints[0], -1);
  ASSERT_EQ(c.int_lists.size(), 2u);
  EXPECT_TRUE(c.int_lists[0].empty());
  EXPECT_EQ(c.int_lists[1][1], 2);
  const float* f = c.args[0].data_ptr<float>();
  EXPECT_EQ(f[0], 0.1f);
  EXPECT_TRUE(std::signbit(f[1]));
  EXPECT_TRUE(std::isnan(f[2]));
  EXPECT_EQ(f[5], 3.4028235e+38f);
  EXPECT_EQ(c.args[1].dim(), 0);
  EXPECT_EQ(c.args[1].data_ptr<double>()[0], 0.1);
  EXPECT_EQ(float(c.args[2].data_ptr<ember::Half>()[0]), 65504.0f);
  EXPECT_EQ(c.args[2].data_ptr<ember::Half>()[1].x, 1);
  EXPECT_EQ(float(c.args[3].data_ptr<ember::BFloat16>()[0]), -1.5f);
  EXPECT_EQ(c.args[4].data_ptr<int64_t>()[0], INT64_MAX);
  EXPECT_EQ(c.args[4].data_ptr<int64_t>()[1], INT64_MIN);
  EXPECT_EQ(c.args[5].data_ptr<uint8_t>()[0], 255);
  EXPECT_EQ(c.args[6].data_ptr<bool>()[1], false);
  EXPECT_EQ(c.args[7].numel(), 0);
  EXPECT_EQ(c.args[7].size(1), 3);
}

TEST(Golden, RejectsMalformed) {
  EXPECT_THROW(parse_golden("case a/b\narg float32 1 2 1.0\nend\n", "t"), std::runtime_error);
  EXPECT_THROW(parse_golden("case a/b\narg float32 1 1 1.0 2.0\nend\n", "t"), std::runtime_error);
  EXPECT_THROW(parse_golden("case a/b\narg float33 1 1 1.0\nend\n", "t"), std::runtime_error);
  EXPECT_THROW(parse_golden("case a/b\narg uint8 1 1 256\nend\n", "t"), std::runtime_error);
  EXPECT_THROW(parse_golden("case a/b\n", "t"), std::runtime_error);
  EXPECT_THROW(parse_golden("arg float32 0 1\n", "t"), std::runtime_error);
  EXPECT_THROW(parse_golden("case a/b\nbogus 1\nend\n", "t"), std::runtime_error);
}

TEST(Golden, ExpectCloseReportsMismatches) {
  auto c = parse_golden(
      "case a/b\narg float32 2 2 2 1.0 2.0 nan inf\narg float32 2 2 2 1.0 2.1 nan inf\n"
      "arg int64 1 2 1 2\narg int64 1 2 1 3\narg float64 1 2 1.0 nan\nend\n",
      "t")[0];
  EXPECT_TRUE(expect_close(c.args[0], c.args[0], "same"));
  EXPECT_NONFATAL_FAILURE(expect_close(c.args[1], c.args[0], "diff"), "worst at index 1 [0, 1]");
  EXPECT_TRUE(expect_close(c.args[1], c.args[0], 0.1, 0.0, "loose"));
  EXPECT_NONFATAL_FAILURE(expect_close(c.args[3], c.args[2], "ints"),
                          "first at index 1 [1]: actual 3, expected 2");
  EXPECT_NONFATAL_FAILURE(expect_close(c.args[3], c.args[0], "shape"),
                          "dtype int64, expected float32");
  EXPECT_NONFATAL_FAILURE(expect_close(c.args[4], c.args[4].to(ember::kFloat), "dt"),
                          "dtype float64, expected float32");
  EXPECT_NONFATAL_FAILURE(expect_close(c.args[0].transpose(0, 1), c.args[0], "tr"),
                          "2 of 4 elements differ");
}

TEST(Golden, IndexSpec) {
  for (const auto& c : golden_cases_for(load_golden("shape"), "index")) {
    auto idx = golden_index(c);
    EXPECT_EQ(idx.size(), c.strs.size()) << c.name;
  }
  auto c = parse_golden(
      "case index/x\nstr 1::2\nstr :-1\nstr None\nstr ...\nstr True\nstr -3\nstr @0\narg int64 1 1 "
      "0\nend\n",
      "t")[0];
  auto idx = golden_index(c);
  ASSERT_EQ(idx.size(), 7u);
  EXPECT_TRUE(idx[0].is_slice());
  EXPECT_EQ(*idx[0].slice().start(), 1);
  EXPECT_FALSE(idx[0].slice().stop());
  EXPECT_EQ(idx[0].slice().step(), 2);
  EXPECT_FALSE(idx[1].slice().start());
  EXPECT_EQ(*idx[1].slice().stop(), -1);
  EXPECT_EQ(idx[1].slice().step(), 1);
  EXPECT_TRUE(idx[2].is_none());
  EXPECT_TRUE(idx[3].is_ellipsis());
  EXPECT_TRUE(idx[4].is_boolean());
  EXPECT_TRUE(idx[5].is_integer());
  EXPECT_EQ(idx[5].integer(), -3);
  EXPECT_TRUE(idx[6].is_tensor());
}

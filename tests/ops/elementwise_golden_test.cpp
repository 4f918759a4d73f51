// Every elementwise op against PyTorch's golden outputs, driven by the op table (op_info.cpp).
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "src/dispatch/dispatch.h"
#include "tests/ops/op_info.h"

using namespace ember;

namespace {

const std::vector<GoldenCase>& family(const std::string& name) {
  static std::map<std::string, std::vector<GoldenCase>> cache;
  auto it = cache.find(name);
  if (it == cache.end()) it = cache.emplace(name, load_golden(name)).first;
  return it->second;
}

class ElementwiseGolden : public ::testing::TestWithParam<OpInfo> {};

}  // namespace

// Names the op instead of dumping its bytes when a parameterised test fails.
void PrintTo(const OpInfo& info, std::ostream* os) { *os << info.name; }

namespace {

TEST_P(ElementwiseGolden, MatchesPyTorch) {
  const OpInfo& info = GetParam();
  auto cases = golden_cases_for(family(info.family), info.name);
  ASSERT_FALSE(cases.empty()) << "no golden case for " << info.name << " in " << info.family;
  for (const GoldenCase& c : cases) {
    SCOPED_TRACE(c.location + " " + c.call);
    Tensor actual;
    try {
      actual = info.run(c);
    } catch (const std::exception& e) {
      ADD_FAILURE() << c.name << " threw: " << e.what();
      continue;
    }
    expect_close(actual, c.outs.at(0), c.name);
  }
}

INSTANTIATE_TEST_SUITE_P(OpTable, ElementwiseGolden, ::testing::ValuesIn(elementwise_op_infos()),
                         [](const ::testing::TestParamInfo<OpInfo>& p) { return p.param.name; });

TEST(ElementwiseErrors, FloatOnlyOpsRejectIntegerInputs) {
  int checked = 0;
  for (const OpInfo& info : elementwise_op_infos()) {
    if (!info.float_only) continue;
    ++checked;
    GoldenCase c;
    c.args.push_back(arange(6).view({2, 3}));
    try {
      info.run(c);
      ADD_FAILURE() << info.name << " accepted an int64 tensor";
    } catch (const TypeError& e) {
      std::string msg = e.what();
      EXPECT_NE(msg.find(info.name), std::string::npos) << msg;
      EXPECT_NE(msg.find("int64"), std::string::npos) << msg;
    }
  }
  EXPECT_GE(checked, 4);  // frac, silu, mish, gelu
}

// Every elementwise row of op_table.h needs an OpInfo entry and golden data.
TEST(ElementwiseCoverage, EveryTableRowHasAnOpInfo) {
  std::set<std::string> covered;
  for (const OpInfo& info : elementwise_op_infos()) covered.insert(info.name);
  std::vector<std::string> rows;
#define EMBER_ROW(name, Name, x) rows.push_back(#name);
  EMBER_UNARY_OPS(EMBER_ROW)
  EMBER_BINARY_OPS(EMBER_ROW)
#undef EMBER_ROW
  // Special rows are reached through a public op of another name or are internal.
  const std::map<std::string, std::string> reached_through = {{"div_trunc", "div"},
                                                              {"div_floor", "div"},
                                                              {"round_decimals", "round"},
                                                              {"clamp_tensor", "clamp"},
                                                              {"gelu_tanh", "gelu"},
                                                              {"cast", ""},
                                                              {"fill", ""}};
#define EMBER_SPECIAL_ROW(name, Name, arity) \
  rows.push_back(reached_through.count(#name) ? reached_through.at(#name) : #name);
  EMBER_SPECIAL_ELEMENTWISE_OPS(EMBER_SPECIAL_ROW)
#undef EMBER_SPECIAL_ROW
  for (const std::string& r : rows) {
    if (r.empty()) continue;
    EXPECT_TRUE(covered.count(r)) << "op '" << r
                                  << "' has no OpInfo entry in tests/ops/op_info.cpp";
  }
}

TEST(ElementwiseCoverage, EveryRowHasACpuKernel) {
  for (int i = 0; i < kNumOps; ++i) {
    OpId op = static_cast<OpId>(i);
    if (op == OpId::copy) continue;  // cross-device copies: a slot of device backends only
    bool any = false;
    for (int t = 0; t < kNumScalarTypes; ++t) any |= supports(op, kCPU, static_cast<ScalarType>(t));
    EXPECT_TRUE(any) << "no CPU kernel registered for " << op_name(op);
  }
}

}  // namespace

// The vectorised float32 bodies (kernels/cpu/vec_math.h: 8 or 16 lanes, whichever the build's
// CPU has) against the same op computed in float64 by the scalar functor. The golden cases are
// too short to reach every lane of a 16-lane register with the special values, so this runs each
// unary row of the table on a long dense input that puts every special value in every lane.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ember/ember.h"
#include "tests/ops/op_info.h"

using namespace ember;

namespace {

// Random values in [-4, 4], a spread of magnitudes up to overflow, and the special values, each
// repeated at every position modulo 16 (so in every lane of an AVX-512 or AVX2 register), then
// a tail that runs in a zero-padded register.
Tensor dense_input() {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> specials = {
      std::nanf(""), inf,     -inf,  0.0f,   -0.0f, 1.0f,   -1.0f,  0.5f,  -0.5f,  2.5f,  -3.5f,
      100.0f,        -100.0f, 20.0f, -20.0f, 1e-6f, -1e-6f, 1e-30f, 87.0f, -87.0f, -90.0f};
  std::vector<float> v;
  for (float s : specials)
    for (int lane = 0; lane < 17; ++lane) v.push_back(s);
  manual_seed(7);
  Tensor r = rand({4096}) * 8 - 4;
  const float* p = r.data_ptr<float>();
  v.insert(v.end(), p, p + r.numel());
  v.push_back(0.25f);  // odd length: a padded tail
  return from_blob(v.data(), {static_cast<int64_t>(v.size())}, kFloat).clone();
}

void expect_float_matches_double(const std::string& name, const Tensor& x, Tensor got,
                                 const Tensor& want_double) {
  const Tensor want = want_double.to(kFloat);
  ASSERT_EQ(got.scalar_type(),
            want_double.scalar_type() == kDouble ? kFloat : want_double.scalar_type())
      << name;
  got = got.to(kFloat);
  ASSERT_EQ(got.numel(), want.numel()) << name;
  const float* g = got.data_ptr<float>();
  const float* w = want.data_ptr<float>();
  const float* in = x.data_ptr<float>();
  int bad = 0;
  for (int64_t i = 0; i < got.numel() && bad < 5; ++i) {
    const bool ok = (std::isnan(g[i]) && std::isnan(w[i])) || g[i] == w[i] ||
                    std::fabs(g[i] - w[i]) <= 1e-6f + 1e-5f * std::fabs(w[i]);
    if (!ok) {
      ++bad;
      ADD_FAILURE() << name << "(" << in[i] << ") = " << g[i] << " in float32, " << w[i]
                    << " from float64 (element " << i << ")";
    }
  }
}

// The float rows of the unary table (bitwise_not has none).
std::set<std::string> unary_float_rows() {
  std::set<std::string> rows;
#define EMBER_ROW(name, Name, policy) \
  if (std::string(#name) != "bitwise_not") rows.insert(#name);
  EMBER_UNARY_OPS(EMBER_ROW)
#undef EMBER_ROW
  return rows;
}

TEST(VectorisedUnary, FloatRowsMatchFloat64OnEveryLane) {
  const Tensor x = dense_input();
  const Tensor xd = x.to(kDouble);
  const std::set<std::string> rows = unary_float_rows();
  int checked = 0;
  for (const OpInfo& info : elementwise_op_infos()) {
    if (info.family != "unary" || !rows.count(info.name)) continue;
    GoldenCase c, cd;
    c.args.push_back(x);
    cd.args.push_back(xd);
    expect_float_matches_double(info.name, x, info.run(c), info.run(cd));
    ++checked;
  }
  EXPECT_EQ(checked, static_cast<int>(rows.size()));
}

TEST(VectorisedUnary, GeluBothFormsMatchFloat64OnEveryLane) {
  const Tensor x = dense_input();
  const Tensor xd = x.to(kDouble);
  for (const char* approx : {"none", "tanh"})
    expect_float_matches_double(std::string("gelu/") + approx, x, gelu(x, approx),
                                gelu(xd, approx));
}

// Equal values, NaN where the other has NaN.
bool same_values(const Tensor& a, const Tensor& b) {
  return a.sizes() == b.sizes() && a.scalar_type() == b.scalar_type() &&
         a.eq(b).logical_or(a.isnan().logical_and(b.isnan())).all().item<bool>();
}

TEST(VectorisedUnary, AnElementsBitsDoNotDependOnWhereTheRunEnds) {
  // The tail of a run goes through the vector body too, so op(x)[k] is the same bits whether
  // element k sits mid-run, in a tail, or in another thread's chunk.
  const Tensor x = dense_input();
  const int64_t n = x.numel();
  const std::set<std::string> rows = unary_float_rows();
  for (const OpInfo& info : elementwise_op_infos()) {
    if (info.family != "unary" || !rows.count(info.name)) continue;
    GoldenCase whole;
    whole.args.push_back(x);
    const Tensor y = info.run(whole);
    for (int64_t start : {1, 5, 13}) {
      for (int64_t len : {3, 7, 29}) {
        GoldenCase part;
        part.args.push_back(x.slice(0, start, start + len).contiguous());
        EXPECT_TRUE(same_values(info.run(part), y.slice(0, start, start + len)))
            << info.name << " start " << start << " length " << len;
      }
    }
    ASSERT_GT(n, 13 + 29);
  }
  for (const char* approx : {"none", "tanh"})
    EXPECT_TRUE(
        same_values(gelu(x.slice(0, 5, 12).contiguous(), approx), gelu(x, approx).slice(0, 5, 12)))
        << approx;
}

// float16 and bfloat16 compute in float and round (the scalar functor's definition); their dense
// loop widens each block and runs the float body (vec_math.h vec_unary_narrow). So every row on a
// 16-bit tensor equals the float32 row on the widened tensor, rounded: the same bits, tails and
// block edges (256 elements) included.
TEST(VectorisedUnary, SixteenBitRowsEqualTheFloatRowRounded) {
  const std::set<std::string> rows = unary_float_rows();
  for (ScalarType dt : {kBFloat16, kHalf}) {
    const Tensor x = dense_input().to(dt);
    const Tensor xf = x.to(kFloat);
    int checked = 0;
    for (const OpInfo& info : elementwise_op_infos()) {
      if (info.family != "unary" || !rows.count(info.name)) continue;
      GoldenCase c, cf;
      c.args.push_back(x);
      cf.args.push_back(xf);
      const Tensor got = info.run(c);
      Tensor want = info.run(cf);
      if (want.scalar_type() == kFloat) want = want.to(dt);  // not the bool rows (isnan, ...)
      EXPECT_TRUE(same_values(got, want)) << info.name << " " << dt;
      ++checked;
    }
    EXPECT_EQ(checked, static_cast<int>(rows.size()));
    for (const char* approx : {"none", "tanh"})
      EXPECT_TRUE(same_values(gelu(x, approx), gelu(xf, approx).to(dt))) << approx << " " << dt;
    EXPECT_TRUE(same_values(silu(x), silu(xf).to(dt))) << dt;
    EXPECT_TRUE(same_values(mish(x), mish(xf).to(dt))) << dt;
    EXPECT_TRUE(same_values(relu(x), relu(xf).to(dt))) << dt;
    // The specials and a padded tail: values at 0, 256 and past the last full block.
    EXPECT_TRUE(same_values(sigmoid(x.slice(0, 250, 530).contiguous()),
                            sigmoid(xf.slice(0, 250, 530)).to(dt)))
        << dt;
  }
}

// float32 exp runs an inline Cephes polynomial (vec_math.h's exp_full), not SLEEF's 1-ulp expf:
// it must stay within 1 ulp of the correctly rounded result over the whole range, subnormal
// results and the overflow edge included. (An exhaustive sweep of every third float in
// [-104, 89] measured 1 ulp at most, 96.5% exact.) Distance in ulps: the difference of the bit
// patterns, which are ordered like the values for non-negative floats.
TEST(VectorisedUnary, ExpIsWithinOneUlpOverTheWholeFloatRange) {
  auto bits_of = [](float f) {
    int32_t b;
    std::memcpy(&b, &f, sizeof b);
    return b;
  };
  std::vector<float> x;
  const float lo = -104.0f, hi = 89.0f;
  // Evenly spaced bit patterns over [-104, 0) and [0, 89]: dense near zero as floats are.
  for (const auto& [from, to] : {std::pair{-0.0f, lo}, std::pair{0.0f, hi}}) {
    const int32_t b0 = bits_of(from), b1 = bits_of(to);
    for (int32_t k = 0; k <= 400000; ++k) {
      const int32_t b = b0 + static_cast<int32_t>((int64_t(b1 - b0) * k) / 400000);
      float f;
      std::memcpy(&f, &b, sizeof f);
      x.push_back(f);
    }
  }
  // The edges: overflow (ln(FLT_MAX) = 88.7228), the last normal and subnormal results.
  for (float f : {88.72283f, 88.72284f, -87.33654f, -87.3366f, -103.2789f, -103.9721f, -103.973f})
    x.push_back(f);
  const Tensor in = from_blob(x.data(), {static_cast<int64_t>(x.size())}, kFloat).clone();
  const Tensor got = exp(in);
  const float* g = got.data_ptr<float>();
  int bad = 0;
  for (size_t i = 0; i < x.size() && bad < 5; ++i) {
    const float want = static_cast<float>(std::exp(static_cast<double>(x[i])));
    if (std::abs(int64_t(bits_of(g[i])) - bits_of(want)) > 1) {
      ++bad;
      ADD_FAILURE() << "exp(" << x[i] << ") = " << g[i] << ", correctly rounded " << want;
    }
  }
}

}  // namespace

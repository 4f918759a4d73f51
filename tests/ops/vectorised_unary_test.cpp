// The vectorised float32 bodies (kernels/cpu/vec_math.h: 8 or 16 lanes, whichever the build's
// CPU has) against the same op computed in float64 by the scalar functor. The golden cases are
// too short to reach every lane of a 16-lane register with the special values, so this runs each
// unary row of the table on a long dense input that puts every special value in every lane.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "tests/ops/op_info.h"

using namespace ember;

namespace {

// Random values in [-4, 4], a spread of magnitudes up to overflow, and the special values, each
// repeated at every position modulo 16 (so in every lane of an AVX-512 or AVX2 register), then
// a tail that the scalar loop finishes.
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
  v.push_back(0.25f);  // odd length: a scalar tail
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

TEST(VectorisedUnary, FloatRowsMatchFloat64OnEveryLane) {
  const Tensor x = dense_input();
  const Tensor xd = x.to(kDouble);
  std::set<std::string> rows;
#define EMBER_ROW(name, Name, policy) \
  if (std::string(#name) != "bitwise_not") rows.insert(#name);
  EMBER_UNARY_OPS(EMBER_ROW)
#undef EMBER_ROW
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

}  // namespace

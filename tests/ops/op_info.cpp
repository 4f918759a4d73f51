#include "tests/ops/op_info.h"

#include <gtest/gtest.h>

using namespace ember;

namespace {

bool call_has(const GoldenCase& c, const char* text) {
  return c.call.find(text) != std::string::npos;
}

// Binary rows: op(a, b), op(a, scalar) or op(scalar, a), as the case's flags say.
template <class Fn>
Tensor run_binary(const GoldenCase& c, Fn fn) {
  if (c.has_flag("tensor_scalar")) return fn(c.arg(0), c.scalar_args.at(0));
  if (c.has_flag("scalar_tensor")) return fn(c.scalar_args.at(0), c.arg(0));
  return fn(c.arg(0), c.arg(1));
}

std::vector<OpInfo> build() {
  std::vector<OpInfo> ops;
#define EMBER_UNARY_INFO(name, Name, policy)                                                \
  ops.push_back({#name, "unary", [](const GoldenCase& c) { return ember::name(c.arg(0)); }, \
                 std::string(#policy) == "FloatOnly"});
  EMBER_UNARY_OPS(EMBER_UNARY_INFO)
#undef EMBER_UNARY_INFO
#define EMBER_BINARY_INFO(name, Name, policy)                                              \
  ops.push_back({#name, "binary", [](const GoldenCase& c) {                                \
                   return run_binary(                                                      \
                       c, [](const auto& a, const auto& b) { return ember::name(a, b); }); \
                 }});
  EMBER_BINARY_OPS(EMBER_BINARY_INFO)
#undef EMBER_BINARY_INFO

  // Rows with extra arguments.
  ops.push_back({"add", "binary", [](const GoldenCase& c) {
                   Scalar alpha = c.has_flag("alpha") ? c.scalar_args.back() : Scalar(1);
                   if (c.has_flag("tensor_scalar"))
                     return add(c.arg(0), c.scalar_args.at(0), alpha);
                   if (c.has_flag("scalar_tensor")) return c.scalar_args.at(0) + c.arg(0);
                   return add(c.arg(0), c.arg(1), alpha);
                 }});
  ops.push_back({"sub", "binary", [](const GoldenCase& c) {
                   Scalar alpha = c.has_flag("alpha") ? c.scalar_args.back() : Scalar(1);
                   if (c.has_flag("tensor_scalar"))
                     return sub(c.arg(0), c.scalar_args.at(0), alpha);
                   if (c.has_flag("scalar_tensor")) return c.scalar_args.at(0) - c.arg(0);
                   return sub(c.arg(0), c.arg(1), alpha);
                 }});
  ops.push_back({"div", "binary", [](const GoldenCase& c) {
                   std::optional<std::string_view> mode;
                   if (!c.strs.empty()) mode = c.strs[0];
                   if (c.has_flag("tensor_scalar")) return div(c.arg(0), c.scalar_args.at(0), mode);
                   if (c.has_flag("scalar_tensor")) return c.scalar_args.at(0) / c.arg(0);
                   return div(c.arg(0), c.arg(1), mode);
                 }});
  ops.push_back({"round", "unary", [](const GoldenCase& c) {
                   return round(c.arg(0), c.ints.empty() ? 0 : c.ints[0]);
                 }});
  ops.push_back({"clamp", "unary", [](const GoldenCase& c) {
                   if (call_has(c, "min=a1") || call_has(c, "max=a1")) {
                     std::optional<Tensor> lo, hi;
                     if (call_has(c, "min=a1")) lo = c.arg(1);
                     if (call_has(c, "max=a1")) hi = c.arg(1);
                     if (call_has(c, "max=a2")) hi = c.arg(2);
                     return clamp(c.arg(0), lo, hi);
                   }
                   std::optional<Scalar> lo, hi;
                   size_t k = 0;
                   if (call_has(c, "min=s")) lo = c.scalar_args.at(k++);
                   if (call_has(c, "max=s")) hi = c.scalar_args.at(k++);
                   return clamp(c.arg(0), lo, hi);
                 }});
  ops.push_back({"clamp_min", "unary",
                 [](const GoldenCase& c) { return clamp_min(c.arg(0), c.scalar_args.at(0)); }});
  ops.push_back({"clamp_max", "unary",
                 [](const GoldenCase& c) { return clamp_max(c.arg(0), c.scalar_args.at(0)); }});
  ops.push_back(
      {"gelu", "unary",
       [](const GoldenCase& c) { return gelu(c.arg(0), c.strs.empty() ? "none" : c.strs[0]); },
       true});
  ops.push_back({"logit", "unary", [](const GoldenCase& c) {
                   std::optional<double> eps;
                   if (!c.scalars.empty()) eps = c.scalars[0];
                   return logit(c.arg(0), eps);
                 }});
  ops.push_back({"nan_to_num", "unary", [](const GoldenCase& c) {
                   if (c.scalars.size() == 3)
                     return nan_to_num(c.arg(0), c.scalars[0], c.scalars[1], c.scalars[2]);
                   return nan_to_num(c.arg(0));
                 }});
  ops.push_back({"lerp", "binary", [](const GoldenCase& c) {
                   if (call_has(c, "s0")) return lerp(c.arg(0), c.arg(1), c.scalar_args.at(0));
                   return lerp(c.arg(0), c.arg(1), c.arg(2));
                 }});
  ops.push_back({"addcmul", "binary", [](const GoldenCase& c) {
                   Scalar v = c.scalar_args.empty() ? Scalar(1) : c.scalar_args[0];
                   return addcmul(c.arg(0), c.arg(1), c.arg(2), v);
                 }});
  ops.push_back({"addcdiv", "binary", [](const GoldenCase& c) {
                   Scalar v = c.scalar_args.empty() ? Scalar(1) : c.scalar_args[0];
                   return addcdiv(c.arg(0), c.arg(1), c.arg(2), v);
                 }});
  ops.push_back({"threshold_backward", "binary", [](const GoldenCase& c) {
                   return threshold_backward(c.arg(0), c.arg(1), c.scalar_args.at(0));
                 }});
  ops.push_back({"where", "binary", [](const GoldenCase& c) {
                   if (call_has(c, "a1, s0")) return where(c.arg(0), c.arg(1), c.scalar_args.at(0));
                   if (call_has(c, "s0, a1")) return where(c.arg(0), c.scalar_args.at(0), c.arg(1));
                   return where(c.arg(0), c.arg(1), c.arg(2));
                 }});
  return ops;
}

}  // namespace

const std::vector<OpInfo>& elementwise_op_infos() {
  static const std::vector<OpInfo> ops = build();
  return ops;
}

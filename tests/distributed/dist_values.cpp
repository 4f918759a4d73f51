#include "tests/distributed/dist_values.h"

#include <cmath>

#include "tests/distributed/harness.h"

namespace dist_test {

using ember::ScalarType;
using ember::distributed::ReduceOp;

std::vector<ScalarType> all_dtypes() {
  return {ember::kByte, ember::kChar,  ember::kShort,  ember::kInt,  ember::kLong,
          ember::kHalf, ember::kFloat, ember::kDouble, ember::kBool, ember::kBFloat16};
}

std::vector<double> rank_values(int rank, ScalarType dtype, int n, int shift) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    if (dtype == ember::kBool)
      v[static_cast<size_t>(i)] = ((i + rank + shift) % 2 == 0) ? 1 : 0;
    else
      v[static_cast<size_t>(i)] = (i % 3) + 1 + rank + 10 * shift;
  }
  return v;
}

ember::Tensor make_tensor(const std::vector<double>& values, ScalarType dtype) {
  auto t = ember::empty({static_cast<int64_t>(values.size())},
                        ember::TensorOptions().dtype(ember::kDouble));
  for (size_t i = 0; i < values.size(); ++i) t.data_ptr<double>()[i] = values[i];
  return t.to(dtype);
}

std::vector<double> tensor_values(const ember::Tensor& t) {
  auto d = t.to(ember::kDouble).contiguous();
  const double* p = d.data_ptr<double>();
  return std::vector<double>(p, p + d.numel());
}

std::vector<double> reduce_values(const std::vector<std::vector<double>>& per_rank, ReduceOp op,
                                  ScalarType dtype) {
  std::vector<double> out = per_rank[0];
  const bool is_bool = dtype == ember::kBool;
  for (size_t r = 1; r < per_rank.size(); ++r) {
    for (size_t i = 0; i < out.size(); ++i) {
      double a = out[i], b = per_rank[r][i];
      switch (op) {
        case ReduceOp::SUM:
        case ReduceOp::AVG:
          out[i] = is_bool ? double(a != 0 || b != 0) : a + b;
          break;
        case ReduceOp::PRODUCT:
          out[i] = is_bool ? double(a != 0 && b != 0) : a * b;
          break;
        case ReduceOp::MIN:
          out[i] = std::min(a, b);
          break;
        case ReduceOp::MAX:
          out[i] = std::max(a, b);
          break;
      }
    }
  }
  if (op == ReduceOp::AVG)
    for (auto& x : out) x /= static_cast<double>(per_rank.size());
  return out;
}

void check_values(const ember::Tensor& got, const std::vector<double>& want,
                  const std::string& what, double rel_tol) {
  auto v = tensor_values(got);
  DIST_CHECK(v.size() == want.size(), "{}: {} values, expected {}", what, v.size(), want.size());
  for (size_t i = 0; i < v.size(); ++i) {
    const double tol = rel_tol * std::abs(want[i]);
    DIST_CHECK(std::abs(v[i] - want[i]) <= tol, "{}: element {} is {}, expected {}", what, i, v[i],
               want[i]);
  }
}

}  // namespace dist_test

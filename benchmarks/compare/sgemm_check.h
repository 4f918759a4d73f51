// The float64 check of BENCHMARKS.md §3, shared by every SGEMM program so each library is held to
// the same reference: C (n x n, row-major float) against the product of A and B in float64,
// max |C - ref| / max |ref| < 1e-4. Plain C++ (no BLAS), so it cannot share a bug with what it
// checks.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace bench {

/// max |C - A·B| / max |A·B|, the product taken in float64, i-k-j order. The rows are split over
/// two threads (the check runs after the timing, and n = 2048 takes ~4 s on one core).
__attribute__((optimize("O3"))) inline double sgemm_rel_error(const float* A, const float* B,
                                                              const float* C, int64_t n) {
  const std::vector<double> Bd(B, B + n * n);
  double max_err[2] = {0, 0}, max_ref[2] = {0, 0};
  auto rows = [&](int part) {
    std::vector<double> row(n);
    for (int64_t i = part; i < n; i += 2) {
      std::fill(row.begin(), row.end(), 0.0);
      for (int64_t k = 0; k < n; ++k) {
        const double aik = A[i * n + k];
        const double* b = &Bd[k * n];
        for (int64_t j = 0; j < n; ++j) row[j] += aik * b[j];
      }
      for (int64_t j = 0; j < n; ++j) {
        max_err[part] = std::max(max_err[part], std::abs(C[i * n + j] - row[j]));
        max_ref[part] = std::max(max_ref[part], std::abs(row[j]));
      }
    }
  };
  std::thread other(rows, 1);
  rows(0);
  other.join();
  return std::max(max_err[0], max_err[1]) / std::max(max_ref[0], max_ref[1]);
}

constexpr double kSgemmTolerance = 1e-4;

/// U[0,1) floats from a fixed seed, for the programs that have no library generator.
inline std::vector<float> uniform_floats(int64_t count, uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> v(count);
  for (auto& x : v) x = dist(gen);
  return v;
}

/// "n1024" -> 1024; 0 when the case is not of that form.
inline int64_t parse_n(const std::string& cas) {
  if (cas.size() < 2 || cas[0] != 'n') return 0;
  return std::atoll(cas.c_str() + 1);
}

/// 11 timed repetitions, 5 for n >= 1024.
inline int sgemm_reps(int64_t n) { return n >= 1024 ? 5 : 11; }

}  // namespace bench

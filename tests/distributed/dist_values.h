// Worker-side helpers: each rank's inputs are a function of (rank, dtype), so every rank can
// compute what a collective must produce from the others' inputs without communicating.
#pragma once

#include <string>
#include <vector>

#include "ember/distributed/process_group.h"
#include "ember/ember.h"

namespace dist_test {

/// Every dtype Ember has.
std::vector<ember::ScalarType> all_dtypes();
/// The values rank `rank` contributes: small integers (exact in every dtype, products of three
/// ranks within int8), or 0/1 for bool. `shift` varies them per destination.
std::vector<double> rank_values(int rank, ember::ScalarType dtype, int n, int shift = 0);
ember::Tensor make_tensor(const std::vector<double>& values, ember::ScalarType dtype);
std::vector<double> tensor_values(const ember::Tensor& t);
/// op over the ranks' values, as the collective must compute it (AVG = SUM / world).
std::vector<double> reduce_values(const std::vector<std::vector<double>>& per_rank,
                                  ember::distributed::ReduceOp op, ember::ScalarType dtype);
/// Throws unless `got` holds `want` (exactly, or within rel_tol of each value).
void check_values(const ember::Tensor& got, const std::vector<double>& want,
                  const std::string& what, double rel_tol = 0);

}  // namespace dist_test

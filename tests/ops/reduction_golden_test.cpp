// Reductions, scans, softmax and sorting against PyTorch's golden data
// (tests/golden/reduction.golden): one runner per op. The behaviour golden data cannot show is in
// reduction_test.cpp and reduction_dim_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <set>

#include "ember/ember.h"
#include "tests/support/golden.h"
#include "tests/support/threads.h"

using namespace ember;

namespace reduction_golden_test {

// ---------------------------------------------------------------------------------------------
// Golden data: one runner per op, calling Ember the way the case's `call` line says (argument
// conventions: tests/golden/generate.py, gen_reduction).

using Outs = GoldenOuts;
using Runner = GoldenRunner;

Outs two(const std::tuple<Tensor, Tensor>& t) { return {std::get<0>(t), std::get<1>(t)}; }
bool keepdim(const GoldenCase& c) { return c.has_flag("keepdim"); }
IntArrayRef dims(const GoldenCase& c) { return c.int_lists.at(0); }

const std::map<std::string, Runner>& runners() {
  static const std::map<std::string, Runner> table = {
      {"sum",
       [](const GoldenCase& c) -> Outs {
         return {c.int_lists.empty() ? sum(c.arg(0)) : sum(c.arg(0), dims(c), keepdim(c))};
       }},
      {"mean",
       [](const GoldenCase& c) -> Outs {
         return {c.int_lists.empty() ? mean(c.arg(0)) : mean(c.arg(0), dims(c), keepdim(c))};
       }},
      {"prod",
       [](const GoldenCase& c) -> Outs {
         return {c.ints.empty() ? prod(c.arg(0)) : prod(c.arg(0), c.ints[0], keepdim(c))};
       }},
      {"max",
       [](const GoldenCase& c) -> Outs {
         return c.ints.empty() ? Outs{max(c.arg(0))} : two(max(c.arg(0), c.ints[0], keepdim(c)));
       }},
      {"min",
       [](const GoldenCase& c) -> Outs {
         return c.ints.empty() ? Outs{min(c.arg(0))} : two(min(c.arg(0), c.ints[0], keepdim(c)));
       }},
      {"amax",
       [](const GoldenCase& c) -> Outs {
         return {c.int_lists.empty() ? amax(c.arg(0)) : amax(c.arg(0), dims(c), keepdim(c))};
       }},
      {"amin",
       [](const GoldenCase& c) -> Outs {
         return {c.int_lists.empty() ? amin(c.arg(0)) : amin(c.arg(0), dims(c), keepdim(c))};
       }},
      {"argmax",
       [](const GoldenCase& c) -> Outs {
         return {c.ints.empty() ? argmax(c.arg(0)) : argmax(c.arg(0), c.ints[0], keepdim(c))};
       }},
      {"argmin",
       [](const GoldenCase& c) -> Outs {
         return {c.ints.empty() ? argmin(c.arg(0)) : argmin(c.arg(0), c.ints[0], keepdim(c))};
       }},
      {"var",
       [](const GoldenCase& c) -> Outs {
         const std::optional<double> correction = c.scalars.at(0);
         if (c.int_lists.empty()) return {var(c.arg(0), std::nullopt, correction, keepdim(c))};
         return {var(c.arg(0), dims(c), correction, keepdim(c))};
       }},
      {"std",
       [](const GoldenCase& c) -> Outs {
         const std::optional<double> correction = c.scalars.at(0);
         if (c.int_lists.empty())
           return {ember::std(c.arg(0), std::nullopt, correction, keepdim(c))};
         return {ember::std(c.arg(0), dims(c), correction, keepdim(c))};
       }},
      {"norm",
       [](const GoldenCase& c) -> Outs {
         const Scalar& p = c.scalar_args.at(0);
         return {c.int_lists.empty() ? norm(c.arg(0), p) : norm(c.arg(0), p, dims(c), keepdim(c))};
       }},
      {"logsumexp",
       [](const GoldenCase& c) -> Outs { return {logsumexp(c.arg(0), dims(c), keepdim(c))}; }},
      {"softmax", [](const GoldenCase& c) -> Outs { return {softmax(c.arg(0), c.ints.at(0))}; }},
      {"log_softmax",
       [](const GoldenCase& c) -> Outs { return {log_softmax(c.arg(0), c.ints.at(0))}; }},
      {"_softmax_backward_data",
       [](const GoldenCase& c) -> Outs {
         return {_softmax_backward_data(c.arg(0), c.arg(1), c.ints.at(0), c.arg(1).scalar_type())};
       }},
      {"_log_softmax_backward_data",
       [](const GoldenCase& c) -> Outs {
         return {
             _log_softmax_backward_data(c.arg(0), c.arg(1), c.ints.at(0), c.arg(1).scalar_type())};
       }},
      {"cumsum", [](const GoldenCase& c) -> Outs { return {cumsum(c.arg(0), c.ints.at(0))}; }},
      {"cumprod", [](const GoldenCase& c) -> Outs { return {cumprod(c.arg(0), c.ints.at(0))}; }},
      {"all",
       [](const GoldenCase& c) -> Outs {
         return {c.ints.empty() ? all(c.arg(0)) : all(c.arg(0), c.ints[0], keepdim(c))};
       }},
      {"any",
       [](const GoldenCase& c) -> Outs {
         return {c.ints.empty() ? any(c.arg(0)) : any(c.arg(0), c.ints[0], keepdim(c))};
       }},
      {"topk",
       [](const GoldenCase& c) -> Outs {
         return two(topk(c.arg(0), c.ints.at(0), c.ints.at(1), !c.has_flag("smallest")));
       }},
      {"sort",
       [](const GoldenCase& c) -> Outs {
         return two(sort(c.arg(0), c.ints.at(0), c.has_flag("descending")));
       }},
      {"argsort",
       [](const GoldenCase& c) -> Outs {
         return {argsort(c.arg(0), c.ints.at(0), c.has_flag("descending"))};
       }},
      {"median",
       [](const GoldenCase& c) -> Outs {
         return c.ints.empty() ? Outs{median(c.arg(0))}
                               : two(median(c.arg(0), c.ints[0], keepdim(c)));
       }},
  };
  return table;
}

const std::vector<GoldenCase>& golden() {
  static const std::vector<GoldenCase> cases = load_golden("reduction");
  return cases;
}

std::vector<std::string> runner_names() {
  std::vector<std::string> names;
  for (const auto& kv : runners()) names.push_back(kv.first);
  return names;
}

class ReductionGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(ReductionGolden, MatchesPyTorch) {
  // With 1 and 2 threads: the split-over-threads paths must not change results.
  ember_test::with_thread_counts(
      [&] { expect_runner_matches(golden(), GetParam(), runners().at(GetParam())); });
}

INSTANTIATE_TEST_SUITE_P(Reduction, ReductionGolden, ::testing::ValuesIn(runner_names()),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

TEST(ReductionGoldenCoverage, EveryGoldenOpHasARunner) {
  expect_every_op_has_runner(golden(), runners(), 20);
}

}  // namespace reduction_golden_test

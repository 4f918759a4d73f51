// The test op table (OpInfo-style): one entry per elementwise op saying how to run it from a golden
// case. Generic tests (elementwise_golden_test.cpp) drive every entry through every golden case of
// its op; a coverage test fails when an op of op_table.h has no entry or no golden case.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "tests/support/golden.h"

struct OpInfo {
  std::string name;                                     // the op's public name, as in op_table.h
  std::string family;                                   // golden file: "unary" or "binary"
  std::function<ember::Tensor(const GoldenCase&)> run;  // calls Ember the way the case says
  /// For float-only ops: a dtype that must be rejected with a TypeError naming the op.
  bool float_only = false;
};

/// Every elementwise op of include/ember/ops/op_table.h.
const std::vector<OpInfo>& elementwise_op_infos();

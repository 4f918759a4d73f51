// The nn test op table: one entry per functional op (F::elu, F::cross_entropy, ...) drives
//  - forward against PyTorch golden data (every case of the op, every dtype stored),
//  - gradients against PyTorch's (cases flagged `grads`; layout in tests/golden/gen/nn_common.py),
//  - a float64 gradcheck of the op on its first float32 golden case cast to float64,
// from tests/nn/nn_op_table_test.cpp, and a coverage test fails when an op listed in
// kNnFunctionalOps (nn_op_table_test.cpp) has no entry.
//
// A family file registers its entries once:
//   EMBER_NN_OP_FAMILY(activation) {
//     return {
//       nn_op("elu", "nn_functional", {0},
//             [](const Args& a, const GoldenCase& c) {
//               return F::elu(a[0], F::ELUFuncOptions().alpha(c.scalars.at(0)));
//             }),
//     };
//   }
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "tests/support/golden.h"

namespace ember_test {

using Args = std::vector<ember::Tensor>;
/// Runs the op on the case's inputs (without the cotangent), options decoded from the case's
/// sargs / iargs / strs / flags.
using NnRun = std::function<ember::Tensor(const Args& inputs, const GoldenCase& c)>;

struct NnOpInfo {
  std::string name;               // the golden op name (case "<name>/<variant>")
  std::string family;             // the golden file: "nn_functional" or "nn_loss"
  std::vector<size_t> grad_args;  // inputs that get gradients, in the golden file's order
  NnRun run;
  /// Tolerances per dtype for forward and gradients; zero means golden.h's default_tolerance.
  double rtol32 = 0, atol32 = 0;
  /// Skip the float64 gradcheck (e.g. an op whose gradient is checked elsewhere); say why.
  std::string no_gradcheck_reason;
  /// Extra gradcheck options (eps/atol/rtol) for ops with kinks near the golden inputs.
  ember::autograd::GradcheckOptions gradcheck_options;
};

inline NnOpInfo nn_op(std::string name, std::string family, std::vector<size_t> grad_args,
                      NnRun run) {
  NnOpInfo info;
  info.name = std::move(name);
  info.family = std::move(family);
  info.grad_args = std::move(grad_args);
  info.run = std::move(run);
  return info;
}

/// Every registered entry, in registration order (family files register at static init).
std::vector<NnOpInfo>& nn_op_infos();

struct NnOpFamilyRegistrar {
  explicit NnOpFamilyRegistrar(std::vector<NnOpInfo> (*make)()) {
    for (NnOpInfo& info : make()) nn_op_infos().push_back(std::move(info));
  }
};

}  // namespace ember_test

#define EMBER_NN_OP_FAMILY(family)                                              \
  static std::vector<ember_test::NnOpInfo> ember_nn_ops_##family();             \
  static const ember_test::NnOpFamilyRegistrar ember_nn_ops_registrar_##family( \
      &ember_nn_ops_##family);                                                  \
  static std::vector<ember_test::NnOpInfo> ember_nn_ops_##family()

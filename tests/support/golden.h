// Golden data: PyTorch's forward results, stored as text so tests never need PyTorch.
//
// tests/golden/generate.py (run with Debian's /usr/bin/python3 and torch 1.13) writes
// tests/golden/<family>.golden; the files are committed. Each file is a list of records:
//
//   # comment                 ignored anywhere (generate.py puts notes on a case this way)
//   case <op>/<variant>       starts a record; e.g. "exp/float32", "div/floor_int64"
//   call <text>               the PyTorch expression that made the outputs (a0.. args, s0.. sargs,
//                             i0.. iargs, l0.. ilists, q0.. strs)
//   flag <word>               transposed, transposed_a1, tensor_scalar, scalar_tensor, alpha,
//                             keepdim, descending, smallest, no_min, no_max, upper,
//                             reduced_outputs (meanings: generate.py, top of file)
//   str <word>                a string argument (rounding mode, approximate, equation, index part)
//   sarg <number>             a Scalar: "3" is integral, "true"/"false" bool, "1.5"/"nan"/"-inf"
//                             floating
//   iarg <int>                one integer argument
//   ilist [<int> ...]         one integer-list argument
//   arg <tensor>              a tensor argument, in call order
//   out <tensor>              an expected output, in return order (values before indices)
//   end
//
//   <tensor> := <dtype> <ndim> <size>... <value>...     row-major, numel values
//
// dtype is PyTorch's short name (float32, int64, bool, bfloat16, ...). Integers are decimal, bools
// 0/1, floats a decimal or nan/inf/-inf; every stored value reads back exactly. A 0-dim tensor is
// `float64 0 2.5`; a zero-size one has no values. A line kind a case lacks means "argument not
// given" (no sarg on logit: eps = None). Which argument means what is per op: read the case's
// `call` line and the family's notes in generate.py.
//
// Use:
//   for (const GoldenCase& c : load_golden("unary")) {
//     if (c.op() != "exp") continue;
//     SCOPED_TRACE(c.location);
//     expect_close(ember::exp(c.arg(0)), c.outs[0], c.name);   // per-dtype default tolerances
//   }
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ember/core/scalar.h"
#include "ember/core/tensor.h"
#include "ember/core/tensor_index.h"

/// One record of a golden file.
struct GoldenCase {
  std::string name;                             // "<op>/<variant>"
  std::string call;                             // the PyTorch expression, for messages
  std::string location;                         // "unary.golden:123", for messages
  std::vector<ember::Tensor> args;              // as stored: contiguous, CPU
  std::vector<double> scalars;                  // sarg values
  std::vector<ember::Scalar> scalar_args;       // the same sargs with their kind (int/float/bool)
  std::vector<std::string> strs;                // str values
  std::vector<int64_t> ints;                    // iarg values
  std::vector<std::vector<int64_t>> int_lists;  // ilist values
  std::vector<std::string> flags;
  std::vector<ember::Tensor> outs;

  /// The op part of the name: "exp" for "exp/float32".
  std::string op() const;
  /// The variant part of the name: "float32" for "exp/float32".
  std::string variant() const;
  bool has_flag(const std::string& flag) const;
  /// args[i] as the op must see it: `a0.mT()` when flagged `transposed` (i == 0) or
  /// `transposed_a1` (i == 1), else args[i] itself.
  ember::Tensor arg(size_t i) const;
};

/// Every case of tests/golden/<family>.golden, read fresh (the tensors are new each call, so a test
/// may modify them). The folder is $EMBER_GOLDEN_DIR when set, else the compile definition
/// EMBER_GOLDEN_DIR. Throws std::runtime_error naming the file and line on a malformed record.
std::vector<GoldenCase> load_golden(const std::string& family);
/// The same parser on text already in memory; `source` names it in errors and locations.
std::vector<GoldenCase> parse_golden(const std::string& text, const std::string& source);
/// The path load_golden reads for `family`.
std::string golden_path(const std::string& family);
/// The cases whose op() is `op`, in file order.
std::vector<GoldenCase> golden_cases_for(const std::vector<GoldenCase>& cases,
                                         const std::string& op);

/// The index list of an `index/...` case: one TensorIndex per `str`, where "N" is an integer,
/// "a:b:c" a Slice (empty parts are None), "None", "...", "True"/"False", and "@k" tensor args[k].
std::vector<ember::TensorIndex> golden_index(const GoldenCase& c);

/// Per-dtype defaults: float32 1.3e-6/1e-5, float64 1e-7/1e-7, float16 1e-3/1e-3,
/// bfloat16 1.6e-2/1e-2, integers and bool exact (0/0).
struct Tolerance {
  double rtol = 0;
  double atol = 0;
};
Tolerance default_tolerance(ember::ScalarType dtype);
/// The dtype a golden file names ("float32", "int64", ...); an unknown name throws.
ember::ScalarType golden_dtype(const std::string& name);

/// Adds a GoogleTest failure unless `actual` matches `expected`: same dtype and sizes, and every
/// element |a - e| <= atol + rtol * |e| (compared in float64; NaN matches NaN, an infinity only the
/// same infinity). Integer and bool tensors must match exactly, whatever rtol/atol say. The message
/// names `what`, the mismatch count, and the worst element's index with both values. `actual` may
/// be non-contiguous or on CUDA. Returns whether it matched.
bool expect_close(const ember::Tensor& actual, const ember::Tensor& expected, double rtol,
                  double atol, const std::string& what);
/// The same with default_tolerance(expected.dtype()).
bool expect_close(const ember::Tensor& actual, const ember::Tensor& expected,
                  const std::string& what);

/// Families whose ops give several outputs (values and indices, Q and R, ...): one runner per op.
using GoldenOuts = std::vector<ember::Tensor>;
using GoldenRunner = std::function<GoldenOuts(const GoldenCase&)>;
/// Runs every case of `op` through `run` and compares each output with the case's (default
/// tolerances); a throw fails that case, naming it; `op` without a case fails.
void expect_runner_matches(const std::vector<GoldenCase>& cases, const std::string& op,
                           const GoldenRunner& run);
/// Fails for every op of `cases` that `runners` lacks, and when there are fewer than `min_ops`.
void expect_every_op_has_runner(const std::vector<GoldenCase>& cases,
                                const std::map<std::string, GoldenRunner>& runners, size_t min_ops);

// Shared by src/nn/functional/activation*.cpp: input checks, the float32 upcast of reduced
// floats, and unary_with_grad, which gives a piecewise activation one forward pass and one
// backward node instead of a chain of recorded ops.
#pragma once

#include <initializer_list>
#include <utility>

#include "ember/autograd/grad_mode.h"
#include "ember/core/tensor.h"
#include "src/autograd/record.h"

namespace ember::nn::functional::detail {

/// Throws TypeError unless `input` is a floating tensor (PyTorch has no integer kernel for `op`).
void check_floating(const Tensor& input, const char* op);

/// float16/bfloat16 inputs of a multi-step formula compute in float32 and round once at the end,
/// as PyTorch's kernels do (every intermediate rounding to float16 would cost ~1 ulp).
inline Tensor upcast(const Tensor& x) { return is_reduced_float(x.dtype()) ? x.to(kFloat) : x; }
inline Tensor downcast(const Tensor& y, ScalarType dtype) {
  return y.dtype() == dtype ? y : y.to(dtype);
}

/// What a backward formula reads.
enum class GradFrom {
  kInput,   // x as it was before the op (in place: a copy taken before writing)
  kResult,  // the op's output (in place: x after writing, as PyTorch's in-place activations)
};

/// y = fwd(x), computed without recording, with the single backward node `node`:
/// d(x) = bwd(grad, saved), where saved is x or y (`from`), or `aux` when it is defined (e.g.
/// rrelu's sampled slopes). In place, x is overwritten with y (fwd may already have done so by
/// returning x itself) and the node is recorded as an in-place op on x.
/// Used where composing recorded ops would either get PyTorch's gradient wrong at a kink
/// (hardtanh: clamp's gradient is 1 at the bounds, hardtanh's 0) or record several nodes and
/// save several full-size tensors where the formula needs one.
template <class Fwd, class Bwd>
Tensor unary_with_grad(const char* op, const char* node, const Tensor& x, bool inplace,
                       GradFrom from, Fwd&& fwd, Bwd bwd, const Tensor& aux = Tensor()) {
  using namespace ember::autograd;
  if (!inplace) {
    OpRecording rec(x);
    Tensor y = fwd(x);
    if (rec) {
      SavedVariable saved = aux.defined()               ? save(aux)
                            : from == GradFrom::kResult ? save_output(y)
                                                        : save(x);
      record(node, y, edges_of(x), [saved = std::move(saved), bwd](const Tensor& grad) {
        return bwd(grad, saved.unpack());
      });
    }
    return y;
  }
  InplaceRecording rec(op, x);
  Edges edges;
  SavedVariable saved;
  if (rec) {
    edges = edges_of(x);
    if (aux.defined())
      saved = save(aux);
    else if (from == GradFrom::kInput) {
      // The formula needs the values about to be overwritten. The copy is recorded, so that
      // create_graph differentiates through it back to x's old history.
      AutoGradMode on(true);
      saved = save(x.clone());
    }
  }
  Tensor y = fwd(x);
  if (!y.is_same(x)) x.copy_(y);
  if (rec) {
    if (!aux.defined() && from == GradFrom::kResult) saved = save_output(x);
    auto fn = make_node(
        node, std::move(edges),
        [saved = std::move(saved), bwd](const Tensor& grad) { return bwd(grad, saved.unpack()); });
    // save_output noted x's old grad_fn; the saved result is this node's output (create_graph
    // differentiates through it), so bind it before x's history changes.
    fn->saved().bind_outputs(std::initializer_list<Tensor>{x}, fn);
    rebase_history(x, fn);
  }
  return x;
}

}  // namespace ember::nn::functional::detail

// Reductions as free functions. An empty dim list reduces over all dims. float16/bfloat16 inputs
// accumulate in float32; integer sums accumulate in int64 (PyTorch's dtype rules).
#pragma once

#include <optional>
#include <tuple>
#include <type_traits>

#include "ember/core/optional_array_ref.h"
#include "ember/core/tensor.h"

namespace ember {

EMBER_API Tensor sum(const Tensor& self, std::optional<ScalarType> dtype = std::nullopt);
EMBER_API Tensor sum(const Tensor& self, IntArrayRef dim, bool keepdim = false,
                     std::optional<ScalarType> dtype = std::nullopt);
EMBER_API Tensor mean(const Tensor& self, std::optional<ScalarType> dtype = std::nullopt);
EMBER_API Tensor mean(const Tensor& self, IntArrayRef dim, bool keepdim = false,
                      std::optional<ScalarType> dtype = std::nullopt);
EMBER_API Tensor prod(const Tensor& self, std::optional<ScalarType> dtype = std::nullopt);
EMBER_API Tensor prod(const Tensor& self, int64_t dim, bool keepdim = false,
                      std::optional<ScalarType> dtype = std::nullopt);
EMBER_API Tensor max(const Tensor& self);
EMBER_API std::tuple<Tensor, Tensor> max(const Tensor& self, int64_t dim, bool keepdim = false);
EMBER_API Tensor min(const Tensor& self);
EMBER_API std::tuple<Tensor, Tensor> min(const Tensor& self, int64_t dim, bool keepdim = false);
EMBER_API Tensor amax(const Tensor& self, IntArrayRef dim = {}, bool keepdim = false);
EMBER_API Tensor amin(const Tensor& self, IntArrayRef dim = {}, bool keepdim = false);
EMBER_API Tensor argmax(const Tensor& self, std::optional<int64_t> dim = std::nullopt,
                        bool keepdim = false);
EMBER_API Tensor argmin(const Tensor& self, std::optional<int64_t> dim = std::nullopt,
                        bool keepdim = false);
// var/std/var_mean/std_mean as LibTorch declares them: `unbiased` (Bessel's correction when true)
// or an explicit `correction`; the dims are an OptionalIntArrayRef, so `var(t, {1}, false)` and
// `var(t, 1)` are safe (nullopt reduces every dim). As in LibTorch, a plain number after the dims
// is `unbiased` (a standard conversion beats the optional's): pass std::optional<double>(c), or
// name it through a variable of that type, for a correction other than 0 or 1.
EMBER_API Tensor var(const Tensor& self, bool unbiased = true);
EMBER_API Tensor var(const Tensor& self, OptionalIntArrayRef dim, bool unbiased = true,
                     bool keepdim = false);
EMBER_API Tensor var(const Tensor& self, OptionalIntArrayRef dim, std::optional<double> correction,
                     bool keepdim = false);
EMBER_API Tensor std(const Tensor& self, bool unbiased = true);
EMBER_API Tensor std(const Tensor& self, OptionalIntArrayRef dim, bool unbiased = true,
                     bool keepdim = false);
EMBER_API Tensor std(const Tensor& self, OptionalIntArrayRef dim, std::optional<double> correction,
                     bool keepdim = false);
EMBER_API std::tuple<Tensor, Tensor> var_mean(const Tensor& self, bool unbiased = true);
EMBER_API std::tuple<Tensor, Tensor> var_mean(const Tensor& self, OptionalIntArrayRef dim,
                                              bool unbiased = true, bool keepdim = false);
EMBER_API std::tuple<Tensor, Tensor> var_mean(const Tensor& self, OptionalIntArrayRef dim,
                                              std::optional<double> correction,
                                              bool keepdim = false);
EMBER_API std::tuple<Tensor, Tensor> std_mean(const Tensor& self, bool unbiased = true);
EMBER_API std::tuple<Tensor, Tensor> std_mean(const Tensor& self, OptionalIntArrayRef dim,
                                              bool unbiased = true, bool keepdim = false);
EMBER_API std::tuple<Tensor, Tensor> std_mean(const Tensor& self, OptionalIntArrayRef dim,
                                              std::optional<double> correction,
                                              bool keepdim = false);
// An integer alone is a dim, as LibTorch's `int dim` overloads (otherwise int -> bool would make
// `var(t, 1)` unbiased). A template, so an int64_t dim is one too (ambiguous in LibTorch).
template <class I, class = std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>>>
Tensor var(const Tensor& self, I dim) {
  return var(self, OptionalIntArrayRef(static_cast<int64_t>(dim)));
}
template <class I, class = std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>>>
Tensor std(const Tensor& self, I dim) {
  return std(self, OptionalIntArrayRef(static_cast<int64_t>(dim)));
}
template <class I, class = std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>>>
std::tuple<Tensor, Tensor> var_mean(const Tensor& self, I dim) {
  return var_mean(self, OptionalIntArrayRef(static_cast<int64_t>(dim)));
}
template <class I, class = std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>>>
std::tuple<Tensor, Tensor> std_mean(const Tensor& self, I dim) {
  return std_mean(self, OptionalIntArrayRef(static_cast<int64_t>(dim)));
}
EMBER_API Tensor norm(const Tensor& self, const Scalar& p = 2);
EMBER_API Tensor norm(const Tensor& self, const Scalar& p, IntArrayRef dim, bool keepdim = false);
EMBER_API Tensor logsumexp(const Tensor& self, IntArrayRef dim, bool keepdim = false);
EMBER_API Tensor softmax(const Tensor& self, int64_t dim,
                         std::optional<ScalarType> dtype = std::nullopt);
EMBER_API Tensor log_softmax(const Tensor& self, int64_t dim,
                             std::optional<ScalarType> dtype = std::nullopt);
/// ATen's softmax gradient: grad_input = output·(grad_output - Σ grad_output·output) along dim,
/// as input_dtype. One fused pass per row on the CPU; differentiable (composed of ops) when an
/// operand requires grad.
EMBER_API Tensor _softmax_backward_data(const Tensor& grad_output, const Tensor& output,
                                        int64_t dim, ScalarType input_dtype);
/// ATen's log_softmax gradient: grad_input = grad_output - exp(output)·Σ grad_output along dim.
EMBER_API Tensor _log_softmax_backward_data(const Tensor& grad_output, const Tensor& output,
                                            int64_t dim, ScalarType input_dtype);
EMBER_API Tensor cumsum(const Tensor& self, int64_t dim,
                        std::optional<ScalarType> dtype = std::nullopt);
EMBER_API Tensor cumprod(const Tensor& self, int64_t dim,
                         std::optional<ScalarType> dtype = std::nullopt);
EMBER_API Tensor all(const Tensor& self);
EMBER_API Tensor all(const Tensor& self, int64_t dim, bool keepdim = false);
EMBER_API Tensor any(const Tensor& self);
EMBER_API Tensor any(const Tensor& self, int64_t dim, bool keepdim = false);
EMBER_API std::tuple<Tensor, Tensor> topk(const Tensor& self, int64_t k, int64_t dim = -1,
                                          bool largest = true, bool sorted = true);
EMBER_API std::tuple<Tensor, Tensor> sort(const Tensor& self, int64_t dim = -1,
                                          bool descending = false);
EMBER_API Tensor argsort(const Tensor& self, int64_t dim = -1, bool descending = false);
/// The lower median (PyTorch's convention for even counts).
EMBER_API Tensor median(const Tensor& self);
EMBER_API std::tuple<Tensor, Tensor> median(const Tensor& self, int64_t dim, bool keepdim = false);
EMBER_API Tensor count_nonzero(const Tensor& self, IntArrayRef dim = {});

// ---- out= forms (LibTorch's signatures; `out` comes first) ----
// Each computes what the plain op computes and writes it into `out`, returning `out`. An out of
// another shape is resized, as in LibTorch, with a deprecation warning through the warning
// channel (include/ember/core/warning.h) when it held elements. dtypes: sum/prod/cumsum/cumprod
// compute in out's dtype (or in `dtype`, which out must then have), mean in out's floating dtype,
// amax/amin/max/min need out of self's dtype (and int64 indices). They throw when grad mode is on
// and self requires grad, and bump out's version.
EMBER_API const Tensor& sum_out(const Tensor& out, const Tensor& self, OptionalIntArrayRef dim,
                                bool keepdim = false,
                                std::optional<ScalarType> dtype = std::nullopt);
EMBER_API const Tensor& sum_out(const Tensor& out, const Tensor& self,
                                std::optional<ScalarType> dtype = std::nullopt);
EMBER_API const Tensor& mean_out(const Tensor& out, const Tensor& self, OptionalIntArrayRef dim,
                                 bool keepdim = false,
                                 std::optional<ScalarType> dtype = std::nullopt);
EMBER_API const Tensor& prod_out(const Tensor& out, const Tensor& self, int64_t dim,
                                 bool keepdim = false,
                                 std::optional<ScalarType> dtype = std::nullopt);
EMBER_API const Tensor& prod_out(const Tensor& out, const Tensor& self,
                                 std::optional<ScalarType> dtype = std::nullopt);
EMBER_API const Tensor& amax_out(const Tensor& out, const Tensor& self, IntArrayRef dim = {},
                                 bool keepdim = false);
EMBER_API const Tensor& amin_out(const Tensor& out, const Tensor& self, IntArrayRef dim = {},
                                 bool keepdim = false);
/// (values, indices) of max along dim, written into `max` and `max_values` (LibTorch's names:
/// the second receives the int64 indices).
EMBER_API std::tuple<const Tensor&, const Tensor&> max_out(const Tensor& max,
                                                           const Tensor& max_values,
                                                           const Tensor& self, int64_t dim,
                                                           bool keepdim = false);
EMBER_API std::tuple<const Tensor&, const Tensor&> min_out(const Tensor& min,
                                                           const Tensor& min_indices,
                                                           const Tensor& self, int64_t dim,
                                                           bool keepdim = false);
EMBER_API const Tensor& cumsum_out(const Tensor& out, const Tensor& self, int64_t dim,
                                   std::optional<ScalarType> dtype = std::nullopt);
EMBER_API const Tensor& cumprod_out(const Tensor& out, const Tensor& self, int64_t dim,
                                    std::optional<ScalarType> dtype = std::nullopt);
EMBER_API const Tensor& logsumexp_out(const Tensor& out, const Tensor& self, IntArrayRef dim,
                                      bool keepdim = false);
EMBER_API const Tensor& softmax_out(const Tensor& out, const Tensor& self, int64_t dim,
                                    std::optional<ScalarType> dtype = std::nullopt);
EMBER_API const Tensor& log_softmax_out(const Tensor& out, const Tensor& self, int64_t dim,
                                        std::optional<ScalarType> dtype = std::nullopt);

}  // namespace ember

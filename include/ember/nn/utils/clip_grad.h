// Gradient clipping, as LibTorch's torch::nn::utils::clip_grad_norm_ / clip_grad_value_ (Python's
// torch.nn.utils semantics and numbers). Parameters whose grad is undefined are skipped; the
// gradients are changed in place.
//   loss.backward();
//   double norm = ember::nn::utils::clip_grad_norm_(model->parameters(), /*max_norm=*/1.0);
//   opt.step();
#pragma once

#include <initializer_list>
#include <vector>

#include "ember/core/macros.h"
#include "ember/core/tensor.h"

namespace ember::nn::utils {

/// Scales all gradients together so that their total `norm_type`-norm (the norm of the per-grad
/// norms: the norm of all gradients concatenated) is at most max_norm: each is multiplied by
/// min(1, max_norm / (total + 1e-6)). norm_type may be infinity (the largest |g|); a zero-size
/// gradient counts as norm 0 (Python's max() raises there). The per-grad norms are taken on each
/// grad's device and dtype and gathered on the first grad's device, in their promoted dtype.
/// Returns the total norm (before clipping), 0 when no parameter has a gradient. With
/// error_if_nonfinite, a NaN or infinite total is an Error and no gradient is changed.
EMBER_API double clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm,
                                 double norm_type = 2.0, bool error_if_nonfinite = false);
/// The same for a braced list: clip_grad_norm_({w, b}, 1.0).
EMBER_API double clip_grad_norm_(std::initializer_list<Tensor> parameters, double max_norm,
                                 double norm_type = 2.0, bool error_if_nonfinite = false);
/// The same for one parameter.
EMBER_API double clip_grad_norm_(Tensor parameter, double max_norm, double norm_type = 2.0,
                                 bool error_if_nonfinite = false);

/// Clamps every gradient element into [-clip_value, clip_value] in place.
EMBER_API void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value);
/// The same for a braced list.
EMBER_API void clip_grad_value_(std::initializer_list<Tensor> parameters, double clip_value);
/// The same for one parameter.
EMBER_API void clip_grad_value_(Tensor parameter, double clip_value);

}  // namespace ember::nn::utils

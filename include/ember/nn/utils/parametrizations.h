// Built-in parametrizations (Python's torch.nn.utils.parametrizations), registered through
// parametrize.h so state_dict keys equal Python's.
//
//   nn::Linear lin(20, 40);
//   nn::utils::parametrizations::weight_norm(*lin, "weight", 0);
//   // lin->parametrizations.weight.original0 is g [40, 1], original1 is v [40, 20]
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "ember/nn/module.h"

namespace ember::nn::utils::parametrizations {

/// Weight normalisation: the tensor is reparametrized as g * v / ||v||, the norm taken over every
/// dim except `dim` (over the whole tensor when dim is nullopt), with original0 = g (initialised
/// to ||weight||) and original1 = v (initialised to weight).
EMBER_API void weight_norm(Module& module, const std::string& name = "weight",
                           std::optional<int64_t> dim = 0);

/// An orthogonal (orthonormal columns or rows) matrix or batch of matrices [..., n, k]: the
/// original is mapped by `orthogonal_map` ("matrix_exp" or "cayley" of the skew-symmetric part of
/// its lower triangle, or "householder" reflectors below its diagonal; default: matrix_exp for
/// square matrices, householder otherwise). With use_trivialization the parametrization keeps the
/// buffer `base` (the matrix at registration, made orthogonal) and computes base · map(original),
/// the original starting at the map's preimage of the identity; assign() then works for all three
/// maps. Without it, assign() works for householder only (NotImplementedError otherwise).
EMBER_API void orthogonal(Module& module, const std::string& name = "weight",
                          std::optional<std::string> orthogonal_map = std::nullopt,
                          bool use_trivialization = true);

/// Spectral normalisation: the tensor is divided by its largest singular value σ, estimated by
/// power iteration on the tensor seen as a matrix (dim `dim` first, the rest flattened). The
/// vectors live in the buffers `_u`, `_v` of the parametrization (state_dict keys
/// `parametrizations.<name>.0._u` / `._v`); each call in training mode runs n_power_iterations
/// more steps, eval mode reuses them. A 1-dim tensor is divided by its norm. dim defaults to 1
/// for ConvTranspose1d/2d/3d and to 0 otherwise.
EMBER_API void spectral_norm(Module& module, const std::string& name = "weight",
                             int64_t n_power_iterations = 1, double eps = 1e-12,
                             std::optional<int64_t> dim = std::nullopt);

}  // namespace ember::nn::utils::parametrizations

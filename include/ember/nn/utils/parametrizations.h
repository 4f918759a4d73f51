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

}  // namespace ember::nn::utils::parametrizations

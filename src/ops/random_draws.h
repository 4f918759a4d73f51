// PyTorch's CPU sampling, draw for draw: what makes rand, uniform_, randn, normal_ (and so every
// initialiser) give PyTorch's numbers after manual_seed.
#pragma once

#include "ember/core/generator.h"
#include "ember/core/tensor.h"

namespace ember::detail {

/// A uniform draw in [0, 1) as PyTorch's uniform_real_distribution makes it for a tensor of
/// `dtype`: the low 53 bits of a 64-bit draw for float64, the low 24 / 11 / 8 bits (the type's
/// mantissa digits) of a 32-bit draw for float32 / float16 / bfloat16.
double uniform01(Generator& gen, ScalarType dtype);

/// A new contiguous host tensor of `size` and floating `dtype` filled with normal(mean, std)
/// draws in ATen's order (normal_kernel): 16 or more values of a contiguous target are drawn as
/// uniforms first and turned into normals in blocks of 16; fewer values, or a strided target
/// (`blocks` false), are drawn one at a time from the generator's cached Box-Muller pair. The
/// caller holds gen.mutex().
Tensor host_normal(IntArrayRef size, ScalarType dtype, double mean, double std, Generator& gen,
                   bool blocks);

}  // namespace ember::detail

// Intra-op thread count (OpenMP underneath, and OpenBLAS's pool is kept in step).
#pragma once

#include "ember/core/macros.h"

namespace ember {
/// Sets the threads used inside one op, for Ember's loops and the BLAS alike.
EMBER_API void set_num_threads(int n);
EMBER_API int get_num_threads();
}  // namespace ember

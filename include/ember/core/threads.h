// Intra-op parallelism: the thread count (OpenMP underneath, and OpenBLAS's pool is kept in step)
// and parallel_for over it, as LibTorch's at:: functions of <ATen/Parallel.h>.
//
//   ember::parallel_for(0, n, 2048, [&](int64_t begin, int64_t end) {
//     for (int64_t i = begin; i < end; ++i) out[i] = f(in[i]);
//   });
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "ember/core/macros.h"

namespace ember {
/// Sets the threads used inside one op, for Ember's loops and the BLAS alike.
EMBER_API void set_num_threads(int n);
EMBER_API int get_num_threads();

/// Calls f(chunk_begin, chunk_end) on disjoint chunks covering [begin, end): at most
/// min(get_num_threads(), ceil(n / grain_size)) chunks of about equal size, so roughly
/// `grain_size` elements or more each (a range of grain_size or fewer runs as one call on the
/// calling thread, as does a call made inside another parallel_for). Returns when every chunk is
/// done; an exception thrown by f is rethrown here (the first one, when several threads throw).
EMBER_API void parallel_for(int64_t begin, int64_t end, int64_t grain_size,
                            const std::function<void(int64_t, int64_t)>& f);
/// Whether the calling thread is running a chunk of a parallel_for.
EMBER_API bool in_parallel_region();
/// The calling thread's number inside a parallel_for (0 .. get_num_threads()-1); 0 outside one.
EMBER_API int get_thread_num();

/// LibTorch's at::parallel_reduce: f(chunk_begin, chunk_end, ident) reduces one chunk of
/// [begin, end), sf(a, b) combines two partial results; ident is the identity of sf. Partials
/// are kept per thread and combined in thread order, so the result does not depend on which
/// thread finished first.
template <class scalar_t, class F, class SF>
scalar_t parallel_reduce(int64_t begin, int64_t end, int64_t grain_size, scalar_t ident, const F& f,
                         const SF& sf) {
  if (begin >= end) return ident;
  if (end - begin <= grain_size || in_parallel_region() || get_num_threads() == 1)
    return f(begin, end, ident);
  std::vector<scalar_t> partial(static_cast<size_t>(get_num_threads()), ident);
  parallel_for(begin, end, grain_size, [&](int64_t b, int64_t e) {
    scalar_t& mine = partial[static_cast<size_t>(get_thread_num())];
    mine = sf(mine, f(b, e, ident));
  });
  scalar_t result = ident;
  for (const scalar_t& p : partial) result = sf(result, p);
  return result;
}
}  // namespace ember

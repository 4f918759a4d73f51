// Thread settings for the Ember-side programs: `1`/`2` call ember::set_num_threads(n), which also
// sizes the BLAS pool; `lt-def` calls nothing (Ember's default). `a<N>b<M>` (the GEMM probe of
// LibTorch's two pools) has no Ember meaning: Ember keeps one setting, so it uses N.
#pragma once

#include <ember/ember.h>

#include "bench_timer.h"

namespace bench_ember {

inline void apply_threads(const bench::Threads& t) {
  if (t.intra > 0) ember::set_num_threads(t.intra);
}

}  // namespace bench_ember

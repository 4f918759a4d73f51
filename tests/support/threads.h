// with_thread_counts(f): runs f with 1 and with 2 threads (each traced), then restores the count:
// how tests check that a kernel's split over threads does not change its result.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "ember/core/threads.h"

namespace ember_test {

template <class F>
void with_thread_counts(F&& f) {
  const int saved = ember::get_num_threads();
  for (int t : {1, 2}) {
    ember::set_num_threads(t);
    SCOPED_TRACE("threads=" + std::to_string(t));
    f();
  }
  ember::set_num_threads(saved);
}

}  // namespace ember_test

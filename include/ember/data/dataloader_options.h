// torch::data::DataLoaderOptions: batch_size, workers, max_jobs, timeout, enforce_ordering,
// drop_last, as builder-style arguments.
//
//   ember::data::DataLoaderOptions().batch_size(64).workers(2)
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>

#include "ember/core/arg.h"
#include "ember/core/error.h"
#include "ember/core/string_util.h"

namespace ember::data {

/// How a DataLoader batches and prefetches.
struct DataLoaderOptions {
  DataLoaderOptions() = default;
  /* implicit */ DataLoaderOptions(size_t batch_size) : batch_size_(batch_size) {}

  /// Examples per batch.
  EMBER_ARG(size_t, batch_size) = 1;
  /// Worker threads that load batches ahead; 0 loads on the caller's thread when it asks.
  EMBER_ARG(size_t, workers) = 0;
  /// Batches requested ahead of the caller (default 2 * workers).
  EMBER_ARG(std::optional<size_t>, max_jobs);
  /// How long the caller waits for a worker's batch before an Error (default: forever).
  EMBER_ARG(std::optional<std::chrono::milliseconds>, timeout);
  /// Batches come back in the sampler's order (else in the order workers finish them).
  EMBER_ARG(bool, enforce_ordering) = true;
  /// Leave out the last batch when it is smaller than batch_size.
  EMBER_ARG(bool, drop_last) = false;
};

/// DataLoaderOptions with the defaults filled in (max_jobs) and the values checked.
struct FullDataLoaderOptions {
  explicit FullDataLoaderOptions(DataLoaderOptions options)
      : batch_size(options.batch_size()),
        workers(options.workers()),
        max_jobs(options.max_jobs().value_or(2 * options.workers())),
        timeout(options.timeout()),
        enforce_ordering(options.enforce_ordering()),
        drop_last(options.drop_last()) {
    if (batch_size == 0) throw ValueError("DataLoader: batch_size is 0; expected at least 1");
    if (workers > 0 && max_jobs == 0)
      throw ValueError(str("DataLoader: max_jobs is 0 with ", workers,
                           " workers; expected at least 1 (or leave it unset: 2 * workers)"));
  }

  size_t batch_size;
  size_t workers;
  size_t max_jobs;
  std::optional<std::chrono::milliseconds> timeout;
  bool enforce_ordering;
  bool drop_last;
};

}  // namespace ember::data

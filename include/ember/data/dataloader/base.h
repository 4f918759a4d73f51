// torch::data::DataLoaderBase: what the stateless and stateful loaders share: the epoch iterator,
// the worker threads and the queues between them.
//
// With workers > 0, up to max_jobs batch requests are queued ahead; each worker pops a request,
// calls its data set's get_batch and queues the result (or the exception it threw) with the
// request's sequence number. The caller takes results in sequence order (enforce_ordering) or as
// they come, and queues one new request per batch it takes, so at most max_jobs batches are ever
// in flight. With workers == 0 the caller's thread calls get_batch itself.
#pragma once

#include <cstddef>
#include <exception>
#include <map>
#include <memory>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "ember/core/error.h"
#include "ember/data/dataloader_options.h"
#include "ember/data/detail/queue.h"
#include "ember/data/iterator.h"
#include "ember/data/worker_exception.h"

namespace ember::data {

/// Base of StatelessDataLoader and StatefulDataLoader.
template <typename Dataset, typename Batch, typename BatchRequest>
class DataLoaderBase {
 public:
  using BatchType = Batch;
  using BatchRequestType = BatchRequest;

  /// `main_thread_dataset` serves get_batch on the caller's thread (workers == 0) or is shared
  /// by the workers (stateful loaders).
  DataLoaderBase(DataLoaderOptions options, std::unique_ptr<Dataset> main_thread_dataset = nullptr)
      : options_(std::move(options)), main_thread_dataset_(std::move(main_thread_dataset)) {}

  DataLoaderBase(const DataLoaderBase&) = delete;
  DataLoaderBase& operator=(const DataLoaderBase&) = delete;

  /// Stops and joins the workers (waiting for the batches they are loading now).
  virtual ~DataLoaderBase() { join(); }

  /// Starts an epoch: resets the sampler (or the stateful data set) and queues the first jobs.
  /// Error while the previous epoch still has batches in flight (stop iterating only at end()).
  Iterator<Batch> begin() {
    if (in_flight_jobs_ != 0)
      throw Error(
          "DataLoader: Attempted to get a new DataLoader iterator while another iterator is not "
          "yet exhausted");
    reset();
    return Iterator<Batch>([this] { return this->next(); });
  }
  /// The end of every epoch.
  Iterator<Batch> end() { return Iterator<Batch>(); }

  /// Waits for the batches being loaded now, stops the workers and joins them. Called by the
  /// destructor; afterwards a loader with workers yields no more batches.
  void join() {
    if (joined_) return;
    joined_ = true;
    drain();
    for (size_t i = 0; i < workers_.size(); ++i) jobs_.push(Job{});  // a job without request: quit
    for (auto& worker : workers_) worker.join();
    workers_.clear();
  }

  /// The options, with max_jobs resolved.
  const FullDataLoaderOptions& options() const noexcept { return options_; }

 protected:
  struct Job {
    std::optional<BatchRequest> request;  // nullopt tells a worker to quit
    size_t sequence_number = 0;
  };
  struct Result {
    std::optional<Batch> batch;  // nullopt from a stateful data set at the end of its epoch
    std::exception_ptr exception;
    size_t sequence_number = 0;
  };

  /// The next batch request, or nullopt when the epoch has no more.
  virtual std::optional<BatchRequest> get_batch_request() = 0;

  /// Forgets the previous epoch's batches and queues the first max_jobs requests.
  virtual void reset() {
    drain();
    sequence_number_ = 0;
    next_sequence_number_ = 0;
    prefetch(options_.max_jobs);
  }

  /// Starts `workers` threads, each running get_batch on `dataset_for_worker(i)`.
  template <typename DatasetForWorker>
  void start_workers(DatasetForWorker dataset_for_worker) {
    for (size_t i = 0; i < options_.workers; ++i) {
      workers_.emplace_back(
          [this, dataset = dataset_for_worker(i)]() mutable { this->worker_loop(*dataset); });
    }
  }

  /// The next batch of the epoch, or nullopt at its end.
  std::optional<Batch> next() {
    if (options_.workers == 0) {
      if (auto request = get_batch_request())
        return main_thread_dataset_->get_batch(std::move(*request));
      return std::nullopt;
    }
    while (std::optional<Result> result = pop_result()) {
      if (result->exception) {
        prefetch(1);  // keeps the pipeline full for a caller that catches and goes on
        throw WorkerException(result->exception);
      }
      if (result->batch) {
        prefetch(1);
        return std::move(result->batch);
      }
      // An empty result: the stateful data set's epoch is over; wait for the other jobs.
    }
    return std::nullopt;
  }

  const FullDataLoaderOptions options_;
  std::unique_ptr<Dataset> main_thread_dataset_;

 private:
  template <typename D>
  void worker_loop(D& dataset) {
    while (true) {
      Job job = jobs_.pop();
      if (!job.request) return;
      Result result;
      result.sequence_number = job.sequence_number;
      try {
        result.batch = dataset.get_batch(std::move(*job.request));
      } catch (...) {
        result.exception = std::current_exception();
      }
      results_.push(std::move(result));
    }
  }

  void prefetch(size_t requests) {
    if (joined_) return;  // no worker is left to take a job
    for (size_t i = 0; i < requests; ++i) {
      std::optional<BatchRequest> request = get_batch_request();
      if (!request) break;
      jobs_.push(Job{std::move(request), sequence_number_++});
      ++in_flight_jobs_;
    }
  }

  /// The next result in the order the options ask for; nullopt when none is in flight.
  std::optional<Result> pop_result() {
    if (!options_.enforce_ordering) return pop_any_result();
    auto it = reorder_buffer_.find(next_sequence_number_);
    while (it == reorder_buffer_.end()) {
      std::optional<Result> result = pop_any_result();
      if (!result) return std::nullopt;
      const size_t n = result->sequence_number;
      it = reorder_buffer_.emplace(n, std::move(*result)).first;
      if (n != next_sequence_number_) it = reorder_buffer_.end();
    }
    Result result = std::move(it->second);
    reorder_buffer_.erase(it);
    ++next_sequence_number_;
    return result;
  }

  std::optional<Result> pop_any_result() {
    if (in_flight_jobs_ == 0) return std::nullopt;
    Result result = results_.pop(options_.timeout);
    --in_flight_jobs_;
    return result;
  }

  /// Drops queued requests and waits for the ones being loaded, so a new epoch starts clean.
  void drain() {
    in_flight_jobs_ -= jobs_.clear();
    while (in_flight_jobs_ > 0) {
      results_.pop();
      --in_flight_jobs_;
    }
    reorder_buffer_.clear();
  }

  std::vector<std::thread> workers_;
  detail::Queue<Job> jobs_;
  detail::Queue<Result> results_;
  std::map<size_t, Result> reorder_buffer_;  // results that came before their turn
  size_t in_flight_jobs_ = 0;
  size_t sequence_number_ = 0;
  size_t next_sequence_number_ = 0;
  bool joined_ = false;
};

}  // namespace ember::data

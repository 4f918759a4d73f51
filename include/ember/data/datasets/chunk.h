// torch::data::datasets::ChunkDataset: a stateful data set over data that comes in chunks (files,
// shards). Preloader threads ask the ChunkSampler which chunk to read next, read it with the
// ChunkDataReader, let the ExampleSampler order its examples and cut them into batches in a
// bounded cache (cache_size examples); get_batch hands those batches out until every chunk of the
// epoch has been read (then nullopt). Use it through make_shared_dataset, as in LibTorch:
//
//   auto ds = datasets::make_shared_dataset<datasets::ChunkDataset<MyReader>>(
//       MyReader(...), samplers::RandomSampler(0), samplers::RandomSampler(0),
//       datasets::ChunkDatasetOptions(/*preloader_count=*/2, /*batch_size=*/32));
//   auto loader = make_data_loader(ds, DataLoaderOptions(32));
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <iterator>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "ember/core/arg.h"
#include "ember/core/error.h"
#include "ember/core/string_util.h"
#include "ember/data/datasets/stateful.h"
#include "ember/data/samplers/random.h"
#include "ember/data/worker_exception.h"

namespace ember::data::datasets {

/// Reads whole chunks: implement read_chunk, chunk_count and reset.
template <typename ExampleType_, typename ChunkType_ = std::vector<ExampleType_>>
class ChunkDataReader {
 public:
  using ChunkType = ChunkType_;
  using ExampleType = ExampleType_;
  /// The batch type of a ChunkDataset over this reader (batches are cut from chunks).
  using BatchType = ChunkType_;

  virtual ~ChunkDataReader() = default;
  /// Every example of chunk `chunk_index`.
  virtual ChunkType read_chunk(size_t chunk_index) = 0;
  /// The number of chunks.
  virtual size_t chunk_count() = 0;
  /// Forgets any state (called at the start of each epoch).
  virtual void reset() = 0;
};

namespace detail {

/// The cache between the preloaders (add_chunk_data) and get_batch: batches of batch_size cut
/// from the chunks in the ExampleSampler's order, at most about `capacity` examples held.
template <typename UnwrappedBatch, typename ExampleSampler = samplers::RandomSampler>
class BatchDataBuffer {
 public:
  using UnwrappedBatchType = UnwrappedBatch;
  using BatchType = std::optional<UnwrappedBatchType>;

  BatchDataBuffer(size_t batch_size, ExampleSampler& example_sampler, size_t capacity)
      : batch_size_(batch_size), example_sampler_(example_sampler), capacity_(capacity) {}

  /// The next batch; waits while the preloaders are still working; nullopt once they are done
  /// and the cache is empty. A preloader's exception comes back as a WorkerException.
  BatchType get_batch() {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_read_.wait(lock, [this] {
      if (entries_.empty()) return stop_;
      const Entry& front = entries_.front();
      return stop_ || front.exception || front.batch.size() >= batch_size_;
    });
    if (entries_.empty()) return std::nullopt;
    Entry entry = std::move(entries_.front());
    entries_.pop_front();
    if (entry.exception) {
      lock.unlock();
      cv_write_.notify_all();
      throw WorkerException(entry.exception);
    }
    examples_held_ -= entry.batch.size();
    lock.unlock();
    cv_write_.notify_all();
    return std::move(entry.batch);
  }

  /// Cuts `data` into batches in the example sampler's order (topping up the last, short batch
  /// first); waits while the cache is full. Does nothing once stopped.
  void add_chunk_data(UnwrappedBatchType data) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!wait_for_room(lock)) return;
    const size_t n = data.size();
    example_sampler_.reset(n);
    size_t remaining = n;
    auto take = [&](size_t count, UnwrappedBatchType& batch) {
      auto indices = example_sampler_.next(count);
      if (!indices || indices->size() != count)
        throw Error(str("ChunkDataset: the example sampler gave ",
                        indices ? indices->size() : size_t{0}, " indices for ", count,
                        " examples of a chunk of ", n));
      for (size_t i : *indices) {
        if (i >= n)
          throw IndexError(str("ChunkDataset: the example sampler gave index ", i,
                               " for a chunk of ", n, " examples"));
        batch.push_back(std::move(data[i]));
      }
      remaining -= count;
    };
    if (!entries_.empty() && !entries_.back().exception &&
        entries_.back().batch.size() < batch_size_) {
      Entry& last = entries_.back();
      take(std::min(remaining, batch_size_ - last.batch.size()), last.batch);
    }
    while (remaining > 0) {
      Entry entry;
      entry.batch.reserve(std::min(remaining, batch_size_));
      take(std::min(remaining, batch_size_), entry.batch);
      entries_.push_back(std::move(entry));
    }
    examples_held_ += n;
    lock.unlock();
    cv_read_.notify_all();
  }

  /// Queues a preloader's exception for get_batch to rethrow.
  void add_chunk_data(std::exception_ptr exception) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!wait_for_room(lock)) return;
    Entry entry;
    entry.exception = std::move(exception);
    entries_.push_back(std::move(entry));
    lock.unlock();
    cv_read_.notify_all();
  }

  /// Wakes everyone: preloaders stop adding, get_batch returns what is left, then nullopt.
  void stop() {
    {
      // Under the lock, so a waiter cannot test stop_ and then miss the notification.
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    cv_write_.notify_all();
    cv_read_.notify_all();
  }

 private:
  struct Entry {
    UnwrappedBatchType batch;
    std::exception_ptr exception;
  };

  // False when stopped while waiting.
  bool wait_for_room(std::unique_lock<std::mutex>& lock) {
    cv_write_.wait(lock, [this] { return examples_held_ < capacity_ || stop_; });
    return !stop_;
  }

  const size_t batch_size_;
  ExampleSampler& example_sampler_;
  const size_t capacity_;
  std::deque<Entry> entries_;
  size_t examples_held_ = 0;
  bool stop_ = false;
  std::mutex mutex_;
  std::condition_variable cv_read_, cv_write_;
};

}  // namespace detail

/// How a ChunkDataset loads.
struct ChunkDatasetOptions {
  ChunkDatasetOptions() = delete;
  ChunkDatasetOptions(size_t preloader_count, size_t batch_size, size_t cache_size = 2048,
                      size_t cross_chunk_shuffle_count = 1)
      : preloader_count_(preloader_count),
        batch_size_(batch_size),
        cache_size_(cache_size),
        cross_chunk_shuffle_count_(cross_chunk_shuffle_count) {
    if (preloader_count == 0)
      throw ValueError("ChunkDatasetOptions: preloader_count is 0; expected at least 1");
    if (batch_size == 0)
      throw ValueError("ChunkDatasetOptions: batch_size is 0; expected at least 1");
    if (cache_size < batch_size)
      throw ValueError(str("ChunkDatasetOptions: cache_size ", cache_size,
                           " is smaller than batch_size ", batch_size,
                           "; the cache must hold at least one batch"));
    if (cross_chunk_shuffle_count == 0)
      throw ValueError("ChunkDatasetOptions: cross_chunk_shuffle_count is 0; expected at least 1");
  }

  /// Preloader threads.
  EMBER_ARG(size_t, preloader_count);
  /// Examples per batch.
  EMBER_ARG(size_t, batch_size);
  /// Examples the cache holds before the preloaders wait.
  EMBER_ARG(size_t, cache_size) = 2048;
  /// Chunks read together and shuffled as one (1: each chunk on its own).
  EMBER_ARG(size_t, cross_chunk_shuffle_count) = 1;
};

/// A stateful data set of chunks read ahead by preloader threads; see the top of this file.
template <typename ChunkReader, typename ChunkSampler = samplers::RandomSampler,
          typename ExampleSampler = samplers::RandomSampler>
class ChunkDataset final
    : public StatefulDataset<ChunkDataset<ChunkReader, ChunkSampler, ExampleSampler>,
                             typename ChunkReader::BatchType, size_t> {
 public:
  using BatchType = std::optional<typename ChunkReader::BatchType>;
  using UnwrappedBatchType = typename ChunkReader::BatchType;
  using BatchRequestType = size_t;
  using ChunkSamplerType = ChunkSampler;
  using ExampleSamplerType = ExampleSampler;

  /// `preprocessing_policy`, when set, runs on each loaded chunk (or group of
  /// cross_chunk_shuffle_count chunks) before it is cut into batches.
  ChunkDataset(ChunkReader chunk_reader, ChunkSampler chunk_sampler, ExampleSampler example_sampler,
               ChunkDatasetOptions options,
               std::function<void(UnwrappedBatchType&)> preprocessing_policy = {})
      : chunk_reader_(std::move(chunk_reader)),
        chunk_sampler_(std::move(chunk_sampler)),
        example_sampler_(std::move(example_sampler)),
        options_(std::move(options)),
        preprocessing_policy_(std::move(preprocessing_policy)) {}

  ~ChunkDataset() override {
    if (batch_buffer_) batch_buffer_->stop();
    free_workers();
  }

  /// The next batch of the epoch, nullopt at its end. Error before the first reset() or when
  /// `batch_size` is not the options' batch size.
  BatchType get_batch(size_t batch_size) override {
    if (!batch_buffer_)
      throw Error("ChunkDataset: get_batch() before reset(); the loader's begin() calls reset()");
    if (batch_size != options_.batch_size())
      throw ValueError(str("ChunkDataset: get_batch asks for ", batch_size,
                           " examples; the data set was made with batch_size ",
                           options_.batch_size()));
    return batch_buffer_->get_batch();
  }
  /// get_batch(options.batch_size()).
  BatchType get_batch() { return get_batch(options_.batch_size()); }

  /// Starts an epoch: stops the previous one's preloaders, resets the reader and the chunk
  /// sampler (unless load() just restored it), and starts new preloaders.
  void reset() override {
    if (batch_buffer_) batch_buffer_->stop();
    free_workers();
    if (!load_checkpoint_) {
      chunk_reader_.reset();
      chunk_sampler_.reset(chunk_reader_.chunk_count());
    }
    load_checkpoint_ = false;
    batch_buffer_ = std::make_shared<detail::BatchDataBuffer<UnwrappedBatchType, ExampleSampler>>(
        options_.batch_size(), example_sampler_, options_.cache_size());
    quit_workers_ = false;
    running_preloaders_ = options_.preloader_count();
    for (size_t i = 0; i < options_.preloader_count(); ++i)
      preload_threads_.emplace_back([this] { preloader(); });
  }

  /// Unknown: chunks decide.
  std::optional<size_t> size() const override { return std::nullopt; }

  /// The chunk sampler (e.g. to set_epoch a distributed one).
  ChunkSamplerType& chunk_sampler() { return chunk_sampler_; }

  /// Writes the chunk sampler's position.
  void save(serialize::OutputArchive& archive) const override {
    std::lock_guard<std::mutex> lock(chunk_index_mutex_);
    chunk_sampler_.save(archive);
  }
  /// Restores the chunk sampler's position; the next reset() resumes from it.
  void load(serialize::InputArchive& archive) override {
    std::lock_guard<std::mutex> lock(chunk_index_mutex_);
    chunk_sampler_.load(archive);
    load_checkpoint_ = true;
  }

 private:
  void preloader() {
    while (!quit_workers_.load()) {
      try {
        std::vector<size_t> chunks;
        {
          std::lock_guard<std::mutex> lock(chunk_index_mutex_);
          auto next = chunk_sampler_.next(options_.cross_chunk_shuffle_count());
          if (!next) break;
          chunks = std::move(*next);
        }
        if (chunks.empty()) break;
        UnwrappedBatchType data = chunk_reader_.read_chunk(chunks[0]);
        for (size_t i = 1; i < chunks.size(); ++i) {
          UnwrappedBatchType more = chunk_reader_.read_chunk(chunks[i]);
          std::move(more.begin(), more.end(), std::back_inserter(data));
        }
        if (preprocessing_policy_) preprocessing_policy_(data);
        if (!data.empty()) batch_buffer_->add_chunk_data(std::move(data));
      } catch (...) {
        batch_buffer_->add_chunk_data(std::current_exception());
      }
    }
    // The last preloader out tells get_batch that no more data is coming.
    if (--running_preloaders_ == 0) batch_buffer_->stop();
  }

  void free_workers() {
    quit_workers_ = true;
    for (auto& t : preload_threads_) t.join();
    preload_threads_.clear();
  }

  ChunkReader chunk_reader_;
  ChunkSamplerType chunk_sampler_;
  ExampleSamplerType example_sampler_;
  std::shared_ptr<detail::BatchDataBuffer<UnwrappedBatchType, ExampleSampler>> batch_buffer_;
  std::vector<std::thread> preload_threads_;
  const ChunkDatasetOptions options_;
  std::function<void(UnwrappedBatchType&)> preprocessing_policy_;
  std::atomic<bool> quit_workers_{false};
  std::atomic<size_t> running_preloaders_{0};
  mutable std::mutex chunk_index_mutex_;
  bool load_checkpoint_ = false;
};

}  // namespace ember::data::datasets

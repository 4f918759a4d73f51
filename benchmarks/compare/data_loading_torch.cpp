// BENCHMARKS.md §9, data loading, LibTorch side (data_loading_ember.cpp builds this very file
// against Ember's compat headers). Fashion-MNIST train split (constructed once, its load time
// printed apart), .map(Normalize<>(0.2860, 0.3530)).map(Stack<>()), make_data_loader with batch
// 64 and the default RandomSampler, workers 0 and 2: batches per second over one full epoch
// (938 batches); 1 warm-up epoch, then the median of 5. LibTorch's MNIST reads only uncompressed
// IDX files: give it a root of gunzipped copies (Ember reads either).
//
// Build: g++ -O2 -std=c++17 data_loading_torch.cpp -I/usr/include/torch/csrc/api/include
//          -ltorch -ltorch_cpu -lc10 -o data_loading_torch
// Usage: data_loading_torch [root]   (default /usr/share/datasets/fashion-mnist)
#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "bench_timer.h"

#ifndef BENCH_LIB
#define BENCH_LIB "torch"
#endif

int main(int argc, char** argv) {
  const std::string root = argc > 1 ? argv[1] : "/usr/share/datasets/fashion-mnist";
  namespace data = torch::data;
  const auto t0 = std::chrono::steady_clock::now();
  data::datasets::MNIST train(root);
  const double load_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("INFO data_loading load %s mnist_train_load_s=%.3f examples=%lld\n", BENCH_LIB,
              load_s, static_cast<long long>(*train.size()));
  for (size_t workers : {0, 2}) {
    // The same seed on both sides: the epochs' orders (and so the checksums) must agree.
    torch::manual_seed(0);
    auto loader = data::make_data_loader(
        train.map(data::transforms::Normalize<>(0.2860, 0.3530)).map(data::transforms::Stack<>()),
        data::DataLoaderOptions().batch_size(64).workers(workers));
    long batches = 0;
    double checksum = 0;
    auto epoch = [&] {
      batches = 0;
      for (auto& batch : *loader) {
        ++batches;
        checksum += static_cast<double>(batch.target[0].item<int64_t>());
      }
    };
    const bench::Timing t = bench::measure_plain(epoch, 5, 1);
    const bench::Tag tag{"data_loading", "mnist_b64_w" + std::to_string(workers), "def", BENCH_LIB};
    bench::print_rate(tag, t, static_cast<double>(batches), 1.0, "batches/s");
    std::printf("INFO data_loading mnist_b64_w%zu def %s batches_per_epoch=%ld checksum=%g\n",
                workers, BENCH_LIB, batches, checksum);
  }
  return 0;
}

// Google Benchmark of shared/BENCHMARKS.md §9: one epoch of the Fashion-MNIST train split (loaded
// once, outside the timing) through .map(Normalize<>(0.2860, 0.3530)).map(Stack<>()) and
// make_data_loader with batch 64 and the default RandomSampler, workers 0 and 2. The counter
// batches/s is what §9 reports; BM_DataStackOnly leaves Normalize out, to show its share.
// Skips when dataset-fashion-mnist is not installed.
#include <benchmark/benchmark.h>
#include <ember/ember.h>

#include <filesystem>
#include <memory>
#include <string>

namespace {

namespace data = ember::data;
const char* const kBenchDataRoot = "/usr/share/datasets/fashion-mnist";

const data::datasets::MNIST* bench_data_train() {
  static std::unique_ptr<data::datasets::MNIST> train = [] {
    std::unique_ptr<data::datasets::MNIST> out;
    if (std::filesystem::exists(std::string(kBenchDataRoot) + "/train-images-idx3-ubyte.gz"))
      out = std::make_unique<data::datasets::MNIST>(kBenchDataRoot);
    return out;
  }();
  return train.get();
}

template <class Dataset>
void bench_data_epochs(benchmark::State& state, Dataset dataset) {
  auto loader = data::make_data_loader(
      std::move(dataset),
      data::DataLoaderOptions().batch_size(64).workers(static_cast<size_t>(state.range(0))));
  int64_t batches = 0;
  for (auto _ : state) {
    for (auto& batch : *loader) {
      benchmark::DoNotOptimize(batch.data.data_ptr());
      ++batches;
    }
  }
  state.counters["batches/s"] =
      benchmark::Counter(static_cast<double>(batches), benchmark::Counter::kIsRate);
}

void BM_DataMnistEpoch(benchmark::State& state) {
  const data::datasets::MNIST* train = bench_data_train();
  if (!train) return state.SkipWithError("dataset-fashion-mnist is not installed");
  bench_data_epochs(state, data::datasets::MNIST(*train)
                               .map(data::transforms::Normalize<>(0.2860, 0.3530))
                               .map(data::transforms::Stack<>()));
}

void BM_DataStackOnly(benchmark::State& state) {
  const data::datasets::MNIST* train = bench_data_train();
  if (!train) return state.SkipWithError("dataset-fashion-mnist is not installed");
  bench_data_epochs(state, data::datasets::MNIST(*train).map(data::transforms::Stack<>()));
}

}  // namespace

BENCHMARK(BM_DataMnistEpoch)->Arg(0)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_DataStackOnly)->Arg(0)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

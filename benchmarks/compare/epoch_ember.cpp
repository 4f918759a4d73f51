// BENCHMARKS.md §6, one Fashion-MNIST epoch, Ember side (the same code as epoch_torch.cpp,
// ember:: for torch::). The data (idx_gz.h: gzread, IDX headers checked, (x/255 - 0.2860)/0.3530)
// is loaded once and its load+decode time reported apart (INFO load_s). Per repetition:
// manual_seed(0), a new §5(a) MLP or §5(b) CNN (case mlp / cnn; default init), SGD(lr 0.01,
// momentum 0.9), perm = randperm(60000), then the timed loop: 938 steps of batch 64 (the last 32)
// built by index_select, each zero_grad, forward, cross_entropy, backward, step, loss.item(). Then
// eval() + NoGradGuard and the argmax accuracy on the 10,000 test images in batches of 250.
// Repetitions: 3 (1 with BENCH_QUICK; BENCH_REPS overrides), no new one starting after 120 s.
// Reported: seconds per epoch (median [min-max]) and the accuracy; the check is accuracy >= 0.80 in
// every repetition. Usage: epoch_ember <case> <threads>; --list prints the cases.
// BENCH_FASHION_MNIST=<dir> overrides the data directory.
#include "ember/ember.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench_timer.h"
#include "ember_threads.h"
#include "idx_gz.h"

namespace {

const std::vector<std::string> kCases = {"mlp", "cnn"};
constexpr int64_t kEpochBatch = 64;
constexpr int64_t kEpochEvalBatch = 250;
constexpr double kEpochBudgetS = 120.0;  // no repetition starts after this many seconds
using EpochClock = std::chrono::steady_clock;

/// One split as tensors that own their memory: images [n, 1, 28, 28] float, labels [n] int64.
struct EpochSplit {
  ember::Tensor images, labels;
};

EpochSplit epoch_split(idx_gz::Split& s) {
  return {
      ember::from_blob(s.images.data(), {s.n, 1, s.rows, s.cols},
                       ember::TensorOptions().dtype(ember::kFloat))
          .clone(),
      ember::from_blob(s.labels.data(), {s.n}, ember::TensorOptions().dtype(ember::kLong)).clone()};
}

/// The §5(a) MLP with each library's default initialisation.
ember::nn::Sequential epoch_mlp() {
  return ember::nn::Sequential(ember::nn::Linear(784, 512), ember::nn::ReLU(),
                               ember::nn::Linear(512, 256), ember::nn::ReLU(),
                               ember::nn::Linear(256, 10));
}

/// The §5(b) LeNet-style CNN with each library's default initialisation.
ember::nn::Sequential epoch_cnn() {
  namespace nn = ember::nn;
  return nn::Sequential(
      nn::Conv2d(nn::Conv2dOptions(1, 32, 5)), nn::ReLU(), nn::MaxPool2d(nn::MaxPool2dOptions(2)),
      nn::Conv2d(nn::Conv2dOptions(32, 64, 5)), nn::ReLU(), nn::MaxPool2d(nn::MaxPool2dOptions(2)),
      nn::Flatten(), nn::Linear(1024, 128), nn::ReLU(), nn::Linear(128, 10));
}

/// The model's input: the MLP takes flat rows, the CNN the [n, 1, 28, 28] images.
ember::Tensor epoch_input(bool cnn, const ember::Tensor& images) {
  return cnn ? images : images.flatten(1);
}

struct EpochRun {
  double seconds = 0, accuracy = 0, last_loss = 0;
  int64_t steps = 0;
};

/// One repetition: a fresh model trained for one epoch (timed), then evaluated.
EpochRun epoch_once(bool cnn, const EpochSplit& train, const EpochSplit& test) {
  ember::manual_seed(0);
  auto model = cnn ? epoch_cnn() : epoch_mlp();
  ember::optim::SGD opt(model->parameters(), ember::optim::SGDOptions(0.01).momentum(0.9));
  const int64_t n = train.images.size(0);
  const auto perm = ember::randperm(n);
  EpochRun run;
  model->train();
  const auto t0 = EpochClock::now();
  for (int64_t start = 0; start < n; start += kEpochBatch) {
    const auto idx = perm.slice(0, start, std::min(start + kEpochBatch, n));
    const auto xb = train.images.index_select(0, idx);
    const auto yb = train.labels.index_select(0, idx);
    opt.zero_grad();
    auto loss = ember::nn::functional::cross_entropy(model->forward(epoch_input(cnn, xb)), yb);
    loss.backward();
    opt.step();
    run.last_loss = loss.item<double>();
    ++run.steps;
  }
  run.seconds = std::chrono::duration<double>(EpochClock::now() - t0).count();

  model->eval();
  ember::NoGradGuard no_grad;
  const int64_t m = test.images.size(0);
  int64_t correct = 0;
  for (int64_t start = 0; start < m; start += kEpochEvalBatch) {
    const int64_t end = std::min(start + kEpochEvalBatch, m);
    const auto logits = model->forward(epoch_input(cnn, test.images.slice(0, start, end)));
    correct += logits.argmax(1).eq(test.labels.slice(0, start, end)).sum().item<int64_t>();
  }
  run.accuracy = static_cast<double>(correct) / static_cast<double>(m);
  return run;
}

}  // namespace

int main(int argc, char** argv) {
  if (bench::wants_list(argc, argv)) return bench::list(kCases), 0;
  if (argc != 3 || (std::string(argv[1]) != "mlp" && std::string(argv[1]) != "cnn"))
    bench::usage(argv[0], kCases);
  const bool cnn = std::string(argv[1]) == "cnn";
  const auto threads = bench::parse_threads(argv[2]);
  bench_ember::apply_threads(threads);
  const bench::Tag tag{"epoch", argv[1], threads.name, "ember"};
  const char* dir_env = std::getenv("BENCH_FASHION_MNIST");
  const std::string dir = dir_env ? dir_env : "/usr/share/datasets/fashion-mnist";

  EpochSplit train, test;
  const auto l0 = EpochClock::now();
  try {
    auto train_raw = idx_gz::load(dir, "train", 0.2860f, 0.3530f);
    auto test_raw = idx_gz::load(dir, "t10k", 0.2860f, 0.3530f);
    train = epoch_split(train_raw);
    test = epoch_split(test_raw);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    bench::print_na(tag, "no_fashion_mnist_data");
    return 0;
  }
  const double load_s = std::chrono::duration<double>(EpochClock::now() - l0).count();

  const int reps = bench::quick() && !std::getenv("BENCH_REPS") ? 1 : bench::reps_or(3);
  std::vector<double> seconds;
  std::vector<EpochRun> runs;
  const auto budget_start = EpochClock::now();
  for (int r = 0; r < reps; ++r) {
    if (r > 0 &&
        std::chrono::duration<double>(EpochClock::now() - budget_start).count() > kEpochBudgetS) {
      break;
    }
    runs.push_back(epoch_once(cnn, train, test));
    seconds.push_back(runs.back().seconds);
  }
  bench::Timing t;
  t.median = bench::median_of(seconds);
  t.min = *std::min_element(seconds.begin(), seconds.end());
  t.max = *std::max_element(seconds.begin(), seconds.end());
  t.inner = 1;
  t.reps = static_cast<int>(seconds.size());
  bench::print_time(tag, t, 1.0, "s/epoch");

  bool ok = true;
  std::string accuracies;
  for (const auto& run : runs) {
    ok = ok && run.steps == 938 && run.accuracy >= 0.80;
    accuracies += (accuracies.empty() ? "" : ",") + bench::format("%.4f", run.accuracy);
  }
  bench::print_info(tag, std::string("check=") + (ok ? "pass" : "FAIL") +
                             bench::format(" load_s=%.3f accuracy=%.4f last_loss=%.4g steps=%lld",
                                           load_s, runs.back().accuracy, runs.back().last_loss,
                                           static_cast<long long>(runs.back().steps)) +
                             " accuracies=" + accuracies);
  return ok ? 0 : 1;
}

#include "training.h"

#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>

#include "cli.h"
#include "ember/ember.h"
#ifdef EMBER_EXAMPLE_DISTRIBUTED
#include "ember/distributed/distributed.h"
#include "ember/nn/parallel/distributed.h"
#endif
#include "model.h"
#include "progress.h"
#include "report.h"

namespace trainer {

namespace F = ember::nn::functional;
using ember::Tensor;

namespace {

// Fashion-MNIST's mean and standard deviation over the training pixels.
constexpr double kMean = 0.2860, kStd = 0.3530;

std::unique_ptr<ember::optim::Optimizer> make_optimizer(const Options& o,
                                                        const std::vector<Tensor>& params) {
  namespace optim = ember::optim;
  const double lr = o.learning_rate();
  if (o.optimizer == "adam") return std::make_unique<optim::Adam>(params, optim::AdamOptions(lr));
  if (o.optimizer == "adamw")
    return std::make_unique<optim::AdamW>(params, optim::AdamWOptions(lr).weight_decay(0.01));
  return std::make_unique<optim::SGD>(params, optim::SGDOptions(lr).momentum(0.9));
}

// The schedule over the whole run: step (x0.1 at a third and two thirds of the epochs) and
// cosine advance once per epoch, onecycle once per batch (as PyTorch's recipes use them). Null
// for "none".
std::unique_ptr<ember::optim::LRScheduler> make_scheduler(const Options& o,
                                                          ember::optim::Optimizer& opt,
                                                          int64_t batches_per_epoch) {
  namespace optim = ember::optim;
  if (o.scheduler == "step")
    return std::make_unique<optim::StepLR>(
        opt, /*step_size=*/static_cast<unsigned>(std::max(1, o.epochs / 3)), 0.1);
  if (o.scheduler == "cosine") return std::make_unique<optim::CosineAnnealingLR>(opt, o.epochs);
  if (o.scheduler == "onecycle")  // --lr is the peak; the cycle spans every batch of the run
    return std::make_unique<optim::OneCycleLR>(opt, o.learning_rate(),
                                               o.epochs * batches_per_epoch);
  return nullptr;
}

struct Evaluation {
  double loss = 0, accuracy = 0;
};

Evaluation evaluate(ember::nn::Sequential& model, const Tensor& images, const Tensor& labels,
                    const ember::Device& device) {
  model->eval();
  ember::NoGradGuard no_grad;
  double loss_sum = 0;
  int64_t correct = 0;
  const int64_t n = images.size(0);
  for (int64_t i = 0; i < n; i += 1000) {
    const Tensor x = images.slice(0, i, std::min(i + 1000, n)).to(device);
    const Tensor y = labels.slice(0, i, std::min(i + 1000, n)).to(device);
    const Tensor logits = model->forward(x);
    loss_sum += F::cross_entropy(logits, y, F::CrossEntropyFuncOptions().reduction(ember::kSum))
                    .item<double>();
    correct += logits.argmax(1).eq(y).sum().item<int64_t>();
  }
  model->train();
  return {loss_sum / static_cast<double>(n), 100.0 * static_cast<double>(correct) / n};
}

}  // namespace

int train(const Options& o) {
  if (o.threads > 0) ember::set_num_threads(o.threads);
  const ember::Device device = o.device == "cuda" ? ember::Device(ember::kCUDA) : ember::kCPU;
  if (device.is_cuda() && !ember::cuda::is_available())
    throw ember::Error("--device cuda: no CUDA device is available here");

  // --distributed: this process is one rank of a job tools/ember-run started; rank 0 reports,
  // evaluates and writes, every rank trains on its share of each epoch.
  int rank = 0, world = 1;
  if (o.distributed) {
#ifdef EMBER_EXAMPLE_DISTRIBUTED
    ember::distributed::init_process_group(device.is_cuda() ? "nccl" : "gloo", "env://");
    rank = ember::distributed::get_rank();
    world = ember::distributed::get_world_size();
#else
    throw ember::Error("--distributed: this build has no ember_distributed (Gloo was not found)");
#endif
  }
  const bool leader = rank == 0;
  FILE* report = leader ? stdout : std::fopen("/dev/null", "w");

  auto t0 = std::chrono::steady_clock::now();
  namespace data = ember::data;
  data::datasets::MNIST train_set(o.data, data::datasets::MNIST::Mode::kTrain);
  data::datasets::MNIST test_set(o.data, data::datasets::MNIST::Mode::kTest);
  const Tensor test_x = test_set.images().sub(kMean).div(kStd);
  const Tensor test_y = test_set.targets();
  const int64_t train_size = static_cast<int64_t>(*train_set.size());
  std::fprintf(report, "loaded %lld train / %lld test images from %s in %.2f s\n",
               static_cast<long long>(train_size), static_cast<long long>(test_x.size(0)),
               o.data.c_str(), seconds_since(t0));
  const auto dataset = std::move(train_set)
                           .map(data::transforms::Normalize<>(kMean, kStd))
                           .map(data::transforms::Stack<>());
  const auto loader_options =
      data::DataLoaderOptions().batch_size(static_cast<size_t>(o.batch_size)).workers(o.workers);
  auto loader = data::make_data_loader<data::samplers::RandomSampler>(dataset, loader_options);
  const int64_t shard = (train_size + world - 1) / world;
  const int64_t batches = (shard + o.batch_size - 1) / o.batch_size;

  ember::manual_seed(o.seed);
  ember::nn::Sequential model = make_model(o.model);
  model->to(device);
  auto optimizer = make_optimizer(o, model->parameters());
  auto scheduler = make_scheduler(o, *optimizer, batches);
  const bool per_batch_schedule = o.scheduler == "onecycle";

  std::vector<EpochMetrics> history;
  int first_epoch = 0;
  const std::string checkpoint = o.out.empty() ? "" : o.out + "/checkpoint.safetensors";
  if (!o.out.empty()) make_dir(o.out);
  if (o.resume) {
    if (!is_file(checkpoint)) throw ember::Error("--resume: no checkpoint at " + checkpoint);
    ember::serialize::InputArchive in;
    in.load_from(checkpoint, device);
    ember::serialize::InputArchive part;
    in.read("model", part);
    model->load(part);
    in.read("optimizer", part);
    optimizer->load(part);
    if (scheduler) {
      in.read("scheduler", part);
      scheduler->load(part);
    }
    ember::IValue config;
    in.read("config", config);
    if (config.toStringRef() != o.run_config())
      throw ember::Error("--resume: " + checkpoint + " was written by a run with " +
                         config.toStringRef() + "; this one has " + o.run_config() +
                         " (pass the same flags to continue it)");
    ember::IValue epoch;
    in.read("epoch", epoch);
    first_epoch = static_cast<int>(epoch.toInt());
    history = read_metrics_csv(o.out + "/metrics.csv");
    history.resize(std::min<size_t>(history.size(), static_cast<size_t>(first_epoch)));
    std::printf("resumed from %s after epoch %d\n", checkpoint.c_str(), first_epoch);
  }

  // Every rank starts from rank 0's weights; gradients are averaged over the ranks.
  std::function<Tensor(const Tensor&)> forward = [&](const Tensor& x) { return model->forward(x); };
#ifdef EMBER_EXAMPLE_DISTRIBUTED
  std::shared_ptr<ember::nn::parallel::DistributedDataParallelImpl> ddp;
  if (o.distributed) {
    ddp = std::make_shared<ember::nn::parallel::DistributedDataParallelImpl>(model);
    forward = [&](const Tensor& x) { return ddp->forward(x); };
  }
#endif

  const bool terminal = leader && Progress::stdout_is_terminal();
  for (int epoch = first_epoch; epoch < o.epochs; ++epoch) {
    // Each epoch's shuffle depends only on the seed and the epoch, so a resumed run draws the
    // batches an uninterrupted one draws.
    ember::manual_seed(o.seed * 1000003 + static_cast<uint64_t>(epoch) + 1);
    const auto start = std::chrono::steady_clock::now();
    const double lr = optimizer->param_groups()[0].options().get_lr();
    Progress progress(report, terminal, epoch + 1, o.epochs, batches);
    auto run_batches = [&](auto& epoch_loader) {
      for (auto& batch : *epoch_loader) {
        const Tensor x = batch.data.to(device), y = batch.target.to(device);
        optimizer->zero_grad();
        Tensor loss = F::cross_entropy(forward(x), y);
        loss.backward();
        optimizer->step();
        if (scheduler && per_batch_schedule) scheduler->step();
        progress.update(x.size(0), loss.item<double>());
      }
    };
    if (o.distributed) {
      // This rank's share of the epoch's permutation (the same permutation on every rank).
      data::samplers::DistributedRandomSampler sampler(
          static_cast<size_t>(train_size), static_cast<size_t>(world), static_cast<size_t>(rank));
      sampler.set_epoch(static_cast<size_t>(epoch));
      auto shard_loader = data::make_data_loader(dataset, std::move(sampler), loader_options);
      run_batches(shard_loader);
    } else {
      run_batches(loader);
    }
    const double train_loss = progress.finish();
    if (scheduler && !per_batch_schedule) scheduler->step();
    if (leader) {  // rank 0 evaluates and writes; the others go on to the next epoch
      const Evaluation test = evaluate(model, test_x, test_y, device);
      history.push_back(
          {epoch + 1, train_loss, test.loss, test.accuracy, lr, seconds_since(start)});
      std::printf("epoch %d/%d: test loss %.4f, test accuracy %.2f%%\n", epoch + 1, o.epochs,
                  test.loss, test.accuracy);
      if (!o.out.empty()) {
        ember::serialize::OutputArchive out, part_model, part_opt, part_sched;
        model->save(part_model);
        out.write("model", part_model);
        optimizer->save(part_opt);
        out.write("optimizer", part_opt);
        if (scheduler) {
          scheduler->save(part_sched);
          out.write("scheduler", part_sched);
        }
        out.write("epoch", ember::IValue(static_cast<int64_t>(epoch + 1)));
        out.write("config", ember::IValue(o.run_config()));
        out.save_to(checkpoint);
        write_metrics_csv(o.out + "/metrics.csv", history);
        write_curves_svg(o.out + "/curves.svg", history);
      }
    }
    if (o.stop_after > 0 && epoch + 1 == o.stop_after && epoch + 1 < o.epochs) {
      std::fprintf(report, "stopping after epoch %d (--stop-after); --resume continues\n",
                   epoch + 1);
      break;
    }
  }
  if (!o.out.empty() && leader)
    std::printf("wrote %s, metrics.csv and curves.svg to %s\n", "checkpoint.safetensors",
                o.out.c_str());
#ifdef EMBER_EXAMPLE_DISTRIBUTED
  if (o.distributed) {
    ddp.reset();
    ember::distributed::destroy_process_group();
  }
#endif
  if (report != stdout) std::fclose(report);
  return 0;
}

}  // namespace trainer

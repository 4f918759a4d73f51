#include "options.h"

#include "cli.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>

namespace trainer {

Options parse_options(const std::vector<std::string>& args) {
  Options o;
  using Setter = std::function<void(const std::string&, const std::string&)>;
  const std::map<std::string, Setter> with_value = {
      {"--model",
       [&](auto& f, auto& v) {
         o.model = parse_choice(f, v, {"mlp", "cnn", "cnn-bn"});
       }},
      {"--epochs",
       [&](auto& f, auto& v) { o.epochs = static_cast<int>(parse_int(f, v, 1, 1000)); }},
      {"--batch-size", [&](auto& f, auto& v) { o.batch_size = parse_int(f, v, 1, 60000); }},
      {"--lr", [&](auto& f, auto& v) { o.lr = parse_positive(f, v); }},
      {"--optimizer",
       [&](auto& f, auto& v) {
         o.optimizer = parse_choice(f, v, {"sgd", "adam", "adamw"});
       }},
      {"--scheduler",
       [&](auto& f, auto& v) {
         o.scheduler = parse_choice(f, v, {"none", "step", "cosine", "onecycle"});
       }},
      {"--threads",
       [&](auto& f, auto& v) { o.threads = static_cast<int>(parse_int(f, v, 0, 1024)); }},
      {"--seed",
       [&](auto& f, auto& v) { o.seed = static_cast<uint64_t>(parse_int(f, v, 0, INT64_MAX)); }},
      {"--device",
       [&](auto& f, auto& v) {
         o.device = parse_choice(f, v, {"cpu", "cuda"});
       }},
      {"--data", [&](auto&, auto& v) { o.data = v; }},
      {"--out", [&](auto&, auto& v) { o.out = v; }},
      {"--stop-after",
       [&](auto& f, auto& v) { o.stop_after = static_cast<int>(parse_int(f, v, 1, 1000)); }},
      {"--workers",
       [&](auto& f, auto& v) { o.workers = static_cast<int>(parse_int(f, v, 0, 64)); }},
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--help" || arg == "-h") {
      o.help = true;
      continue;
    }
    if (arg == "--resume") {
      o.resume = true;
      continue;
    }
    if (arg == "--distributed") {
      o.distributed = true;
      continue;
    }
    const size_t eq = arg.find('=');
    const std::string flag = arg.substr(0, eq);
    const auto it = with_value.find(flag);
    if (it == with_value.end())
      throw UsageError("unknown argument '" + arg + "' (--help lists the flags)");
    std::string value;
    if (eq != std::string::npos) {
      value = arg.substr(eq + 1);
    } else {
      if (i + 1 >= args.size()) throw UsageError(flag + " needs a value");
      value = args[++i];
    }
    it->second(flag, value);
  }
  if (o.resume && o.out.empty()) throw UsageError("--resume needs --out (where the checkpoint is)");
  return o;
}

std::string Options::run_config() const {
  char lr_text[32];
  std::snprintf(lr_text, sizeof lr_text, "%.17g", learning_rate());
  return "--model " + model + " --epochs " + std::to_string(epochs) + " --batch-size " +
         std::to_string(batch_size) + " --lr " + lr_text + " --optimizer " + optimizer +
         " --scheduler " + scheduler + " --seed " + std::to_string(seed) +
         (distributed ? " --distributed" : "");
}

std::string usage(const std::string& program) {
  return "Usage: " + program + R"( [flags]
Trains a classifier on Fashion-MNIST and reports test accuracy after every epoch.

  --model mlp|cnn|cnn-bn   the network (default mlp: 784-512-256-10 ReLU; cnn: LeNet-style;
                           cnn-bn: the CNN with BatchNorm)
  --epochs N               epochs to train (default 1)
  --batch-size N           examples per step (default 64)
  --lr X                   learning rate (default: 0.01 for sgd, 1e-3 for adam/adamw)
  --optimizer sgd|adam|adamw
                           sgd has momentum 0.9; adamw weight decay 0.01 (default sgd)
  --scheduler none|step|cosine|onecycle
                           learning-rate schedule over all epochs (default none)
  --threads N              intra-op threads (default: Ember's choice)
  --workers N              data-loader threads (default 2; 0 loads on the training thread)
  --seed N                 seed for the weights and the shuffling (default 0)
  --device cpu|cuda        where to train (default cpu)
  --data DIR               Fashion-MNIST IDX files, gzipped or not
                           (default /usr/share/datasets/fashion-mnist)
  --out DIR                write checkpoint.safetensors (after every epoch), metrics.csv and
                           curves.svg there
  --resume                 continue from DIR/checkpoint.safetensors (needs --out): the same
                           numbers as a run that was never interrupted (the flags that shape the
                           run must be the same; the checkpoint says which)
  --stop-after N           end after epoch N (the checkpoint stays; --resume continues it)
  --distributed            data-parallel training (DistributedDataParallel over Gloo on the CPU,
                           NCCL on CUDA) across the ranks that tools/ember-run starts:
                           tools/ember-run --nproc 2 train_fashion_mnist --distributed; each
                           rank takes --batch-size examples per step; rank 0 reports and writes
  -h, --help               this text
)";
}

}  // namespace trainer

// The trainer's command line: every flag, its default, and the parser.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli.h"  // UsageError

namespace trainer {

struct Options {
  std::string model = "mlp";  // mlp | cnn
  int epochs = 1;
  int64_t batch_size = 64;
  std::optional<double> lr;        // default: the optimizer's (sgd 0.01, adam/adamw 1e-3)
  std::string optimizer = "sgd";   // sgd | adam | adamw
  std::string scheduler = "none";  // none | step | cosine | onecycle
  int threads = 0;                 // 0: Ember's default
  uint64_t seed = 0;
  std::string device = "cpu";  // cpu | cuda
  std::string data = "/usr/share/datasets/fashion-mnist";
  std::string out;  // empty: write nothing
  bool resume = false;
  int stop_after = 0;        // >0: end the process after this epoch (resume later)
  int workers = 2;           // data loader threads
  bool distributed = false;  // DDP over the ranks tools/ember-run starts (env://)
  bool help = false;

  double learning_rate() const { return lr ? *lr : (optimizer == "sgd" ? 0.01 : 1e-3); }
  /// The flags that shape the run's numbers, as one line: a checkpoint records it, and --resume
  /// refuses a checkpoint of another run.
  std::string run_config() const;
};

/// Parses argv (without argv[0]). `--flag value` and `--flag=value` both work; UsageError on an
/// unknown flag, a missing or malformed value, or a choice outside its set.
Options parse_options(const std::vector<std::string>& args);

/// The --help text.
std::string usage(const std::string& program);

}  // namespace trainer

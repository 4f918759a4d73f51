// The character-level language model trainer's command line: every flag, its default, the parser.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli.h"

namespace char_lm {

struct Options {
  std::string model = "lstm";  // lstm | transformer
  int epochs = 1;
  int64_t steps = 0;  // batches per epoch; 0: one pass over the training characters
  int64_t batch_size = 32;
  int64_t seq_len = 128;             // characters per training sequence (the Transformer's context)
  std::optional<double> lr;          // default: 3e-3 (lstm), 1e-3 (transformer)
  std::string scheduler = "cosine";  // none | cosine (per batch, over the whole run)
  int threads = 0;                   // 0: Ember's default
  uint64_t seed = 0;
  // A folder (every plain file in it, fortune-style '%' separators removed) or one text file.
  std::string data = "/usr/share/games/fortunes";
  int64_t eval_chars = 100000;  // validation characters scored after each epoch (0: all)
  int64_t sample_chars = 400;   // characters generated after training
  double temperature = 0.8;
  std::string prompt = "The ";
  std::string out;  // empty: write nothing
  bool resume = false;
  int stop_after = 0;  // >0: end the process after this epoch (resume later)
  bool help = false;

  double learning_rate() const { return lr ? *lr : (model == "lstm" ? 3e-3 : 1e-3); }
  /// The flags that shape the run's numbers, as one line (a checkpoint records it; --resume
  /// refuses a checkpoint of another run).
  std::string run_config() const;
};

/// A command line the trainer cannot run with (shared with the Fashion-MNIST trainer).
using UsageError = trainer::UsageError;

/// Parses argv (without argv[0]): `--flag value` or `--flag=value`; UsageError on an unknown
/// flag, a missing or malformed value, or a choice outside its set.
Options parse_options(const std::vector<std::string>& args);

/// The --help text.
std::string usage(const std::string& program);

}  // namespace char_lm

// Trains a character-level language model (LSTM or Transformer) on English text: by default the
// fortune cookies of Debian's `fortunes` package (/usr/share/games/fortunes, ~2.5 MB of quotes,
// jokes and literature). Reports validation bits per character after each epoch and prints a
// sample of generated text at the end.
//
//   train_char_lm --model lstm --epochs 2 --out runs/lstm
//   train_char_lm --model transformer --steps 300
//   train_char_lm --help
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "options.h"
#include "training.h"

int main(int argc, char** argv) {
  char_lm::Options options;
  try {
    options = char_lm::parse_options(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const char_lm::UsageError& e) {
    std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
    return 2;
  }
  if (options.help) {
    std::fputs(char_lm::usage(argv[0]).c_str(), stdout);
    return 0;
  }
  try {
    return char_lm::train(options);
  } catch (const std::exception& e) {
    std::fflush(stdout);  // what was printed so far comes before the error
    std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
    return 1;
  }
}

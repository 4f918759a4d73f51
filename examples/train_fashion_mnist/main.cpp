// Trains a classifier on Fashion-MNIST: the README's default command (tools/train-example.sh).
// Written as a LibTorch user writes a trainer: a data loader over datasets::MNIST with
// Normalize and Stack, an nn::Sequential, an optimizer and a learning-rate schedule, and a
// checkpoint through serialize::OutputArchive.
//
//   train_fashion_mnist --epochs 5 --optimizer adamw --scheduler cosine --out runs/a
//   train_fashion_mnist --help
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "options.h"
#include "progress.h"
#include "report.h"
#include "training.h"

int main(int argc, char** argv) {
  trainer::Options options;
  try {
    options = trainer::parse_options(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const trainer::UsageError& e) {
    std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
    return 2;
  }
  if (options.help) {
    std::fputs(trainer::usage(argv[0]).c_str(), stdout);
    return 0;
  }
  try {
    return trainer::train(options);
  } catch (const std::exception& e) {
    std::fflush(stdout);  // what was printed so far comes before the error
    std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
    return 1;
  }
}

// The trainer's networks, written as a LibTorch user writes them.
#pragma once

#include <string>

#include "ember/ember.h"

namespace trainer {

/// "mlp": Flatten, 784-512-256-10 with ReLUs. The braced list is built left to right (a
/// parenthesised argument list may be built in any order; GCC goes right to left), so the layers
/// draw their initial weights in Python's order and, after manual_seed(0), start from the weights
/// PyTorch's nn.Sequential starts from. "cnn": an Error until Ember has convolutions.
inline ember::nn::Sequential make_model(const std::string& name) {
  namespace nn = ember::nn;
  if (name == "mlp")
    return nn::Sequential{nn::Flatten(),        nn::Linear(784, 512), nn::ReLU(),
                          nn::Linear(512, 256), nn::ReLU(),           nn::Linear(256, 10)};
  throw ember::Error("--model " + name +
                     ": needs nn::Conv2d and nn::MaxPool2d, which Ember does not have yet "
                     "(issue #16); use --model mlp");
}

}  // namespace trainer

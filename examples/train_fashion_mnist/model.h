// The trainer's networks, written as a LibTorch user writes them.
#pragma once

#include <string>

#include "ember/ember.h"

namespace trainer {

/// "mlp": Flatten, 784-512-256-10 with ReLUs. "cnn": the LeNet-style CNN of BENCHMARKS.md §5(b)
/// (conv 1->32 5x5, ReLU, max-pool 2, conv 32->64 5x5, ReLU, max-pool 2, flatten, 1024-128-10);
/// "cnn-bn": the same with a BatchNorm2d after each convolution. The braced lists are built left
/// to right (a parenthesised argument list may be built in any order; GCC goes right to left), so
/// the layers draw their initial weights in Python's order and, after manual_seed(0), start from
/// the weights PyTorch's nn.Sequential starts from.
inline ember::nn::Sequential make_model(const std::string& name) {
  namespace nn = ember::nn;
  if (name == "mlp")
    return nn::Sequential{nn::Flatten(),        nn::Linear(784, 512), nn::ReLU(),
                          nn::Linear(512, 256), nn::ReLU(),           nn::Linear(256, 10)};
  if (name == "cnn")
    return nn::Sequential{nn::Conv2d(nn::Conv2dOptions(1, 32, 5)),
                          nn::ReLU(),
                          nn::MaxPool2d(nn::MaxPool2dOptions(2)),
                          nn::Conv2d(nn::Conv2dOptions(32, 64, 5)),
                          nn::ReLU(),
                          nn::MaxPool2d(nn::MaxPool2dOptions(2)),
                          nn::Flatten(),
                          nn::Linear(1024, 128),
                          nn::ReLU(),
                          nn::Linear(128, 10)};
  if (name == "cnn-bn")
    return nn::Sequential{nn::Conv2d(nn::Conv2dOptions(1, 32, 5)),
                          nn::BatchNorm2d(32),
                          nn::ReLU(),
                          nn::MaxPool2d(nn::MaxPool2dOptions(2)),
                          nn::Conv2d(nn::Conv2dOptions(32, 64, 5)),
                          nn::BatchNorm2d(64),
                          nn::ReLU(),
                          nn::MaxPool2d(nn::MaxPool2dOptions(2)),
                          nn::Flatten(),
                          nn::Linear(1024, 128),
                          nn::ReLU(),
                          nn::Linear(128, 10)};
  throw ember::Error("--model " + name + ": expected mlp, cnn or cnn-bn");
}

}  // namespace trainer

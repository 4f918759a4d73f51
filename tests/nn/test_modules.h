// Small modules the nn behaviour tests share: a leaf with parameters and buffers, and a tree of
// two leaves.
#pragma once

#include "ember/ember.h"
#include "ember/nn.h"

namespace ember_test {

struct LeafImpl : ember::nn::Cloneable<LeafImpl> {
  explicit LeafImpl(int64_t n = 3) {
    w = register_parameter("w", ember::ones({n}));
    b = register_parameter("b", ember::zeros({n}));
    register_buffer("running", ember::full({n}, 2.0));
    register_buffer("scratch", ember::zeros({1}), /*persistent=*/false);
  }
  ember::Tensor forward(const ember::Tensor& x) { return x * w + b; }
  ember::Tensor w, b;
};
EMBER_MODULE(Leaf);

struct TreeImpl : ember::nn::Cloneable<TreeImpl> {
  TreeImpl() {
    first = register_module("first", Leaf(2));
    second = register_module("second", Leaf(2));
    scale = register_parameter("scale", ember::full({1}, 3.0));
  }
  ember::Tensor forward(const ember::Tensor& x) { return second(first(x)) * scale; }
  Leaf first{nullptr}, second{nullptr};
  ember::Tensor scale;
};
EMBER_MODULE(Tree);

}  // namespace ember_test

// Built against the install tree: proves the headers and Ember::ember target are self-contained.
#include <ember/ember.h>

#include <iostream>

int main() {
  ember::Tensor a = ember::ones({2, 3});
  ember::Tensor b = ember::full({3}, 2.5);
  ember::Tensor c = a * b + 1;
  double total = c.sum().item<double>();
  if (total != 21.0) {
    std::cerr << "ember_consumer: expected 21, got " << total << "\n";
    return 1;
  }
  std::cout << "ember_consumer: ok (sum = " << total << ")\n";
  return 0;
}

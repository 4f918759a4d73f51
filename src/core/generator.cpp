#include "ember/core/generator.h"

#include <cmath>
#include <cstring>
#include <sstream>
#include <string>

#include "ember/core/tensor.h"
#include "ember/ops/factory.h"
#include "src/core/check.h"

namespace ember {

// ATen's normal_distribution<double>: u1 sets the angle, u2 the radius (from 1 - u2, in (0, 1]);
// the sine half of the pair is kept for the next call.
double Generator::next_normal() {
  if (has_cached_normal_) {
    has_cached_normal_ = false;
    return cached_normal_;
  }
  const double u1 = next_double();
  const double u2 = next_double();
  const double r = std::sqrt(-2.0 * std::log(1.0 - u2));
  const double theta = 2.0 * M_PI * u1;
  cached_normal_ = r * std::sin(theta);
  has_cached_normal_ = true;
  return r * std::cos(theta);
}

// The state as text: a tag, the seed, the cached normal (as its bits), then the engine's words.
Tensor Generator::get_state() const {
  std::ostringstream out;
  uint64_t normal_bits = 0;
  std::memcpy(&normal_bits, &cached_normal_, sizeof normal_bits);
  out << "ember-mt19937 " << seed_ << ' ' << has_cached_normal_ << ' ' << normal_bits << ' '
      << engine_;
  const std::string text = out.str();
  Tensor state = empty({static_cast<int64_t>(text.size())}, TensorOptions().dtype(kByte));
  std::memcpy(state.data_ptr(), text.data(), text.size());
  return state;
}

void Generator::set_state(const Tensor& state) {
  EMBER_CHECK(state.defined() && state.scalar_type() == kByte && state.dim() == 1 && state.is_cpu(),
              "Generator::set_state: expected a 1-D uint8 CPU tensor from get_state(), got {}",
              state.defined() ? state.toString() : std::string("an undefined tensor"));
  Tensor bytes = state.contiguous();
  std::istringstream in(
      std::string(static_cast<const char*>(bytes.data_ptr()), static_cast<size_t>(bytes.numel())));
  std::string tag;
  uint64_t seed = 0, normal_bits = 0;
  bool has_normal = false;
  std::mt19937 engine;
  in >> tag >> seed >> has_normal >> normal_bits >> engine;
  EMBER_CHECK(!in.fail() && tag == "ember-mt19937",
              "Generator::set_state: the tensor ({} bytes) is not a state from get_state()",
              bytes.numel());
  engine_ = engine;
  seed_ = seed;
  has_cached_normal_ = has_normal;
  std::memcpy(&cached_normal_, &normal_bits, sizeof normal_bits);
}

Generator& default_generator() {
  static Generator* g = new Generator();
  return *g;
}

void manual_seed(uint64_t seed) {
  std::lock_guard<std::mutex> lock(default_generator().mutex());
  default_generator().manual_seed(seed);
}

}  // namespace ember

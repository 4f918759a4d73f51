// Random number generation: each Generator is a seedable mt19937_64.
// `manual_seed(s)` reseeds the default CPU generator so that factories and in-place random fills
// reproduce exactly.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <random>

#include "ember/core/macros.h"

namespace ember {

class EMBER_API Generator {
 public:
  explicit Generator(uint64_t seed = 67280421310721ull) : engine_(seed), seed_(seed) {}
  void manual_seed(uint64_t seed) {
    engine_.seed(seed);
    seed_ = seed;
    has_cached_normal_ = false;
  }
  uint64_t initial_seed() const { return seed_; }
  /// Next 64 random bits.
  uint64_t next() { return engine_(); }
  /// Uniform double in [0, 1) with 53 random bits.
  double next_double() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
  /// Uniform float in [0, 1) with 24 random bits.
  float next_float() { return static_cast<float>(engine_() >> 40) * 0x1.0p-24f; }
  /// Standard normal (Box-Muller; caches the second value).
  double next_normal();
  /// Held while one op draws its numbers, so concurrent ops stay reproducible per op.
  std::mutex& mutex() { return mutex_; }

 private:
  std::mt19937_64 engine_;
  uint64_t seed_;
  bool has_cached_normal_ = false;
  double cached_normal_ = 0;
  std::mutex mutex_;
};

/// The process-wide default CPU generator.
EMBER_API Generator& default_generator();
/// Seeds the default generator (and, when built with CUDA, every device's).
EMBER_API void manual_seed(uint64_t seed);

}  // namespace ember

// Random number generation: each Generator is a seedable 32-bit Mersenne Twister drawn from the
// way PyTorch's CPU generator draws, so that after `manual_seed(s)` uniform fills (rand, uniform_,
// and through them nn::init and every layer's default initialisation), randint and randperm give
// the numbers PyTorch and LibTorch give for the same seed; so do normal draws (randn, normal_,
// the normal initialisers), in ATen's order (src/ops/random_draws.cpp), to the last bits of
// float32 (ATen's AVX2 log/sincos round differently from the C library's).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <random>

#include "ember/core/macros.h"

namespace ember {

class Tensor;

class EMBER_API Generator {
 public:
  explicit Generator(uint64_t seed = 67280421310721ull)
      : engine_(static_cast<uint32_t>(seed)), seed_(seed) {}
  /// Reseeds (as PyTorch, from the low 32 bits of `seed`).
  void manual_seed(uint64_t seed) {
    engine_.seed(static_cast<uint32_t>(seed));
    seed_ = seed;
    has_cached_normal_ = false;
  }
  uint64_t initial_seed() const { return seed_; }
  /// Next 32 random bits (PyTorch's random()).
  uint32_t next_u32() { return static_cast<uint32_t>(engine_()); }
  /// Next 64 random bits: two draws, the first one high (PyTorch's random64()).
  uint64_t next() {
    uint64_t hi = next_u32();
    return (hi << 32) | next_u32();
  }
  /// Uniform double in [0, 1): the low 53 bits of next(), as PyTorch's uniform_real.
  double next_double() {
    return static_cast<double>(next() & ((uint64_t{1} << 53) - 1)) * 0x1.0p-53;
  }
  /// Uniform float in [0, 1): the low 24 bits of one 32-bit draw, as PyTorch's uniform_real.
  float next_float() { return static_cast<float>(next_u32() & ((1u << 24) - 1)) * 0x1.0p-24f; }
  /// Standard normal, as ATen's normal_distribution<double> (Box-Muller; caches the second value).
  double next_normal();
  /// The whole state (engine, seed, cached normal) as a uint8 CPU tensor, as LibTorch's
  /// Generator::get_state; set_state puts one back (an Error for a tensor get_state did not make).
  /// Activation checkpointing replays dropout masks with them.
  Tensor get_state() const;
  void set_state(const Tensor& state);
  /// Held while one op draws its numbers, so concurrent ops stay reproducible per op.
  std::mutex& mutex() { return mutex_; }

 private:
  std::mt19937 engine_;
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

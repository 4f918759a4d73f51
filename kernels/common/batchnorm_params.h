// The kernel interface behind the batchnorm family's slots (`batch_norm_stats`,
// `batch_norm_reduce`, `batch_norm_apply`). Batch, instance and group normalisation all view their
// input as [N, C, S] (S: the spatial dims flattened) and differ only in which elements share
// statistics: a "slot" is a channel c (statistics over N and S: batch norm) or a (sample, channel)
// pair n·C + c (statistics over S: instance norm, and group norm on its [N, G, C/G·S] view).
// Every pointer is in the memory of the device the kernel is registered for.
#pragma once

#include <cstdint>

namespace ember {

/// An [N, C, S] tensor's layout: element (n, c, s) sits at (n·C + c)·S + s, or with channels_last
/// at (n·S + s)·C + c (the NHWC / NDHWC order of a channels-last input).
struct ChannelLayout {
  int64_t n = 0, c = 0, s = 0;
  bool channels_last = false;
  /// Whether statistics are per (n, c) (N·C slots) rather than per channel (C slots).
  bool per_sample = false;
  int64_t slots() const { return per_sample ? n * c : c; }
};

/// mean[slot] and the biased var[slot] of x (the kernel's dtype), accumulated in double (exact
/// two-pass: the mean, then the centred sum of squares). A slot with no elements gets mean 0 and
/// var 0.
struct BatchNormStatsParams {
  ChannelLayout layout;
  const void* x = nullptr;
  double* mean = nullptr;
  double* var = nullptr;
};

/// Per slot: sum_grad = Σ grad and sum_grad_x = Σ grad·(x - center[slot]) (center null: 0),
/// accumulated in double. grad and x have the same layout and the kernel's dtype.
struct BatchNormReduceParams {
  ChannelLayout layout;
  const void* grad = nullptr;
  const void* x = nullptr;
  const double* center = nullptr;
  double* sum_grad = nullptr;
  double* sum_grad_x = nullptr;
};

/// out = a·ka[slot] + b·kb[slot] + k0[slot] elementwise (b null: no second term), in float for
/// 16-bit and float32 tensors and in double for float64 ones; a, b, out share the layout and the
/// kernel's dtype. The forward is out = x·scale + shift, the backward dx = grad·ka + x·kb + k0.
struct BatchNormApplyParams {
  ChannelLayout layout;
  const void* a = nullptr;
  const double* ka = nullptr;
  const void* b = nullptr;
  const double* kb = nullptr;
  const double* k0 = nullptr;
  void* out = nullptr;
};

}  // namespace ember

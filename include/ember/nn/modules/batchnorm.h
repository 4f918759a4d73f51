// Batch normalisation modules (LibTorch's torch/nn/modules/batchnorm.h):
//
//   nn::BatchNorm2d bn(16);                      // weight ones, bias zeros, running stats
//   Tensor y = bn(x);                            // x [N, 16, H, W]; training: batch statistics
//   bn->eval();  y = bn(x);                      // eval: running_mean / running_var
//
// state_dict keys as PyTorch's: weight, bias, running_mean, running_var, num_batches_tracked.
#pragma once

#include <cstdint>
#include <ostream>

#include "ember/nn/cloneable.h"
#include "ember/nn/fused_forward.h"
#include "ember/nn/options/batchnorm.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {

namespace detail {
/// Registers a norm module's parameters (weight, bias: [num_features] or "none" without affine)
/// and buffers (running_mean, running_var, num_batches_tracked, or "none" without running stats).
EMBER_API void norm_register(Module& module, int64_t num_features, bool affine,
                             bool track_running_stats, Tensor& weight, Tensor& bias,
                             Tensor& running_mean, Tensor& running_var,
                             Tensor& num_batches_tracked);
/// running_mean to 0, running_var to 1, num_batches_tracked to 0 (each when defined).
EMBER_API void norm_reset_running_stats(const Tensor& running_mean, const Tensor& running_var,
                                        const Tensor& num_batches_tracked);
/// weight to ones, bias to zeros (each when defined).
EMBER_API void norm_reset_affine(const Tensor& weight, const Tensor& bias);
/// Throws "<module>: expected 4D input (got 3D input)" unless input has rank `rank_a` (or
/// `rank_b` when it is positive).
EMBER_API void norm_check_rank(const Tensor& input, const char* module, int64_t rank_a,
                               int64_t rank_b = 0);
/// The BatchNorm modules' forward: num_batches_tracked, the momentum (cumulative average when
/// unset) and F::batch_norm, with errors naming the module.
EMBER_API Tensor batchnorm_module_forward(const char* module, const Tensor& input,
                                          const BatchNormOptions& options, bool training,
                                          const Tensor& weight, const Tensor& bias,
                                          const Tensor& running_mean, const Tensor& running_var,
                                          const Tensor& num_batches_tracked);
/// "ember::nn::BatchNorm2d(16, eps=1e-05, momentum=0.1, affine=true, track_running_stats=true)".
EMBER_API void batchnorm_pretty_print(std::ostream& stream, int64_t dims,
                                      const BatchNormOptions& options);
}  // namespace detail

/// What the batch and instance norm modules share: options, the per-channel parameters and the
/// running statistics (LibTorch's NormImplBase).
template <size_t D, typename Derived, typename DerivedOptions>
class NormImplBase : public Cloneable<Derived> {
 protected:
  /// Throws unless input has the module's rank.
  virtual void _check_input_dim(const Tensor& input) = 0;

 public:
  NormImplBase(const DerivedOptions& options_) : options(options_) {}  // NOLINT

  void reset() override {
    detail::norm_register(*this, options.num_features(), options.affine(),
                          options.track_running_stats(), weight, bias, running_mean, running_var,
                          num_batches_tracked);
    reset_parameters();
  }

  /// running_mean to zeros, running_var to ones, num_batches_tracked to 0.
  void reset_running_stats() {
    detail::norm_reset_running_stats(running_mean, running_var, num_batches_tracked);
  }

  /// The running statistics, then weight to ones and bias to zeros.
  void reset_parameters() {
    reset_running_stats();
    detail::norm_reset_affine(weight, bias);
  }

  DerivedOptions options;
  /// [num_features] scale (undefined without affine).
  Tensor weight;
  /// [num_features] shift (undefined without affine).
  Tensor bias;
  /// [num_features] running mean (undefined without track_running_stats).
  Tensor running_mean;
  /// [num_features] running unbiased variance (undefined without track_running_stats).
  Tensor running_var;
  /// int64 scalar: the training batches seen (undefined without track_running_stats).
  Tensor num_batches_tracked;
};

/// The BatchNorm modules' forward and printing (LibTorch's BatchNormImplBase).
template <size_t D, typename Derived>
class BatchNormImplBase : public NormImplBase<D, Derived, BatchNormOptions> {
 public:
  explicit BatchNormImplBase(const BatchNormOptions& options_)
      : NormImplBase<D, Derived, BatchNormOptions>(options_) {
    this->reset();
  }

  /// input [N, C, *] -> the same shape (and layout).
  Tensor forward(const Tensor& input) {
    if (EMBER_UNLIKELY(_fused_forward.active())) return _fused_forward(*this, input);
    return unfused_forward(input);
  }
  /// The batch norm itself, whether or not this layer was fused (the fused modules run it).
  Tensor unfused_forward(const Tensor& input) {
    this->_check_input_dim(input);
    return detail::batchnorm_module_forward(
        module_name(), input, this->options, this->is_training(), this->weight, this->bias,
        this->running_mean, this->running_var, this->num_batches_tracked);
  }

  void pretty_print(std::ostream& stream) const override {
    detail::batchnorm_pretty_print(stream, static_cast<int64_t>(D), this->options);
  }

  /// Set by nn::utils::fuse_modules when this layer was fused (nn/fused_forward.h).
  detail::FusedForward _fused_forward;

 private:
  static const char* module_name() {
    return D == 1 ? "BatchNorm1d" : (D == 2 ? "BatchNorm2d" : "BatchNorm3d");
  }
};

/// Batch norm over [N, C] or [N, C, L] inputs.
class EMBER_API BatchNorm1dImpl : public BatchNormImplBase<1, BatchNorm1dImpl> {
 protected:
  void _check_input_dim(const Tensor& input) override;

 public:
  using BatchNormImplBase<1, BatchNorm1dImpl>::BatchNormImplBase;
};
EMBER_MODULE(BatchNorm1d);

/// Batch norm over [N, C, H, W] inputs.
class EMBER_API BatchNorm2dImpl : public BatchNormImplBase<2, BatchNorm2dImpl> {
 protected:
  void _check_input_dim(const Tensor& input) override;

 public:
  using BatchNormImplBase<2, BatchNorm2dImpl>::BatchNormImplBase;
};
EMBER_MODULE(BatchNorm2d);

/// Batch norm over [N, C, D, H, W] inputs.
class EMBER_API BatchNorm3dImpl : public BatchNormImplBase<3, BatchNorm3dImpl> {
 protected:
  void _check_input_dim(const Tensor& input) override;

 public:
  using BatchNormImplBase<3, BatchNorm3dImpl>::BatchNormImplBase;
};
EMBER_MODULE(BatchNorm3d);

}  // namespace ember::nn

// Pruning (Python's torch.nn.utils.prune): a parameter `name` becomes `name_orig` (a parameter)
// times `name_mask` (a buffer), recomputed by a forward pre-hook before each call, so state_dict
// keys are Python's (`bias`, `weight_orig`, `weight_mask`). Pruning the same tensor again combines
// the masks through a PruningContainer, as PyTorch's iterative pruning does.
//
//   nn::Linear lin(20, 10);
//   nn::utils::prune::l1_unstructured(*lin, "weight", 0.3);   // a fraction: 60 of 200 entries
//   nn::utils::prune::ln_structured(*lin, "weight", 2, 2, 0);  // a count: 2 rows, by L2 norm
//   lin->weight;                                            // weight_orig * weight_mask
//   nn::utils::prune::remove(*lin, "weight");               // a plain (pruned) parameter again
//
// The member (`lin->weight`) holds the pruned value right after pruning and before each call
// through the holder or a container. Build an optimizer after pruning: the parameter it should
// update is `weight_orig`.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/core/tensor.h"
#include "ember/nn/module.h"

namespace ember::nn::utils::prune {

/// How much to prune: a fraction of the entries (or channels) when floating, in [0, 1], rounded
/// half to even as Python's round(); a count when integral, at least 0.
class EMBER_API Amount {
 public:
  Amount(double fraction);  // NOLINT(google-explicit-constructor): `0.3` reads as a fraction
  template <class I, std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>, int> = 0>
  Amount(I count) : Amount(static_cast<int64_t>(count), 0) {}  // NOLINT: `7` reads as a count

  bool is_count() const noexcept { return is_count_; }
  /// The number of units to prune out of `units` (a ValueError when a count exceeds it).
  int64_t units_to_prune(int64_t units) const;
  std::string str() const;

 private:
  Amount(int64_t count, int);
  bool is_count_ = false;
  double fraction_ = 0;
  int64_t count_ = 0;
};

enum class PruningType { unstructured, structured, global };

/// A pruning method (Python's BasePruningMethod): computes a mask on top of a previous one.
class EMBER_API BasePruningMethod {
 public:
  virtual ~BasePruningMethod() = default;
  /// A mask for `t` (importance scores of the tensor's shape) that keeps the zeros of
  /// `default_mask`.
  virtual Tensor compute_mask(const Tensor& t, const Tensor& default_mask) const = 0;
  virtual PruningType pruning_type() const = 0;
  /// The channel dim of a structured method.
  virtual int64_t dim() const { return -1; }
  /// t times the mask computed for it from a mask of ones.
  Tensor prune(const Tensor& t, const Tensor& default_mask = {}) const;

  /// The tensor the method acts on (set when it is applied).
  const std::string& tensor_name() const noexcept { return tensor_name_; }
  void set_tensor_name(std::string name) { tensor_name_ = std::move(name); }

 private:
  std::string tensor_name_;
};

using PruningMethodPtr = std::shared_ptr<BasePruningMethod>;

/// Keeps everything (a mask of ones).
class EMBER_API Identity : public BasePruningMethod {
 public:
  Tensor compute_mask(const Tensor& t, const Tensor& default_mask) const override;
  PruningType pruning_type() const override { return PruningType::unstructured; }
};

/// Zeroes `amount` entries chosen at random.
class EMBER_API RandomUnstructured : public BasePruningMethod {
 public:
  explicit RandomUnstructured(Amount amount);
  Tensor compute_mask(const Tensor& t, const Tensor& default_mask) const override;
  PruningType pruning_type() const override { return PruningType::unstructured; }

 private:
  Amount amount_;
};

/// Zeroes the `amount` entries of smallest magnitude.
class EMBER_API L1Unstructured : public BasePruningMethod {
 public:
  explicit L1Unstructured(Amount amount);
  Tensor compute_mask(const Tensor& t, const Tensor& default_mask) const override;
  PruningType pruning_type() const override { return PruningType::unstructured; }

 private:
  Amount amount_;
};

/// Zeroes `amount` channels (slices along `dim`) chosen at random.
class EMBER_API RandomStructured : public BasePruningMethod {
 public:
  explicit RandomStructured(Amount amount, int64_t dim = -1);
  Tensor compute_mask(const Tensor& t, const Tensor& default_mask) const override;
  PruningType pruning_type() const override { return PruningType::structured; }
  int64_t dim() const override { return dim_; }

 private:
  Amount amount_;
  int64_t dim_;
};

/// Zeroes the `amount` channels along `dim` of smallest L`n` norm (n: any p of vector_norm,
/// inf and -inf included).
class EMBER_API LnStructured : public BasePruningMethod {
 public:
  LnStructured(Amount amount, double n, int64_t dim = -1);
  Tensor compute_mask(const Tensor& t, const Tensor& default_mask) const override;
  PruningType pruning_type() const override { return PruningType::structured; }
  int64_t dim() const override { return dim_; }

 private:
  Amount amount_;
  double n_;
  int64_t dim_;
};

/// Zeroes where `mask` is zero.
class EMBER_API CustomFromMask : public BasePruningMethod {
 public:
  explicit CustomFromMask(Tensor mask);
  Tensor compute_mask(const Tensor& t, const Tensor& default_mask) const override;
  PruningType pruning_type() const override { return PruningType::global; }

 private:
  Tensor mask_;
};

/// The methods applied one after another to one tensor: each new one computes its mask on what
/// the previous ones left (the unpruned entries, or the channels not yet all zero).
class EMBER_API PruningContainer : public BasePruningMethod {
 public:
  PruningContainer() = default;
  explicit PruningContainer(PruningMethodPtr first);
  /// Appends a method acting on the same tensor (a ValueError otherwise).
  void add_pruning_method(PruningMethodPtr method);
  size_t size() const noexcept { return methods_.size(); }
  const PruningMethodPtr& operator[](size_t i) const { return methods_.at(i); }
  /// The last method's mask, computed on the part of `t` that default_mask leaves.
  Tensor compute_mask(const Tensor& t, const Tensor& default_mask) const override;
  PruningType pruning_type() const override { return PruningType::unstructured; }

 private:
  std::vector<PruningMethodPtr> methods_;
};

/// Python's BasePruningMethod.apply: reparametrizes `name` of `module` by `method` (combined with
/// an earlier pruning of it through a PruningContainer). importance_scores (default: the tensor)
/// must have the tensor's shape. A failure leaves the module unchanged.
EMBER_API void apply(Module& module, const std::string& name, PruningMethodPtr method,
                     const Tensor& importance_scores = {});

EMBER_API void identity(Module& module, const std::string& name);
EMBER_API void random_unstructured(Module& module, const std::string& name, Amount amount);
EMBER_API void l1_unstructured(Module& module, const std::string& name, Amount amount,
                               const Tensor& importance_scores = {});
EMBER_API void random_structured(Module& module, const std::string& name, Amount amount,
                                 int64_t dim);
EMBER_API void ln_structured(Module& module, const std::string& name, Amount amount, double n,
                             int64_t dim, const Tensor& importance_scores = {});
EMBER_API void custom_from_mask(Module& module, const std::string& name, const Tensor& mask);

/// Makes the pruning of `name` permanent: the parameter `name` holds weight_orig * weight_mask and
/// weight_orig, weight_mask and the hook are gone. A ValueError when `name` is not pruned.
EMBER_API void remove(Module& module, const std::string& name);
/// Whether `module` or one of its descendants has a pruned tensor.
EMBER_API bool is_pruned(const Module& module);
/// The pruning method (a PruningContainer after iterative pruning) of `name`, or null.
EMBER_API PruningMethodPtr pruning_method(const Module& module, const std::string& name);

/// (module, tensor name) pairs for global_unstructured.
using ParameterRefs = std::vector<std::pair<Module*, std::string>>;
/// Importance scores for global_unstructured, by (module, tensor name).
using ImportanceScores = std::map<std::pair<const Module*, std::string>, Tensor>;

/// The same pairs holding the modules' shared_ptrs (`lin.ptr()`).
using SharedParameterRefs = std::vector<std::pair<std::shared_ptr<Module>, std::string>>;

namespace detail {
EMBER_API void global_unstructured(const ParameterRefs& parameters, PruningMethodPtr method,
                                   const ImportanceScores& importance_scores);
EMBER_API ParameterRefs raw_refs(const SharedParameterRefs& parameters);
}  // namespace detail

/// Prunes all the given tensors together: `Method(args...)` (an unstructured method such as
/// L1Unstructured) computes one mask over all their entries, then each tensor gets its slice
/// through custom_from_mask.
///   prune::global_unstructured<prune::L1Unstructured>(
///       {{lin1.ptr(), "weight"}, {lin2.ptr(), "weight"}}, 0.2);
template <class Method, class... Args>
void global_unstructured(const SharedParameterRefs& parameters, Args&&... args) {
  detail::global_unstructured(detail::raw_refs(parameters),
                              std::make_shared<Method>(std::forward<Args>(args)...), {});
}
template <class Method, class... Args>
void global_unstructured(const ParameterRefs& parameters, Args&&... args) {
  detail::global_unstructured(parameters, std::make_shared<Method>(std::forward<Args>(args)...),
                              {});
}

/// The same with importance scores for some of the tensors (the others score by themselves).
template <class Method, class... Args>
void global_unstructured_with_scores(const SharedParameterRefs& parameters,
                                     const ImportanceScores& importance_scores, Args&&... args) {
  detail::global_unstructured(detail::raw_refs(parameters),
                              std::make_shared<Method>(std::forward<Args>(args)...),
                              importance_scores);
}

}  // namespace ember::nn::utils::prune

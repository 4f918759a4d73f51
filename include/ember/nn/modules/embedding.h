// Embedding modules (LibTorch's torch/nn/modules/embedding.h): a [num_embeddings, embedding_dim]
// table, initialised N(0, 1) with the padding_idx row zeroed, as PyTorch.
//
//   nn::Embedding emb(nn::EmbeddingOptions(1000, 64).padding_idx(0));
//   Tensor vecs = emb(ids);                                   // ids [B, L] int64 -> [B, L, 64]
//   auto frozen = nn::Embedding::from_pretrained(table);      // table [V, D], requires_grad off
//   nn::EmbeddingBag bag(nn::EmbeddingBagOptions(1000, 64).mode(ember::kSum));
//   Tensor pooled = bag(flat_ids, offsets);                   // [num_bags, 64]
#pragma once

#include <vector>

#include "ember/core/ivalue.h"
#include "ember/nn/cloneable.h"
#include "ember/nn/options/embedding.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {

/// A lookup table: forward(indices [*]) -> weight rows [*, embedding_dim].
class EMBER_API EmbeddingImpl : public Cloneable<EmbeddingImpl> {
 public:
  EmbeddingImpl(int64_t num_embeddings, int64_t embedding_dim)
      : EmbeddingImpl(EmbeddingOptions(num_embeddings, embedding_dim)) {}
  explicit EmbeddingImpl(const EmbeddingOptions& options_);
  /// Checks the options (a negative padding_idx becomes num_embeddings + padding_idx) and
  /// registers weight: options._weight() when given, else a fresh table.
  void reset() override;
  /// weight ~ N(0, 1), then the padding_idx row to zeros.
  void reset_parameters();
  /// indices [*] int64 or int32 -> [*, embedding_dim].
  Tensor forward(const Tensor& indices);
  void pretty_print(std::ostream& stream) const override;
  EmbeddingOptions options;
  Tensor weight;
};

/// The holder of EmbeddingImpl, with from_pretrained (as LibTorch's nn::Embedding).
class Embedding : public ModuleHolder<EmbeddingImpl> {
 public:
  using ModuleHolder<EmbeddingImpl>::ModuleHolder;
  using Impl = EmbeddingImpl;
  /// An Embedding whose weight is `embeddings` [V, D] (sharing its memory, as Python), frozen
  /// (requires_grad false) unless options.freeze(false). The padding_idx row is left as given.
  EMBER_API static Embedding from_pretrained(const Tensor& embeddings,
                                             const EmbeddingFromPretrainedOptions& options = {});
};

/// Sums, means or maxes bags of table rows without materialising them.
class EMBER_API EmbeddingBagImpl : public Cloneable<EmbeddingBagImpl> {
 public:
  EmbeddingBagImpl(int64_t num_embeddings, int64_t embedding_dim)
      : EmbeddingBagImpl(EmbeddingBagOptions(num_embeddings, embedding_dim)) {}
  explicit EmbeddingBagImpl(const EmbeddingBagOptions& options_);
  /// As EmbeddingImpl::reset.
  void reset() override;
  /// weight ~ N(0, 1), then the padding_idx row to zeros (Python's order).
  void reset_parameters();
  /// input [B, L] (B bags of L indices; no offsets), or [N] with offsets [B] (bag b starts at
  /// offsets[b]); per_sample_weights (kSum only) has input's shape. -> [B, embedding_dim].
  Tensor forward(const Tensor& input, const Tensor& offsets = {},
                 const Tensor& per_sample_weights = {});
  /// forward with 1 to 3 boxed arguments, so an EmbeddingBag in a Sequential or AnyModule keeps
  /// forward's default arguments (LibTorch's FORWARD_HAS_DEFAULT_ARGS).
  IValue forward_ivalues(std::vector<IValue> inputs);
  void pretty_print(std::ostream& stream) const override;
  EmbeddingBagOptions options;
  Tensor weight;
};

/// The holder of EmbeddingBagImpl, with from_pretrained (as LibTorch's nn::EmbeddingBag).
class EmbeddingBag : public ModuleHolder<EmbeddingBagImpl> {
 public:
  using ModuleHolder<EmbeddingBagImpl>::ModuleHolder;
  using Impl = EmbeddingBagImpl;
  /// An EmbeddingBag whose weight is `embeddings` [V, D] (sharing its memory), frozen unless
  /// options.freeze(false).
  EMBER_API static EmbeddingBag from_pretrained(
      const Tensor& embeddings, const EmbeddingBagFromPretrainedOptions& options = {});
};

}  // namespace ember::nn

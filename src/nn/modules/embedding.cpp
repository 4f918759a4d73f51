// Embedding and EmbeddingBag modules: the table, its initialisation, from_pretrained, the input
// checks that name the module, and printing (the lookups are in src/nn/functional/embedding.cpp).
#include "ember/nn/modules/embedding.h"

#include <ostream>

#include "ember/autograd/grad_mode.h"
#include "ember/nn/functional/embedding.h"
#include "ember/nn/init.h"
#include "ember/ops/factory.h"
#include "src/nn/modules/module_errors.h"

namespace ember::nn {
namespace F = functional;
using detail::describe;
using detail::named_call;

namespace {

// PyTorch's rule: padding_idx in [-V, V), a negative one counting from the end; the options keep
// the resolved index (so printing and the lookup see the same row).
std::optional<int64_t> resolve_padding_idx(std::optional<int64_t> padding_idx, int64_t rows,
                                           const char* module) {
  if (!padding_idx) return padding_idx;
  EMBER_CHECK_VALUE(rows >= 0, "{}: num_embeddings must be >= 0, but got {}", module, rows);
  EMBER_CHECK_VALUE(*padding_idx >= -rows && *padding_idx < rows,
                    "{}: padding_idx {} is out of range for num_embeddings {}: it must be in "
                    "[{}, {})",
                    module, *padding_idx, rows, -rows, rows);
  return *padding_idx < 0 ? *padding_idx + rows : *padding_idx;
}

// The table: `given` (options._weight()) when defined, checked against the options, else a new
// uninitialised one.
Tensor make_table(int64_t rows, int64_t cols, const Tensor& given, const char* module) {
  EMBER_CHECK_VALUE(rows >= 0 && cols >= 0,
                    "{}: num_embeddings and embedding_dim must be >= 0, but got {} and {}", module,
                    rows, cols);
  if (!given.defined()) return ember::empty({rows, cols});
  EMBER_CHECK_VALUE(given.dim() == 2 && given.size(0) == rows && given.size(1) == cols,
                    "{}: _weight {} does not match num_embeddings {} and embedding_dim {}: "
                    "expected [{}, {}]",
                    module, describe(given), rows, cols, rows, cols);
  return given;
}

// Python's order: the whole table N(0, 1), then the padding row to zeros.
void init_table(const Tensor& weight, std::optional<int64_t> padding_idx) {
  init::normal_(weight);
  NoGradGuard no_grad;
  if (padding_idx) weight[*padding_idx].fill_(0.0);
}

void check_indices(const Tensor& input, const char* module, const char* arg) {
  EMBER_CHECK(input.defined(), "{}: {} is an undefined tensor", module, arg);
  EMBER_CHECK_TYPE(input.dtype() == kLong || input.dtype() == kInt,
                   "{}: expected {} to hold int64 or int32 indices, got {}. Hint: convert them "
                   "with .to(ember::kLong)",
                   module, arg, describe(input));
}

void check_pretrained(const Tensor& embeddings, const char* module) {
  EMBER_CHECK(embeddings.defined(), "{}::from_pretrained: embeddings is an undefined tensor",
              module);
  EMBER_CHECK_VALUE(embeddings.dim() == 2,
                    "{}::from_pretrained: expected a 2-D [num_embeddings, embedding_dim] table, "
                    "got {}",
                    module, describe(embeddings));
}

}  // namespace

// ---- Embedding ----

EmbeddingImpl::EmbeddingImpl(const EmbeddingOptions& options_) : options(options_) { reset(); }

void EmbeddingImpl::reset() {
  options.padding_idx(
      resolve_padding_idx(options.padding_idx(), options.num_embeddings(), "Embedding"));
  const bool given = options._weight().defined();
  weight =
      register_parameter("weight", make_table(options.num_embeddings(), options.embedding_dim(),
                                              options._weight(), "Embedding"));
  if (!given) reset_parameters();
}

void EmbeddingImpl::reset_parameters() { init_table(weight, options.padding_idx()); }

Tensor EmbeddingImpl::forward(const Tensor& indices) {
  check_indices(indices, "Embedding", "indices");
  return named_call("Embedding", [&] {
    return F::embedding(indices, weight,
                        F::EmbeddingFuncOptions()
                            .padding_idx(options.padding_idx())
                            .max_norm(options.max_norm())
                            .norm_type(options.norm_type())
                            .scale_grad_by_freq(options.scale_grad_by_freq())
                            .sparse(options.sparse()));
  });
}

void EmbeddingImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "ember::nn::Embedding(num_embeddings=" << options.num_embeddings()
         << ", embedding_dim=" << options.embedding_dim();
  if (options.padding_idx()) stream << ", padding_idx=" << *options.padding_idx();
  if (options.max_norm()) stream << ", max_norm=" << *options.max_norm();
  if (options.norm_type() != 2) stream << ", norm_type=" << options.norm_type();
  if (options.scale_grad_by_freq()) stream << ", scale_grad_by_freq=true";
  if (options.sparse()) stream << ", sparse=true";
  stream << ")";
}

Embedding Embedding::from_pretrained(const Tensor& embeddings,
                                     const EmbeddingFromPretrainedOptions& options) {
  check_pretrained(embeddings, "Embedding");
  // detach(): a new leaf sharing the memory, as Python's Parameter(embeddings); the caller's
  // tensor keeps its own requires_grad.
  Embedding embedding(EmbeddingOptions(embeddings.size(0), embeddings.size(1))
                          ._weight(embeddings.detach())
                          .padding_idx(options.padding_idx())
                          .max_norm(options.max_norm())
                          .norm_type(options.norm_type())
                          .scale_grad_by_freq(options.scale_grad_by_freq())
                          .sparse(options.sparse()));
  embedding->weight.set_requires_grad(!options.freeze());
  return embedding;
}

// ---- EmbeddingBag ----

EmbeddingBagImpl::EmbeddingBagImpl(const EmbeddingBagOptions& options_) : options(options_) {
  reset();
}

void EmbeddingBagImpl::reset() {
  options.padding_idx(
      resolve_padding_idx(options.padding_idx(), options.num_embeddings(), "EmbeddingBag"));
  const bool given = options._weight().defined();
  weight =
      register_parameter("weight", make_table(options.num_embeddings(), options.embedding_dim(),
                                              options._weight(), "EmbeddingBag"));
  if (!given) reset_parameters();
}

void EmbeddingBagImpl::reset_parameters() { init_table(weight, options.padding_idx()); }

Tensor EmbeddingBagImpl::forward(const Tensor& input, const Tensor& offsets,
                                 const Tensor& per_sample_weights) {
  check_indices(input, "EmbeddingBag", "input");
  EMBER_CHECK_VALUE(input.dim() == 1 || input.dim() == 2,
                    "EmbeddingBag: expected input of shape [B, L] (bags of equal length) or [N] "
                    "(with offsets), got {}",
                    describe(input));
  return named_call("EmbeddingBag", [&] {
    return F::embedding_bag(input, weight,
                            F::EmbeddingBagFuncOptions()
                                .offsets(offsets)
                                .max_norm(options.max_norm())
                                .norm_type(options.norm_type())
                                .scale_grad_by_freq(options.scale_grad_by_freq())
                                .mode(options.mode())
                                .sparse(options.sparse())
                                .per_sample_weights(per_sample_weights)
                                .include_last_offset(options.include_last_offset())
                                .padding_idx(options.padding_idx()));
  });
}

IValue EmbeddingBagImpl::forward_ivalues(std::vector<IValue> inputs) {
  EMBER_CHECK_VALUE(!inputs.empty() && inputs.size() <= 3,
                    "EmbeddingBag: forward takes 1 to 3 arguments (input, offsets, "
                    "per_sample_weights), but got {}",
                    inputs.size());
  auto tensor_at = [&](size_t i) {
    return i < inputs.size() && !inputs[i].isNone() ? inputs[i].toTensor() : Tensor();
  };
  return forward(tensor_at(0), tensor_at(1), tensor_at(2));
}

void EmbeddingBagImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "ember::nn::EmbeddingBag(num_embeddings=" << options.num_embeddings()
         << ", embedding_dim=" << options.embedding_dim();
  if (options.max_norm()) stream << ", max_norm=" << *options.max_norm();
  if (options.norm_type() != 2) stream << ", norm_type=" << options.norm_type();
  if (options.scale_grad_by_freq()) stream << ", scale_grad_by_freq=true";
  if (options.sparse()) stream << ", sparse=true";
  if (!std::holds_alternative<enumtype::kMean>(options.mode()))
    stream << ", mode=" << enumtype::get_enum_name(options.mode());
  if (options.include_last_offset()) stream << ", include_last_offset=true";
  if (options.padding_idx()) stream << ", padding_idx=" << *options.padding_idx();
  stream << ")";
}

EmbeddingBag EmbeddingBag::from_pretrained(const Tensor& embeddings,
                                           const EmbeddingBagFromPretrainedOptions& options) {
  check_pretrained(embeddings, "EmbeddingBag");
  EmbeddingBag bag(EmbeddingBagOptions(embeddings.size(0), embeddings.size(1))
                       ._weight(embeddings.detach())
                       .max_norm(options.max_norm())
                       .norm_type(options.norm_type())
                       .scale_grad_by_freq(options.scale_grad_by_freq())
                       .mode(options.mode())
                       .sparse(options.sparse())
                       .include_last_offset(options.include_last_offset())
                       .padding_idx(options.padding_idx()));
  bag->weight.set_requires_grad(!options.freeze());
  return bag;
}

}  // namespace ember::nn

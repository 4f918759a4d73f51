// The fuzzer's module, state_dict, optimizer and out= calls: modules built with random (often
// bad) options and fed random tensors, state dicts of the wrong shapes and dtypes, optimizer steps
// over gradients of any shape, and out= forms and resize_ with outs of any shape and dtype.
#include "tests/fuzz/fuzz_args.h"

namespace ember_fuzz {

namespace {
// A module size: usually small and valid, sometimes 0, negative or huge.
int64_t module_size(Ctx& c) { return c.chance(80) ? c.below(4) + 1 : c.integer(); }

std::optional<int64_t> maybe_index(Ctx& c) {
  if (c.chance(50)) return std::nullopt;
  return c.integer();
}

std::optional<double> maybe_max_norm(Ctx& c) {
  if (c.chance(70)) return std::nullopt;
  return static_cast<double>(c.integer());
}

// A state dict for a module's keys (or other keys), with tensors of random shapes and dtypes.
nn::StateDict random_state_dict(Ctx& c, const nn::Module& m) {
  nn::StateDict sd;
  for (const auto& item : m.state_dict()) {
    if (c.chance(15)) continue;  // a missing key
    sd.insert(item.key(), c.chance(60) ? item.value().clone() : c.tensor());
  }
  if (c.chance(20)) sd.insert("unexpected.key", c.tensor());
  return sd;
}
}  // namespace

std::vector<Op> module_ops() {
  return {
      {"Linear",
       [](Ctx& c) {
         nn::Linear m(module_size(c), module_size(c));
         m->forward(c.float_tensor());
       }},
      {"Embedding",
       [](Ctx& c) {
         nn::Embedding m(nn::EmbeddingOptions(module_size(c), module_size(c))
                             .padding_idx(maybe_index(c))
                             .max_norm(maybe_max_norm(c)));
         m->forward(c.index_tensor(4));
       }},
      {"EmbeddingBag",
       [](Ctx& c) {
         namespace F = nn::functional;
         const nn::EmbeddingBagMode modes[] = {enumtype::kSum(), enumtype::kMean(),
                                               enumtype::kMax()};
         F::embedding_bag(c.index_tensor(4), c.float_tensor(),
                          F::EmbeddingBagFuncOptions()
                              .offsets(c.chance(50) ? c.index_tensor(4) : Tensor())
                              .mode(modes[c.below(3)])
                              .per_sample_weights(c.chance(20) ? c.float_tensor() : Tensor())
                              .padding_idx(maybe_index(c)));
       }},
      {"LayerNorm",
       [](Ctx& c) {
         nn::LayerNorm m(nn::LayerNormOptions(c.sizes_arg()));
         m->forward(c.float_tensor());
       }},
      {"rms_norm",
       [](Ctx& c) {
         namespace F = nn::functional;
         F::rms_norm(c.float_tensor(), F::RMSNormFuncOptions(c.sizes_arg())
                                           .weight(c.chance(50) ? c.float_tensor() : Tensor()));
       }},
      {"Sequential",
       [](Ctx& c) {
         nn::Sequential s(nn::Linear(module_size(c), module_size(c)), nn::ReLU(),
                          nn::Linear(module_size(c), module_size(c)));
         s->forward(c.float_tensor());
       }},
      {"module_to",
       [](Ctx& c) {
         nn::Linear m(module_size(c), module_size(c));
         m->to(c.dtype());
         m->forward(c.float_tensor());
       }},
      {"load_state_dict",
       [](Ctx& c) {
         nn::Linear m(module_size(c), module_size(c));
         nn::Linear other(module_size(c), module_size(c));
         m->load_state_dict(random_state_dict(c, *other), c.chance(50));
       }},
      {"sgd_step",
       [](Ctx& c) {
         nn::Linear m(module_size(c), module_size(c));
         optim::SGD opt(m->parameters(), optim::SGDOptions(0.1)
                                             .momentum(c.chance(50) ? 0.9 : 0.0)
                                             .weight_decay(c.chance(30) ? 0.01 : 0.0)
                                             .nesterov(c.chance(20)));
         for (Tensor& p : m->parameters()) {
           if (c.chance(20)) continue;  // no grad
           p.mutable_grad() = c.chance(70) ? ones_like(p) : c.tensor();
         }
         opt.step();
         if (c.chance(50)) opt.step();
         opt.zero_grad(c.chance(50));
       }},
      {"adam_step",
       [](Ctx& c) {
         nn::Linear m(module_size(c), module_size(c));
         const bool decoupled = c.chance(50);
         const double wd = c.chance(30) ? 0.01 : 0.0;
         const bool amsgrad = c.chance(30);
         std::unique_ptr<optim::Optimizer> opt;
         if (decoupled)
           opt = std::make_unique<optim::AdamW>(
               m->parameters(), optim::AdamWOptions(0.01).weight_decay(wd).amsgrad(amsgrad));
         else
           opt = std::make_unique<optim::Adam>(
               m->parameters(), optim::AdamOptions(0.01).weight_decay(wd).amsgrad(amsgrad));
         for (Tensor& p : m->parameters())
           if (!c.chance(20)) p.mutable_grad() = c.chance(70) ? ones_like(p) : c.tensor();
         opt->step();
         if (c.chance(50)) opt->step();
       }},
      {"sum_out",
       [](Ctx& c) {
         Tensor out = c.tensor();
         sum_out(out, c.tensor(), std::vector<int64_t>{c.integer()}, c.chance(50));
       }},
      {"mm_out", [](Ctx& c) { mm_out(c.tensor(), c.tensor(), c.tensor()); }},
      {"add_out", [](Ctx& c) { add_out(c.tensor(), c.tensor(), c.tensor()); }},
      {"resize_", [](Ctx& c) { c.tensor().resize_(c.sizes_arg()); }},
  };
}

}  // namespace ember_fuzz

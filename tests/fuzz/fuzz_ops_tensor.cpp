// The fuzzer's tensor calls: every elementwise row of the op table, shape and view ops,
// reductions, indexing.
#include "tests/fuzz/fuzz_args.h"

namespace ember_fuzz {

std::vector<Op> elementwise_ops() {
  std::vector<Op> ops;
#define EMBER_FUZZ_UNARY(name, Name, policy)                        \
  ops.push_back({#name, [](Ctx& c) { ember::name(c.tensor()); }});  \
  ops.push_back({#name "_", [](Ctx& c) { c.tensor().name##_(); }}); \
  ops.push_back({#name "_out", [](Ctx& c) {                         \
                   Tensor out = c.tensor();                         \
                   ember::name##_out(out, c.tensor());              \
                 }});
  EMBER_UNARY_OPS(EMBER_FUZZ_UNARY)
#undef EMBER_FUZZ_UNARY
#define EMBER_FUZZ_BINARY(name, Name, policy)                                            \
  ops.push_back({#name, [](Ctx& c) { ember::name(c.tensor(), c.tensor()); }});           \
  ops.push_back({#name "_scalar", [](Ctx& c) { ember::name(c.tensor(), c.scalar()); }}); \
  ops.push_back({#name "_", [](Ctx& c) { c.tensor().name##_(c.tensor()); }});            \
  ops.push_back({#name "_out", [](Ctx& c) {                                              \
                   Tensor out = c.tensor();                                              \
                   ember::name##_out(out, c.tensor(), c.tensor());                       \
                 }});
  EMBER_BINARY_OPS(EMBER_FUZZ_BINARY)
#undef EMBER_FUZZ_BINARY
  ops.push_back({"add", [](Ctx& c) { add(c.tensor(), c.tensor(), c.scalar()); }});
  ops.push_back({"sub_", [](Ctx& c) { c.tensor().sub_(c.tensor()); }});
  ops.push_back({"div", [](Ctx& c) { div(c.tensor(), c.tensor()); }});
  ops.push_back({"div_trunc", [](Ctx& c) { div(c.tensor(), c.tensor(), "trunc"); }});
  ops.push_back({"div_floor", [](Ctx& c) { div(c.tensor(), c.scalar(), "floor"); }});
  ops.push_back({"div_mode", [](Ctx& c) { div(c.tensor(), c.tensor(), "nonsense"); }});
  ops.push_back({"round", [](Ctx& c) { round(c.tensor(), c.integer()); }});
  ops.push_back({"clamp", [](Ctx& c) { clamp(c.tensor(), c.scalar(), c.scalar()); }});
  ops.push_back({"clamp_t", [](Ctx& c) {
                   clamp(c.tensor(), std::optional<Tensor>(c.tensor()), std::nullopt);
                 }});
  ops.push_back({"gelu", [](Ctx& c) { gelu(c.tensor(), c.chance(50) ? "tanh" : "bogus"); }});
  ops.push_back({"logit", [](Ctx& c) { logit(c.tensor(), 1e-3); }});
  ops.push_back({"nan_to_num", [](Ctx& c) { nan_to_num(c.tensor()); }});
  ops.push_back({"lerp", [](Ctx& c) { lerp(c.tensor(), c.tensor(), c.scalar()); }});
  ops.push_back({"addcmul", [](Ctx& c) { addcmul(c.tensor(), c.tensor(), c.tensor()); }});
  ops.push_back({"where", [](Ctx& c) { where(c.tensor(), c.tensor(), c.tensor()); }});
  ops.push_back({"to", [](Ctx& c) { c.tensor().to(c.dtype()); }});
  ops.push_back({"copy_", [](Ctx& c) { c.tensor().copy_(c.tensor()); }});
  ops.push_back({"fill_", [](Ctx& c) { c.tensor().fill_(c.scalar()); }});
  ops.push_back({"item", [](Ctx& c) { c.tensor().item<double>(); }});
  return ops;
}

std::vector<Op> shape_ops() {
  return {
      {"view", [](Ctx& c) { c.tensor().view(c.sizes_arg()); }},
      {"reshape", [](Ctx& c) { c.tensor().reshape(c.sizes_arg()); }},
      {"expand", [](Ctx& c) { c.tensor().expand(c.sizes_arg()); }},
      {"repeat", [](Ctx& c) { c.tensor().repeat(c.sizes_arg()); }},
      {"tile", [](Ctx& c) { c.tensor().tile(c.sizes_arg()); }},
      {"permute", [](Ctx& c) { c.tensor().permute(c.sizes_arg()); }},
      {"flip", [](Ctx& c) { c.tensor().flip(c.sizes_arg()); }},
      {"roll", [](Ctx& c) { c.tensor().roll({c.integer()}, {c.integer()}); }},
      {"transpose",
       [](Ctx& c) {
         Tensor t = c.tensor();
         t.transpose(c.dim(t.dim()), c.dim(t.dim()));
       }},
      {"movedim",
       [](Ctx& c) {
         Tensor t = c.tensor();
         t.movedim(c.dim(t.dim()), c.dim(t.dim()));
       }},
      {"squeeze",
       [](Ctx& c) {
         Tensor t = c.tensor();
         t.squeeze(c.dim(t.dim()));
       }},
      {"unsqueeze",
       [](Ctx& c) {
         Tensor t = c.tensor();
         t.unsqueeze(c.dim(t.dim() + 1));
       }},
      {"flatten",
       [](Ctx& c) {
         Tensor t = c.tensor();
         t.flatten(c.dim(t.dim()), c.dim(t.dim()));
       }},
      {"unflatten",
       [](Ctx& c) {
         Tensor t = c.tensor();
         t.unflatten(c.dim(t.dim()), c.sizes_arg());
       }},
      {"narrow",
       [](Ctx& c) {
         Tensor t = c.tensor();
         t.narrow(c.dim(t.dim()), c.integer(), c.integer());
       }},
      {"select",
       [](Ctx& c) {
         Tensor t = c.tensor();
         t.select(c.dim(t.dim()), c.integer());
       }},
      {"slice",
       [](Ctx& c) {
         Tensor t = c.tensor();
         t.slice(c.dim(t.dim()), c.integer(), c.integer(), c.integer());
       }},
      {"chunk",
       [](Ctx& c) {
         Tensor t = c.tensor();
         t.chunk(c.integer(), c.dim(t.dim()));
       }},
      {"split",
       [](Ctx& c) {
         Tensor t = c.tensor();
         t.split(c.integer(), c.dim(t.dim()));
       }},
      {"unbind",
       [](Ctx& c) {
         Tensor t = c.tensor();
         t.unbind(c.dim(t.dim()));
       }},
      {"diagonal",
       [](Ctx& c) {
         Tensor t = c.tensor();
         t.diagonal(c.integer(), c.dim(t.dim()), c.dim(t.dim()));
       }},
      {"unfold",
       [](Ctx& c) {
         Tensor t = c.tensor();
         t.unfold(c.dim(t.dim()), c.integer(), c.integer());
       }},
      {"as_strided",
       [](Ctx& c) {
         Tensor t = c.tensor();
         std::vector<int64_t> size = c.sizes_arg();
         std::vector<int64_t> stride(size.size());
         for (int64_t& s : stride) s = c.chance(80) ? c.below(4) : c.integer();
         t.as_strided(size, stride,
                      c.chance(50) ? std::optional<int64_t>(c.integer()) : std::nullopt);
       }},
      {"cat",
       [](Ctx& c) {
         Tensor a = c.tensor();
         cat({a, c.chance(50) ? c.tensor(a.scalar_type(), a.sizes().vec()) : c.tensor()},
             c.dim(a.dim()));
       }},
      {"stack",
       [](Ctx& c) {
         Tensor a = c.tensor();
         stack({a, c.chance(70) ? c.tensor(c.dtype(), a.sizes().vec()) : c.tensor()},
               c.dim(a.dim() + 1));
       }},
      {"tril", [](Ctx& c) { c.tensor().tril(c.integer()); }},
      {"triu", [](Ctx& c) { c.tensor().triu(c.integer()); }},
      {"constant_pad_nd", [](Ctx& c) { constant_pad_nd(c.tensor(), c.sizes_arg(), c.scalar()); }},
      {"contiguous", [](Ctx& c) { c.tensor().contiguous(); }},
      {"clone", [](Ctx& c) { c.tensor().clone(); }},
  };
}

std::vector<Op> reduction_ops() {
  return {
      {"sum", [](Ctx& c) { c.tensor().sum(); }},
      {"sum_dims", [](Ctx& c) { c.tensor().sum(c.sizes_arg(), c.chance(50)); }},
      {"mean_dims", [](Ctx& c) { c.tensor().mean(c.sizes_arg(), c.chance(50)); }},
      {"prod",
       [](Ctx& c) {
         Tensor t = c.tensor();
         t.prod(c.dim(t.dim()));
       }},
      {"amax", [](Ctx& c) { c.tensor().amax(c.sizes_arg()); }},
      {"max_dim",
       [](Ctx& c) {
         Tensor t = c.tensor();
         t.max(c.dim(t.dim()));
       }},
      {"argmax",
       [](Ctx& c) {
         Tensor t = c.tensor();
         t.argmax(c.dim(t.dim()));
       }},
      {"var", [](Ctx& c) { c.tensor().var(c.sizes_arg(), std::optional<double>(c.integer())); }},
      {"std_int",
       [](Ctx& c) {
         Tensor t = c.tensor();
         t.std(static_cast<int>(c.dim(t.dim()) % 8));
       }},
      {"norm", [](Ctx& c) { c.tensor().norm(c.scalar()); }},
      {"logsumexp", [](Ctx& c) { c.tensor().logsumexp(c.sizes_arg()); }},
      {"softmax",
       [](Ctx& c) {
         Tensor t = c.tensor();
         t.softmax(c.dim(t.dim()));
       }},
      {"log_softmax",
       [](Ctx& c) {
         Tensor t = c.tensor();
         t.log_softmax(c.dim(t.dim()));
       }},
      {"cumsum",
       [](Ctx& c) {
         Tensor t = c.tensor();
         t.cumsum(c.dim(t.dim()));
       }},
      {"sort",
       [](Ctx& c) {
         Tensor t = c.tensor();
         sort(t, c.dim(t.dim()));
       }},
      {"topk",
       [](Ctx& c) {
         Tensor t = c.tensor();
         topk(t, c.integer(), c.dim(t.dim()));
       }},
      {"median",
       [](Ctx& c) {
         Tensor t = c.tensor();
         median(t, c.dim(t.dim()));
       }},
      {"all", [](Ctx& c) { all(c.tensor()); }},
      {"count_nonzero", [](Ctx& c) { count_nonzero(c.tensor()); }},
  };
}

std::vector<Op> indexing_ops() {
  return {
      {"index",
       [](Ctx& c) {
         Tensor t = c.tensor();
         t.index({c.index_tensor(t.dim() ? t.size(0) : 1)});
       }},
      {"index_int", [](Ctx& c) { c.tensor().index({c.integer()}); }},
      {"index_put_",
       [](Ctx& c) {
         Tensor t = c.tensor();
         t.index_put_({c.index_tensor(t.dim() ? t.size(0) : 1)}, c.scalar());
       }},
      {"index_select",
       [](Ctx& c) {
         Tensor t = c.tensor();
         t.index_select(c.dim(t.dim()), c.index_tensor(3).flatten());
       }},
      {"gather",
       [](Ctx& c) {
         Tensor t = c.tensor();
         gather(t, c.dim(t.dim()), c.index_tensor(3));
       }},
      {"scatter_",
       [](Ctx& c) {
         Tensor t = c.tensor();
         t.scatter_(c.dim(t.dim()), c.index_tensor(3), c.scalar());
       }},
      {"masked_fill",
       [](Ctx& c) { masked_fill(c.tensor(), c.tensor(kBool, c.shape()), c.scalar()); }},
      {"take", [](Ctx& c) { take(c.tensor(), c.index_tensor(4)); }},
      {"nonzero", [](Ctx& c) { nonzero(c.tensor()); }},
  };
}

}  // namespace ember_fuzz

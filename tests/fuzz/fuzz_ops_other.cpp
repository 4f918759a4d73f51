// The fuzzer's factory, linear algebra, nn functional and autograd-misuse calls.
#include "tests/fuzz/fuzz_args.h"

namespace ember_fuzz {

std::vector<Op> factory_ops() {
  return {
      {"zeros", [](Ctx& c) { zeros(c.sizes_arg(), c.dtype()); }},
      {"full", [](Ctx& c) { full(c.sizes_arg(), c.scalar()); }},
      {"empty_strided", [](Ctx& c) { empty_strided(c.sizes_arg(), c.sizes_arg()); }},
      {"arange", [](Ctx& c) { arange(c.integer(), c.integer(), c.integer()); }},
      {"linspace", [](Ctx& c) { linspace(c.scalar(), c.scalar(), c.integer()); }},
      {"eye", [](Ctx& c) { eye(c.integer(), c.integer()); }},
      {"rand", [](Ctx& c) { rand(c.sizes_arg(), c.dtype()); }},
      {"randn", [](Ctx& c) { randn(c.sizes_arg(), c.dtype()); }},
      {"randint", [](Ctx& c) { randint(c.integer(), c.integer(), c.sizes_arg(), c.dtype()); }},
      {"randperm", [](Ctx& c) { randperm(c.integer(), c.dtype()); }},
      {"normal_", [](Ctx& c) { c.tensor().normal_(0, 1); }},
      {"uniform_", [](Ctx& c) { c.tensor().uniform_(0, 1); }},
  };
}

std::vector<Op> linalg_ops() {
  auto matrix = [](Ctx& c) {
    ScalarType t = c.chance(70) ? c.float_dtype() : c.dtype();
    std::vector<int64_t> s = {c.below(4), c.below(4)};
    if (c.chance(30)) s.insert(s.begin(), c.below(3));
    return c.tensor(t, s);
  };
  return {
      {"mm", [=](Ctx& c) { mm(matrix(c), matrix(c)); }},
      {"matmul", [=](Ctx& c) { matmul(c.tensor(), c.tensor()); }},
      {"bmm", [=](Ctx& c) { bmm(matrix(c), matrix(c)); }},
      {"addmm", [=](Ctx& c) { addmm(c.tensor(), matrix(c), matrix(c)); }},
      {"dot", [=](Ctx& c) { dot(c.tensor(), c.tensor()); }},
      {"det", [=](Ctx& c) { linalg::det(matrix(c)); }},
      {"inv", [=](Ctx& c) { linalg::inv(matrix(c)); }},
      {"solve", [=](Ctx& c) { linalg::solve(matrix(c), matrix(c)); }},
      {"qr", [=](Ctx& c) { linalg::qr(matrix(c)); }},
      {"svd", [=](Ctx& c) { linalg::svd(matrix(c)); }},
      {"svdvals", [=](Ctx& c) { linalg::svdvals(matrix(c)); }},
      {"eigh", [=](Ctx& c) { linalg::eigh(matrix(c)); }},
      {"cholesky", [=](Ctx& c) { linalg::cholesky(matrix(c)); }},
      {"matrix_exp", [=](Ctx& c) { linalg::matrix_exp(matrix(c)); }},
      {"einsum",
       [=](Ctx& c) {
         einsum(c.chance(50) ? "ij,jk->ik" : "ii->i", {matrix(c), matrix(c)});
       }},
  };
}

std::vector<Op> nn_ops() {
  namespace F = nn::functional;
  return {
      {"linear", [](Ctx& c) { F::linear(c.float_tensor(), c.float_tensor(), c.float_tensor()); }},
      {"dropout",
       [](Ctx& c) { F::dropout(c.float_tensor(), F::DropoutFuncOptions().p(c.below(3) * 0.5)); }},
      {"layer_norm",
       [](Ctx& c) { F::layer_norm(c.float_tensor(), F::LayerNormFuncOptions(c.sizes_arg())); }},
      {"embedding", [](Ctx& c) { F::embedding(c.index_tensor(3), c.float_tensor()); }},
      {"cross_entropy", [](Ctx& c) { F::cross_entropy(c.float_tensor(), c.index_tensor(2)); }},
      {"mse_loss", [](Ctx& c) { F::mse_loss(c.float_tensor(), c.float_tensor()); }},
      {"nll_loss", [](Ctx& c) { F::nll_loss(c.float_tensor(), c.index_tensor(2)); }},
      {"softmax_f",
       [](Ctx& c) { F::softmax(c.float_tensor(), F::SoftmaxFuncOptions(c.integer())); }},
  };
}

std::vector<Op> autograd_ops() {
  return {
      {"backward", [](Ctx& c) { c.tensor().backward(); }},
      {"backward_sum",
       [](Ctx& c) {
         Tensor x = c.float_tensor();
         Tensor y = (x * 2).sum();
         y.backward();
         if (c.chance(50)) y.backward();  // a second time without retain_graph
       }},
      {"backward_grad",
       [](Ctx& c) {
         Tensor x = c.float_tensor();
         (x * 3).backward(c.tensor());  // a gradient of any shape and dtype
       }},
      {"grad",
       [](Ctx& c) {
         Tensor x = c.float_tensor();
         Tensor y = x.exp().sum();
         autograd::grad({y}, {c.chance(50) ? x : c.float_tensor()});
       }},
      {"inplace_leaf", [](Ctx& c) { c.float_tensor().mul_(2); }},
      {"modified_saved",
       [](Ctx& c) {
         Tensor x = c.float_tensor();
         Tensor y = x.sin();
         Tensor z = (y * y).sum();
         y.add_(1);
         z.backward();
       }},
      {"bad_hook",
       [](Ctx& c) {
         Tensor x = c.float_tensor();
         Tensor y = x * 2;
         const int kind = static_cast<int>(c.below(3));
         y.register_hook([kind](const Tensor& g) {
           if (kind == 0) return ones({5});
           if (kind == 1) return g.to(kDouble);
           return Tensor();
         });
         y.sum().backward();
       }},
  };
}

}  // namespace ember_fuzz

// Gradient test entries of the indexing ops (see grad_op_info.h), in indexing.h order. Index
// tensors and masks are either built inside fn or made as non-differentiable inputs, so that
// the non-contiguous and zero-size variants reshape them along with the data.
#include "tests/autograd/grad_op_info.h"

using namespace ember;
using indexing::None;
using indexing::Slice;

namespace {
using Inputs = std::vector<Tensor>;
using Shapes = std::vector<std::vector<int64_t>>;
using MakeInput = std::function<Tensor(size_t, const std::vector<int64_t>&)>;

Tensor longs(std::vector<int64_t> v) { return tensor(v, kLong); }
Tensor random_mask(const std::vector<int64_t>& shape) {
  return empty(shape, kDouble).uniform_(0, 1) > 0.5;
}
// Indices idx[i][j] = (i + j) % n: distinct along either dim when both sizes are at most n, so
// the transposed layout of the non-contiguous variant keeps them distinct along dim 1 too.
Tensor distinct_rows(const std::vector<int64_t>& shape, int64_t n) {
  Tensor i = arange(shape[0], TensorOptions().dtype(kLong)).unsqueeze(1);
  Tensor j = arange(shape[1], TensorOptions().dtype(kLong)).unsqueeze(0);
  return (i + j).remainder(n).contiguous();
}

// Inputs at `which` are made by `make`, the others uniform.
GradOpInfo with_index(GradOpInfo info, std::vector<size_t> which,
                      std::function<Tensor(const std::vector<int64_t>&)> make) {
  info.non_differentiable = which;
  info.make_input = [which, make](size_t i, const std::vector<int64_t>& shape) {
    for (size_t w : which)
      if (w == i) return make(shape);
    return uniform_double(shape);
  };
  return info;
}
}  // namespace

void add_indexing_grad_ops(std::vector<GradOpInfo>& ops) {
  // ---- index: basic (views), advanced (gathers), masks ----
  ops.push_back(grad_op_entry("index", {{4, 5}}, [](const Inputs& x) {
    return x[0].index({Slice(1, None, 2), 3});
  }));
  ops.push_back(grad_op_entry("index", {{3, 4}}, [](const Inputs& x) {
    return x[0].index({indexing::Ellipsis, None, Slice(None, -1)});
  }));
  // Repeated indices add up.
  ops.push_back(grad_op_entry(
      "index", {{3, 5}},
      [](const Inputs& x) {
        return x[0].index({Slice(), longs({0, 4, 2, 4})});
      },
      true));
  // Two index tensors broadcast together, basic indices before them.
  ops.push_back(grad_op_entry("index", {{3, 4, 5}}, [](const Inputs& x) {
    return x[0].index({Slice(1), longs({0, 3, -1}).unsqueeze(1), longs({2, 2})});
  }));
  // Non-adjacent index tensors: the indexed dims go first.
  GradOpInfo apart = grad_op_entry("index", {{3, 4, 5}}, [](const Inputs& x) {
    return x[0].index({longs({2, 0, 2}), Slice(), longs({1, 4, 4})});
  });
  apart.zero_size = false;  // indexes dim 0
  ops.push_back(apart);
  ops.push_back(with_index(
      grad_op_entry(
          "index", {{3, 4}, {3, 4}}, [](const Inputs& x) { return x[0].index({x[1]}); }, true),
      {1}, random_mask));
  ops.push_back(grad_op_entry("index", {{3, 4, 2}}, [](const Inputs& x) {
    return x[0].index({Slice(), tensor({true, false, true, true})});
  }));

  // ---- index_put_ on a copy (self and values both get gradients) ----
  GradOpInfo put = grad_op_entry("index_put", {{3, 5}, {3, 2}}, [](const Inputs& x) {
    Tensor y = x[0].clone();
    index_put_(y, {Slice(), longs({1, 3})}, x[1]);
    return y;
  });
  put.broadcast = true;  // values [1, 2] broadcast over the rows
  ops.push_back(put);
  ops.push_back(grad_op_entry("index_put", {{3, 5}, {3, 3}}, [](const Inputs& x) {
    Tensor y = x[0].clone();
    index_put_(y, {Slice(), longs({1, 3, 1})}, x[1], /*accumulate=*/true);
    return y;
  }));
  ops.push_back(
      grad_op_entry("index_put", {{3, 5}, {3, 2}}, [](const Inputs& x) {  // basic indices only
        Tensor y = x[0].clone();
        index_put_(y, {Slice(), Slice(1, 3)}, x[1]);
        return y;
      }));
  GradOpInfo put_ranks = grad_op_entry("index_put", {{3, 5}, {2}}, [](const Inputs& x) {
    Tensor y = x[0].clone();  // values with more (leading 1) dims than the indexed result
    index_put_(y, {Slice(), longs({4, 0})}, x[1].view({1, 1, 2}), /*accumulate=*/true);
    return y;
  });
  put_ranks.zero_size = false;  // a [0] values tensor has no [1, 1, 2] view
  ops.push_back(put_ranks);
  ops.push_back(with_index(grad_op_entry("index_put", {{3, 4}, {3, 4}},
                                         [](const Inputs& x) {
                                           Tensor y = x[0] * 1;
                                           y.index_put_({x[1]}, 0.5);
                                           return y;
                                         }),
                           {1}, random_mask));

  // ---- gather/scatter family ----
  ops.push_back(grad_op_entry(
      "index_select", {{3, 5}},
      [](const Inputs& x) {
        return x[0].index_select(1, longs({0, 4, 2, 2}));
      },
      true));
  ops.push_back(
      with_index(grad_op_entry("index_select", {{4, 3}, {5}},
                               [](const Inputs& x) { return x[0].index_select(-1, x[1]); }),
                 {1}, [](const std::vector<int64_t>& s) { return randint(3, s, kLong); }));
  ops.push_back(with_index(
      grad_op_entry(
          "gather", {{3, 5}, {3, 4}}, [](const Inputs& x) { return x[0].gather(1, x[1]); }, true),
      {1}, [](const std::vector<int64_t>& s) { return randint(5, s, kLong); }));
  ops.push_back(with_index(grad_op_entry("gather", {{4, 3}, {2, 3}},
                                         [](const Inputs& x) { return x[0].gather(0, x[1]); }),
                           {1},
                           [](const std::vector<int64_t>& s) { return randint(4, s, kLong); }));
  // scatter's gradient is defined only without repeated indices along dim.
  auto distinct5 = [](const std::vector<int64_t>& s) { return distinct_rows(s, 5); };
  ops.push_back(
      with_index(grad_op_entry("scatter", {{3, 5}, {3, 2}, {3, 2}},
                               [](const Inputs& x) { return x[0].scatter(1, x[1], x[2]); }),
                 {1}, distinct5));
  // src larger than index: only its leading part is read.
  ops.push_back(
      with_index(grad_op_entry("scatter", {{3, 5}, {3, 2}, {3, 4}},
                               [](const Inputs& x) { return x[0].scatter(1, x[1], x[2]); }),
                 {1}, distinct5));
  ops.push_back(
      with_index(grad_op_entry("scatter", {{3, 5}, {3, 2}},
                               [](const Inputs& x) { return x[0].scatter(1, x[1], 1.5); }),
                 {1}, distinct5));
  ops.push_back(
      with_index(grad_op_entry("scatter_add", {{3, 5}, {3, 4}, {3, 4}},
                               [](const Inputs& x) { return x[0].scatter_add(1, x[1], x[2]); }),
                 {1}, [](const std::vector<int64_t>& s) { return randint(5, s, kLong); }));
  ops.push_back(
      with_index(grad_op_entry("scatter_add", {{3, 5}, {3, 2}, {3, 4}},
                               [](const Inputs& x) { return x[0].scatter_add(1, x[1], x[2]); }),
                 {1}, [](const std::vector<int64_t>& s) { return randint(5, s, kLong); }));
  ops.push_back(grad_op_entry(
      "index_add", {{3, 5}, {3, 4}},
      [](const Inputs& x) {
        return x[0].index_add(1, longs({0, 4, 2, 0}), x[1], 2.5);
      },
      true));
  ops.push_back(grad_op_entry("index_add", {{3, 5}, {3, 2}}, [](const Inputs& x) {
    Tensor y = x[0] * 1;
    y.index_add_(-1, longs({3, 1}), x[1]);
    return y;
  }));

  // ---- masks ----
  GradOpInfo fill =
      with_index(grad_op_entry("masked_fill", {{3, 4}, {3, 4}},
                               [](const Inputs& x) { return x[0].masked_fill(x[1], 0.25); }),
                 {1}, random_mask);
  fill.broadcast = true;  // a [1, 4] mask over every row
  ops.push_back(fill);
  // A Tensor value gets the sum of the gradient where the mask is true.
  GradOpInfo fill_value =
      with_index(grad_op_entry("masked_fill", {{3, 4}, {3, 4}, {}},
                               [](const Inputs& x) { return x[0].masked_fill(x[1], x[2]); }),
                 {1}, random_mask);
  ops.push_back(fill_value);
  // The mask grows self: the gradient sums back.
  GradOpInfo fill_grows =
      with_index(grad_op_entry("masked_fill", {{4}, {3, 4}, {}},
                               [](const Inputs& x) { return x[0].masked_fill(x[1], x[2]); }),
                 {1}, random_mask);
  fill_grows.zero_size = false;  // [0] and [0, 4] do not broadcast
  ops.push_back(fill_grows);
  ops.push_back(with_index(grad_op_entry("masked_fill", {{3, 4}, {3, 4}, {}},
                                         [](const Inputs& x) {
                                           Tensor y = x[0] * 1;
                                           y.masked_fill_(x[1], x[2]);
                                           return y;
                                         }),
                           {1}, random_mask));
  GradOpInfo select =
      with_index(grad_op_entry("masked_select", {{3, 4}, {3, 4}},
                               [](const Inputs& x) { return x[0].masked_select(x[1]); }),
                 {1}, random_mask);
  select.broadcast = true;
  ops.push_back(select);
  GradOpInfo select_grows =
      with_index(grad_op_entry("masked_select", {{4}, {3, 4}},
                               [](const Inputs& x) { return x[0].masked_select(x[1]); }),
                 {1}, random_mask);
  select_grows.zero_size = false;
  ops.push_back(select_grows);
  // Negative and repeated flat positions.
  ops.push_back(with_index(
      grad_op_entry("take", {{3, 4}, {2, 3}}, [](const Inputs& x) { return x[0].take(x[1]); }), {1},
      [](const std::vector<int64_t>& s) { return randint(-12, 12, s, kLong); }));
  GradOpInfo take_fixed = grad_op_entry("take", {{2, 3}}, [](const Inputs& x) {
    return x[0].take(longs({5, -6, 5, 0}));
  });
  take_fixed.zero_size = false;  // positions into an empty tensor
  ops.push_back(take_fixed);
}

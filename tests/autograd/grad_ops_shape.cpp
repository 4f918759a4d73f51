// Gradient test entries of the view and shape ops (see grad_op_info.h), in shape.h order. Ops
// returning lists combine their pieces with distinct weights, so a piece routed to the wrong place
// shows up in the gradient.
#include "tests/autograd/grad_op_info.h"

using namespace ember;

namespace {
using Inputs = std::vector<Tensor>;
using Shapes = std::vector<std::vector<int64_t>>;

// A single-input op.
GradOpInfo shape_unary(std::string name, std::vector<int64_t> shape,
                       std::function<Tensor(const Tensor&)> f, bool gradgrad = false) {
  return grad_op_entry(
      std::move(name), {std::move(shape)}, [f](const Inputs& x) { return f(x[0]); }, gradgrad);
}

// The pieces of a list-returning op flattened into one tensor, piece i scaled by i + 1.
Tensor weighted_cat(const std::vector<Tensor>& pieces) {
  std::vector<Tensor> flat;
  for (size_t i = 0; i < pieces.size(); ++i)
    flat.push_back(pieces[i].reshape({-1}) * static_cast<double>(i + 1));
  return cat(flat);
}
}  // namespace

void add_shape_grad_ops(std::vector<GradOpInfo>& ops) {
  // ---- Views ----
  // Splitting the last dim is a view for the non-contiguous variant too.
  ops.push_back(shape_unary("view", {3, 4}, [](const Tensor& x) { return x.view({-1, 2, 2}); }));
  ops.push_back(shape_unary("view", {3, 4}, [](const Tensor& x) { return x.view({3, 1, -1, 2}); }));
  ops.push_back(shape_unary("reshape", {3, 4}, [](const Tensor& x) { return x.reshape({-1, 2}); }));
  ops.push_back(shape_unary("reshape", {2, 3, 4}, [](const Tensor& x) { return x.reshape({-1}); }));
  ops.push_back(shape_unary("flatten", {2, 3, 4}, [](const Tensor& x) { return x.flatten(1); }));
  ops.push_back(shape_unary("flatten", {2, 3, 4}, [](const Tensor& x) { return x.flatten(); }));
  ops.push_back(shape_unary("unflatten", {3, 4}, [](const Tensor& x) {
    return x.unflatten(1, {2, 2});
  }));
  ops.push_back(shape_unary("squeeze", {3, 1, 4}, [](const Tensor& x) { return x.squeeze(1); }));
  ops.push_back(shape_unary("squeeze", {3, 1, 4, 1}, [](const Tensor& x) { return x.squeeze(); }));
  ops.push_back(shape_unary("unsqueeze", {3, 4}, [](const Tensor& x) { return x.unsqueeze(1); }));
  ops.push_back(shape_unary("unsqueeze", {3, 4}, [](const Tensor& x) { return x.unsqueeze(-1); }));
  ops.push_back(shape_unary(
      "permute", {2, 3, 4},
      [](const Tensor& x) {
        return x.permute({2, 0, 1});
      },
      true));
  ops.push_back(
      shape_unary("transpose", {2, 3, 4}, [](const Tensor& x) { return x.transpose(0, 2); }));
  ops.push_back(shape_unary("t", {3, 4}, [](const Tensor& x) { return x.t(); }));
  ops.push_back(shape_unary("t", {4}, [](const Tensor& x) { return x.t(); }));
  ops.push_back(shape_unary(
      "expand", {3, 1},
      [](const Tensor& x) {
        return x.expand({2, -1, 4});
      },
      true));
  ops.push_back(shape_unary("expand", {3, 1}, [](const Tensor& x) { return x.expand({-1, 5}); }));
  ops.push_back(shape_unary("narrow", {4, 5}, [](const Tensor& x) { return x.narrow(1, 1, 3); }));
  ops.push_back(shape_unary("narrow", {4, 5}, [](const Tensor& x) { return x.narrow(-1, -2, 2); }));
  ops.push_back(shape_unary(
      "select", {3, 4}, [](const Tensor& x) { return x.select(1, 2); }, true));
  ops.push_back(shape_unary("select", {2, 3, 4}, [](const Tensor& x) { return x.select(-1, -1); }));
  ops.push_back(shape_unary(
      "slice", {5, 4}, [](const Tensor& x) { return x.slice(1, 1, 4, 2); }, true));
  ops.push_back(shape_unary("slice", {5, 6}, [](const Tensor& x) { return x.slice(1, -4); }));
  ops.push_back(
      shape_unary("split", {4, 5}, [](const Tensor& x) { return weighted_cat(x.split(2, 1)); }));
  ops.push_back(shape_unary("split_with_sizes", {4, 6}, [](const Tensor& x) {
    return weighted_cat(x.split_with_sizes({1, 2, 3}, 1));
  }));
  ops.push_back(
      shape_unary("chunk", {4, 6}, [](const Tensor& x) { return weighted_cat(x.chunk(3, 1)); }));
  ops.push_back(
      shape_unary("chunk", {4, 5}, [](const Tensor& x) { return weighted_cat(x.chunk(2, -1)); }));
  ops.push_back(
      shape_unary("unbind", {3, 4}, [](const Tensor& x) { return weighted_cat(x.unbind(1)); }));
  ops.push_back(shape_unary("diagonal", {3, 4}, [](const Tensor& x) { return x.diagonal(1); }));
  ops.push_back(
      shape_unary("diagonal", {2, 3, 4}, [](const Tensor& x) { return x.diagonal(-1, 2, 1); }));
  // Overlapping windows: elements read twice get both gradients.
  GradOpInfo strided = shape_unary(
      "as_strided", {3, 4},
      [](const Tensor& x) {
        return x.as_strided({3, 3}, {2, 1}, 1);
      },
      true);
  strided.zero_size = false;  // fixed sizes over the input's storage
  ops.push_back(strided);
  GradOpInfo strided_plain = shape_unary("as_strided", {3, 4}, [](const Tensor& x) {
    return x.as_strided({2, 2}, {4, 1});
  });
  strided_plain.zero_size = false;
  ops.push_back(strided_plain);
  ops.push_back(shape_unary("movedim", {2, 3, 4}, [](const Tensor& x) { return x.movedim(0, 2); }));
  ops.push_back(shape_unary("movedim", {2, 3, 4}, [](const Tensor& x) {
    return x.movedim({0, 1}, {2, 0});
  }));
  ops.push_back(shape_unary(
      "unfold", {3, 7}, [](const Tensor& x) { return x.unfold(1, 3, 2); }, true));  // overlaps
  ops.push_back(shape_unary("unfold", {3, 7}, [](const Tensor& x) { return x.unfold(-1, 2, 3); }));

  // ---- Shape ops that copy ----
  ops.push_back(grad_op_entry(
      "cat", {{2, 3}, {4, 3}},
      [](const Inputs& x) {
        return cat({x[0], x[1]});
      },
      true));
  ops.push_back(grad_op_entry("cat", {{3, 2}, {3, 1}, {3, 4}}, [](const Inputs& x) {
    return cat({x[0], x[1], x[2]}, -1);
  }));
  // The legacy 1-D empty tensor is skipped: the others' gradients keep their places.
  ops.push_back(grad_op_entry("cat", {{2, 3}, {1, 3}}, [](const Inputs& x) {
    return cat({x[0], empty({0}, kDouble), x[1]}, 0);
  }));
  ops.push_back(grad_op_entry(
      "stack", {{3, 4}, {3, 4}, {3, 4}},
      [](const Inputs& x) {
        return stack({x[0], x[1], x[2]}, 1);
      },
      true));
  ops.push_back(grad_op_entry("stack", {{3, 4}, {3, 4}}, [](const Inputs& x) {
    return stack({x[0], x[1]}, -1);
  }));
  ops.push_back(shape_unary("repeat", {2, 3}, [](const Tensor& x) { return x.repeat({2, 1, 3}); }));
  ops.push_back(shape_unary("repeat", {2, 3}, [](const Tensor& x) { return x.repeat({1, 2}); }));
  ops.push_back(shape_unary("tile", {2, 3}, [](const Tensor& x) { return x.tile({2}); }));
  ops.push_back(shape_unary("tile", {2, 3}, [](const Tensor& x) { return x.tile({3, 1, 2}); }));
  ops.push_back(shape_unary("flip", {3, 4}, [](const Tensor& x) { return x.flip({0, 1}); }));
  ops.push_back(shape_unary("flip", {2, 3, 4}, [](const Tensor& x) { return x.flip({-1}); }));
  ops.push_back(shape_unary("roll", {3, 4}, [](const Tensor& x) {
    return x.roll({1, -2}, {0, 1});
  }));
  ops.push_back(
      shape_unary("roll", {3, 4}, [](const Tensor& x) { return x.roll({5}); }));  // flattened
  ops.push_back(shape_unary("tril", {4, 4}, [](const Tensor& x) { return x.tril(); }));
  ops.push_back(shape_unary("tril", {2, 3, 5}, [](const Tensor& x) { return x.tril(-1); }));
  ops.push_back(shape_unary("triu", {4, 4}, [](const Tensor& x) { return x.triu(); }));
  ops.push_back(shape_unary("triu", {3, 5}, [](const Tensor& x) { return x.triu(2); }));
  ops.push_back(shape_unary("constant_pad_nd", {3, 4}, [](const Tensor& x) {
    return constant_pad_nd(x, {1, 2}, 0.5);
  }));
  // Negative pads crop.
  ops.push_back(shape_unary("constant_pad_nd", {3, 4}, [](const Tensor& x) {
    return constant_pad_nd(x, {-1, 2, 1, 1});
  }));
  // Plain: a copy; non-contiguous: already contiguous after the transpose, so self comes back.
  ops.push_back(shape_unary("contiguous", {3, 4},
                            [](const Tensor& x) { return x.transpose(0, 1).contiguous(); }));
  ops.push_back(shape_unary("clone", {3, 4}, [](const Tensor& x) { return x.clone(); }));
  GradOpInfo bt = grad_op_entry("broadcast_tensors", {{3, 1}, {2, 1, 4}}, [](const Inputs& x) {
    return weighted_cat(broadcast_tensors({x[0], x[1]}));
  });
  bt.broadcast = true;
  ops.push_back(bt);
}

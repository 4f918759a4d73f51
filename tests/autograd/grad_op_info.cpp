#include "tests/autograd/grad_op_info.h"

GradOpInfo grad_op_entry(std::string name, std::vector<std::vector<int64_t>> shapes,
                         std::function<ember::Tensor(const std::vector<ember::Tensor>&)> fn,
                         bool gradgrad) {
  GradOpInfo info;
  info.name = std::move(name);
  info.shapes = std::move(shapes);
  info.fn = std::move(fn);
  info.gradgrad = gradgrad;
  info.broadcast = false;
  return info;
}

const std::vector<GradOpInfo>& grad_op_infos() {
  static const std::vector<GradOpInfo> ops = [] {
    std::vector<GradOpInfo> v;
    add_elementwise_grad_ops(v);
    add_reduction_grad_ops(v);
    add_shape_grad_ops(v);
    add_indexing_grad_ops(v);
    add_linalg_grad_ops(v);
    return v;
  }();
  return ops;
}

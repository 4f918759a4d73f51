#include "tests/autograd/grad_op_info.h"

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

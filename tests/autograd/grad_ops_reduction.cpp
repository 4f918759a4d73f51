// Gradient test entries of the reduction ops (see grad_op_info.h).
#include "tests/autograd/grad_op_info.h"

using namespace ember;

void add_reduction_grad_ops(std::vector<GradOpInfo>& ops) { (void)ops; }
